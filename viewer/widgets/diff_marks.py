"""The Diff tab's count of the raw view's marks (its second row): ``marked in the raw
view, items of every kind: 224 folded``, an item an elision dropped said as the raw view
says it, dropped, not folded."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from session_core.model import FOLDED, Compaction, Item

# What the count calls an item an elision dropped (sent as nothing: an agentgo
# projection's) that no compaction folded, marked folded among the items
DROPPED_MARKED = "dropped by a projection"


def mark_counts(
    raw: Sequence[Item],
    compactions: Sequence[Compaction],
    index_of: Callable[[str], int | None],
) -> dict[str, int]:
    """How many of the raw items carry each mark; of those marked folded, the ones an
    elision dropped and no compaction folded counted as ``DROPPED_MARKED`` (the raw view
    says each ``dropped by the projection at line N``, ``diff`` lists it ``not sent:
    dropped by a projection``). ``index_of``: an item's raw index by its id."""
    counted = getattr(raw, "mark_counts", None)
    counts = counted() if counted is not None else None
    if counts is None:
        counts = {}
        for item in raw:
            for mark in item.marks:
                counts[mark] = counts.get(mark, 0) + 1
    if counts.get(FOLDED):
        dropped = _dropped_marked(raw, compactions, index_of)
        if dropped:
            counts[FOLDED] -= dropped
            counts[DROPPED_MARKED] = dropped
            if not counts[FOLDED]:
                del counts[FOLDED]
    return counts


def _dropped_marked(
    raw: Sequence[Item],
    compactions: Sequence[Compaction],
    index_of: Callable[[str], int | None],
) -> int:
    """How many items marked folded an elision dropped that no compaction folded (a later
    request may have sent one again: unmarked, not counted). Only where an elision
    dropped some are the compactions' ids read."""
    dropped: set[str] = set()
    for compaction in compactions:
        if compaction.kind == "elision" and not compaction.unsent:
            dropped.update(compaction.dropped)
    if not dropped:
        return 0
    for compaction in compactions:
        if compaction.kind != "elision":
            dropped.difference_update(compaction.folded)
    found = (index_of(ident) for ident in dropped)
    return sum(1 for at in found if at is not None and FOLDED in raw[at].marks)


__all__ = ["DROPPED_MARKED", "mark_counts"]
