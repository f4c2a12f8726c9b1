"""The ``codex`` format's token usage: the session's last total, each turn's and each
response's share, cache reads and writes, and its cost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from codex_helpers import CODEX, day_dir, opened
from codex_writer import SESSION, RolloutWriter, usage
from helpers import follow_into

from session_core.model import COPIED_USAGE, Transcript

# -- usage -------------------------------------------------------------------------------


def test_usage_is_the_last_total_and_turns_are_deltas(rollout: Path) -> None:
    t = opened(rollout)
    u = t.usage
    # last total_token_usage: 5000 in (2500 cached), 200 out; the repeat not counted
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (2500, 2500, 200)
    assert u.cache_write_tokens is None
    assert u.reported == 4 and u.responses == 4
    assert t.extra["token-count-events"] == 6 and t.extra["token-count-reports"] == 5
    per_turn = [
        (r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.output_tokens) for r in t.runs
    ]
    assert per_turn == [(1300, 1200, 120), (700, 800, 30), (500, 500, 50)]
    assert sum(r.usage.reported for r in t.runs) == u.reported
    # priced by each turn's model (both in the table): uncached as input, cached as reads
    expected = (2500 * 1.25 + 200 * 10.0 + 2500 * 0.125) / 1_000_000
    assert u.cost == pytest.approx(expected)
    assert t.to_json()["usage"]["input-tokens"] == 2500


def _counts(inputs: int, cached: int, written: int, output: int) -> dict[str, int]:
    """A newer writer's token usage: its cache writes said, within the whole prompt."""
    return {
        "input_tokens": inputs,
        "cached_input_tokens": cached,
        "cache_write_input_tokens": written,
        "output_tokens": output,
        "reasoning_output_tokens": 0,
        "total_tokens": inputs + output,  # the prompt once: the writes are in it
    }


def test_cache_writes_are_part_of_the_input_counted_once(tmp_path: Path) -> None:
    """``input_tokens`` is the whole prompt (``total_tokens`` = input + output), the
    cached and the written parts within it: the input counted is what is left after
    both, each part counted once, a write priced as input (OpenAI bills it so)."""
    path = day_dir(tmp_path) / f"rollout-2026-02-23T12-00-00-{SESSION}.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    w.turn_context("t1")
    w.task_started("t1")
    w.message("user", "cache this")
    w.message("assistant", "done")
    first = _counts(1000, 0, 800, 40)
    w.event("token_count", info={"total_token_usage": first, "last_token_usage": first})
    w.event("token_count", info={"total_token_usage": first, "last_token_usage": first})
    w.message("assistant", "again")
    total = _counts(2100, 800, 900, 90)
    last = _counts(1100, 800, 100, 50)
    w.event("token_count", info={"total_token_usage": total, "last_token_usage": last})
    w.task_complete("t1")
    for t in (opened(path), _live(path)):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) == (400, 800, 900)
        assert u.output_tokens == 90 and u.reported == 2
        assert u.input_tokens + u.cache_read_tokens + u.cache_write_tokens == 2100
        run = t.runs[0].usage
        assert (run.input_tokens, run.cache_read_tokens, run.cache_write_tokens) == (
            400,
            800,
            900,
        )
        responses = [i.usage for i in t.messages if i.usage is not None]
        assert [(r.input_tokens, r.cache_read_tokens, r.cache_write_tokens) for r in responses] == [
            (200, 0, 800),
            (200, 800, 100),
        ]
        expected = ((400 + 900) * 1.25 + 800 * 0.125 + 90 * 10.0) / 1_000_000
        assert u.cost == pytest.approx(expected)
        assert t.extra["total-token-usage"]["cache_write_input_tokens"] == 900


def _live(path: Path) -> Transcript:
    """The file as the viewer reads it: raw batches with their spans, fed live."""
    live = CODEX.live(os.fspath(path))
    follow_into(live.apply, path, 1 << 20, parse=False)
    return live.transcript(writer_alive=False)


def test_a_writer_that_says_no_cache_writes_has_none_counted(rollout: Path) -> None:
    t = opened(rollout)
    assert t.usage.cache_write_tokens is None
    assert all(r.usage.cache_write_tokens is None for r in t.runs)
    assert "cache_write_input_tokens" not in t.extra["total-token-usage"]


def _counted_again(path: Path, forked: bool) -> Path:
    """A total of 10,000 in, then a count from 0 again: two responses of its own."""
    w = RolloutWriter(path)
    w.session_meta(**({"forked_from_id": "0199aaaa-0000-7000-8000-000000000000"} if forked else {}))
    w.turn_context("t", model="gpt-5-codex")
    w.message("assistant", "copied" if forked else "before the resume")
    w.token_count((10000, 0, 1000, 0))
    w.message("assistant", "own")
    w.token_count((300, 0, 20, 0))
    w.message("assistant", "own again")
    w.token_count((500, 100, 30, 0), (200, 100, 10, 0))
    return Path(w.path)


def test_a_forks_total_that_starts_again_starts_the_session_total_again(tmp_path: Path) -> None:
    """A total that goes back in a fork (its parent's copied history, then its own count
    from 0): the session total is the last total, its cost and responses that total's."""
    u = opened(_counted_again(tmp_path / "r.jsonl", forked=True)).usage
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (400, 100, 30)
    assert u.reported == u.responses == 2
    assert u.cost == pytest.approx((400 * 1.25 + 30 * 10.0 + 100 * 0.125) / 1_000_000)


def test_a_resumed_processs_count_from_0_is_added_to_the_one_before(tmp_path: Path) -> None:
    """In a rollout that is no fork, a total that goes back is a resumed process counting
    afresh (older writers): what was counted before it still happened."""
    path = _counted_again(tmp_path / "r.jsonl", forked=False)
    u = opened(path).usage
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (10400, 100, 1030)
    assert u.reported == u.responses == 3
    first = 10000 * 1.25 + 1000 * 10.0
    assert u.cost == pytest.approx((first + 400 * 1.25 + 30 * 10.0 + 100 * 0.125) / 1_000_000)
    assert _live(path).usage == u


def test_a_resumed_count_that_passes_the_one_before_is_told_by_its_own_total(
    tmp_path: Path,
) -> None:
    """A short process, then a resumed one counting from 0 whose first total is already
    over the first's in every count: its total is its own response's alone (total and
    last usage agree), so it is a count from 0 again, added to the one before; a report
    repeated, or a later total growing by its last, is no new count."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.turn_context("t", model="gpt-5-codex")
    w.message("assistant", "before the resume")
    w.token_count((1000, 0, 10, 0))
    w.message("assistant", "after it")
    w.token_count((1100, 1000, 20, 0), (1100, 1000, 20, 0))  # (the resumed one's alone)
    w.token_count((1100, 1000, 20, 0), (1100, 1000, 20, 0))  # (the same report again)
    w.message("assistant", "and on")
    w.token_count((1300, 1100, 25, 0), (200, 100, 5, 0))
    path = Path(w.path)
    u = opened(path).usage
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (1200, 1100, 35)
    assert u.reported == u.responses == 3
    assert _live(path).usage == u


def test_a_forks_copied_turns_are_its_parents_on_every_surface(tmp_path: Path) -> None:
    """A fork's copied history (its parent's turn, then its own count from 0): the copied
    turn's usage is its parent's, on no run and no message of the fork's, so the runs add
    up to the session's total; that turn says its usage is the parent's."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(forked_from_id="0199aaaa-0000-7000-8000-000000000000")
    w.task_started("t1")
    w.turn_context("t1", model="gpt-5-codex")
    w.message("user", "hi")
    w.message("assistant", "copied a")
    w.token_count((1000, 0, 100, 0))
    w.message("assistant", "copied b")
    w.token_count((2500, 800, 250, 0))
    w.task_complete("t1")
    w.task_started("t2")
    w.turn_context("t2", model="gpt-5-codex")
    w.message("user", "fork")
    w.message("assistant", "own")
    w.token_count((1200, 500, 60, 0), (1200, 500, 60, 0))
    w.task_complete("t2")
    path = Path(w.path)
    for t in (opened(path), _live(path)):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (700, 500, 60)
        copied, own = t.runs
        assert copied.copied and not own.copied
        assert copied.usage.tokens is None and copied.usage.reported == 0
        assert copied.describe_usage() == COPIED_USAGE
        assert copied.to_json()["copied-from-parent"] is True
        assert "copied-from-parent" not in own.to_json()
        assert own.usage == u and own.describe_usage() == u.describe()
        assert sum(r.usage.reported for r in t.runs) == u.reported == 1
        said = {i.parts[0].text: i.usage for i in t.messages if i.role == "assistant"}
        assert said["copied a"] is None and said["copied b"] is None
        assert said["own"] is not None and said["own"].tokens == u.tokens


def _last_alone(inputs: int, cached: int, output: int) -> dict[str, int]:
    return usage((inputs, cached, output, 0))


@pytest.mark.parametrize("flat", [False, True])
def test_a_report_of_its_last_usage_alone_written_twice_is_counted_once(
    tmp_path: Path, flat: bool
) -> None:
    """Codex writes each report twice: a report with no total (its last usage alone, or
    2025's flat counts) that is the one before again, no model output between, is that
    report repeated; the same usage after an output is a response of its own."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1", model="gpt-5-codex")
    w.message("user", "hi")

    def report(counts: dict[str, int]) -> None:
        for _ in range(2):  # (as Codex writes it)
            if flat:
                w.event("token_count", **counts)
            else:
                w.event("token_count", info={"last_token_usage": counts}, rate_limits=None)

    w.message("assistant", "a")
    report(_last_alone(1000, 200, 100))
    w.message("assistant", "b")
    report(_last_alone(1500, 900, 50))
    w.message("assistant", "c")  # (the same usage as b's: a response of its own)
    report(_last_alone(1500, 900, 50))
    w.task_complete("t1")
    path = Path(w.path)
    for t in (opened(path), _live(path)):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (2000, 2000, 200)
        assert u.reported == u.responses == 3
        said = [i.usage.tokens for i in t.messages if i.usage is not None]
        assert said == [1100, 1550, 1550]
        assert t.runs[0].usage == u


def test_unknown_model_cost_is_none(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.turn_context("t", model="gpt-99-unknown")
    w.message("assistant", "hi")
    w.token_count((10, 0, 5, 0))
    t = opened(Path(w.path))
    assert t.usage.input_tokens == 10 and t.usage.cost is None
    assert t.raw[-2].usage is not None and t.raw[-2].usage.output_tokens == 5


def test_no_usage_reported_is_null(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.token_count(None)
    usage = opened(Path(w.path)).to_json()["usage"]
    assert usage["input-tokens"] is None and usage["cost"] is None and usage["reported"] == 0


def test_a_token_count_of_its_fields_alone(tmp_path: Path) -> None:
    """Writers of 2025 before ``info`` wrote each response's usage flat on the event."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.31.0")
    w.task_started("t1")
    w.message("user", "hi")
    w.message("assistant", "hello")
    w.event("token_count", **usage((1000, 200, 50, 10)))
    w.message("assistant", "more")
    w.event("token_count", **usage((1500, 1000, 20, 0)))
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [i.usage.input_tokens for i in t.raw if i.usage is not None] == [800, 500]
    u = t.to_json()["usage"]
    assert (u["input-tokens"], u["cache-read-tokens"], u["output-tokens"]) == (1300, 1200, 70)
    assert u["reported"] == 2 and t.runs[0].usage.output_tokens == 70
    part = t.raw[-2].parts[0]
    assert part.name == "token_count" and part.text.startswith("2,570 tokens so far")


def test_a_response_whose_usage_came_before_its_items(tmp_path: Path) -> None:
    """0.4x-0.6x wrote a response's token_count before its response items (each model
    request opened by a turn_context): the usage is that response's, not the one before."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.58.0")
    w.event("user_message", message="go")
    w.turn_context("")
    w.token_count(None)
    w.event("agent_reasoning", text="plan")
    w.token_count((1000, 0, 50, 0))
    first = w.reasoning("plan")
    w.function_call("shell", {"command": ["ls"]}, "c1")
    w.function_output("c1", "a", exit_code=0, old=True)
    w.turn_context("")
    w.token_count((1000, 0, 50, 0))  # the last request's total again
    w.token_count((2100, 1000, 80, 0), (1100, 1000, 30, 0))
    second = w.message("assistant", "done")
    t = opened(Path(w.path), alive=False)
    used = {i.line: i.usage.input_tokens for i in t.raw if i.usage is not None}
    assert used == {first: 1000, second: 100}
