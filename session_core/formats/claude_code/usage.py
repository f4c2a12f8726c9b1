"""Usage bookkeeping: each response's usage made once, and the totals kept folded.

A response split over lines reports its usage on each (the early ones partial): the
builder notes the largest value of each count (``UsageBook.report``) and the response's
``Usage`` and cost are made once, when the model is next assembled (``settle``). The
file's total and each turn's stay folded between assemblies of a followed file, folded
again only from a response whose usage was made again (``file_total``, ``run_total``).
"""

from __future__ import annotations

import copy
import math
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence

from ... import pricing
from ...item_column import ItemColumn
from ...message_usage import known_in_part
from ...model import Usage
from ...response_usage import ResponseUsage
from ...text import as_written, one_line
from .lines import TokenUsage
from .responses import COUNTS, NO_COUNT, STALE, Responses

SYNTHETIC = "<synthetic>"  # the model name of messages Claude Code makes up itself
# The raw view's mark on a response written again where it was (its earlier copy): the
# usage it shows as written is counted once, with the copy's (``conversation``).
USAGE_WITH_COPY = "usage counted with its copy"
NOT_TOUCHED = 1 << 62  # ``touched`` when no response's usage changed
_OPEN = 16  # the last responses, still being written: folded afresh every time
_UNREPORTED = Usage(responses=1)


class IsResponse:
    """Is a raw item a model's response (one Claude Code made up is not)? From the
    responses' raw items (``Responses.raw``, ascending) and the raw column alone."""

    __slots__ = ("items", "raw")

    def __init__(self, raw: array[int], items: ItemColumn) -> None:
        self.raw, self.items = raw, items

    def __call__(self, index: int) -> bool:
        raw = self.raw
        at = bisect_left(raw, index)
        found = at < len(raw) and raw[at] == index
        return found and self.items.model_of(index) != SYNTHETIC


class UsageBook:
    """What changed responses' usage since the last assembly, each response's usage (its
    raw item's, in the raw column's ``ResponseUsage``) and the totals kept."""

    __slots__ = ("items", "prefix", "responses", "runs", "runs_touched", "stale", "touched")

    def __init__(self, responses: Responses, raw: ItemColumn) -> None:
        self.responses = responses
        # (a test holding the book itself would make a cycle of it, its responses' tables
        # kept until the collector runs: paused while a file loads, each subagent file's)
        self.items = ResponseUsage(raw, IsResponse(responses.raw, raw))
        raw.facts = self.items
        self.stale: list[int] = []  # responses whose usage changed (``settle``)
        # The fold of the file's first responses (by place), and each turn's.
        self.prefix: tuple[int, Usage] | None = None
        self.runs: dict[int, tuple[int, Usage]] = {}
        # The first response (by place) and the turns whose usage was made again.
        self.touched = NOT_TOUCHED
        self.runs_touched: set[int] = set()

    def report(
        self, at: int, usage: TokenUsage, model: str | None, cost: float | None = None
    ) -> None:
        """A line of response ``at`` reported ``usage``: the largest value of each count;
        ``cost``: what the line says the response cost (older writers' ``costUSD``)."""
        responses = self.responses
        if cost is not None and math.isfinite(cost) and cost >= 0:
            written = responses.written_cost
            written[at] = max(cost, written.get(at, 0.0))
        tokens, slot, big = responses.tokens, COUNTS * at, responses.big
        created = usage.cache_creation
        for which, value in enumerate(
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_input_tokens,
                usage.cache_creation_input_tokens,
                None if created is None else created.ephemeral_1h_input_tokens,
            )
        ):
            if value is None or value < 0:  # (a negative count is none: unknown)
                continue
            old = tokens[slot + which]  # (inline: every assistant line reports four)
            if big or not NO_COUNT < value < 1 << 63:
                responses.largest(at, which, value)
            elif old == NO_COUNT or value > old:
                tokens[slot + which] = value
        if usage.server_tool_use is not None and usage.searched():
            responses.searched.add(at)
        speed = usage.speed
        if speed is not None and speed != "standard":
            responses.speed[at] = speed
        model = responses.model(at) or model
        if model == SYNTHETIC:
            return  # made up by Claude Code, not a response of a model
        responses.priced[at] = responses.items.code(model)
        if not responses.flags[at] & STALE:  # its Usage is made at the next assembly
            responses.flags[at] |= STALE
            self.stale.append(at)

    def replaced(self, at: int) -> None:
        """Response ``at`` is no longer the file's (another side's took its place)."""
        responses = self.responses
        self.touched = min(self.touched, responses.order[at])
        self.runs_touched.add(responses.run[at])

    def settle(self) -> None:
        """Each response whose lines reported usage since the last assembly: its Usage
        (the largest value of each count over its lines) and cost, made once (in file
        order: the raw column's usage is kept in it)."""
        responses, items = self.responses, self.items
        touched, runs = self.touched, self.runs_touched
        searched, speeds = responses.searched, responses.speed
        for at in sorted(self.stale):
            inp, out, cread, cwrite, hour = responses.counts(at)
            model = responses.items.string(responses.priced[at])
            # (its time read only for a model whose price changed: as on its day)
            when = responses.items.ts_of(responses.raw[at]) if pricing.is_dated(model) else None
            cost = responses.written_cost.get(at)  # (the writer's own, where it said)
            # (one known in part is not priced: the count it lacks is unknown, not 0; nor
            # one that searched the web: its searches have no price here; a fast-mode
            # one at its model's fast multiple, unknown where the table has none)
            speed = speeds.get(at) if speeds else None
            if cost is None and not known_in_part(inp, out, None) and at not in searched:
                cost = pricing.cost(
                    model,
                    input_tokens=inp,
                    output_tokens=out,
                    cache_read_tokens=cread,
                    cache_write_tokens=cwrite,
                    cache_write_1h_tokens=hour,
                    when=when,
                    speed=speed,
                )
            usage = Usage.of_response(
                input_tokens=inp,
                output_tokens=out,
                cache_read_tokens=cread,
                cache_write_tokens=cwrite,
                cost=cost,
            )
            if cost is None and speed is not None and usage.reported:  # (rare)
                usage.unpriced_why = _speed_unpriced(model, speed)
            responses.flags[at] &= ~STALE
            if not usage.reported:  # (``{}``, every count null: as a usage of null)
                continue
            items.set(responses.raw[at], usage)
            touched = min(touched, responses.order[at])  # (as ``replaced`` says)
            runs.add(responses.run[at])
        self.touched = touched
        self.stale.clear()

    def usage(self, at: int) -> Usage | None:
        """Response ``at``'s usage, as last settled (unknown, ``Usage(responses=1)``: it
        reported none; None: Claude Code made it up)."""
        return self.items.usage(self.responses.raw[at])

    def file_total(self) -> Usage:
        """The file's usage: every response once (one that reported nothing counts as a
        response), in order. The fold over all but the last few is
        kept, and folded again from the start when a response in it had its usage made
        again since."""
        prefix = self.prefix
        if prefix is None or self.touched < prefix[0]:
            prefix = (0, Usage())
        self.touched = NOT_TOUCHED
        done, folded = prefix
        order = self.responses.by_order
        keep = max(len(order) - _OPEN, done)
        # (slices, not ``islice``: that steps through every response before ``keep``)
        if keep > done:
            folded = copy.copy(folded)
            self._fold(folded, order[done:keep])
        self.prefix = (keep, folded)
        total = copy.copy(folded)
        self._fold(total, order[keep:])
        return total

    def run_total(self, index: int, responses: Sequence[int]) -> Usage:
        """A turn's usage: its responses', each once, as the file's total counts them
        (one that reported nothing counts as a response), in order (kept per turn,
        folded again when one of them had its usage made again since)."""
        kept = self.runs.get(index)
        if kept is None or index in self.runs_touched:
            kept = (0, Usage())
        count, total = kept
        if len(responses) > count:
            total = copy.copy(total)
            self._fold(total, responses[count:])
            self.runs[index] = (len(responses), total)
        return copy.copy(total)

    def fold(self, responses: Iterable[int]) -> Usage:
        """These responses' usage, each once (as the file's total counts them)."""
        total = Usage()
        self._fold(total, responses)
        return total

    def _fold(self, total: Usage, responses: Iterable[int]) -> None:
        model = self.responses.model
        for at in responses:
            if model(at) != SYNTHETIC:
                usage = self.usage(at)
                total.add(usage if usage is not None else _UNREPORTED)


def _speed_unpriced(model: str | None, speed: str) -> tuple[str, ...]:
    """Why a response served at ``speed`` (not the standard) has no cost, where its speed
    is why: the price table has no multiple of it for its model (``pricing.fast_times``;
    a speed other than fast has none for any). Empty: another reason (its model, or a
    count, has no price), said by none."""
    if speed == "fast":
        if model is not None and pricing.fast_times(model) is not None:
            return ()  # (its speed is priced: the cost is unknown for another reason)
        return (f"fast mode: no price known for {_model_said(model)}",)
    return (f"speed {as_written(speed)}: no price known for {_model_said(model)}",)


def _model_said(model: str | None) -> str:
    """A model's name as a reason says it (from the file: inert, on one line, cut)."""
    if model is None:
        return "no model named"
    said = one_line(model)
    return said if len(said) <= 80 else said[:79] + "…"


__all__ = ["NOT_TOUCHED", "SYNTHETIC", "UsageBook"]
