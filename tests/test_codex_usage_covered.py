"""A Codex response whose report said no usage, and a later total of the file's own that
holds its tokens (the review of session 36: the exact total read "2 of 3 responses
reported" and ``≥``, and the next turn's usage took the unknown one's tokens).

The cumulative total makes the session's total exact again. One such response's usage is
what that total holds past the reporting response's own (its ``last_token_usage``);
several together are known together only: each stays unknown, their tokens are in the
session's total alone. No token is counted twice, and no unknown one reads 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, usage
from helpers import follow_into, neutral, run_cli

from session_core import pricing
from session_core.file_lines import read_records
from session_core.follow_update import FollowUpdate
from session_core.model import Transcript
from session_core.scan import scan_file
from session_core.text import cost_text
from session_core.usage_totals import Usage

MODEL = "gpt-5"  # (one the price table knows)
NO_OUTPUT = {"input_tokens": 150, "cached_input_tokens": 30, "output_tokens": None}


def _report(w: RolloutWriter, total: Any, last: Any) -> None:
    info = {"total_token_usage": total, "last_token_usage": last}
    w.event("token_count", info=info, rate_limits=None)


def _turn(w: RolloutWriter, turn: str, answers: int = 1) -> None:
    w.task_started(turn)
    w.turn_context(turn, model=MODEL)
    w.message("user", f"prompt {turn}")
    for n in range(answers):
        w.message("assistant", f"answer {turn}.{n}")


def _rollout(path: Path, gap: int, last: dict[str, int] | None) -> Path:
    """A first turn that reports in full; a second of ``gap`` responses whose reports
    leave out their output; a third whose report gives the whole total again, and
    ``last`` as its own usage."""
    w = RolloutWriter(path)
    w.session_meta()
    _turn(w, "t0")
    _report(w, usage((100, 20, 10, 0)), usage((100, 20, 10, 0)))
    w.task_complete("t0")
    w.task_started("t1")
    w.turn_context("t1", model=MODEL)
    w.message("user", "prompt t1")
    for n in range(gap):
        w.message("assistant", f"answer t1.{n}")
        _report(w, {**NO_OUTPUT, "input_tokens": 250 + n}, NO_OUTPUT)
    w.task_complete("t1")
    _turn(w, "t2")
    _report(w, usage((400, 60, 50, 0)), last)
    w.task_complete("t2")
    return Path(w.path)


def _tokens(u: Usage | None) -> tuple[int | None, int | None, int | None] | None:
    return None if u is None else (u.input_tokens, u.cache_read_tokens, u.output_tokens)


def _answers(t: Transcript) -> list[Usage | None]:
    return [m.usage for m in t.messages if m.role == "assistant"]


def test_one_unknown_response_is_known_from_the_total_that_covers_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _rollout(tmp_path / "r.jsonl", 1, usage((150, 10, 20, 0)))
    t = opened(path)
    u = t.usage
    # 450 = 400 in (60 cached) + 50 out: the last total, exact
    assert (_tokens(u), u.reported, u.responses, u.in_part) == ((340, 60, 50), 3, 3, 0)
    assert not u.tokens_partial and not u.cost_partial
    assert u.describe() == "450 tok (340 in + 50 out + 60 cache read) · $0.0009"
    # each turn its own: t1's is what the total holds past t2's own (was t2: 340, t1 unknown)
    runs = [r.usage for r in t.runs]
    assert [_tokens(r) for r in runs] == [(80, 20, 10), (120, 30, 20), (140, 10, 20)]
    assert [(r.reported, r.responses) for r in runs] == [(1, 1)] * 3
    assert Usage.total(runs) == u  # (the turns add up to the file: nothing twice)
    assert [_tokens(a) for a in _answers(t)] == [(80, 20, 10), (120, 30, 20), (140, 10, 20)]
    assert all(a is not None and a.cost is not None for a in _answers(t))
    # every surface: check, replay, the export, the browser's row
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and out.endswith("usage 450 tok · $0.0009)\n")
    code, out, _ = run_cli(capsys, "replay", str(path))
    said = orjson.loads(out)
    assert said["usage"]["reported"] == 3
    assert [r["usage"]["output-tokens"] for r in said["runs"]] == [10, 20, 20]
    code, out, _ = run_cli(capsys, "export", "--format", "md", str(path))
    assert "| this file | 3 of 3 | 450 tok" in out and "responses reported" not in out
    row = scan_file(path, live_window=0)
    assert (row.tokens, row.tokens_partial, row.cost_partial) == (450, False, False)


def test_several_unknown_responses_are_in_the_total_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _rollout(tmp_path / "r.jsonl", 2, usage((150, 10, 20, 0)))
    t = opened(path)
    u = t.usage
    assert (_tokens(u), u.reported, u.responses) == ((340, 60, 50), 4, 4)
    assert not u.tokens_partial and u.describe().endswith(" · $0.0009")
    runs = [r.usage for r in t.runs]
    # t1's two together used 170, neither known alone: t1 says so, t2 has its own alone
    assert [_tokens(r) for r in runs] == [(80, 20, 10), (None, None, None), (140, 10, 20)]
    assert (runs[1].reported, runs[1].responses, runs[1].describe()) == (0, 2, "unknown")
    answers = _answers(t)
    assert [a is not None and a.tokens for a in answers] == [110, None, None, 170]
    assert scan_file(path, live_window=0).tokens_partial is False
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and out.endswith("usage 450 tok · $0.0009)\n")


def test_a_covering_report_whose_own_usage_is_unknown_is_unknown_too(tmp_path: Path) -> None:
    path = _rollout(tmp_path / "r.jsonl", 1, {**NO_OUTPUT, "input_tokens": 150})
    t = opened(path)
    assert (t.usage.tokens, t.usage.reported, t.usage.responses) == (450, 3, 3)
    runs = [r.usage for r in t.runs]
    # t1's and t2's 340 together: neither turn's alone (was all of it t2's)
    assert [r.tokens for r in runs] == [110, None, None]
    assert [(r.reported, r.responses) for r in runs] == [(1, 1), (0, 1), (0, 1)]


def test_a_total_that_holds_no_more_leaves_the_unknown_one_unknown(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    _turn(w, "t0")
    _report(w, usage((100, 20, 10, 0)), usage((100, 20, 10, 0)))
    w.message("assistant", "more")
    w.event("token_count", info=None, rate_limits=None)
    _report(w, usage((100, 20, 10, 0)), usage((100, 20, 10, 0)))  # (the first's again)
    t = opened(Path(w.path))
    assert (t.usage.tokens, t.usage.reported, t.usage.responses) == (110, 1, 2)
    assert t.usage.tokens_partial  # (its tokens are in no total yet)


def test_a_snapshot_before_the_covering_total_keeps_its_turns(tmp_path: Path) -> None:
    path = _rollout(tmp_path / "r.jsonl", 1, usage((150, 10, 20, 0)))
    builder = CODEX.builder(str(path))
    records = [(n, v) for n, v, _ in read_records(str(path))]
    last_report = max(n for n, v in records if v["payload"].get("type") == "token_count")
    before: Transcript | None = None
    for n, v in records:
        if n == last_report:
            before = builder.transcript(None)
        builder.lines = n
        builder.feed(v, n)
    assert before is not None
    assert [r.usage.tokens for r in before.runs[:2]] == [110, None]  # (as it was then)
    assert before.usage.tokens_partial
    after = builder.transcript(None)
    assert [r.usage.tokens for r in after.runs] == [110, 170, 170]
    assert after.to_json() == opened(path).to_json()


# -- each response priced by its own model; a total that holds none of the gap -------------

BIG = usage((100_000, 0, 10_000, 0))  # one response's, as reported where it is


def _priced(path: Path, gap_models: list[str]) -> Path:
    """A gpt-5 turn that reports; a turn per model of ``gap_models`` whose response
    reports no usage; a gpt-5 turn whose total covers them (each response's tokens
    are ``BIG``'s)."""
    w = RolloutWriter(path)
    w.session_meta()
    turns = ["gpt-5", *gap_models, "gpt-5"]
    for n, model in enumerate(turns):
        w.task_started(f"t{n}")
        w.turn_context(f"t{n}", model=model)
        w.message("user", f"prompt t{n}")
        w.message("assistant", f"answer t{n}")
        if n == 0:
            _report(w, BIG, BIG)
        elif n < len(turns) - 1:
            w.event("token_count", info=None, rate_limits=None)
        else:
            _report(w, usage((100_000 * len(turns), 0, 10_000 * len(turns), 0)), BIG)
        w.task_complete(f"t{n}")
    return Path(w.path)


def _cost(model: str) -> float:
    cost = pricing.cost(model, input_tokens=100_000, output_tokens=10_000, cache_read_tokens=0)
    assert cost is not None
    return cost


def _followed_is_opened(path: Path, tmp: Path) -> int:
    """Follow ``path`` in small batches: each snapshot is the file of the same bytes
    opened afresh (the writer alive, gone and unknown in turn)."""
    data, copy = path.read_bytes(), tmp / "prefix" / path.name
    copy.parent.mkdir()
    live = CODEX.live(str(path))
    snapshots = 0

    def apply(update: FollowUpdate) -> None:
        nonlocal snapshots
        live.apply(update)
        copy.write_bytes(data[: update.offset - update.held])
        alive = (None, True, False)[snapshots % 3]
        followed, fresh = (neutral(t) for t in (live.transcript(alive), opened(copy, alive)))
        assert orjson.dumps(followed, default=repr).replace(str(path).encode(), b"") == (
            orjson.dumps(fresh, default=repr).replace(str(copy).encode(), b"")
        )
        snapshots += 1

    follow_into(apply, path, 97, CODEX.parsed_updates)
    return snapshots


def test_a_covered_response_is_priced_by_its_own_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gpt-5-mini response covered by a gpt-5 total: its usage at gpt-5-mini's price
    (at gpt-5's it was 5 times that, and read exact)."""
    big, mini = _cost("gpt-5"), _cost("gpt-5-mini")
    assert mini < big
    path = _priced(tmp_path / "r.jsonl", ["gpt-5-mini"])
    t = opened(path)
    u = t.usage
    assert u.cost == pytest.approx(2 * big + mini) and not u.cost_partial
    assert (u.reported, u.responses, u.cost_reported) == (3, 3, 3)
    said = f"330,000 tok (300,000 in + 30,000 out + 0 cache read) · {cost_text(u.cost)}"
    assert u.describe() == said  # (the header's usage: exact, no "priced" count)
    assert [r.usage.cost for r in t.runs] == pytest.approx([big, mini, big])
    assert [a.cost if a else None for a in _answers(t)] == pytest.approx([big, mini, big])
    assert Usage.total([r.usage for r in t.runs]) == u
    code, out, _ = run_cli(capsys, "replay", str(path))
    replayed = [r["usage"]["cost"] for r in orjson.loads(out)["runs"]]
    assert replayed == pytest.approx([big, mini, big])
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and out.endswith(f"usage 330,000 tok · {cost_text(u.cost)})\n")
    code, out, _ = run_cli(capsys, "export", "--format", "md", str(path))
    assert "| this file | 3 of 3 | 330,000 tok" in out and f"· {cost_text(u.cost)} |\n" in out
    row = scan_file(path, live_window=0)
    assert row.cost == pytest.approx(2 * big + mini) and not row.cost_partial
    assert _followed_is_opened(path, tmp_path) > 10


@pytest.mark.parametrize(
    ("models", "priced"), [(["gpt-5-mini", "gpt-5-mini"], True), (["gpt-5-mini", "gpt-5"], False)]
)
def test_several_covered_responses_are_priced_together_by_one_model_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], models: list[str], priced: bool
) -> None:
    """Two responses known together only: their cost where both used one model (that
    model's), else unknown: the session's cost is the others' alone, said partial."""
    big, mini = _cost("gpt-5"), _cost("gpt-5-mini")
    path = _priced(tmp_path / "r.jsonl", models)
    t = opened(path)
    u = t.usage
    assert (u.tokens, u.reported, u.responses, u.tokens_partial) == (440_000, 4, 4, False)
    runs = [r.usage for r in t.runs]
    assert [r.describe() for r in runs[1:3]] == ["unknown", "unknown"]  # (each unknown alone)
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0
    code, md, _ = run_cli(capsys, "export", "--format", "md", str(path))
    row = scan_file(path, live_window=0)
    if priced:
        assert u.cost == pytest.approx(2 * big + 2 * mini) and u.cost_reported == 4
        assert not u.cost_partial and not row.cost_partial
        assert out.endswith(f"usage 440,000 tok · {cost_text(u.cost)})\n")
    else:  # (not 2 × gpt-5's, nor 2 × gpt-5-mini's: neither is what they cost)
        assert u.cost == pytest.approx(2 * big) and u.cost_reported == 2
        assert u.cost_partial and row.cost_partial
        assert u.describe().endswith(f" · {cost_text(u.cost)} (2 of 4 priced)")
        assert out.endswith(f"usage 440,000 tok · {cost_text(u.cost)} (2 of 4 priced))\n")
        assert "2 of 4 priced" in md
    assert row.cost == pytest.approx(u.cost)
    assert _followed_is_opened(path, tmp_path) > 10


@pytest.mark.parametrize("gap", [1, 2])
def test_a_total_that_holds_nothing_past_its_own_leaves_the_gap_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gap: int
) -> None:
    """A new total of the file's own that holds nothing past its response's own usage
    holds none of the gap's (a response reads its prompt: never 0 tokens), as the same
    total again covers nothing: the gap's responses stay unknown, in the session as in
    their turn and messages (the session read them reported, exact; the turn did not)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    _turn(w, "t0")
    _report(w, usage((100, 20, 10, 0)), usage((100, 20, 10, 0)))
    for n in range(gap):
        w.message("assistant", f"gap {n}")
        w.event("token_count", info=None, rate_limits=None)
    w.message("assistant", "own")
    _report(w, usage((150, 30, 20, 0)), usage((50, 10, 10, 0)))
    w.task_complete("t0")
    path = Path(w.path)
    t = opened(path)
    u = t.usage
    assert (u.tokens, u.reported, u.responses) == (170, 2, 2 + gap)
    assert u.tokens_partial and u.cost_partial
    said = f"{2} of {2 + gap} responses reported"
    assert u.describe().endswith(said)
    assert Usage.total([r.usage for r in t.runs]) == u  # (the turn says what the session does)
    answers = _answers(t)
    assert [a.describe() if a else None for a in answers[1:-1]] == ["unknown"] * gap
    assert answers[-1] is not None and answers[-1].tokens == 60
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and said in out
    code, out, _ = run_cli(capsys, "export", "--format", "md", str(path))
    assert f"| this file | 2 of {2 + gap} |" in out
    row = scan_file(path, live_window=0)
    assert (row.tokens, row.tokens_partial, row.cost_partial) == (170, True, True)
    assert _followed_is_opened(path, tmp_path) > 5


def test_a_gap_a_total_did_not_count_is_covered_by_no_later_one(tmp_path: Path) -> None:
    """Once a new total has shown it did not count the gap's response, a later total's
    change is its own response's (all of it), not the gap's."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    _turn(w, "t0")
    _report(w, usage((100, 20, 10, 0)), usage((100, 20, 10, 0)))
    w.message("assistant", "gap")
    w.event("token_count", info=None, rate_limits=None)
    w.message("assistant", "own")
    _report(w, usage((150, 30, 20, 0)), usage((50, 10, 10, 0)))
    w.message("assistant", "next")
    _report(w, usage((230, 30, 35, 0)), usage((60, 0, 10, 0)))
    t = opened(Path(w.path))
    assert (t.usage.tokens, t.usage.reported, t.usage.responses) == (265, 3, 4)
    assert [a.tokens if a else None for a in _answers(t)] == [110, None, 60, 95]
    assert Usage.total([r.usage for r in t.runs]) == t.usage
