"""Each API response's usage as numbers in columns: Claude Code's and Codex's readers
keep it per raw item (a big file has 100,000s of responses)."""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections.abc import Callable

from .item_column import ItemColumn
from .item_facts import ItemFacts
from .model import Usage

_BIG = (1 << 63) - 1  # what an ``array("q")`` holds


class ResponseUsage(ItemFacts):
    """Each response's usage, by its raw item, as numbers in columns (a big file has
    100,000s of responses): the item's ``Usage`` is made when the item is built. The
    raw column's facts (``ItemColumn.facts``): an item's marks are the column's own.
    Responses come in file order; a usage the columns cannot hold (counts not said or
    out of range, an item's usage set again) is kept as it is (``fallback``) and wins."""

    __slots__ = (
        "at",
        "cached",
        "cost",
        "fallback",
        "inputs",
        "is_response",
        "outputs",
        "raw",
        "writes",
    )
    MARKS_ARE_THE_COLUMNS = True

    def __init__(self, raw: ItemColumn, is_response: Callable[[int], bool] | None = None) -> None:
        self.raw = raw
        # Whether a raw item is a response, where a reader tells it: one whose usage was
        # never set reported none (its usage unknown: ``Usage(responses=1)``, not None).
        self.is_response = is_response
        self.at = array("l")  # the raw items, ascending (as responses come)
        self.inputs, self.outputs, self.cached = array("q"), array("q"), array("q")
        self.writes = array("q")  # -1: not said
        self.cost = array("d")  # NaN: not known
        self.fallback: dict[int, Usage] = {}  # what the columns cannot hold

    def set(self, index: int, usage: Usage) -> None:
        """The usage of a response as ``usage_of`` made it."""
        at = self.at
        counts = (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens)
        write = usage.cache_write_tokens
        if (
            (at and index <= at[-1])
            or (usage.reported, usage.responses, usage.cost_reported)
            != (1, 1, 0 if usage.cost is None else 1)
            or not all(type(n) is int and 0 <= n <= _BIG for n in counts)
            or not (write is None or (type(write) is int and 0 <= write <= _BIG))
            or (usage.cost is not None and math.isnan(usage.cost))
            or usage.unpriced_why  # (why its cost is unknown: no column holds it)
        ):
            if at and index == at[-1]:  # (never two for one item, but were there)
                self._drop_last()
            self.fallback[index] = usage
            self.raw.changed(index)
            return
        self.fallback.pop(index, None)
        at.append(index)
        self.inputs.append(counts[0])  # type: ignore[arg-type]
        self.outputs.append(counts[1])  # type: ignore[arg-type]
        self.cached.append(counts[2])  # type: ignore[arg-type]
        self.writes.append(-1 if write is None else write)
        self.cost.append(math.nan if usage.cost is None else usage.cost)
        self.raw.changed(index)

    def forget(self, index: int, usage: Usage) -> None:
        """Take back ``usage``, set for ``index`` (where no other was set since)."""
        if self.fallback.get(index) is usage:
            del self.fallback[index]
            self.raw.changed(index)

    def clear(self) -> None:
        """No response's usage any more (a fork's copied history: its parent's)."""
        self.at, self.inputs, self.outputs = array("l"), array("q"), array("q")
        self.cached, self.writes, self.cost = array("q"), array("q"), array("d")
        self.fallback = {}
        self.raw.changed_all()

    def _drop_last(self) -> None:
        for column in (self.at, self.inputs, self.outputs, self.cached, self.writes, self.cost):
            column.pop()

    def usage(self, index: int) -> Usage | None:
        if self.fallback:
            kept = self.fallback.get(index)
            if kept is not None:
                return kept
        at = self.at
        slot = bisect_left(at, index)
        if slot == len(at) or at[slot] != index:
            unreported = self.is_response is not None and self.is_response(index)
            return Usage(responses=1) if unreported else None
        write = self.writes[slot]
        cost = self.cost[slot]
        known = not math.isnan(cost)
        return Usage(
            self.inputs[slot],
            self.outputs[slot],
            self.cached[slot],
            None if write < 0 else write,
            cost if known else None,
            1,
            1,
            1 if known else 0,
        )

    def marks(self, index: int, ident: str) -> list[str]:
        return list(self.raw.marks.get(index, ()))

    def stub(self, index: int, ident: str) -> str | None:
        return self.raw.marked_stub(index)


__all__ = ["ResponseUsage"]
