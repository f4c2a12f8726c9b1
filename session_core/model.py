"""The neutral model every format is read into: what the viewer, exports and browser show.

A format turns its lines into a ``Transcript``: conversation items (a role and parts),
tool operations with one state vocabulary, compactions and elisions as overlays,
runs with their contexts, and usage. Nothing downstream of it needs to know which
format a file was (a format's own extra panes excepted).

Two views of the conversation: ``raw`` is every line of the file in file order (lines
that are not messages included, as ``kind="record"`` items, so nothing is dropped);
``messages`` is the replayed view, what the model is sent next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Self, TypeVar, overload

from .message_usage import MessageUsage

if TYPE_CHECKING:
    from . import usage as tallies

_T = TypeVar("_T")

PartKind = Literal["text", "reasoning", "tool-call", "tool-result", "image", "other"]

# -- tool-operation states: the one vocabulary, the one classifier, the one label table --

OpState = Literal[
    "completed",
    "failed",
    "outcome-unknown",
    "running",  # no result yet, and the writer may still be at work
    "interrupted",  # no result, and the writer is gone or the turn was cut off
    # transcript-v1's crash states
    "unsettled-answered",  # dispatched, a tool message answers it, the settle never landed
    "never-dispatched",  # an assistant tool call with no dispatch line and no answer
    "undispatched-answered",  # a tool call answered without a dispatch line (older writers)
]

STATE_LABELS: dict[str, str] = {
    "completed": "completed",
    "failed": "failed",
    "outcome-unknown": "outcome unknown",
    "running": "running",
    "interrupted": "interrupted: no result, the writer is gone",
    "running-dead": "running when the writer died",
    "unsettled-answered": "completed, settle never landed",
    "never-dispatched": "never dispatched",
    "undispatched-answered": "answered, no dispatch record",
}

# How each state reads at a glance: "ok", "bad", "warn" or "info" (the export's tones,
# the viewer's styles).
STATE_TONES: dict[str, str] = {
    "completed": "ok",
    "failed": "bad",
    "outcome-unknown": "warn",
    "running": "info",
    "interrupted": "bad",
    "running-dead": "bad",
    "unsettled-answered": "warn",
    "never-dispatched": "warn",
    "undispatched-answered": "warn",
}


def classify_op(
    *,
    has_result: bool,
    failed: bool = False,
    interrupted: bool = False,
    outcome: str | None = None,
    writer_alive: bool | None = None,
) -> OpState:
    """The state of a tool operation from what the file says of it.

    ``outcome`` is a settle record's own word (v1, agentgo) and wins when given;
    otherwise a result makes it completed or failed. Without a result it is running
    while the writer may be alive (``None``: not known, taken as alive) and
    interrupted once it is gone, or when the format says the call was cut off.
    """
    if outcome in ("completed", "failed", "outcome-unknown"):
        return outcome  # type: ignore[return-value]
    if interrupted:
        return "interrupted"
    if has_result:
        return "failed" if failed else "completed"
    return "interrupted" if writer_alive is False else "running"


def state_label(state: str) -> str:
    return STATE_LABELS.get(state, state)


# -- usage ---------------------------------------------------------------------------


@dataclass(slots=True)
class Usage:
    """Token and cost totals over model responses; a field is ``None`` until one reported it."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost: float | None = None
    reported: int = 0  # responses that reported any usage
    responses: int = 0  # responses that could have
    cost_reported: int = 0  # responses whose cost is known

    def add(self, other: Usage) -> None:
        """Fold another total (a response's, a run's) into this one."""
        self.input_tokens = _plus(self.input_tokens, other.input_tokens)
        self.output_tokens = _plus(self.output_tokens, other.output_tokens)
        self.cache_read_tokens = _plus(self.cache_read_tokens, other.cache_read_tokens)
        self.cache_write_tokens = _plus(self.cache_write_tokens, other.cache_write_tokens)
        if other.cost is not None:
            self.cost = other.cost + (self.cost or 0.0)
        self.reported += other.reported
        self.responses += other.responses
        self.cost_reported += other.cost_reported

    @classmethod
    def of_response(
        cls,
        *,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cache_read_tokens: int | None = None,
        cache_write_tokens: int | None = None,
        cost: float | None = None,
    ) -> Usage:
        """One response's usage (counted as one response, reported if it said anything)."""
        said = (
            input_tokens is not None
            or output_tokens is not None
            or cache_read_tokens is not None
            or cache_write_tokens is not None
            or cost is not None
        )
        return cls(
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_write_tokens,
            cost,
            reported=1 if said else 0,
            responses=1,
            cost_reported=1 if cost is not None else 0,
        )

    @classmethod
    def of_totals(cls, totals: tallies.Usage) -> Usage:
        """A v1 or agentgo tally's totals (``session_core.usage``) in the neutral model."""
        return cls(
            input_tokens=totals.input,
            output_tokens=totals.output,
            cache_read_tokens=totals.cache_read,
            cost=totals.cost,
            reported=totals.reported,
            responses=totals.turns,
            cost_reported=totals.cost_reported,
        )

    @classmethod
    def total(cls, parts: Iterable[Usage]) -> Usage:
        out = cls()
        for part in parts:
            out.add(part)
        return out

    @property
    def tokens(self) -> int | None:
        """Every token counted (input, output and cache), or None when none was reported."""
        values = [
            v
            for v in (
                self.input_tokens,
                self.output_tokens,
                self.cache_read_tokens,
                self.cache_write_tokens,
            )
            if v is not None
        ]
        return sum(values) if values else None

    def describe(self) -> str:
        """``12,345 tok (1,000 in + 345 out + 11,000 cache) · $0.0210``, or ``unknown``."""
        tokens = self.tokens
        if tokens is None:
            return "unknown"
        parts = [f"{tokens:,} tok"]
        inner = [
            f"{value:,} {name}"
            for value, name in (
                (self.input_tokens, "in"),
                (self.output_tokens, "out"),
                (self.cache_read_tokens, "cache read"),
                (self.cache_write_tokens, "cache write"),
            )
            if value is not None
        ]
        parts[0] += f" ({' + '.join(inner)})"
        parts.append(self.describe_cost())
        if self.responses and self.reported != self.responses:
            parts.append(f"{self.reported} of {self.responses} responses reported")
        return " · ".join(parts)

    def describe_cost(self) -> str:
        if self.cost is None:
            return "cost unknown"
        if self.responses and self.cost_reported != self.responses:
            return f"${self.cost:.4f} ({self.cost_reported} of {self.responses} priced)"
        return f"${self.cost:.4f}"

    def to_json(self) -> dict[str, Any]:
        return {
            "input-tokens": self.input_tokens,
            "output-tokens": self.output_tokens,
            "cache-read-tokens": self.cache_read_tokens,
            "cache-write-tokens": self.cache_write_tokens,
            "cost": self.cost,
            "reported": self.reported,
        }

    @classmethod
    def from_message_usage(cls, usage: MessageUsage | None) -> Usage:
        """A v1 message's or an agentgo call's usage, as one response."""
        if usage is None:
            return cls(responses=1)
        return cls.of_response(
            input_tokens=usage.input,
            output_tokens=usage.output,
            cache_read_tokens=usage.cache_read,
            cost=usage.cost,
        )


def _plus(a: int | None, b: int | None) -> int | None:
    if b is None:
        return a
    return b + (a or 0)


# -- conversation --------------------------------------------------------------------


@dataclass(slots=True)
class Part:
    """One block of a conversation item."""

    kind: PartKind
    text: str = ""  # what is shown: the text, the reasoning, a call's arguments, a result
    call_id: str | None = None  # tool-call / tool-result
    name: str | None = None  # the tool's name (tool-call), the block's type (other)
    data: Any = None  # structured: a call's input, a result's structured form, a raw block
    is_error: bool = False  # a failed tool result

    @property
    def head(self) -> str:
        """What a folded view shows: the text (a lazy part keeps only its first lines)."""
        return self.text

    @property
    def size(self) -> int:
        """The text's length in characters (known without reading a lazy part's text)."""
        return len(self.text)


# The slot descriptors of the fields the lazy subclasses read through (typed loosely).
_PART_TEXT: Any = Part.__dict__["text"]
_PART_DATA: Any = Part.__dict__["data"]

PREVIEW_LINES = 3  # lines of a lazy part's text kept as its head
PREVIEW_CHARS = 300  # characters of each such line


def preview(text: str) -> str:
    """The head kept of a long text: its first lines, each cut, and an empty line after
    them when more follow (so a folded view counts and marks them as it would the text)."""
    lines = text.split("\n", PREVIEW_LINES)
    shown = [line[:PREVIEW_CHARS] for line in lines[:PREVIEW_LINES]]
    if len(lines) > PREVIEW_LINES:
        shown.append("")
    return "\n".join(shown)


class PartSource:
    """Where lazy parts are read again from: ``load(key)`` gives one line's parts, in
    order (a line of the file, parsed again); the last ``cache`` lines read are kept."""

    def __init__(self, load: Callable[[Any], list[Part]], cache: int = 256) -> None:
        self._load = load
        self._cache: dict[Any, list[Part]] = {}
        self._limit = cache
        self.failed = 0

    def parts(self, key: Any) -> list[Part] | None:
        cache = self._cache
        found = cache.pop(key, None)
        if found is None:
            try:
                found = self._load(key)
            except Exception:  # the line changed or went away on disk: the head stays
                self.failed += 1
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


class LazyPart(Part):
    """A part whose long text and structured data stay in the file until asked for:
    only its head, its size and where it is (a line and its index there) are kept.
    Equal to, and read like, the part it stands for."""

    __slots__ = ("_index", "_key", "_size", "_source")

    def __init__(self, part: Part, source: PartSource, key: Any, index: int) -> None:
        Part.__init__(self, part.kind, "", part.call_id, part.name, None, part.is_error)
        full = _PART_TEXT.__get__(part, Part)
        _PART_TEXT.__set__(self, preview(full))
        self._size = len(full)
        self._source = source
        self._key = key
        self._index = index

    @property
    def text(self) -> str:
        full = self._source.part(self._key, self._index)
        if full is None:
            start: str = _PART_TEXT.__get__(self, Part)
            return start + "\n[changed on disk: only the start is shown]"
        return full.text

    @text.setter
    def text(self, value: str) -> None:
        _PART_TEXT.__set__(self, value)

    @property
    def data(self) -> Any:
        full = self._source.part(self._key, self._index)
        return None if full is None else full.data

    @data.setter
    def data(self, value: Any) -> None:
        _PART_DATA.__set__(self, value)

    @property
    def head(self) -> str:
        head: str = _PART_TEXT.__get__(self, Part)
        return head

    @property
    def size(self) -> int:
        return self._size

    def _fields(self) -> tuple[Any, ...]:
        return (self.kind, self.text, self.call_id, self.name, self.data, self.is_error)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Part):
            return NotImplemented
        theirs = (
            other._fields()
            if isinstance(other, LazyPart)
            else (other.kind, other.text, other.call_id, other.name, other.data, other.is_error)
        )
        return self._fields() == theirs

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyPart({self.kind!r}, head={self.head!r}, size={self._size})"


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
        return "[changed on disk: this line could not be read again]" if full is None else full.text

    @property
    def data(self) -> Any:
        full = self._source.part(self._key, self._index)
        return None if full is None else full.data


def ref_of(part: Part) -> Part | PartRef:
    """What an operation keeps of a part: a lazy one's place, another as it is."""
    return PartRef(part) if isinstance(part, LazyPart) else part


LAZY_TEXT = 512  # characters of a part's text above which it is read again when asked for
LAZY_LINE = 2048  # bytes of a line above which its parts' structured data is read again


def make_lazy(parts: list[Part], source: PartSource | None, key: Any, line_bytes: int) -> None:
    """Turn, in place, the parts of one line whose text is long (or, on a long line, that
    carry structured data) into ``LazyPart``s read again from ``source`` when asked for."""
    if source is None:
        return
    long_line = line_bytes > LAZY_LINE
    for index, part in enumerate(parts):
        if type(part) is not Part:
            continue
        if len(part.text) > LAZY_TEXT or (long_line and part.data is not None):
            parts[index] = LazyPart(part, source, key, index)


@dataclass(slots=True)
class Item:
    """One conversation item: a message, or (in the raw view) any other line.

    ``kind`` says what the line is: ``message`` for what the model sees or said, or the
    format's own word for everything else (``meta``, ``command``, ``hook``, ``queued``,
    ``summary``, ``compaction``, ``record`` for a line kept as it is, ...). ``marks``
    flag what the raw view shows beside it: ``sidechain``, ``branch`` (not on the
    active chain), ``folded`` (a compaction replaced it), ``elided``, ``sticky``.
    """

    id: str
    role: str
    parts: list[Part] = field(default_factory=list)
    line: int = 0  # first line of the file it came from (1-based; 0: not from a line)
    kind: str = "message"
    ts: str | None = None
    model: str | None = None
    usage: Usage | None = None  # this response's usage (assistant items)
    marks: list[str] = field(default_factory=list)
    sticky: bool = False
    lines: int = 1  # how many lines of the file it took (split responses take several)

    @property
    def text(self) -> str:
        """The text parts, joined: what a search or a preview reads first."""
        return "\n".join(p.text for p in self.parts if p.kind == "text")

    def to_json(self) -> dict[str, Any]:
        """The replay JSON of a message: id, role, content, and its tool calls or answer."""
        out: dict[str, Any] = {"id": self.id, "role": self.role, "content": self.text}
        calls = [
            {"id": p.call_id, "name": p.name, "arguments": p.data}
            for p in self.parts
            if p.kind == "tool-call"
        ]
        if calls:
            out["tool-calls"] = calls
        answers = [p.call_id for p in self.parts if p.kind == "tool-result"]
        if answers:
            out["tool-call-id"] = answers[0]
            out["content"] = "\n".join(p.text for p in self.parts if p.kind == "tool-result")
        reasoning = [p.text for p in self.parts if p.kind == "reasoning"]
        if reasoning:
            out["reasoning"] = "\n".join(reasoning)
        if self.sticky:
            out["sticky"] = True
        if self.kind != "message":
            out["kind"] = self.kind
        if self.ts is not None:
            out["ts"] = self.ts
        if self.model is not None:
            out["model"] = self.model
        return out


# -- tool operations, compactions, runs ----------------------------------------------


@dataclass(slots=True)
class ToolOp:
    """A tool call and what became of it."""

    call_id: str
    tool: str
    state: OpState
    arguments: Any = None  # as the model gave them (a dict, or a string)
    result: str | None = None  # the result's text, as the model was sent it
    detail: Any = None  # the tool's structured result (a patch, stdout/stderr, ...)
    line: int = 0  # the call's line
    result_line: int | None = None
    run_id: str | None = None
    message_id: str | None = None  # the item that asked for it
    progress: str | None = None  # the latest progress output of a running call
    subagent: str | None = None  # the path of the subagent's own transcript, when linked
    sidechain: bool = False
    started: str | None = None
    ended: str | None = None
    duration: float | None = None  # seconds

    @property
    def label(self) -> str:
        return state_label(self.state)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "call-id": self.call_id,
            "tool": self.tool,
            "state": self.state,
            "arguments": self.arguments,
            "line": self.line,
        }
        for key, value in (
            ("result", self.result),
            ("result-line", self.result_line),
            ("run-id", self.run_id),
            ("message-id", self.message_id),
            ("detail", self.detail),
            ("progress", self.progress),
            ("subagent", self.subagent),
            ("duration", self.duration),
        ):
            if value is not None:
                out[key] = value
        return out


class OpField(Generic[_T]):
    """A field of a ``ToolOp`` subclass that is read (``get``), not only kept."""

    __slots__ = ()

    @overload
    def __get__(self, op: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, op: ToolOp, owner: type | None = None) -> _T: ...

    def __get__(self, op: ToolOp | None, owner: type | None = None) -> _T | Self:
        return self if op is None else self.get(op)

    def get(self, op: Any) -> _T:
        raise NotImplementedError


class _FromPart(OpField[_T]):
    """A ``LazyToolOp`` field read from a part (its ``data`` or ``text``) while the op
    has one; a value set (not None) replaces the part."""

    __slots__ = ("field", "part", "read")

    def __init__(self, name: str, part: str, read: str) -> None:
        self.field = ToolOp.__dict__[name]  # the dataclass's slot
        self.part = part  # the op's slot holding the part
        self.read = read  # "data" or "text"

    def get(self, op: LazyToolOp) -> _T:
        part = getattr(op, self.part)
        got: _T = getattr(part, self.read) if part is not None else self.field.__get__(op, ToolOp)
        return got

    def __set__(self, op: LazyToolOp, value: _T) -> None:
        if value is not None:
            setattr(op, self.part, None)
        self.field.__set__(op, value)


_ARGUMENTS = _FromPart[Any]("arguments", "_args_from", "data")
_RESULT = _FromPart[str | None]("result", "_result_from", "text")
_DETAIL = _FromPart[Any]("detail", "_detail_from", "data")
_FROM_PARTS = (_ARGUMENTS, _RESULT, _DETAIL)


class LazyToolOp(ToolOp):
    """A tool operation whose arguments, result and detail are read from its parts (which
    may be lazy) when asked for, not copied into it. Reads like the operation it is."""

    __slots__ = ("_args_from", "_detail_from", "_result_from")

    def __init__(
        self,
        *args: Any,
        args_from: Part | PartRef | None = None,
        result_from: Part | PartRef | None = None,
        detail_from: Part | PartRef | None = None,
        **kwargs: Any,
    ) -> None:
        self._args_from = args_from
        self._result_from = result_from
        self._detail_from = detail_from
        ToolOp.__init__(self, *args, **kwargs)

    @classmethod
    def of(
        cls,
        call_id: str,
        tool: str,
        state: OpState,
        args_from: Part | PartRef | None,
        result_from: Part | PartRef | None,
        line: int,
        result_line: int | None,
        run_id: str | None,
        message_id: str | None,
        progress: str | None,
        subagent: str | None,
        sidechain: bool,
        started: str | None,
        ended: str | None,
        duration: float | None,
    ) -> LazyToolOp:
        """One, its fields given in order (a reader makes tens of thousands at once; the
        keyword form costs twice as much). Its detail is read from its result's part."""
        op = cls.__new__(cls)
        op._args_from = args_from
        op._result_from = op._detail_from = result_from
        for read in _FROM_PARTS:
            read.field.__set__(op, None)
        op.call_id, op.tool, op.state = call_id, tool, state
        op.line, op.result_line, op.run_id, op.message_id = line, result_line, run_id, message_id
        op.progress, op.subagent, op.sidechain = progress, subagent, sidechain
        op.started, op.ended, op.duration = started, ended, duration
        return op

    arguments = _ARGUMENTS
    result = _RESULT
    detail = _DETAIL

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolOp):
            return NotImplemented
        return self.to_json() == other.to_json() and self.state == other.state

    __hash__ = None  # type: ignore[assignment]


@dataclass(slots=True)
class Compaction:
    """A compaction (what it folded into a summary) or an elision (what it stubbed)."""

    id: str
    kind: Literal["compaction", "elision"]
    line: int
    summary: str = ""
    folded: list[str] = field(default_factory=list)  # item ids replaced by it
    kept: list[str] = field(default_factory=list)  # item ids the model still sees after it
    trigger: str | None = None  # "manual" | "auto" | ...
    tokens_before: int | None = None
    tokens_after: int | None = None
    ts: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "line": self.line,
            "summary": self.summary,
            "folded": list(self.folded),
            "trigger": self.trigger,
            "tokens-before": self.tokens_before,
            "tokens-after": self.tokens_after,
        }
        if self.kept:
            out["kept"] = list(self.kept)
        return out


@dataclass(slots=True)
class RunContext:
    """What a run was started with: facts and named sections (instructions, ...)."""

    facts: list[tuple[str, str]] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)  # (name, text)
    line: int = 0


@dataclass(slots=True)
class Run:
    """A run (a turn, for the formats that have turns)."""

    id: str
    state: Literal["finished", "running", "interrupted", "aborted"]
    line: int
    end_line: int | None = None
    started: str | None = None
    ended: str | None = None
    duration: float | None = None  # seconds
    prompt: str | None = None  # what started it (a user's prompt)
    usage: Usage = field(default_factory=Usage)
    context: RunContext | None = None
    items: int = 0  # conversation items in it

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "state": self.state,
            "line": self.line,
            "end-line": self.end_line,
            "started": self.started,
            "ended": self.ended,
            "duration": self.duration,
            "usage": self.usage.to_json(),
        }
        if self.prompt is not None:
            out["prompt"] = self.prompt
        if self.context is not None:
            out["context"] = {
                "facts": [list(f) for f in self.context.facts],
                "sections": [{"name": n, "text": t} for n, t in self.context.sections],
            }
        return out


@dataclass(slots=True)
class Subagent:
    """A subagent's own transcript, linked from the call that started it."""

    id: str
    path: str | None  # None: named by the parent, but its file is not there
    call_id: str | None = None
    description: str | None = None
    usage: Usage = field(default_factory=Usage)
    messages: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "call-id": self.call_id,
            "description": self.description,
            "messages": self.messages,
            "usage": self.usage.to_json(),
        }


# -- the whole file ------------------------------------------------------------------


@dataclass(slots=True)
class Transcript:
    """One file read into the neutral model (read-only: nothing here writes)."""

    format: str
    path: str
    meta: dict[str, Any] = field(default_factory=dict)
    # Either may be a lazy sequence (``Items``) whose items are built when indexed.
    messages: Sequence[Item] = field(default_factory=list)  # the replayed view
    raw: Sequence[Item] = field(default_factory=list)  # every line, file order
    tool_operations: list[ToolOp] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)  # compactions and elisions
    runs: list[Run] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)  # the file's own responses
    subagents: list[Subagent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lines: int = 0  # lines read
    extra: dict[str, Any] = field(default_factory=dict)  # the format's own replay keys
    writer_alive: bool | None = None  # None: not known (not looked at)

    @property
    def usage_with_subagents(self) -> Usage | None:
        """The file's usage and its linked subagents' together (None without subagents)."""
        if not self.subagents:
            return None
        return Usage.total([self.usage, *(s.usage for s in self.subagents)])

    def json_parts(self) -> Iterator[tuple[str, Any]]:
        """The replay JSON's keys in order (shared/spec/api.md: the shared keys, then the
        format's own); the long lists as iterators, built an element at a time."""
        parts: list[tuple[str, Any]] = [
            ("format", self.format),
            ("meta", self.meta),
            ("messages", (m.to_json() for m in self.messages)),
            ("tool-operations", (op.to_json() for op in self.tool_operations)),
            ("compactions", [c.to_json() for c in self.compactions]),
            ("usage", self.usage.to_json()),
            ("warnings", list(self.warnings)),
            ("runs", [r.to_json() for r in self.runs]),
        ]
        if self.subagents:
            both = self.usage_with_subagents
            parts.append(("subagents", [s.to_json() for s in self.subagents]))
            parts.append(("usage-with-subagents", both.to_json() if both is not None else None))
        yield from parts
        taken = {key for key, _value in parts}
        for key, value in self.extra.items():
            if key not in taken:  # the shared keys win over a format's own of the same name
                yield key, value

    def to_json(self) -> dict[str, Any]:
        """The replay JSON, whole."""
        return {
            key: list(value) if isinstance(value, Iterator) else value
            for key, value in self.json_parts()
        }

    def op_for_call(self, call_id: str) -> ToolOp | None:
        for op in self.tool_operations:
            if op.call_id == call_id:
                return op
        return None


__all__ = [
    "STATE_LABELS",
    "STATE_TONES",
    "Compaction",
    "Item",
    "LazyPart",
    "LazyToolOp",
    "OpState",
    "Part",
    "PartKind",
    "PartRef",
    "PartSource",
    "Run",
    "RunContext",
    "Subagent",
    "ToolOp",
    "Transcript",
    "Usage",
    "classify_op",
    "make_lazy",
    "preview",
    "ref_of",
    "state_label",
]
