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


def epoch(ts: str | None) -> float | None:
    """An RFC 3339 / ISO-8601 UTC timestamp (any number of fraction digits) in seconds."""
    if not ts:
        return None
    text = ts.strip()
    if text.endswith("z"):  # (RFC 3339's small z; a Z, and any fraction digits, Python reads)
        text = text[:-1] + "Z"
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


__all__ = ["epoch", "seconds_between"]
