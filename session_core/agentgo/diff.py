"""``tailscope diff`` of an agentgo session: the committed conversation beside what the
model is sent next.

An agentgo file records each model request's messages as sent (after middleware), so
what is sent next is the last request's messages (of a model call, not a compaction's
summary call) and whatever was committed after it. A committed message before that
request is *sent* where the request holds it as the model is sent it (``_key``: not the
usage, time or stop reason it reports of itself), *sent as a stub* where the
request holds another message answering the same call (observation aging), and *not
sent* otherwise (compacted away); a request message no committed one is (a summary, a
stub) is listed last. Context events (``context_projected``, ``context_compacted``)
are marked where they stand.
"""

from __future__ import annotations

import bisect
from typing import Any

from ..cells import clip_cells, pad_cells, words_for
from ..diff_model import place_said, sent_row
from ..model import UNSENT
from ..text import count, count_text, name_line, one_line, written_count
from .folds import (
    ContextFolds,
    _request_at,
    _Sent,
    context_compactions,
    unsent_events,
)
from .messages import call_of as _call_of
from .messages import hashed as _hashed
from .messages import message_role
from .view import AgentGoView, message_text


def _row(line: int | None, message: dict[str, Any], why: str = "") -> str:
    role = message_role(message)  # (as every surface names it: ``?`` for no kind)
    text = clip_cells(one_line(words_for(message_text(message), 72)), 72)
    where = f"line {line:>6}" if line is not None else "sent       "
    return f"{where} {pad_cells(one_line(role), 11)} {text}{why}"  # (by cells, as ``diff``'s)


def _said(message: Any) -> str:
    """A request's message's text (one not an object: none)."""
    return message_text(message) if isinstance(message, dict) else ""


def _last_request(view: AgentGoView) -> tuple[int, list[Any]] | None:
    """The last request of the loop's conversation call: its record index and messages."""
    for index in range(len(view.records) - 1, -1, -1):
        sent = _request_at(view, index)
        if sent is not None:
            return index, sent
    return None


def _projected_last(view: AgentGoView, at: int) -> bool:
    """Whether the last context event before record ``at`` is a projection (what the
    request at ``at`` holds in place of a message is then its rewrite, not a summary)."""
    last = bisect.bisect_left(view.context_at, at) - 1
    return last >= 0 and view.context_events[last][2] == "context_projected"


def agentgo_diff(view: AgentGoView, path: str) -> str:
    records = view.records
    last = _last_request(view)
    at, sent = last if last is not None else (-1, [])  # (none: every message is to be sent)
    since = " [committed since]" if last is not None else " [not sent yet]"
    held = _Sent(sent)
    committed = {c.at: c for c in view.messages}
    # (each context event's data, as the view took it: not read again)
    events = {
        at: (kind, data)
        for at, (_, _, kind, data) in zip(view.context_at, view.context_events, strict=True)
    }
    # How each message committed before the last request was sent (in order: each of
    # the request's messages taken once); after a projection, a message it rewrote in
    # place is sent as the rewrite (``_Sent.rewrites``), as the model's folds say.
    before = [c for c in view.messages if c.at < at]
    took = [held.take(_hashed(c.message), _call_of(c.message)) for c in before]
    rewritten = {}
    dropped_at: set[int] = set()  # (the messages a projection dropped: said so)
    if _projected_last(view, at):
        # (a message a compaction folded is gone: what stands in its place, a summary)
        folds = ContextFolds(view)
        folds.sent(len(view.messages))
        folded = set(folds.folded)
        summaries = folds.summaries()  # (and what stands in their place: no rewrite)
        dropped_at = {before[p].at for p in folds.dropped if p < len(before)}
        rewritten = held.rewrites(
            took,
            lambda p: None if p in folded else message_role(before[p].message),
            {i for i in held.left() if _hashed(sent[i]) in summaries},
        )
    signs = {c.at: sign for c, (sign, _) in zip(before, took, strict=True)}
    # (the request's message each ``~`` row was sent as: its ``sent:`` row)
    sent_as = {c.at: place for c, (sign, place) in zip(before, took, strict=True) if sign == "~"}
    rewritten_at = {before[place].at: held_at for place, held_at in rewritten.items()}
    rows: list[str] = []
    shown = stubbed = dropped = marks = unsent = 0
    for index in range(len(records)):
        line = records.lines[index]
        event = events.get(index)
        if event is not None:
            kind, data = event
            bits = [kind.removeprefix("context_")]
            replaced = written_count(data, "replaced")  # (left out: not said; null: null)
            if replaced is not None:
                bits.append(f"replaced {count_text(replaced)}")
            # (as a v1 compaction's: left out ``?``, written null ``null``, else its JSON)
            was, left = written_count(data, "tokens_before"), written_count(data, "tokens_after")
            if was is not None or left is not None:
                bits.append(f"tokens {count_text(was)} → {count_text(left)}")
            if index > at:  # (the request after it decides what it did: none yet)
                bits.append(UNSENT)
                unsent += 1
            rows.append(f"# line {line}: " + ", ".join(bits))
            marks += 1
        elif index == at:
            rows.append(f"# line {line}: the last model request, {count(len(sent), 'message')}")
            # What it holds that no message committed before it is (a summary), in its
            # order, under it: listed after every row, it read as sent after those
            # committed since.
            for place in held.left():
                message = sent[place]
                where = f" [{place_said(place + 1, len(sent), 'in the request')}]"
                rows.append("+ " + _row(None, message if isinstance(message, dict) else {}, where))
        message = committed[index].message if index in committed else None
        if message is None:
            continue
        shown += 1
        if index > at:
            rows.append("= " + _row(line, message, since))
            continue
        sign = signs[index]
        if sign == "=":
            rows.append("= " + _row(line, message))
        elif index in rewritten_at:
            rows.append("~ " + _row(line, message, " [sent rewritten by a projection]"))
            rows.append(sent_row(_said(sent[rewritten_at[index]])))
        elif sign == "~":
            stubbed += 1
            rows.append("~ " + _row(line, message, " [sent as a stub]"))
            rows.append(sent_row(_said(sent[sent_as[index]])))
        else:
            dropped += 1
            why = " [not sent: dropped by a projection]" if index in dropped_at else " [not sent]"
            rows.append("- " + _row(line, message, why))
    head = (
        f"{name_line(path)}: agentgo-v1, {count(shown, 'committed message')}, "
        + (
            f"{count(len(sent), 'message')} in the last model request"
            if last is not None
            else "no model request of the loop yet"
        )
        + f", {dropped} not sent, "
        f"{stubbed} sent as stubs, "
        + (f"{len(rewritten)} rewritten, " if rewritten else "")
        + f"{count(marks, 'context event')}"
        + (f" ({unsent} {UNSENT})" if unsent else "")
    )
    legend = (
        "  = sent next   - not sent (compacted away, or dropped by a projection)   "
        "~ sent as a stub, or rewritten   "
        "+ sent, committed as no message (a summary)   # a context event or the last request"
    )
    return "\n".join([head, "", legend, "", *rows]) + "\n"


__all__ = ["ContextFolds", "agentgo_diff", "context_compactions", "unsent_events"]
