"""A browser row (``scan.FileSummary``) from the neutral model, for every model format."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from .column_items import message_count, stamps_at_ends
from .errors import TranscriptError
from .line_warnings import first_damage, torn_last_line
from .model import Transcript
from .open_work import open_work, open_work_said
from .titles import model_first_prompt, session_title
from .usage_totals import Usage
from .vocabulary import meta_fact

if TYPE_CHECKING:
    from .formats.builders import Builder
    from .scan import FileSummary, LeftOpen


def summarise_model(
    summary: FileSummary,
    transcript: Transcript,
    *,
    running_total: bool = False,
    gone: Callable[[], Transcript] | None = None,
) -> None:
    """Counts, usage and the crash reason of a row; scaled when the row is ``estimated``,
    but for usage that is the writer's ``running_total`` (whole even in the tail: its
    first response there is priced as the difference from the head's last, the unread
    middle with it). ``gone``: the same lines' model with the writer gone, asked for
    where ``transcript`` has work running."""
    meta = transcript.meta
    # (not by a huge last line: one line, not a measure; ``tail_window``)
    read, longest = transcript.extra.get("bytes-read", summary.size), summary.unmeasured
    if read > longest:
        scale = (summary.size - longest) / (read - longest)
    else:
        scale = summary.size / max(read, 1)
    fmt = transcript.format

    def fact(*names: str) -> str | None:  # (the format's meta keys for it)
        return _text(meta_fact(meta, fmt, *names))

    cwd = fact("cwd")
    project = os.path.basename(cwd.rstrip("/")) if cwd else None
    summary.agent = project or fact("agent", "client")
    # (``session_title``'s rule, its first prompt looked for only where it is needed; a
    # windowed read's, where the head held none, as looked for past it)
    summary.title = session_title(fact("title"), None) or (
        transcript.extra["first-prompt"]
        if "first-prompt" in transcript.extra
        else model_first_prompt(transcript)
    )
    # (a file that has none for a reason its format says: "summaries of other sessions")
    summary.untitled = None if summary.title else transcript.extra.get("untitled")
    summary.model = fact("model")
    summary.started = fact("started") or summary.started
    first, last = stamps_at_ends(transcript.raw, transcript.header_timed_alone)
    if last is not None:
        summary.started = summary.started or first
        summary.last_ts = last
    messages = message_count(transcript)
    summary.messages = round(messages * scale)
    summary.tool_calls = round(len(transcript.tool_operations) * scale)
    usage = transcript.usage_with_subagents or transcript.usage
    tokens = usage.tokens
    usage_scale = 1 if running_total else scale
    summary.tokens = None if tokens is None else round(tokens * usage_scale)
    summary.cost = None if usage.cost is None else usage.cost * usage_scale
    summary.tokens_partial, summary.cost_partial = usage.tokens_partial, usage.cost_partial
    # (as the header says it: its subagents', where it has any, none made or unknown too)
    summary.no_response = (
        transcript.made_no_response()
        and not summary.estimated
        and (usage is transcript.usage or usage.unrequested)
        and transcript.subagents_left_out() is None
    )
    summary.parent = transcript.parent
    # (runs whose loop ended in an error: the Runs tab's *failed*, as ``check`` counts them)
    summary.failed_runs = sum(run.state == "failed" for run in transcript.runs)
    _resumed(summary, transcript)
    linked = [
        (os.path.abspath(s.path), s.counted)
        for s in transcript.subagents
        if s.path is not None and not s.in_file
    ]
    summary.subagents = tuple(path for path, _read in linked)
    summary.counted = tuple(path for path, counted in linked if counted)
    # (a subagent's usage not counted, or counted in part: its file's read left a line out)
    # (an earlier session's, its call copied into a resumed file: not this file's missing)
    partial = usage.tokens_partial or usage.cost_partial
    summary.lower_why = ["not every response counted"] if partial else []
    left_out = transcript.subagents_left_out()
    if left_out is not None:
        summary.tokens_partial = summary.tokens is not None
        summary.cost_partial = summary.cost is not None
        summary.lower_why.append(left_out)
    if transcript.subagents:
        summary.with_subagents = transcript.with_subagents_text()
        summary.tokens_alone = transcript.usage.tokens is None
        summary.cost_alone = transcript.usage.cost is None
    # A big file's head and tail alone (``windowed_model``): a call or a turn of the head
    # that is cut off may have ended in the middle not read (a later prompt in the tail
    # said it never would): not told as a crash. The last turn is the file's own.
    head = transcript.extra.get("head-lines", 0)
    summary.crash_tail = torn_last_line(transcript.warnings, transcript.lines)
    found = left_open(transcript, head)
    summary.pending, summary.reason = found.pending, found.reason
    _refuse_damage(transcript, head)
    # Work read running (its writer may be at work) stands by the writer as of the row's
    # status, as a fresh read's would (``scan.settle_status``): as read, or as the same
    # lines read with the writer gone (finished, or left open).
    summary.running = summary.gone = None
    if found.running and gone is not None:
        summary.running, summary.gone = found, left_open(gone(), head)


def _resumed(summary: FileSummary, transcript: Transcript) -> None:
    """The file's own session id, and a resumed one's copied usage by the session it came
    from (the footer counts a copy once where that session's file is listed too)."""
    copies = transcript.resumed
    if copies is None:
        # (a subagent's file names its parent's session: not its own)
        # (a continuation file's lines carry the earlier id: ``continued-as`` its own)
        meta = transcript.meta
        own = meta.get("continued-as") or meta.get("session-id")
        own = own if transcript.parent is None else None
        summary.session = _text(own)
        summary.copied, summary.resumed = (), None
        return
    summary.session, summary.resumed = copies.own, copies.said()
    # (the row's usage holds its linked subagents': a copied call's, the earlier
    # session's, is in that session's row too, so it is part of the copy)
    copied = []
    for source, usage in copies.copied.items():
        subs = [s.usage for s in transcript.subagents if s.copied_from == source and s.counted]
        both = Usage.total([usage, *subs]) if subs else usage
        copied.append((source, both.tokens, both.cost, source in copies.forked))
    summary.copied = tuple(copied)


def left_open(transcript: Transcript, head: int = 0) -> LeftOpen:
    """What a model's writer left open, past a windowed read's ``head`` lines, in the
    one wording every surface says it in (``open_work``), and an unfinished last line;
    and whether any of it is running."""
    from .scan import LeftOpen

    work = open_work(transcript, head)
    torn = torn_last_line(transcript.warnings, transcript.lines)
    why = open_work_said(work, ["an unfinished last line"] if torn else [])
    return LeftOpen(work.calls + work.launched + work.calls_running, why, work.running)


def _refuse_damage(transcript: Transcript, head: int) -> None:
    """A line that could not be read and is not the last is damage (as ``check`` says):
    ``TranscriptError`` by its line, the row ``damaged``. A windowed read's tail lines
    are counted from the window's start, as a v1 row's are (``feed_window``)."""
    damage = first_damage(transcript.warnings, transcript.lines)
    if damage is None:
        return
    line, why = damage
    if line <= head or "tail-bytes" not in transcript.extra:
        raise TranscriptError(why, line=line)
    tail = transcript.extra["tail-bytes"]
    raise TranscriptError(f"{why} (line {line - head} of the last {tail:,} bytes read)")


def windowed_model(
    builder: Builder,
    make_builder: Callable[[], Builder],
    summary: FileSummary,
    fh: IO[bytes],
    head: bytes,
    window: int,
    prompt_bytes: tuple[bytes, ...] = (),
) -> Transcript:
    """A big file's model from its head's whole lines and a tail window (``estimated``),
    its counts from those alone; its first prompt, where the head holds none, looked for
    past it (``middle_prompt``: a builder ``make_builder`` makes) and kept as
    ``extra["first-prompt"]``. ``builder``: fresh, fed the head and the window."""
    from .scan_window import tail_window

    lines = head.split(b"\n")[:-1]
    for number, raw in enumerate(lines, start=1):
        builder.take_line(raw, number)
    whole = len(head) - len(head.rsplit(b"\n", 1)[-1])  # (where its whole lines end)
    tail, _scale = tail_window(summary, fh, window, floor=whole)
    prompt: str | None = None
    said = False  # (the first prompt is known where the head holds none)
    if prompt_bytes and not builder.prompted():
        searched = make_builder()
        middle = (fh, whole, summary.size - len(tail), prompt_bytes)
        all_read = middle_prompt(searched, lines, *middle)
        prompt = model_first_prompt(searched.transcript(None))
        said = prompt is not None or not all_read  # (else the tail's first is the first)
        if said:
            builder.prompt_searched(searched)
    for number, raw in enumerate(tail.split(b"\n"), start=len(lines) + 1):
        builder.take_line(raw, number)
    transcript = builder.transcript(None)
    transcript.extra["bytes-read"] = len(head) + len(tail)
    transcript.extra["tail-bytes"] = len(tail)
    transcript.extra["head-lines"] = len(lines)
    if said:
        transcript.extra["first-prompt"] = prompt
    return transcript


def middle_prompt(
    builder: Builder,
    head_lines: list[bytes],
    fh: IO[bytes],
    start: int,
    end: int,
    prompt_bytes: tuple[bytes, ...],
) -> bool:
    """Feed ``builder`` (a fresh one: the row's counting model is fed none of these, no
    fair sample of the middle) a big file's head again and the lines between it and the
    tail window (``start`` to ``end``, as far as ``scan_title.title_end``) that may hold
    its first prompt, found by their bytes (``prompt_bytes``), the others passed over
    unread, until one is (``Builder.prompted``). Whether every line to ``end`` was looked
    at: where not, a first prompt not found is not the row's, never the tail's (a later
    one). A whole read gives the same title (``titles``)."""
    from .scan_title import lines_holding, title_end

    for number, raw in enumerate(head_lines, start=1):
        builder.take_line(raw, number)
    needles = list(prompt_bytes)
    stop = title_end(start, end)
    for number, raw in enumerate(lines_holding(fh, start, stop, needles), len(head_lines) + 1):
        builder.take_line(raw, number)
        if builder.prompted():
            needles.clear()  # (``lines_holding`` reads no further)
            break
    return stop == end


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
