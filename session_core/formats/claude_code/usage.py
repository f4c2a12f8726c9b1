"""Usage bookkeeping: each response's usage made once, and the totals kept folded.

A response split over lines reports its usage on each (the early ones partial): the
builder notes the largest value of each count (``UsageBook.report``) and the response's
``Usage`` and cost are made once, when the model is next assembled (``settle``). The
file's total and each turn's stay folded between assemblies of a followed file, folded
again only from a response whose usage was made again (``file_total``, ``run_total``).
"""

from __future__ import annotations

import copy
import itertools
from array import array
from collections.abc import Collection, Iterable

from ... import pricing
from ...item_column import ItemColumn
from ...model import Usage
from .lines import TokenUsage
from .records import NO_COUNT, Response

SYNTHETIC = "<synthetic>"  # the model name of messages Claude Code makes up itself
NOT_TOUCHED = 1 << 62  # ``touched`` when no response's usage changed
_OPEN = 16  # the last responses, still being written: folded afresh every time
_UNREPORTED = Usage(responses=1)


class UsageBook:
    """What changed responses' usage since the last assembly, and the totals kept."""

    __slots__ = ("prefix", "runs", "runs_touched", "stale", "touched")

    def __init__(self) -> None:
        self.stale: list[Response] = []  # responses whose usage changed (``settle``)
        # The fold of the file's first responses (by ``order``), and each turn's.
        self.prefix: tuple[int, Usage] | None = None
        self.runs: dict[int, tuple[int, Usage]] = {}
        # The first response (by ``order``) and the turns whose usage was made again.
        self.touched = NOT_TOUCHED
        self.runs_touched: set[int] = set()

    def report(self, response: Response, usage: TokenUsage, model: str | None) -> None:
        """A line of ``response`` reported ``usage``: the largest value of each count."""
        for at, value in enumerate(
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_input_tokens,
                usage.cache_creation_input_tokens,
            )
        ):
            if value is not None:
                _largest(response, at, value)
        model = response.model or model
        if model == SYNTHETIC:
            return  # made up by Claude Code, not a response of a model
        response.priced = model
        if not response.stale:  # its Usage is made when the model is next assembled
            response.stale = True
            self.stale.append(response)

    def replaced(self, response: Response) -> None:
        """``response`` is no longer the file's (another side's took its place)."""
        self.touched = min(self.touched, response.order)
        self.runs_touched.add(response.run)

    def settle(self, column: ItemColumn) -> None:
        """Each response whose lines reported usage since the last assembly: its Usage
        (the largest value of each count over its lines) and cost, made once."""
        touched, runs, set_usage = self.touched, self.runs_touched, column.set_usage
        for response in self.stale:
            inp, out, cread, cwrite = counts(response)
            response.usage = usage = Usage.of_response(
                input_tokens=inp,
                output_tokens=out,
                cache_read_tokens=cread,
                cache_write_tokens=cwrite,
                cost=pricing.cost(
                    response.priced,
                    input_tokens=inp,
                    output_tokens=out,
                    cache_read_tokens=cread,
                    cache_write_tokens=cwrite,
                ),
            )
            response.stale = False
            set_usage(response.raw, usage)
            touched = min(touched, response.order)  # (as ``replaced`` says)
            runs.add(response.run)
        self.touched = touched
        self.stale.clear()

    def file_total(self, responses: Collection[Response]) -> Usage:
        """The file's usage: every response once (one that reported nothing counts as a
        response), in order. The fold over all but the last few is
        kept, and folded again from the start when a response in it had its usage made
        again since."""
        prefix = self.prefix
        if prefix is None or self.touched < prefix[0]:
            prefix = (0, Usage())
        self.touched = NOT_TOUCHED
        done, folded = prefix
        keep = max(len(responses) - _OPEN, done)
        if keep > done:
            folded = copy.copy(folded)
            _fold(folded, itertools.islice(responses, done, keep))
        self.prefix = (keep, folded)
        total = copy.copy(folded)
        _fold(total, itertools.islice(responses, keep, None))
        return total

    def run_total(self, index: int, responses: list[Response]) -> Usage:
        """A turn's usage: its responses' that reported, in order (kept per turn, folded
        again when one of them had its usage made again since)."""
        kept = self.runs.get(index)
        if kept is None or index in self.runs_touched:
            kept = (0, Usage())
        count, total = kept
        if len(responses) > count:
            total = copy.copy(total)
            for r in responses[count:]:
                if r.usage is not None:
                    total.add(r.usage)
            self.runs[index] = (len(responses), total)
        return copy.copy(total)


def _largest(response: Response, at: int, value: int) -> None:
    """The ``at``-th count of ``response`` is at least ``value``."""
    tokens = response.tokens
    if isinstance(tokens, array):
        if tokens[at] != NO_COUNT and value <= tokens[at]:
            return
        if NO_COUNT < value < 1 << 63:
            tokens[at] = value
            return
        # (a count no int64 holds, in a hostile file: kept as a list from now on)
        tokens = response.tokens = counts(response)
    old = tokens[at]
    if old is None or value > old:
        tokens[at] = value


def counts(response: Response) -> list[int | None]:
    """A response's counts (input, output, cache read, cache write; None: not reported)."""
    tokens = response.tokens
    if isinstance(tokens, array):
        return [None if t == NO_COUNT else t for t in tokens]
    return tokens


def fold(responses: Iterable[Response]) -> Usage:
    """These responses' usage, each once (as the file's total counts them)."""
    total = Usage()
    _fold(total, responses)
    return total


def _fold(total: Usage, responses: Iterable[Response]) -> None:
    for r in responses:
        if r.model != SYNTHETIC:
            total.add(r.usage if r.usage is not None else _UNREPORTED)


__all__ = ["NOT_TOUCHED", "SYNTHETIC", "UsageBook", "fold"]
