"""A browser row (``scan.FileSummary``) from the neutral model, for every model format."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from .column_items import messages_written
from .line_warnings import KEPT, UNFINISHED
from .model import Item, Transcript, unsettled_ops
from .text import count, prompt_title

if TYPE_CHECKING:
    from .formats.builders import Builder
    from .scan import FileSummary


def summarise_model(
    summary: FileSummary, transcript: Transcript, *, running_total: bool = False
) -> None:
    """Counts, usage and the crash reason of a row; scaled when the row is ``estimated``,
    but for usage that is the writer's ``running_total`` (whole even in the tail: its
    first response there is priced as the difference from the head's last, the unread
    middle with it)."""
    meta = transcript.meta
    # (by the lines before the last: a huge last line is one line, not a measure)
    read, longest = transcript.extra.get("bytes-read", summary.size), summary.last_line_size
    if read > longest:
        scale = (summary.size - longest) / (read - longest)
    else:
        scale = summary.size / max(read, 1)
    cwd = _text(meta.get("cwd"))
    project = os.path.basename(cwd.rstrip("/")) if cwd else None
    summary.agent = project or _text(meta.get("agent") or meta.get("originator"))
    summary.title = _text(meta.get("title")) or _first_prompt(transcript)
    summary.model = _text(meta.get("model"))
    summary.started = _text(meta.get("started") or meta.get("timestamp")) or summary.started
    first = _stamp(transcript.raw, range(len(transcript.raw)))
    if first is not None:
        summary.started = summary.started or first
        summary.last_ts = _stamp(transcript.raw, range(len(transcript.raw) - 1, -1, -1))
    messages = messages_written(transcript.raw)
    summary.messages = round(messages * scale)
    summary.tool_calls = round(len(transcript.tool_operations) * scale)
    usage = transcript.usage_with_subagents or transcript.usage
    tokens = usage.tokens
    usage_scale = 1 if running_total else scale
    summary.tokens = None if tokens is None else round(tokens * usage_scale)
    summary.cost = None if usage.cost is None else usage.cost * usage_scale
    summary.tokens_partial, summary.cost_partial = usage.tokens_partial, usage.cost_partial
    summary.parent = transcript.parent
    linked = [
        (os.path.abspath(s.path), s.counted)
        for s in transcript.subagents
        if s.path is not None and not s.in_file
    ]
    summary.subagents = tuple(path for path, _read in linked)
    summary.counted = tuple(path for path, counted in linked if counted)
    if not all(s.counted for s in transcript.subagents):  # (a subagent's usage not counted)
        summary.tokens_partial = summary.tokens is not None
        summary.cost_partial = summary.cost is not None
    if transcript.subagents:
        summary.with_subagents = transcript.with_subagents_text()
        summary.tokens_alone = transcript.usage.tokens is None
        summary.cost_alone = transcript.usage.cost is None
    # A big file's head and tail alone (``windowed_model``): a call or a turn of the head
    # that is cut off may have ended in the middle not read (a later prompt in the tail
    # said it never would): not told as a crash. The last turn is the file's own.
    head = transcript.extra.get("head-lines", 0)
    last_run = transcript.runs[-1] if transcript.runs else None
    # Left open: no result, in a run the user did not stop. One with a result that says
    # it was interrupted (Esc during a call), or in an aborted turn, was stopped, not cut off.
    aborted = {r.id for r in transcript.runs if r.state == "aborted"}
    unfinished = [
        op
        for op in unsettled_ops(transcript.tool_operations)
        if op.state in ("running", "interrupted")
        and op.result_line is None
        and op.run_id not in aborted
        and (op.line or 0) > head
    ]
    summary.pending = len(unfinished)
    summary.crash_tail = any(KEPT in w or UNFINISHED in w for w in transcript.warnings[-1:])
    why = []
    if unfinished:
        why.append(
            f"{len(unfinished)} tool call{'s' if len(unfinished) != 1 else ''} without a result"
        )
    open_runs = [
        r
        for r in transcript.runs
        if r.state in ("running", "interrupted") and ((r.line or 0) > head or r is last_run)
    ]
    if open_runs:
        why.append(f"{count(len(open_runs), 'turn')} not finished")
    if summary.crash_tail:
        why.append("an unfinished last line")
    summary.reason = "; ".join(why) or None


def windowed_model(
    builder: Builder, summary: FileSummary, fh: IO[bytes], head: bytes, window: int
) -> Transcript:
    """A big file's model from its head's whole lines and a tail window (``estimated``)."""
    from .scan_window import tail_window

    lines = head.split(b"\n")[:-1]
    for number, raw in enumerate(lines, start=1):
        builder.take_line(raw, number)
    whole = len(head) - len(head.rsplit(b"\n", 1)[-1])  # (where its whole lines end)
    tail, _scale = tail_window(summary, fh, window, floor=whole)
    read = len(head) + len(tail)
    for number, raw in enumerate(tail.split(b"\n"), start=len(lines) + 1):
        builder.take_line(raw, number)
    transcript = builder.transcript(None)
    transcript.extra["bytes-read"] = read
    transcript.extra["head-lines"] = len(lines)
    return transcript


def _stamp(items: Sequence[Item], order: range) -> str | None:
    """The first time stamp of ``items`` taken in ``order``: the few items up to it made,
    not every one (a big file's are read again from it as they are made)."""
    for index in order:
        ts = items[index].ts
        if ts:
            return ts
    return None


def _first_prompt(transcript: Transcript) -> str | None:
    """What the first run was asked (a format knows its prompts from injected context),
    else the first user message."""
    for run in transcript.runs:
        if run.prompt and run.prompt.strip():
            return prompt_title(run.prompt)
    for item in transcript.raw:
        if item.role == "user" and item.kind == "message" and item.text.strip():
            return prompt_title(item.text)
    return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
