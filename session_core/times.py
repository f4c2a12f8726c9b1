"""Timestamps as the formats write them (ISO 8601, ``Z`` or an offset)."""

from __future__ import annotations

from datetime import datetime


def seconds_between(start: str | None, end: str | None) -> float | None:
    """Seconds from ``start`` to ``end``; None when either is missing or unreadable, or
    the end comes before the start (clocks that disagree: unknown, never 0)."""
    if not start or not end:
        return None
    try:
        delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except (ValueError, TypeError):  # (TypeError: one naive, one aware)
        return None
    seconds = delta.total_seconds()
    return seconds if seconds >= 0 else None


__all__ = ["seconds_between"]
