"""The price table (``data/prices.json``, a snapshot of genai-prices) and what a response
costs by it: models named by their ids and dated or cloud variants, tiered prices by the
size of a request's prompt, an unknown model or price never 0."""

from __future__ import annotations

import math
from typing import Any

import pytest

from session_core import pricing
from session_core.pricing import cost, prices_for, table


def test_the_table_is_dated_and_every_price_well_formed() -> None:
    shipped = table()
    assert shipped["as-of"] and shipped["unit"] == "USD per million tokens"
    assert len(shipped["models"]) > 100
    for name, prices in shipped["models"].items():
        assert name == name.lower() and "input" in prices and "output" in prices, name
        for price in prices.values():
            if isinstance(price, list):
                base, tiers = price
                starts = [above for above, _ in tiers]
                assert base >= 0 and starts == sorted(starts) and all(p >= 0 for _, p in tiers)
            else:
                assert price >= 0 and math.isfinite(price)


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ("claude-opus-4-6", "claude-opus-4-6"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),  # a dated id
        ("CLAUDE-OPUS-4-6", "claude-opus-4-6"),
        ("gpt-5.3-codex", "gpt-5.3-codex"),  # the real Codex sample's model
        ("gpt-5-codex", "gpt-5-codex"),
        ("claude-opus-4-7", "claude-opus-4-7"),  # not Opus 4's rates (it was, by prefix)
        ("claude-haiku-5-5@20261001", "claude-haiku-5-5@"),  # a cloud's id
        ("claude-opus-4-6[1m]", "claude-opus-4-6"),  # a context window chosen
        ("claude-opus-4-20250514-v1:0", "claude-opus-4-20250514"),
        ("ft:gpt-3.5-turbo-0125:acme::9xyz", "ft:gpt-3.5-turbo-"),  # a name that is a prefix
    ],
)
def test_a_model_is_priced_as_its_name_or_the_longest_it_starts_with(
    model: str, named: str
) -> None:
    assert prices_for(model) is table()["models"][named]


def test_a_name_is_not_a_prefix_of_another_version() -> None:
    assert prices_for("gpt-5.3") is not prices_for("gpt-5")  # gpt-5 never prices gpt-5.3
    assert prices_for("claude-opus-4-99") is None  # a newer version: not Opus 4's price
    assert prices_for("gpt-5.3-codex-ultra") is None
    for unknown in ("model-nobody-prices", "", None, "claude", "gpt"):
        assert prices_for(unknown) is None
        assert cost(unknown, input_tokens=10, output_tokens=10) is None


def test_a_response_costs_its_counts_at_their_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    flat = {"input": 2.0, "output": 10.0, "cache-read": 0.5}
    _with(monkeypatch, {"flat-model": flat})
    assert cost("flat-model", input_tokens=1_000_000, output_tokens=100_000) == 2.0 + 1.0
    assert cost("flat-model-2026-01-01", cache_read_tokens=2_000_000) == 1.0
    assert cost("flat-model", input_tokens=0, output_tokens=None) == 0.0
    # a cache write used where the model has no price for one: unknown, not 0
    assert cost("flat-model", input_tokens=10, cache_write_tokens=5) is None


def test_a_tiered_price_is_the_tiers_for_every_token_of_a_prompt_over_its_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tiered = {
        "input": [3.0, [[200_000, 6.0]]],
        "output": [15.0, [[200_000, 22.5]]],
        "cache-read": [0.3, [[200_000, 0.6], [500_000, 1.0]]],
    }
    _with(monkeypatch, {"long-model": tiered})
    # 150k + 50k = 200k: not over the start, the base rates
    small = cost("long-model", input_tokens=150_000, cache_read_tokens=50_000, output_tokens=1000)
    assert small == pytest.approx(150_000 * 3 / 1e6 + 50_000 * 0.3 / 1e6 + 1000 * 15 / 1e6)
    # one more token of prompt: every token at the tier's rate, output too
    big = cost("long-model", input_tokens=150_001, cache_read_tokens=50_000, output_tokens=1000)
    assert big == pytest.approx(150_001 * 6 / 1e6 + 50_000 * 0.6 / 1e6 + 1000 * 22.5 / 1e6)
    huge = cost("long-model", input_tokens=1, cache_read_tokens=600_000)
    assert huge == pytest.approx(1 * 6 / 1e6 + 600_000 * 1.0 / 1e6)  # the highest tier met


def test_the_shipped_long_context_rates_apply() -> None:
    prices = prices_for("claude-sonnet-4-5")
    assert prices is not None and isinstance(prices["input"], list)
    base = cost("claude-sonnet-4-5", input_tokens=100_000)
    over = cost("claude-sonnet-4-5", input_tokens=250_000)
    assert base is not None and over is not None and over / 250_000 > base / 100_000


def _with(monkeypatch: pytest.MonkeyPatch, models: dict[str, Any]) -> None:
    """The table as these models alone (its caches dropped before and after)."""
    fake = {"as-of": "2026-01-01", "unit": "USD per million tokens", "models": models}
    pricing.prices_for.cache_clear()
    monkeypatch.setattr(pricing, "table", lambda: fake)


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    pricing.prices_for.cache_clear()
    yield
    pricing.prices_for.cache_clear()
