"""agentgo's call tree (``_CallTree``): a label's width is measured once, not at every
rebuild of the tree's lines (each append of a followed session rebuilds them all)."""

from __future__ import annotations

import pytest
from rich.text import Text

from viewer.widgets.agentgo_calls import _CallTree


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
