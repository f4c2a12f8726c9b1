"""Write ``session_core/data/prices.json`` from genai-prices (pydantic/genai-prices).

    pip install genai-prices && python tools/update_prices.py [--date YYYY-MM-DD]

genai-prices keeps the list prices of the models of many providers, and how they
change with a prompt's size and over time. tailscope prices a response many times a
second while a big file loads, so it does not call that library: this script takes a
snapshot of it, the prices of every model of the first-party providers below, as a
table ``session_core.pricing`` reads. Per model, its per-million-token prices of
input, output, cache read and the 5-minute and one-hour cache writes, each a number
or ``[base, [[above, price], ...]]``: a request whose prompt (input, cache read and
cache write together) is over ``above`` tokens pays ``price`` for all its tokens of
that kind (genai-prices' tiers). A model whose price changed on given days keeps each
price with its first day (``[[null, prices], ["2026-03-13", prices]]``); one whose
price changes with the time of day has the price at noon UTC on ``--date`` (default:
today). A model is named by its id and by every plain name its match rule starts with
or equals; a name two providers both claim is the first one's, in the order below.
The table's ``fast`` (a model's fast-mode multiple, with ``fast-source``) is hand-kept:
genai-prices has no fast mode, so it is carried over from the file as it was.
"""

from __future__ import annotations

import argparse
import datetime
import json
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path
from typing import Any

from genai_prices import data
from genai_prices.types import (
    ClauseAnd,
    ClauseEquals,
    ClauseOr,
    ClauseStartsWith,
    ModelInfo,
    ModelPrice,
    StartDateConstraint,
    TieredPrices,
)

OUT = Path(__file__).resolve().parent.parent / "session_core" / "data" / "prices.json"
# The model makers' own price lists, in this order (a name both claim is the first's).
PROVIDERS = (
    "anthropic",
    "openai",
    "google",
    "mistral",
    "deepseek",
    "x-ai",
    "moonshotai",
    "zai",
    "minimax",
    "cohere",
)
KEYS = (
    ("input", "input_mtok"),
    ("output", "output_mtok"),
    ("cache-read", "cache_read_mtok"),
    ("cache-write", "cache_write_mtok"),
    ("cache-write-1h", "cache_write_1h_mtok"),
)


def _names(info: ModelInfo) -> set[str]:
    """The model's id and the plain names its match rule starts with or equals."""
    names = {info.id.lower()}
    todo: list[Any] = [info.match]
    while todo:
        clause = todo.pop()
        if isinstance(clause, ClauseOr):
            todo.extend(clause.or_)
        elif isinstance(clause, ClauseAnd):
            continue  # (a name with a condition besides: not a plain name)
        elif isinstance(clause, ClauseStartsWith):
            names.add(clause.starts_with.lower())
        elif isinstance(clause, ClauseEquals):
            names.add(clause.equals.lower())
    return {name for name in names if name and " " not in name and "/" not in name}


def _number(value: Decimal) -> float | int:
    as_float = float(value)
    return int(as_float) if as_float.is_integer() else as_float


def _price(value: Decimal | TieredPrices | None) -> Any:
    if value is None:
        return None
    if isinstance(value, TieredPrices):
        return [_number(value.base), [[tier.start, _number(tier.price)] for tier in value.tiers]]
    return _number(value)


def _prices(prices: ModelPrice) -> dict[str, Any]:
    return {
        key: price
        for key, attr in KEYS
        if (price := _price(getattr(prices, attr, None))) is not None
    }


def _entry(info: ModelInfo, when: datetime.datetime) -> Any:
    """A model's prices: as on ``when``, or, where they changed on given days (not by the
    time of day), each with the day it started (``[[None, ...], ["2026-03-13", ...]]``)."""
    conditional = [] if isinstance(info.prices, ModelPrice) else info.prices
    if conditional and all(
        c.constraint is None or isinstance(c.constraint, StartDateConstraint) for c in conditional
    ):
        dated = sorted(
            (c.constraint.start_date.isoformat() if c.constraint else "", _prices(c.prices))
            for c in conditional
        )
        return [[start or None, prices] for start, prices in dated]
    return _prices(info.get_prices(when))


def snapshot(day: datetime.date) -> dict[str, Any]:
    when = datetime.datetime.combine(day, datetime.time(12), tzinfo=datetime.UTC)
    models: dict[str, Any] = {}
    by_id = {provider.id: provider for provider in data.providers}
    for provider_id in PROVIDERS:
        for info in by_id[provider_id].models:
            entry = _entry(info, when)
            latest = entry[-1][1] if isinstance(entry, list) else entry
            if "input" not in latest or "output" not in latest:
                continue  # (an image, audio or embedding model: not a chat model's prices)
            for name in sorted(_names(info)):
                models.setdefault(name, entry)
    return {
        "as-of": day.isoformat(),
        "source": (
            f"genai-prices {version('genai-prices')} (pydantic/genai-prices),"
            f" providers {', '.join(PROVIDERS)}"
        ),
        "unit": "USD per million tokens",
        "note": (
            "List prices in effect on as-of (tools/update_prices.py); a model not here has"
            " an unknown cost. cache-write is the 5-minute prompt-cache write, cache-write-1h"
            " the one-hour one. A model whose price changed on given days has"
            " [[start day or null, prices], ...]. A price"
            " [base, [[above, price], ...]] is tiered: a request whose prompt (input, cache"
            " read and cache write) is over `above` tokens pays `price` for all of them."
        ),
        "models": dict(sorted(models.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--date", type=datetime.date.fromisoformat, default=datetime.date.today())
    args = parser.parse_args()
    table = snapshot(args.date)
    # The fast-mode multiples genai-prices has not: hand-kept with their sources, kept.
    if OUT.exists():
        kept = json.loads(OUT.read_text("utf-8"))
        models = table.pop("models")
        table.update({key: kept[key] for key in ("fast-source", "fast") if key in kept})
        table["models"] = models
    lines = [f"    {json.dumps(name)}: {json.dumps(p)}" for name, p in table["models"].items()]
    head = {k: v for k, v in table.items() if k != "models"}
    text = json.dumps(head, indent=2, ensure_ascii=False)[:-2]
    OUT.write_text(text + ',\n  "models": {\n' + ",\n".join(lines) + "\n  }\n}\n", "utf-8")
    print(f"{OUT}: {len(lines)} model names, as of {table['as-of']}")


if __name__ == "__main__":
    main()
