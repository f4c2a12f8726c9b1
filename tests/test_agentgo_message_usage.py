"""The spec puts a response's usage on its ``model_exec_end`` (the AgentMessage's own
``usage?`` is optional): an assistant message committed without one showed no usage in
the conversation or the exports, where every other format shows a message's usage with
it. It shows its model call's, that call still counted once in every total."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentgo_helpers import ASSISTANT, REQUEST, USAGE, model, one_turn
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from session_core.export_md import md_inline
from session_core.formats import by_name
from session_core.usage_totals import Usage

SAID = "150 tok (56 in + 30 out + 64 cache read) · $0.0012"  # (USAGE, described)


def _shown(path: Path) -> tuple[list[Usage | None], list[str]]:
    """Each message's usage in the neutral model, and the md export's usage lines."""
    messages = open_transcript(path).messages
    lines = [line for line in export(path, "md").splitlines() if line.startswith("usage: ")]
    return [m.usage for m in messages], lines


def _totals(path: Path) -> tuple[Any, ...]:
    t = open_transcript(path)
    replayed = by_name("agentgo-v1").replay_json(path)["usage"]
    return t.usage, [run.usage for run in t.runs], replayed, by_name("agentgo-v1").check(path)


def test_a_message_shows_its_model_calls_usage_counted_once(tmp_path: Path) -> None:
    path = one_turn(tmp_path / "s.jsonl")  # (the usage on the model_exec_end alone)
    (used,), lines = _shown(path)
    assert used is not None and used.tokens == 150 and used.cost == 0.0012
    assert lines == [f"usage: {md_inline(SAID)}"]
    totals = _totals(path)
    assert totals[0].tokens == 150 and totals[0].reported == 1
    assert [run.tokens for run in totals[1]] == [150]
    assert totals[2]["reported"] == 1 and "usage 150 tok · $0.0012" in totals[3]
    # The same run with the usage on the message too: the same totals, the same row.
    both = tmp_path / "both.jsonl"
    with AgentGoSession.create(both) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", {"message": ASSISTANT, "usage": USAGE}, execution=model("m1"))
        run.record("message_end", {"message": {**ASSISTANT, "usage": USAGE}})
        run.record("agent_end", {})
    assert _shown(both) == ([used], lines)
    assert _totals(both)[:3] == totals[:3]


def _written(path: Path, committed: dict[str, Any], ended: dict[str, Any]) -> Path:
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", ended, execution=model("m1"))
        run.record("message_end", {"message": committed})
        run.record("agent_end", {})
    return path


def test_only_the_message_the_call_produced_shows_it(tmp_path: Path) -> None:
    """A model result is no proof that its message committed (the seed): a message
    other than the call's shows no usage (unknown, not the call's); a message's own
    usage wins; a failed call's partial message is committed by none."""
    other = {**ASSISTANT, "content": [{"type": "text", "text": "something else"}]}
    assert _shown(_written(tmp_path / "a.jsonl", other, {"message": ASSISTANT, "usage": USAGE}))[
        0
    ] == [None]
    own = {"input_tokens": 1, "output_tokens": 2}
    (used,), _ = _shown(
        _written(
            tmp_path / "b.jsonl",
            {**ASSISTANT, "usage": own},
            {"message": ASSISTANT, "usage": USAGE},
        )
    )
    assert used is not None and used.tokens == 3
    failed = {"partial_message": ASSISTANT, "error": "reset", "usage": USAGE}
    assert _shown(_written(tmp_path / "c.jsonl", ASSISTANT, failed))[0] == [None]
    # (a user message between a call's end and its message does not end the wait)
    path = tmp_path / "d.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", {"message": ASSISTANT, "usage": USAGE}, execution=model("m1"))
        run.record("message_end", {"message": {"kind": "user", "content": []}})
        run.record("message_end", {"message": ASSISTANT})
        run.record("message_end", {"message": ASSISTANT})  # (one call, one message)
    usages, _ = _shown(path)
    assert [u.tokens if u else None for u in usages] == [None, 150, None]


def test_a_response_whose_call_reported_no_usage_says_unknown(tmp_path: Path) -> None:
    """The message a call produced is a response however little its call said: its usage
    is unknown (not reported), never left unsaid as a user's message's is."""
    path = _written(tmp_path / "s.jsonl", ASSISTANT, {"message": ASSISTANT})
    (used,), lines = _shown(path)
    assert used is not None and used.tokens is None
    assert lines == [f"usage: {md_inline('unknown (not reported)')}"]
