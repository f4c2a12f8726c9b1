"""agentgo's Calls tab opens with its first run's row on screen: it opened scrolled
one row down, the first call selected and the ``▼ run 1 …`` row above the top edge
until ``g`` (a person's look, 100x30 and 160x45)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from helpers import agentgo_screen, app_on, wait_for

from viewer.widgets.agentgo_calls import CallsPane

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_agentgo


@pytest.mark.parametrize("size", [(100, 30), (160, 45)])
async def test_the_calls_tab_opens_with_its_run_row_shown(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    path = tmp_path / "s.jsonl"  # (more calls than the screen's rows: a story's few
    gen_agentgo.generate(path, 1_000_000, 1)  # fit whatever the scroll, and did)
    os.utime(path, (1_786_000_000, 1_786_000_000))
    async with app_on(path, size) as (app, pilot):
        await wait_for(pilot, lambda: agentgo_screen(app) is not None)
        await pilot.press("2")
        await wait_for(pilot, lambda: bool(app.query(CallsPane)))
        pane = app.query_one(CallsPane)
        await wait_for(pilot, lambda: pane.selected is not None)
        await pilot.pause(0.2)
        tree = pane.call_tree
        assert tree.max_scroll_y > 0  # (it scrolls: the top edge can hide a row)
        assert tree.cursor == 1  # (the first call, under its run's row)
        assert tree.scroll_y == 0, tree.scroll_y
        assert "run 1" in tree.label_of(next(iter(pane.run_nodes))).plain
