"""What a run's writer left in flight, in one wording for every surface: ``check``'s note,
the browser's row and its line under the table, the viewer's header and the exports'
summary. A user reading a crashed file needs to know what was in flight when its run
died: the tool calls (an agentgo file's model calls too) that have no result, and the
runs not finished; where the writer may still be at work, the same work is *running*.

Work that ended is not in it: a call the user interrupted (its result says so), a run
the user stopped (aborted) and its calls, a run that failed (its loop said it ended). A
call whose result only launched it in the background (a background agent, a teammate)
is not ended by that result: while its subagent had not finished when the writer went,
it is in flight (``background tool call not finished``), never stopped by the user."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .text import count

if TYPE_CHECKING:
    from .agentgo.view import AgentGoView
    from .model import ToolOp, Transcript


# The exports' summary row that says it (the header's and ``check``'s words after it)
IN_FLIGHT = "in flight"


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

    def said(self) -> list[str]:
        """``2 tool calls without a result``, ``1 run not finished`` (cut off), and
        ``1 tool call running``, ``1 run running`` (its writer may be at work): each part
        there is, calls first (what was being done), then the runs they were in."""
        parts = [
            (self.calls, "tool call", "without a result"),
            (self.calls_running, "tool call", "running"),
            (self.launched, "background tool call", "not finished"),
            (self.model_calls, "model call", "without a response"),
            (self.model_calls_running, "model call", "running"),
            (self.runs, "run", "not finished"),
            (self.runs_running, "run", "running"),
        ]
        return [f"{count(n, noun)} {state}" for n, noun, state in parts if n]

    @property
    def running(self) -> bool:
        """Is any of it running (its writer may be at work)?"""
        return bool(self.calls_running or self.model_calls_running or self.runs_running)

    def __bool__(self) -> bool:
        return bool(self.calls or self.launched or self.model_calls or self.runs or self.running)


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
    return open_work_said(open_work(transcript))


def open_work_said(work: OpenWork, also: Sequence[str] = ()) -> str | None:
    """The open work in words, one part after another with ``also`` (an unfinished last
    line), as the browser's row gives it: None where nothing was left open."""
    return "; ".join([*work.said(), *also]) or None


__all__ = [
    "IN_FLIGHT",
    "NOT_FINISHED",
    "STOPPED",
    "OpenWork",
    "aborted_runs",
    "agentgo_open_work",
    "call_said",
    "in_flight_said",
    "interrupted_said",
    "open_work",
    "open_work_said",
    "stopped_by_user",
]
