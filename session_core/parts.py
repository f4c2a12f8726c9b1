"""A conversation item's parts, and their lazy stand-ins: what is kept of a long part
(its head, its size and where it is in the file) and read again when asked for.

``Part`` is one block of an item; ``LazyPart`` stands for one whose long text and
structured data stay in the file; ``LinePart`` for a line kept as it is, its text the
line as written; ``PartRef`` is only where such a part is (what a tool operation
keeps); ``PartSource`` reads a line's parts again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .events import SPAN_MAX, line_text, refuse_changed_line
from .json_out import compact_json

# ("image": a media block said by its words, its bytes never kept: an image, a Codex
# audio clip too, ``[audio audio/wav]``, a Claude Code document, ``[document
# application/pdf]``, inline in the text as the replay says it)
PartKind = Literal["text", "reasoning", "tool-call", "tool-result", "image", "other"]

# What a part read again by its line's span says when those bytes are no longer that line.
CHANGED = "[changed on disk: this line could not be read again]"
# ...after what a lazy part kept of it (its head).
ONLY_THE_START = "\n[changed on disk: only the start is shown]"


@dataclass(slots=True)
class Part:
    """One block of a conversation item."""

    kind: PartKind
    text: str = ""  # what is shown: the text, the reasoning, a call's arguments, a result
    call_id: str | None = None  # tool-call / tool-result
    name: str | None = None  # the tool's name (tool-call), the block's type (other)
    data: Any = None  # structured: a call's input, a result's structured form, a raw block
    is_error: bool = False  # a failed tool result
    # A call a server ran, kept as an ``other`` part in its place among a response's
    # blocks (Claude Code's ``server_tool_use``): said where the block is read, by its type.
    server_call: bool = False

    @property
    def head(self) -> str:
        """What a folded view shows: the text (a lazy part keeps only its first lines)."""
        return self.text

    @property
    def size(self) -> int:
        """The text's length in characters (known without reading a lazy part's text)."""
        return len(self.text)

    @property
    def is_call(self) -> bool:
        """A tool call: a ``tool-call`` part, or a call a server ran (``server_call``,
        as its reader said: with or without input, never its result)."""
        return self.kind == "tool-call" or self.server_call

    def row_head(self) -> tuple[str, bool]:
        """What one row says of it, and whether more of its text follows: its first lines
        (``preview``), the same whether its text is held or stays in the file (a plain
        file's part is lazy where its ``.zst``'s is not: their rows must agree)."""
        shown = preview(self.head)  # (a lazy part's head is its preview already)
        return shown, self.size > len(shown)


def reasoning_said(part: Part, detail: str = "") -> str:
    """A reasoning part's label, in one wording on every surface (the viewer's row, the
    exports' block, ``diff``'s): ``reasoning`` (``detail`` after it in brackets), or
    ``reasoning (no text)`` where none was kept (a Codex reasoning item whose summary is
    empty, Claude Code's thinking kept as its signature alone)."""
    if not part.size:
        return "reasoning (no text)"
    return f"reasoning ({detail})" if detail else "reasoning"


def said_in_content(part: Part) -> bool:
    """Whether a message's ``content`` (the replay JSON's, ``peek``'s) says ``part``: its
    text, an image's words (``[image image/png]``), and what its reader did not name (a
    block of an unknown type: as written, kept and shown raw, never dropped); not its
    calls, results and reasoning, which have keys of their own (a server's call and its
    result among them: each is an operation)."""
    kind = part.kind
    # (a server's call or result with no usable id makes no operation: said as written;
    # so is a call whose id is no string, which ``Item.tool_calls`` leaves out)
    if kind == "tool-call":
        return part.call_id is None
    return kind in _SAID or (kind == "other" and not part.call_id)


_SAID = ("text", "image")


def said_text(parts: list[Part]) -> str:
    """A message's ``content``: the parts it says (``said_in_content``), joined."""
    return "\n".join(p.text for p in parts if said_in_content(p))


def answering(parts: list[Part]) -> list[Part]:
    """A message's tool results that answer a call, as the replay and ``peek`` name them:
    those naming one; where none does, every result (an orphan alone is its own
    message's result, unpaired). One with no id beside one that names a call answers
    nothing (``said_beside``)."""
    results = [p for p in parts if p.kind == "tool-result"]
    named = [p for p in results if p.call_id]
    return named or results


def said_beside(parts: list[Part], answers: list[Part]) -> str:
    """What a message answering ``answers`` says beside them, in written order: its said
    parts (``said_in_content``) and a result no call is named by beside one that is."""
    idless = bool(answers) and bool(answers[0].call_id)
    return "\n".join(
        p.text
        for p in parts
        if said_in_content(p) or (idless and p.kind == "tool-result" and not p.call_id)
    )


def tool_call_part(call_id: Any, name: Any, holder: Mapping[str, Any]) -> Part:
    """A tool call as v1 and agentgo records name it: ``holder``'s ``arguments`` shown
    as written (a string), or as JSON (an object: agentgo's), nothing: empty; kept as
    they are."""
    arguments = holder.get("arguments", "")
    text = arguments if isinstance(arguments, str) else compact_json(arguments)
    return Part(
        "tool-call", text, call_id=str(call_id), name=str(name), data=holder.get("arguments")
    )


def _fields(part: Part) -> tuple[Any, ...]:
    """A part's fields, a lazy one's read again (what makes two parts equal)."""
    return (
        part.kind,
        part.text,
        part.call_id,
        part.name,
        part.data,
        part.is_error,
        part.server_call,
    )


# The slot descriptors of the fields the lazy subclasses read through (typed loosely).
_PART_TEXT: Any = Part.__dict__["text"]
_PART_DATA: Any = Part.__dict__["data"]

PREVIEW_LINES = 3  # lines of a lazy part's text kept as its head
PREVIEW_CHARS = 300  # characters of each such line


def preview(text: str) -> str:
    """The head kept of a long text: its first lines, each cut, and an empty line after
    them when more follow (so a folded view counts and marks them as it would the text)."""
    lines = text.split("\n", PREVIEW_LINES)
    shown = [_cut(line) for line in lines[:PREVIEW_LINES]]
    if len(lines) > PREVIEW_LINES:
        shown.append("")
    return "\n".join(shown)


def _cut(line: str) -> str:
    """A line's first ``PREVIEW_CHARS``; a cut inside its indent ends on ``…`` (it has
    words further on: its head is not blank, as ``item_heights.blank_head`` measures the
    whole line)."""
    cut = line[:PREVIEW_CHARS]
    if len(line) > PREVIEW_CHARS and cut.isspace() and not line.isspace():
        return cut[:-1] + "…"
    return cut


class PartSource:
    """Where lazy parts are read again from: ``load(key)`` gives one line's parts, in
    order (a line of the file, parsed again); the last ``cache`` lines read are kept."""

    def __init__(
        self,
        load: Callable[[Any], list[Part]],
        cache: int = 256,
        read: Callable[[Any], bytes] | None = None,
        shown: Callable[[bytes], list[Part] | None] | None = None,
    ) -> None:
        self._load = load
        self._cache: dict[Any, list[Part]] = {}
        self._limit = cache
        self._read = read  # a line's bytes, where a format reads them itself (None: not)
        self._shown = shown  # (see ``shown_parts``)
        self.failed = 0

    def shown_parts(self, key: Any) -> list[Part] | None:
        """A line's parts as the replay JSON's messages show them (``Item.to_json``), to be
        written once: where the format has a quicker reader for that (``shown``: None
        when the line is not one it reads), what it does not show may be left out (a
        call's shown text, a result's data). Else, and for what is cached, ``parts``."""
        shown = self._shown
        if shown is None or key in self._cache:
            return self.parts(key)
        raw = self.line(key)
        found = shown(raw) if raw is not None else None
        return found if found is not None else self.parts(key)

    def line(self, key: Any) -> bytes | None:
        """The bytes of the line at ``key``, not parsed (None: not known, or unreadable)."""
        if self._read is None:
            return None
        try:
            return self._read(key)
        except OSError:
            return None

    def parts(self, key: Any) -> list[Part] | None:
        cache = self._cache
        found = cache.pop(key, None)
        if found is None:
            try:
                found = self._load(key)
            except Exception:  # the line changed or went away on disk: the head stays
                self.failed += 1
                refuse_changed_line()
                return None
            if len(cache) >= self._limit:
                del cache[next(iter(cache))]
        cache[key] = found
        return found

    def part(self, key: Any, index: int) -> Part | None:
        """The ``index``-th part of the line at ``key`` (None: it could not be read again)."""
        parts = self.parts(key)
        if parts is None or index >= len(parts):
            return None
        return parts[index]


class WordedPart(Part):
    """A line read in one line of words (a Codex UI event: ``make: exit 2 in 1.5s``): its
    words are its head, what its folded row shows; its text is what it says as written
    (the event's JSON), what it expands to, the raw export writes and a search reads
    (with the words: ``search.search_text``)."""

    __slots__ = ("words",)

    def __init__(self, words: str, text: str, name: str | None) -> None:
        Part.__init__(self, "other", text, name=name)
        self.words = words

    @property
    def head(self) -> str:
        return self.words

    def row_head(self) -> tuple[str, bool]:
        return self.words, False  # (its words say it all; its text is the JSON)


class _HeadPart(Part):
    """A part that keeps only its head (what a folded view shows) and reads its text
    again when asked for (``_read``): set, its text is kept as given."""

    __slots__ = ()

    def _read(self) -> str:
        raise NotImplementedError

    @property
    def text(self) -> str:
        return self._read()

    @text.setter
    def text(self, value: str) -> None:
        _PART_TEXT.__set__(self, value)

    @property
    def head(self) -> str:
        head: str = _PART_TEXT.__get__(self, Part)
        return head


class LazyPart(_HeadPart):
    """A part whose long text and structured data stay in the file until asked for:
    only its head, its size and where it is (a line and its index there) are kept.
    Equal to, and read like, the part it stands for."""

    __slots__ = ("_index", "_key", "_size", "_source")

    def __init__(self, part: Part, source: PartSource, key: Any, index: int) -> None:
        Part.__init__(
            self, part.kind, "", part.call_id, part.name, None, part.is_error, part.server_call
        )
        full = _PART_TEXT.__get__(part, Part)
        _PART_TEXT.__set__(self, preview(full))
        self._size = len(full)
        self._source = source
        self._key = key
        self._index = index

    def _read(self) -> str:
        full = self._source.part(self._key, self._index)
        if full is None:
            return self.head + ONLY_THE_START
        return full.text

    @property
    def data(self) -> Any:
        full = self._source.part(self._key, self._index)
        return None if full is None else full.data

    @data.setter
    def data(self, value: Any) -> None:
        _PART_DATA.__set__(self, value)

    @property
    def size(self) -> int:
        return self._size

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Part):
            return NotImplemented
        return _fields(self) == _fields(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyPart({self.kind!r}, head={self.head!r}, size={self._size})"


LINE_HEAD = 400  # characters of a line kept as it is that its row shows (``LinePart``)
HEAD_BYTES = 4 * LINE_HEAD + 4  # the bytes that hold them (4 a character at most), and one


def line_head(text: str) -> str:
    """What a row shows of a line kept as it is: its first ``LINE_HEAD`` characters (an
    ellipsis where more follow); the line stays whole in the file, or in its part."""
    return text if len(text) <= LINE_HEAD else text[: LINE_HEAD - 1] + "…"


def head_span(span: int) -> int:
    """The span of a line's first ``HEAD_BYTES`` (what its head is read from)."""
    size = span & SPAN_MAX
    return span - size + min(size, HEAD_BYTES)


class LinePart(_HeadPart):
    """A line kept as it is (a record of a type its reader does not know, a line that is
    no record) as its one ``other`` part, named as the row shows it: only its head
    (``line_head`` of its first bytes) is kept, and its text is the line as written
    (``line_text``), read again by its span whenever it is asked for (an export, an
    expanded row, a search): a line of 20 MB is neither held nor cut. A line read again
    that does not begin with that head, or is not as long, is another line (the file was
    written over): its head, said so (within ``strict_rereads``: an error)."""

    __slots__ = ("_size", "_source", "_span")

    def __init__(
        self, name: str | None, start: bytes, source: PartSource, span: int, size: int | None
    ) -> None:
        Part.__init__(self, "other", "", name=name)
        _PART_TEXT.__set__(self, line_head(line_text(start[:HEAD_BYTES])))
        self._source = source
        self._span = span
        self._size = size

    def _read(self) -> str:
        raw = self._source.line(self._span)
        head = self.head
        text = line_text(raw) if raw is not None and len(raw) == self._span & SPAN_MAX else ""
        if not text.startswith(head.removesuffix("…")):
            refuse_changed_line()
            return head + ONLY_THE_START
        return text

    def row_head(self) -> tuple[str, bool]:
        return self.head, False  # (``line_head`` ends in ``…`` where the line goes on)

    @property
    def size(self) -> int:
        """Its text's length in characters, as every part's (counted from the line when it
        was fed; else read again to count them, once)."""
        if self._size is None:
            self._size = len(self.text)
        return self._size

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Part):
            return NotImplemented
        fields = (other.kind, other.name, other.call_id, other.data, other.is_error)
        said = fields == ("other", self.name, None, None, False) and not other.server_call
        return said and other.text == self.text

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LinePart({self.name!r}, head={self.head!r}, span={self._span})"


class PartRef:
    """Where a lazy part is (its line and index there), without its head: what a tool
    operation keeps of its call's or result's part once the item holding it is packed.
    Reads ``text`` and ``data`` as the part does."""

    __slots__ = ("_index", "_key", "_source")

    def __init__(self, part: LazyPart) -> None:
        self._source = part._source
        self._key = part._key
        self._index = part._index

    @classmethod
    def at(cls, source: PartSource, key: Any, index: int) -> PartRef:
        """The ``index``-th part of the line at ``key`` (a short part too: a builder that
        keeps only where each tool call and result is)."""
        ref = cls.__new__(cls)
        ref._source, ref._key, ref._index = source, key, index
        return ref

    @property
    def text(self) -> str:
        full = self._source.part(self._key, self._index)
        return CHANGED if full is None else full.text

    @property
    def data(self) -> Any:
        full = self._source.part(self._key, self._index)
        return None if full is None else full.data


def ref_of(part: Part) -> Part | PartRef:
    """What an operation keeps of a part: a lazy one's place, another as it is."""
    return PartRef(part) if isinstance(part, LazyPart) else part


__all__ = [
    "CHANGED",
    "HEAD_BYTES",
    "LINE_HEAD",
    "PREVIEW_CHARS",
    "PREVIEW_LINES",
    "LazyPart",
    "LinePart",
    "Part",
    "PartKind",
    "PartRef",
    "PartSource",
    "WordedPart",
    "head_span",
    "line_head",
    "preview",
    "reasoning_said",
    "ref_of",
]
