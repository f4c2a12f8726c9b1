"""Codex token counts as usage: per response from ``token_count`` deltas, priced by model.

``total_token_usage`` is cumulative for the session and each response is reported
more than once (the same total comes again), so a response is a change of the total;
the session total is the last total, never a sum. ``input_tokens`` includes
``cached_input_tokens``: the uncached part is priced as input, the cached part as a
cache read.
"""

from __future__ import annotations

from typing import Any

from ... import pricing
from ...model import Usage

# (input tokens, cached of them, output tokens, reasoning of those)
Totals = tuple[int, int, int, int]
_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")


def totals_of(value: Any) -> Totals | None:
    """A token-usage object as numbers (absent fields 0), or None when it is not one."""
    if not isinstance(value, dict):
        return None
    numbers = []
    for key in _KEYS:
        n = value.get(key, 0)
        numbers.append(n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 0)
    if not any(key in value for key in _KEYS):
        return None
    return numbers[0], numbers[1], numbers[2], numbers[3]


def minus(a: Totals, b: Totals) -> Totals | None:
    """``a - b``, or None when a counter went backwards (a reset: not a delta)."""
    diff = (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])
    return None if min(diff) < 0 else diff


def plus(a: Totals, b: Totals) -> Totals:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]


def usage_of(totals: Totals, model: str | None, *, response: bool = True) -> Usage:
    """Usage of some tokens (one response's, or the session's), cost by the price table."""
    inputs, cached, output, _reasoning = totals
    cached = min(cached, inputs)
    uncached = inputs - cached
    cost = pricing.cost(
        model, input_tokens=uncached, output_tokens=output, cache_read_tokens=cached
    )
    if response:
        return Usage.of_response(
            input_tokens=uncached, output_tokens=output, cache_read_tokens=cached, cost=cost
        )
    return Usage(uncached, output, cached, None, cost)


def to_json(totals: Totals | None) -> dict[str, int] | None:
    return None if totals is None else dict(zip(_KEYS, totals, strict=True))


_REPEAT = "token_count: the same total as the last report"


class TokenTally:
    """The running totals of one rollout's ``token_count`` events (their dicts not kept)."""

    def __init__(self) -> None:
        self.last_total: Totals | None = None
        self.last_reported: dict[str, Any] | None = None  # the latest only, to spot repeats
        self.responses = 0
        self.cost = 0.0
        self.cost_reported = 0
        self.events = 0
        self.reports = 0  # events with usage info
        self.rate_limits: dict[str, Any] | None = None  # the latest
        self.context_window: int | None = None

    def feed(self, payload: dict[str, Any], model: str | None) -> tuple[str, Usage | None, int]:
        """One event: its short description, the new response's usage (None: nothing new)
        and that request's input size (0: not known)."""
        self.events += 1
        limits = payload.get("rate_limits")
        if isinstance(limits, dict):
            self.rate_limits = limits
        info = payload.get("info")
        if not isinstance(info, dict):
            return "token_count: no usage (rate limits only)", None, 0
        self.reports += 1
        window = info.get("model_context_window")
        if isinstance(window, int) and not isinstance(window, bool):
            self.context_window = window
        reported = info.get("total_token_usage")
        if reported is not None and reported == self.last_reported:
            return _REPEAT, None, 0  # the same response reported again (most are)
        self.last_reported = reported if isinstance(reported, dict) else None
        total = totals_of(reported)
        last = totals_of(info.get("last_token_usage"))
        before = self.last_total
        if total is None and last is not None:
            total = last if before is None else plus(before, last)
        if total is None:
            return "token_count: no usage", None, 0
        delta: Totals | None
        if before is None:
            delta = total
        elif total == before:
            delta = None
        else:
            delta = minus(total, before) or last or total
        self.last_total = total
        text = (
            f"token_count: {total[0] + total[2]:,} tokens so far "
            f"({total[0]:,} in, {total[1]:,} of them cached, {total[2]:,} out)"
        )
        if delta is None or not any(delta):
            return text, None, 0
        self.responses += 1
        usage = usage_of(delta, model)
        if usage.cost is not None:
            self.cost += usage.cost
            self.cost_reported += 1
        return text, usage, last[0] if last is not None else 0

    def usage(self) -> Usage:
        """The session's usage: the last cumulative total (never a sum of reports)."""
        if self.last_total is None:
            return Usage()
        total = usage_of(self.last_total, None, response=False)
        total.cost = self.cost if self.cost_reported else None
        total.reported = total.responses = self.responses
        total.cost_reported = self.cost_reported
        return total


__all__ = ["TokenTally", "Totals", "minus", "plus", "to_json", "totals_of", "usage_of"]
