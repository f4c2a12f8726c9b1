"""``tailscope diff`` of an agentgo session: the committed conversation beside what the
model is sent next.

An agentgo file records each model request's messages as sent (after middleware), so
what is sent next is the last request's messages (of a model call, not a compaction's
summary call) and whatever was committed after it. A committed message before that
request is *sent* where the request holds it as written, *sent as a stub* where the
request holds another message answering the same call (observation aging), and *not
sent* otherwise (compacted away); a request message no committed one is (a summary, a
stub) is listed last. Context events (``context_projected``, ``context_compacted``)
are marked where they stand.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from ..json_out import dumps
from ..text import count
from .view import AgentGoView, message_text

_CONTEXT = ("context_projected", "context_compacted")


def _key(message: Any) -> bytes:
    return dumps(message, orjson.OPT_SORT_KEYS)  # (any depth: the standard library past orjson's)


def _row(line: int | None, message: dict[str, Any], why: str = "") -> str:
    role = message.get("kind")
    role = role if isinstance(role, str) else "?"
    text = " ".join(message_text(message).split())
    if len(text) > 72:
        text = text[:71] + "…"
    where = f"line {line:>6}" if line is not None else "sent       "
    return f"{where} {role:<11} {text}{why}"


def _last_request(view: AgentGoView) -> tuple[int, list[Any]] | None:
    """The last model call's request (not a compaction's): its record index and messages."""
    records = view.records
    for index in range(len(records) - 1, -1, -1):
        if records.kind(index) != "model_request":
            continue
        record = records.read(index)  # (whole: a skim keeps only the config)
        execution = record.get("execution")
        if isinstance(execution, dict) and execution.get("kind") == "compact":
            continue
        data = record.get("data")
        messages = data.get("messages") if isinstance(data, dict) else None
        return index, messages if isinstance(messages, list) else []
    return None


def agentgo_diff(view: AgentGoView, path: str) -> str:
    records = view.records
    last = _last_request(view)
    at, sent = last if last is not None else (len(records), [])
    unmatched = Counter(_key(m) for m in sent)
    by_call: dict[Any, list[bytes]] = {}  # a call id -> the sent messages answering it
    for message in sent:
        if isinstance(message, dict) and message.get("tool_call_id") is not None:
            by_call.setdefault(message["tool_call_id"], []).append(_key(message))
    committed = {c.at: c for c in view.messages}
    rows: list[str] = []
    shown = stubbed = dropped = marks = 0
    for index in range(len(records)):
        kind = records.kind(index)
        line = records.lines[index]
        if kind in _CONTEXT:
            data = records[index].get("data")
            data = data if isinstance(data, dict) else {}
            bits = [kind.removeprefix("context_")]
            if data.get("replaced") is not None:
                bits.append(f"replaced {data['replaced']}")
            if data.get("tokens_before") is not None or data.get("tokens_after") is not None:
                bits.append(f"tokens {data.get('tokens_before')} → {data.get('tokens_after')}")
            rows.append(f"# line {line}: " + ", ".join(bits))
            marks += 1
        elif index == at:
            rows.append(f"# line {line}: the last model request, {count(len(sent), 'message')}")
        message = committed[index].message if index in committed else None
        if message is None:
            continue
        key = _key(message)
        shown += 1
        if index > at:
            rows.append("= " + _row(line, message, " [committed since]"))
        elif unmatched[key] > 0:
            unmatched[key] -= 1
            rows.append("= " + _row(line, message))
        elif any(unmatched[k] > 0 for k in by_call.get(message.get("tool_call_id"), ())):
            stub = next(k for k in by_call[message.get("tool_call_id")] if unmatched[k] > 0)
            unmatched[stub] -= 1
            stubbed += 1
            rows.append("~ " + _row(line, message, " [sent as a stub]"))
        else:
            dropped += 1
            rows.append("- " + _row(line, message, " [not sent]"))
    for message in sent:
        key = _key(message)
        if unmatched[key] > 0:
            unmatched[key] -= 1
            rows.append("+ " + _row(None, message if isinstance(message, dict) else {}))
    head = (
        f"{path}: agentgo-v1, {count(shown, 'committed message')}, "
        f"{count(len(sent), 'message')} in the last model request, {dropped} not sent, "
        f"{stubbed} sent as stubs, {count(marks, 'context event')}"
    )
    legend = (
        "  = sent next   - not sent (compacted away)   ~ sent as a stub   "
        "+ sent, committed as no message (a summary)   # a context event or the last request"
    )
    return "\n".join([head, "", legend, "", *rows]) + "\n"


__all__ = ["agentgo_diff"]
