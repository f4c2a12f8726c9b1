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
