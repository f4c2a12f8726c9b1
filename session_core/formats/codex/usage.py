"""Codex token counts as usage: per response from ``token_count`` deltas, priced by model.

``total_token_usage`` is cumulative for the session and each response is reported
more than once (the same total comes again), so a response is a change of the total;
the session total is the last total, never a sum (but for a count that starts again
from 0 in a rollout that is no fork: a resumed process's, added to the counts before
it). ``input_tokens`` is the whole prompt:
it includes ``cached_input_tokens`` and, where a writer says it (newer ones),
``cache_write_input_tokens`` (``total_tokens`` is input + output with them in it). So
the input counted is what is left of it after both, the cached part is a cache read and
the written part a cache write; none is counted twice, and a writer that does not say
what it wrote to the cache has no cache writes counted (unknown, not 0). OpenAI bills a
cache write as input: the written part is priced as input, the cached part as a read.
"""

from __future__ import annotations

from typing import Any

import orjson

from ... import pricing
from ...int64 import MOST, int64_or_none
from ...model import Usage

# (input tokens, cached of them, output tokens, reasoning of those, cache writes of the
# input: 0 when not said, ``writes_said`` tells; and ``rest``: what a total the writer
# states holds past the input where the output is unknown, else 0). A part written as no
# count (``1e400``, past 64 bits) or, for the output, left out is None: unknown, and so
# is what depends on it (``usage_of``).
Totals = tuple[int, int | None, int | None, int | None, int | None, int | None]
WRITES = "cache_write_input_tokens"
_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", WRITES)


def _known(value: Any) -> int | None:
    """A count as written: an int64 (``int64_or_none``, as every format's count) not
    below 0; anything else (a bool, ``1e400``, one past 64 bits) None: unknown."""
    known = int64_or_none(value)
    return known if known is not None and known >= 0 else None


def totals_of(value: Any) -> Totals | None:
    """A token-usage object as numbers (absent parts 0, a part written as no count None),
    or None when it is not one: one whose input or output is not a count is known in
    part at most (``known_in_part``), and a cumulative total that is gives no response's
    share: its usage is unknown, not one with that count 0. But for a line that states
    its ``total_tokens`` beside its input (trimmed to those two, as lines posted for
    0.147 are): its output unknown (None), what its total holds past the input is
    ``rest`` (tokens of no named kind, as every format counts a total's rest), and a
    cached or reasoning part it leaves out is unknown, not 0 (a whole writer's line
    with no cached part, as early ones, has none: 0)."""
    if not isinstance(value, dict):
        return None
    get = value.get  # one per token count: written out, not looped
    a, b, c, d, e = (
        get("input_tokens"),
        get("cached_input_tokens", 0),
        get("output_tokens"),
        get("reasoning_output_tokens", 0),
        get(WRITES, 0),
    )
    if (  # what every writer writes: each one there, a count (``type``: a bool is not)
        type(a) is int
        and type(b) is int
        and type(c) is int
        and type(d) is int
        and type(e) is int
        and 0 <= a <= MOST
        and 0 <= b <= MOST
        and 0 <= c <= MOST
        and 0 <= d <= MOST
        and 0 <= e <= MOST
    ):
        return a, b, c, d, e, 0
    inputs, output = _known(a), _known(c)
    rest: int | None = 0
    if output is None:  # (what its total holds past the input: the output's, unsplit)
        total = _known(get("total_tokens"))
        rest = total - inputs if total is not None and inputs is not None else None
        b, d = get("cached_input_tokens"), get("reasoning_output_tokens")  # (trimmed)
    if inputs is None or rest is None or rest < 0:  # (``known_in_part``: no total of use)
        return None
    return inputs, _known(b), output, _known(d), _known(e), rest


def writes_said(value: Any) -> bool:
    """Does a token-usage object say what was written to the cache?"""
    return isinstance(value, dict) and WRITES in value


def _sub(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a - b


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _past_input(t: Totals) -> int | None:
    """The tokens a total holds past its input: its output, or where that is unknown,
    its ``rest`` (None: unknown too)."""
    return t[5] if t[2] is None else _add(t[2], t[5])


def _tells_all(t: Totals) -> bool:
    """Does a total tell every part a price needs (its input's split and its output)?"""
    return t[1] is not None and t[2] is not None and t[4] is not None


def _split(a: Totals, b: Totals, sign: int) -> Totals:
    """``a + sign * b`` part by part, some part unknown (in either: unknown there): the
    output where both are known, else what each holds past its input as ``rest``."""
    join = _add if sign > 0 else _sub
    if a[2] is None or b[2] is None:
        output, rest = None, join(_past_input(a), _past_input(b))
    else:
        output, rest = a[2] + sign * b[2], join(a[5], b[5])
    inputs = a[0] + sign * b[0]
    return inputs, join(a[1], b[1]), output, join(a[3], b[3]), join(a[4], b[4]), rest


def minus(a: Totals, b: Totals) -> Totals | None:
    """``a - b`` (a part unknown in either: unknown), or None when a counter went
    backwards (a reset: not a delta)."""
    if None in a or None in b:  # (rare: the common case, every part a count, below)
        diff = _split(a, b, -1)
        return None if min(n for n in diff if n is not None) < 0 else diff
    x: _Whole = a  # type: ignore[assignment]  # (no part None: told above, no call)
    y: _Whole = b  # type: ignore[assignment]
    whole = (x[0] - y[0], x[1] - y[1], x[2] - y[2], x[3] - y[3], x[4] - y[4], x[5] - y[5])
    return None if min(whole) < 0 else whole


def plus(a: Totals, b: Totals) -> Totals:
    if None in a or None in b:
        return _split(a, b, 1)
    x: _Whole = a  # type: ignore[assignment]
    y: _Whole = b  # type: ignore[assignment]
    return x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3], x[4] + y[4], x[5] + y[5]


_Whole = tuple[int, int, int, int, int, int]  # (Totals with every part a count)


def usage_of(
    totals: Totals,
    model: str | None,
    *,
    response: bool = True,
    writes: bool = False,
    when: str | None = None,
) -> Usage:
    """Usage of some tokens (one response's, or the session's), cost by the price table
    (as on ``when``'s day); ``writes``: the writer said what it wrote to the cache (else
    no cache writes known). A part unknown leaves the input's share it splits unknown:
    the usage is known in part (``known_in_part``: the input unknown), never priced as
    if it were 0 (a cache write unknown alone: priced, as it is billed as input). An
    output unknown is ``null``, unpriced; what its total holds past the input is counted
    as tokens of no named kind (``rest``), else the usage is known in part."""
    inputs, cached, output, _reasoning, written, rest = totals
    uncached: int | None = None
    cost = None
    if cached is not None:
        cached = min(cached, inputs)
        if output is not None:  # (an output unknown has no price: not one of 0)
            cost = pricing.cost(  # a cache write billed as input (OpenAI's)
                model,
                input_tokens=inputs - cached,
                output_tokens=output,
                cache_read_tokens=cached,
                when=when,
            )
        if written is not None:
            written = min(written, inputs - cached)
            uncached = inputs - cached - written
    elif written is not None:  # (bounded by the input, as where the cached part is known)
        written = min(written, inputs)
    cache_write = written if writes else None
    unsplit = None  # a total's input not told apart: counted, as tokens of no named kind
    if uncached is None:
        unsplit = inputs - (cached or 0) - (cache_write or 0) or None
    if output is None and rest:  # (and what the total holds past it: the output, unsplit)
        unsplit = rest + (unsplit or 0)
    if response:  # ``Usage.of_response``'s counting, every count given (one per response)
        known = 0 if cost is None else 1
        in_part = 1 if uncached is None else 0  # (its input stated: its split is unknown)
        return Usage(
            uncached,
            output,
            cached,
            cache_write,
            cost,
            1,
            1,
            known,
            unsplit,
            in_part=in_part,
            input_unsplit=in_part,
        )
    return Usage(uncached, output, cached, cache_write, cost, total_only_tokens=unsplit)


def to_json(totals: Totals | None, writes: bool = False) -> dict[str, int | None] | None:
    """A total as the writer names its counts (cache writes only where it says them)."""
    if totals is None:
        return None
    return dict(zip(_KEYS if writes else _KEYS[:4], totals, strict=False))


SEED_UNTOLD = (
    "the first token count of this fork (it builds on its parent's history, history_base) "
    "reports no last usage (or one past its total): its total holds the parent's count, "
    "and this file's share of it cannot be told, so that share is unknown and left out "
    "of the usage"
)

# (the texts of a part named ``token_count``: the views put the name before them)
REPEAT = "the same total as the last report"
NO_LIMITS_ONLY = "no usage (rate limits only)"
NO_USAGE = "no usage"


def so_far(total: Totals) -> str:
    """What the raw view says of a token count that reports a total (a part unknown
    said so, never 0)."""
    cached = "unknown" if total[1] is None else f"{total[1]:,}"
    past = _past_input(total)
    tokens = "?" if past is None else f"{total[0] + past:,}"
    out = "unknown" if total[2] is None else f"{total[2]:,}"
    return f"{tokens} tokens so far ({total[0]:,} in, {cached} of them cached, {out} out)"


def reported_total(payload: dict[str, Any]) -> Totals | None:
    """The total a ``token_count`` payload reports itself (None: it reports none)."""
    info = payload.get("info")
    return totals_of(info.get("total_token_usage")) if isinstance(info, dict) else None


# What one event said: a fixed text, or the total it brought (its text is ``so_far``),
# and whether that total is the line's own (``reported_total``) or made from earlier ones.
Note = str | Totals
# A response's model and time: what its tokens are priced by (``usage_of``).
Priced = tuple[str | None, str | None]


def cost_together(totals: Totals, responses: list[Priced]) -> float | None:
    """The cost of several responses' tokens known together only: where they all used
    one model, priced the same on each of their days; else unknown (no model's price
    is a guess at another's)."""
    models = {model for model, _ in responses}
    if len(models) != 1:
        return None
    (model,) = models
    costs = {usage_of(totals, model, response=False, when=when).cost for _, when in responses}
    return costs.pop() if len(costs) == 1 else None


class TokenTally:
    """The running totals of one rollout's ``token_count`` events (their dicts not kept)."""

    def __init__(self) -> None:
        self.last_total: Totals | None = None
        self.last_reported: dict[str, Any] | None = None  # the latest only, to spot repeats
        self.responses = 0
        self.in_part = 0  # of those, responses whose usage is known in part (``usage_of``)
        self.cost = 0.0
        self.cost_reported = 0
        self.events = 0
        self.reports = 0  # events with usage info
        self._rate_limits: dict[str, Any] | None = None  # the latest
        self._limits_raw: bytes | None = None  # the latest as its JSON, not decoded yet
        self.context_window: int | None = None
        self.writes = False  # a report said what was written to the cache
        # A count that starts from 0 again: in a fork (its ``session_meta`` names its
        # parent), the fork's own count after the parent's copied history; in any other
        # rollout, a resumed process counting afresh, whose earlier counts still happened
        # (``carried``: their sum, added to the session's total).
        self.forked = False
        self.carried: Totals | None = None
        # A file that builds on history kept in another file (``history_base`` in its
        # header: a paginated fork, holding none of its parent's lines): Codex starts its
        # count from the parent's, so the first total holds, past its own last usage,
        # what the parent's file counted (``seeded``: left out of the session's).
        self.based = False
        self.seeded: Totals | None = None
        # Its first total came with no last usage (or one bigger): the parent's part of it
        # cannot be told, so all of it is left out, and the first response's usage is
        # unknown (the builder says so: ``SEED_UNTOLD``).
        self.seed_untold = False
        # The fork's own count began at the latest event: what came before is the parent's
        # copied history (the builder takes its usage off the turns and items, and clears it).
        self.fork_began = False
        # A model output came since the last event (the builder says so): a report with no
        # usage then is a response whose usage is unknown; a report of its last usage alone
        # that is the one before again, with no output between, is that report repeated.
        self.spoke = False
        self.unreported = 0  # responses whose report said no usage
        self.last_alone: Totals | None = None  # the latest report's last usage
        # Of those, the ones since the last total the file reported itself (``gap``, each
        # one's model and time): a later one of its own holds their tokens (``cover``).
        # Those it holds together, none known alone, are ``covered``: the session's total
        # holds them, no response's.
        self.gap: list[Priced] = []
        self.covered = 0
        # The usage of the one response of a gap, known from the total that covered it:
        # the builder gives it to that response's item and turn (and clears it).
        self.gap_share: Usage | None = None

    @property
    def rate_limits(self) -> dict[str, Any] | None:
        raw = self._limits_raw
        if raw is not None:  # only the latest is ever decoded
            self._limits_raw = None
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:  # a number orjson cannot hold (msgspec skipped it)
                value = None
            self._rate_limits = value if isinstance(value, dict) else None
        return self._rate_limits

    def limits(self, value: Any) -> None:
        """A ``rate_limits`` value as parsed (only an object replaces the latest)."""
        if isinstance(value, dict):
            self._rate_limits = value
            self._limits_raw = None

    def limits_json(self, raw: bytes) -> None:
        """A ``rate_limits`` value as its JSON (an object's, checked by its first byte)."""
        if raw[:1] == b"{":
            self._limits_raw = raw

    def feed(
        self, payload: dict[str, Any], model: str | None, when: str | None = None
    ) -> tuple[Note, Usage | None, int, bool]:
        """One event as parsed (see ``take``)."""
        self.limits(payload.get("rate_limits"))
        info = payload.get("info")
        if not isinstance(info, dict):
            if info is None and any(key in payload for key in _KEYS):  # 2025: a response's, flat
                return self.take(True, None, None, payload, model, when)
            return self.take(False, None, None, None, model, when)
        window = info.get("model_context_window")
        if not isinstance(window, int) or isinstance(window, bool):
            window = None
        total, last = info.get("total_token_usage"), info.get("last_token_usage")
        return self.take(True, window, total, last, model, when)

    def take(
        self,
        has_info: bool,
        window: int | None,
        reported: Any,
        last_usage: Any,
        model: str | None,
        when: str | None = None,
    ) -> tuple[Note, Usage | None, int, bool]:
        """One event (its rate limits already taken): what it says (a fixed text, or the
        total its ``so_far`` text gives), the new response's usage (None: nothing new),
        that request's input size (0: not known) and whether its total is its own.
        ``when``: the event's time (the response is priced as on its day)."""
        self.events += 1
        spoke, self.spoke = self.spoke, False
        if not has_info:
            return NO_LIMITS_ONLY, self._unreported(spoke, model, when), 0, False
        self.reports += 1
        if window is not None:
            self.context_window = window
        if reported is not None and reported == self.last_reported:
            return REPEAT, None, 0, False  # the same response reported again (most are)
        self.last_reported = reported if isinstance(reported, dict) else None
        total = totals_of(reported)
        own = total is not None
        last = totals_of(last_usage)
        if total is None and last is not None:  # its last usage alone (or flat, 2025's)
            if last == self.last_alone and not spoke:
                return REPEAT, None, 0, False  # no output since: the same report again
            self.last_alone = last
        else:
            self.last_alone = None
        if not self.writes:  # (``writes_said``, where each is known to be a dict)
            said = total is not None and WRITES in reported
            self.writes = said or (last is not None and WRITES in last_usage)
        before = self.last_total
        if total is None and last is not None:
            total = last if before is None else plus(before, last)
        if total is None:
            return NO_USAGE, self._unreported(spoke, model, when), 0, False
        delta: Totals | None
        afresh = False  # a count that starts from 0 again
        if before is None:
            delta = total
            if self.based and own:
                seed = None if last is None else minus(total, last)
                if seed is None:  # this file's share of it cannot be told: none counted
                    self.seeded, self.seed_untold = total, True
                    self.last_total = total
                    if not spoke:
                        return total, None, 0, own
                    self.unreported += 1  # (this response's usage unknown, said)
                    return total, Usage(responses=1), 0, own
                if any(seed):  # (the other file's: not this one's)
                    self.seeded, delta = seed, last
        elif total == before:
            delta = None
        else:
            delta = minus(total, before)
            # A count from 0 again: the total went back, or (a short count before it) a
            # total that is this response's alone.
            afresh = delta is None or (own and total == last and any(before))
            if afresh:
                if self.forked:  # the fork's own: the session total is the last
                    self.responses = self.cost_reported = self.unreported = self.in_part = 0
                    self.covered = 0
                    self.cost = 0.0
                    self.fork_began = True
                    self.seeded = None  # (the total is this count's alone)
                else:  # a resumed process's: what came before is kept
                    self.carried = before if self.carried is None else plus(self.carried, before)
                self.gap = []  # (a gap's tokens went with the count that started again)
                delta = last or total
        self.last_total = total
        if delta is not None and own and self.gap and not afresh:
            delta = self.cover(delta, last, model, when)
            if delta is None:  # this response's share is not known apart from the gap's
                return total, Usage(responses=1), 0, own
        elif delta is not None and not _tells_all(delta) and not afresh:
            delta = self.own_last(delta, last)  # (after a gap: ``cover``, its share apart)
        if delta is None or not any(delta):
            return total, None, 0, own
        usage = usage_of(delta, model, writes=self.writes, when=when)
        self._count(usage)
        return total, usage, last[0] if last is not None else 0, own

    @staticmethod
    def own_last(delta: Totals, last: Totals | None) -> Totals:
        """A response's usage where the change of the totals leaves its input's split
        unknown (a cached or cache-write part that is no count) or its output: its own
        last usage,
        where that tells it and fits in the change (a bad part of one total is that
        response's alone, not every later one's; the reasoning part prices nothing)."""
        if last is None or not _tells_all(last) or minus(delta, last) is None:
            return delta
        return last

    def cover(
        self, delta: Totals, last: Totals | None, model: str | None, when: str | None
    ) -> Totals | None:
        """A total of the file's own after responses whose reports said no usage (the
        gap): it holds their tokens, so the session's total is exact again. ``delta``
        holds the gap's and this response's; this one's is its last usage, where that
        fits in it (else unknown too: None). What is left is the gap's: one response's
        usage where the gap is one (``gap_share``), else theirs together, in the
        session's total alone (``covered``): no response's count is a guess. Each is
        priced by its own model and time (``model`` and ``when`` are this response's).
        Where nothing is left, the total did not count the gap's tokens (a response
        reads its prompt: it is never 0 tokens): they stay unknown, as in their turns
        and items, and no later total covers them."""
        gap, self.gap = self.gap, []
        rest = None if last is None else minus(delta, last)
        if rest is None:  # this response's share is not known apart: it joins the gap
            rest, last = delta, None
            self.unreported += 1
            gap.append((model, when))
        if not any(rest):
            return last
        if len(gap) == 1:
            ((own_model, own_when),) = gap
            share = usage_of(rest, own_model, writes=self.writes, when=own_when)
            self.gap_share = share
            self.unreported -= 1
            self._count(share)
            return last
        self.covered += len(gap)
        cost = cost_together(rest, gap)
        if cost is not None:  # (their cost together, as their tokens)
            self.cost += cost
            self.cost_reported += len(gap)
        return last

    def parents_copied(self) -> None:
        """A fork's copy of its parent's history ended (``fork_copy``): what was counted
        so far is the parent's, and Codex goes on from its count, so it is left out of
        the session's total (``seeded``), as the responses' usage and cost are. A count
        from 0 after it is then a resumed process's (``carried``), as in any rollout."""
        self.forked = False
        counted = self.last_total
        if self.carried is not None:
            counted = self.carried if counted is None else plus(self.carried, counted)
        self.seeded, self.carried = counted, None
        self.responses = self.cost_reported = self.unreported = self.covered = 0
        self.in_part = 0
        self.cost = 0.0
        self.gap = []
        self.gap_share = None

    def _count(self, usage: Usage) -> None:
        """A response whose usage is known, counted."""
        self.responses += 1
        self.in_part += usage.in_part
        if usage.cost is not None:
            self.cost += usage.cost
            self.cost_reported += 1

    def _unreported(self, spoke: bool, model: str | None, when: str | None) -> Usage | None:
        """A report with no usage: after a model output, that response's (usage unknown,
        one response that could have reported; a later total of the file's own may cover
        it, priced by this one's ``model`` and ``when``), else nothing new."""
        if not spoke:
            return None
        self.unreported += 1
        self.gap.append((model, when))
        return Usage(responses=1)

    def unanswered(self, model: str | None, when: str | None) -> Usage | None:
        """A turn's end with a model output since the last report (its writer wrote none
        after it: it died, or the turn was aborted first): that response's usage is
        unknown, as a report with no usage says (``_unreported``); None: none came."""
        spoke, self.spoke = self.spoke, False
        return self._unreported(spoke, model, when)

    def usage(self) -> Usage:
        """The session's usage: the last cumulative total (never a sum of reports), with
        the responses whose usage is unknown among those that could have reported."""
        if self.last_total is None:
            return Usage(responses=self.unreported)
        counted = self.last_total if self.carried is None else plus(self.carried, self.last_total)
        if self.seeded is not None:
            own = minus(counted, self.seeded)
            if own is not None and not any(own):  # (none of its own reported: unknown)
                return Usage(responses=self.unreported)
            counted = own or counted
        total = usage_of(counted, None, response=False, writes=self.writes)
        total.cost = self.cost if self.cost_reported else None
        total.reported = self.responses + self.covered  # (in the total: ``cover``)
        total.responses = self.responses + self.unreported
        total.cost_reported = self.cost_reported
        total.in_part = self.in_part
        return total


__all__ = [
    "NO_LIMITS_ONLY",
    "NO_USAGE",
    "REPEAT",
    "SEED_UNTOLD",
    "WRITES",
    "Note",
    "Priced",
    "TokenTally",
    "Totals",
    "cost_together",
    "minus",
    "plus",
    "reported_total",
    "so_far",
    "to_json",
    "totals_of",
    "usage_of",
    "writes_said",
]
