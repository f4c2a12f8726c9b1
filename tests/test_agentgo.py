"""agentgo-v1 (spec/agentgo-v1.md): the writer, the strict streaming reader, the view model,
follow, and ``tailscope peek|replay|check`` on this format."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from session_core import TranscriptError, peek
from session_core.agentgo import (
    AgentGoSession,
    AgentGoView,
    LiveAgentGo,
    read,
    read_view,
)
from session_core.agentgo.view import as_message, message_text
from session_core.agentgo.writer import TRANSIENT
from session_core.errors import (
    InvalidLineError,
    RefusedAppendError,
    SessionClosedError,
    WriterLockedError,
)
from session_core.following import follow
from viewer.cli import main

REPO = Path(__file__).resolve().parent.parent
T0 = "2026-08-09T13:10:08.542283123Z"


def at(second: int) -> str:
    return f"2026-08-09T13:10:{second:02d}.000000000Z"


def model(exec_id: str, attempt: int = 1, **extra: Any) -> dict[str, Any]:
    return {"id": exec_id, "kind": "model", "attempt": attempt, **extra}


def tool(exec_id: str, attempt: int = 1, **extra: Any) -> dict[str, Any]:
    return {"id": exec_id, "kind": "tool", "attempt": attempt, **extra}


def text(kind: str, body: str) -> dict[str, Any]:
    return {"kind": kind, "content": [{"type": "text", "text": body}]}


REQUEST = {
    "messages": [text("user", "list the files")],
    "tools": [{"name": "ls", "description": "list a directory", "schema": {"type": "object"}}],
    "config": {"model": "demo-1", "temperature": 0.2, "thinking_level": "medium"},
}
ASSISTANT = {
    "kind": "assistant",
    "content": [
        {"type": "thinking", "text": "use ls"},
        {"type": "text", "text": "Listing."},
        {"type": "tool_call", "id": "tc1", "name": "ls", "arguments": {"path": "."}},
    ],
    "stop_reason": "tool_use",
}
USAGE = {"input_tokens": 120, "output_tokens": 30, "cache_read_tokens": 64, "cost": 0.0012}


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def fingerprint(path: Path) -> tuple[str, int, int]:
    st_ = path.stat()
    return hashlib.sha256(path.read_bytes()).hexdigest(), st_.st_ino, st_.st_mtime_ns


def write_story(path: Path) -> AgentGoSession:
    """A session of two runs with every event type; run 2 is left open (returned session)."""
    s = AgentGoSession.create(path)
    r = s.begin_run()
    r.record("agent_start", {}, time=at(1))
    r.record("turn_start", {"turn_index": 0}, time=at(1))
    m1 = model("m1", turn_index=0)
    r.record("model_request", REQUEST, execution=m1, time=at(2))
    r.record(
        "model_exec_end",
        {
            "partial_message": text("assistant", "List"),
            "error": "stream reset by peer",
            "usage": {"input_tokens": 120, "output_tokens": 2},
        },
        execution=m1,
        time=at(3),
    )
    r.record(
        "retry", {"attempt": 2, "error": "stream reset by peer", "delay_ms": 500}, execution=m1
    )
    m1b = model("m1", 2, turn_index=0)
    r.record("model_request", REQUEST, execution=m1b, time=at(4))
    r.record("model_exec_end", {"message": ASSISTANT, "usage": USAGE}, execution=m1b, time=at(5))
    r.record("message_end", {"message": ASSISTANT}, time=at(5))
    t1 = tool("t1", parent_id="m1", turn_index=0)
    r.record(
        "tool_exec_start",
        {"tool": "ls", "tool_call_id": "tc1", "args": {"path": "."}},
        execution=t1,
    )
    r.record("tool_invoke_start", {"args": {"path": "/repo"}}, execution=t1)
    # a model call the tool makes (nested under it)
    sub = model("t1/summarize", parent_id="t1")
    r.record(
        "model_request", {"messages": [], "tools": [], "config": {"model": "mini"}}, execution=sub
    )
    r.record("model_exec_end", {"message": text("assistant", "two files")}, execution=sub)
    r.record(
        "tool_exec_end",
        {
            "result": "a.py\nb.py",
            "content": [{"type": "text", "text": "a.py\nb.py"}],
            "details": {"entries": 2},
            "is_error": False,
            "disposition": "continue",
        },
        execution=t1,
    )
    r.record(
        "message_end", {"message": {**text("tool_result", "a.py\nb.py"), "tool_call_id": "tc1"}}
    )
    t2 = tool("t2", turn_index=0)
    r.record(
        "tool_exec_start",
        {"tool": "rm", "tool_call_id": "tc2", "args": {"path": "/"}},
        execution=t2,
    )
    r.record("tool_invoke_start", {"args": {"path": "/"}}, execution=t2)
    r.record(
        "tool_exec_end",
        {"result": "denied", "is_error": True, "disposition": "blocked"},
        execution=t2,
    )
    r.record(
        "model_response", {"recovery": {"decision": "continue", "reason": "length"}}, execution=m1b
    )
    r.save_checkpoint({"state": {"turn": 0}, "messages": 2})
    compact = {"id": "c1", "kind": "compact", "attempt": 1}
    r.record("context_projected", {"tokens_before": 900, "tokens_after": 900}, execution=compact)
    r.record(
        "context_compacted",
        {"summary": "they listed files", "replaced": 3, "tokens_before": 900, "tokens_after": 200},
        execution=compact,
    )
    r.record("turn_end", {"turn_index": 0})
    r.save_checkpoint({"state": {"turn": 1}, "messages": 3})
    r.record("some_future_event", {"anything": [1, 2]})
    r.record("agent_end", {"stop_reason": "end_turn"})
    r.close()
    r2 = s.begin_run()
    r2.record("agent_start", {})
    r2.record("model_request", REQUEST, execution=model("m2"))
    r2.record(
        "tool_exec_start", {"tool": "ls", "tool_call_id": "tc9", "args": {}}, execution=tool("t9")
    )
    return s


@pytest.fixture
def story(tmp_path: Path) -> Iterator[tuple[Path, AgentGoSession]]:
    path = tmp_path / "session.jsonl"
    s = write_story(path)
    yield path, s
    with contextlib.suppress(TranscriptError):
        s.close()


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """The story with run 2 left open, the writer released (as after a crash)."""
    path = tmp_path / "finished.jsonl"
    s = write_story(path)
    os.close(s._fd)  # the process "dies": no run_close, no sync
    s._closed = True
    return path


# --- the writer -----------------------------------------------------------------------------


class TestWriter:
    def test_create_starts_the_session(self, tmp_path: Path) -> None:
        path = tmp_path / "deep" / "s.jsonl"
        with AgentGoSession.create(path) as s:
            sid = s.session_id
        (first,) = lines_of(path)
        assert first["type"] == "session_start" and first["seq"] == 0
        assert first["data"] == {"version": 1}
        assert first["session_id"] == sid and len(sid) == 36
        assert "run_id" not in first and first["time"].endswith("Z")
        with AgentGoSession.create(tmp_path / "other.jsonl") as other:
            assert other.session_id != sid  # random per session

    def test_round_trip_of_every_event_type(self, story: tuple[Path, AgentGoSession]) -> None:
        path, s = story
        s.close()
        written = lines_of(path)
        records = list(read(path))
        assert records == written
        assert [r["seq"] for r in records] == list(range(len(records)))
        assert {r["session_id"] for r in records} == {s.session_id}
        types = {r["type"] for r in records}
        assert types >= {
            "session_start", "run_start", "run_close", "agent_start", "agent_end",
            "turn_start", "turn_end", "model_request", "model_exec_end", "model_response",
            "message_end", "tool_exec_start", "tool_invoke_start", "tool_exec_end", "retry",
            "context_projected", "context_compacted", "checkpoint", "some_future_event",
        }  # fmt: skip
        runs = [r["run_id"] for r in records if r["type"] == "run_start"]
        assert len(runs) == 2 and runs[0] != runs[1]
        for r in records[1:]:
            assert r["run_id"] in runs and isinstance(r["data"], dict)
        request = next(r for r in records if r["type"] == "model_request")
        assert request["data"] == REQUEST
        assert request["execution"] == {"id": "m1", "kind": "model", "attempt": 1, "turn_index": 0}
        assert request["time"] == at(2)  # the event's source time, not the write time

    def test_create_refuses_a_file_with_content(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        path.write_bytes(b"hello\n")
        with pytest.raises(RefusedAppendError, match="already has content"):
            AgentGoSession.create(path)
        assert path.read_bytes() == b"hello\n"

    def test_only_one_run_is_open_at_a_time(self, tmp_path: Path) -> None:
        with AgentGoSession.create(tmp_path / "s.jsonl") as s:
            r1 = s.begin_run()
            with pytest.raises(RefusedAppendError, match="still open"):
                s.begin_run()
            r1.close()
            r2 = s.begin_run()
            assert r2.run_id != r1.run_id
            with pytest.raises(RefusedAppendError, match="closed"):
                r1.record("agent_start")
            with pytest.raises(RefusedAppendError, match="closed"):
                r1.save_checkpoint({})
            with pytest.raises(RefusedAppendError, match="closed already"):
                r1.close()
        with pytest.raises(SessionClosedError):
            s.begin_run()
        assert lines_of(tmp_path / "s.jsonl")[-1]["type"] == "run_close"  # close closed r2

    @pytest.mark.parametrize("kind", sorted(TRANSIENT))
    def test_transient_types_are_refused(self, tmp_path: Path, kind: str) -> None:
        path = tmp_path / "s.jsonl"
        with AgentGoSession.create(path) as s:
            run = s.begin_run()
            size = path.stat().st_size
            with pytest.raises(RefusedAppendError, match="transient"):
                run.record(kind, {"delta": "tok"}, execution=model("m"))
            assert path.stat().st_size == size
            run.record("agent_start")  # the session goes on: a refusal is not an error
            assert s.error is None

    @pytest.mark.parametrize(
        ("kind", "data", "execution", "match"),
        [
            ("session_start", {"version": 1}, None, "own method"),
            ("run_start", {}, None, "own method"),
            ("run_close", {}, None, "own method"),
            ("checkpoint", {"snapshot": {}}, None, "own method"),
            ("", {}, None, "needs a type"),
            ("model_request", REQUEST, None, "needs an execution"),
            ("tool_exec_end", {"is_error": False}, {"kind": "tool", "attempt": 1}, "needs an id"),
            ("model_request", REQUEST, {"id": "m", "kind": "llm", "attempt": 1}, "kind must be"),
            ("model_request", REQUEST, {"id": "m", "kind": "model", "attempt": 0}, "attempt"),
            ("model_request", REQUEST, {"id": "m", "kind": "model", "attempt": True}, "attempt"),
            ("retry", {}, {"id": "m", "kind": "model", "attempt": 1, "parent_id": 3}, "parent"),
            ("model_response", {"message": ASSISTANT}, model("m"), "length-recovery"),
        ],
    )
    def test_malformed_records_are_refused_before_writing(
        self, tmp_path: Path, kind: str, data: Any, execution: Any, match: str
    ) -> None:
        path = tmp_path / "s.jsonl"
        with AgentGoSession.create(path) as s:
            run = s.begin_run()
            before = path.read_bytes()
            with pytest.raises(RefusedAppendError, match=match):
                run.record(kind, data, execution=execution)
            with pytest.raises(RefusedAppendError, match="RFC 3339"):
                run.record("agent_start", time=12)  # type: ignore[arg-type]
            assert path.read_bytes() == before
            assert s.error is None

    def test_fsync_only_at_run_close_session_close_and_checkpoints(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = tmp_path / "s.jsonl"
        synced: list[str] = []  # the type of the last line on disk at each fsync
        real = os.fsync

        def counting(fd: int) -> None:
            real(fd)
            synced.append(lines_of(path)[-1]["type"])

        monkeypatch.setattr(os, "fsync", counting)
        s = AgentGoSession.create(path)
        run = s.begin_run()
        for i in range(20):
            run.record("turn_start", {"turn_index": i})
            run.record("model_request", REQUEST, execution=model(f"m{i}"))
            run.record("message_end", {"message": ASSISTANT})
        assert synced == []  # no fsync per record
        run.save_checkpoint({"n": 1})
        assert synced == ["checkpoint"]
        run.record("agent_end", {})
        assert synced == ["checkpoint"]
        run.close()
        assert synced == ["checkpoint", "run_close"]
        run = s.begin_run()
        run.record("agent_start")
        s.close()  # closes the open run: its run_close syncs everything
        assert synced == ["checkpoint", "run_close", "run_close"]

        s = AgentGoSession.open(path)  # nothing to cut: no sync
        assert synced == ["checkpoint", "run_close", "run_close"]
        s.close()  # nothing written since the last sync: nothing to sync
        assert len(synced) == 3
        with AgentGoSession.create(tmp_path / "t.jsonl"):
            pass  # session_start, then close: synced
        assert len(synced) == 4

    def test_write_error_is_sticky(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        s = AgentGoSession.create(path)
        run = s.begin_run()
        run.record("agent_start")
        good = path.read_bytes()
        os.close(s._fd)  # the descriptor goes away under the writer: EBADF
        with pytest.raises(TranscriptError, match="a write failed") as first:
            run.record("turn_start", {"turn_index": 0})
        error = first.value
        assert type(error) is TranscriptError and s.error is error
        for attempt in (
            lambda: run.record("turn_start", {"turn_index": 1}),
            lambda: run.save_checkpoint({}),
            run.close,
            s.begin_run,
            s.close,
            s.close,  # and again: every later close reports it
        ):
            with pytest.raises(TranscriptError) as later:
                attempt()
            assert later.value is error
        assert path.read_bytes() == good

    @pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
    def test_a_full_disk_is_sticky_and_open_continues(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        s = AgentGoSession.create(path)
        run = s.begin_run()
        run.record("agent_start")
        full = os.open("/dev/full", os.O_WRONLY)
        os.dup2(full, s._fd)  # every write now fails with ENOSPC
        os.close(full)
        with pytest.raises(TranscriptError, match="No space left") as first:
            run.record("turn_start", {"turn_index": 0})
        with pytest.raises(TranscriptError) as again:
            s.close()
        assert again.value is first.value
        again_s = AgentGoSession.open(path)
        with again_s:
            r2 = again_s.begin_run()
            r2.record("agent_start")
        records = list(read(path))
        assert [r["seq"] for r in records] == list(range(len(records)))
        assert [r["type"] for r in records][-3:] == ["run_start", "agent_start", "run_close"]

    @pytest.mark.parametrize(
        "bad", [{"x": object()}, {"big": 2**70}, {1: "non-string key"}, {"s": {1, 2}}]
    )
    def test_encoding_error_is_sticky(self, tmp_path: Path, bad: dict[Any, Any]) -> None:
        path = tmp_path / "s.jsonl"
        s = AgentGoSession.create(path)
        run = s.begin_run()
        before = path.read_bytes()
        with pytest.raises(TranscriptError, match="could not be encoded") as first:
            run.record("custom", bad)
        assert path.read_bytes() == before  # nothing of it was written
        with pytest.raises(TranscriptError) as later:
            run.record("agent_start")
        assert later.value is first.value
        with pytest.raises(TranscriptError) as at_close:
            s.close()
        assert at_close.value is first.value
        assert path.read_bytes() == before
        list(read(path))  # what is there still reads

    def test_a_failed_sync_is_sticky(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        s = AgentGoSession.create(tmp_path / "s.jsonl")
        run = s.begin_run()

        def broken(fd: int) -> None:
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(os, "fsync", broken)
        with pytest.raises(TranscriptError, match="sync failed") as first:
            run.save_checkpoint({"n": 1})
        assert s.load_checkpoint() is None  # not saved: it is not durable
        with pytest.raises(TranscriptError) as later:
            run.record("agent_start")
        assert later.value is first.value
        with pytest.raises(TranscriptError) as at_close:
            s.close()
        assert at_close.value is first.value

    def test_one_writer_per_file_in_process(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        s = AgentGoSession.create(path)
        with pytest.raises(WriterLockedError):
            AgentGoSession.open(path)
        with pytest.raises(WriterLockedError):
            AgentGoSession.create(path)
        s.close()
        AgentGoSession.open(path).close()  # released on close

    def test_one_writer_per_file_across_processes(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        code = textwrap.dedent(
            """
            import sys
            from session_core.agentgo import AgentGoSession
            from session_core.errors import WriterLockedError
            try:
                AgentGoSession.open(sys.argv[1])
            except WriterLockedError as err:
                print(err)
                sys.exit(3)
            sys.exit(0)
            """
        )
        with AgentGoSession.create(path) as s:
            s.begin_run().record("agent_start")
            before = path.read_bytes()
            done = subprocess.run(
                [sys.executable, "-c", code, str(path)], capture_output=True, timeout=30, cwd=REPO
            )
            assert done.returncode == 3, done.stderr.decode()
            assert b"another writer" in done.stdout
            assert path.read_bytes() == before
        done = subprocess.run([sys.executable, "-c", code, str(path)], timeout=30, cwd=REPO)
        assert done.returncode == 0


# --- checkpoints ----------------------------------------------------------------------------


class TestCheckpoints:
    def test_latest_explicit_checkpoint_wins(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        with AgentGoSession.create(path) as s:
            assert s.load_checkpoint() is None
            run = s.begin_run()
            snapshot: dict[str, Any] = {"state": {"turn": 1}, "queue": ["a"]}
            run.save_checkpoint(snapshot)
            snapshot["queue"].append("changed after saving")
            assert s.load_checkpoint() == {"state": {"turn": 1}, "queue": ["a"]}
            run.save_checkpoint({"state": {"turn": 2}})
            # request/result records never advance it
            run.record("model_request", REQUEST, execution=model("m"))
            run.record("model_exec_end", {"message": ASSISTANT}, execution=model("m"))
            assert s.load_checkpoint() == {"state": {"turn": 2}}
        with AgentGoSession.open(path) as again:
            assert again.load_checkpoint() == {"state": {"turn": 2}}
            again.begin_run().save_checkpoint({"state": {"turn": 3}})
        with AgentGoSession.open(path) as third:
            assert third.load_checkpoint() == {"state": {"turn": 3}}
        view = read_view(path)
        assert [c.snapshot for c in view.checkpoints] == [
            {"state": {"turn": 1}, "queue": ["a"]},
            {"state": {"turn": 2}},
            {"state": {"turn": 3}},
        ]
        latest = view.latest_checkpoint()
        assert latest is not None and latest.snapshot == {"state": {"turn": 3}}
        assert latest.run_id == view.run_order[-1]

    def test_no_checkpoint_after_reopen(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        with AgentGoSession.create(path) as s:
            s.begin_run().record("agent_start")
        with AgentGoSession.open(path) as again:
            assert again.load_checkpoint() is None


# --- the strict reader ----------------------------------------------------------------------


def _records(path: Path) -> list[dict[str, Any]]:
    return lines_of(path)


def _dump(records: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) + b"\n" for r in records)


@pytest.fixture
def valid(tmp_path: Path) -> Path:
    path = tmp_path / "valid.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", {"message": ASSISTANT, "usage": USAGE}, execution=model("m1"))
        run.record("message_end", {"message": ASSISTANT})
        run.record("agent_end", {})
    return path


class TestStrictReader:
    def _broken(self, valid: Path, change: Any) -> Path:
        records = _records(valid)
        change(records)
        valid.write_bytes(_dump(records))
        return valid

    def _fails(self, path: Path, line: int | None, match: str) -> TranscriptError:
        with pytest.raises(TranscriptError, match=match) as caught:
            list(read(path))
        assert caught.value.line == line
        assert caught.value.path == str(path)
        with pytest.raises(TranscriptError):
            read_view(path)
        return caught.value

    def test_a_valid_file_reads(self, valid: Path) -> None:
        assert [r["type"] for r in read(valid)] == [
            "session_start", "run_start", "agent_start", "model_request", "model_exec_end",
            "message_end", "agent_end", "run_close",
        ]  # fmt: skip

    def test_gap_in_seq(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs.pop(3))
        self._fails(path, 4, "seq 4 after seq 2")

    def test_repeated_seq(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[4].update(seq=3))
        self._fails(path, 5, "contiguous")

    def test_other_session_id(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[5].update(session_id="someone-else"))
        self._fails(path, 6, "someone-else")

    def test_version_2(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[0]["data"].update(version=2))
        self._fails(path, 1, "version 2")

    def test_version_missing(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[0].update(data={}))
        self._fails(path, 1, "version None")

    def test_first_record_is_not_session_start(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs.pop(0))
        self._fails(path, 1, "starts with a 'run_start'")

    def test_first_seq_is_not_zero(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[0].update(seq=7))
        self._fails(path, 1, "not 0")

    def test_no_integer_seq(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[2].update(seq="2"))
        self._fails(path, 3, "integer seq")

    @pytest.mark.parametrize(
        ("middle", "match"),
        [
            (b'{"data":{},"seq":3,"ty', "not valid JSON"),
            (b"", "blank"),
            (b"   ", "blank"),
            (b"[1,2,3]", "not a JSON object"),
            (b"\xff\xfe garbage", "not valid JSON"),
        ],
    )
    def test_corrupt_middle_line_names_its_line(
        self, valid: Path, middle: bytes, match: str
    ) -> None:
        lines = valid.read_bytes().split(b"\n")
        lines[3] = middle
        valid.write_bytes(b"\n".join(lines))
        error = self._fails(valid, 4, match)
        assert isinstance(error, InvalidLineError)
        assert "line 4" in str(error)

    def test_records_before_the_break_stream_out_first(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[5].update(session_id="x"))
        seen: list[int] = []
        with pytest.raises(TranscriptError):
            for record in read(path):
                seen.append(record["seq"])
        assert seen == [0, 1, 2, 3, 4]

    @pytest.mark.parametrize(
        "tail",
        [
            "valid-next-record",
            b'{"data":{},"seq":',
            b"not json at all",
            b'{"seq": 99, "type": "weird"}',
        ],
    )
    def test_a_final_line_without_newline_is_ignored(self, valid: Path, tail: Any) -> None:
        records = list(read(valid))
        if tail == "valid-next-record":  # valid JSON, even the right seq: still ignored
            nxt = dict(records[-1], seq=len(records), type="agent_start", data={})
            tail = orjson.dumps(nxt)
        with valid.open("ab") as fh:
            fh.write(tail)
        assert list(read(valid)) == records
        assert read_view(valid).to_json() == read_view_of(records).to_json()

    def test_empty_and_tail_only_files_fail(self, tmp_path: Path, valid: Path) -> None:
        empty = tmp_path / "empty.jsonl"
        empty.write_bytes(b"")
        self._fails(empty, None, "no complete line")
        first = valid.read_bytes().split(b"\n")[0]
        tail_only = tmp_path / "tail.jsonl"
        tail_only.write_bytes(first)  # a whole session_start, without its newline
        self._fails(tail_only, None, "no complete line")

    def test_missing_directory_and_fifo(self, tmp_path: Path) -> None:
        self._fails(tmp_path / "nope.jsonl", None, "no transcript here")
        self._fails(tmp_path, None, "directory")
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        self._fails(fifo, None, "not a regular file")  # and it did not block

    def test_read_never_writes(self, valid: Path) -> None:
        os.utime(valid, ns=(1_000_000_000, 1_000_000_000))
        before = fingerprint(valid)
        list(read(valid))
        read_view(valid)
        assert fingerprint(valid) == before


def read_view_of(records: list[dict[str, Any]]) -> AgentGoView:
    view = AgentGoView()
    for number, record in enumerate(records, start=1):
        view.feed(record, number)
    return view


# --- open: validate, cut only the unfinished tail, continue ---------------------------------


class TestOpen:
    def test_open_cuts_only_the_unfinished_tail_and_continues(self, valid: Path) -> None:
        records = list(read(valid))
        good = valid.read_bytes()
        tail = orjson.dumps(dict(records[-1], seq=len(records), type="agent_start"))
        valid.write_bytes(good + tail)  # valid JSON, no newline
        with AgentGoSession.open(valid) as s:
            assert valid.read_bytes() == good  # only the tail went
            assert s.session_id == records[0]["session_id"]
            run = s.begin_run()
            assert run.record("agent_start") == len(records) + 1
        after = list(read(valid))
        assert after[: len(records)] == records
        assert [r["seq"] for r in after] == list(range(len(after)))
        assert after[len(records)]["type"] == "run_start"
        assert after[len(records)]["run_id"] != records[1]["run_id"]

    def test_open_refuses_a_broken_file_and_changes_nothing(self, valid: Path) -> None:
        lines = valid.read_bytes().split(b"\n")
        lines[2] = b"{broken"
        valid.write_bytes(b"\n".join(lines) + b'{"partial')
        before = fingerprint(valid)
        with pytest.raises(InvalidLineError) as caught:
            AgentGoSession.open(valid)
        assert caught.value.line == 3
        assert fingerprint(valid) == before
        # and the lock was released with the failure
        with pytest.raises(InvalidLineError):
            AgentGoSession.open(valid)

    def test_open_refuses_another_version_and_missing_files(self, valid: Path) -> None:
        records = _records(valid)
        records[0]["data"]["version"] = 2
        valid.write_bytes(_dump(records))
        with pytest.raises(TranscriptError, match="version 2"):
            AgentGoSession.open(valid)
        with pytest.raises(TranscriptError, match="no session"):
            AgentGoSession.open(valid.parent / "missing.jsonl")

    def test_interrupted_run_then_a_new_run(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        s = AgentGoSession.create(path)
        r1 = s.begin_run()
        r1.record("agent_start")
        r1.record("model_request", REQUEST, execution=model("m1"))
        os.write(s._fd, b'{"data":{"message":')  # killed mid-write
        os.close(s._fd)
        s._closed = True
        with AgentGoSession.open(path) as again:
            r2 = again.begin_run()
            r2.record("agent_start")
            r2.record("agent_end", {"stop_reason": "end_turn"})
        view = read_view(path)
        assert view.run_order == [r1.run_id, r2.run_id]
        assert view.run_status(r1.run_id) == "interrupted"
        assert view.run_status(r2.run_id) == "closed"
        assert view.runs[r1.run_id].outcome() == "no agent_end (gap)"
        assert view.runs[r2.run_id].outcome() == "ended: end_turn"
        call = view.calls[(r1.run_id, "m1", 1)]
        assert call.status == "gap" and call.result is None  # nothing invented
        gaps = view.gaps()
        assert len(gaps) == 2
        assert any(r1.run_id in g and "interrupted" in g for g in gaps)
        assert any("call m1 attempt 1" in g for g in gaps)

    def test_sigkill_mid_run_then_open_continues_the_seq(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        code = textwrap.dedent(
            """
            import os, signal, sys
            from session_core.agentgo import AgentGoSession
            s = AgentGoSession.create(sys.argv[1])
            run = s.begin_run()
            run.record("agent_start")
            for i in range(50):
                e = {"id": f"m{i}", "kind": "model", "attempt": 1}
                run.record("model_request", {"messages": [], "tools": [], "config": {}},
                           execution=e)
                run.record("model_exec_end", {"message": {"kind": "assistant",
                           "content": []}}, execution=e)
            run.record("tool_exec_start", {"tool": "sh", "tool_call_id": "x", "args": {}},
                       execution={"id": "t", "kind": "tool", "attempt": 1})
            os.write(s._fd, b'{"data":{"is_error":false},"execution":')  # mid-write
            print(run.run_id, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
            """
        )
        done = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, timeout=60, cwd=REPO
        )
        assert done.returncode == -signal.SIGKILL, done.stderr.decode()
        killed_run = done.stdout.decode().strip()
        records = list(read(path))  # the unfinished tail is ignored
        assert len(records) == 2 + 1 + 100 + 1
        assert not path.read_bytes().endswith(b"\n")
        with AgentGoSession.open(path) as s:  # the lock died with the process
            assert path.read_bytes().endswith(b"\n")
            run = s.begin_run()
            assert run.record("agent_start") == len(records) + 1
        view = read_view(path)
        assert view.run_status(killed_run) == "interrupted"
        assert view.calls[(killed_run, "t", 1)].status == "gap"
        assert view.run_status(view.run_order[-1]) == "closed"
        assert sum(1 for k in view.call_order if view.calls[k].status == "ok") == 50


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
        assert live.view.to_json() == whole.to_json()
        assert live.view.run_status(run_ids[0]) == "open"
        assert live.view.calls[(run_ids[0], "t", 1)].status == "gap"
        assert fingerprint(path) == before
        os.close(s._fd)
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


# --- tailscope peek | replay | check ------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def old(finished: Path) -> Path:
    with finished.open("ab") as fh:
        fh.write(b'{"data":{"message":')  # the writer's unfinished tail
    os.utime(finished, ns=(1_000_000_000, 1_000_000_000))
    return finished


class TestCommands:
    def test_peek(self, old: Path, capsys: pytest.CaptureFixture[str]) -> None:
        before = fingerprint(old)
        code, out, _ = run_cli(capsys, "peek", str(old))
        assert fingerprint(old) == before
        assert code == 0
        result = orjson.loads(out)
        assert result["format"] == "agentgo-v1"
        assert result["meta"] == {"session_id": read_view(old).session_id, "version": 1}
        assert len(result["envelopes"]) == len(list(read(old)))  # the tail is not a record
        assert any("unfinished tail" in w for w in result["warnings"])
        assert [m["role"] for m in result["messages"]] == ["assistant", "tool"]
        assert peek(old).error is None

    def test_replay(self, old: Path, capsys: pytest.CaptureFixture[str]) -> None:
        before = fingerprint(old)
        code, out, _ = run_cli(capsys, "replay", str(old))
        assert fingerprint(old) == before
        assert code == 0
        result = orjson.loads(out)
        assert result == orjson.loads(orjson.dumps(read_view(old).to_json()))
        assert result["format"] == "agentgo-v1"
        assert [r["status"] for r in result["runs"]] == ["closed", "open"]
        assert {c["status"] for c in result["calls"]} == {"ok", "failed", "gap"}
        assert len(result["checkpoints"]) == 2

    def test_check(self, old: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        before = fingerprint(old)
        code, out, _ = run_cli(capsys, "check", str(old))
        assert fingerprint(old) == before
        assert code == 0
        assert out.startswith(f"{old}: ok (agentgo-v1, 2 messages, 3 gaps")
        bad = tmp_path / "bad.jsonl"
        records = list(read(old))
        records[5]["seq"] = 99
        bad.write_bytes(_dump(records))
        os.utime(bad, ns=(1_000_000_000, 1_000_000_000))
        before_bad = fingerprint(bad)
        code, out, _ = run_cli(capsys, "check", str(old), str(bad))
        assert code == 1
        assert f"{bad}: bad: {bad}: line 6: has seq 99" in out
        code, out, err = run_cli(capsys, "replay", str(bad))
        assert code == 1 and out == "" and "line 6" in err
        assert fingerprint(bad) == before_bad

    def test_diff_names_the_format(self, old: Path, capsys: pytest.CaptureFixture[str]) -> None:
        code, _, err = run_cli(capsys, "diff", str(old))
        assert code == 1 and "agentgo-v1" in err

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


# --- properties of the strict reader ---------------------------------------------------------


def _sample() -> bytes:
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "s.jsonl"
        s = write_story(path)
        s.close()
        return path.read_bytes()


SAMPLE = _sample()
SAMPLE_RECORDS = [orjson.loads(line) for line in SAMPLE.splitlines()]
PROPERTY = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(SAMPLE)
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        where = draw(st.integers(0, max(len(data) - 1, 0)))
        if action == "flip" and data:
            data[where] = draw(st.sampled_from([*b'{}[]":,0123456789\n \\', 0xFF, 0x00]))
        elif action == "delete" and data:
            del data[where : where + draw(st.integers(1, 40))]
        elif action == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=12))
        else:
            del data[where:]
    return bytes(data)


@PROPERTY
@given(mutated())
def test_mutated_files_read_or_fail_with_a_transcript_error(blob: bytes) -> None:
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "m.jsonl"
        path.write_bytes(blob)
        try:
            view = read_view(path)
        except TranscriptError as err:
            assert err.path == str(path)
        else:
            view.to_json()
            view.gaps()
            for run in view.run_order:
                view.root_calls(run)
        result = peek(path)  # never raises
        assert isinstance(result.envelopes, list)


@settings(max_examples=60, deadline=None)
@given(mutated())
def test_open_on_a_mutated_file_refuses_untouched_or_cuts_only_the_tail(blob: bytes) -> None:
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "m.jsonl"
        path.write_bytes(blob)
        try:
            s = AgentGoSession.open(path)
        except TranscriptError:
            assert path.read_bytes() == blob
            return
        s.close()
        after = path.read_bytes()
        cut = blob.rfind(b"\n") + 1
        assert after == blob[:cut]


@PROPERTY
@given(
    st.one_of(
        st.binary(min_size=1, max_size=200).filter(lambda b: b"\n" not in b),
        st.builds(
            lambda seq, kind: orjson.dumps(dict(SAMPLE_RECORDS[-1], seq=seq, type=kind, data={})),
            st.integers(0, 200),
            st.sampled_from(["agent_start", "run_close", "checkpoint", "model_exec_end"]),
        ),
    )
)
def test_a_final_line_without_newline_is_always_ignored(tail: bytes) -> None:
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "t.jsonl"
        path.write_bytes(SAMPLE + tail)
        assert list(read(path)) == SAMPLE_RECORDS
        assert read_view(path).to_json() == read_view_of(SAMPLE_RECORDS).to_json()
