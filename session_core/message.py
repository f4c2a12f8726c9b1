"""The conversation message, and its mapping to and from a ``message`` payload."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Keys a message line owns; everything else in its payload is an extra.
MESSAGE_KEYS = frozenset(
    ("role", "content", "tool-calls", "tool-call-id", "sticky", "sysprompt", "depth")
)


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str
    tool_calls: tuple[dict[str, Any], ...] = ()
    tool_call_id: str | None = None
    sticky: bool = False
    sysprompt: bool = False
    depth: int | None = None

    @property
    def is_sticky(self) -> bool:
        """Survives a compaction that folds the span it sits in."""
        return self.sticky or self.sysprompt or self.depth is not None

    def to_payload(self) -> dict[str, Any]:
        """The message keys of a ``message`` payload: optional keys only when set."""
        payload: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            payload["tool-calls"] = [dict(call) for call in self.tool_calls]
        if self.tool_call_id is not None:
            payload["tool-call-id"] = self.tool_call_id
        if self.sticky:
            payload["sticky"] = True
        if self.sysprompt:
            payload["sysprompt"] = True
        if self.depth is not None:
            payload["depth"] = self.depth
        return payload


def payload_is_sticky(payload: Mapping[str, Any]) -> bool:
    return (
        bool(payload.get("sticky"))
        or bool(payload.get("sysprompt"))
        or (payload.get("depth") is not None)
    )


def _text(value: Any, default: str = "") -> str:
    if value is None:
        return default
    return value if isinstance(value, str) else str(value)


def message_from_payload(payload: Mapping[str, Any]) -> Message:
    """A Message from a file payload, tolerant of odd types as the reference is."""
    calls = payload.get("tool-calls")
    tool_calls = tuple(c for c in calls if isinstance(c, dict)) if isinstance(calls, list) else ()
    tcid = payload.get("tool-call-id")
    depth = payload.get("depth")
    if depth is not None and not isinstance(depth, int):
        try:
            depth = int(depth)
        except (TypeError, ValueError):
            depth = 0
    return Message(
        role=_text(payload.get("role"), "user"),
        content=_text(payload.get("content")),
        tool_calls=tool_calls,
        tool_call_id=None if tcid is None else _text(tcid),
        sticky=bool(payload.get("sticky")),
        sysprompt=bool(payload.get("sysprompt")),
        depth=depth,
    )
