"""Usage in the exports and the v1 and agentgo tallies: unknown never 0, what each
response reported counted once, and a message's own usage line in the totals' words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_export import write_agentgo

from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from session_core.agentgo.reader import read_view
from session_core.export import export
from session_core.export_md import md_inline
from session_core.reader import replay_file
from session_core.replay import ReplayState
from session_core.usage import NO_RUN, tally_agentgo, tally_state
from story import write_story


@pytest.fixture
def story(tmp_path: Path) -> Path:
    path = tmp_path / "story.jsonl"
    write_story(path, hostile=True)
    return path


# -- usage ----------------------------------------------------------------------------------


def _state(*envelopes: tuple[str, dict[str, Any]]) -> ReplayState:
    state = ReplayState()
    for n, (kind, payload) in enumerate(envelopes):
        state.feed({"v": 1, "type": kind, "id": f"e{n}", "ts": "t", "payload": payload})
    return state


class TestUsage:
    def test_unknown_is_not_zero(self) -> None:
        state = _state(
            ("message", {"role": "user", "content": "hi"}),
            ("message", {"role": "assistant", "content": "a"}),
        )
        usage = tally_state(state).transcript
        assert usage.total is None and usage.cost is None
        assert usage.describe_tokens() == "unknown (0 of 1 response reported)"
        zero = _state(
            (
                "message",
                {"role": "assistant", "content": "a", "usage": {"total-tokens": 0, "cost": 0}},
            )
        )
        usage = tally_state(zero).transcript
        assert usage.total == 0 and usage.cost == 0.0 and usage.complete
        assert usage.describe_tokens() == "0"

    def test_partial_totals_say_so(self) -> None:
        state = _state(
            ("message", {"role": "assistant", "content": "a", "usage": {"total-tokens": 1000}}),
            (
                "message",
                {
                    "role": "assistant",
                    "content": "b",
                    "usage": {"prompt-tokens": 1500, "completion-tokens": 90},
                },
            ),
            ("message", {"role": "assistant", "content": "c"}),
            ("message", {"role": "assistant", "content": "d", "usage": {"total-tokens": 0}}),
        )
        usage = tally_state(state).transcript
        assert usage.total == 2590 and not usage.complete
        assert usage.describe_tokens() == "2,590 (3 of 4 responses reported)"
        # (three reported tokens and none a cost: it was "0 of 4 responses reported")
        assert usage.describe_cost() == "unknown (0 of 3 priced, 3 of 4 responses reported)"

    def test_per_run_totals(self, story: Path) -> None:
        tally = tally_state(replay_file(story, tolerate_tail=True))
        assert list(tally.runs) == ["run-1", "run-2"]
        assert tally.runs["run-1"].total == 2100 and tally.runs["run-1"].cost == pytest.approx(
            0.0046
        )
        assert tally.runs["run-2"].total == 490 and tally.runs["run-2"].cost is None
        assert tally.transcript.total == 2590 and tally.transcript.complete
        # (as the header says it: every response reported, one had no price)
        assert tally.transcript.describe_cost() == "$0.0046 (2 of 3 priced)"

    def test_messages_before_any_run_context(self) -> None:
        state = _state(
            ("message", {"role": "assistant", "content": "a", "usage": {"total-tokens": 7}}),
            ("run-context", {"run-id": "r", "digest": "d", "facts": [], "sections": []}),
            ("message", {"role": "assistant", "content": "b"}),
            ("tool-dispatched", {"call-id": "c", "tool": "t", "arguments": "{}", "run-id": "q"}),
        )
        tally = tally_state(state)
        assert list(tally.runs) == [NO_RUN, "r", "q"]
        assert tally.runs[NO_RUN].total == 7
        assert tally.runs["r"].total is None and tally.runs["r"].turns == 1
        assert tally.runs["q"].turns == 0

    def test_incremental_update_matches_whole(self, story: Path) -> None:
        whole = replay_file(story, tolerate_tail=True)
        state = ReplayState()
        tally = tally_state(state)
        for envelope in whole.events:
            state.feed(envelope)
            tally.update(state)
        assert tally == tally_state(whole)

    def test_agentgo_usage_per_call_and_run(self, tmp_path: Path) -> None:
        tally = tally_agentgo(read_view(write_agentgo(tmp_path / "ag.jsonl")))
        run = tally.runs["r1"]
        # (its failed call returned nothing, no message nor usage: no response)
        assert run.turns == 1 and run.reported == 1
        assert run.total == 120 and run.cost == pytest.approx(0.01)
        assert run.describe_tokens() == "120"


def test_a_messages_usage_line_says_what_the_totals_count(tmp_path: Path) -> None:
    """A cache read within the input is part of it (``MessageUsage.counted``): the totals
    count its uncached part, and a message's own usage line says the same, in the same
    words (it said "1,000 in" beside a total that counted 200 for it)."""
    usage = {"prompt-tokens": 1000, "cache-read-tokens": 800, "completion-tokens": 60}
    path = tmp_path / "v1.jsonl"
    with Session.create(path) as s:
        s.append_message(Message(role="user", content="hi"))
        s.append_message(Message(role="assistant", content="a"), extra={"usage": usage})
    agentgo = tmp_path / "ag.jsonl"
    answer = {"kind": "assistant", "content": [{"type": "text", "text": "a"}]}
    model = {"id": "turn-1", "kind": "model", "attempt": 1}
    session = AgentGoSession.create(agentgo)
    run = session.begin_run()
    run.record("model_request", {"messages": [], "tools": []}, execution=model)
    said = {"input_tokens": 1000, "cache_read_tokens": 800, "output_tokens": 60}
    run.record("model_exec_end", {"message": answer, "usage": said}, execution=model)
    run.record("message_end", {"message": {**answer, "usage": said}})
    run.close()
    session.close()
    line = md_inline("1,060 tok (200 in + 60 out + 800 cache read)")  # (as Markdown has it)
    for where in (path, agentgo):
        text = export(where, "md")
        assert f"usage: {line}" in text and "1,000 in" not in text
    assert f"| {line} |" in export(agentgo, "md")  # (its calls table)
    totals = tally_state(replay_file(path, tolerate_tail=True)).transcript
    assert (totals.input, totals.cache_read, totals.total) == (200, 800, 1060)
