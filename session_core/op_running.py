"""How long a call not answered had been running, as far as its file shows: a lower bound
(it may have run on after the file's last line, or died with it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import Run, Transcript, unsettled_ops
from .text import duration_text
from .times import seconds_between
from .tool_ops import ToolOp

UNANSWERED = ("running", "interrupted")


@dataclass(frozen=True, slots=True)
class RanAtLeast:
    """A call ran at least ``seconds``: from its start to ``ts``, the time of the last line
    that shows it not answered (``line``; None where not known)."""

    seconds: float
    ts: str
    line: int | None

    @property
    def text(self) -> str:
        """``≥25.8s`` (``duration_text``, marked as a lower bound; under 0.01 s, ``≥0s``)."""
        return f"≥{duration_text(self.seconds if self.seconds >= 0.01 else 0)}"


def ran_at_least(op: ToolOp, runs: Sequence[Run], last_time: str | None) -> RanAtLeast | None:
    """How long ``op``, running or interrupted with no duration, had run at least: from
    its start to its turn's last line (a turn cut off ends at the file's last line, a turn
    a later prompt ended at the line before it), or to ``last_time`` (the file's last
    line's) for a turn still going; None where a time is not known."""
    if op.state not in UNANSWERED or op.duration is not None:
        return None
    run = _run(runs, op.run_id)
    if run is not None and run.ended:
        ts, line = run.ended, run.end_line
    elif last_time:
        ts, line = last_time, None
    else:
        return None
    seconds = seconds_between(op.started, ts)
    return None if seconds is None or seconds < 0 else RanAtLeast(seconds, ts, line)


def ran_by_call(transcript: Transcript) -> dict[tuple[str, int], RanAtLeast]:
    """``ran_at_least`` of each call of the file not answered, by its call id and line."""
    runs, last = transcript.runs, transcript.last_time()
    out: dict[tuple[str, int], RanAtLeast] = {}
    for op in unsettled_ops(transcript.tool_operations):
        ran = ran_at_least(op, runs, last)
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


__all__ = ["RanAtLeast", "ran_at_least", "ran_by_call"]
