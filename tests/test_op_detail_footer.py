"""The tool operation's detail says its scrolling keys in its footer, as the help
dialog does (a person's look: ``esc Close  c Copy result`` alone, though j / k / g / G
scroll it), and the help lists them under the detail."""

from __future__ import annotations

import pytest
from helpers import screen_lines, wait_for
from v1_screen_helpers import story, story_open

from viewer.screens.op_detail import OpDetailScreen
from viewer.widgets.block_view import LinesView

__all__ = ["story"]


@pytest.mark.parametrize("size", [(60, 20), (100, 30)])
async def test_the_details_footer_names_its_scroll_keys(story, size: tuple[int, int]) -> None:
    path, _ = story
    async with story_open(path, size) as (app, pilot, _view):
        await pilot.press("3")  # (v1's tool operations)
        await pilot.pause(0.2)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        await pilot.pause(0.2)
        footer = screen_lines(app)[-1]
        for said in ("esc Close", "j Down", "k Up", "g Top", "G Bottom", "c Copy result"):
            assert said in footer, footer
        assert footer.index("esc Close") < footer.index("c Copy result") < footer.index("j Down")
        lines = app.screen.query_one("#op-detail", LinesView)
        await pilot.press("G")
        await wait_for(pilot, lambda: lines.cursor == lines.block_count() - 1)
        await pilot.press("g")
        await wait_for(pilot, lambda: lines.cursor == 0)
        keys = {b.key: b.description for b in OpDetailScreen.help_keys(False, False)}
        assert keys["j"] == "Down" and keys["G"] == "Bottom"
