"""``tailscope demo``'s v1 file: the simulated agent writes a realistic, loadable run that
ends in a crash."""

from __future__ import annotations

import gc
import hashlib
import os
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from demo_helpers import assert_still_held_at_crash, from_copy, loaded_copy

from session_core import Session, arguments_digest, canonical_arguments, data_digest, peek
from session_core.artifacts import artifact_dir
from session_core.codec import section_digest
from viewer.demo import simulate_run

# --- helpers ------------------------------------------------------------------------------


def write_demo(tmp_path: Path, **kwargs: Any) -> Path:
    path = tmp_path / "agent-run.jsonl"
    simulate_run(str(path), speed=0, **kwargs)
    # (a crash leaves its session open, its lock held until it is collected: collected
    # now, its writer is gone before the file is read, not half way through the reads)
    gc.collect()
    return path


def envelopes(path: Path) -> list[dict[str, Any]]:
    result = peek(path)
    assert result.error is None, result.error
    return result.envelopes


def of_type(envs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in envs if e["type"] == kind]


def tool_messages(envs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """call-id -> the payload of the tool message answering it."""
    return {
        e["payload"]["tool-call-id"]: e["payload"]
        for e in of_type(envs, "message")
        if e["payload"].get("role") == "tool"
    }


@pytest.fixture
def crashed(tmp_path: Path) -> Path:
    return write_demo(tmp_path / "run", crash=True)


# --- the file -----------------------------------------------------------------------------


def test_peek_reads_every_line_without_warnings(crashed: Path) -> None:
    result = peek(crashed)
    assert result.error is None
    assert result.warnings == []
    assert result.meta["agent"] == "quill"
    lines = crashed.read_bytes().split(b"\n")
    assert lines[-1] == b""  # every line is whole: the crash happened between lines
    assert len(result.envelopes) == len(lines) - 1


def test_load_succeeds_and_replays(crashed: Path, tmp_path: Path) -> None:
    session = loaded_copy(crashed, tmp_path / "copy")
    try:
        assert session.warnings() == []
        assert session.messages()[0].sysprompt
        assert session.messages()[0].role == "system"
        assert len(session.grants()) >= 4
    finally:
        session.close()


def test_the_three_crash_states(crashed: Path, tmp_path: Path) -> None:
    envs = envelopes(crashed)
    answers = tool_messages(envs)
    pending = from_copy(crashed, tmp_path / "copy", Session.pending_tool_operations)
    assert len(pending) == 2
    in_flight = [op for op in pending if op["call-id"] not in answers]
    answered = [op for op in pending if op["call-id"] in answers]
    assert [op["tool"] for op in in_flight] == ["run_tests"]
    assert [op["tool"] for op in answered] == ["git_diff"]

    # The last assistant turn asked for three tools; the third was never dispatched.
    last_turn = [
        e["payload"] for e in of_type(envs, "message") if e["payload"]["role"] == "assistant"
    ][-1]
    dispatched = {e["payload"]["call-id"] for e in of_type(envs, "tool-dispatched")}
    never = [c for c in last_turn["tool-calls"] if c["id"] not in dispatched]
    assert [c["function"]["name"] for c in never] == ["fs_read"]
    assert never[0]["id"] not in answers
    # ... and the file ends with the answer whose settle never landed.
    assert envs[-1]["type"] == "message"
    assert envs[-1]["payload"]["tool-call-id"] == answered[0]["call-id"]


def test_tool_outcomes_failed_unknown_and_artifact(crashed: Path, tmp_path: Path) -> None:
    envs = envelopes(crashed)
    answers = tool_messages(envs)
    ops = from_copy(crashed, tmp_path / "copy", Session.tool_operations)
    by_outcome: dict[str | None, list[dict[str, Any]]] = {}
    for op in ops:
        by_outcome.setdefault(op.get("outcome"), []).append(op)

    failed = by_outcome["failed"]
    assert len(failed) == 1 and failed[0]["tool"] == "apply_patch"
    assert failed[0]["error"]
    assert answers[failed[0]["call-id"]]["is-error"] is True

    unknown = by_outcome["outcome-unknown"]
    assert len(unknown) == 1 and unknown[0]["tool"] == "web_fetch"
    assert unknown[0]["reason"] == "timeout"
    answer = answers[unknown[0]["call-id"]]
    assert answer["is-error"] is True and answer["outcome-unknown"] is True

    with_artifact = [op for op in by_outcome["completed"] if "artifact" in op]
    assert len(with_artifact) == 1
    op = with_artifact[0]
    record = op["artifact"]
    stored = Path(artifact_dir(crashed)) / record["file"]
    assert stored.parent.name == "agent-run.artifacts"
    data = stored.read_bytes()
    assert hashlib.sha256(data).hexdigest() == record["digest"]
    assert record["bytes"] == len(data)
    assert record["chars"] == len(data.decode("utf-8"))
    assert record["elided-chars"] > 0
    excerpt = answers[op["call-id"]]["content"]
    assert f"full result: {record['file']} sha256 {record['digest']}" in excerpt
    assert len(excerpt) < record["chars"]
    assert op["result-digest"] == data_digest(excerpt)
    assert len(by_outcome["completed"]) >= 10


def test_dispatch_and_settle_lines_are_consistent(crashed: Path) -> None:
    envs = envelopes(crashed)
    answers = tool_messages(envs)
    calls = {
        c["id"]: c for e in of_type(envs, "message") for c in e["payload"].get("tool-calls", [])
    }
    dispatches = {e["id"]: e for e in of_type(envs, "tool-dispatched")}
    position = {e["id"]: i for i, e in enumerate(envs)}
    for env in dispatches.values():
        p = env["payload"]
        model_args = calls[p["call-id"]]["function"]["arguments"]
        assert p["arguments"] == canonical_arguments(model_args)
        assert p["arguments-digest"] == arguments_digest(p["arguments"])
        assert p["tool"] == calls[p["call-id"]]["function"]["name"]
        assert p["idempotency"] in ("read-only", "idempotent", "destructive")
        assert p["run-id"] in ("run-1", "run-2") and p["round"] >= 1
    for env in of_type(envs, "tool-settled"):
        p = env["payload"]
        dispatch = dispatches[p["op-id"]]
        answer = answers[dispatch["payload"]["call-id"]]
        # The loop writes the tool message before the settle.
        answer_at = next(
            i
            for i, e in enumerate(envs)
            if e["type"] == "message"
            and e["payload"].get("tool-call-id") == dispatch["payload"]["call-id"]
        )
        assert position[dispatch["id"]] < answer_at < position[env["id"]]
        assert p["duration"] > 0
        if p["outcome"] != "outcome-unknown":
            assert p["result-digest"] == data_digest(answer["content"])


def test_elision_and_compaction_replay(crashed: Path, tmp_path: Path) -> None:
    envs = envelopes(crashed)
    message_lines = of_type(envs, "message")
    compactions = of_type(envs, "compaction")
    elisions = of_type(envs, "elision")
    assert len(compactions) == 1 and len(elisions) >= 1
    compaction = compactions[0]["payload"]
    assert compaction["tokens-before"] > compaction["tokens-after"] > 0
    assert compaction["fallback"] is False
    # The first elision comes before the compaction, in the part it folds.
    assert envs.index(elisions[0]) < envs.index(compactions[0])

    session = loaded_copy(crashed, tmp_path / "copy")
    messages = session.messages()
    ids = session.message_ids()
    session.close()
    assert len(messages) < len(message_lines)
    summary_at = ids.index(compactions[0]["id"])
    assert messages[summary_at].role == "user"
    assert messages[summary_at].content == compaction["summary"]
    assert all(m.sysprompt for m in messages[:summary_at])  # only sticky ones survive the cut

    stubbed = {item["id"]: item["stub"] for e in elisions for item in e["payload"]["items"]}
    live = [mid for mid in ids if mid in stubbed]
    assert live, "an elided message is still in the replayed conversation"
    raw = {e["id"]: e["payload"] for e in message_lines}
    for mid in live:
        message = messages[ids.index(mid)]
        assert message.content == stubbed[mid]
        assert raw[mid]["content"] != stubbed[mid]  # the file still has the original
        assert message.role == "tool" and message.tool_call_id == raw[mid]["tool-call-id"]


def test_run_contexts_repeat_sections(crashed: Path, tmp_path: Path) -> None:
    session = loaded_copy(crashed, tmp_path / "copy")
    contexts = session.run_contexts()
    try:
        assert [c["run-id"] for c in contexts] == ["run-1", "run-2"]
        first, second = contexts
        assert all("rendered" in s for s in first["sections"])
        for section in first["sections"]:
            assert section["digest"] == section_digest(section["name"], section["rendered"])
        by_name = {s["name"]: s for s in second["sections"]}
        assert by_name["identity"]["rendered-in"] == first["id"]
        assert by_name["tools"]["rendered-in"] == first["id"]
        assert "rendered" in by_name["AGENTS.md"]  # it changed between the runs
        assert by_name["AGENTS.md"]["digest"] != first["sections"][1]["digest"]
        for section in second["sections"]:
            body = session.run_context_section(section["digest"])
            assert body is not None
            assert section_digest(section["name"], body) == section["digest"]
        keys = [k for k, _ in first["facts"]]
        assert keys[:4] == ["date", "cwd", "branch", "head"] and "model" in keys
        assert first["digest"] != second["digest"]
    finally:
        session.close()


def test_assistant_turns_carry_usage_and_reasoning(crashed: Path) -> None:
    turns = [
        e["payload"]
        for e in of_type(envelopes(crashed), "message")
        if e["payload"]["role"] == "assistant"
    ]
    assert len(turns) >= 10
    for turn in turns:
        usage = turn["usage"]
        assert usage["total-tokens"] == usage["prompt-tokens"] + usage["completion-tokens"]
        assert usage["cost"] > 0
        assert turn["reasoning"]
        assert turn["finish-reason"] == ("tool_calls" if turn.get("tool-calls") else "stop")
    assert any(len(t.get("tool-calls", [])) >= 2 for t in turns)  # parallel calls too


def test_deterministic_content(tmp_path: Path) -> None:
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

    def content(path: Path) -> list[str]:
        # Envelope ids are random, and the artifact's file is named after its operation id
        # (so the excerpt's digest, which covers that name, differs too).
        out = []
        for e in envelopes(path):
            payload = dict(e["payload"])
            if "artifact" in payload:
                payload.pop("result-digest")
            out.append(uuid.sub("ID", orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode()))
        return out

    one = write_demo(tmp_path / "one")
    two = write_demo(tmp_path / "two")
    assert content(one) == content(two)


def test_a_clean_finish_settles_everything(tmp_path: Path) -> None:
    path = write_demo(tmp_path / "clean", crash=False)
    session = loaded_copy(path, tmp_path / "copy")
    try:
        assert session.pending_tool_operations() == []
        last = session.messages()[-1]
        assert last.role == "assistant" and not last.tool_calls
    finally:
        session.close()


def test_pacing(tmp_path: Path) -> None:
    waits: list[float] = []
    simulate_run(str(tmp_path / "a" / "run.jsonl"), speed=1.0, sleep=waits.append)
    assert 30 <= sum(waits) <= 60
    assert max(waits) < 6  # the hang is the longest pause
    assert sum(1 for w in waits if w > 1.5) <= 12

    faster: list[float] = []
    simulate_run(str(tmp_path / "b" / "run.jsonl"), speed=2.0, sleep=faster.append)
    assert sum(faster) == pytest.approx(sum(waits) / 2)

    for speed in (0.0, 1e12, float("inf")):
        none: list[float] = []
        simulate_run(str(tmp_path / f"c{speed}" / "run.jsonl"), speed=speed, sleep=none.append)
        assert none == []


def test_at_crash_runs_with_the_session_still_open(tmp_path: Path) -> None:
    assert_still_held_at_crash(tmp_path / "run.jsonl", Session.load)


def test_unknown_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown demo format"):
        simulate_run(str(tmp_path / "x.jsonl"), speed=0, format="nope")


def test_replay_json_names_every_operation_the_model_has(crashed: Path) -> None:
    """``tailscope replay``'s operations are the dispatches, then the calls no dispatch
    line names (*never dispatched*), as the neutral model's are; none of those is
    pending."""
    from session_core import open_transcript
    from session_core.formats import by_name

    os.utime(crashed, (1_700_000_000, 1_700_000_000))  # (idle: its writer gone)
    replay = by_name("transcript-v1").replay_json(crashed)
    states = [(op["call-id"], op["state"]) for op in replay["tool-operations"]]
    model = open_transcript(crashed)  # (its writer gone, as the replay finds it)
    assert states == [(op.call_id, op.state) for op in model.tool_operations]
    assert states[-1][1] == "never-dispatched"
    never = replay["tool-operations"][-1]
    assert never["tool"] == "fs_read" and "op-id" not in never
    pending = {op["call-id"] for op in replay["pending-tool-operations"]}
    assert never["call-id"] not in pending
