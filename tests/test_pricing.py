"""The price table (``data/prices.json``, a snapshot of genai-prices) and what a response
costs by it: models named by their ids and dated or cloud variants, tiered prices by the
size of a request's prompt, an unknown model or price never 0."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_core import open_transcript, pricing
from session_core.pricing import cost, prices_for, table


def test_the_table_is_dated_and_every_price_well_formed() -> None:
    shipped = table()
    assert shipped["as-of"] and shipped["unit"] == "USD per million tokens"
    assert len(shipped["models"]) > 100
    for name, entry in shipped["models"].items():
        dated = entry if isinstance(entry, list) else [[None, entry]]
        starts = [start for start, _ in dated]
        assert starts[0] is None and starts[1:] == sorted(starts[1:]), name
        for _start, prices in dated:
            _well_formed(name, prices)


def _well_formed(name: str, prices: dict[str, Any]) -> None:
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
    assert pricing._entry(model.lower()) is table()["models"][named]


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
    assert prices is not None and isinstance(prices["input"], list)  # (over 200,000)
    base = cost("claude-sonnet-4-5", input_tokens=100_000)
    over = cost("claude-sonnet-4-5", input_tokens=250_000)
    assert base is not None and over is not None and over / 250_000 > base / 100_000


def _with(monkeypatch: pytest.MonkeyPatch, models: dict[str, Any]) -> None:
    """The table as these models alone (its caches dropped before and after)."""
    fake = {"as-of": "2026-01-01", "unit": "USD per million tokens", "models": models}
    _clear_caches()
    monkeypatch.setattr(pricing, "table", lambda: fake)


def _clear_caches() -> None:
    pricing._entry.cache_clear()
    pricing._on_day.cache_clear()


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    _clear_caches()
    yield
    _clear_caches()


def test_one_hour_cache_writes_are_priced_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    prices = {"input": 5.0, "output": 25.0, "cache-write": 6.25, "cache-write-1h": 10.0}
    _with(monkeypatch, {"cached-model": prices, "no-hour-price": {"input": 1.0, "output": 1.0}})
    mixed = cost("cached-model", cache_write_tokens=1_000_000, cache_write_1h_tokens=400_000)
    assert mixed == pytest.approx(0.6 * 6.25 + 0.4 * 10.0)
    assert cost("cached-model", cache_write_tokens=10) == pytest.approx(10 * 6.25 / 1e6)
    # more one-hour writes said than writes: no more than the writes are priced
    assert cost("cached-model", cache_write_tokens=10, cache_write_1h_tokens=99) == pytest.approx(
        10 * 10.0 / 1e6
    )
    assert cost("no-hour-price", input_tokens=5, cache_write_1h_tokens=5) == 5 / 1e6  # none
    assert cost("no-hour-price", cache_write_tokens=5, cache_write_1h_tokens=5) is None


def test_a_claude_code_response_that_wrote_its_cache_for_an_hour(tmp_path: Path) -> None:
    """Claude Code 2.1 writes its cache for an hour (``cache_creation``'s
    ``ephemeral_1h_input_tokens``): those writes cost the one-hour rate, read typed or
    as a dict, the response's largest count over its lines."""
    from claude_code_writer import CCWriter, text, usage

    w = CCWriter()
    w.user("go")
    hour = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1000}
    w.assistant(
        "m1",
        [text("a"), text("b")],
        usage={**usage(10, 20, 0, 1000), "cache_creation": hour},  # type: ignore[dict-item]
        model="claude-opus-4-7",
        stop="end_turn",
    )
    w.user("again")
    w.assistant("m2", [text("c")], usage=usage(10, 20, 0, 1000), model="claude-opus-4-7")
    path = w.write(tmp_path / "hour.jsonl")
    runs = open_transcript(path).runs
    by_hour = cost(
        "claude-opus-4-7",
        input_tokens=10,
        output_tokens=20,
        cache_write_tokens=1000,
        cache_write_1h_tokens=1000,
    )
    by_5m = cost("claude-opus-4-7", input_tokens=10, output_tokens=20, cache_write_tokens=1000)
    assert by_hour is not None and by_5m is not None and by_hour > by_5m
    assert runs[0].usage.cost == pytest.approx(by_hour)
    assert runs[1].usage.cost == pytest.approx(by_5m)
    # a line read as a dict (not typed) says the same
    from session_core.formats.claude_code import lines

    said = lines._usage_of({**usage(1, 1, 0, 7), "cache_creation": hour})
    assert said.cache_creation is not None and said.cache_creation.ephemeral_1h_input_tokens == 1000
    assert (
        lines._usage_of({"cache_creation": {"ephemeral_1h_input_tokens": True}}).cache_creation
        is None
    )


def test_a_price_that_changed_is_the_one_of_the_responses_day(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dated = [[None, {"input": 10.0, "output": 40.0}], ["2025-06-10", {"input": 2.0, "output": 8.0}]]
    _with(monkeypatch, {"cut-model": dated, "flat-model": {"input": 1.0, "output": 1.0}})
    assert pricing.is_dated("cut-model-2025-04-16") and not pricing.is_dated("flat-model")
    assert not pricing.is_dated(None) and not pricing.is_dated("unknown")
    million = {"input_tokens": 1_000_000}
    assert cost("cut-model", **million, when="2025-05-01T10:00:00Z") == 10.0
    assert cost("cut-model", **million, when="2025-06-10T00:00:00.000Z") == 2.0  # its first day
    # no time: unknown where its prices differ, known where they agree
    assert cost("cut-model", **million) is None
    assert cost("cut-model", **million, when="not a time") is None
    both = [[None, {"input": 3.0, "output": 40.0}], ["2025-06-10", {"input": 3.0, "output": 8.0}]]
    _with(monkeypatch, {"cut-model": both})
    assert cost("cut-model", **million) == 3.0
    assert cost("cut-model", **million, output_tokens=1) is None


def test_the_shipped_dated_prices() -> None:
    # o3's price cut of 2025-06-10; Opus 4.6's long-context rates, until its 1M window
    # was made generally available at one price (2026-03-13)
    assert cost("o3", input_tokens=1_000_000, when="2025-05-01T00:00:00Z") == 10.0
    assert cost("o3", input_tokens=1_000_000, when="2025-07-01T00:00:00Z") == 2.0
    before = cost("claude-opus-4-6", input_tokens=300_000, when="2026-02-02T02:40:00.129Z")
    after = cost("claude-opus-4-6", input_tokens=300_000, when="2026-03-20T00:00:00Z")
    assert before == pytest.approx(3.0) and after == pytest.approx(1.5)
    # with no time, a prompt under 200,000 tokens costs the same on either day
    assert cost("claude-opus-4-6", input_tokens=100_000) == pytest.approx(0.5)
    assert cost("claude-opus-4-6", input_tokens=300_000) is None


@pytest.mark.parametrize(("day", "dollars"), [("2025-05-01", 10.0), ("2025-07-01", 2.0)])
def test_a_codex_response_is_priced_as_on_its_day(tmp_path: Path, day: str, dollars: float) -> None:
    from codex_writer import RolloutWriter

    w = RolloutWriter(tmp_path / "rollout.jsonl")
    w.session_meta()
    w.turn_context("t1", model="o3")
    w.message("user", "go")
    w.token_count((1_000_000, 0, 0, 0))
    path = Path(w.path)
    path.write_text(path.read_text().replace("2026-02-23", day))
    assert open_transcript(path).usage.cost == pytest.approx(dollars)


def test_a_claude_code_response_is_priced_as_on_its_day(tmp_path: Path) -> None:
    from claude_code_writer import CCWriter, text, usage

    w = CCWriter()  # (its lines are of 2026-03-01: Opus 4.6's long-context rates then)
    w.user("go")
    w.assistant("m1", [text("a")], usage=usage(300_000, 0), model="claude-opus-4-6")
    path = w.write(tmp_path / "long.jsonl")
    assert open_transcript(path).usage.cost == pytest.approx(3.0)  # not 1.5, today's


def test_a_dated_models_response_with_no_time_is_unknown_where_its_prices_differ(
    tmp_path: Path,
) -> None:
    from claude_code_writer import CCWriter, text, usage

    w = CCWriter()
    w.user("go")
    w.assistant("m1", [text("a")], usage=usage(300_000, 0), model="claude-opus-4-6")
    w.assistant("m2", [text("b")], usage=usage(1_000, 0), model="claude-opus-4-6")
    path = w.write(tmp_path / "untimed.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    untimed = [orjson.loads(line) for line in lines]
    for record in untimed[1:]:
        del record["timestamp"]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in untimed))
    seen = open_transcript(path).usage
    # the first's 300,000 tokens cost $3.00 or $1.50 by the day; the second's the same
    assert (seen.responses, seen.cost_reported) == (2, 1)
    assert seen.cost == pytest.approx(0.005)


def test_a_cost_of_some_responses_says_how_many_it_prices(tmp_path: Path) -> None:
    """A model the table does not know leaves its responses unpriced: the total is the
    others' cost, and the replay JSON says of how many (``priced``); where every response
    is priced, or none is, the key is not there."""
    from claude_code_writer import CCWriter, text, usage

    w = CCWriter()
    w.user("go")
    w.assistant("m1", [text("a")], usage=usage(1_000, 0), model="claude-opus-4-6")
    w.assistant("m2", [text("b")], usage=usage(1_000, 0), model="no-such-model-7")
    seen = open_transcript(w.write(tmp_path / "some.jsonl")).usage.to_json()
    assert seen["cost"] == pytest.approx(0.005) and seen["priced"] == 1 and seen["reported"] == 2
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [text("a")], usage=usage(1_000, 0), model="claude-opus-4-6")
    assert "priced" not in open_transcript(w.write(tmp_path / "all.jsonl")).usage.to_json()


def test_a_dated_models_prices_found_once_a_day_are_each_days_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dated model's prices are found once for a day (``_on_day``) and a timestamp's day
    told once (``_as_day``): asked again in any order, each day keeps its own, tiers by
    each response's prompt, and a time that names no day is none."""
    tiered = {"input": [1.0, [[100, 2.0], [1000, 4.0]]], "output": 8.0}
    dated = [[None, tiered], ["2025-06-10", {"input": 3.0, "output": 5.0}]]
    _with(monkeypatch, {"cut-model": dated})
    asked = [
        ("2025-06-11T00:00:00Z", 50, 3.0),
        ("2025-05-01T10:00:00Z", 50, 1.0),
        ("2025-05-01T23:59:59Z", 500, 2.0),  # (the same day, over the first tier)
        ("2025-05-02T00:00:00Z", 5000, 4.0),
        ("2025-06-10T00:00:00Z", 5000, 3.0),
        ("2025-05-01T10:00:00Z", 2000, 4.0),
    ]
    for when, tokens, per in asked * 2:
        got = cost("cut-model", input_tokens=tokens, output_tokens=tokens, when=when)
        output = 8.0 if when < "2025-06-10" else 5.0
        assert got == pytest.approx(tokens * (per + output) / 1_000_000), (when, tokens)
    assert prices_for("cut-model", "2025-05-01T00:00:00Z") is tiered
    assert prices_for("cut-model", "2025-07-01T00:00:00Z") == {"input": 3.0, "output": 5.0}
    assert prices_for("cut-model", "not a day at all") == {"input": 3.0, "output": 5.0}  # as-of
    assert cost("cut-model", input_tokens=1, when="2025-05-0x") is None  # no day: they differ


def test_the_table_is_the_shipped_file_read_without_importlib_resources() -> None:
    """The table is read by the package's loader: a Claude Code open imports none of
    ``importlib.resources`` (tempfile, shutil, zipfile, bz2, lzma), 15 M instructions."""
    import json
    import subprocess
    import sys

    import session_core

    shipped = Path(session_core.__file__).parent / "data" / "prices.json"
    assert table() == json.loads(shipped.read_text("utf-8"))
    code = (
        "import sys, session_core\n"
        "from session_core.pricing import cost\n"
        "assert cost('claude-opus-4-6', input_tokens=10, when='2026-01-01T00:00:00Z')\n"
        "print(sorted(m for m in ('importlib.resources', 'tempfile', 'shutil', 'zipfile')\n"
        "             if m in sys.modules))\n"
    )
    root = str(Path(session_core.__file__).parent.parent)
    out = subprocess.run(
        [sys.executable, "-P", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "[]", out.stdout
