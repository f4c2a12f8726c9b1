"""Cost from a dated table of known models' list prices (``data/prices.json``, a snapshot
of genai-prices taken by ``tools/update_prices.py``).

A model the table does not name has an unknown cost (``None``), never 0. A model id is
priced as the table name it is, or the longest it starts with followed by a variant of
the same model (a dated id, ``claude-sonnet-4-5-20250929``; a cloud's,
``claude-haiku-5-5@…``), so ``gpt-5`` never prices ``gpt-5.3``, nor ``claude-opus-4``
``claude-opus-4-9``. A tiered price (``[base, [[above, price], ...]]``)
is the price of every token of its kind in a request whose prompt (input, cache read
and cache write together) is over ``above`` tokens: the providers' long-context rates.
A model whose price changed has each price with the day it started: a response is
priced as on its own day. A fast-mode response (Claude's ``usage.speed: "fast"``) costs a
multiple of its model's standard prices (the table's ``fast``, hand-kept with its
sources); of a model whose multiple the table does not know, its cost is unknown.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any, cast

import orjson

_FIELDS = ("input", "output", "cache-read", "cache-write", "cache-write-1h")


@functools.cache
def table() -> dict[str, Any]:
    """The price table as shipped (``as-of``, ``unit``, ``models``)."""
    # Read by the package's loader, as ``pkgutil.get_data`` does (a zipped package's too):
    # ``importlib.resources`` imported tempfile, shutil, zipfile, bz2 and lzma at a Claude
    # Code or Codex file's first open, 15 M instructions, for this one file.
    where = os.path.join(os.path.dirname(__file__), "data", "prices.json")
    loader: Any = __spec__.loader  # (a SourceFileLoader, a zipimporter: each has get_data)
    loaded: dict[str, Any] = orjson.loads(loader.get_data(where))
    return loaded


Price = float | list[Any]  # a number, or [base, [[above, price], ...]]
# What may follow a table name in a model id of the same model: a date, ``-latest``, a
# version of the same weights (``-v1``), a cloud's suffix (``@…``, ``:…``); not another
# version number (``claude-opus-4`` does not price ``claude-opus-4-9``). A table name
# that ends in ``-``, ``@`` or ``:`` is a prefix as it is (``ft:gpt-3.5-turbo-``).
_VARIANT = re.compile(
    r"(?:-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{4}|latest|v\d+))*(?:[@:].*|\[\w+\])?"  # [1m]: a context
)


Prices = dict[str, Price]


@functools.cache
def _entry(model: str) -> Prices | list[Any] | None:
    """The table's entry for a model: its prices, or ``[[start, prices], ...]`` for a
    model whose price changed (start dates ascending, the first None)."""
    models: dict[str, Any] = table()["models"]
    name = _named(model.lower(), models)
    return None if name is None else cast("Prices | list[Any]", models[name])


def _named(model: str, names: dict[str, Any]) -> str | None:
    """The name of ``names`` a (lower-case) model id is priced as: its own, or the
    longest it starts with followed by a variant of the same model."""
    if model in names:
        return model
    best: str | None = None
    for name in names:
        if (
            model.startswith(name)
            and (name[-1] in "-@:" or _VARIANT.fullmatch(model, len(name)))
            and (best is None or len(name) > len(best))
        ):
            best = name
    return best


@functools.cache
def fast_times(model: str) -> float | None:
    """How many times its standard prices a model's fast-mode response costs (the
    table's ``fast``), or None where the table does not know it."""
    fast: dict[str, float] = table().get("fast", {})
    name = _named(model.lower(), fast)
    return None if name is None else float(fast[name])


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _day(when: str | None) -> str | None:
    """The day of an ISO timestamp, or None where it names none."""
    return None if when is None else _as_day(when[:10])


@functools.lru_cache(maxsize=4096)  # (a day of the files read: a few)
def _as_day(head: str) -> str | None:
    """A timestamp's first ten characters as a day (asked once a day: every response of
    a dated model is priced on its own)."""
    return head if _DAY.match(head) else None


def prices_for(model: str | None, when: str | None = None) -> Prices | None:
    """The per-million-token prices of a model on the day of ``when`` (an ISO timestamp;
    None, or not a date: the table's ``as-of`` day), or None when the table does not
    know it."""
    entry = _entry(model) if model else None
    if entry is None or isinstance(entry, dict):
        return entry
    return _on_day(cast("str", model), _day(when) or table()["as-of"])


@functools.lru_cache(maxsize=4096)
def _on_day(model: str, day: str) -> Prices:
    """A dated model's prices on ``day`` (found once a model and day)."""
    entry = cast("list[Any]", _entry(model))
    chosen: Prices = entry[0][1]
    for start, prices in entry:
        if start is None or start <= day:
            chosen = prices
    return chosen


def is_dated(model: str | None) -> bool:
    """Whether a model's price changed (its cost then needs the response's time)."""
    if not model:
        return False
    return type(_entry(model)) is list


def cost(
    model: str | None,
    *,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    cache_read_tokens: int | None = None,
    cache_write_tokens: int | None = None,
    cache_write_1h_tokens: int | None = None,
    when: str | None = None,
    speed: str | None = None,
) -> float | None:
    """What one response (one request) cost in USD, or None when the model or a needed
    price is unknown.

    Token counts that are None count as 0 (the response did not use that kind), so a
    response whose input or output is unknown is not priced here at all: known in part
    (``message_usage.known_in_part``), its cost is unknown, not one with that count 0. A
    kind the response used but the table has no price for makes the cost unknown.
    ``input_tokens`` are those neither read from nor written to the cache: the prompt
    (which picks a tiered price) is the three together. ``cache_write_1h_tokens``: of
    the cache writes, those kept for an hour (priced as such; the rest for 5 minutes).
    ``when``: the response's time (where its model's price changed, ``is_dated``);
    with none, such a response's cost is known only where each of its prices gives
    the same. ``speed``: the one the response was served at (Claude's ``usage.speed``;
    None or ``standard``: the standard prices); ``fast`` costs the model's fast
    multiple of them (across the prompt's tiers and cache kinds, as billed), unknown
    where the table has none for it, as is a speed it does not name.
    """
    times = 1.0
    if speed is not None and speed != "standard":
        found = fast_times(model) if model and speed == "fast" else None
        if found is None:
            return None  # (never the standard prices: the response cost more)
        times = found
    written = cache_write_tokens or 0
    hour = min(cache_write_1h_tokens or 0, written)
    counts = (input_tokens, output_tokens, cache_read_tokens, written - hour, hour)
    prompt = (input_tokens or 0) + (cache_read_tokens or 0) + written
    entry = _entry(model) if model else None
    if entry is None:
        return None
    if isinstance(entry, list):  # (its day asked once: ``prices_for``'s, inline)
        day = _day(when)
        if day is None:  # dated, and no day to price on
            each = {_priced(prices, counts, prompt) for _, prices in entry}
            found_cost = each.pop() if len(each) == 1 else None
            return None if found_cost is None else found_cost * times
        entry = _on_day(cast("str", model), day)
    priced = _priced(entry, counts, prompt)
    return None if priced is None else priced * times


def _priced(prices: Prices, counts: tuple[int | None, ...], prompt: int) -> float | None:
    """``counts`` (as ``_FIELDS``) at ``prices``: None where a count used has no price."""
    total = 0.0
    for count, key in zip(counts, _FIELDS, strict=True):
        if not count:
            continue
        price = prices.get(key)
        if price is None:
            return None
        if isinstance(price, list):  # (a tiered one, the prompt's tier: most are a number)
            base, tiers = price
            price = base
            for above, tiered in reversed(tiers):
                if prompt > above:
                    price = tiered
                    break
            price = float(price)
        total += count * price / 1_000_000
    return total


__all__ = ["cost", "fast_times", "is_dated", "prices_for", "table"]
