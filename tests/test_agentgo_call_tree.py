"""agentgo's call tree (``CallsPane`` over a ``LineTree``): a run's node is relabelled
only when what it says changes. (``LineTree`` itself: ``tests/test_line_tree.py``.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from agentgo_story import write_agentgo_story
from session_core.agentgo.reader import read_view
from viewer.widgets.agentgo_calls import CallsPane
from viewer.widgets.line_tree import LineTree


async def test_a_run_is_relabelled_only_when_what_it_says_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every run's node was labelled again at every append: 70% of following a 1 GB
    session's call tree."""
    path = tmp_path / "s.jsonl"
    write_agentgo_story(path)
    view = read_view(path)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield CallsPane(id="calls")

    async with Host().run_test() as pilot:
        pane = pilot.app.query_one(CallsPane)
        pane.activate(True)
        pane.set_view(view, None)
        labelled: list[object] = []
        real = LineTree.set_label

        def noted(tree: LineTree[Any], key: object, label: Text) -> None:
            labelled.append(key)
            real(tree, key, label)

        monkeypatch.setattr(LineTree, "set_label", noted)
        pane.refresh_calls([])
        assert not [data for data in labelled if isinstance(data, str)]  # (a run's id)
        run_id = next(iter(pane.run_nodes))
        assert view.run_status(run_id) == "closed"
        real_status = view.run_status
        monkeypatch.setattr(  # (its run_close, say, read again as missing)
            view, "run_status", lambda r: "interrupted" if r == run_id else real_status(r)
        )
        pane.refresh_calls([])
        assert [data for data in labelled if isinstance(data, str)] == [run_id]
        assert " interrupted" in pane.call_tree.label_of(run_id).plain
        pane.refresh_calls([])
        assert [data for data in labelled if isinstance(data, str)] == [run_id]


async def test_a_narrow_tree_keeps_each_rows_state_attempt_and_retry(tmp_path: Path) -> None:
    """A row wider than its pane was cropped at its end, where the state word, ``attempt
    N`` and ``↻ retried`` were: two attempts of a retried call differed only by ✓/✗.
    What tells rows apart comes first, and a cut row ends with ``…``."""
    path = tmp_path / "s.jsonl"
    write_agentgo_story(path)
    view = read_view(path)

    class Host(App[None]):
        CSS = "CallsPane { width: 80; }"  # (the tree gets half: 40 cells, as at 80 columns)

        def compose(self) -> ComposeResult:
            yield CallsPane(id="calls")

    async with Host().run_test(size=(80, 30)) as pilot:
        pane = pilot.app.query_one(CallsPane)
        pane.activate(True)
        pane.set_view(view, None)
        await pilot.pause()
        tree = pane.call_tree
        rows = [
            "".join(s.text for s in tree.render_line(y)).rstrip() for y in range(tree.size.height)
        ]
        failed = next(row for row in rows if "attempt 1" in row)
        assert "✗ failed attempt 1 ↻ retried" in failed and failed.endswith("…")
        assert any("✓ ok attempt 2" in row for row in rows)
        assert all(len(row) <= tree.size.width for row in rows)
