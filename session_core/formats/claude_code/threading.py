"""The parentUuid chain: which lines are the conversation now, folded, or a branch.

Every line with a ``uuid`` is a node, kept compactly (arrays of ints, the uuids packed
in a ``HeldIds``): real files have hundreds of thousands of them, most of them progress
lines. The chain is walked from a leaf back to its root; a walk stops at a null
parent, a parent the file does not have, or a cycle.
"""

from __future__ import annotations

from array import array

from .held_ids import HeldIds

# node kinds
USER, ASSISTANT, SYSTEM, PROGRESS, OTHER = 1, 2, 3, 4, 5
CONVERSATION = (USER, ASSISTANT)

# node statuses, as the raw view marks them
NONE, ACTIVE, FOLDED, BRANCH = 0, 1, 2, 3

_NO_PARENT = -1  # a root (null parentUuid)
_UNRESOLVED = -2  # a parent uuid not (yet) seen: kept as a string in ``pending``
FORWARD = -3  # (``walk_new``) the chain goes on to a later node: walk it whole


class Threads:
    """The nodes of one file, in file order."""

    __slots__ = ("_last", "kind", "line", "parent", "pending", "resolved", "side", "uuids")

    def __init__(self) -> None:
        self.uuids = HeldIds()  # node -> its uuid, uuid -> its first node
        self.parent = array("i")
        self.line = array("i")
        self.kind = array("b")
        self.side = bytearray()  # 1: a sidechain line
        self.pending: dict[int, str] = {}  # node -> parent uuid not seen when it was fed
        self.resolved = 0  # pending parents found since (each changes a node's chain)
        # The last node's uuid, when it is its first (most lines' parent is the line
        # before: found without a lookup).
        self._last: str | None = None

    def __len__(self) -> int:
        return len(self.line)

    def add(self, uuid: str, parent: str | None, line: int, kind: int, sidechain: bool) -> int:
        """A new node (a repeated uuid gets a node of its own; the index keeps the first)."""
        node, first = self.uuids.add(uuid)
        if parent is None:
            self.parent.append(_NO_PARENT)
        else:
            known = node - 1 if parent == self._last else self.uuids.find(parent)
            if known < 0 or known == node:
                self.parent.append(_UNRESOLVED)
                self.pending[node] = parent
            else:
                self.parent.append(known)
        self.line.append(line)
        self.kind.append(kind)
        self.side.append(1 if sidechain else 0)
        self._last = uuid if first else None
        return node

    def has(self, uuid: str) -> bool:
        return self.uuids.find(uuid) >= 0

    def parent_of(self, node: int) -> int:
        """The parent node, or -1 (a root, or a parent the file does not have)."""
        parent = self.parent[node]
        if parent != _UNRESOLVED:
            return parent
        found = self.uuids.find(self.pending[node])
        if found >= 0 and found != node:
            self.parent[node] = found
            del self.pending[node]
            self.resolved += 1
            return found
        return -1

    def relink(self, node: int, parent: str) -> None:
        """Hang ``node`` on another parent (a compaction's preserved segment on its
        anchor), which may come later in the file."""
        self.pending.pop(node, None)
        known = self.uuids.find(parent)
        if known < 0 or known == node:
            self.parent[node] = _UNRESOLVED
            self.pending[node] = parent
        else:
            self.parent[node] = known

    def node_of(self, uuid: object) -> int:
        return self.uuids.find(uuid) if isinstance(uuid, str) else -1

    def walk(self, leaf: int) -> array[int]:
        """The chain from ``leaf`` back to its root, leaf first (cycle-guarded)."""
        out = array("i")
        seen = bytearray(len(self.line))
        parents = self.parent
        node = leaf
        while node >= 0 and not seen[node]:
            seen[node] = 1
            out.append(node)
            parent = parents[node]
            node = parent if parent != _UNRESOLVED else self.parent_of(node)
        return out

    def walk_new(self, leaf: int, first: int) -> tuple[array[int], int]:
        """The chain from ``leaf`` back through the nodes from ``first`` on (leaf first),
        and the node before ``first`` it reaches (-1: a root). A parent written after its
        child (found late, or a cycle) ends it short: ``FORWARD`` for that node."""
        out = array("i")
        parents = self.parent
        node = leaf
        while node >= first:
            out.append(node)
            parent = parents[node]
            if parent == _UNRESOLVED:
                parent = self.parent_of(node)
            if parent >= node:
                return out, FORWARD
            node = parent
        return out, node

    def statuses(
        self,
        active: bytearray,
        folded: bytearray,
        boundary_line: int,
        main_side: int,
        known: bytearray | None = None,
        start: int = 0,
    ) -> bytearray:
        """Each node's status: on the chain now, folded by a compaction, on a branch, or
        neither (a progress or hook line hanging off the chain takes its parent's word).
        Given ``known`` (the statuses of the first ``start`` nodes), only the later ones."""
        n = len(self.line)
        status = bytearray(n) if known is None else known[:start] + bytearray(n - start)
        kinds = self.kind
        lines = self.line
        side = self.side
        for node in range(start, n):
            if side[node] != main_side:
                continue  # a subagent's line: marked a sidechain, on no chain of ours
            if active[node]:
                status[node] = ACTIVE
            elif folded[node]:
                status[node] = FOLDED
            elif kinds[node] in CONVERSATION:
                # On no chain a compaction folded, nor the active one: a branch left (an
                # edit or a retry), before a compaction or after it.
                status[node] = BRANCH
            else:
                parent = self.parent_of(node)
                if 0 <= parent < node:
                    inherited = status[parent]
                    status[node] = NONE if inherited == ACTIVE else inherited
                elif lines[node] < boundary_line:
                    status[node] = FOLDED
        return status
