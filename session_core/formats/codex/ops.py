"""Tool operations kept packed: where each one's call and result are, not copies of them.

A rollout of a long session has a tool operation every few lines. The builder keeps
them as columns (``OpColumn``: names, state codes, where each call and result is), and
a snapshot's ``Transcript.tool_operations`` (``CodexOps``) makes each ``ToolOp`` when
asked for: a ``PackedOp``, whose line, timestamps, message id, arguments, result,
outcome and duration are read from the raw items of its call and result. What is set
on it later (``op.detail = ...``) is kept and wins, as on any ``ToolOp``; a copy
(``dataclasses.replace``) is a plain one.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from array import array
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from ...item_column import ItemColumn
from ...model import OpsByCall
from ...packed_ids import PackedIds
from ...parts import CHANGED, PartRef
from ...tool_ops import LazyToolOp, OpField, OpsSequence, OpState, ToolOp, op_json
from . import rows
from .tools import Outcome

_T = TypeVar("_T")
_LINE = ToolOp.__dict__["line"]  # the dataclass's slots
_DURATION = ToolOp.__dict__["duration"]


# An operation's state, kept as its code; ``AT_CALL`` flags one a call's own status
# settled (it ended at its call's line).
STATES: tuple[OpState, ...] = ("running", "completed", "failed", "interrupted", "outcome-unknown")
CODES = {state: code for code, state in enumerate(STATES)}
RUNNING, INTERRUPTED, AT_CALL = CODES["running"], CODES["interrupted"], 0x80
# ``OpColumn.said``: a result not its output as it is, or one whose outcome has no code
NOT_VERBATIM, NO_CODE = -(1 << 63), -(1 << 63) + 1
_BIG = (1 << 63) - 1


class OpColumn:
    """Every operation of a file, packed: its call id, tool, run, state, the raw item of
    its call and of its result (-1: none yet) and its duration in seconds (NaN: not
    known). An operation whose items are not packed (kept whole), or that was changed
    beyond that (a late exit code), is kept as its ``ToolOp`` (``own``). A snapshot's
    operations are made from it when asked for (``CodexOps``)."""

    __slots__ = (
        "_lock",
        "call",
        "duration",
        "ids",
        "own",
        "raw",
        "result",
        "run_ids",
        "said",
        "state",
        "tools",
        "waiting",
    )

    def __init__(self, raw: ItemColumn) -> None:
        self.raw = raw
        # Raw indexes and run indexes as int32s: 2**31 lines would need 10s of GB kept first.
        self.call = array("i")
        self.result = array("i")
        self.duration = array("d")
        # Of a result that is its output string as it is (``answered``'s ``verbatim``): the
        # exit code its outcome says (NO_CODE: none); else NOT_VERBATIM.
        self.said = array("q")
        # Call ids packed, with a hash index (brought up to date when a lookup needs it):
        # the last operation of each is found by it; or, while that one waits for its
        # output, by ``waiting`` (a few calls: an output looks its call up there). Packing
        # and indexing change them: the viewer reads a snapshot's (its screen, a search)
        # while the reader appends, so each use of them holds ``_lock``.
        self.ids = PackedIds("last")
        self.waiting: dict[str, int] = {}
        self._lock = threading.Lock()
        self.tools: list[str] = []
        self.run_ids: list[str | None] = []
        self.state = bytearray()
        self.own: dict[int, ToolOp] = {}

    def __len__(self) -> int:
        return len(self.call)

    def add(self, call: int, call_id: str, tool: str, run_id: str | None) -> int:
        """A running operation whose call is the packed raw item ``call``; its index."""
        self.call.append(call)
        self.result.append(-1)
        self.duration.append(math.nan)
        self.said.append(NOT_VERBATIM)
        with self._lock:
            self.ids.append(call_id)
        self.tools.append(tool)
        self.run_ids.append(run_id)
        self.state.append(RUNNING)
        return len(self.call) - 1

    def find(self, call_id: str) -> int | None:
        """The last operation of ``call_id`` (None: none)."""
        at = self.waiting.get(call_id)
        if at is None:
            with self._lock:
                at = self.ids.find(call_id)
            return None if at < 0 else at
        return at

    def index_now(self) -> None:
        """Index the call ids so far (``PackedIds.index_now``)."""
        with self._lock:
            self.ids.index_now()

    def call_id(self, at: int) -> str:
        """Operation ``at``'s call id."""
        with self._lock:
            return self.ids[at]

    def call_ids(self, stop: int) -> list[str]:
        """The call ids of the first ``stop`` operations."""
        with self._lock:
            return self.ids.texts(0, stop)

    def answer(self, call_id: str) -> int | None:
        """``find``, for an output of that call: the call waits for it no more."""
        at = self.waiting.pop(call_id, None)
        return self.find(call_id) if at is None else at

    def add_own(self, op: ToolOp) -> int:
        """An operation kept as it is (its items are not packed); its index."""
        at = self.add(-1, op.call_id, op.tool, op.run_id)
        self.own[at] = op
        return at

    def answered(
        self, at: int, result: int, duration: float | None, verbatim: Outcome | None = None
    ) -> None:
        """Its result is the packed raw item ``result``; ``verbatim``: its outcome, when its
        text is the line's output string as it is (its exit code is kept: the replay JSON
        copies that string and needs nothing else of the line)."""
        self.result[at] = result
        self.duration[at] = math.nan if duration is None else duration
        said = NOT_VERBATIM
        if verbatim is not None:
            code = verbatim.exit_code
            if verbatim.detail == (None if code is None else {"exit_code": code}):
                said = NO_CODE if code is None else code if NO_CODE < code <= _BIG else said
        self.said[at] = said

    def state_of(self, at: int) -> OpState:
        own = self.own.get(at)
        return own.state if own is not None else STATES[self.state[at] & ~AT_CALL]

    def settle(self, at: int, state: OpState, at_call: bool = False) -> None:
        """Its state (``at_call``: settled by its call's own status, ended there)."""
        own = self.own.get(at)
        if own is not None:
            own.state = state  # (its ``ended`` is set on it)
        else:
            flag = AT_CALL if at_call else self.state[at] & AT_CALL  # (ended there still)
            self.state[at] = CODES[state] | flag

    def started(self, at: int) -> str | None:
        own = self.own.get(at)
        return own.started if own is not None else self.raw.ts_of(self.call[at])

    def has_result(self, at: int) -> bool:
        own = self.own.get(at)
        return own.result_line is not None if own is not None else self.result[at] >= 0

    def kept(self, at: int) -> ToolOp:
        """The operation as an object kept from now on (to change more of it than the
        column holds): an own one as it is, a packed one made and kept."""
        op = self.own.get(at)
        if op is None:
            op = self.own[at] = self.make(at)
        return op

    def make(self, at: int) -> ToolOp:
        """A packed operation as a ``PackedOp`` (an own one is not made again)."""
        own = self.own.get(at)
        if own is not None:
            return own
        op = PackedOp.packed(self, at, self.call_id(at), self.tools[at], self.run_ids[at])
        code = self.state[at]
        op.state = STATES[code & ~AT_CALL]
        if code & AT_CALL:
            op.ended = self.raw.ts_of(self.call[at])
        return op

    def json_of(
        self, at: int, state: OpState | None = None, fragments: bool = False
    ) -> dict[str, Any]:
        """``make(at).to_json()`` of a packed operation (not an own one), without making it:
        its call's and result's lines read again once each (``state``: the snapshot's;
        ``fragments``: its result may be its JSON, copied from its line)."""
        raw = self.raw
        source = raw.source
        call, result = self.call[at], self.result[at]
        call_id = self.call_id(at)
        arguments = text = detail = result_line = None
        if source is not None:  # (as ``PartRef``s read them)
            found = rows.call_arguments(source, raw.span[call], call_id)
            if found is None:
                part = source.part(raw.span[call], 0)
                arguments = None if part is None else part.data
            else:
                arguments = found[0]
            said = self.said[at]
            if result >= 0 and said != NOT_VERBATIM:
                text = rows.output_json(source, raw.span[result], call_id, fragments)
                detail = None if said == NO_CODE else {"exit_code": said}
            if result >= 0 and text is None:
                part = source.part(raw.span[result], 0)
                if part is None:
                    text = CHANGED
                else:
                    text, detail = part.text, part.data
        if result >= 0:
            result_line = raw.line[result]
        seconds = self.duration[at]
        return op_json(
            call_id,
            self.tools[at],
            state or STATES[self.state[at] & ~AT_CALL],
            arguments,
            raw.line[call],
            text,
            result_line,
            self.run_ids[at],
            raw.id_of(call),
            detail,
            duration=None if math.isnan(seconds) else seconds,
        )

    def ref(self, index: int) -> PartRef | None:
        """The (only) part of a packed raw item, where it is in the file."""
        raw = self.raw
        source = raw.source
        return PartRef.at(source, raw.span[index], 0) if source is not None else None


class CodexOps(OpsSequence):
    """A snapshot's operations: the first ``count`` of the column, each made when asked
    for and kept for the snapshot (a big file has 100,000s: a snapshot does not make
    them all); ``states`` overrides the state of those still pending at the snapshot
    (running or interrupted, as the writer's state says)."""

    __slots__ = ("_column", "_count", "_made", "_states", "_unsettled")

    def __init__(
        self,
        column: OpColumn,
        count: int,
        states: dict[int, OpState],
    ) -> None:
        self._column = column
        self._count = count
        self._states = states
        self._made: dict[int, ToolOp] = {}
        self._unsettled: list[ToolOp] | None = None  # found once a snapshot (asked per draw)

    def __len__(self) -> int:
        return self._count

    def _one(self, index: int) -> ToolOp:
        op = self._made.get(index)
        if op is None:
            op = self._column.make(index)
            state = self._states.get(index)
            if state is not None and state != op.state:
                if index in self._column.own:  # the builder's own: a copy of it
                    op = dataclasses.replace(op, state=state)
                else:
                    op.state = state
            self._made[index] = op
        return op

    def state_of(self, index: int) -> OpState:
        """Operation ``index``'s state, without making it (``model.op_states``)."""
        op = self._made.get(index)
        if op is not None:
            return op.state
        state = self._states.get(index)
        return state if state is not None else self._column.state_of(index)

    def count_state(self, state: str) -> int:
        """How many are in ``state`` (``model.ops_in_state``): the column's codes counted,
        then the few whose state is not their code's (kept whole, pending at the
        snapshot, made) counted by ``state_of``."""
        column = self._column
        code = CODES.get(state)  # type: ignore[call-overload]
        codes = column.state[: self._count]
        found = 0 if code is None else codes.count(code) + codes.count(code | AT_CALL)
        for at in {*column.own, *self._states, *self._made}:
            if at < self._count:
                coded = STATES[codes[at] & ~AT_CALL] == state
                found += (self.state_of(at) == state) - coded
        return found

    def tool_column(self) -> list[str]:
        return self._column.tools

    def of_tools(self, match: Callable[[str], bool]) -> Iterator[ToolOp]:
        """The operations whose tool ``match`` says yes to, in order; only those made."""
        tools = self._column.tools
        for index in range(self._count):
            if match(tools[index]):
                yield self._one(index)

    def json_rows(self, fragments: bool = False) -> Iterator[dict[str, Any]]:
        """Every operation's ``to_json()``, in order: those made (or kept whole) from their
        objects, the others from the column without making them (``model.rows_json``)."""
        column, made, own, states = self._column, self._made, self._column.own, self._states
        for index in range(self._count):
            op = made.get(index)
            if op is not None or index in own:
                yield (op or self._one(index)).to_json()
            else:
                yield column.json_of(index, states.get(index), fragments)

    def unsettled(self) -> list[ToolOp]:
        """The operations that may be running or interrupted (``model.unsettled_ops``):
        the pending ones, those an output said were cut off, own ones in either state."""
        if self._unsettled is not None:
            return list(self._unsettled)
        column = self._column
        found = set(self._states)
        codes, own = column.state, column.own
        for code in (RUNNING, INTERRUPTED):
            at = codes.find(code)
            while 0 <= at < self._count:
                if at not in own:  # (an own one's code is its start's: its object says)
                    found.add(at)
                at = codes.find(code, at + 1)
        for at, op in own.items():
            if at < self._count and op.state in ("running", "interrupted"):
                found.add(at)
        self._unsettled = [self[at] for at in sorted(found)]
        return list(self._unsettled)

    def by_call(self) -> Mapping[str, ToolOp]:
        """The operations by call id (``model.ops_by_call``), the last of each."""
        column = self._column
        return OpsByCall(self.find, lambda: column.call_ids(len(self)))

    def find(self, call_id: str) -> ToolOp | None:
        """The snapshot's last operation for ``call_id`` (None: none)."""
        at = self._column.find(call_id)
        if at is None:
            return None
        if at >= self._count:  # called again since the snapshot: its last before
            column = self._column
            later = range(self._count - 1, -1, -1)
            at = next((i for i in later if column.call_id(i) == call_id), -1)
            if at < 0:
                return None
        return self[at]


class _Packed(OpField[_T]):
    """A ``PackedOp`` field: what was set on it (as on a ``LazyToolOp``) when not None,
    else what its call's (or result's) raw item in the column says."""

    __slots__ = ("own", "read", "result")

    def __init__(self, name: str, result: bool, read: Callable[[OpColumn, int], _T]) -> None:
        self.own = LazyToolOp.__dict__.get(name, ToolOp.__dict__[name])  # as on a LazyToolOp
        self.result = result  # read from the result's item (else the call's)
        self.read = read  # the value from the column, at the item's index

    def get(self, op: PackedOp) -> _T:
        value: _T = self.own.__get__(op, ToolOp)
        column = op._column
        if value is not None or column is None:
            return value
        index = (column.result if self.result else column.call)[op._at]
        return value if index < 0 else self.read(column, index)

    def __set__(self, op: PackedOp, value: _T) -> None:
        self.own.__set__(op, value)


def _data(ref: PartRef | None) -> Any:
    return None if ref is None else ref.data


def _text(ref: PartRef | None) -> str | None:
    return None if ref is None else ref.text


class PackedOp(LazyToolOp):
    """A ``ToolOp`` whose call and result are read from an ``OpColumn`` (see the module):
    a field set on it (not None) wins over what the column says."""

    __slots__ = ("_at", "_column")

    def __init__(self, *args: Any, column: OpColumn | None = None, at: int = -1, **kw: Any) -> None:
        self._column = column
        self._at = at
        LazyToolOp.__init__(self, *args, **kw)

    @classmethod
    def packed(
        cls, column: OpColumn, at: int, call_id: str, tool: str, run_id: str | None
    ) -> PackedOp:
        """A running operation of the column (made for every call of a file: its slots
        are set directly, not through ``__init__`` and its setters)."""
        op = _new(cls)
        for put, value in _HIDDEN:
            put(op, value)
        op.call_id, op.tool, op.state, op.run_id = call_id, tool, "running", run_id
        op.progress, op.subagent, op.sidechain = _PLAIN
        op._args_from = op._result_from = op._detail_from = None
        op._column, op._at = column, at
        return op

    def _item(self, result: bool) -> int:
        """The raw item of its call or result (-1: none, or not packed)."""
        column = self._column
        if column is None:
            return -1
        return (column.result if result else column.call)[self._at]

    arguments = _Packed[Any]("arguments", False, lambda column, at: _data(column.ref(at)))
    result = _Packed[str | None]("result", True, lambda column, at: _text(column.ref(at)))
    # the outcome: the result's data
    detail = _Packed[Any]("detail", True, lambda column, at: _data(column.ref(at)))
    result_line = _Packed[int | None]("result_line", True, lambda column, at: column.raw.line[at])
    message_id = _Packed[str | None]("message_id", False, lambda column, at: column.raw.id_of(at))
    started = _Packed[str | None]("started", False, lambda column, at: column.raw.ts_of(at))
    ended = _Packed[str | None]("ended", True, lambda column, at: column.raw.ts_of(at))

    @property
    def line(self) -> int:
        index = self._item(False)
        if index < 0 or self._column is None:
            line: int = _LINE.__get__(self, ToolOp)
            return line
        return self._column.raw.line[index]

    @line.setter
    def line(self, value: int) -> None:
        _LINE.__set__(self, value)

    @property
    def duration(self) -> float | None:
        value: float | None = _DURATION.__get__(self, ToolOp)
        column = self._column
        if value is not None or column is None:
            return value
        seconds = column.duration[self._at]
        return None if math.isnan(seconds) else seconds

    @duration.setter
    def duration(self, value: float | None) -> None:
        _DURATION.__set__(self, value)


_new = object.__new__
_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(ToolOp) if f.default is not dataclasses.MISSING
}
# The slots a packed op reads through descriptors of its own, with what they start as
# (``ToolOp``'s defaults): set through the slots' own setters. The others, set in
# ``packed`` itself (a store each: a setter call costs five), are these.
_SET_IN_PACKED = ("progress", "subagent", "sidechain")
_HIDDEN: list[tuple[Any, Any]] = [
    (ToolOp.__dict__[name].__set__, value)
    for name, value in _DEFAULTS.items()
    if name not in _SET_IN_PACKED
]
_PLAIN = tuple(_DEFAULTS[name] for name in _SET_IN_PACKED)
assert all(getattr(PackedOp, name) is ToolOp.__dict__[name] for name in _SET_IN_PACKED)

__all__ = ["STATES", "CodexOps", "OpColumn", "PackedOp"]
