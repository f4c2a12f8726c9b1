"""transcript-v1's tool operations in the neutral model: a record's state, and the
operations a snapshot makes only when asked for (``V1Ops``, ``V1Op``)."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ...events import payload_of
from ...indexed import ListLike, shown
from ...json_out import compact_json
from ...model import (
    OpsByCall,
    ToolOp,
    classify_op,
)
from ...tool_ops import OpsSequence, OpState
from .asked import CallMarks, answered_ops

if TYPE_CHECKING:
    from ...records import CodedTexts
    from ...replay import ReplayState


if TYPE_CHECKING:
    from .calls import V1Calls


def op_state(
    op: dict[str, Any], answered: bool, writer_alive: bool | None, answered_last: bool
) -> OpState:
    """A v1 operation record's state: its outcome once settled, else what the file shows
    (``state_of``)."""
    outcome = op.get("outcome") if op.get("settled") else None
    if op.get("settled") and not isinstance(outcome, str):
        outcome = "outcome-unknown"
    return state_of(outcome, answered, writer_alive, answered_last)


def superseded_ops(
    state: ReplayState, first_of: Callable[[str], int] | None = None
) -> Callable[[int], bool]:
    """Whether unsettled operation ``index`` is of a run that another run followed: its
    run began (its first run-context line) before the dispatch, and another run's began
    after it. Its writer went on to other work, or died and another took the file over
    (a ``load``), so it is no longer running, whoever writes the file now. (Asked of the
    few unsettled operations only: each ask looks for its run's first line, in the run
    ids, or by ``first_of``: a run id's first run-context line, -1 for none, where the
    caller keeps them, as a followed model does, whose every snapshot asks again.)"""
    contexts, records = state.run_contexts, state.tool_ops
    if not len(contexts):
        return lambda _index: False
    run_ids = contexts.run_ids
    first = _first_in(run_ids) if first_of is None else first_of
    latest = run_ids[-1]
    since = contexts.event(len(contexts) - 1)

    def superseded(index: int) -> bool:
        run_id = records.run_ids[index]
        if run_id is None or run_id == latest:
            return False
        dispatched = records.dispatch_event(index)
        if dispatched > since:
            return False
        at = first(run_id)
        return at >= 0 and contexts.event(at) < dispatched  # (-1: no line began it)

    return superseded


def _first_in(run_ids: list[str]) -> Callable[[str], int]:
    def first(run_id: str) -> int:
        try:
            return run_ids.index(run_id)
        except ValueError:
            return -1

    return first


def _last_turn(state: ReplayState) -> tuple[int, list[int]]:
    """The event of the last message line that is no tool message (-1: none), and the
    tool messages after it (their answers: the writer has written nothing else since)."""
    messages, role = state.message_events, state.events.facts.role
    at = len(messages) - 1
    while at > 0 and role(messages[at]) == "tool":
        at -= 1
    if not len(messages):
        return -1, []
    return messages[at], list(messages[at + 1 :])


def answered_last(state: ReplayState, writer_alive: bool | None) -> Callable[[int], bool]:
    """Whether operation ``index`` is answered among the tool messages since the last one
    that is none, after its dispatch, itself after that message, while its writer may be
    at work: it has written nothing else since, so the operation's settle, not written
    yet, is the next thing it writes. Answered before that, the writer wrote on and the
    settle never landed (``state_of``), as a call not dispatched in the same spot is never
    dispatched (``undispatched_states``). The operation, not its call id alone: an older
    one of an id the model used again was dispatched before that message, and its settle
    is not due."""
    if writer_alive is False:
        return lambda _index: False
    turn, since = _last_turn(state)
    answers: dict[str, int] = {}  # call id -> the event of its last answer since
    for at, _calls, tcid in state.events.facts.call_facts(since):
        if tcid:
            answers[tcid] = at
    records = state.tool_ops

    def last(index: int) -> bool:
        dispatched = records.dispatch_event(index)
        if dispatched < turn:
            return False
        answer = answers.get(records.texts.text(records.call_numbers[index]), -1)
        return answer > dispatched

    return last


def undispatched_states(
    state: ReplayState, writer_alive: bool | None
) -> Callable[[int, bool], OpState]:
    """The state of a call a message line (at event ``position``) asked for that no
    dispatch line names, ``answered`` or not: answered, ``undispatched-answered``; while
    its writer may be at work and has written no message since, ``running`` (its
    dispatch line is the next the writer writes: a live file shows that moment), and
    with only tool messages since (its siblings' answers: it waits behind a call that
    runs), ``not-dispatched-yet``; once the writer is gone or has written on (another
    message), ``never-dispatched``, the crash state."""
    kinds = state.events.kinds
    code = kinds.known("message")
    last = kinds.codes.rfind(code) if 0 <= code < 256 else -1  # the last message line
    turn = last  # ...and the last that is no tool message (the ones after it: answers)
    if writer_alive is not False:
        turn = _last_turn(state)[0]

    def undispatched(position: int, answered: bool) -> OpState:
        if answered:
            return "undispatched-answered"
        if writer_alive is False or position < turn:
            return "never-dispatched"
        return "running" if position >= last else "not-dispatched-yet"

    return undispatched


def undispatched_calls(
    state: ReplayState, writer_alive: bool | None, marks: CallMarks
) -> Iterator[tuple[str, str, OpState]]:
    """``(call id, tool, state)`` of each call the message lines asked for that no
    dispatch line names, once per id, in their order (``undispatched_states``)."""
    text = state.events.texts.text
    undispatched = undispatched_states(state, writer_alive)
    for at, cid, name in marks.undispatched:
        yield text(cid), text(name), undispatched(at, marks.answers(cid))


def check_states(state: ReplayState, writer_alive: bool | None) -> tuple[Counter[str], int]:
    """``open_states``'s two counts in one, and how many operations ``replay`` lists."""
    pending, unstarted, listed = open_states(state, writer_alive)
    return pending + unstarted, listed


def open_states(
    state: ReplayState, writer_alive: bool | None
) -> tuple[Counter[str], Counter[str], int]:
    """``check``'s counts of the operations not settled and of the calls no dispatch
    line names, each by state, as ``replay`` lists them, and how many operations it lists
    (those calls among them): from the message lines' facts and the dispatched call
    ids' numbers, no line read, no call id made a str but the few it tells of."""
    marks = CallMarks(state)
    unstarted = undispatched_calls(state, writer_alive, marks)
    calls: Counter[str] = Counter(said for _cid, _tool, said in unstarted)
    pending: Counter[str] = Counter(pending_states(state, writer_alive, marks))
    return pending, calls, len(state.tool_ops) + calls.total()


def pending_states(
    state: ReplayState, writer_alive: bool | None, marks: CallMarks
) -> Iterator[OpState]:
    """The state of each operation not settled (``check``'s count of the answered ones),
    as ``replay`` says it: a superseded run's are the writer's gone; ``marks``: the
    call ids tool messages answer (``answered_ops`` gives each answer its call)."""
    superseded = superseded_ops(state)
    last = answered_last(state, writer_alive)
    pending = list(state.pending_indices())
    answered_op = answered_ops(state, pending, marks.answers)
    for index in pending:
        alive = False if superseded(index) else writer_alive
        yield state_of(None, index in answered_op, alive, last(index))


def state_of(
    outcome: str | None, answered: bool, writer_alive: bool | None, answered_last: bool
) -> OpState:
    """A v1 operation's state from its settle's outcome (None: not settled), whether a
    tool message answers its call, whether the writer is alive, and whether the answer
    is among the last tool messages (``answered_last``). Answered and not settled is
    ``not-settled-yet`` while the writer may be at work and has written nothing since
    (its settle follows the answer: every v1 call shows that moment), else the crash
    state ``unsettled-answered``, as a call not dispatched (``undispatched_states``)."""
    if outcome is not None:
        return outcome  # type: ignore[return-value]
    if answered:
        due = answered_last and writer_alive is not False
        return "not-settled-yet" if due else "unsettled-answered"
    return classify_op(has_result=False, writer_alive=writer_alive)


def _never_last(_index: int) -> bool:  # (a settled operation's: its outcome says)
    return False


SETTLED_KEPT = 1024  # settled operations a snapshot keeps made (the latest asked for)


class V1Ops(OpsSequence):
    """A snapshot's operations, in dispatch order, then the calls no dispatch line names:
    the ones not settled at the snapshot as it made them, each settled one made (a
    ``V1Op``, from what the replay keeps) when asked for, the latest few kept. A big file
    has 100,000s of them: a snapshot does not make them all, nor keep what a search over
    them all made (each with its result read from the file)."""

    __slots__ = (
        "_answered",
        "_count",
        "_made",
        "_model",
        "_never",
        "_never_by_call",
        "_settled",
        "_unsettled",
    )

    def __init__(
        self, model: V1Calls, dispatched: int, made: dict[int, ToolOp], never: list[ToolOp]
    ) -> None:
        self._model = model
        self._count = dispatched  # operations of the snapshot (later ones are not in it)
        self._made = made
        self._never = never
        self._answered = model.answered
        self._never_by_call: dict[str, ToolOp] | None = None
        self._unsettled = [*made.values(), *never]
        state = model.state

        def settled(index: int) -> ToolOp:  # (settled before the snapshot: its outcome says)
            return V1Op.of(state, index, False, None, _never_last)

        # (a closure over what it reads, not over ``self``: a dropped snapshot is freed
        # at once, not kept in a cycle while a load has the collector paused)
        self._settled = functools.lru_cache(maxsize=SETTLED_KEPT)(settled)

    def __len__(self) -> int:
        return self._count + len(self._never)

    def _one(self, index: int) -> ToolOp:
        if index >= self._count:
            return self._never[index - self._count]
        op = self._made.get(index)
        return op if op is not None else self._settled(index)

    def state_of(self, index: int) -> OpState:
        """Operation ``index``'s state, without making it (``model.op_states``): one
        settled before the snapshot is in its settle's outcome."""
        op = self._made.get(index) if index < self._count else self._never[index - self._count]
        if op is not None:
            return op.state
        outcome = self._model.state.tool_ops.outcome(index)
        return outcome if outcome is not None else self._one(index).state  # type: ignore[return-value]

    def count_state(self, state: str) -> int:
        """How many are in ``state`` (``model.ops_in_state``): the settles' outcomes
        counted, then those not settled at the snapshot by their own state (one settled
        since is the snapshot's still), and the calls no dispatch line names."""
        outcomes = self._model.state.tool_ops
        found = outcomes.outcome_count(state, self._count)
        for index, op in self._made.items():
            found += (op.state == state) - (outcomes.outcome(index) == state)
        return found + sum(1 for op in self._never if op.state == state)

    def tool_column(self) -> _Tools:
        return _Tools(self._model.state.tool_ops.tools, self._count, self._never)

    def unsettled(self) -> list[ToolOp]:
        """The operations not settled at the snapshot (and the undispatched calls): the
        only ones that may be running or interrupted (``model.unsettled_ops``)."""
        return self._unsettled

    def open_states(self) -> tuple[Counter[str], Counter[str]]:
        """``open_states`` of the snapshot: its operations dispatched (not settled at it)
        and the calls no dispatch line names, each counted by state."""
        return Counter(op.state for op in self._made.values()), Counter(
            op.state for op in self._never
        )

    def by_call(self) -> Mapping[str, ToolOp]:
        """The operations by call id (``model.ops_by_call``)."""
        return OpsByCall(self.find, lambda: (op.call_id for op in self))

    def find(self, call_id: str) -> ToolOp | None:
        """The last operation of the snapshot for ``call_id`` (None: none)."""
        never = self._never_by_call
        if never is None:
            never = self._never_by_call = {op.call_id: op for op in self._never}
        op = never.get(call_id)
        if op is not None:
            return op
        model = self._model
        number = model.texts.find(call_id) if type(call_id) is str else -1
        index = model.operation_of(number) if number >= 0 else -1
        if index < 0:
            return None
        if index >= self._count:  # dispatched again since the snapshot: its last before
            call_ids = model.state.tool_ops.call_numbers
            index = next((i for i in range(self._count - 1, -1, -1) if call_ids[i] == number), -1)
            if index < 0:
                return None
        return self[index]

    def __repr__(self) -> str:
        return f"V1Ops({shown(self)})"


class _Tools(ListLike[str]):
    """A snapshot's tools by operation (``V1Ops.tool_column``): the dispatched ones' as the
    replay coded them, then the undispatched calls'."""

    __slots__ = ("_coded", "_count", "_never")

    def __init__(self, coded: CodedTexts, count: int, never: list[ToolOp]) -> None:
        self._coded, self._count, self._never = coded, count, never

    def __len__(self) -> int:
        return self._count + len(self._never)

    def _one(self, index: int) -> str:
        if index >= self._count:
            return self._never[index - self._count].tool
        return self._coded[index] or ""


class V1Op(ToolOp):
    """A v1 operation: its call id, run id and state from what the replay kept of it; its
    tool, arguments and times read from its lines (``ToolOps``) when first asked for."""

    __slots__ = ("_end_said", "_index", "_read", "_state")
    _state: ReplayState
    _index: int
    _read: bool
    _end_said: str  # (read with its other fields, from its lines: ``_fill``)

    @classmethod
    def of(
        cls,
        state: ReplayState,
        index: int,
        answered: bool,
        writer_alive: bool | None,
        last: Callable[[int], bool],
    ) -> V1Op:
        """``answered``: a tool message answers it (``answered_ops``); ``last``:
        ``answered_last`` of the state."""
        records = state.tool_ops
        op = cls.__new__(cls)
        op._state, op._index, op._read = state, index, False
        op.call_id = records.texts.text(records.call_numbers[index])
        op.run_id = records.run_ids[index]
        op.state = state_of(records.outcome(index), answered, writer_alive, last(index))
        for name in _FROM_LINES:
            _SLOTS[name].__set__(op, None)
        op.sidechain = op.launched = False
        for name in (
            "detail",
            "progress",
            "subagent",
            "subagent_line",
            "subagent_item",
            "progress_line",
            "progress_ts",
            "last_seen",
        ):
            _SLOTS[name].__set__(op, None)
        return op

    def one_line(self) -> bool:
        """Never: its dispatch and its settle are lines of their own (at one time, it took
        under the clock's step: ``0s``)."""
        return False

    def record(self) -> dict[str, Any]:
        """The operation's record as its lines say (``records.operation``)."""
        record: dict[str, Any] = self._state.tool_ops[self._index]
        return record

    def _caller(self) -> str | None:
        """The message that asked for the call: the last before its dispatch line that
        names it (from the replay's facts: no line read)."""
        events = self._state.events
        kinds, facts = events.kinds, events.facts
        dispatch = self._state.tool_ops.dispatch_event(self._index)
        for position in range(dispatch - 1, max(-1, dispatch - CALLER_WITHIN), -1):
            if kinds[position] == "message" and any(
                cid == self.call_id for cid, _name in facts.calls(position)
            ):
                return events.ids[position]
        return None

    def _answer(self) -> tuple[str | None, int | None, str | None]:
        """The text, line and time of the tool message that answers the call: the first
        after its dispatch line that names it."""
        return answer_after(
            self._state, self._state.tool_ops.dispatch_event(self._index), self.call_id
        )

    def _fill(self) -> None:
        record = self.record()
        result, result_line, answered = self._answer()
        duration = record.get("duration")
        values = {
            "tool": str(record.get("tool", "")),
            "arguments": record.get("arguments"),
            "started": record.get("dispatched-at"),
            "ended": record.get("settled-at"),
            "duration": duration if _seconds(duration) else None,
            "message_id": self._caller(),
            "line": int(self._state.event_lines[self._state.tool_ops.dispatch_event(self._index)]),
            "result": result,
            "result_line": result_line,
            "answered": answered if record.get("settled-at") is None else None,
        }
        for name, value in values.items():
            _SLOTS[name].__set__(self, value)
        said = (record.get("error"), record.get("reason"))
        self._end_said = "\n".join(str(text) for text in said if text not in (None, ""))
        self._read = True

    def end_said(self) -> str:
        if not self._read:
            self._fill()
        return self._end_said


class UndispatchedOp(ToolOp):
    """A call a message asked for that no dispatch line names (``never-dispatched``,
    ``undispatched-answered``): its arguments as that message gives them, and the first
    tool message after it that names the call as its result, read from their lines when
    first asked for (the detail showed "(none)" and "(no result)")."""

    __slots__ = ("_position", "_read", "_state")
    _state: ReplayState
    _position: int
    _read: bool

    @classmethod
    def of(
        cls, state: ReplayState, position: int, call_id: str, tool: str, op_state: OpState
    ) -> UndispatchedOp:
        """The call ``call_id`` of the message at event ``position``."""
        op = cls.__new__(cls)
        op._state, op._position, op._read = state, position, False
        for name in ToolOp.__slots__:
            if name not in _LAZY:
                _SLOTS[name].__set__(op, ToolOp.__dataclass_fields__[name].default)
        op.call_id, op.tool, op.state = call_id, tool, op_state
        op.line = int(state.event_lines[position])
        op.message_id = state.events.ids[position]
        return op

    def _fill(self) -> None:
        events, position = self._state.events, self._position
        arguments: Any = None
        calls = payload_of(events.read(position)).get("tool-calls")
        for call in calls if isinstance(calls, list) else ():
            # (an id that is no string is named as the replay's facts name it)
            cid = call.get("id") if isinstance(call, dict) else None
            if cid is not None and (cid if type(cid) is str else str(cid or "")) == self.call_id:
                function = call.get("function")
                arguments = function.get("arguments") if isinstance(function, dict) else None
                break
        result, result_line, answered = answer_after(self._state, position, self.call_id)
        for name, value in (
            ("arguments", arguments),
            ("result", result),
            ("result_line", result_line),
            ("answered", answered),
        ):
            _SLOTS[name].__set__(self, value)
        self._read = True


def answer_after(
    state: ReplayState, event: int, call_id: str
) -> tuple[str | None, int | None, str | None]:
    """The text, line and time of the first tool message after ``event`` (within
    ``CALLER_WITHIN``) that answers ``call_id`` (found by the replay's facts; that line
    read), or ``(None, None, None)``."""
    events = state.events
    kinds, facts = events.kinds, events.facts
    for at in range(event + 1, min(len(kinds), event + CALLER_WITHIN)):
        if kinds[at] == "message" and facts.shape(at)[4] == call_id:
            record = events.read(at)
            content = payload_of(record).get("content")
            text = content if isinstance(content, str) else None
            if text is None and content is not None:
                text = compact_json(content)
            ts = record.get("ts")
            return text, int(state.event_lines[at]), ts if isinstance(ts, str) else None
    return None, None, None


class _FromLines:
    """A ``V1Op`` field read from its lines when first asked for."""

    def __init__(self, name: str) -> None:
        self.slot = _SLOTS[name]

    def __get__(self, op: V1Op | UndispatchedOp | None, owner: type | None = None) -> Any:
        if op is None:
            return self
        if not op._read:
            op._fill()
        return self.slot.__get__(op, ToolOp)

    def __set__(self, op: V1Op | UndispatchedOp, value: Any) -> None:
        if not op._read:
            op._fill()
        self.slot.__set__(op, value)


_SLOTS: dict[str, Any] = {name: ToolOp.__dict__[name] for name in ToolOp.__slots__}
_FROM_LINES = (
    "tool",
    "arguments",
    "started",
    "ended",
    "duration",
    "message_id",
    "line",
    "result",
    "result_line",
    "answered",
)
CALLER_WITHIN = 10_000  # lines around its dispatch a call's message and answer are looked for
for _name in _FROM_LINES:
    setattr(V1Op, _name, _FromLines(_name))
_LAZY = ("arguments", "result", "result_line", "answered")  # an undispatched call's, from its lines
for _name in _LAZY:
    setattr(UndispatchedOp, _name, _FromLines(_name))


def cut_off(state: ReplayState) -> bool:
    """The file's last message is none a run can end on (``facts.ends_a_run``: a call
    never dispatched, a result or prompt the model never saw): its writer, gone, was cut
    off there (``cut_off_state``)."""
    from ...facts import ends_a_run

    if not state.message_events:
        return False
    last, facts = state.message_events[-1], state.events.facts  # (no line read where taken)
    return not ends_a_run(facts.role(last), facts.call_count(last))


def cut_off_state(state: ReplayState, writer_alive: bool | None) -> OpState | None:
    """How the last run of a file that ends on no answer of the model's (``cut_off``)
    stands (``unanswered_end``)."""
    return unanswered_end(cut_off(state), writer_alive)


def unanswered_end(unanswered: bool, writer_alive: bool | None) -> OpState | None:
    """How the last run of a file that ends on no answer of the model's (``unanswered``:
    ``cut_off``, or a browser row's window's ``tallies.V1Window.ends_a_run``) stands:
    ``interrupted`` once its writer is gone; ``running`` while no lock says and the file
    is fresh (``writer_alive`` None: the writer may be at work, its next line the model's
    answer or a dispatch, as a call's ``not-dispatched-yet``); None where it ends on an
    answer, or a writer holds the file (its last run runs, whatever it ends on). One rule
    for the runs, ``check`` and the browser's row (``scan.settle_status``)."""
    if writer_alive or not unanswered:
        return None
    return "interrupted" if writer_alive is False else "running"


def _seconds(value: object) -> bool:
    """A settle's ``duration`` that is one: a finite number (the replay JSON's null for
    1e400, which the reference reads as Inf), not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
