"""Token and cost totals over model responses, in the neutral model (``model.Usage``):
what a response, a run, a file and its subagents used, with what was not reported kept
apart from 0."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .message_usage import (
    MessageUsage,
    known_in_part,
    token_breakdown,
    token_terms,
    unknown_counts,
)
from .text import cost_text

if TYPE_CHECKING:
    from . import usage as tallies

# A total no response could have reported in (none made: a file with no model request, or
# whose every call the API refused): not unknown, as one that reported nothing is. Said
# where its caller knows none was made (``none_made``: no response counted, and none of
# its turns says the model answered, ``Transcript.made_no_response``).
NO_RESPONSE = "none (no model response)"
# ...in a column of a few cells (the browser's row): the same word, its why said beside
NO_RESPONSE_SHORT = "none"


def made_none(usage: Usage, answered: bool = False) -> bool:
    """The rule ``NO_RESPONSE`` is said by, of a total whose format counts every model
    output a response (``Transcript.responses_counted``): none counted, none reported,
    and (``answered``) no turn says the model answered (a Codex one with no report)."""
    return usage.unrequested and not answered


@dataclass(slots=True)
class Usage:
    """Token and cost totals over model responses; a field is ``None`` until one reported it."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost: float | None = None
    reported: int = 0  # responses that reported any usage
    responses: int = 0  # responses that could have
    cost_reported: int = 0  # responses whose cost is known
    # tokens responses reported as a total alone (v1's ``total-tokens`` with no prompt
    # or completion count): counted, not broken down (they read "usage unknown")
    total_only_tokens: int | None = None
    in_part: int = 0  # responses whose tokens are known in part (an input without an output)
    # of those, responses whose input is counted whole (in ``total_only_tokens``), the
    # share of it cached (or cache-written) not told: a Codex count with no cached part
    input_unsplit: int = 0
    # Why some responses' cost is unknown, where the reader can say (each reason once, in
    # the order first met): ``fast mode: no price known for claude-opus-4-5``
    unpriced_why: tuple[str, ...] = ()

    def add(self, other: Usage) -> None:
        """Fold another total (a response's, a run's) into this one."""
        self.input_tokens = _plus(self.input_tokens, other.input_tokens)
        self.output_tokens = _plus(self.output_tokens, other.output_tokens)
        self.cache_read_tokens = _plus(self.cache_read_tokens, other.cache_read_tokens)
        self.cache_write_tokens = _plus(self.cache_write_tokens, other.cache_write_tokens)
        self.total_only_tokens = _plus(self.total_only_tokens, other.total_only_tokens)
        if other.cost is not None:
            self.cost = other.cost + (self.cost or 0.0)
        self.reported += other.reported
        self.responses += other.responses
        self.cost_reported += other.cost_reported
        self.in_part += other.in_part
        self.input_unsplit += other.input_unsplit
        if other.unpriced_why:  # (rare: a response of a speed with no price)
            why = self.unpriced_why
            self.unpriced_why = why + tuple(w for w in other.unpriced_why if w not in why)

    @classmethod
    def of_response(
        cls,
        *,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cache_read_tokens: int | None = None,
        cache_write_tokens: int | None = None,
        cost: float | None = None,
        total_only_tokens: int | None = None,
    ) -> Usage:
        """One response's usage (counted as one response, reported if it said anything,
        in part as ``known_in_part`` says)."""
        said = (
            input_tokens is not None
            or output_tokens is not None
            or cache_read_tokens is not None
            or cache_write_tokens is not None
            or cost is not None
            or total_only_tokens is not None
        )
        in_part = said and known_in_part(input_tokens, output_tokens, total_only_tokens)
        return cls(
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_write_tokens,
            cost,
            reported=1 if said else 0,
            responses=1,
            cost_reported=1 if cost is not None else 0,
            total_only_tokens=total_only_tokens,
            in_part=1 if in_part else 0,
        )

    @classmethod
    def of_totals(cls, totals: tallies.Usage) -> Usage:
        """A v1 or agentgo tally's totals (``session_core.usage``) in the neutral model."""
        return cls(
            input_tokens=totals.input,
            output_tokens=totals.output,
            cache_read_tokens=totals.cache_read,
            cost=totals.cost,
            reported=totals.reported,
            responses=totals.turns,
            cost_reported=totals.cost_reported,
            total_only_tokens=totals.total_only,
            in_part=totals.in_part,
        )

    @classmethod
    def total(cls, parts: Iterable[Usage]) -> Usage:
        out = cls()
        for part in parts:
            out.add(part)
        return out

    @property
    def tokens(self) -> int | None:
        """Every token counted (input, output and cache), or None when none was reported."""
        values = [
            v
            for v in (
                self.input_tokens,
                self.output_tokens,
                self.cache_read_tokens,
                self.cache_write_tokens,
                self.total_only_tokens,
            )
            if v is not None
        ]
        return sum(values) if values else None

    @property
    def known(self) -> bool:
        """Did any response report tokens or a cost (else the usage is unknown)?"""
        return self.tokens is not None or self.cost is not None

    @property
    def unrequested(self) -> bool:
        """No response to count, and none reported (a run that made no model request):
        its usage is said blank, neither unknown nor 0."""
        return not self.responses and not self.known

    @property
    def tokens_partial(self) -> bool:
        """A known token total that leaves out responses that reported none, or in part."""
        return self.tokens is not None and (self.reported < self.responses or self.in_part > 0)

    @property
    def cost_partial(self) -> bool:
        """A known cost that leaves out responses that reported none, or had no price."""
        return self.cost is not None and self.cost_reported < self.responses

    def describe(self, none_made: bool = False) -> str:
        """``12,345 tok (1,000 in + 345 out + 11,000 cache) · $0.0210``, or ``unknown``."""
        return " · ".join(self.described_parts(breakdown=True, none_made=none_made))

    def describe_response(self) -> str:
        """``describe`` of one response's usage (a message's line in an export): what it
        did not report said as the viewer says it (``unreported``), not counted."""
        return " · ".join(self.described_parts(breakdown=True, one=True))

    def unreported(self) -> str | None:
        """``input unknown``: what one response known in part did not report (None: it
        is not), in the words the viewer's message line and the exports' both use. An
        input counted whole (``input_unsplit``) is known: its split is what is not."""
        if not self.in_part:
            return None
        unsplit = None
        if self.input_unsplit:  # (a cache read told: the cache write's share is not)
            unsplit = "cached" if self.cache_read_tokens is None else "cache-write"
        return unknown_counts(self.input_tokens, self.output_tokens, unsplit)

    def brief(self, none_made: bool = False) -> str:
        """``12,345 tok · $0.0210`` (no breakdown), or ``unknown``."""
        return " · ".join(self.described_parts(breakdown=False, none_made=none_made))

    def breakdown(self) -> str:
        """``1,000 in + 345 out + 11,000 cache read`` (the counts reported)."""
        return token_breakdown(
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.total_only_tokens,
            self.cache_write_tokens,
        )

    def breakdown_terms(self) -> list[str]:
        """``breakdown``'s terms: ``1,000 in``, ``345 out``, ``11,000 cache read``."""
        return token_terms(
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.total_only_tokens,
            self.cache_write_tokens,
        )

    def described_parts(
        self, *, breakdown: bool = True, none_made: bool = False, one: bool = False
    ) -> list[str]:
        """What ``describe`` (``brief``, without ``breakdown``) says, part by part: a
        narrow header breaks its line between them, never inside one (a cost cut to
        ``$9.8…`` at 80 columns). ``none_made``: no model response was made (its caller
        knows, ``NO_RESPONSE``), where none is counted. ``one``: one response's (what it
        did not report named, ``unreported``)."""
        tokens = self.tokens
        if tokens is None:  # (a cost reported alone is still said)
            if none_made and self.unrequested:
                return [NO_RESPONSE]
            return ["unknown"] if self.cost is None else ["tokens unknown", self.describe_cost()]
        parts = [f"{tokens:,} tok ({self.breakdown()})" if breakdown else f"{tokens:,} tok"]
        missing = self.unreported() if one else None
        if missing:  # (by its tokens, as the viewer's line says it)
            parts.append(missing)
        parts.append(self.describe_cost())
        if self.responses and self.reported != self.responses:
            parts.append(f"{self.reported} of {self.responses} responses reported")
        if self.in_part and not missing:  # (an input without its output: the rest unknown, not 0)
            parts.append(f"{self.in_part} reported in part")
        return parts

    def describe_cost(self) -> str:
        """``$0.0210``; ``$0.0210 (1 of 2 priced)`` where some that reported had no price;
        ``cost unknown``: each with why, where it is known (``unpriced_why``)."""
        why = "; ".join(self.unpriced_why)
        if self.cost is None:
            return f"cost unknown ({why})" if why else "cost unknown"
        if self.cost_reported < self.reported:  # (those that reported none are said apart)
            priced = f"{self.cost_reported} of {self.reported} priced"
            return (
                f"{cost_text(self.cost)} ({priced}; {why})"
                if why
                else f"{cost_text(self.cost)} ({priced})"
            )
        return cost_text(self.cost)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "input-tokens": self.input_tokens,
            "output-tokens": self.output_tokens,
            "cache-read-tokens": self.cache_read_tokens,
            "cache-write-tokens": self.cache_write_tokens,
            "cost": self.cost,
            "reported": self.reported,
        }
        if self.cost is not None and self.cost_reported < self.reported:
            out["priced"] = self.cost_reported  # of those that reported: the cost theirs alone
        if self.total_only_tokens is not None:  # (only then: every other file's keys as were)
            out["total-only-tokens"] = self.total_only_tokens
        if self.in_part:  # (likewise)
            out["reported-in-part"] = self.in_part
        return out

    @classmethod
    def from_message_usage(cls, usage: MessageUsage | None) -> Usage:
        """A v1 message's or an agentgo call's usage, as one response."""
        if usage is None:
            return cls(responses=1)
        inp, out, cache, rest = usage.counted()  # (each token once, as every tally)
        made = cls.of_response(
            input_tokens=inp,
            output_tokens=out,
            cache_read_tokens=cache,
            cost=usage.cost,
            total_only_tokens=rest,
        )
        made.in_part = 1 if usage.in_part else 0  # (its total, where it gave one, as said)
        return made


def _plus(a: int | None, b: int | None) -> int | None:
    if b is None:
        return a
    return b + (a or 0)


__all__ = ["NO_RESPONSE", "NO_RESPONSE_SHORT", "Usage", "made_none"]
