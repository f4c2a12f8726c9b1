"""``tailscope demo --format claude-code|codex``: the writer process, killed, and its file."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from demo_helpers import run_write_command

from session_core import formats
from session_core.model import Transcript
from viewer.demo import DEMO_FILES, DEMO_FORMATS, RECORDERS


def write_killed(tmp_path: Path, fmt: str) -> Path:
    """Run ``python -m viewer.demo write`` as a real process; it dies by SIGKILL."""
    path = tmp_path / DEMO_FILES[fmt]
    run_write_command(path, "--format", fmt)
    return path


def records(path: Path) -> tuple[list[dict[str, Any]], bytes]:
    """Every line parsed; only the last may be torn (returned raw, else b"")."""
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    torn = lines.pop() if not raw.endswith(b"\n") else b""
    parsed = [json.loads(line) for line in lines if line]
    assert all(isinstance(r, dict) for r in parsed)
    if torn:
        with pytest.raises(json.JSONDecodeError):
            json.loads(torn)
    return parsed, torn


def reader(fmt: str) -> formats.TranscriptFormat | None:
    """The project's reader of this format, once it is registered."""
    return formats.by_name(fmt) if fmt in formats.names() else None


def read_by_the_project(name: str, path: Path) -> tuple[Transcript, Counter[str], int]:
    """The file opened by the project's reader of ``name`` (skipped while there is none),
    after detection names it; with its operations' states counted and its compactions."""
    fmt = reader(name)
    if fmt is None:
        pytest.skip(f"the {name} reader is not registered yet")
    assert formats.detect_format(path) == name
    transcript = fmt.open(path, writer_alive=False)
    states = Counter(op.state for op in transcript.tool_operations)
    compactions = [c for c in transcript.compactions if c.kind == "compaction"]
    return transcript, states, len(compactions)


@pytest.fixture(scope="module")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_killed(tmp_path_factory.mktemp("claude"), "claude-code")


@pytest.fixture(scope="module")
def codex(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_killed(tmp_path_factory.mktemp("codex"), "codex")


def test_every_format_is_named() -> None:
    from viewer import cli

    assert DEMO_FORMATS == ("transcript-v1", "agentgo-v1", "claude-code", "codex")
    assert set(DEMO_FORMATS) == set(RECORDERS) == set(DEMO_FILES)
    assert cli.DEMO_FORMATS == DEMO_FORMATS  # (named again there: parsing imports no demo)


# --- claude-code ----------------------------------------------------------------------


def test_claude_code_layout_and_lines(claude: Path) -> None:
    assert claude.parent.name == "-home-dev-src-tinycalc"
    assert claude.parent.parent.name == "projects"
    lines, torn = records(claude)
    assert torn  # killed mid-write
    assert lines[0]["type"] == "file-history-snapshot"
    chat = [r for r in lines if r["type"] in ("user", "assistant", "system", "progress")]
    session = {r["sessionId"] for r in chat}
    assert session == {claude.stem}
    uuids = [r["uuid"] for r in chat]
    assert len(set(uuids)) == len(uuids)
    known = set(uuids)
    # Threaded: every parent is an earlier line (a root and the boundary excepted).
    assert all(r["parentUuid"] in known for r in chat if r["parentUuid"] is not None)
    kinds = Counter(
        r["type"] + "/" + (r.get("subtype") or r.get("data", {}).get("type") or "") for r in chat
    )
    assert kinds["system/compact_boundary"] == 1
    assert kinds["system/turn_duration"] == 1
    assert kinds["progress/bash_progress"] >= 6
    assert kinds["progress/agent_progress"] == 2


def test_claude_code_split_responses_and_usage(claude: Path) -> None:
    lines, _ = records(claude)
    by_id: dict[str, list[dict[str, Any]]] = {}
    for r in lines:
        if r["type"] == "assistant":
            by_id.setdefault(r["message"]["id"], []).append(r)
    assert all(len(split) >= 2 for split in by_id.values())
    for split in by_id.values():
        assert len({r["requestId"] for r in split}) == 1
        assert all(len(r["message"]["content"]) == 1 for r in split)
        assert {r["message"]["model"] for r in split} == {"claude-sonnet-4-5-20250929"}
        out = [r["message"]["usage"]["output_tokens"] for r in split]
        assert out == sorted(out) and out[-1] > out[0]  # repeated, growing


def test_claude_code_tools_compaction_and_subagent(claude: Path) -> None:
    lines, _ = records(claude)
    uses = {
        b["id"]: b
        for r in lines
        if r["type"] == "assistant"
        for b in r["message"]["content"]
        if b["type"] == "tool_use"
    }
    results = {
        r["message"]["content"][0]["tool_use_id"]: r
        for r in lines
        if r["type"] == "user" and "toolUseResult" in r
    }
    errors = [u for u, r in results.items() if r["message"]["content"][0].get("is_error")]
    assert {uses[u]["name"] for u in errors} >= {"Bash", "Edit"}
    bash_ok = [r for u, r in results.items() if uses[u]["name"] == "Bash" and u not in errors]
    assert bash_ok and {"stdout", "stderr", "interrupted"} <= set(bash_ok[0]["toolUseResult"])
    edits = [r for u, r in results.items() if uses[u]["name"] == "Edit" and u not in errors]
    assert edits and edits[0]["toolUseResult"]["structuredPatch"][0]["lines"]
    unanswered = [u for u in uses if u not in results]
    assert [uses[u]["name"] for u in unanswered] == ["Bash", "Read"]  # in flight at the crash

    boundary = next(r for r in lines if r.get("subtype") == "compact_boundary")
    assert boundary["parentUuid"] is None and boundary["logicalParentUuid"]
    assert boundary["compactMetadata"]["trigger"] == "auto"
    assert boundary["compactMetadata"]["preTokens"] > 0
    after = lines[lines.index(boundary) + 1]
    assert after["isCompactSummary"] is True and after["parentUuid"] == boundary["uuid"]
    assert after["message"]["content"].startswith("This session is being continued")

    task = next(u for u in uses.values() if u["name"] == "Task")
    agent_id = results[task["id"]]["toolUseResult"]["agentId"]
    sub = claude.with_suffix("") / "subagents" / f"agent-{agent_id}.jsonl"
    sub_lines, sub_torn = records(sub)
    assert not sub_torn and len(sub_lines) == 4
    assert all(r["isSidechain"] and r["agentId"] == agent_id for r in sub_lines)
    meta = json.loads(sub.with_suffix(".meta.json").read_text())
    assert meta["agentType"] == "Explore"


def test_claude_code_read_by_the_project(claude: Path) -> None:
    transcript, states, compactions = read_by_the_project("claude-code", claude)
    assert states["failed"] >= 2 and states["interrupted"] == 2
    assert compactions == 1
    assert transcript.usage.output_tokens and transcript.usage.cost is not None
    assert [s.id for s in transcript.subagents] and transcript.subagents[0].path
    assert [r.state for r in transcript.runs][-1] == "interrupted"


# --- codex ----------------------------------------------------------------------------


def test_codex_layout_and_lines(codex: Path) -> None:
    assert codex.parts[-5] == "sessions"
    assert codex.name.startswith("rollout-") and codex.name.endswith(".jsonl")
    lines, torn = records(codex)
    assert not torn
    assert all(set(r) == {"timestamp", "type", "payload"} for r in lines)
    assert lines[0]["type"] == "session_meta"
    assert lines[0]["payload"]["id"] in codex.name
    kinds = Counter(
        r["type"] + ("/" + r["payload"]["type"] if "type" in r["payload"] else "") for r in lines
    )
    assert kinds["event_msg/task_started"] == 2 and kinds["event_msg/task_complete"] == 1
    assert kinds["compacted"] == 1 and kinds["event_msg/context_compacted"] == 1
    assert kinds["response_item/custom_tool_call"] == kinds["response_item/custom_tool_call_output"]
    assert kinds["event_msg/user_message"] == 2
    assert kinds["response_item/reasoning"] == kinds["event_msg/agent_reasoning"] >= 10
    compacted = next(i for i, r in enumerate(lines) if r["type"] == "compacted")
    assert lines[compacted + 1]["payload"]["type"] == "context_compacted"
    assert lines[compacted + 2]["type"] == "turn_context"
    history = lines[compacted]["payload"]["replacement_history"]
    assert history and all(item["type"] == "message" for item in history)


def test_codex_calls_usage_and_the_crash(codex: Path) -> None:
    lines, _ = records(codex)
    payloads = [r["payload"] for r in lines if r["type"] == "response_item"]
    calls = [p["call_id"] for p in payloads if p["type"] in ("function_call", "custom_tool_call")]
    outputs = {
        p["call_id"]: json.loads(p["output"])
        for p in payloads
        if p["type"] in ("function_call_output", "custom_tool_call_output")
    }
    codes = Counter(outputs[c]["metadata"]["exit_code"] for c in calls if c in outputs)
    assert codes[0] >= 8 and sum(n for code, n in codes.items() if code) >= 3
    assert len([c for c in calls if c not in outputs]) == 2  # in flight at the crash
    assert {r["payload"]["model"] for r in lines if r["type"] == "turn_context"} == {"gpt-5-codex"}
    counts = [r["payload"]["info"] for r in lines if r["payload"].get("type") == "token_count"]
    totals = [i["total_token_usage"]["total_tokens"] for i in counts if i]
    assert totals == sorted(totals) and len(set(totals)) >= 10  # cumulative, after each response
    last = next(i for i in reversed(counts) if i)
    assert last["last_token_usage"]["total_tokens"] < last["total_token_usage"]["total_tokens"]
    events = [r["payload"]["type"] for r in lines if r["type"] == "event_msg"]
    assert events[-1] != "task_complete"  # the last turn is cut off
    assert events.count("task_started") == events.count("task_complete") + 1


def test_codex_read_by_the_project(codex: Path) -> None:
    transcript, states, compactions = read_by_the_project("codex", codex)
    assert states["failed"] >= 3 and states["interrupted"] == 2
    assert compactions == 1
    assert transcript.usage.input_tokens and transcript.usage.cost is not None
    assert [r.state for r in transcript.runs] == ["finished", "interrupted"]


def test_a_clean_finish_closes_both(tmp_path: Path) -> None:
    from viewer.demo import simulate_run

    for fmt in ("claude-code", "codex"):
        path = tmp_path / DEMO_FILES[fmt]
        simulate_run(str(path), speed=0, crash=False, format=fmt)
        lines, torn = records(path)
        assert not torn
        if fmt == "codex":
            assert lines[-1]["payload"]["type"] == "task_complete"
        else:
            assert lines[-1].get("subtype") == "turn_duration"
        assert os.path.getsize(path) > 0
