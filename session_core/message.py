"""The conversation message, and its mapping to and from a ``message`` payload."""

from __future__ import annotations

import math
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


# A message field of another type than the spec's is made what the reference makes of
# it (``message-from``: ``.Str``, ``.Int``; its ``so`` is Python's ``bool`` of a JSON
# value, ``"0"`` true in both), so a hand-written file's odd values read alike in both.
# Neither writer writes such values.


def raku_str(value: Any) -> str:
    """``value.Str`` in Raku, of a value JSON decodes to: a list's items joined by spaces,
    an object's pairs by newlines (key, tab, value), ``True``, a whole number without a
    fraction (``2.0`` is ``2``); null is ``""``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "NaN" if math.isnan(value) else ("Inf" if value > 0 else "-Inf")
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, list):
        return " ".join(raku_str(item) for item in value)
    if isinstance(value, dict):
        return "\n".join(f"{key}\t{raku_str(item)}" for key, item in value.items())
    return str(value)


def raku_int(value: Any) -> int:
    """``value.Int`` in Raku (``True`` is 1, ``2.7`` is 2, ``"3"`` is 3); 0 where Raku
    would throw (``"x"``: this reader keeps the message, its depth defined)."""
    if type(value) is int:
        return value
    if isinstance(value, bool | float):
        try:
            return int(value)
        except (OverflowError, ValueError):
            return 0
    try:
        return int(float(raku_str(value).strip() or "0"))
    except (OverflowError, ValueError):
        return 0


def message_from_payload(payload: Mapping[str, Any]) -> Message:
    """A Message from a file payload, tolerant of odd types as the reference is (its
    ``message-from``: a field of another type is made text or a number as it makes it)."""
    calls = payload.get("tool-calls")
    tool_calls = tuple(c for c in calls if isinstance(c, dict)) if isinstance(calls, list) else ()
    tcid = payload.get("tool-call-id")
    depth = payload.get("depth")
    role = payload.get("role")
    return Message(
        role="user" if role is None else raku_str(role),
        content=raku_str(payload.get("content")),
        tool_calls=tool_calls,
        tool_call_id=None if tcid is None else raku_str(tcid),
        sticky=bool(payload.get("sticky")),  # (``so`` in Raku: ``"0"`` is true there too)
        sysprompt=bool(payload.get("sysprompt")),
        depth=None if depth is None else raku_int(depth),
    )
