"""Calls launched in the background, and Workflow runs' agent files.

A background ``Agent`` (``run_in_background``) or a ``Workflow`` is answered at once,
``toolUseResult {"status": "async_launched", …}``: the call only started its subagent
(calls.LAUNCHED), which works on in its own file and reports later in a
``<task-notification>``. What became of the call is that file's to say: running while
its last turn is open, completed (in the time its turns took) once it finished, and not
known where the file is not there or was not read. An agent team's teammate spawn is
one too (``teammates``: its reply ends it where its file was not read).

A Workflow's agents write ``<sessionId>/subagents/workflows/<runId>/agent-*.jsonl``
(later 2.1.x), the run named by the Workflow call's result (``runId``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...model import Subagent, Transcript
from ...times import seconds_between
from ...tool_ops import OpState
from .call_ops import ClaudeOps

if TYPE_CHECKING:
    from .subagents import FileRead

# What a subagent's file says of its run: its last turn's state (None: no turn yet),
# when its first turn started and its last ended.
Outcome = tuple[str | None, str | None, str | None]
# A launched call's subagents' outcomes (None: a file not read), by the call's index
Settled = dict[int, list[Outcome | None]]

MAX_RUNS = 1000  # Workflow run folders of a session looked in


def outcome_of(read: Transcript) -> Outcome:
    runs = read.runs
    if not runs:
        return None, None, None
    return runs[-1].state, runs[0].started, runs[-1].ended


def workflow_folders(subagents: Path) -> list[Path]:
    """The run folders of ``subagents/workflows/`` (none where it is not there)."""
    root = subagents / "workflows"
    try:
        if not root.is_dir():
            return []
        runs = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return []
    return runs[:MAX_RUNS]


def workflow_files(subagents: Path) -> list[tuple[str, str]]:
    """Each Workflow run's agent files: (its runId, the file's path), in order."""
    out: list[tuple[str, str]] = []
    for run in workflow_folders(subagents):
        try:
            names = sorted(p.name for p in run.glob("agent-*.jsonl"))
        except OSError:
            continue
        out.extend((run.name, os.path.join(run, name)) for name in names)
    return out


def settle(
    transcript: Transcript,
    subagents: Iterable[tuple[Subagent, FileRead | None]],
) -> Settled:
    """Settle each launched call of ``transcript`` by its subagents' files (each with
    what its read found, None: not read); what they said, to settle a later snapshot
    the same way (``apply``: by its writer, alive or not)."""
    ops = transcript.tool_operations
    if not isinstance(ops, ClaudeOps):
        return {}
    launched = ops.launched()
    if not launched:
        return {}
    found: dict[int, list[Outcome | None]] = {}
    for sub, read in subagents:
        at = launched.get(sub.call_id) if sub.call_id is not None else None
        if at is not None:
            found.setdefault(at, []).append(read.outcome if read is not None else None)
    apply(transcript, found)
    return found


def apply(transcript: Transcript, settled: Mapping[int, Sequence[Outcome | None]]) -> None:
    """Settle the launched calls by their files' outcomes; a teammate's spawn none of
    whose files was read, by its teammate's reply (``teammates.replies``: the file's
    lines, current even where ``settled`` was found for an earlier snapshot)."""
    ops = transcript.tool_operations
    if isinstance(ops, ClaudeOps):
        replied = ops.replied()
        for at in {*settled, *replied}:
            outcomes: Sequence[Outcome | None] = settled.get(at, ())
            reply = replied.get(at)
            if reply is not None and all(o is None for o in outcomes):
                outcomes = [reply]
            if at < len(ops):
                ops.settle(at, *_state(outcomes, transcript.writer_alive))


def _state(
    outcomes: Sequence[Outcome | None], writer_alive: bool | None
) -> tuple[OpState, float | None, bool]:
    """A launched call's state by its subagents' files, its duration, and whether the
    user stopped it: outcome unknown where one was not read (not there, over the bound);
    running while one is still at work (its file has no turn yet, or its last is open),
    interrupted where its writer is gone (a background agent runs in its session's
    process: cut off); failed where one ended so; interrupted where one was cut off, or
    the user stopped it (its last turn aborted: stopped, where none was cut off); else
    completed, from the first's start to the last's end."""
    if any(o is None for o in outcomes):
        return "outcome-unknown", None, False
    states = {o[0] for o in outcomes if o is not None}
    if None in states or "running" in states:
        return ("interrupted" if writer_alive is False else "running"), None, False
    if "failed" in states:
        return "failed", None, False
    if states & {"interrupted", "aborted"}:
        return "interrupted", None, "interrupted" not in states
    starts = [o[1] for o in outcomes if o is not None and o[1]]
    ends = [o[2] for o in outcomes if o is not None and o[2]]
    took = seconds_between(min(starts), max(ends)) if starts and ends else None
    return "completed", took, False


__all__ = ["Outcome", "Settled", "apply", "outcome_of", "settle", "workflow_files"]
