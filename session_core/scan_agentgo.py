"""An agentgo-v1 file's browser row (``scan``): read whole by the strict reader's rules
when small, else its head and a tail window; ``AgentGoRow`` the rules and tally, a line
at a time, for a whole read and a row kept live (``scan_live``) alike."""

from __future__ import annotations

from typing import Any

import orjson

from .agentgo.reader import StrictReader, parse_record
from .errors import TranscriptError
from .indexing import loads_mended
from .open_work import open_work_said
from .reader import is_blank
from .scan import FileRead, FileSummary
from .scan_title import prompt_past_head
from .scan_usage import scale_usage, usage_marks
from .scan_window import feed_window, lines_of, tail_window
from .tallies import AgentGoTally, text_or_none
from .titles import agentgo_prompt


def agentgo_summary(read: FileRead) -> None:
    """An agentgo-v1 file's row: read whole by the strict rules when small, else windowed."""
    summary, fh, head = read.summary, read.fh, read.head
    summary.started = text_or_none(read.first.get("time"))
    if summary.size <= read.budget:
        _agentgo_whole(summary, summary.path, head + fh.read())
        return
    started = summary.started
    # The model and the title (the first prompt) are the file's first: from its head.
    first = AgentGoTally()
    for raw in head.split(b"\n")[:-1]:
        try:
            record = loads_mended(raw) if not is_blank(raw) else {}
        except orjson.JSONDecodeError:  # (not this row's to judge: its window is the tail)
            break
        if isinstance(record, dict) and record.get("type") in ("model_request", "message_end"):
            first.feed(record)
            if first.model is not None and first.title is not None:
                break
    tail, scale = tail_window(summary, fh, read.window)
    tally = AgentGoTally()
    seq: list[int] = []

    def feed(raw: bytes, number: int) -> None:
        record = loads_mended(raw)  # (as the strict reader reads it: ``1e400`` too)
        if not isinstance(record, dict) or type(record.get("seq")) is not int:
            raise TranscriptError("is not a record with an integer seq", line=number)
        if seq and record["seq"] != seq[0] + 1:
            raise TranscriptError(
                f"has seq {record['seq']} after seq {seq[0]}; sequence numbers must be contiguous",
                line=number,
            )
        seq[:] = [record["seq"]]
        tally.feed(record)

    summary.crash_tail = feed_window(tail, feed, unfinished_is_tail=True)
    _agentgo_finish(summary, tally)
    # (its first prompt: in the head, else the first line past it that is one, as far
    # as ``scan_title.PAST_HEAD``)
    summary.model = first.model
    summary.title = first.title or prompt_past_head(fh, head, summary.size, _prompt_of)
    summary.started = started
    summary.messages = round(tally.messages * scale)
    summary.tool_calls = round(tally.calls * scale)
    scale_usage(summary, tally.usage_so_far(), scale)


def _prompt_of(record: dict[str, Any]) -> str | None:
    data = record.get("data") if record.get("type") == "message_end" else None
    message = data.get("message") if isinstance(data, dict) else None
    return agentgo_prompt(message) if isinstance(message, dict) else None


def _agentgo_whole(summary: FileSummary, where: str, data: bytes) -> None:
    """The strict reader's rules, record by record; an unfinished final line is a crash tail."""
    row = AgentGoRow(where)
    for number, raw, ended in lines_of(data):
        if not ended:
            summary.crash_tail = not is_blank(raw)
            break
        row.take(raw, number)
    row.fill(summary)


class AgentGoRow:
    """An agentgo row as its complete lines come: a whole read's, or one kept live
    (``scan_live``). ``TranscriptError`` where the strict reader refuses a line."""

    def __init__(self, where: str) -> None:
        self.checker = StrictReader(where)
        self.tally = AgentGoTally()

    def take(self, raw: bytes, number: int) -> None:
        try:
            record = parse_record(raw, number, self.checker.path)
            self.checker.check(record, number)
        except TranscriptError as err:
            raise TranscriptError(err.reason, line=err.line) from None
        self.tally.feed(record)

    def fill(self, summary: FileSummary) -> None:
        """The row from the lines taken (``summary.crash_tail`` said already)."""
        if self.checker.session_id is None:
            raise TranscriptError("has no complete session_start line")
        _agentgo_finish(summary, self.tally)


def _agentgo_finish(summary: FileSummary, tally: AgentGoTally) -> None:
    summary.model, summary.title = tally.model, tally.title
    summary.started, summary.last_ts = summary.started or tally.first_time, tally.last_time
    summary.messages, summary.tool_calls = tally.messages, tally.calls
    usage = tally.usage_so_far()
    summary.tokens, summary.cost = usage.total, usage.cost
    usage_marks(summary, usage)
    summary.pending = len(tally.open_runs) + len(tally.open_calls)
    summary.failed_runs = len(tally.failed_runs)
    # (said as of the row's status, by its writer: ``scan.settle_status``)
    summary.unstarted = at_work = tally.unstarted()
    gone = tally.unstarted(writer_gone=True)
    summary.unstarted_by_writer = (at_work, gone) if at_work and gone and gone != at_work else None
    torn = ["an unfinished last line"] if summary.crash_tail else []
    summary.reason = open_work_said(tally.open_work(), torn)


__all__ = ["AgentGoRow", "agentgo_summary"]
