"""Cost from a small, dated table of known models' list prices (``data/prices.json``).

A model the table does not name has an unknown cost (``None``), never 0. A dated
model id (``claude-sonnet-4-5-20250929``) is priced as the longest table name it
starts with, followed by ``-`` or the end, so ``gpt-5`` never prices ``gpt-5.3``.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

_FIELDS = ("input", "output", "cache-read", "cache-write")


@functools.cache
def table() -> dict[str, Any]:
    """The price table as shipped (``as-of``, ``unit``, ``models``)."""
    text = resources.files("session_core").joinpath("data/prices.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@functools.cache
def prices_for(model: str | None) -> dict[str, float] | None:
    """The per-million-token prices of a model, or None when the table does not know it."""
    if not model:
        return None
    models: dict[str, dict[str, float]] = table()["models"]
    best: str | None = None
    for name in models:
        if (model == name or model.startswith(name + "-")) and (
            best is None or len(name) > len(best)
        ):
            best = name
    return None if best is None else models[best]


def cost(
    model: str | None,
    *,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    cache_read_tokens: int | None = None,
    cache_write_tokens: int | None = None,
) -> float | None:
    """What a response cost in USD, or None when the model or a needed price is unknown.

    Token counts that are None count as 0 (the response did not use that kind); a
    kind the response used but the table has no price for makes the cost unknown.
    """
    prices = prices_for(model)
    if prices is None:
        return None
    total = 0.0
    for count, key in zip(
        (input_tokens, output_tokens, cache_read_tokens, cache_write_tokens), _FIELDS, strict=True
    ):
        if not count:
            continue
        price = prices.get(key)
        if price is None:
            return None
        total += count * price / 1_000_000
    return total


__all__ = ["cost", "prices_for", "table"]
