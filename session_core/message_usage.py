"""What one turn reported: the usage of a message (v1) or a model call (agentgo).

Missing is unknown, never zero; see ``usage`` for how turns add up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .text import cost_text


def _number(value: Any) -> int | float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def reported_cost(value: Any) -> float | None:
    """A cost a file wrote, as a count is read (``_int``): a finite number, never below 0;
    anything else (a negative one, v1's ``1e400`` read as infinity, NaN) is no cost,
    unknown: never added to a total (``$-5.0000``) nor shown (``$inf``)."""
    number = _number(value)
    if number is None or not number >= 0:  # (NaN: not >= 0)
        return None
    try:
        cost = float(number)
    except OverflowError:  # (an integer past a double)
        return None
    return cost if cost < _INF else None


_INF = float("inf")  # (a cost below it is finite)


def _int(value: Any) -> int | None:
    """A token count: an integer, never below 0 (a negative one is no count: unknown)."""
    number = _number(value)
    return number if isinstance(number, int) and number >= 0 else None


@dataclass(slots=True)
class MessageUsage:
    """What one message (or model call) reported; ``None`` where it said nothing.

    Not frozen (a frozen dataclass takes 4 times as long to make, and one is made
    for every message of a replay); nothing changes one once made.
    """

    input: int | None = None
    output: int | None = None
    total: int | None = None
    cache_read: int | None = None
    cost: float | None = None

    def counted(self) -> tuple[int | None, int | None, int | None, int | None]:
        """Input, output, cache read, and tokens no count names: what the response used,
        each token counted once (every total, tally and view adds these; ``tokens``).

        A cache read no bigger than the input is part of it (v1's prompt tokens and
        agentgo's input tokens hold their cached ones, as OpenAI's do), so the input
        counted is the uncached part, as Codex's; a bigger one cannot be, and adds up. The
        total (reported, or input plus output) is the response's tokens where it is more
        than the counts named: the rest is tokens of no named kind (a total reported
        alone, all of it)."""
        inp, out, total, cache = self.input, self.output, self.total, self.cache_read
        if cache is not None and inp is not None and cache <= inp:
            inp -= cache
        if total is None:
            return inp, out, cache, None
        if inp is None and out is None and cache is None:
            return None, None, None, total
        named = (inp or 0) + (out or 0) + (cache or 0)
        return inp, out, cache, total - named if total > named else None

    @property
    def tokens(self) -> int | None:
        """Every token the response used, counted once (``counted``); None: none reported."""
        known = [n for n in self.counted() if n is not None]
        return sum(known) if known else None

    @property
    def in_part(self) -> bool:
        """It reported usage, its tokens in part at most: no total, and its input or its
        output unknown (an input alone, a cache read or a cost alone: the rest is
        unknown, not 0, so a total it is in is a lower bound)."""
        return known_in_part(self.input, self.output, self.total)

    def describe(self) -> str:
        """``1,060 tok (200 in + 60 out + 800 cache read) · $0.0021``: its tokens as every
        total counts them (``counted``: a cache read within the input is not said twice,
        as it was written), in their words (``token_breakdown``); a count it did not
        report is said unknown."""
        parts: list[str] = []
        tokens = self.tokens
        if tokens is not None:
            parts.append(f"{tokens:,} tok ({token_breakdown(*self.counted())})")
        if self.in_part:  # (the rest unknown, not 0)
            parts.append(unknown_counts(self.input, self.output) or "")
        if self.cost is not None:
            parts.append(cost_text(self.cost))
        return " · ".join(parts)  # (never empty: no tokens known is in part)


def known_in_part(input: int | None, output: int | None, total: int | None) -> bool:
    """Every format's rule for a response's tokens: known in part at most when it gives
    no total and its input or its output is unknown. The rest is unknown, not 0: a total
    it is in is a lower bound, and it has no price from the table (``pricing.cost``
    would read the count it lacks as 0)."""
    return total is None and (input is None or output is None)


def unknown_counts(inp: int | None, out: int | None, unsplit: str | None = None) -> str | None:
    """``input unknown``, ``input and output unknown``: what a response known in part did
    not report (the export's message line and the viewer's say it; None: both known).
    ``unsplit``: its input is counted whole (a Codex count with no cached part), the share
    of it so named not told: ``output and cached split unknown``, not the input."""
    inp_name = "input" if unsplit is None else f"{unsplit} split"
    missing = [name for name, n in ((inp_name, inp), ("output", out)) if n is None]
    if len(missing) == 2 and unsplit is not None:  # (what is counted first, as the row)
        missing.reverse()
    return f"{' and '.join(missing)} unknown" if missing else None


def token_breakdown(
    inp: int | None,
    out: int | None,
    cache_read: int | None,
    rest: int | None = None,
    cache_write: int | None = None,
) -> str:
    """``200 in + 60 out + 800 cache read``: the counts known, as a message's line and
    every total say them (``in``: the input counted, its cached part apart)."""
    return " + ".join(token_terms(inp, out, cache_read, rest, cache_write))


# Tokens a response reported as a total only (v1's ``total-tokens`` with no prompt or
# completion count; what a total holds past the counts it names): how many of them were
# input and how many output is not known. Every surface says them in these words.
TOTAL_ONLY = "total only, split unknown"


def token_terms(
    inp: int | None,
    out: int | None,
    cache_read: int | None,
    rest: int | None = None,
    cache_write: int | None = None,
) -> list[str]:
    """``token_breakdown``'s terms (``200 in``, ``60 out``, ...): a narrow header breaks
    its line between them, never inside a number."""
    return [
        f"{value:,} {name}"
        for value, name in (
            (inp, "in"),
            (out, "out"),
            (cache_read, "cache read"),
            (cache_write, "cache write"),
            (rest, TOTAL_ONLY),
        )
        if value is not None
    ]


def _total(inp: int | None, out: int | None, total: int | None) -> int | None:
    if total is not None:
        return total
    if inp is not None and out is not None:
        return inp + out
    return None


def _reported(
    usage: Any, input: str, output: str, total: str, cache_read: str
) -> MessageUsage | None:
    """A usage object whose token fields have these names, or ``None`` when it is none."""
    if not isinstance(usage, dict):
        return None
    # Made for every message of a replay: JSON's plain int (not a bool) and float are
    # taken as they are; anything else goes through the checks.
    get = usage.get
    inp, out, tot, cache, cost = get(input), get(output), get(total), get(cache_read), get("cost")
    if inp is not None and (type(inp) is not int or inp < 0):
        inp = _int(inp)
    if out is not None and (type(out) is not int or out < 0):
        out = _int(out)
    if tot is not None and (type(tot) is not int or tot < 0):
        tot = _int(tot)
    if cache is not None and (type(cache) is not int or cache < 0):
        cache = _int(cache)
    if cost is not None and (type(cost) is not float or not 0.0 <= cost < _INF):
        cost = reported_cost(cost)
    return said(inp, out, _total(inp, out, tot), cache, cost)


def said(
    inp: int | None, out: int | None, total: int | None, cache: int | None, cost: float | None
) -> MessageUsage | None:
    """A usage of these numbers (each checked, ``total`` given or summed), or ``None``
    when there is none: a usage with no number in it (``{}``, ``{"cost": null}``) reports
    nothing, as a usage of null (and as Claude Code's and Codex's are read)."""
    if inp is None and out is None and total is None and cache is None and cost is None:
        return None
    return MessageUsage(inp, out, total, cache, cost)


def v1_usage(payload: Mapping[str, Any]) -> MessageUsage | None:
    """The ``usage`` extra of a v1 message payload, or ``None`` when it has none."""
    return _reported(
        payload.get("usage"),
        "prompt-tokens",
        "completion-tokens",
        "total-tokens",
        "cache-read-tokens",
    )


def agentgo_usage(usage: Any) -> MessageUsage | None:
    """An agentgo ``usage`` object (model_exec_end's, or an AgentMessage's)."""
    return _reported(usage, "input_tokens", "output_tokens", "total_tokens", "cache_read_tokens")


def exec_end_usage(data: Any) -> MessageUsage | None:
    """What an agentgo ``model_exec_end`` says its response used: its ``usage``, else its
    message's or its partial message's (the same response's AgentMessage ``usage?``,
    where a writer put it alone)."""
    if not isinstance(data, dict):
        return None
    said = agentgo_usage(data.get("usage"))  # (``{}``: no number, as a usage of null)
    for key in ("message", "partial_message"):  # (a failed call's partial one: spent too)
        message = data.get(key)
        if said is None and isinstance(message, dict):
            said = agentgo_usage(message.get("usage"))
    return said


def counts_as_turn(payload: Mapping[str, Any]) -> bool:
    """An assistant's message, or another that reported usage (``v1_usage``)."""
    return payload.get("role") == "assistant" or v1_usage(payload) is not None
