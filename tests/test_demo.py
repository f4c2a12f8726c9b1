"""``tailscope demo``: the simulated agent writes a realistic, loadable run that ends in a crash."""

from __future__ import annotations

import hashlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest

from session_core import (
    Session,
    WriterLockedError,
    agentgo,
    arguments_digest,
    canonical_arguments,
    data_digest,
    peek,
)
from session_core.artifacts import artifact_dir
from session_core.codec import section_digest
from viewer import demo
from viewer.cli import main as cli_main
from viewer.demo import command as demo_command
from viewer.demo import simulate_run

T = TypeVar("T")

# --- helpers ------------------------------------------------------------------------------


def write_demo(tmp_path: Path, **kwargs: Any) -> Path:
    path = tmp_path / "agent-run.jsonl"
    simulate_run(str(path), speed=0, **kwargs)
    return path


def loaded_copy(path: Path, where: Path) -> Session:
    """Session.load on a copy (load may repair, and the original is the writer's)."""
    where.mkdir(parents=True, exist_ok=True)
    copy = where / path.name
    shutil.copyfile(path, copy)
    return Session.load(copy)


def from_copy(path: Path, where: Path, read: Callable[[Session], T]) -> T:
    """``read`` of a ``Session.load`` of a copy of the file (closed after)."""
    session = loaded_copy(path, where)
    try:
        return read(session)
    finally:
        session.close()


def pending_in_copy(path: Path, where: Path) -> int:
    """How many tool operations a load of a copy of the file finds pending."""
    return len(from_copy(path, where, Session.pending_tool_operations))


def assert_still_held_at_crash(path: Path, reopen: Callable[[Path], object], **kw: Any) -> None:
    """``simulate_run``'s ``at_crash`` runs with the file whole and the writer's lock held:
    ``reopen`` (a writer's open) is refused then."""
    seen: list[int] = []

    def at_crash() -> None:
        seen.append(path.stat().st_size)
        with pytest.raises(WriterLockedError):
            reopen(path)  # the writer still holds its lock: it has not closed

    simulate_run(str(path), speed=0, at_crash=at_crash, **kw)
    assert seen == [path.stat().st_size]


def run_write_command(path: Path, *options: str) -> None:
    """``python -m viewer.demo write`` at full speed: it ends killed by SIGKILL (the crash)."""
    done = subprocess.run(
        [sys.executable, "-m", "viewer.demo", "write", str(path), "--speed", "0", *options],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == -9, done.stderr.decode()


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


# --- the writer subprocess and run_demo -------------------------------------------------


def test_write_command_dies_by_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "agent-run.jsonl"
    run_write_command(path)
    assert peek(path).warnings == []
    assert pending_in_copy(path, tmp_path / "copy") == 2
    assert any(Path(artifact_dir(path)).iterdir())


def _fake_viewer(monkeypatch: pytest.MonkeyPatch, opened: list[str]) -> None:
    """Stand-in for viewer.app: 'runs' until every writer the demo started has died.

    The demo's writer processes are recorded as it starts them; the viewer waits for
    each to end its story the way it does, by SIGKILL (the crash), and fails loudly
    should one still run at the deadline or end otherwise.
    """
    writers: list[subprocess.Popen[bytes]] = []

    def recording_popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc: subprocess.Popen[bytes] = subprocess.Popen(*args, **kwargs)
        writers.append(proc)
        return proc

    shim = types.SimpleNamespace(
        Popen=recording_popen,
        DEVNULL=subprocess.DEVNULL,
        TimeoutExpired=subprocess.TimeoutExpired,
    )
    monkeypatch.setattr(demo_command, "subprocess", shim)

    class FakeApp:
        def __init__(self, path: str) -> None:
            self.path = path

        def run(self) -> None:
            opened.append(self.path)
            assert writers, "the demo started no writer"
            for writer in writers:
                try:
                    code = writer.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    raise AssertionError(
                        f"a demo writer still runs after 30 s: {writer.args}"
                    ) from None
                assert code == -signal.SIGKILL, f"a demo writer ended with {code}: {writer.args}"

    module = types.ModuleType("viewer.app")
    module.TailscopeApp = FakeApp  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "viewer.app", module)


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The paths the demo's (fake) viewer opens; the demo's temporary folders in tmp_path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    paths: list[str] = []
    _fake_viewer(monkeypatch, paths)
    return paths


def test_run_demo_cleans_up(opened: list[str]) -> None:
    assert demo.run_demo(speed=1000.0) == 0
    assert len(opened) == 1
    assert Path(opened[0]).name == "agent-run.jsonl"
    assert Path(opened[0]).parent.name.startswith("tailscope-demo-")
    assert not Path(opened[0]).parent.exists()


def test_run_demo_keep(
    opened: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo.run_demo(speed=1000.0, keep=True) == 0
    path = Path(opened[0])
    assert str(path.parent) in capsys.readouterr().out
    assert peek(path).warnings == []
    assert pending_in_copy(path, tmp_path / "copy") == 2


# --- the same story in the agentgo session format ---------------------------------------


def write_agentgo(tmp_path: Path, **kwargs: Any) -> Path:
    path = tmp_path / "agentgo-run.jsonl"
    simulate_run(str(path), speed=0, format="agentgo-v1", **kwargs)
    return path


@pytest.fixture
def agentgo_crashed(tmp_path: Path) -> Path:
    return write_agentgo(tmp_path / "agentgo", crash=True)


def test_agentgo_run_reads_strictly(agentgo_crashed: Path) -> None:
    records = list(agentgo.read(agentgo_crashed))  # raises on any broken rule
    assert agentgo_crashed.read_bytes().endswith(b"\n")  # the crash fell between records
    assert len(records) == len(agentgo_crashed.read_bytes().splitlines())
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert [r["type"] for r in records].count("session_start") == 1  # reopened, not recreated
    result = peek(agentgo_crashed)
    assert result.format == "agentgo-v1" and result.warnings == [] and result.error is None
    types = {r["type"] for r in records}
    assert types >= {
        "run_start", "agent_start", "turn_start", "model_request", "model_exec_end",
        "message_end", "tool_exec_start", "tool_invoke_start", "tool_exec_end", "retry",
        "context_projected", "context_compacted", "checkpoint", "turn_end", "agent_end",
        "run_close",
    }  # fmt: skip
    assert not types & {"message_update", "model_stream", "model_response"}  # never transient


def test_agentgo_runs_and_the_crash_gaps(agentgo_crashed: Path) -> None:
    view = agentgo.read_view(agentgo_crashed)
    first, second = view.run_order
    assert view.run_status(first) == "closed"
    assert view.runs[first].outcome() == "ended: end_turn"
    assert view.run_status(second) == "open"  # no run_close: the process died
    assert view.runs[second].outcome() == "no agent_end (gap)"
    gaps = [view.calls[k] for k in view.call_order if view.calls[k].status == "gap"]
    assert sorted(c.name for c in gaps) == ["git_diff", "run_tests"]
    for call in gaps:
        assert call.run_id == second and call.tool_end is None
        assert call.tool_start is not None and call.tool_invoke is not None
    assert len(view.gaps()) == 3  # the open run and its two tools
    # The last turn asked for three tools; the third was never started.
    last = [c.message for c in view.messages if c.message["kind"] == "assistant"][-1]
    asked = [p["name"] for p in last["content"] if p["type"] == "tool_call"]
    assert asked == ["run_tests", "git_diff", "fs_read"]
    started = {c.id for c in view.calls.values() if c.tool_start is not None}
    never = [p for p in last["content"] if p["type"] == "tool_call" and p["id"] not in started]
    assert [p["name"] for p in never] == ["fs_read"]


def test_agentgo_model_calls_retry_and_tools(agentgo_crashed: Path) -> None:
    view = agentgo.read_view(agentgo_crashed)
    models = [c for c in view.calls.values() if c.kind == "model"]
    assert len(models) >= 14
    for call in models:
        assert call.request is not None
        assert set(call.request) == {"messages", "tools", "config"}
        assert call.request["config"]["model"] == "demo-model-1"
        assert {t["name"] for t in call.request["tools"]} >= {"fs_read", "apply_patch"}
        assert call.result is not None and call.result["usage"]["input_tokens"] > 0
    (failed,) = [c for c in models if c.status == "failed"]
    assert failed.attempt == 1 and failed.result is not None
    assert "message" not in failed.result
    assert failed.result["error"] and failed.result["partial_message"]["content"]
    assert failed.retries[0]["attempt"] == 2
    retried = view.calls[(failed.run_id, failed.id, 2)]
    assert retried.status == "ok" and retried.result is not None
    assert retried.result["message"]["kind"] == "assistant"
    assert [c.attempt for c in view.attempts_of(failed)] == [1, 2]

    tools = [c for c in view.calls.values() if c.kind == "tool"]
    assert len(tools) == 16
    for call in tools:
        assert call.parent_id is not None and call.parent_id.startswith("turn-")
        # nested under its turn's model call (the latest attempt, after a retry)
        parent = view.attempts_of(view.calls[(call.run_id, call.parent_id, 1)])[-1]
        assert call.key in parent.children
        assert call.tool_start is not None and call.tool_invoke is not None
        assert call.tool_invoke["args"]["timeout_s"] > 0  # middleware's actual arguments
        assert "timeout_s" not in call.tool_start["args"]  # what the model asked for
    ended = [c for c in tools if c.tool_end is not None]
    by_disposition: dict[str, list[Any]] = {}
    for call in ended:
        assert call.tool_end is not None and isinstance(call.tool_end["is_error"], bool)
        by_disposition.setdefault(call.tool_end["disposition"], []).append(call)
    (abandoned,) = by_disposition["abandoned"]
    assert abandoned.name == "web_fetch" and abandoned.status == "failed"
    assert [c.name for c in ended if c.status == "failed"] == ["web_fetch", "apply_patch"]
    verbose = [c for c in ended if c.tool_start and c.tool_start["args"].get("verbose")]
    assert len(verbose[0].tool_end["result"]) > 8000  # the complete result is in the file


def test_agentgo_compaction_projection_and_checkpoints(agentgo_crashed: Path) -> None:
    view = agentgo.read_view(agentgo_crashed)
    first, second = view.run_order
    kinds = [(run, kind) for _, run, kind, _ in view.context_events]
    assert (first, "context_projected") in kinds and (second, "context_projected") in kinds
    ((_, run, _, compacted),) = [e for e in view.context_events if e[2] == "context_compacted"]
    assert run == second  # the next run prepares its context
    assert compacted["tokens_before"] > compacted["tokens_after"] > 0
    summary_call = view.calls[(second, "compact-1", 1)]
    assert summary_call.kind == "compact" and summary_call.status == "ok"
    # run 2's first model request starts from the summary
    first_request = next(
        view.calls[k] for k in view.runs[second].calls if view.calls[k].kind == "model"
    )
    assert first_request.request is not None
    opening = first_request.request["messages"][0]
    assert agentgo.view.message_text(opening) == compacted["summary"]

    assert len(view.checkpoints) >= 3
    assert {c.run_id for c in view.checkpoints} == {first, second}
    latest = view.latest_checkpoint()
    assert latest is not None and latest.run_id == second
    seqs = [c.seq for c in view.checkpoints]
    assert seqs == sorted(seqs)


def test_agentgo_clean_finish(tmp_path: Path) -> None:
    path = write_agentgo(tmp_path / "clean", crash=False)
    view = agentgo.read_view(path)
    assert [view.run_status(r) for r in view.run_order] == ["closed", "closed"]
    assert view.gaps() == []
    assert view.messages[-1].message["kind"] == "assistant"
    with agentgo.AgentGoSession.open(path) as again:
        checkpoint = again.load_checkpoint()
    assert checkpoint["run"] == 2  # the end of run 2


def test_agentgo_at_crash_the_writer_still_holds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "agentgo-run.jsonl"
    assert_still_held_at_crash(path, agentgo.AgentGoSession.open, format="agentgo-v1")


def test_agentgo_pacing_is_the_same_story(tmp_path: Path) -> None:
    v1: list[float] = []
    ag: list[float] = []
    simulate_run(str(tmp_path / "a.jsonl"), speed=1.0, sleep=v1.append)
    simulate_run(str(tmp_path / "b.jsonl"), speed=1.0, sleep=ag.append, format="agentgo-v1")
    assert v1 == ag


def test_agentgo_write_command_dies_by_sigkill_then_open_continues(tmp_path: Path) -> None:
    path = tmp_path / "agentgo-run.jsonl"
    run_write_command(path, "--format", "agentgo-v1")
    records = list(agentgo.read(path))
    view = agentgo.read_view(path)
    killed = view.run_order[-1]
    assert view.run_status(killed) == "open" and len(view.gaps()) == 3
    with agentgo.AgentGoSession.open(path) as again:  # the lock died with the writer
        run = again.begin_run()
        assert run.record("agent_start") == len(records) + 1
    after = agentgo.read_view(path)
    assert after.run_status(killed) == "interrupted"
    assert after.run_status(after.run_order[-1]) == "closed"


def test_run_demo_writes_both_formats(
    opened: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo.run_demo(speed=1000.0, keep=True, format="agentgo-v1") == 0
    path = Path(opened[0])
    assert path.name == "agentgo-run.jsonl"
    assert str(path.parent) in capsys.readouterr().out
    view = agentgo.read_view(path)
    assert len(view.gaps()) == 3 and view.checkpoints
    v1 = path.parent / "agent-run.jsonl"
    assert peek(v1).format == "transcript-v1" and peek(v1).warnings == []
    assert pending_in_copy(v1, tmp_path / "copy") == 2


def test_run_demo_default_opens_v1_and_refuses_unknown_formats(
    opened: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo.run_demo(speed=0) == 0
    assert Path(opened[0]).name == "agent-run.jsonl"
    assert demo.run_demo(format="nope") == 2
    assert "unknown format" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # both runs cleaned up (nothing was created)


def test_demo_command_passes_the_format(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(demo, "run_demo", lambda **kw: calls.append(kw) or 0)
    assert cli_main(["demo", "--format", "agentgo-v1", "--speed", "3"]) == 0
    assert cli_main(["demo"]) == 0
    assert calls == [
        {"speed": 3.0, "keep": False, "format": "agentgo-v1"},
        {"speed": 1.0, "keep": False, "format": "transcript-v1"},
    ]
    with pytest.raises(SystemExit) as usage:
        cli_main(["demo", "--format", "v3"])
    assert usage.value.code == 2
