"""A file's end read alone (a big file's first screen) names no line of the file.

Its lines are counted from the window's first, not the file's, until the whole file is
read: every line number of its model is made 0, the model's "not known" (an item's
``line`` 0 is already that). A number that was None (no result, no progress line, a run
not ended) stays None: what is known of the operation or run is kept, only where it is
is not. The surfaces show a line only where it is not 0.
"""

from __future__ import annotations

import itertools

from .model import Transcript


def lines_not_known(transcript: Transcript) -> Transcript:
    """``transcript`` (a window's own, made for it: changed in place), its line numbers
    0: its items', tool operations', runs', run contexts', compactions' and subagents'.
    A sequence that makes its members when asked for is made into a list once (a
    window holds a few hundred of each), so that what is set is what is shown."""
    every, messages = list(transcript.raw), list(transcript.messages)
    for item in itertools.chain(every, messages):
        item.line = 0
    transcript.raw, transcript.messages = every, messages
    ops = list(transcript.tool_operations)
    for op in ops:
        op.line = 0
        op.result_line = _unknown(op.result_line)
        op.subagent_line = _unknown(op.subagent_line)
        op.progress_line = _unknown(op.progress_line)
    transcript.tool_operations = ops
    runs = list(transcript.runs)
    for run in runs:
        run.line, run.end_line = 0, _unknown(run.end_line)
        if run.context is not None:
            run.context.line = 0
    transcript.runs = runs
    compactions = list(transcript.compactions)
    for compaction in compactions:
        compaction.line = 0
    transcript.compactions = compactions
    for subagent in transcript.subagents:
        subagent.line = _unknown(subagent.line)
    transcript.lines = 0
    return transcript


def _unknown(line: int | None) -> int | None:
    """A line that is there (its number not known): 0; none: None."""
    return None if line is None else 0


__all__ = ["lines_not_known"]
