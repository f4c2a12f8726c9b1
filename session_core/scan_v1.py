"""A transcript-v1 file's browser row (``scan``): replayed whole when small, as
``tailscope replay`` replays it, else its head and a tail window; ``v1_replayed`` for a
whole read and a row kept live (``scan_live``) alike."""

from __future__ import annotations

from typing import Any

from .formats.v1.left_open import left_open
from .formats.v1.line_ends import V1LineEnds
from .formats.v1.ops import cut_off
from .item_ends import LAST_LOOK, last_stamp
from .message_usage import counts_as_turn, v1_usage
from .open_work import OpenWork
from .reader import line_is_whole, loads_line, replay_file
from .replay import ReplayState, payload_of
from .scan import FileRead, FileSummary, LeftOpen
from .scan_title import prompt_past_head
from .scan_usage import scale_usage, usage_marks
from .scan_window import feed_window, tail_window
from .tallies import V1Window, open_before, text_or_none
from .titles import session_title, v1_first_prompt, v1_prompt
from .usage import Usage


def v1_summary(read: FileRead) -> None:
    """A transcript-v1 file's row: replayed whole when small, else head and tail window."""
    summary, fh, first = read.summary, read.fh, read.first
    summary.started = text_or_none(first.get("ts"))
    _v1_meta(summary, payload_of(first))  # shown even when the rest turns out damaged
    if summary.size <= read.budget:
        _v1_whole(summary, summary.path)
        return
    # (its first prompt: in the head, else the first line past it that is one, as far
    # as ``scan_title.PAST_HEAD``)
    summary.title = (
        summary.title
        or _head_prompt(read.head)
        or prompt_past_head(fh, read.head, summary.size, _prompt_of)
    )
    tail, scale = tail_window(summary, fh, read.window)
    counts = V1Window(summary.path)
    feed_window(tail, counts.feed)
    summary.last_ts = counts.last_time
    summary.messages = round(counts.messages * scale)
    summary.tool_calls = round(counts.calls * scale)
    # Whether an operation dispatched before the window is still open the window cannot
    # tell (settled in it or not at all: the row said "finished" where ``check`` said
    # pending), so the lines before it that name an operation are read for those open.
    before = open_before(fh, summary.size - len(tail))
    summary.pending = len(counts.open_ops) + len(before - counts.settled_before)
    summary.crash_tail = bool(tail) and not line_is_whole(tail.rstrip(b"\n").rsplit(b"\n")[-1])
    scale_usage(summary, counts.usage, scale)
    _v1_left_open(summary, None, not counts.ends_a_run)


def _v1_whole(summary: FileSummary, where: str) -> None:
    """The same read-only replay ``tailscope replay`` does: damage raises, a crash tail warns."""
    v1_replayed(summary, replay_file(where, tolerate_tail=True))


def v1_replayed(summary: FileSummary, state: ReplayState) -> None:
    """A v1 row from its replay: a whole read's, or one kept live (``scan_live``)."""
    _v1_meta(summary, state.meta)
    events = state.events
    summary.started = text_or_none(events[0].get("ts"))
    # (as ``Transcript.last_time`` says it: the last line may have none)
    summary.last_ts = last_stamp(V1LineEnds(state, len(state.event_lines)), LAST_LOOK)
    usage = Usage()
    calls = 0
    for position in state.message_events:
        payload = payload_of(events[position])
        tool_calls = payload.get("tool-calls")
        calls += len(tool_calls) if isinstance(tool_calls, list) else 0
        if counts_as_turn(payload):
            usage.add(v1_usage(payload))
    summary.messages, summary.tool_calls = state.message_count, calls
    summary.title = summary.title or v1_first_prompt(state)
    summary.tokens, summary.cost = usage.total, usage.cost
    usage_marks(summary, usage)
    summary.pending = sum(1 for op in state.tool_ops if not op["settled"])
    summary.crash_tail = any("crash tail" in w for w in state.warnings)
    _v1_left_open(summary, state, cut_off(state))


def _v1_meta(summary: FileSummary, meta: Any) -> None:
    if isinstance(meta, dict):
        summary.agent, summary.model = (
            text_or_none(meta.get("agent")),
            text_or_none(meta.get("model")),
        )
        summary.title = session_title(meta.get("title"), None)  # (its first prompt: replayed)


def _head_prompt(head: bytes) -> str | None:
    """The first prompt among a big file's head lines (its window is the tail; a line
    that is no JSON object is passed over, as it is not this row's to judge)."""
    for raw in head.split(b"\n")[:-1]:
        try:
            env = loads_line(raw)
        except ValueError:
            continue
        if isinstance(env, dict) and (prompt := _prompt_of(env)) is not None:
            return prompt
    return None


def _prompt_of(env: dict[str, Any]) -> str | None:
    return v1_prompt(payload_of(env)) if env.get("type") == "message" else None


def _v1_left_open(summary: FileSummary, state: ReplayState | None, unanswered: bool) -> None:
    """What a v1 file's writer left open (``reason``, None: nothing). A whole read says
    it as ``check`` does (``left_open``), as read and with its writer gone where the two
    differ (``settle_status`` says the one that holds); a window, which cannot tell an
    operation's answer, its count of operations pending, and how a last message that
    is no answer of the model's stands (``unanswered``: ``settle_status``, by its writer)."""
    tail = []
    if summary.crash_tail:
        line = state.last_line + 1 if state is not None else None
        tail.append(f"a crash tail (malformed last line{f' {line}' if line else ''})")
    summary.running = summary.gone = None
    if state is None:
        why = OpenWork(pending=summary.pending).said()  # (their states not told)
        summary.reason = summary.left_open = "; ".join(why + tail) or None
        summary.unanswered = unanswered
        if summary.pending:  # (running while its writer may be at work, as a whole read's)
            summary.running = LeftOpen(summary.pending, summary.reason, True)
            summary.gone = LeftOpen(summary.pending, summary.reason, False)
        return
    at_work, gone = left_open(state, None) + tail, left_open(state, False) + tail
    held = left_open(state, True) + tail  # (a writer holds it: its end runs, said nothing of)
    summary.reason = summary.left_open = "; ".join(gone) or None
    summary.unanswered = False  # (said in the list)
    if at_work != gone:
        summary.running = LeftOpen(summary.pending, "; ".join(at_work), True, "; ".join(held))
        summary.gone = LeftOpen(summary.pending, summary.reason, False)
