"""What a run's writer left in flight, in one wording for every surface: ``check``'s note,
the browser's row and its line under the table, the viewer's header and the exports'
summary. A user reading a crashed file needs to know what was in flight when its run
died: the tool calls (an agentgo file's model calls too) that have no result, and the
runs not finished; where the writer may still be at work, the same work is *running*.

Work that ended is not in it: a call the user interrupted (its result says so), a run
the user stopped (aborted) and its calls, a run that failed (its loop said it ended). A
call whose result only launched it in the background (a background agent, a teammate)
is not ended by that result: while its subagent had not finished when the writer went,
it is in flight (``background tool call not finished``), never stopped by the user.

A transcript-v1 file's is said by its own records (``dispatched_work``): its operations
dispatched and not settled, each by its state as the Tools tab labels it (``2 tool
operations pending (1 interrupted and 1 completed, settle never landed)``: the header's ``(1
interrupted)`` is one of them, in its words), the calls no dispatch line names, and a
file that ends on no answer of the model's (``cut off: …``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .text import count
from .tool_ops import state_label

if TYPE_CHECKING:
    from .agentgo.view import AgentGoView
    from .model import ToolOp, Transcript


# The exports' summary row that says it (the header's and ``check``'s words after it)
IN_FLIGHT = "in flight"

# A v1 operation's states while dispatched and not settled (what "pending" counts), in
# the order its parenthesis names them; and a call's that no dispatch line names.
PENDING_STATES = ("running", "interrupted", "unsettled-answered", "not-settled-yet")
UNDISPATCHED_STATES = ("never-dispatched", "not-dispatched-yet")
AT_WORK_STATES = frozenset({"running", "not-settled-yet", "not-dispatched-yet"})  # (writer at work)
# How a v1 file that ends on no answer of the model's stands (``ops.unanswered_end``)
CUT_OFF_SAID = {
    "interrupted": "cut off: its last message is no answer of the model's",
    "running": "ends on no answer of the model's: its writer may still be at work",
}


@dataclass(frozen=True, slots=True)
class OpenWork:
    """Counts of work in flight: cut off (the writer gone, or its run ended without it),
    or running (its writer may still be at work)."""

    calls: int = 0  # tool calls without a result, cut off
    calls_running: int = 0  # ...with none yet, their writer may be at work
    launched: int = 0  # tool calls launched in the background, their subagent cut off
    model_calls: int = 0  # model calls without a response (agentgo's), cut off
    model_calls_running: int = 0
    runs: int = 0  # runs not finished, cut off
    runs_running: int = 0
    # transcript-v1's (``dispatched_work``): its operations dispatched and not settled,
    # and of them how many in each state (empty: not told, a browser row's window's)
    pending: int = 0
    pending_states: tuple[tuple[str, int], ...] = ()
    undispatched: tuple[tuple[str, int], ...] = ()  # calls no dispatch line names, by state
    cut_off: str | None = None  # ends on no answer of the model's: interrupted, or running

    def said(self) -> list[str]:
        """``2 tool calls without a result``, ``1 run not finished`` (cut off), and
        ``1 tool call running``, ``1 run running`` (its writer may be at work): each part
        there is, calls first (what was being done), then the runs they were in; a v1
        file's operations pending, its calls not dispatched and its end cut off."""
        parts = [
            (self.calls, "tool call", "without a result"),
            (self.calls_running, "tool call", "running"),
            (self.launched, "background tool call", "not finished"),
            (self.model_calls, "model call", "without a response"),
            (self.model_calls_running, "model call", "running"),
            (self.runs, "run", "not finished"),
            (self.runs_running, "run", "running"),
        ]
        said = [f"{count(n, noun)} {state}" for n, noun, state in parts if n]
        if self.pending:
            # (" and ": a ";" ends ``check``'s first part, and a label may hold a comma)
            states = " and ".join(f"{n:,} {state_label(s)}" for s, n in self.pending_states if n)
            states = f" ({states})" if states else ""
            said.append(f"{count(self.pending, 'tool operation')} pending{states}")
        said += [f"{count(n, 'call')} {state_label(s)}" for s, n in self.undispatched if n]
        if self.cut_off is not None:
            said.append(CUT_OFF_SAID[self.cut_off])
        return said

    @property
    def running(self) -> bool:
        """Is any of it running (its writer may be at work)?"""
        states = (*self.pending_states, *self.undispatched)  # (v1's: those yet to be written)
        at_work = self.cut_off == "running" or any(s in AT_WORK_STATES for s, _n in states)
        return bool(self.calls_running or self.model_calls_running or self.runs_running or at_work)

    def __bool__(self) -> bool:
        ended = self.calls or self.launched or self.model_calls or self.runs
        return bool(ended or self.pending or self.undispatched or self.cut_off or self.running)


def dispatched_work(
    pending: Mapping[str, int], calls: Mapping[str, int], cut_off: str | None
) -> OpenWork:
    """A transcript-v1 file's open work from how many of its operations dispatched and
    not settled (``pending``) and of its calls no dispatch line names (``calls``) are in
    each state, as ``replay`` lists them (``check``'s count, or the viewer's snapshot's:
    ``ops.open_states``), and how its end stands (``cut_off``: ``ops.unanswered_end``,
    None where it ends on an answer). A call not dispatched that runs (its dispatch the
    next line its writer writes) is no call left open: its run's end says it."""
    return OpenWork(
        pending=sum(pending.get(s, 0) for s in PENDING_STATES),
        pending_states=tuple((s, pending[s]) for s in PENDING_STATES if pending.get(s)),
        undispatched=tuple((s, calls[s]) for s in UNDISPATCHED_STATES if calls.get(s)),
        cut_off=cut_off,
    )


def open_work(transcript: Transcript, head: int = 0) -> OpenWork:
    """What a model transcript's writer left in flight, past a windowed read's ``head``
    lines: tool calls without a result in a run the user did not stop (one whose result
    says it was interrupted, Esc during a call, or in an aborted turn, was stopped, not
    cut off; one running with a result that only launched it in the background is in
    flight still), and runs not finished (a fork's copied run is its parent's; a
    windowed read's last run is its own though it began in the head)."""
    from .model import unsettled_ops

    last_run = transcript.runs[-1] if transcript.runs else None
    aborted = aborted_runs(transcript)
    calls = [
        "launched" if op.launched and op.state == "interrupted" else op.state
        for op in unsettled_ops(transcript.tool_operations)
        if op.state in ("running", "interrupted")
        and not _stopped(op, aborted)
        and (op.line or 0) > head
    ]
    runs = [
        r.state
        for r in transcript.runs
        if r.state in ("running", "interrupted")
        and not r.copied
        and ((r.line or 0) > head or r is last_run)
    ]
    return OpenWork(
        calls=calls.count("interrupted"),
        calls_running=calls.count("running"),
        launched=calls.count("launched"),
        runs=runs.count("interrupted"),
        runs_running=runs.count("running"),
    )


def aborted_runs(transcript: Transcript) -> set[str]:
    """The runs the user stopped (their calls ended with them; ``call_said``'s
    ``aborted``: found once for many calls)."""
    return {r.id for r in transcript.runs if r.state == "aborted"}


def _stopped(op: ToolOp, aborted: AbstractSet[str]) -> bool:
    """Did the user stop this call (its result says it was interrupted, or its run was
    aborted)? It ended then: no work in flight, whatever its state. A result that only
    launched it says no such thing: its subagent's file says it was cut off."""
    if op.run_id in aborted:
        return True
    return op.state == "interrupted" and op.result_line is not None and not op.launched


def stopped_by_user(transcript: Transcript) -> int:
    """How many tool operations *interrupted* (the Tools tab's state) the user stopped:
    ended, so not among the calls ``open_work`` counts in flight."""
    from .model import unsettled_ops

    aborted = aborted_runs(transcript)
    return sum(
        op.state == "interrupted" and _stopped(op, aborted)
        for op in unsettled_ops(transcript.tool_operations)
    )


# How a subagent's interrupted call ended: the user stopped it, or it was cut off
STOPPED, NOT_FINISHED = "interrupted by the user", "not finished"


def call_said(op: ToolOp, aborted: AbstractSet[str]) -> str:
    """The state of a call that started a subagent, as the Subagents tab and the exports'
    Subagents table say it: an interrupted one the user stopped (its result says so, or
    its turn was aborted) ``interrupted by the user``, ended; one cut off (no result, its
    writer gone) ``not finished``, in flight as ``open_work`` counts it; any other by its
    label. ``aborted``: ``aborted_runs``."""
    if op.state != "interrupted":
        return op.label
    return STOPPED if _stopped(op, aborted) else NOT_FINISHED


def interrupted_said(interrupted: int, by_user: int) -> str:
    """The count of tool operations in the state *interrupted* (as the Tools tab labels
    them) saying those the user stopped, which are not in flight: ``2 interrupted, 1 of
    them by the user`` beside ``in flight: 1 tool call without a result`` (a bare ``2
    interrupted`` there read as a contradiction)."""
    if not by_user:
        return f"{interrupted:,} interrupted"
    if by_user == interrupted:
        return f"{interrupted:,} interrupted by the user"
    return f"{interrupted:,} interrupted, {by_user:,} of them by the user"


def agentgo_open_work(view: AgentGoView) -> OpenWork:
    """An agentgo view's: its calls without their terminal event (a gap), model calls
    apart from tool calls, running while their run is being written; its runs without
    ``run_close``, running while open (``AgentGoView.run_status``), a failed one too."""
    from .usage import is_model_call

    calls = [
        (is_model_call(c), view.call_state(c)) for c in view.calls.values() if c.status == "gap"
    ]
    runs = [view.run_status(run_id) for run_id in view.run_order]
    return OpenWork(
        calls=calls.count((False, "gap")),
        calls_running=calls.count((False, "running")),
        model_calls=calls.count((True, "gap")),
        model_calls_running=calls.count((True, "running")),
        runs=runs.count("interrupted"),
        runs_running=runs.count("open"),
    )


def in_flight_said(transcript: Transcript) -> str | None:
    """A model transcript's open work in words (None: nothing left in flight)."""
    return open_work_said(transcript_work(transcript))


def transcript_work(transcript: Transcript) -> OpenWork:
    """A transcript's open work: what its format's own read found (``Transcript.left_open``,
    v1's), else what its operations and runs say (``open_work``)."""
    found = transcript.left_open
    return found if isinstance(found, OpenWork) else open_work(transcript)


def open_work_said(work: OpenWork, also: Sequence[str] = ()) -> str | None:
    """The open work in words, one part after another with ``also`` (an unfinished last
    line), as the browser's row gives it: None where nothing was left open."""
    return "; ".join([*work.said(), *also]) or None


__all__ = [
    "CUT_OFF_SAID",
    "IN_FLIGHT",
    "NOT_FINISHED",
    "PENDING_STATES",
    "STOPPED",
    "UNDISPATCHED_STATES",
    "OpenWork",
    "aborted_runs",
    "agentgo_open_work",
    "call_said",
    "dispatched_work",
    "in_flight_said",
    "interrupted_said",
    "open_work",
    "open_work_said",
    "stopped_by_user",
    "transcript_work",
]
