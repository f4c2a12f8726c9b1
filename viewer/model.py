"""What the panes show, computed from a replay state. Pure Python: no Textual here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from session_core.events import Events
from session_core.model import STATE_LABELS, OpState
from session_core.replay import ReplayState, payload_of


@dataclass(slots=True)
class ToolCallRef:
    """A tool call an assistant message asked for, and what answered it."""

    call_id: str
    name: str
    message_id: str  # the assistant message
    event: int  # its index in state.events (its arguments are read from there when shown)
    answer_ids: list[str] = field(default_factory=list)  # tool messages answering it


@dataclass(slots=True)
class ToolOpRow:
    """One row of the tool-operations table."""

    state: OpState
    call_id: str
    tool: str
    op_id: str | None = None
    round: Any = None
    run_id: str | None = None
    idempotency: str | None = None
    dispatched_at: str | None = None
    settled_at: str | None = None
    outcome: str | None = None
    reason: str | None = None
    duration: float | None = None
    error: str | None = None
    artifact: dict[str, Any] | None = None
    arguments: Any = None
    answer_ids: list[str] = field(default_factory=list)
    message_id: str | None = None

    def label(self, live: bool) -> str:
        return op_label(self.state, live)


def op_label(state: str, live: bool) -> str:
    """How a tool operation's state reads (``STATE_LABELS``), in the tools tab and in the
    conversation alike: "running" once its writer is gone is "running when the writer died"."""
    if state == "running" and not live:
        return STATE_LABELS["running-dead"]
    return STATE_LABELS.get(state, state)


def call_state(op: dict[str, Any] | None, answered: bool) -> OpState:
    """The state of a v1 tool call: its operation's record (None: none was dispatched) and
    whether a tool message answered it."""
    if op is None:
        return "undispatched-answered" if answered else "never-dispatched"
    if op.get("settled"):
        outcome = op.get("outcome")
        return outcome if isinstance(outcome, str) else "outcome-unknown"  # type: ignore[return-value]
    return "unsettled-answered" if answered else "running"


class CallIndex:
    """Tool calls and their answers over the raw file (a compaction does not hide them).

    Kept as event indexes, not an object per call (a big transcript has 100,000s):
    ``ref`` builds a call's ``ToolCallRef`` from the facts replay kept.
    """

    def __init__(self) -> None:
        # call id -> the event of the (last) message calling it, in order of first call
        self._called: dict[str, int] = {}
        # call id -> the event of the tool message answering it (a list when several do)
        self._answered: dict[str, int | list[int]] = {}
        self.answer_count = 0  # tool messages that answer a call id
        self._events: Events | None = None
        self._seen = 0

    def update(self, state: ReplayState) -> None:
        """Index the message lines added since the last call (linear overall, and from
        the facts kept at replay: no line is parsed here)."""
        events = self._events = state.events
        called, answered = self._called, self._answered
        targets = state.message_events
        new = targets[self._seen :]
        facts = events.facts
        for at, pairs, tcid in facts.call_facts(new):
            if pairs:
                for cid, _name in facts.calls(at):
                    called[cid] = at
            if tcid is not None:
                self.answer_count += 1
                before = answered.get(tcid)
                if before is None:
                    answered[tcid] = at
                elif isinstance(before, int):
                    answered[tcid] = [before, at]
                else:
                    before.append(at)
        self._seen = len(targets)

    def __len__(self) -> int:
        return len(self._called)

    def __contains__(self, cid: object) -> bool:
        return cid in self._called

    def ids(self) -> Iterator[str]:
        """Every call id an assistant message asked for, in order of first asking."""
        return iter(self._called)

    def answer_events(self, cid: str) -> list[int]:
        """The events of the tool messages answering ``cid``, in file order."""
        found = self._answered.get(cid)
        if found is None:
            return []
        return [found] if isinstance(found, int) else list(found)

    def answer_ids(self, cid: str) -> list[str]:
        """The ids of the tool messages answering ``cid``."""
        if self._events is None:
            return []
        ids = self._events.ids
        return [ids[at] for at in self.answer_events(cid)]

    def ref(self, cid: str) -> ToolCallRef | None:
        """The call ``cid`` as the (last) assistant message asking for it made it."""
        at = self._called.get(cid)
        if at is None or self._events is None:
            return None
        name = ""
        for call_id, call_name in self._events.facts.calls(at):
            if call_id == cid:
                name = call_name
        return ToolCallRef(cid, name, self._events.ids[at], at, self.answer_ids(cid))


def op_row(op: dict[str, Any], calls: CallIndex) -> ToolOpRow:
    """The row of one dispatched operation."""
    cid = op.get("call-id", "")
    answers = calls.answer_ids(cid)
    ref = calls.ref(cid)
    return ToolOpRow(
        state=call_state(op, bool(answers)),
        call_id=cid,
        tool=op.get("tool", ""),
        op_id=op.get("op-id"),
        round=op.get("round"),
        run_id=op.get("run-id"),
        idempotency=op.get("idempotency"),
        dispatched_at=op.get("dispatched-at"),
        settled_at=op.get("settled-at"),
        outcome=op.get("outcome"),
        reason=op.get("reason"),
        duration=op.get("duration"),
        error=op.get("error"),
        artifact=op.get("artifact") if isinstance(op.get("artifact"), dict) else None,
        arguments=op.get("arguments"),
        answer_ids=answers,
        message_id=ref.message_id if ref else None,
    )


def call_row(state: ReplayState, ref: ToolCallRef) -> ToolOpRow:
    """The row of a call no operation was dispatched for."""
    return ToolOpRow(
        state=call_state(None, bool(ref.answer_ids)),
        call_id=ref.call_id,
        tool=ref.name,
        arguments=call_arguments(state, ref),
        answer_ids=list(ref.answer_ids),
        message_id=ref.message_id,
    )


class OpRows:
    """The tool-operations table: every operation in file order, then the calls never
    dispatched, in order of asking. A row is built when asked for (a big file has
    100,000s); ``update`` after each replay catches up in time linear in what is new.
    """

    def __init__(self, state: ReplayState, calls: CallIndex) -> None:
        self.state = state
        self.calls = calls
        self._dispatched: set[str] = set()
        self._waiting: dict[str, None] = {}  # calls asked for and not dispatched, in order
        self._waiting_list: list[str] = []
        self._ops_seen = 0
        self._calls_seen = 0
        self._cache: dict[int, ToolOpRow] = {}

    def update(self) -> None:
        """Take in the operations and calls replayed since the last call; rows already
        built are built again when next asked for (a settle changes one)."""
        call_ids = self.state.tool_ops.call_ids
        for position in range(self._ops_seen, len(call_ids)):
            cid = call_ids[position]
            self._dispatched.add(cid)
            self._waiting.pop(cid, None)
        self._ops_seen = len(call_ids)
        for cid in islice(self.calls.ids(), self._calls_seen, None):
            if cid not in self._dispatched:
                self._waiting[cid] = None
        self._calls_seen = len(self.calls)
        self._waiting_list = list(self._waiting)
        self._cache.clear()

    def __len__(self) -> int:
        return self._ops_seen + len(self._waiting_list)

    def __getitem__(self, index: int) -> ToolOpRow:
        found = self._cache.get(index)
        if found is None:
            if not 0 <= index < len(self):
                raise IndexError(index)
            if index < self._ops_seen:
                found = op_row(self.state.tool_ops[index], self.calls)
            else:
                ref = self.calls.ref(self._waiting_list[index - self._ops_seen])
                assert ref is not None
                found = call_row(self.state, ref)
            if len(self._cache) >= 1024:
                self._cache.clear()
            self._cache[index] = found
        return found

    def index_of(self, row: ToolOpRow) -> int | None:
        """Where ``row``'s operation (or, undispatched, its call) is now."""
        if row.op_id is not None:
            return self.state.operation_index(row.op_id)
        if row.call_id in self._waiting:
            return self._ops_seen + self._waiting_list.index(row.call_id)
        # Dispatched since: its operation's row, near the end.
        call_ids = self.state.tool_ops.call_ids
        for index in range(self._ops_seen - 1, -1, -1):
            if call_ids[index] == row.call_id:
                return index
        return None


def call_arguments(state: ReplayState, ref: ToolCallRef) -> str:
    """The arguments an assistant message gave one of its tool calls (read on demand)."""
    calls = payload_of(state.events[ref.event]).get("tool-calls")
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict) and str(call.get("id") or "") == ref.call_id:
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            return str(function.get("arguments") or "")
    return ""
