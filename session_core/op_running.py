"""How long a call not answered had been running: a lower bound. As far as its file shows
(it may have run on after the file's last line, or died with it); and, for one running
while its writer is known to be at work (the viewer sees its lock or its open file), to
now: the call is running still."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from .model import Run, Transcript, unsettled_ops
from .text import duration_in, duration_text
from .times import epoch, seconds_between
from .tool_ops import ToolOp

UNANSWERED = ("running", "interrupted")
# States of a call answered that has no end (v1's: its settle never written).
ANSWERED_UNSETTLED = ("unsettled-answered", "not-settled-yet", "undispatched-answered")
BOUND_SAYS_SOMETHING = 0.01  # seconds: a lower bound under it says nothing (``≥0s``)


@dataclass(frozen=True, slots=True)
class RanAtLeast:
    """A call ran at least ``seconds``: from its start to ``ts``, the time of the last line
    that shows it not answered (``line``; None where not known), or the time it was
    looked at, its writer at work (``now``), or, one answered that never ended
    (``answered``), the time of its answer (``line``: the answer's)."""

    seconds: float
    ts: str
    line: int | None
    now: bool = False
    answered: bool = False

    @property
    def text(self) -> str:
        """``≥25.8s`` (``duration_text``, marked as a lower bound; under 0.01 s, ``≥0s``)."""
        return f"≥{duration_text(self.seconds if self.seconds >= 0.01 else 0)}"

    def text_in(self, cells: int) -> str:
        """``text`` in ``cells`` (``duration_in``: ``≥232d``, never a number cut)."""
        return duration_in(self.seconds if self.seconds >= 0.01 else 0, cells, "≥")


def ran_at_least(
    op: ToolOp, runs: Sequence[Run], last_time: str | None, now: float | None = None
) -> RanAtLeast | None:
    """How long ``op``, running or interrupted with no duration, had run at least: from
    its start to its turn's last line (a turn cut off ends at the file's last line, a turn
    a later prompt ended at the line before it), or to ``last_time`` (the file's last
    line's) for a turn still going; None where a time is not known.

    ``now`` (seconds since the epoch): its writer is known to be at work at that time (a
    lock or an open file seen, not a recent change alone), so a call running then has
    run from its start till now, in whole seconds (a bound: never rounded up), where that
    is longer. Without it (a snapshot, ``check``'s, an export's; a writer gone, whose
    calls' ends are not known past the last line) the file's bound alone.

    A call answered that never ended (``ANSWERED_UNSETTLED``) ran at least till its
    answer (its settle, which times it, comes after): None where either time is not
    known (a call never dispatched has no start)."""
    # (the state first: every operation of a format that cannot say which are open
    # comes here, and a lazy one's duration is read from its lines)
    if op.state in ANSWERED_UNSETTLED and op.duration is None:
        if op.answered is None:
            return None
        return bound_between(op.started, op.answered, op.result_line, answered=True)
    if op.state not in UNANSWERED or op.duration is not None:
        return None
    shown = _shown(op, runs, last_time)
    start = epoch(op.started) if now is not None and op.state == "running" else None
    if start is not None and now is not None and now - start >= 1:
        seconds = float(int(now - start))
        if shown is None or seconds > shown.seconds:
            stamp = datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds")
            return RanAtLeast(seconds, stamp.replace("+00:00", "Z"), None, now=True)
    return shown


def op_took(op: ToolOp) -> float | None:
    """How long ``op`` took, one rule for every kind of operation: its writer's timing,
    else from its start to its end as its lines' times say (a v1 settle with no
    ``duration``); None where not ended, or where its call was written once it was done
    (a Codex ``web_search_call``: one line, its time both its start and its end, so 0 s
    between them would time nothing)."""
    if op.duration is not None:
        return op.duration
    if op.ended is None or op.one_line():
        return None
    return seconds_between(op.started, op.ended)


def not_timed(op: ToolOp) -> str | None:
    """Why how long ``op`` took is not known though it ended or was answered (None: it
    is known, ``op_took``, or it has not ended): it then says ``?``, never a blank, which
    reads as a column not filled."""
    if (op.ended is None and op.state not in ANSWERED_UNSETTLED) or op_took(op) is not None:
        return None
    if op.one_line():
        return "its call was written once it was done: its start is not in the file"
    return "its start is not in the file" if op.started is None else "the file does not time it"


def took_said(op: ToolOp, cells: int | None = None) -> str:
    """How long ``op`` took as a cell says it, the viewer's table and the exports alike:
    ``op_took`` (``duration_text``; in ``cells``, ``duration_in``), ``?`` where the file
    does not time one ended (``not_timed``), else "" (not ended)."""
    seconds = op_took(op)
    took = duration_text(seconds) if cells is None else duration_in(seconds, cells)
    return "?" if not took and not_timed(op) else took


def _shown(op: ToolOp, runs: Sequence[Run], last_time: str | None) -> RanAtLeast | None:
    """``ran_at_least`` as far as the file shows."""
    run = _run(runs, op.run_id)
    if run is not None and run.ended:
        ts, line = run.ended, run.end_line
    elif last_time:
        ts, line = last_time, None
    else:
        return None
    return bound_between(op.started, ts, line)


def bound_between(
    start: str | None, end: str, line: int | None, answered: bool = False
) -> RanAtLeast | None:
    """A call ran at least from ``start`` to ``end`` (times as written; ``line``: the
    line ``end`` is of): None where that is not known, or says nothing (under 0.01 s: a
    "≥0s" read as a time it took, one surface said it where another left it blank)."""
    seconds = seconds_between(start, end)
    if seconds is None or seconds < BOUND_SAYS_SOMETHING:
        return None
    return RanAtLeast(seconds, end, line, answered=answered)


def ran_by_call(
    transcript: Transcript, now: float | None = None
) -> dict[tuple[str, int], RanAtLeast]:
    """``ran_at_least`` of each call of the file not answered, by its call id and line
    (``now``: its writer known at work then)."""
    runs, last = transcript.runs, transcript.last_time()
    out: dict[tuple[str, int], RanAtLeast] = {}
    for op in unsettled_ops(transcript.tool_operations):
        ran = ran_at_least(op, runs, last, now)
        if ran is not None:
            out[(op.call_id, op.line)] = ran
    return out


def _run(runs: Sequence[Run], run_id: str | None) -> Run | None:
    """The run of id ``run_id``, looked for from the last (a call not answered is of a
    late one, mostly; v1's runs are each made when asked for)."""
    if run_id is None:
        return None
    for index in range(len(runs) - 1, -1, -1):
        run = runs[index]
        if run.id == run_id:
            return run
    return None


__all__ = [
    "RanAtLeast",
    "bound_between",
    "not_timed",
    "op_took",
    "ran_at_least",
    "ran_by_call",
    "took_said",
]
