"""An AgentMessage read: its text, its thinking, its tool calls, the lines a viewer lays
it out in, and its v1 ``Message`` shape."""

from __future__ import annotations

from typing import Any

import orjson

from ..json_out import compact_json, dumps
from ..message import Message
from ..text import as_str

LINES_COUNTED = 255  # a message's body lines are counted this far


NO_KIND = "?"  # the role of a message with no ``kind`` (the spec requires one): not a guess
_ROLES = {"tool_result": "tool"}  # (a kind the neutral model names otherwise)


def message_role(message: dict[str, Any]) -> str:
    """An AgentMessage's ``kind`` as the neutral model's role (``tool_result``: tool)."""
    kind = message.get("kind")
    if not isinstance(kind, str) or not kind:
        return NO_KIND
    return _ROLES.get(kind, kind)


def thinking_text(message: dict[str, Any]) -> str:
    """The thinking parts of an AgentMessage, joined."""
    parts = message.get("content")
    if not isinstance(parts, list):
        return ""
    return "\n".join(
        str(part.get("text") or "")
        for part in parts
        if isinstance(part, dict) and part.get("type") == "thinking"
    )


def tool_call_count(message: dict[str, Any]) -> int:
    parts = message.get("content")
    if not isinstance(parts, list):
        return 0
    return sum(1 for part in parts if isinstance(part, dict) and part.get("type") == "tool_call")


def message_lines(message: dict[str, Any]) -> int:
    """A message's body lines as a viewer lays them out: thinking, text, one per tool call
    (counted up to LINES_COUNTED)."""
    thinking = thinking_text(message).strip()
    count = thinking.count("\n") + 1 if thinking else 0
    text = message_text(message)
    if text:
        count += text.count("\n") + 1
    return min(LINES_COUNTED, count + tool_call_count(message))


def message_text(message: dict[str, Any]) -> str:
    """The text parts of an AgentMessage, joined; an image by its type, a part of a type
    the spec does not name as written (its JSON, as every format says such a block)."""
    parts = message.get("content")
    if isinstance(parts, str):
        return parts
    out: list[str] = []
    if isinstance(parts, list):
        for part in parts:
            if not isinstance(part, dict):
                out.append(as_str(part))
                continue
            kind = part.get("type")
            if kind == "text":
                out.append(as_str(part.get("text")))
            elif kind == "thinking" or kind == "tool_call":
                continue
            elif kind == "image":
                out.append(f"[image {as_str(part.get('mime'))}]")
            else:  # (the spec's "another type, kept as is": as written, never dropped)
                out.append(compact_json(part))
    return "\n".join(out)


def as_message(message: dict[str, Any]) -> Message:
    """An AgentMessage in the v1 ``Message`` shape (for peek and shared views)."""
    calls = []
    parts = message.get("content")
    if isinstance(parts, list):
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "tool_call":
                args = part.get("arguments")
                calls.append(
                    {
                        "id": as_str(part.get("id")),
                        "type": "function",
                        "function": {
                            "name": as_str(part.get("name")),
                            "arguments": args if isinstance(args, str) else _json(args),
                        },
                    }
                )
    tcid = message.get("tool_call_id")
    return Message(
        role=message_role(message),
        content=message_text(message),
        tool_calls=tuple(calls),
        tool_call_id=None if tcid is None else as_str(tcid),
    )


def _json(value: Any) -> str:
    import orjson

    from ..json_out import dumps

    return dumps(value, orjson.OPT_SORT_KEYS).decode()


# What a message reports of itself, not what the model is sent of it (the spec's
# AgentMessage): a request's copy may leave it out (a committed assistant message has its
# response's usage; the copy a later request holds need not), and is the same message.
_NOT_SENT = frozenset({"usage", "timestamp", "stop_reason"})


def sent_bytes(message: Any) -> bytes:
    """A message as the model is sent it, to tell a request's message from a committed
    one: every key but its own report (``_NOT_SENT``), ``is_error`` absent as false."""
    if isinstance(message, dict):
        message = {k: v for k, v in message.items() if k not in _NOT_SENT}
        if message.get("is_error") is False:
            del message["is_error"]
    return dumps(message, orjson.OPT_SORT_KEYS)  # (any depth: the standard library past orjson's)


def hashed(message: Any) -> int:
    """``sent_bytes`` hashed: how a request's message is told from a committed one."""
    return hash(sent_bytes(message))


def call_of(message: Any) -> str | None:
    """The call a message answers (its ``tool_call_id``, where that is a string)."""
    call = message.get("tool_call_id") if isinstance(message, dict) else None
    return call if isinstance(call, str) else None


# ``sent_shape``: a message's kind, the call it answers, how many parts it has, and the
# length of its first part's text (-1: not a str, not a list of them, no such text).
SentShape = tuple[str | None, str | None, int, int]


def sent_shape(message: dict[str, Any]) -> SentShape:
    """What two messages of the same ``sent_bytes`` have the same of, taken without
    writing them out (a few lookups, not a dump and a hash of the whole message): the
    folds hash a committed message only where a request holds a message of its shape."""
    kind, call, content = message.get("kind"), message.get("tool_call_id"), message.get("content")
    first = content[0] if type(content) is list and content else None
    text = first.get("text") if type(first) is dict else None
    return (
        kind if type(kind) is str else None,
        call if type(call) is str else None,
        len(content) if type(content) is list or type(content) is str else -1,
        len(text) if type(text) is str else -1,
    )


def sent_key(message: Any) -> tuple[int, str | None]:
    """What a committed message is matched to a request's by (``agentgo.folds``): its
    ``hashed`` and the call it answers."""
    return hashed(message), call_of(message)


__all__ = [
    "LINES_COUNTED",
    "SentShape",
    "as_message",
    "call_of",
    "hashed",
    "message_lines",
    "message_text",
    "sent_bytes",
    "sent_key",
    "sent_shape",
    "thinking_text",
    "tool_call_count",
]
