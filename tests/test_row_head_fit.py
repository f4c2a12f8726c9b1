"""An item's first line at 80 columns: whole facts are dropped (its time, then its model,
then its usage), never a number cut (``· 122,99…``, its cost gone), and its marks are cut
before its line's number (``[…, folded by the compaction at line 982]  lin…``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import app_loaded, screen_lines

from viewer.demo import DEMO_FILES, DEMO_FORMATS, simulate_run
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.items_view import ItemsView
from viewer.widgets.row_head_fit import fitted_head

HEAD = re.compile(r"[▸▾] (user|assistant|system|tool|\?)\b")


def test_facts_go_whole_then_the_marks_are_cut() -> None:
    facts = ["line 1,231", "gpt-5.3-codex", "2026-02-13T16:33:48.205Z", "122,990 tok", "$0.12"]
    drop = [facts[2], facts[1], facts[4], facts[3]]
    said, kept = fitted_head(13, [], facts, drop, 64)
    assert kept == ["line 1,231", "gpt-5.3-codex", "122,990 tok", "$0.12"]
    said, kept = fitted_head(13, [], facts, drop, 40)
    assert kept == ["line 1,231", "122,990 tok"]
    marks = [("  [finish tool_calls, folded by the compaction at line 982]", "marks")]
    said, kept = fitted_head(13, marks, ["line 6", "2026-08-09T09:02"], ["2026-08-09T09:02"], 60)
    assert kept == ["line 6"] and said[0][0].endswith("…]")
    assert 13 + len(said[0][0]) + len("  line 6") <= 60


@pytest.mark.parametrize("fmt", DEMO_FORMATS)
async def test_no_item_head_is_cut_at_80_columns(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / DEMO_FILES[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    simulate_run(str(path), speed=0, format=fmt)
    async with app_loaded(path, ModelScreen, (80, 40)) as (app, pilot):
        view = app.screen.query_one(ItemsView)
        heads: list[str] = []
        for keys in (("g",), ("r", "g"), ("G",)):
            await pilot.press(*keys)
            await pilot.pause(0.2)
            heads += [line for line in screen_lines(app) if HEAD.search(line)]
        assert view.mode == "raw" and len(heads) > 10
        for head in heads:
            assert not head.rstrip(" ▌┃▁▂▃▄▅▆▇█").endswith("…"), head
            if "  line" in head or "lines from" in head:  # (a summary has none)
                assert re.search(r"line \d[\d,]*( ·|$)", head.rstrip(" ▌┃▁▂▃▄▅▆▇█")), head
