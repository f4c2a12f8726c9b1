"""Tool operations in the neutral model: the one state vocabulary (its classifier, labels
and tones), ``ToolOp``, and ``LazyToolOp``, whose arguments, result and detail are read
from its parts when asked for (``OpField`` descriptors)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Self, TypeVar, overload

from .indexed import ListLike
from .parts import Part, PartRef

_T = TypeVar("_T")

# -- tool-operation states: the one vocabulary, the one classifier, the one label table --

OpState = Literal[
    "completed",
    "failed",
    "outcome-unknown",
    "running",  # no result yet, and the writer may still be at work
    "interrupted",  # no result, and the writer is gone or the turn was cut off
    # transcript-v1's crash states
    "unsettled-answered",  # dispatched, a tool message answers it, the settle never landed
    # ...while its writer may still be at work: its settle line is the next it writes
    # (a v1 writer writes the answer, then the settle), so "never" is not true yet
    "not-settled-yet",
    "never-dispatched",  # an assistant tool call with no dispatch line and no answer
    # ...while its writer may still be at work and dispatch it (a call queued behind one
    # that runs): "never" is only true once the writer is gone
    "not-dispatched-yet",
    "undispatched-answered",  # a tool call answered without a dispatch line (older writers)
]

STATE_LABELS: dict[str, str] = {
    "completed": "completed",
    "failed": "failed",
    "outcome-unknown": "outcome unknown",
    "running": "running",
    # (no result with the writer gone, a turn cut off, or a result that says the user
    # interrupted it: the one word is true of each)
    "interrupted": "interrupted",
    "running-dead": "interrupted: running when the writer died",  # (the spec's words too)
    "unsettled-answered": "completed, settle never landed",
    "not-settled-yet": "completed, settle not written yet",
    "never-dispatched": "never dispatched",
    "not-dispatched-yet": "not dispatched yet",
    "undispatched-answered": "answered, no dispatch record",
}

# The labels of a column too narrow for the long ones (the tool operations table at 80
# cells: "completed, settle never landed" left its arguments 27): each still says what
# its long one does first and tells the states apart; the detail says the long one.
STATE_SHORT_LABELS: dict[str, str] = {
    "unsettled-answered": "completed, unsettled",
    "not-settled-yet": "completed, settling",
    "undispatched-answered": "answered, undispatched",
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
    "not-settled-yet": "info",
    "never-dispatched": "warn",
    "not-dispatched-yet": "info",
    "undispatched-answered": "warn",
}


def state_tone(state: str) -> str:
    """A state's tone; a state of another word (a hand-written v1 outcome) is one to
    notice: "warn" (the exports said so, the viewer "info")."""
    return STATE_TONES.get(state, "warn")


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


def state_label(state: str, short: bool = False) -> str:
    """A state's label; ``short``: where a narrow column has one (``STATE_SHORT_LABELS``)."""
    return (short and STATE_SHORT_LABELS.get(state)) or STATE_LABELS.get(state, state)


# -- tool operations -----------------------------------------------------------------


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
    # A subagent whose lines are in this file (1.0.x): its first line and that item's id.
    subagent_line: int | None = None
    subagent_item: str | None = None
    # A call not answered: its latest progress line and that line's time (Claude Code's).
    progress_line: int | None = None
    progress_ts: str | None = None
    # A call that never ended (no end line): when its last line was written, said so
    # (its ``ended`` is None: it did not end then).
    last_seen: str | None = None
    # A call answered that never ended (v1's, its settle never written): its answer's time.
    answered: str | None = None
    # Its result only launched it in the background (Claude Code's ``async_launched``, a
    # teammate's spawn): no end of it, no user's stop; its subagent's file says the rest.
    launched: bool = False

    @property
    def label(self) -> str:
        return state_label(self.state)

    def end_said(self) -> str:
        """What the operation's own lines say of how it ended besides its result (v1's
        settle line: its error and reason), which its detail shows; "" where nothing."""
        return ""

    def one_line(self) -> bool:
        """Its call is its end: one line written once it was done, no result (a Codex
        ``web_search_call``, settled by its own status), so its start is not in the file.
        Told by its start and end at one time; a format whose call and end are always
        lines of their own (v1's dispatch and settle) says no."""
        return self.started is not None and self.started == self.ended and self.result_line is None

    def to_json(self) -> dict[str, Any]:
        return op_json(
            self.call_id,
            self.tool,
            self.state,
            self.arguments,
            self.line,
            self.result,
            self.result_line,
            self.run_id,
            self.message_id,
            self.detail,
            self.progress,
            self.subagent,
            self.duration,
            self.subagent_line,
            self.subagent_item,
        )


def op_json(
    call_id: str,
    tool: str,
    state: str,
    arguments: Any,
    line: int,
    result: Any = None,  # (or the JSON of its string, an orjson.Fragment)
    result_line: int | None = None,
    run_id: str | None = None,
    message_id: str | None = None,
    detail: Any = None,
    progress: str | None = None,
    subagent: str | None = None,
    duration: float | None = None,
    subagent_line: int | None = None,
    subagent_item: str | None = None,
) -> dict[str, Any]:
    """An operation's replay JSON (``ToolOp.to_json``) from its fields' values: what a
    format that keeps its operations packed writes without making them."""
    out: dict[str, Any] = {
        "call-id": call_id,
        "tool": tool,
        "state": state,
        "arguments": arguments,
        "line": line,
    }
    for key, value in (
        ("result", result),
        ("result-line", result_line),
        ("run-id", run_id),
        ("message-id", message_id),
        ("detail", detail),
        ("progress", progress),
        ("subagent", subagent),
        ("duration", duration),
        ("subagent-line", subagent_line),
        ("subagent-item", subagent_item),
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
        op.subagent_line = op.subagent_item = op.progress_line = op.progress_ts = None
        op.last_seen = op.answered = None  # (every field set: __new__ sets none)
        op.launched = False
        return op

    arguments = _ARGUMENTS
    result = _RESULT
    detail = _DETAIL

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolOp):
            return NotImplemented
        return self.to_json() == other.to_json() and self.state == other.state

    __hash__ = None  # type: ignore[assignment]


class OpsSequence(ListLike[ToolOp]):
    """A format's tool operations made when asked for (``V1Ops``, ``ClaudeOps``,
    ``CodexOps``): what the views ask of every operation, answered without making each
    (a big file has 100,000s); these defaults make them, a format says it quicker."""

    __slots__ = ()

    def state_of(self, index: int) -> str:
        return self[index].state

    def count_state(self, state: str) -> int:
        """How many of the operations are in ``state`` (``model.ops_in_state``): each
        one's ``state_of``; a format counts its column quicker."""
        state_of = self.state_of
        return sum(1 for index in range(len(self)) if state_of(index) == state)

    def tool_column(self) -> Sequence[str] | None:
        """Each operation's tool by its index (at least ``len(self)`` of them: a live
        file's column may hold later ones), where the format keeps them apart; None where
        each must be made (a big v1 file reads its lines): ``model.packed_tools``,
        ``model.op_tools``."""
        return None

    def unsettled(self) -> Sequence[ToolOp]:
        """At least the operations that may be running or interrupted."""
        return self

    def by_call(self) -> Mapping[str, ToolOp]:
        """Each operation by its call id (the last, where two share one)."""
        return {op.call_id: op for op in self}

    def json_rows(self, fragments: bool = False) -> Iterator[dict[str, Any]]:
        """Each operation's ``to_json()``, written without making it to keep where the
        format can (``fragments``: a long string may come as its JSON)."""
        return (op.to_json() for op in self)


# -- which call of a reused id an answer is of: one rule for the model and every export --


def ask_of(asks: Sequence[int], at: int) -> int:
    """Which of a call id's asks (the places of the messages asking for it, in order:
    events, seqs or lines) what is at ``at`` is of: an answer or an execution, the ask at
    its own place (a newer Codex writer's item holds a call and its result on one line),
    else the last before it, else the first (agentgo's seq is append order: an execution
    may be written before the message asking for it); a message asking, its own. A
    writer that numbers its calls again (after a compaction, in a new run) asks again
    with an id used before: the earlier call, unanswered, takes no later call's answer."""
    return asks[ask_index(asks, at)]


def ask_index(asks: Sequence[int], at: int) -> int:
    """``ask_of``'s ask, by its index in ``asks``."""
    upto = bisect_right(asks, at)
    return upto - 1 if upto else 0


def ask_in_run(asks: Sequence[int], runs: Sequence[str], at: int, run: str) -> int:
    """``ask_index`` of an agentgo execution of run ``run`` at seq ``at`` (``runs``: each
    ask's run): an ask of its own run first. A call is its run's (the spec names one by
    session, run and execution), and seq is append order, so an execution may come
    before the message of its run asking for it: an earlier run's ask of the id, used
    again, is another call. The last of its run's asks before it, else its run's first
    after it, else (its run asks for none: a run that carries on an earlier one's
    calls) ``ask_index``'s. A run's records are one stretch of seqs (one run is open at
    a time), so its asks are one stretch of ``asks``: only the two beside ``at`` are read."""
    upto = bisect_right(asks, at)
    if upto and runs[upto - 1] == run:
        return upto - 1
    if upto < len(asks) and runs[upto] == run:
        return upto
    return upto - 1 if upto else 0


class OpsByCall(Mapping[str, ToolOp]):
    """A snapshot's operations by call id, looked up (``find``) in what its format keeps,
    without making every operation; ``call_ids``: theirs, in order (repeats allowed)."""

    __slots__ = ("_call_ids", "_find")

    def __init__(
        self, find: Callable[[str], ToolOp | None], call_ids: Callable[[], Iterable[str]]
    ) -> None:
        self._find, self._call_ids = find, call_ids

    def __getitem__(self, call_id: str) -> ToolOp:
        op = self._find(call_id)
        if op is None:
            raise KeyError(call_id)
        return op

    def get(self, call_id: str, default: Any = None) -> Any:
        op = self._find(call_id)
        return default if op is None else op

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._call_ids()))

    def __len__(self) -> int:
        return len(dict.fromkeys(self._call_ids()))


def ops_by_call(ops: Sequence[ToolOp]) -> Mapping[str, ToolOp]:
    """Each operation of ``ops`` by its call id (the last, where two share one). A
    sequence that makes its operations when asked for (``V1Ops``) looks them up without
    making every one."""
    if isinstance(ops, OpsSequence):
        return ops.by_call()
    return {op.call_id: op for op in ops}


def op_states(ops: Sequence[ToolOp]) -> Callable[[int], str]:
    """Each operation's state by its index: a sequence that makes its operations when
    asked for (``V1Ops``, ``ClaudeOps``, ``CodexOps``) says it without making them."""
    if isinstance(ops, OpsSequence):
        return ops.state_of
    return lambda index: ops[index].state


def ops_in_state(ops: Sequence[ToolOp], state: str) -> int:
    """How many operations of ``ops`` are in ``state``: a sequence that makes its
    operations when asked for counts them without making them."""
    if isinstance(ops, OpsSequence):
        return ops.count_state(state)
    return sum(1 for op in ops if op.state == state)


def packed_tools(ops: Sequence[ToolOp], start: int = 0) -> Sequence[str] | None:
    """The tool names of ``ops`` from ``start`` on, without making them (None: a sequence
    that cannot say them so, ``OpsSequence.tool_column``)."""
    if not isinstance(ops, OpsSequence):
        return [op.tool for op in ops[start:]]
    column = ops.tool_column()
    return None if column is None else column[start : len(ops)]


def op_tools(ops: Sequence[ToolOp]) -> Callable[[int], str]:
    """Each operation's tool by its index, likewise without making it where the sequence
    keeps its tools packed (``ClaudeOps``, ``CodexOps``), else made."""
    column = ops.tool_column() if isinstance(ops, OpsSequence) else None
    if column is not None:
        return column.__getitem__
    return lambda index: ops[index].tool


def unsettled_ops(ops: Sequence[ToolOp]) -> Sequence[ToolOp]:
    """The operations of ``ops`` that may be running or interrupted (at least those): a
    sequence that makes its operations when asked for knows them without the others."""
    if isinstance(ops, OpsSequence):
        return ops.unsettled()
    return ops


__all__ = [
    "STATE_LABELS",
    "STATE_SHORT_LABELS",
    "STATE_TONES",
    "LazyToolOp",
    "OpField",
    "OpState",
    "OpsByCall",
    "OpsSequence",
    "ToolOp",
    "ask_index",
    "ask_of",
    "classify_op",
    "op_json",
    "op_states",
    "op_tools",
    "ops_by_call",
    "ops_in_state",
    "packed_tools",
    "state_label",
    "state_tone",
    "unsettled_ops",
]
