"""agentgo-v1: the view model, follow with LiveAgentGo, and tailscope peek|replay|check."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
from helpers import fingerprint, run_cli

from agentgo_helpers import (
    ASSISTANT,
    REPO,
    REQUEST,
    USAGE,
    dump_records,
    model,
    text,
    tool,
)
from session_core import peek
from session_core.agentgo import (
    AgentGoSession,
    LiveAgentGo,
    read,
    read_view,
)
from session_core.agentgo.view import KNOWN_TYPES, as_message, message_text
from session_core.following import follow

# --- the view model -------------------------------------------------------------------------


class TestView:
    def test_runs_and_their_statuses(self, finished: Path) -> None:
        view = read_view(finished)
        first, second = view.run_order
        assert view.run_status(first) == "closed"
        assert view.run_status(second) == "open"  # no run_close, no later run
        assert view.runs[first].outcome() == "ended: end_turn"
        assert view.runs[second].outcome() == "no agent_end (gap)"
        assert view.runs[first].turns == 1 and view.runs[first].started
        assert view.session_id and view.version == 1

    def test_calls_keyed_by_run_execution_and_attempt_with_retries(self, finished: Path) -> None:
        view = read_view(finished)
        run = view.run_order[0]
        failed = view.calls[(run, "m1", 1)]
        retried = view.calls[(run, "m1", 2)]
        assert failed.status == "failed"
        assert failed.result is not None and failed.result["error"] == "stream reset by peer"
        assert failed.result["partial_message"] == text("assistant", "List")
        assert "message" not in failed.result
        assert failed.retries == [{"attempt": 2, "error": "stream reset by peer", "delay_ms": 500}]
        assert retried.status == "ok" and retried.retries == []
        assert retried.request == REQUEST  # messages, tools, config
        assert retried.result == {"message": ASSISTANT, "usage": USAGE}
        assert retried.recovery == {"decision": "continue", "reason": "length"}
        assert retried.name == "m1 (demo-1)" and retried.turn_index == 0
        assert [c.attempt for c in view.attempts_of(failed)] == [1, 2]
        assert [e[1] for e in failed.events] == ["model_request", "model_exec_end", "retry"]

    def test_tool_steps_and_parent_nesting(self, finished: Path) -> None:
        view = read_view(finished)
        run = view.run_order[0]
        t1 = view.calls[(run, "t1", 1)]
        assert t1.name == "ls" and t1.status == "ok"
        assert t1.tool_start == {"tool": "ls", "tool_call_id": "tc1", "args": {"path": "."}}
        assert t1.tool_invoke == {"args": {"path": "/repo"}}  # after middleware
        assert t1.tool_end is not None
        assert t1.tool_end["is_error"] is False and t1.tool_end["disposition"] == "continue"
        assert t1.tool_end["details"] == {"entries": 2}
        t2 = view.calls[(run, "t2", 1)]
        assert t2.status == "failed" and t2.tool_end == {
            "result": "denied",
            "is_error": True,
            "disposition": "blocked",
        }
        # t1 runs under m1 (its latest attempt), the summarize call under t1
        assert [c.key for c in view.children(view.calls[(run, "m1", 2)])] == [t1.key]
        assert view.calls[(run, "m1", 1)].children == []
        assert [c.id for c in view.children(t1)] == ["t1/summarize"]
        roots = [c.key for c in view.root_calls(run)]
        assert roots == [(run, "m1", 1), (run, "m1", 2), (run, "t2", 1), (run, "c1", 1)]

    def test_a_child_recorded_before_its_parent_is_adopted(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        with AgentGoSession.create(path) as s:
            run = s.begin_run()
            run.record("model_request", REQUEST, execution=model("child", parent_id="outer"))
            run.record("model_exec_end", {"message": ASSISTANT}, execution=model("child"))
            run.record("tool_exec_start", {"tool": "x", "args": {}}, execution=tool("outer"))
            run.record("tool_exec_end", {"is_error": False}, execution=tool("outer"))
        view = read_view(path)
        rid = view.run_order[0]
        assert [c.id for c in view.root_calls(rid)] == ["outer"]
        assert [c.id for c in view.children(view.calls[(rid, "outer", 1)])] == ["child"]

    def test_same_execution_id_in_two_runs_are_two_calls(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        with AgentGoSession.create(path) as s:
            for _ in range(2):
                run = s.begin_run()
                run.record("model_request", REQUEST, execution=model("turn-1"))
                run.close()
        view = read_view(path)
        assert len(view.calls) == 2
        assert {k[0] for k in view.calls} == set(view.run_order)

    def test_context_events_conversation_and_checkpoints(self, finished: Path) -> None:
        view = read_view(finished)
        run = view.run_order[0]
        kinds = [(kind, data.get("tokens_after")) for _, _, kind, data in view.context_events]
        assert kinds == [("context_projected", 900), ("context_compacted", 200)]
        compact = view.calls[(run, "c1", 1)]
        assert compact.kind == "compact" and compact.status == "ok"
        assert compact.context[-1][1]["summary"] == "they listed files"
        assert [m.message["kind"] for m in view.messages] == ["assistant", "tool_result"]
        assert message_text(view.messages[0].message) == "Listing."
        as_v1 = as_message(view.messages[0].message)
        assert as_v1.role == "assistant" and as_v1.tool_calls[0]["function"]["name"] == "ls"
        tool_msg = as_message(view.messages[1].message)
        assert tool_msg.role == "tool" and tool_msg.tool_call_id == "tc1"
        assert [c.snapshot["state"]["turn"] for c in view.checkpoints] == [0, 1]
        latest = view.latest_checkpoint()
        assert latest is not None and latest.snapshot["messages"] == 3

    def test_gaps_are_shown_never_invented(self, finished: Path) -> None:
        view = read_view(finished)
        second = view.run_order[1]
        m2 = view.calls[(second, "m2", 1)]
        t9 = view.calls[(second, "t9", 1)]
        assert m2.status == "gap" and m2.result is None
        assert t9.status == "gap" and t9.tool_end is None and t9.tool_invoke is None
        assert view.gaps() == [
            f"run {second}: open (no run_close)",
            f"call m2 attempt 1 in run {second}: no terminal event",
            f"call t9 attempt 1 in run {second}: no terminal event",
        ]
        # the record count is what the file holds: nothing was added
        assert len(view.records) == len(list(read(finished)))

    def test_unknown_types_are_kept(self, finished: Path) -> None:
        view = read_view(finished)
        (index,) = view.unknown
        assert view.records[index]["type"] == "some_future_event"
        assert view.records[index]["data"] == {"anything": [1, 2]}

    def test_to_json(self, finished: Path) -> None:
        out = read_view(finished).to_json()
        assert out["format"] == "agentgo-v1"
        assert set(out) >= {"meta", "messages", "runs", "calls", "checkpoints", "gaps"}
        assert [r["status"] for r in out["runs"]] == ["closed", "open"]
        assert len(out["gaps"]) == 3
        orjson.dumps(out)  # plain JSON


# --- follow and LiveAgentGo ----------------------------------------------------------------


class TestFollow:
    async def test_follow_a_live_agentgo_file(self, tmp_path: Path) -> None:
        path = tmp_path / "live.jsonl"
        s = AgentGoSession.create(path)
        done = threading.Event()
        run_ids: list[str] = []

        def writer() -> None:
            run = s.begin_run()
            run_ids.append(run.run_id)
            for i in range(30):
                e = model(f"m{i}")
                run.record("model_request", REQUEST, execution=e)
                time.sleep(0.005)
                run.record("model_exec_end", {"message": ASSISTANT, "usage": USAGE}, execution=e)
                run.record("message_end", {"message": ASSISTANT})
                if i == 10:
                    run.save_checkpoint({"i": i})
            run.record("tool_exec_start", {"tool": "ls", "args": {}}, execution=tool("t"))
            os.write(s._fd, b'{"data":{},"seq":')  # an unfinished tail: never delivered
            done.set()

        live = LiveAgentGo(path)
        formats: set[str | None] = set()
        thread = threading.Thread(target=writer)
        expected = 1 + 1 + 30 * 3 + 1 + 1
        seen = 0
        async with contextlib.aclosing(follow(path, poll_interval=0.02)) as updates:
            thread.start()
            async with asyncio.timeout(20):
                async for update in updates:
                    formats.add(update.format)
                    live.apply(update)
                    seen = len(live.view.records)
                    if done.is_set() and seen >= expected:
                        break
        thread.join()
        assert seen == expected
        assert formats == {"agentgo-v1"}
        assert live.view.warnings == []
        before = fingerprint(path)
        whole = read_view(path)
        # (a whole read says it left out a line the writer had not finished; the
        # follower holds such a line back until it is)
        assert all("a crash tail" in warning for warning in whole.warnings)
        whole.warnings.clear()
        assert live.view.to_json() == whole.to_json()
        assert live.view.run_status(run_ids[0]) == "open"
        assert live.view.calls[(run_ids[0], "t", 1)].status == "gap"
        assert fingerprint(path) == before
        s._release()  # (its file closed, nothing written)
        s._closed = True

    def test_live_view_warns_once_per_broken_rule(self, valid: Path) -> None:
        from session_core.following import FollowUpdate

        records = list(read(valid))
        broken = [*records[:3], *records[4:]]  # seq 3 is missing
        broken[4] = dict(broken[4], session_id="other")
        update = FollowUpdate(
            envelopes=broken, lines=list(range(1, len(broken) + 1)), format="agentgo-v1"
        )
        live = LiveAgentGo(valid)
        live.apply(update)
        assert len(live.view.warnings) == 2
        assert "seq 4 after seq 2" in live.view.warnings[0]
        assert "other" in live.view.warnings[1]
        assert len(live.view.records) == len(broken)  # shown, not refused

    def test_operations_and_runs_point_at_their_lines_where_seq_is_off(
        self, finished: Path
    ) -> None:
        """A damaged file's seq is no line number: an operation and a run point at the
        line their records were read from, not at seq + 1."""
        from session_core.following import FollowUpdate
        from session_core.formats.agentgo import transcript_of

        records = list(read(finished))
        broken = [*records[:3], *records[4:]]  # seq 3 is missing: seq k is on line k
        for record in broken[3:]:
            record["seq"] += 1000  # and the rest are far off too
        lines = list(range(1, len(broken) + 1))
        live = LiveAgentGo(finished)
        live.apply(FollowUpdate(envelopes=broken, lines=lines, format="agentgo-v1"))
        model = transcript_of(live.view, str(finished), None)
        assert model.tool_operations and model.runs
        first_line: dict[tuple[str, str, int], int] = {}
        execution_of: dict[str, str] = {}  # an operation's call id (the model's) -> its own
        for record, line in zip(broken, lines, strict=True):
            execution = record.get("execution")
            if isinstance(execution, dict):
                key = (record["run_id"], execution["id"], execution.get("attempt", 1))
                first_line.setdefault(key, line)
                if record["type"] == "tool_exec_start":
                    execution_of[record["data"]["tool_call_id"]] = execution["id"]
        for op in model.tool_operations:
            keys = [key for key in first_line if key[1] == execution_of[op.call_id]]
            assert op.line in {first_line[key] for key in keys}, op.call_id
        for run in model.runs:
            mine = [
                line for r, line in zip(broken, lines, strict=True) if r.get("run_id") == run.id
            ]
            assert run.line == mine[0]
            closes = [
                line
                for r, line in zip(broken, lines, strict=True)
                if r.get("run_id") == run.id and r["type"] == "run_close"
            ]
            assert run.end_line == (closes[-1] if closes else None)


# --- tailscope peek | replay | check ------------------------------------------------------


@pytest.fixture
def old(finished: Path) -> Path:
    with finished.open("ab") as fh:
        fh.write(b'{"data":{"message":')  # the writer's unfinished tail
    os.utime(finished, ns=(1_000_000_000, 1_000_000_000))
    return finished


def succeeds_untouched(capsys: pytest.CaptureFixture[str], command: str, path: Path) -> str:
    """What ``tailscope COMMAND PATH`` prints; it exits 0 and the file is as it was."""
    before = fingerprint(path)
    code, out, _ = run_cli(capsys, command, str(path))
    assert fingerprint(path) == before
    assert code == 0
    return out


class TestCommands:
    def test_peek(self, old: Path, capsys: pytest.CaptureFixture[str]) -> None:
        out = succeeds_untouched(capsys, "peek", old)
        result = orjson.loads(out)
        assert result["format"] == "agentgo-v1"
        assert result["meta"] == {"session_id": read_view(old).session_id, "version": 1}
        assert len(result["envelopes"]) == len(list(read(old)))  # the tail is not a record
        assert any("unfinished tail" in w for w in result["warnings"])
        assert [m["role"] for m in result["messages"]] == ["assistant", "tool"]
        assert peek(old).error is None

    def test_replay(self, old: Path, capsys: pytest.CaptureFixture[str]) -> None:
        out = succeeds_untouched(capsys, "replay", old)
        result = orjson.loads(out)
        view = read_view(old)
        view.writer_alive = False  # (no lock held: the writer is gone)
        own = orjson.loads(orjson.dumps(view.to_json()))
        assert {key: result[key] for key in own} == own  # the format's own view
        # ...beside the keys every format prints (shared/spec/api.md)
        assert set(result) - set(own) == {"tool-operations", "compactions", "usage"}
        assert all({"call-id", "tool", "state"} <= set(op) for op in result["tool-operations"])
        assert result["format"] == "agentgo-v1"
        # the run left open by a writer that is gone is interrupted, as its calls are
        assert [r["status"] for r in result["runs"]] == ["closed", "interrupted"]
        assert {op["state"] for op in result["tool-operations"]} <= {
            "completed",
            "failed",
            "interrupted",
        }
        assert {c["status"] for c in result["calls"]} == {"ok", "failed", "gap"}
        assert len(result["checkpoints"]) == 2

    def test_check(self, old: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        out = succeeds_untouched(capsys, "check", old)
        said = "ok (agentgo-v1, 2 messages committed, 3 tool operations, 3 gaps"
        assert out.startswith(f"{old}: {said}")
        # its writer gone (no lock): what it left in flight was cut off, every surface's
        # words (``open_work``): its 2 gap calls, a tool's and a model's, and their run
        in_flight = "1 tool call without a result, 1 model call without a response"
        assert f"(runs or calls without their terminal event), {in_flight}, 1 run not" in out
        replayed = orjson.loads(succeeds_untouched(capsys, "replay", old))
        assert sum(c["status"] == "gap" for c in replayed["calls"]) == 2
        bad = tmp_path / "bad.jsonl"
        records = list(read(old))
        records[5]["seq"] = 99
        bad.write_bytes(dump_records(records))
        os.utime(bad, ns=(1_000_000_000, 1_000_000_000))
        before_bad = fingerprint(bad)
        code, out, _ = run_cli(capsys, "check", str(old), str(bad))
        assert code == 1
        assert f"{bad}: bad: line 6: has seq 99" in out  # (the path once)
        code, out, err = run_cli(capsys, "replay", str(bad))
        assert code == 1 and out == "" and "line 6" in err
        assert fingerprint(bad) == before_bad

    def test_diff_names_the_format(self, old: Path, capsys: pytest.CaptureFixture[str]) -> None:
        before = fingerprint(old)
        code, out, err = run_cli(capsys, "diff", str(old))
        assert code == 0 and err == "" and out.startswith(f"{old}: agentgo-v1, ")
        assert fingerprint(old) == before

    def test_commands_in_a_subprocess(self, old: Path) -> None:
        before = fingerprint(old)
        for command in ("peek", "replay", "check"):
            done = subprocess.run(
                [sys.executable, "-m", "viewer.cli", command, str(old)],
                capture_output=True,
                timeout=60,
                cwd=REPO,
            )
            assert done.returncode == 0, done.stderr.decode()
        assert fingerprint(old) == before


def test_an_operation_is_named_by_the_models_call_id(tmp_path: Path) -> None:
    """A tool execution's own id is run-local (``execution.id``); its operation is named
    as the model named the call (``tool_exec_start``'s ``tool_call_id``), so the message
    that asked for it, and the one that answers it, find it."""
    from agentgo_story import model_asks_ls
    from session_core import open_transcript

    path = tmp_path / "ids.jsonl"
    s = AgentGoSession.create(path)
    run = s.begin_run()
    answer = model_asks_ls(run, "tc1", "turn-1")
    run.record("message_end", {"message": answer})
    started = {"tool": "ls", "tool_call_id": "tc1", "args": {"p": "."}}
    run.record("tool_exec_start", started, execution=tool("tool-1"))
    run.record("tool_exec_end", {"result": "a.py", "is_error": False}, execution=tool("tool-1"))
    run.record("message_end", {"message": {**text("tool_result", "a.py"), "tool_call_id": "tc1"}})
    run.close()
    s.close()
    t = open_transcript(path)
    (op,) = t.tool_operations
    assert (op.call_id, op.tool, op.state) == ("tc1", "ls", "completed")
    asked = [p.call_id for m in t.messages for p in m.parts if p.kind == "tool-call"]
    answered = [p.call_id for m in t.messages for p in m.parts if p.kind == "tool-result"]
    assert asked == answered == [op.call_id]
    assert t.op_for_call("tc1") is op


def test_a_record_of_another_type_is_kept_and_shown_as_written(
    finished: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The spec: any other type is "kept and shown raw". The replay lists it, with its
    line, as written; the exports show it."""
    lines = finished.read_bytes().splitlines()
    last = orjson.loads(lines[-1])
    odd = {**last, "seq": last["seq"] + 1, "type": "zz_note", "data": {"said": "[b]kept[/b]"}}
    odd.pop("run_id", None)
    finished.write_bytes(finished.read_bytes() + orjson.dumps(odd) + b"\n")
    replay = orjson.loads(succeeds_untouched(capsys, "replay", finished))
    other = replay["other-records"][-1]  # (the fixture has one of its own too)
    assert (other["line"], other["type"], other["record"]) == (len(lines) + 1, "zz_note", odd)
    assert all(o["type"] not in KNOWN_TYPES for o in replay["other-records"])
    for fmt in ("md", "html"):
        code, out, _ = run_cli(capsys, "export", str(finished), "--format", fmt)
        assert code == 0 and "zz_note" in out and "kept" in out


def test_a_tool_calls_arguments_show_as_json(finished: Path) -> None:
    """agentgo's arguments are an object: the conversation shows them as JSON (as every
    other format and agentgo's own panes do), not as a Python dict."""
    from session_core import open_transcript

    [call] = [
        part
        for item in open_transcript(finished).raw
        for part in item.parts
        if part.kind == "tool-call" and part.call_id == "tc1"
    ][:1]
    assert call.text == '{"path":"."}' and call.data == {"path": "."}


def test_the_line_count_counts_lines_not_records(finished: Path) -> None:
    """Followed, a file with lines that are no record (blank, not JSON) says how many lines
    it has, as the other formats do, not how many records it took."""
    lines = finished.read_bytes().splitlines()
    lines[3:3] = [b"", b"not json", b"[1]"]
    finished.write_bytes(b"\n".join(lines) + b"\n")
    live = LiveAgentGo(str(finished))

    async def run() -> None:
        async for update in follow(finished, parse=False, force_polling=True):
            live.apply(update)
            if update.caught_up:
                break

    asyncio.run(run())
    from session_core.formats.agentgo import AgentGoModel

    assert AgentGoModel(live.view).transcript(str(finished), False).lines == len(lines)


def test_a_live_sessions_call_in_flight_is_no_gap(tmp_path: Path) -> None:
    """``check`` and ``replay`` said "2 gaps" of a live session with one call running,
    where the viewer said none (the API audit): while its writer is at work, the run it
    writes and its calls in flight are no gaps; once closed, the call without its end is.
    And ``replay``'s messages carry api.md's ``id`` and ``role``."""
    from session_core.formats import by_name
    from session_core.views import replay_any

    path = tmp_path / "live.jsonl"
    fmt = by_name("agentgo-v1")
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        user = {"kind": "user", "content": [{"type": "text", "text": "hi"}]}
        run.record("message_end", {"message": user})
        tool = {"id": "tool-1", "kind": "tool", "attempt": 1}
        run.record(
            "tool_exec_start", {"tool": "x", "tool_call_id": "c1", "args": {}}, execution=tool
        )
        said = (
            "agentgo-v1, 1 message committed, 1 tool operation, 1 tool call running, "
            "1 run running, "
            "usage none (no model response)"  # (no model call: nothing could report)
        )
        assert fmt.check(path) == said
        replayed = replay_any(path)
        assert replayed["gaps"] == []
        # (its run's outcome said "no agent_end (gap)" beside an empty gaps: the audit)
        assert [r["outcome"] for r in replayed["runs"]] == ["no agent_end yet (running)"]
        (message,) = replayed["messages"]
        assert message["id"] == "seq-3" and message["role"] == "user"
        assert message["kind"] == "user" and message["content"] == user["content"]
        run.close()
        assert "1 gap (runs or calls without their terminal event)" in fmt.check(path)


def test_the_neutral_meta_names_the_first_model(tmp_path: Path) -> None:
    """The header said ``version=1`` where the browser's row names the model (a
    v1/agentgo audit): the first model call's model is in the neutral meta."""
    from agentgo_story import write_agentgo_story
    from session_core import open_transcript

    path = tmp_path / "s.jsonl"
    write_agentgo_story(path)
    assert open_transcript(path).meta["model"] == "kimi-k2"
    empty = tmp_path / "e.jsonl"
    with AgentGoSession.create(empty) as s:
        s.begin_run().record("agent_start")
    assert open_transcript(empty).meta["model"] is None


def test_a_message_end_without_a_message_is_kept_raw_and_said(tmp_path: Path) -> None:
    """It was left out of the messages by every read path, and said by none."""
    from helpers import follow_into, neutral

    from session_core import open_transcript, peek
    from session_core.formats import AGENTGO, by_name

    fmt = by_name(AGENTGO)

    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": {"kind": "user", "content": []}})
        run.close()
    lines = path.read_bytes().splitlines(keepends=True)
    bad = orjson.loads(lines[-1])  # (written by hand: the writer refuses it)
    bad.update(seq=bad["seq"] + 1, type="message_end", data={"message": "text"})
    bad.pop("execution", None)
    with path.open("ab") as fh:
        fh.write(orjson.dumps(bad) + b"\n")
    number = len(lines) + 1
    said = f"line {number}: a message_end without a message object"
    whole = open_transcript(path)
    assert len(whole.messages) == 1 and any(w.startswith(said) for w in whole.warnings)
    replay = fmt.replay_json(path)
    assert [o["line"] for o in replay["other-records"]] == [number]
    assert any(w.startswith(said) for w in peek(path).warnings)
    live = fmt.live(str(path))
    follow_into(live.apply, path, 1 << 12, fmt.parsed_updates)
    assert neutral(live.transcript(False)) == neutral(whole)


@pytest.mark.parametrize("kind", [None, ""])
def test_a_message_with_no_kind_is_not_taken_for_a_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str | None
) -> None:
    """The spec requires ``kind``: one missing was shown, exported and peeked as a user's
    message (an assistant's tool calls under "user"); its role is not known, and said."""
    from helpers import follow_into, neutral

    from session_core import open_transcript, peek
    from session_core.formats import AGENTGO, by_name

    fmt = by_name(AGENTGO)
    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": ASSISTANT})
        run.close()
    lines = path.read_bytes().splitlines(keepends=True)
    number = next(n for n, line in enumerate(lines, 1) if b'"kind":"assistant"' in line)
    none = b"" if kind is None else b'"kind":"",'
    lines[number - 1] = lines[number - 1].replace(b'"kind":"assistant",', none)
    path.write_bytes(b"".join(lines))
    said = f"line {number}: a message with no kind"
    _code, out, _err = run_cli(capsys, "diff", str(path))
    assert any(row.startswith(f"= line {number:>6} ?  ") for row in out.splitlines()), out
    whole = open_transcript(path)
    assert [m.role for m in whole.messages] == ["?"]
    assert any(w.startswith(said) for w in whole.warnings)
    assert [m.role for m in peek(path).messages] == ["?"]
    assert any(w.startswith(said) for w in peek(path).warnings)
    live = fmt.live(str(path))
    follow_into(live.apply, path, 1 << 12, fmt.parsed_updates)
    assert neutral(live.transcript(False)) == neutral(whole)


def test_an_interrupted_call_says_when_it_was_last_seen_not_ended(tmp_path: Path) -> None:
    """An interrupted call's detail read "ended: <its last line's time>" though it has no
    tool_exec_end (B7 of the v1/agentgo audit): it never ended, so it says when it was
    last seen; a call that ended says when."""
    from agentgo_story import model_asks_ls
    from session_core import open_transcript
    from viewer.screens.op_detail import op_entries

    path = tmp_path / "cut.jsonl"
    s = AgentGoSession.create(path)
    run = s.begin_run()
    run.record("message_end", {"message": model_asks_ls(run, "tc1", "turn-1")})
    started = {"tool": "ls", "tool_call_id": "tc1", "args": {"p": "."}}
    run.record("tool_exec_start", started, execution=tool("tool-1"))
    run.record("tool_exec_end", {"result": "a.py", "is_error": False}, execution=tool("tool-1"))
    run.record("message_end", {"message": {**text("tool_result", "a.py"), "tool_call_id": "tc1"}})
    run.record("message_end", {"message": model_asks_ls(run, "tc2", "turn-2")})
    run.record("tool_exec_start", {**started, "tool_call_id": "tc2"}, execution=tool("tool-2"))
    s.close()  # (its run left open)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # (its writer long gone)
    done, cut = open_transcript(path).tool_operations
    assert (done.state, cut.state) == ("completed", "interrupted")
    said = [text for _style, text in op_entries(cut)]
    assert not any(line.startswith("ended:") for line in said), said
    assert f"last seen: {cut.last_seen} (its last line; it never ended)" in said, said
    assert cut.ended is None and cut.last_seen
    assert any(line.startswith("ended:") for _style, line in op_entries(done))
    assert done.last_seen is None
