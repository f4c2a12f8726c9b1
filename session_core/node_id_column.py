"""An ``ItemColumn`` whose items are named by ids kept once, packed."""

from __future__ import annotations

from array import array

from .item_column import ItemColumn
from .packed_ids import PackedIds


class NodeIdColumn(ItemColumn):
    """An ``ItemColumn`` whose items are named by ids kept once, packed (a ``PackedIds``:
    the replay's ids of its lines, Claude Code's uuids of its nodes), not a str per item:
    ``nodes`` gives each item's node there (-1: an item named as ``ItemColumn`` names
    it, by ``ident`` or its line)."""

    __slots__ = ("node_ids", "nodes")

    def __init__(self, nodes: array[int], ids: PackedIds, id_prefix: str = "L") -> None:
        super().__init__(id_prefix)
        self.nodes = nodes  # item -> its node in ids, or -1
        self.node_ids = ids

    def id_of(self, index: int) -> str:
        node = self.nodes[index]
        return self.node_ids[node] if node >= 0 else super().id_of(index)


__all__ = ["NodeIdColumn"]
