"""Fast mode (Claude Code 2.1.x's ``message.usage.speed: "fast"``): a response so served
costs its model's fast multiple of the standard prices (the table's hand-kept ``fast``,
each with its source), and where the table has no multiple for its model its cost is
unknown ("1 of 2 priced"), never the standard rate, and said so (``fast mode: no price
known for MODEL``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_code_writer import CCWriter, text, usage

from session_core import open_transcript, pricing
from session_core.export import export
from session_core.formats import by_name
from session_core.formats.claude_code import lines
from session_core.pricing import cost, table
from viewer.widgets.model_status import ModelStatus

CC = by_name("claude-code")


def _session(tmp_path: Path, name: str, *responses: tuple[str, str | None]) -> Path:
    """A file of one response per (model, speed), each 1,000 tokens in and 1,000 out."""
    w = CCWriter()
    w.user("go")
    for at, (model, speed) in enumerate(responses):
        spent: dict[str, Any] = usage(1_000, 1_000)
        if speed is not None:
            spent = {**spent, "service_tier": "standard", "speed": speed}
        w.assistant(f"m{at}", [text("a")], usage=spent, model=model, stop="end_turn")
    return w.write(tmp_path / f"{name}.jsonl")


def test_a_fast_response_costs_its_models_fast_multiple(tmp_path: Path) -> None:
    standard = open_transcript(_session(tmp_path, "s", ("claude-opus-4-6", "standard"))).usage
    fast = open_transcript(_session(tmp_path, "f", ("claude-opus-4-6", "fast"))).usage
    assert standard.cost == pytest.approx(0.03)  # $5 + $25 a million
    assert fast.cost == pytest.approx(0.18)  # $30 + $150: Anthropic's 6x
    assert (fast.reported, fast.cost_reported) == (1, 1)
    eight = open_transcript(_session(tmp_path, "e", ("claude-opus-4-8", "fast"))).usage
    assert eight.cost == pytest.approx(0.06)  # Opus 4.8's 2x


def test_a_fast_response_of_a_model_with_no_known_multiple_has_an_unknown_cost(
    tmp_path: Path,
) -> None:
    """Opus 5.5's fast prices are not in the table: its fast response is unpriced, the
    file's cost the other response's alone and said so, not Opus 5.5's standard rate."""
    path = _session(tmp_path, "u", ("claude-opus-5-5", "fast"), ("claude-opus-4-6", "standard"))
    seen = open_transcript(path).usage
    assert (seen.reported, seen.cost_reported) == (2, 1)
    assert seen.cost == pytest.approx(0.03)
    assert seen.to_json()["priced"] == 1


def test_the_speed_is_read_on_the_dict_path_too() -> None:
    assert lines._usage_of({**usage(1, 1), "speed": "fast"}).speed == "fast"
    assert lines._usage_of({**usage(1, 1), "speed": 3}).speed is None


def test_the_fast_multiple_applies_to_every_kind_and_tier() -> None:
    counts: dict[str, Any] = {
        "input_tokens": 300_000,
        "output_tokens": 1_000,
        "cache_read_tokens": 2_000,
        "cache_write_tokens": 3_000,
        "when": "2026-03-01T10:00:00Z",  # (Opus 4.6's long-context rates then)
    }
    standard = cost("claude-opus-4-6", **counts)
    assert standard is not None
    assert cost("claude-opus-4-6", **counts, speed="fast") == pytest.approx(6 * standard)
    assert cost("claude-opus-4-6", **counts, speed="standard") == standard
    # a dated model's response with no time: the same on each day, or unknown
    small = {"input_tokens": 1_000, "output_tokens": 1_000}
    assert cost("claude-opus-4-6", **small, speed="fast") == pytest.approx(0.18)
    assert cost("claude-opus-4-6", **{**small, "input_tokens": 300_000}, speed="fast") is None


def test_a_speed_or_model_the_table_has_no_fast_multiple_for_is_unpriced() -> None:
    assert cost("claude-opus-5-5", input_tokens=1_000, speed="fast") is None
    assert cost("claude-opus-5-5", input_tokens=1_000) is not None
    assert cost("claude-opus-4-6", input_tokens=1_000, speed="turbo") is None
    # a variant of a model with a multiple has it; another version does not
    assert pricing.fast_times("claude-opus-4-6-20260205") == 6
    assert pricing.fast_times("claude-opus-4-6[1m]") == 6
    assert pricing.fast_times("claude-opus-5-5") is None


def test_each_fast_multiple_is_of_a_priced_model_and_has_its_source() -> None:
    shipped = table()
    assert shipped["fast"], "the table names no fast multiple"
    for name, times in shipped["fast"].items():
        assert name in shipped["models"] and times > 1, name
        assert f"{name} {times}:" in shipped["fast-source"], name


def _header(path: Path) -> str:
    shown: list[str] = []
    status = ModelStatus()
    status.update = lambda text: shown.append(str(text))  # type: ignore[method-assign]
    status.show(
        open_transcript(path), name="s.jsonl", title="cc", size=1, live="ended", mode="replayed"
    )
    return shown[0]


def test_a_cost_unknown_for_fast_mode_says_why_on_every_surface(tmp_path: Path) -> None:
    """A fast response whose model has no known multiple says why its cost is unknown
    (it said "cost unknown" alone, the same as a model the table has not), in one set of
    words: ``check``, the header, the export's usage and its message's line."""
    why = "fast mode: no price known for claude-opus-5-5"
    alone = _session(tmp_path, "a", ("claude-opus-5-5", "fast"))
    assert open_transcript(alone).usage.describe_cost() == f"cost unknown ({why})"
    assert f"usage 2,000 tok · cost unknown ({why})" in CC.check(alone)
    assert f"cost unknown ({why})" in _header(alone)
    md = export(alone, "md")  # (Markdown's parentheses escaped)
    unknown = f"cost unknown \\({why}\\)"
    terms = "1,000 in \\+ 1,000 out \\+ 0 cache read \\+ 0 cache write"
    assert f"| usage | 2,000 tok \\({terms}\\) · {unknown} |" in md
    # (the file's usage, its response's line, its run's, the file beside its subagents)
    assert md.count(unknown) == md.count("cost unknown") == 4
    both = _session(tmp_path, "b", ("claude-opus-5-5", "fast"), ("claude-opus-4-6", "standard"))
    said = f"$0.0300 (1 of 2 priced; {why})"
    assert open_transcript(both).usage.describe_cost() == said
    assert said in CC.check(both) and said in _header(both)
    # a fast response priced, or a standard one, says no reason; nor a model the table has
    # not at the standard speed (its reason is not its speed)
    priced = _session(tmp_path, "p", ("claude-opus-4-6", "fast"), ("no-such-model", None))
    assert open_transcript(priced).usage.describe_cost() == "$0.1800 (1 of 2 priced)"
    odd = _session(tmp_path, "o", ("claude-opus-4-6", "turbo"))
    assert open_transcript(odd).usage.describe_cost() == (
        'cost unknown (speed "turbo": no price known for claude-opus-4-6)'
    )
