"""Cost from a dated table of known models' list prices (``data/prices.json``, a snapshot
of genai-prices taken by ``tools/update_prices.py``).

A model the table does not name has an unknown cost (``None``), never 0. A model id is
priced as the table name it is, or the longest it starts with followed by a variant of
the same model (a dated id, ``claude-sonnet-4-5-20250929``; a cloud's,
``claude-haiku-5-5@…``), so ``gpt-5`` never prices ``gpt-5.3``, nor ``claude-opus-4``
``claude-opus-4-9``. A tiered price (``[base, [[above, price], ...]]``)
is the price of every token of its kind in a request whose prompt (input, cache read
and cache write together) is over ``above`` tokens: the providers' long-context rates.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

_FIELDS = ("input", "output", "cache-read", "cache-write", "cache-write-1h")


@functools.cache
def table() -> dict[str, Any]:
    """The price table as shipped (``as-of``, ``unit``, ``models``)."""
    text = resources.files("session_core").joinpath("data/prices.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


Price = float | list[Any]  # a number, or [base, [[above, price], ...]]
# What may follow a table name in a model id of the same model: a date, ``-latest``, a
# version of the same weights (``-v1``), a cloud's suffix (``@…``, ``:…``); not another
# version number (``claude-opus-4`` does not price ``claude-opus-4-9``). A table name
# that ends in ``-``, ``@`` or ``:`` is a prefix as it is (``ft:gpt-3.5-turbo-``).
_VARIANT = re.compile(
    r"(?:-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{4}|latest|v\d+))*(?:[@:].*|\[\w+\])?"  # [1m]: a context
)


@functools.cache
def prices_for(model: str | None) -> dict[str, Price] | None:
    """The per-million-token prices of a model, or None when the table does not know it."""
    if not model:
        return None
    model = model.lower()
    models: dict[str, dict[str, Price]] = table()["models"]
    found = models.get(model)
    if found is not None:
        return found
    best: str | None = None
    for name in models:
        if (
            model.startswith(name)
            and (name[-1] in "-@:" or _VARIANT.fullmatch(model, len(name)))
            and (best is None or len(name) > len(best))
        ):
            best = name
    return None if best is None else models[best]


def _per_million(price: Price, prompt: int) -> float:
    """A price for a request whose prompt is ``prompt`` tokens (a tier's over its start)."""
    if not isinstance(price, list):
        return price
    base, tiers = price
    for above, tiered in reversed(tiers):
        if prompt > above:
            return float(tiered)
    return float(base)


def cost(
    model: str | None,
    *,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    cache_read_tokens: int | None = None,
    cache_write_tokens: int | None = None,
    cache_write_1h_tokens: int | None = None,
) -> float | None:
    """What one response (one request) cost in USD, or None when the model or a needed
    price is unknown.

    Token counts that are None count as 0 (the response did not use that kind); a
    kind the response used but the table has no price for makes the cost unknown.
    ``input_tokens`` are those neither read from nor written to the cache: the prompt
    (which picks a tiered price) is the three together. ``cache_write_1h_tokens``: of
    the cache writes, those kept for an hour (priced as such; the rest for 5 minutes).
    """
    prices = prices_for(model)
    if prices is None:
        return None
    written = cache_write_tokens or 0
    hour = min(cache_write_1h_tokens or 0, written)
    counts = (input_tokens, output_tokens, cache_read_tokens, written - hour, hour)
    prompt = (input_tokens or 0) + (cache_read_tokens or 0) + written
    total = 0.0
    for count, key in zip(counts, _FIELDS, strict=True):
        if not count:
            continue
        price = prices.get(key)
        if price is None:
            return None
        total += count * _per_million(price, prompt) / 1_000_000
    return total


__all__ = ["cost", "prices_for", "table"]
