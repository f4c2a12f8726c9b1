"""What a search may skip in an item column: the items whose lines' bytes cannot hold
the needle (``LineFilter``), where the format vouches that an item's searched texts are
its line's JSON strings (``Verbatim``) and the search reads no readable words of them
(``vocabulary.readable_of``: ``stdout:`` is in no line's bytes); their lines read a
block at a time."""

from __future__ import annotations

import re
from collections.abc import Callable

from .events import SPAN_BITS, SPAN_MAX
from .fold import holds
from .item_column import ItemColumn
from .line_filter import LineFilter
from .model import Item
from .parts import CHANGED
from .term_reading import reading
from .vocabulary import Readable, as_written

BLOCK = 1 << 22  # bytes a search reads at a time, at most (but for one longer line)
GAP = 1 << 16  # bytes between two lines a search reads in one block, at most


class Skipping:
    """What a search of one needle may skip in a column: the items kept by span whose
    format vouches for their lines (``Verbatim``), whose role, kind and stub do not hold
    the needle, and whose line's bytes cannot (``LineFilter``)."""

    __slots__ = ("column", "filter", "kinds", "roles_held", "stubbed", "unplain")

    def __init__(
        self,
        column: ItemColumn,
        line_filter: LineFilter,
        unplain: re.Pattern[bytes],
        kinds: frozenset[str],
        held: set[int],
        stubbed: set[str] | None,
    ) -> None:
        self.column = column
        self.filter = line_filter
        self.unplain = unplain  # (the lines read whole: ``Verbatim``'s, for this needle)
        codes = {column._codes.get(kind) for kind in kinds}
        self.kinds = {code for code in codes if code is not None} - held
        self.roles_held = held
        self.stubbed = stubbed  # the ids whose stub holds the needle (None: ask each)

    @classmethod
    def of(
        cls, column: ItemColumn, needle: str, readable: Readable = as_written
    ) -> Skipping | None:
        """What a search of ``needle`` may skip (None: nothing). A search that reads
        ``readable``'s words of each item too skips none: its line's bytes need not hold
        them."""
        verbatim = column.verbatim
        if verbatim is None or column.line_source is None or holds(CHANGED, needle):
            return None
        if readable is not as_written:
            return None
        line_filter = LineFilter.of(needle)
        if line_filter is None:
            return None
        strings = column._strings
        held = {code for code, text in enumerate(strings) if text and holds(text, needle)}
        if needle in "message":  # (code 0: a kind of none is "message", a role "")
            held.add(0)
        stubs = column.facts.stubs() if column.facts is not None else {}
        stubbed = None
        if stubs is not None:
            stubbed = {ident for ident, stub in stubs.items() if holds(stub, needle)}
        unplain = verbatim.unplain
        if verbatim.calls is not None and reading(needle).call_lines:
            # (a call's row, searched as shown, is not its line's bytes: read whole)
            unplain = re.compile(unplain.pattern + b"|" + verbatim.calls.pattern)
        return cls(column, line_filter, unplain, verbatim.kinds, held, stubbed)

    def skippable(self, indexes: range, entry_of: Callable[[int], int | Item]) -> set[int]:
        """The items of ``indexes`` (of a view whose ``entry_of`` says which column item
        each is) that cannot hold the needle."""
        column = self.column
        parts, has_more, span_at = column.parts, column.has_more, column.span_at
        role, kind, kinds, held = column.role, column.kind, self.kinds, self.roles_held
        stubbed, facts, needle = self.stubbed, column.facts, self.filter.needle
        spans: list[tuple[int, int]] = []  # (span, index) of the items a line may rule out
        for index in indexes:
            entry = entry_of(index)
            if (
                type(entry) is not int
                or parts[entry] is not None
                or kind[entry] not in kinds
                or role[entry] in held
                or not span_at(entry)
                or has_more(entry)
            ):
                continue
            if stubbed is None:
                stub = facts.stub(entry, column.id_of(entry)) if facts is not None else None
                if stub is not None and holds(stub, needle):
                    continue
            elif stubbed and column.id_of(entry) in stubbed:
                continue
            spans.append((span_at(entry), index))
        spans.sort()
        return self._ruled_out(spans)

    def _ruled_out(self, spans: list[tuple[int, int]]) -> set[int]:
        """The indexes of ``spans`` (sorted) whose lines cannot hold the needle, their
        lines read a block at a time (a line that cannot be read is read whole after)."""
        lines = self.column.line_source
        assert lines is not None
        skip: set[int] = set()
        at = 0
        while at < len(spans):
            first = last = spans[at][0] >> SPAN_BITS
            end = at
            while end < len(spans):
                offset = spans[end][0] >> SPAN_BITS
                stop = offset + (spans[end][0] & SPAN_MAX)
                if end > at and (stop - first > BLOCK or offset - last > GAP):
                    break
                last = stop
                end += 1
            group = spans[at:end]
            at = end
            try:
                block = lines.read(first << SPAN_BITS | (last - first))
            except OSError:
                continue
            if len(block) != last - first:
                continue
            starts = [(span >> SPAN_BITS) - first for span, _ in group]
            ends = [(span >> SPAN_BITS) - first + (span & SPAN_MAX) for span, _ in group]
            maybe = self.filter.maybe(block, starts, ends, self.unplain)
            skip.update(index for k, (_, index) in enumerate(group) if k not in maybe)
        return skip


__all__ = ["Skipping"]
