"""agentgo's call tree (``_CallTree``, ``CallsPane``): a label's width is measured once,
not at every rebuild of the tree's lines (each append of a followed session rebuilds
them all), and a run's node relabelled only when what it says changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets.tree import TreeNode

from agentgo_story import write_agentgo_story
from session_core.agentgo.reader import read_view
from viewer.widgets.agentgo_calls import CallsPane, _CallTree


def test_a_labels_width_is_measured_once_until_it_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    measured: list[str] = []
    real = Text.cell_len

    def counted(self: Text) -> int:
        measured.append(self.plain)
        return real.fget(self)  # type: ignore[attr-defined,no-any-return]

    tree = _CallTree(Text("calls"))
    nodes = [tree.root.add(Text(f"✓ tool call {n}"), data=f"c{n}") for n in range(50)]
    monkeypatch.setattr(Text, "cell_len", property(counted))
    widths = [tree.get_label_width(node) for node in nodes]
    assert widths == [len(f"✓ tool call {n}") + 2 for n in range(50)] and len(measured) == 50
    again = [tree.get_label_width(node) for node in nodes]  # (the next rebuild)
    assert again == widths and len(measured) == 50
    nodes[3].set_label(Text("✗ tool call 3 failed ↻ retried"))
    assert tree.get_label_width(nodes[3]) == len("✗ tool call 3 failed ↻ retried") + 2
    assert len(measured) == 51
    tree.clear()  # (node ids start again from 0: no width is taken for another's)
    fresh = tree.root.add(Text("x"), data="y")
    assert tree.get_label_width(fresh) == 3


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
        real = TreeNode.set_label

        def noted(node: TreeNode[object], label: Any) -> None:
            labelled.append(node.data)
            real(node, label)

        monkeypatch.setattr(TreeNode, "set_label", noted)
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
        label = pane.run_nodes[run_id].label
        assert " interrupted" in (label.plain if isinstance(label, Text) else str(label))
        pane.refresh_calls([])
        assert [data for data in labelled if isinstance(data, str)] == [run_id]
