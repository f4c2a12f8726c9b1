"""What the panes show, computed from a replay state. Pure Python: no Textual here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from session_core.replay import ReplayState, payload_of

OpState = Literal[
    "completed",
    "failed",
    "outcome-unknown",
    "running",  # dispatched, not settled, no tool message: in flight (or died in flight)
    "unsettled-answered",  # dispatched, a tool message answers it, the settle never landed
    "never-dispatched",  # an assistant tool call with no dispatch line and no answer
    "undispatched-answered",  # a tool call answered without a dispatch line (older writers)
]

STATE_LABELS: dict[str, str] = {
    "completed": "completed",
    "failed": "failed",
    "outcome-unknown": "outcome unknown",
    "running": "running",
    "running-dead": "running when the writer died",
    "unsettled-answered": "completed, settle never landed",
    "never-dispatched": "never dispatched",
    "undispatched-answered": "answered, no dispatch record",
}


@dataclass(slots=True)
class ToolCallRef:
    """A tool call an assistant message asked for, and what answered it."""

    call_id: str
    name: str
    message_id: str  # the assistant message
    event: int  # its index in state.events (its arguments are read from there when shown)
    # Tool messages answering it: CallIndex.answers' list once one does (most calls have
    # one), a shared empty tuple until then (a list per call is 56 bytes times 100,000s).
    answer_ids: Sequence[str] = ()


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
        if self.state == "running" and not live:
            return STATE_LABELS["running-dead"]
        return STATE_LABELS[self.state]


class CallIndex:
    """Tool calls and their answers over the raw file (a compaction does not hide them)."""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCallRef] = {}
        self.order: list[str] = []
        self.answers: dict[str, list[str]] = {}  # call id -> tool message ids
        self._seen = 0

    def update(self, state: ReplayState) -> None:
        """Index the message lines added since the last call (linear overall, and from
        the facts kept at replay: no line is parsed here)."""
        events = state.events
        ids, facts = events.ids, events.facts
        targets = state.message_events
        for position in range(self._seen, len(targets)):
            at = targets[position]
            mid = ids[at]
            found = facts[at]
            assert found is not None  # a message line always has its facts
            for cid, name in found.calls:
                ref = ToolCallRef(cid, name, mid, at, self.answers.get(cid, ()))
                if cid not in self.calls:
                    self.order.append(cid)
                self.calls[cid] = ref
            tcid = found.answers
            if tcid is not None:
                answers = self.answers.setdefault(tcid, [])
                answers.append(mid)
                called = self.calls.get(tcid)
                if called is not None and called.answer_ids is not answers:
                    called.answer_ids = answers
        self._seen = len(targets)


def tool_op_rows(state: ReplayState, calls: CallIndex) -> list[ToolOpRow]:
    """Every operation in file order, then the calls that were never dispatched."""
    rows: list[ToolOpRow] = []
    dispatched: set[str] = set()
    for op in state.tool_ops:
        cid = op.get("call-id", "")
        dispatched.add(cid)
        answers = calls.answers.get(cid, [])
        if op.get("settled"):
            state_name: OpState = op.get("outcome", "outcome-unknown")
        elif answers:
            state_name = "unsettled-answered"
        else:
            state_name = "running"
        ref = calls.calls.get(cid)
        rows.append(
            ToolOpRow(
                state=state_name,
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
                answer_ids=list(answers),
                message_id=ref.message_id if ref else None,
            )
        )
    for cid in calls.order:
        if cid in dispatched:
            continue
        ref = calls.calls[cid]
        rows.append(
            ToolOpRow(
                state="undispatched-answered" if ref.answer_ids else "never-dispatched",
                call_id=cid,
                tool=ref.name,
                arguments=call_arguments(state, ref),
                answer_ids=list(ref.answer_ids),
                message_id=ref.message_id,
            )
        )
    return rows


def call_arguments(state: ReplayState, ref: ToolCallRef) -> str:
    """The arguments an assistant message gave one of its tool calls (read on demand)."""
    calls = payload_of(state.events[ref.event]).get("tool-calls")
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict) and str(call.get("id") or "") == ref.call_id:
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            return str(function.get("arguments") or "")
    return ""
