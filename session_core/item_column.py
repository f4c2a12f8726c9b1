"""Conversation items kept packed: a small header per line, parts read again by span.

A builder of a big file keeps its raw items in an ``ItemColumn`` instead of an ``Item``
object per line; ``Items`` is a snapshot of one, a ``Sequence[Item]`` that builds each
item only when it is indexed (``Transcript.raw`` and ``messages`` may be one).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from .indexed import Indexed
from .model import Item, Part, PartSource, Usage, make_lazy

FOLD_PARTS = 8  # parts a folded item shows (the viewer's conversation)
FOLD_LINES = 3  # lines a folded text part shows


def folded_height(parts: Sequence[Part]) -> int:
    """The rows a folded item takes in the conversation view (a header, then its parts)."""
    if len(parts) == 1 and parts[0].kind != "text":  # most lines: one part, not text
        return 2
    height = 1 + sum(_part_height(part) for part in parts[:FOLD_PARTS])
    return height + (1 if len(parts) > FOLD_PARTS else 0)


def _part_height(part: Part) -> int:
    """One part's rows in ``folded_height``: a text's first lines, as the view draws
    them; the same for a part and its lazy stand-in (whose head keeps those lines)."""
    if part.kind == "text":
        return min(FOLD_LINES, part.head.count("\n") + 1)
    return 1


def shape_height(text_lines: int, others: int) -> int:
    """``folded_height`` of an item of one text part of ``text_lines`` lines then ``others``
    parts that are not text, known without the parts (a replay's facts of its line)."""
    shown = min(others, FOLD_PARTS - 1)
    more = 1 if 1 + others > FOLD_PARTS else 0
    return 1 + min(FOLD_LINES, text_lines) + shown + more


class ItemFacts:
    """What a builder tells of its items when one is built, where it keeps that itself
    (set as ``ItemColumn.facts``): the timestamp of one appended unread, and (of every
    item) its usage, marks and stub."""

    def ts(self, index: int, span: int) -> str | None:
        return None

    def usage(self, index: int) -> Usage | None:
        return None

    def marks(self, index: int, ident: str) -> list[str]:
        return []

    def stub(self, index: int, ident: str) -> str | None:
        return None


STICKY, FOLDED_MARK, NO_TS, READ_TS = 1, 2, 4, 8  # ItemColumn flags (READ_TS: see stamps)
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
        "facts",
        "flags",
        "height",
        "id_prefix",
        "ids",
        "kind",
        "late",
        "line",
        "marks",
        "model",
        "more_item",
        "more_span",
        "nlines",
        "nparts",
        "parts",
        "role",
        "source",
        "span",
        "ts_end",
        "ts_text",
        "usage",
    )

    def __init__(self, id_prefix: str = "L") -> None:
        self.id_prefix = id_prefix
        self.line = array("l")
        self.span = array("q")
        self.role = array("H")
        self.kind = array("H")
        self.model = array("H")
        self.flags = bytearray()
        self.height = bytearray()
        self.nparts = bytearray()  # how many parts (up to 255): an item's later lines add
        # Timestamps packed: their UTF-8 one after another, where each ends.
        self.ts_text = bytearray()
        self.ts_end = array("Q")
        self.parts: list[list[Part] | None] = []  # None: read again by span
        self.ids: list[str | None] | None = None  # None: every id is prefix + line
        self.usage: dict[int, Usage] = _NO_USAGE
        self.marks: dict[int, list[str]] = {}
        # Each item's lines, up to the last of more than one (``set_lines``): an array
        # from the first such on (none for a format whose items are a line each).
        self.nlines = array("I")
        # The spans of items' later lines (``extend``), in item order (found by
        # bisection); those of an item extended after a later one was, in ``late``.
        self.more_item = array("l")
        self.more_span = array("q")
        self.late: dict[int, list[int]] = {}
        self.source: PartSource | None = None
        # What the builder tells of an item when it is built (None: the column says all).
        self.facts: ItemFacts | None = None
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
    ) -> int:
        """One item; its parts are dropped (read again by ``span``) unless ``keep`` or no
        span/source is known. Returns its index."""
        index = len(self.line)
        self.line.append(line)
        if span and not keep and self.source is not None:
            self.span.append(span)
            self.parts.append(None)
        else:
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
        if ts is None:
            flags |= NO_TS
        elif ts:
            self.ts_text += ts.encode("utf-8", "surrogatepass")
        self.flags.append(flags)
        self.height.append(folded_height(parts))
        self.nparts.append(min(len(parts), 255))
        self.ts_end.append(len(self.ts_text))
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
    ) -> int:
        """``append`` of an item read again by its span (a span known, ``source`` set)
        whose ``folded_height`` and number of parts the caller knows, its role, kind and
        model given as their ``code``s: the header stored as ``append`` stores it, for a
        builder's hot path (every line of a big file). Returns its index."""
        index = len(self.line)
        self.line.append(line)
        self.span.append(span)
        self.parts.append(None)
        self.role.append(role)
        self.kind.append(kind)
        self.model.append(model)
        flags = STICKY if sticky else 0
        if ts is None:
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
        self, line: int, span: int, *, role: str, height: int, nparts: int, ident: str
    ) -> int:
        """One item of a line not read: its parts and timestamp are read by ``span`` when
        it is built (``source``, ``facts``); its folded height and part count are what
        the caller knows of the line (a replay's facts). Returns its index."""
        index = len(self.line)
        self.line.append(line)
        self.span.append(span)
        self.parts.append(None)
        self.role.append(self.code(role))
        self.kind.append(self.code("message"))
        self.model.append(0)
        self.flags.append(READ_TS)
        self.height.append(min(height, 255))
        self.nparts.append(min(nparts, 255))
        self.ts_end.append(len(self.ts_text))
        if self.ids is None:
            self.ids = [None] * index
        self.ids.append(ident)
        return index

    def extend_unread(
        self,
        lines: Sequence[int],
        spans: Sequence[int],
        roles: Sequence[int],
        heights: Sequence[int],
        nparts: Sequence[int],
        idents: list[str | None],
    ) -> int:
        """``append_unread`` of many items at once (their roles as codes, ``code``; their
        heights and part counts at most 255). Returns the index of the first."""
        index = len(self.line)
        many = len(lines)
        self.line.extend(lines)
        self.span.extend(spans)
        self.parts.extend([None] * many)
        self.role.extend(roles)
        self.kind.extend(array("H", [self.code("message")]) * many)
        self.model.extend(array("H", [0]) * many)
        self.flags.extend(bytes([READ_TS]) * many)
        self.height.extend(heights)
        self.nparts.extend(nparts)
        self.ts_end.extend(array("Q", [len(self.ts_text)]) * many)
        if self.ids is None:
            self.ids = [None] * index
        self.ids.extend(idents)
        return index

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
            self.span[index] = 0
        # The folded height grows by the parts still shown, as ``folded_height`` counts.
        height = self.height[index] - (1 if before > FOLD_PARTS else 0)
        height += sum(_part_height(part) for part in parts[: max(0, FOLD_PARTS - before)])
        after = min(before + len(parts), 255)
        self.nparts[index] = after
        self.height[index] = min(height + (1 if after > FOLD_PARTS else 0), 255)
        self._built.pop(index, None)

    def more_spans(self, index: int) -> list[int]:
        """The spans of an item's later lines, in file order."""
        items = self.more_item
        spans = list(self.more_span[bisect_left(items, index) : bisect_right(items, index)])
        late = self.late.get(index) if self.late else None
        return [*spans, *late] if late else spans

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

    def set_model(self, index: int, model: str | None) -> None:
        self.model[index] = self._code(model)
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

    def ts_of(self, index: int) -> str | None:
        flags = self.flags[index]
        if flags & READ_TS:
            facts = self.facts
            return facts.ts(index, self.span[index]) if facts is not None else None
        if flags & NO_TS:
            return None
        start = self.ts_end[index - 1] if index else 0
        return self.ts_text[start : self.ts_end[index]].decode("utf-8", "surrogatepass")

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
        strings = self._strings
        flags = self.flags[index]
        ident = self.id_of(index)
        facts = self.facts
        stub = None
        if facts is None:
            marks = list(self.marks.get(index, ()))
            usage = self.usage.get(index)
        else:
            marks, usage = facts.marks(index, ident), facts.usage(index)
            stub = facts.stub(index, ident)
        if flags & FOLDED_MARK and "folded" not in marks:
            marks.append("folded")
        built = Item(
            ident,
            strings[self.role[index]] or "",
            parts,
            self.line[index],
            strings[self.kind[index]] or "message",
            self.ts_of(index),
            strings[self.model[index]],
            usage,
            marks,
            bool(flags & STICKY),
            self.lines_of(index),
            stub,
        )
        cache = self._built
        if len(cache) >= self.CACHE:
            del cache[next(iter(cache))]
        cache[index] = built
        return built

    def _read(self, index: int) -> list[Part]:
        source = self.source
        spans = [self.span[index], *self.more_spans(index)]
        parts: list[Part] = []
        for span in spans:
            full = source.parts(span) if source is not None else None
            if full is None:
                return [Part("other", "[changed on disk: this line could not be read again]")]
            line_parts = list(full)
            make_lazy(line_parts, source, span, span & 0xFFFFFFFF)
            parts.extend(line_parts)
        return parts


_BIG = (1 << 63) - 1  # what an ``array("q")`` holds


class ResponseUsage(ItemFacts):
    """Each response's usage, by its raw item, as numbers in columns (a big file has
    100,000s of responses): the item's ``Usage`` is made when the item is built. The
    raw column's facts (``ItemColumn.facts``): an item's marks are the column's own.
    Responses come in file order; a usage the columns cannot hold (counts not said or
    out of range, an item's usage set again) is kept as it is (``fallback``) and wins."""

    __slots__ = ("at", "cached", "cost", "fallback", "inputs", "outputs", "raw", "writes")

    def __init__(self, raw: ItemColumn) -> None:
        self.raw = raw
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
            return None
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


class Items(Indexed[Item]):
    """A snapshot of an ``ItemColumn`` (its first ``n`` items, or the entries of a view:
    column indexes and items of their own). Indexing builds the item (see ``ItemColumn``).

    A view's entries may be an ``array`` of indexes (8 bytes an entry, not an int object
    each), with the items of its own in ``own``: entry ``-1 - k`` is ``own[k]``."""

    __slots__ = ("_column", "_entries", "_n", "_own")

    def __init__(
        self,
        column: ItemColumn,
        n: int | None = None,
        entries: Sequence[int | Item] | None = None,
        own: list[Item] | None = None,
    ) -> None:
        self._column = column
        self._entries = entries
        self._own = own
        self._n = (len(entries) if entries is not None else len(column)) if n is None else n

    def __len__(self) -> int:
        return self._n

    def _entry(self, index: int) -> int | Item:
        entry = self._entries[index] if self._entries is not None else index
        if type(entry) is int and entry < 0 and self._own is not None:
            return self._own[-1 - entry]
        return entry

    def _one(self, index: int) -> Item:
        entry = self._entry(index)
        return entry if isinstance(entry, Item) else self._column.item(entry)

    def folded_heights(self) -> list[int]:
        """Every item's folded height, without building the items."""
        column = self._column
        entries = self._entries
        if entries is None:
            return list(column.height[: self._n])
        height = column.height
        own = self._own
        if own is not None and not own:  # indexes alone: at C speed
            return list(map(height.__getitem__, entries[: self._n]))  # type: ignore[arg-type]
        if own is not None:
            return [
                folded_height(own[-1 - e].parts) if e < 0 else height[e]  # type: ignore[operator, index]
                for e in entries[: self._n]
            ]
        return [
            folded_height(e.parts) if isinstance(e, Item) else height[e] for e in entries[: self._n]
        ]

    def key(self, index: int) -> tuple[str, int]:
        """``(id, line)`` of an item, without building it."""
        entry = self._entry(index)
        if isinstance(entry, Item):
            return entry.id, entry.line
        return self._column.id_of(entry), self._column.line[entry]


__all__ = [
    "FOLDED_MARK",
    "FOLD_LINES",
    "FOLD_PARTS",
    "ItemColumn",
    "ItemFacts",
    "Items",
    "ResponseUsage",
    "folded_height",
]
