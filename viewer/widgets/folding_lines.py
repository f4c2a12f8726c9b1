"""Which compaction folded each raw item, kept from one snapshot to the next.

The raw view marks an item a compaction folded with that compaction's line. Made afresh
for every snapshot, the map read every folded id of the file: 0.3-0.7 s of the UI thread
a snapshot for a 1 GB file of any format (110,000-340,000 ids). A followed file's
compactions only grow, each one's ids fixed once it is in a snapshot, so only the new
ones are read. Anything else (fewer compactions, the last one read not as it was: a file
replaced or reset, another file) reads them all again.
"""

from __future__ import annotations

from collections.abc import Sequence

from session_core.model import Compaction

Key = tuple[str, str, int, int, str | None, str | None, bool]


def _key(compaction: Compaction) -> Key:
    """Enough to tell one compaction from another in its place (a reset that read a
    rewritten file to as many compactions still differs in its folded ids; one not sent
    yet, whose folds a later request tells, and those before it, is read again then)."""
    folded = compaction.folded
    ends = (folded[0], folded[-1]) if folded else (None, None)
    return (compaction.id, compaction.kind, compaction.line, len(folded), *ends, compaction.unsent)


class FoldingLines:
    """Item id → the line of the (last) compaction that folded it; 0: a compaction not
    from a line. ``dropped``: item id → the line of the (last) agentgo projection that
    dropped it (an elision's ``dropped``, not in ``by_id``: a later request may hold it
    again, and the item's own ``folded`` mark says whether none has). An id an elision
    stubbed is in neither: the item's own ``elided`` mark says whether it is sent as a
    stub (an agentgo request may hold it as written again; it is not folded).

    Compactions come in file order, or (a sequence that says its ``kind_counts``: v1's)
    its compactions, then its elisions: two stretches, each of which only grows."""

    __slots__ = ("_last", "_read", "by_id", "dropped")

    def __init__(self) -> None:
        self.by_id: dict[str, int] = {}
        self.dropped: dict[str, int] = {}
        self._read: list[int] = []  # each stretch's compactions read into ``by_id``
        self._last: list[Key | None] = []  # the last of them

    def update(self, compactions: Sequence[Compaction]) -> dict[str, int]:
        n = len(compactions)
        counts = getattr(compactions, "kind_counts", None)
        if counts is not None:
            made = counts()[0]
            stretches = [(0, made), (made, n)]
        else:
            stretches = [(0, n)]
        if len(self._read) != len(stretches) or any(
            read and (stop - start < read or _key(compactions[start + read - 1]) != last)
            for (start, stop), read, last in zip(stretches, self._read, self._last, strict=True)
        ):
            self.clear()
            self._read, self._last = [0] * len(stretches), [None] * len(stretches)
        by_id = self.by_id
        for k, (start, stop) in enumerate(stretches):
            for at in range(start + self._read[k], stop):
                compaction = compactions[at]
                if compaction.kind == "compaction" and compaction.line:
                    by_id.update(dict.fromkeys(compaction.folded, compaction.line))
                elif compaction.kind == "compaction":  # (its 0 never overrides a line)
                    for ident in compaction.folded:
                        by_id.setdefault(ident, 0)
                else:
                    self.dropped.update(dict.fromkeys(compaction.dropped, compaction.line))
                if at == stop - 1:
                    self._last[k] = _key(compaction)
            self._read[k] = stop - start
        return by_id

    def clear(self) -> None:
        self.by_id, self.dropped = {}, {}
        self._read, self._last = [], []


__all__ = ["FoldingLines"]
