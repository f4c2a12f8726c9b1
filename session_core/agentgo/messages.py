"""An AgentMessage read: its text, its thinking, its tool calls, the lines a viewer lays
it out in, and its v1 ``Message`` shape."""

from __future__ import annotations

from typing import Any

from ..message import Message
from ..text import as_str

LINES_COUNTED = 255  # a message's body lines are counted this far


NO_KIND = "?"  # the role of a message with no ``kind`` (the spec requires one): not a guess


def message_role(message: dict[str, Any]) -> str:
    """An AgentMessage's ``kind`` as the neutral model's role (``tool_result``: tool)."""
    kind = message.get("kind")
    if not isinstance(kind, str) or not kind:
        return NO_KIND
    return {"tool_result": "tool"}.get(kind, kind)


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
    """The text parts of an AgentMessage, joined; other parts named in brackets."""
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
            else:
                out.append(f"[{as_str(kind)} part]")
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


__all__ = [
    "LINES_COUNTED",
    "as_message",
    "message_lines",
    "message_text",
    "thinking_text",
    "tool_call_count",
]
