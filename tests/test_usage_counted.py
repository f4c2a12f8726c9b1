"""One rule for a response's tokens, on every surface: the header (the model's usage),
``replay``, the exports and the browser gave one v1 or agentgo file different totals
(the browser and the exports left an agentgo cache read out, the header counted a v1
cache read twice beside a ``total-tokens`` that held it)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from corpus import fixed_agentgo
from session_core import Message, Session, open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export_into
from session_core.message_usage import MessageUsage, agentgo_usage
from session_core.scan import scan_file
from session_core.views import replay_any


@pytest.mark.parametrize(
    ("reported", "counted"),
    [
        # OpenAI's prompt tokens hold their cached ones: the total says so
        (MessageUsage(900, 60, 960, 800), (100, 60, 800, None)),
        # agentgo's input holds its cached tokens (no total: input plus output is one)
        (
            agentgo_usage({"input_tokens": 1000, "output_tokens": 10, "cache_read_tokens": 800}),
            (200, 10, 800, None),
        ),
        # ...but a cache read bigger than the input cannot be part of it: added
        (
            agentgo_usage({"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 1000}),
            (100, 10, 1000, None),
        ),
        (MessageUsage(100, 10, None, 1000), (100, 10, 1000, None)),
        # a total past its counts: the rest is tokens of no named kind
        (MessageUsage(100, 10, 150, None), (100, 10, None, 40)),
        (MessageUsage(None, None, 500, None), (None, None, None, 500)),
        (MessageUsage(200, None, None, None), (200, None, None, None)),
        (MessageUsage(0, 0, 0, None), (0, 0, None, None)),
        # (the review) no output count: the cache is still the prompt's, not added again
        (MessageUsage(900, None, None, 800), (100, None, 800, None)),
        # a total past input plus output: the cache still the prompt's, the rest unnamed
        (MessageUsage(900, 60, 1000, 800), (100, 60, 800, 40)),
    ],
)
def test_each_token_is_counted_once(
    reported: MessageUsage | None, counted: tuple[int | None, ...]
) -> None:
    assert reported is not None and reported.counted() == counted
    known = [n for n in counted if n is not None]
    assert reported.tokens == (sum(known) if known else None)


def _v1(path: Path, usages: list[dict[str, Any]]) -> Path:
    with Session.create(path, meta={"agent": "t"}) as s:
        for n, usage in enumerate(usages):
            s.append_message(Message(role="user", content=f"q{n}"))
            s.append_message(Message(role="assistant", content=f"a{n}"), extra={"usage": usage})
    return path


def _agentgo(path: Path, usage: dict[str, Any], *, on_message: bool = False) -> Path:
    """One model call whose ``model_exec_end`` carries ``usage`` (``on_message``: its
    message alone carries it, as the AgentMessage's ``usage?``)."""
    model = {"id": "turn-1", "kind": "model", "attempt": 1}
    answer: dict[str, Any] = {"kind": "assistant", "content": [{"type": "text", "text": "a"}]}
    end: dict[str, Any] = {"message": answer}
    if on_message:
        answer["usage"] = usage
    else:
        end["usage"] = usage
    with fixed_agentgo():
        session = AgentGoSession.create(path)
        run = session.begin_run()
        run.record("agent_start")
        run.record("model_request", {"messages": [], "tools": []}, execution=model)
        run.record("model_exec_end", end, execution=model)
        run.record("message_end", {"message": answer})
        run.record("agent_end", {"stop_reason": "end_turn"})
        run.close()
        session.close()
    return path


def _everywhere(path: Path) -> dict[str, Any]:
    """The file's tokens as each surface gives them."""
    usage = replay_any(path)["usage"]
    said = {
        "model": open_transcript(path).usage.tokens,
        "replay": sum(
            usage[key] or 0
            for key in ("input-tokens", "output-tokens", "cache-read-tokens", "total-only-tokens")
            if key in usage
        ),
        "browser": scan_file(path, live_window=0).tokens,
    }
    out = io.BytesIO()
    export_into(path, "md", "replayed", out)
    said["export"] = int(
        next(line for line in out.getvalue().decode().splitlines() if line.startswith("| usage | "))
        .split("| usage | ", 1)[1]
        .split()[0]
        .replace(",", "")
    )
    return said


@pytest.mark.parametrize(
    ("make", "tokens"),
    [
        (
            lambda p: _agentgo(
                p, {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 1000}
            ),
            1110,
        ),
        (
            lambda p: _agentgo(p, {"input_tokens": 300, "output_tokens": 30}, on_message=True),
            330,
        ),
        (
            lambda p: _v1(
                p,
                [
                    {
                        "prompt-tokens": 900,
                        "completion-tokens": 60,
                        "total-tokens": 960,
                        "cache-read-tokens": 800,
                    }
                ],
            ),
            960,
        ),
        (
            lambda p: _v1(
                p, [{"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 150}]
            ),
            150,
        ),
        (
            lambda p: _v1(
                p,
                [
                    {"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 110},
                    {"prompt-tokens": 200},
                ],
            ),
            310,
        ),
    ],
    ids=[
        "agentgo-cache",
        "agentgo-usage-on-its-message",
        "v1-cache-in-prompt",
        "v1-total-past-counts",
        "v1-input-alone",
    ],
)
def test_every_surface_gives_one_file_one_total(tmp_path: Path, make: Any, tokens: int) -> None:
    path = make(tmp_path / "t.jsonl")
    said = _everywhere(path)
    assert set(said.values()) == {tokens}, said


def test_a_response_known_in_part_is_said_so(tmp_path: Path) -> None:
    path = _v1(
        tmp_path / "t.jsonl",
        [
            {"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 110},
            {"prompt-tokens": 200},
        ],
    )
    usage = open_transcript(path).usage
    assert usage.in_part == 1 and "1 reported in part" in usage.describe()
    assert replay_any(path)["usage"]["reported-in-part"] == 1
    out = io.BytesIO()  # (the export said "1 of 2 responses reported" where the header
    export_into(path, "md", "replayed", out)  # said nothing: one way now)
    assert "| usage | 310 tok \\(" in out.getvalue().decode()
    assert "· 1 reported in part |" in out.getvalue().decode()  # (the header's words)
    assert scan_file(path, live_window=0).tokens_partial


def test_the_browser_marks_a_total_some_responses_left_out(tmp_path: Path) -> None:
    full = {"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 110, "cost": 0.01}
    whole = scan_file(_v1(tmp_path / "whole.jsonl", [full, full]), live_window=0)
    assert (whole.tokens, whole.tokens_partial, whole.cost_partial) == (220, False, False)
    path = tmp_path / "part.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="assistant", content="a"), extra={"usage": full})
        s.append_message(Message(role="assistant", content="b"))  # (it reported nothing)
    part = scan_file(path, live_window=0)
    assert (part.tokens, part.tokens_partial, part.cost_partial) == (110, True, True)
    cost_alone = scan_file(_v1(tmp_path / "c.jsonl", [full, {**full, "cost": None}]), live_window=0)
    assert (cost_alone.tokens_partial, cost_alone.cost_partial) == (False, True)


def test_a_response_of_a_cost_alone_leaves_the_tokens_a_lower_bound(tmp_path: Path) -> None:
    """(the second review) a response that said its cost alone said none of its tokens:
    the row's total is a lower bound (its ``≥`` was gone)."""
    full = {"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 110, "cost": 0.01}
    row = scan_file(_v1(tmp_path / "d.jsonl", [full, {"cost": 0.01}]), live_window=0)
    assert (row.tokens, row.tokens_partial, row.cost_partial) == (110, True, False)
    assert "1 reported in part" in open_transcript(tmp_path / "d.jsonl").usage.describe()


def test_a_negative_count_is_no_count(tmp_path: Path) -> None:
    """A token count below 0 is unknown, by both readers of a v1 line (the index pass's
    and the plain one's): a cache read of -100 made a 900-token input 1,000."""
    from session_core.message_usage import v1_usage

    odd = {"prompt-tokens": 900, "completion-tokens": -5, "cache-read-tokens": -100}
    assert v1_usage({"usage": odd}) == MessageUsage(900, None, None, None, None)
    path = _v1(tmp_path / "t.jsonl", [odd])
    usage = open_transcript(path).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (900, None, None)
    assert scan_file(path, live_window=0).tokens == 900


def test_a_failed_calls_partial_message_usage_is_counted(tmp_path: Path) -> None:
    """A model call that failed after a partial answer spent tokens: its partial
    message's usage counts where the call's own says none."""
    from session_core.message_usage import exec_end_usage

    partial = {"kind": "assistant", "usage": {"input_tokens": 50, "output_tokens": 5}}
    said = exec_end_usage({"error": "overloaded", "partial_message": partial})
    assert said is not None and said.tokens == 55


def test_a_cost_is_said_priced_in_part_only_where_a_price_was_missing() -> None:
    """Responses that reported no usage are "N of M responses reported"; the cost's
    "(K of N priced)" counts only those that reported (it read "2 of 3 priced" of two
    responses priced and one that reported nothing, as if a price were missing)."""
    from session_core.usage_totals import Usage

    priced = Usage.of_response(input_tokens=100, output_tokens=10, cost=0.01)
    unpriced = Usage.of_response(input_tokens=100, output_tokens=10)
    silent = Usage(responses=1)
    total = Usage()
    for one in (priced, priced, silent):
        total.add(one)
    assert total.describe().endswith("· $0.0200 · 2 of 3 responses reported")
    total.add(unpriced)
    assert total.describe().endswith("· $0.0200 (2 of 3 priced) · 3 of 4 responses reported")


def test_a_cost_reported_without_tokens_is_said(tmp_path: Path) -> None:
    """Responses that said their cost alone: the tokens are unknown, the cost is known
    (the header said "unknown" of both)."""
    path = _v1(tmp_path / "c.jsonl", [{"cost": 0.01}, {"cost": 0.02}])
    said = open_transcript(path).usage.describe()
    assert said == "tokens unknown · $0.0300", said
