"""A big file's first screen: its end, in the first frame drawn, for every format."""

from __future__ import annotations

from pathlib import Path

import pytest
from format_fixtures import FACTORIES
from helpers import screen_lines

from session_core.text import size_text
from viewer.app import TailscopeApp
from viewer.screens import following
from viewer.screens.model_screen import ModelScreen


@pytest.mark.parametrize("fmt", sorted(FACTORIES))
async def test_a_big_file_s_first_frame_is_its_end(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end is read and given to the conversation before the first frame, not by a
    worker that shares the interpreter with that frame's layout (one frame later)."""
    path = FACTORIES[fmt](tmp_path)
    monkeypatch.setattr(following, "PREVIEW_FROM", 0)  # any file is "big"
    started: list[ModelScreen] = []
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: started.append(self))
    drawn: list[int] = []  # the conversation's items at each frame written

    app = TailscopeApp(str(path))
    monkeypatch.setattr(
        app,
        "post_display_hook",
        lambda: drawn.append(len(app.file_screen.conversation.items)),
    )
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        screen = app.file_screen
        assert screen._previewing and not screen._loaded
        assert drawn and drawn[0] > 0, drawn  # the first frame held the end
        conversation = screen.conversation
        assert conversation.cursor == len(conversation.items) - 1
        assert started == [screen]  # the full load starts after it
        # Its counts and usage are the end's: said so, never passed off as the file's.
        top, counts, *rest = screen_lines(app)[1:6]  # under the app's title
        # (the usage's line after the meta's, which a long lead can push onto a line)
        usage = next((line for line in rest if " usage " in line), rest[0])
        assert "showing the file's end" in top
        assert " 0 B " not in top and f" {size_text(path.stat().st_size)} " in top  # not read yet
        assert counts.strip().startswith("the file's end alone:"), counts
        assert usage.strip().startswith("the file's end alone: usage"), usage
        assert " lines ·" not in counts


def test_an_item_of_several_lines_read_before_its_line_is_known_says_no_line() -> None:
    """The file's end is read before its lines are counted (its items' ``line`` is 0): a
    response of several lines says how many, not "from line 0"."""
    from session_core.model import Item
    from viewer.widgets.item_text import item_facts

    assert item_facts(Item("a", "assistant", [], line=0, lines=4))[0] == "4 lines"
    assert item_facts(Item("a", "assistant", [], line=9, lines=4))[0] == "4 lines from line 9"
    assert item_facts(Item("a", "assistant", [], line=0)) == []


@pytest.mark.parametrize(("messages", "previewed"), [(4, False), (1_100, True)])
async def test_a_file_of_a_few_mb_shows_its_end_first(
    messages: int, previewed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of 3 MB (a usual session) loads whole in a few tenths of a second after
    start-up: its end is drawn first too, as a 1 GB file's is (it was drawn only once the
    whole file was read, later than a 1 GB file's end). A file of a few KB is read whole."""
    from session_core import Message, Session

    path = tmp_path / "s.jsonl"
    session = Session.create(path, meta={"agent": "t"})
    for i in range(messages):
        session.append_message(Message(role="user", content=f"line {i} " + "x" * 3_000))
    session.close()
    assert (path.stat().st_size > 3_000_000) is previewed
    started: list[ModelScreen] = []
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: started.append(self))
    app = TailscopeApp(str(path))
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        screen = app.file_screen
        assert screen._previewing is previewed
        if previewed:
            assert screen.conversation.items  # the end, before the load starts
