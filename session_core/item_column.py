"""Conversation items kept packed: a small header per line, parts read again by span.

A builder of a big file keeps its raw items in an ``ItemColumn`` instead of an ``Item``
object per line; a snapshot hands out ``column_items.Items`` over it.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

from . import search
from .events import LineSource
from .item_ends import ItemEnds
from .item_facts import ItemFacts, Verbatim
from .item_heights import folded_height, grown_height
from .model import Item, Part, PartSource, Usage, make_lazy
from .parts import CHANGED
from .vocabulary import Readable, as_written

LINE_LIMIT = 2**31 - 1  # the biggest line number an item keeps (``line``: an int32)


STICKY, FOLDED_MARK, NO_TS, READ_TS = 1, 2, 4, 8  # ItemColumn flags (READ_TS: see stamps)
# Each flags byte as 1 where it has FOLDED_MARK, else 0 (counted at C speed).
_FOLDED_BIT = bytes(int(bool(b & FOLDED_MARK)) for b in range(256))
_NO_USAGE: dict[int, Usage] = {}
_ONE_LINE = array("I", [1]) * 1024  # (``ItemColumn.nlines`` grows by as many)


class ItemColumn:
    """A builder's items in file order, packed: per item a small header (line, role, kind,
    model and id as codes, its timestamp, flags, its folded height) and either its parts
    (kept: short, or made up by the builder) or the span of its line, whose parts are read
    again (``PartSource``) when the item is asked for. Items are built on demand and the
    last ``CACHE`` built are kept; what changes an item later (``set_usage``, ``flag``,
    ``set_marks``) drops its built copy."""

    CACHE = 1024

    __slots__ = (
        "_built",
        "_codes",
        "_strings",
        "elided_stub",
        "ends",
        "facts",
        "flags",
        "height",
        "id_prefix",
        "id_suffix",
        "ids",
        "kind",
        "late",
        "line",
        "line_source",
        "marks",
        "model",
        "more_item",
        "more_span",
        "nlines",
        "nparts",
        "parts",
        "role",
        "shown_height",
        "source",
        "span",
        "span_of",
        "stubs",
        "ts_end",
        "ts_text",
        "usage",
        "verbatim",
    )

    def __init__(self, id_prefix: str = "L") -> None:
        self.id_prefix = id_prefix
        # Set while a line's later records are fed (``Builder.joined_line``): an item
        # named by its line is then named ``<prefix><line><suffix>``, not its first's name.
        self.id_suffix = ""
        # 4 bytes a line number and a timestamp's end: a file of 2**31 lines, or 4 GB of
        # timestamps, would need 10s of GB kept before either overflowed (an error then).
        self.line = array("i")
        self.span = array("q")
        # Or the span of each item read again as the builder tells it (v1's: its replay
        # keeps them), then ``span`` is left empty: ``span_at``.
        self.span_of: Callable[[int], int] | None = None
        self.role = array("H")
        self.kind = array("H")
        self.model = array("H")
        self.flags = bytearray()
        self.height = bytearray()
        # The folded heights of items a view shows in its format's readable words, where
        # those are another height than the text as written (``/exit``: not its wrapper).
        self.shown_height: dict[int, int] = {}
        self.nparts = bytearray()  # how many parts (up to 255): an item's later lines add
        # Timestamps packed: their UTF-8 one after another, where each ends.
        self.ts_text = bytearray()
        self.ts_end = array("I")
        self.parts: list[list[Part] | None] = []  # None: read again by span
        self.ids: list[str | None] | None = None  # None: every id is prefix + line
        self.usage: dict[int, Usage] = _NO_USAGE
        self.marks: dict[int, list[str]] = {}
        # Each item's lines, up to the last of more than one (``set_lines``): an array
        # from the first such on (none for a format whose items are a line each).
        self.nlines = array("I")
        self.ends = ItemEnds()  # and where they end, each one's last line and its time
        # The spans of items' later lines (``extend``), in item order (found by
        # bisection); those of an item extended after a later one was, in ``late``.
        self.more_item = array("l")
        self.more_span = array("q")
        self.late: dict[int, list[int]] = {}
        self.source: PartSource | None = None
        # What the builder tells of an item when it is built (None: the column says all).
        self.facts: ItemFacts | None = None
        # What an item marked "elided" (``marks``) is sent as, where its format says one
        # text for all (with no ``facts`` of its own to tell each item's).
        self.elided_stub: str | None = None
        self.stubs: dict[int, str] = {}  # or each one's own, where the format tells it
        # Where a search reads the lines of items kept by span, a block at a time, and
        # what their format vouches for (``Verbatim``): None, each item is read whole.
        self.line_source: LineSource | None = None
        self.verbatim: Verbatim | None = None
        self._strings: list[str | None] = [None]
        self._codes: dict[str | None, int] = {None: 0}
        self._built: dict[int, Item] = {}

    def __len__(self) -> int:
        return len(self.line)

    def _code(self, value: str | None) -> int:
        code = self._codes.get(value)
        if code is None:
            code = self._codes[value] = len(self._strings)
            self._strings.append(value)
        return code

    def append(
        self,
        parts: list[Part],
        line: int,
        *,
        role: str,
        kind: str = "message",
        ts: str | None = None,
        model: str | None = None,
        sticky: bool = False,
        span: int = 0,
        ident: str | None = None,
        keep: bool = False,
        read_ts: bool = False,
    ) -> int:
        """One item; its parts are dropped (read again by ``span``) unless ``keep`` or no
        span/source is known. ``read_ts``: its timestamp is the builder's to tell when it
        is built (``facts``; ``ts`` is not looked at). Returns its index."""
        index = len(self.line)
        self.line.append(line)
        told = self.span_of is not None
        if span and not keep and self.source is not None:
            if not told:
                self.span.append(span)
            self.parts.append(None)
        else:
            if not told:
                self.span.append(0)
            self.parts.append(parts)
        codes = self._codes  # called for every line: the codes looked up inline
        code = codes.get(role)
        self.role.append(self._code(role) if code is None else code)
        code = codes.get(kind)
        self.kind.append(self._code(kind) if code is None else code)
        code = codes.get(model)
        self.model.append(self._code(model) if code is None else code)
        flags = STICKY if sticky else 0
        if read_ts:
            flags |= READ_TS
        elif ts is None:
            flags |= NO_TS
        elif ts:
            self.ts_text += ts.encode("utf-8", "surrogatepass")
        self.flags.append(flags)
        self.height.append(folded_height(parts))
        self.nparts.append(min(len(parts), 255))
        self.ts_end.append(len(self.ts_text))
        if ident is None and self.id_suffix:
            ident = f"{self.id_prefix}{line}{self.id_suffix}"
        if ident is not None or self.ids is not None:
            if self.ids is None:
                self.ids = [None] * index
            self.ids.append(ident)
        return index

    def code(self, value: str | None) -> int:
        """The code a role, kind or model is kept as (what ``append_packed`` is given)."""
        code = self._codes.get(value)
        return self._code(value) if code is None else code

    def append_packed(
        self,
        line: int,
        span: int,
        role: int,
        kind: int,
        model: int,
        ts: str | None,
        height: int,
        nparts: int = 1,
        sticky: bool = False,
        read_ts: bool = False,
    ) -> int:
        """``append`` of an item read again by its span (a span known, ``source`` set)
        whose ``folded_height`` and number of parts the caller knows, its role, kind and
        model given as their ``code``s: the header stored as ``append`` stores it, for a
        builder's hot path (every line of a big file). ``read_ts`` as ``append``'s.
        Returns its index."""
        index = len(self.line)
        self.line.append(line)
        if self.span_of is None:
            self.span.append(span)
        self.parts.append(None)
        self.role.append(role)
        self.kind.append(kind)
        self.model.append(model)
        flags = STICKY if sticky else 0
        if read_ts:
            flags |= READ_TS
        elif ts is None:
            flags |= NO_TS
        else:
            self.ts_text += ts.encode("utf-8", "surrogatepass")
        self.flags.append(flags)
        self.height.append(height)
        self.nparts.append(min(nparts, 255))
        self.ts_end.append(len(self.ts_text))
        if self.ids is not None:
            self.ids.append(None)
        return index

    def append_unread(
        self, line: int, span: int, *, role: str, height: int, nparts: int, ident: str | None = None
    ) -> int:
        """One item of a line not read: its parts and timestamp are read by ``span`` when
        it is built (``source``, ``facts``); its folded height and part count are what
        the caller knows of the line (a replay's facts). Returns its index."""
        index = len(self.line)
        self.line.append(line)
        if self.span_of is None:
            self.span.append(span)
        self.parts.append(None)
        self.role.append(self.code(role))
        self.kind.append(self.code("message"))
        self.model.append(0)
        self.flags.append(READ_TS)
        self.height.append(min(height, 255))
        self.nparts.append(min(nparts, 255))
        self.ts_end.append(len(self.ts_text))
        if ident is None and self.id_suffix:
            ident = f"{self.id_prefix}{line}{self.id_suffix}"
        if ident is not None or self.ids is not None:
            if self.ids is None:
                self.ids = [None] * index
            self.ids.append(ident)
        return index

    def extend_unread(
        self,
        lines: Sequence[int],
        spans: Sequence[int] | None,
        roles: Sequence[int],
        heights: Sequence[int],
        nparts: Sequence[int],
        idents: list[str | None] | None = None,
    ) -> int:
        """``append_unread`` of many items at once (their roles as codes, ``code``; their
        heights and part counts at most 255; ``spans`` None: told by ``span_of``; ``idents``
        None: each is prefix + line, or a ``NodeIdColumn``'s node's). Returns the index of
        the first."""
        index = len(self.line)
        many = len(lines)
        self.line.extend(lines)
        if spans is not None:
            self.span.extend(spans)
        self.parts.extend([None] * many)
        self.role.extend(roles)
        self.kind.extend(array("H", [self.code("message")]) * many)
        self.model.extend(array("H", [0]) * many)
        self.flags.extend(bytes([READ_TS]) * many)
        self.height.extend(heights)
        self.nparts.extend(nparts)
        self.ts_end.extend(array("I", [len(self.ts_text)]) * many)
        if idents is not None or self.ids is not None:
            if self.ids is None:
                self.ids = [None] * index
            self.ids.extend([None] * many if idents is None else idents)
        return index

    def span_at(self, index: int) -> int:
        """The span item ``index`` is read again by (0: its parts are kept)."""
        if self.span_of is None:
            return self.span[index]
        return self.span_of(index) if self.parts[index] is None else 0

    def id_of(self, index: int) -> str:
        ids = self.ids
        ident = ids[index] if ids is not None else None
        return ident if ident is not None else f"{self.id_prefix}{self.line[index]}"

    def changed(self, index: int) -> None:
        self._built.pop(index, None)

    def changed_all(self) -> None:
        """What ``facts`` says of the items may have changed: build them again."""
        self._built.clear()

    def extend(self, index: int, parts: list[Part], span: int = 0) -> None:
        """An item's later line (a response whose blocks came over several lines): its
        parts are read again by span too when every line of the item can be, else the
        item's parts are kept from now on."""
        before = self.nparts[index]
        if span and self.parts[index] is None and self.source is not None:
            items = self.more_item
            if not items or index >= items[-1]:
                items.append(index)
                self.more_span.append(span)
            else:
                self.late.setdefault(index, []).append(span)
        else:  # (its spans are read no more: its parts are kept from now on)
            self.parts[index] = [*self.parts_of(index), *parts]
            if self.span_of is None:
                self.span[index] = 0
        self.nparts[index] = min(before + len(parts), 255)
        self.height[index] = min(grown_height(self.height[index], before, parts), 255)
        self._built.pop(index, None)

    def more_spans(self, index: int) -> list[int]:
        """The spans of an item's later lines, in file order."""
        items = self.more_item
        spans = list(self.more_span[bisect_left(items, index) : bisect_right(items, index)])
        late = self.late.get(index) if self.late else None
        return [*spans, *late] if late else spans

    def has_more(self, index: int) -> bool:
        """Whether the item has later lines (``more_spans`` not empty)."""
        items = self.more_item
        at = bisect_left(items, index)
        return (at < len(items) and items[at] == index) or bool(self.late and index in self.late)

    def set_lines(self, index: int, lines: int) -> None:
        """The item is ``lines`` lines of the file (one when never set)."""
        nlines = self.nlines
        while len(nlines) <= index:
            nlines.extend(_ONE_LINE)
        nlines[index] = lines
        self._built.pop(index, None)

    def lines_of(self, index: int) -> int:
        nlines = self.nlines
        return nlines[index] if index < len(nlines) else 1

    def set_end(self, index: int, line: int, ts: str | None) -> None:
        """The item, of several lines, ends at ``line``, written at ``ts``."""
        self.ends.set(index, line, ts)
        self._built.pop(index, None)

    def end_of(self, index: int) -> tuple[int, str | None]:
        """The item's last line and that line's time (``Item.end``), without building it."""
        end = self.ends.get(index) if self.ends else None
        return (self.line[index], self.ts_of(index)) if end is None else end

    def parts_of(self, index: int) -> list[Part]:
        """An item's parts, as kept or read again (without building the item)."""
        parts = self.parts[index]
        return parts if parts is not None else self._read(index)

    def set_usage(self, index: int, usage: Usage | None) -> None:
        if self.usage is _NO_USAGE:
            self.usage = {}
        if usage is None:
            self.usage.pop(index, None)
        else:
            self.usage[index] = usage
        self._built.pop(index, None)

    def set_kind(self, index: int, kind: str) -> None:
        self.kind[index] = self._code(kind)
        self._built.pop(index, None)

    def flag(self, index: int, flag: int) -> None:
        self.flags[index] |= flag
        self._built.pop(index, None)

    def unflag(self, index: int, flag: int) -> None:
        self.flags[index] &= ~flag & 0xFF
        self._built.pop(index, None)

    def set_marks(self, index: int, marks: list[str]) -> None:
        if marks:
            self.marks[index] = marks
        else:
            self.marks.pop(index, None)
        self._built.pop(index, None)

    def mark_counts(self, n: int) -> dict[str, int] | None:
        """How many of the first ``n`` items carry each mark, as ``item`` gives them,
        without building one (None: a builder tells them, ``facts``)."""
        if self.facts is not None and not self.facts.MARKS_ARE_THE_COLUMNS:
            return None
        counts: dict[str, int] = {}
        flags = self.flags
        both = 0  # flagged folded and "folded" in its marks: counted once
        for index, marks in self.marks.items():
            if index < n:
                for mark in marks:
                    counts[mark] = counts.get(mark, 0) + 1
                both += "folded" in marks and bool(flags[index] & FOLDED_MARK)
        flagged = flags[:n].translate(_FOLDED_BIT).count(1)
        if flagged > both:
            counts["folded"] = counts.get("folded", 0) + flagged - both
        return counts

    def ts_of(self, index: int) -> str | None:
        flags = self.flags[index]
        if flags & READ_TS:
            facts = self.facts
            return facts.ts(index, self.span_at(index)) if facts is not None else None
        if flags & NO_TS:
            return None
        start = self.ts_end[index - 1] if index else 0
        return self.ts_text[start : self.ts_end[index]].decode("utf-8", "surrogatepass")

    def kind_codes(self, kind: str) -> list[int]:
        """The codes ``kind`` is kept as (a message's kind may be kept as none)."""
        return [code for code, text in enumerate(self._strings) if (text or "message") == kind]

    def kind_of(self, index: int) -> str:
        return self._strings[self.kind[index]] or "message"

    def role_of(self, index: int) -> str:
        return self._strings[self.role[index]] or ""

    def model_of(self, index: int) -> str | None:
        return self._strings[self.model[index]]

    def string(self, code: int) -> str | None:
        """The role, kind or model kept as ``code``."""
        return self._strings[code]

    def item(self, index: int) -> Item:
        built = self._built.get(index)
        if built is not None:
            return built
        parts = self.parts[index]
        if parts is None:
            parts = self._read(index)
        flags = self.flags[index]
        ident = self.id_of(index)
        facts = self.facts
        stub = None
        if facts is None:
            marks = list(self.marks.get(index, ()))
            usage = self.usage.get(index)
            stub = self.marked_stub(index)
        else:
            marks, usage = facts.marks(index, ident), facts.usage(index)
            stub = facts.stub(index, ident)
        if flags & FOLDED_MARK and "folded" not in marks:
            marks.append("folded")
        built = self._item(index, ident, parts, usage, marks, stub)
        cache = self._built
        if len(cache) >= self.CACHE:
            del cache[next(iter(cache))]
        cache[index] = built
        return built

    def sent_item(self, index: int) -> Item:
        """The item as the replay JSON reads it (``Item.to_json``): built as ``item`` builds
        it, but its parts whole (none lazy: they are read once, to be written; what that
        JSON does not show may be left out, ``PartSource.shown_parts``) and not kept, and
        without the usage and marks it does not show either."""
        built = self._built.get(index)
        if built is not None:
            return built
        parts = self.parts[index]
        if parts is None:
            parts = self._read(index, lazy=False, shown=True)
        ident = self.id_of(index)
        facts = self.facts
        stub = self.marked_stub(index) if facts is None else facts.stub(index, ident)
        return self._item(index, ident, parts, None, [], stub)

    def marked_stub(self, index: int) -> str | None:
        """The stub of an item the column's marks say is elided: its own (``stubs``), or
        the one for all (``elided_stub``)."""
        if "elided" not in self.marks.get(index, ()):
            return None
        return self.stubs.get(index, self.elided_stub)

    def _item(
        self,
        index: int,
        ident: str,
        parts: list[Part],
        usage: Usage | None,
        marks: list[str],
        stub: str | None,
    ) -> Item:
        strings = self._strings
        return Item(
            ident,
            strings[self.role[index]] or "",
            parts,
            self.line[index],
            strings[self.kind[index]] or "message",
            self.ts_of(index),
            strings[self.model[index]],
            usage,
            marks,
            bool(self.flags[index] & STICKY),
            self.lines_of(index),
            stub,
            *((self.ends.get(index) if self.ends else None) or (0, None)),
        )

    def search_text(self, index: int, readable: Readable = as_written) -> str:
        """``item_search_text`` of item ``index``, without building it: its parts read
        again whole (not as the lazy parts an item holds, whose text is the same);
        ``readable``: its format's readable words of it, read from those."""
        built = self._built.get(index)
        if built is not None:
            return search.item_search_text(built, readable)
        parts = self.parts[index]
        if parts is None:
            parts = self._read(index, lazy=False)
        facts = self.facts
        stub = (
            facts.stub(index, self.id_of(index)) if facts is not None else self.marked_stub(index)
        )
        strings = self._strings
        role, kind = strings[self.role[index]] or "", strings[self.kind[index]] or "message"
        said = None
        if readable is not as_written:  # (what it reads of an item: its role, kind, parts)
            said = readable(Item(self.id_of(index), role, parts, kind=kind))
        return search.search_text(role, kind, stub, parts, said)

    def _read(self, index: int, lazy: bool = True, shown: bool = False) -> list[Part]:
        """Item ``index``'s parts read again: lazy (an item's), or whole; ``shown``: as
        the replay JSON shows them (``PartSource.shown_parts``: a search needs them all)."""
        source = self.source
        spans = [self.span_at(index), *self.more_spans(index)]
        parts: list[Part] = []
        for span in spans:
            if source is None:
                full = None
            else:
                full = source.shown_parts(span) if shown else source.parts(span)
            if full is None:
                return [Part("other", CHANGED)]
            if not lazy:
                parts.extend(full)
                continue
            line_parts = list(full)
            make_lazy(line_parts, source, span, span & 0xFFFFFFFF)
            parts.extend(line_parts)
        return parts


__all__ = [
    "FOLDED_MARK",
    "ItemColumn",
]
