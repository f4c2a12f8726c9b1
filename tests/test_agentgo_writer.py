"""agentgo-v1: the writer (lock, fsync, sticky errors), checkpoints, and open."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import fingerprint

from agentgo_helpers import (
    ASSISTANT,
    REPO,
    REQUEST,
    at,
    dump_records,
    lines_of,
    model,
    records_of,
)
from session_core import TranscriptError
from session_core.agentgo import (
    AgentGoRun,
    AgentGoSession,
    read,
    read_view,
)
from session_core.agentgo.writer import TRANSIENT
from session_core.errors import (
    InvalidLineError,
    RefusedAppendError,
    SessionClosedError,
    WriterLockedError,
)
from session_core.events import file_identity

# --- the writer -----------------------------------------------------------------------------


def assert_sticky(error: TranscriptError, s: AgentGoSession, run: AgentGoRun) -> None:
    """After ``error``, the next record and the close raise that same error again."""
    with pytest.raises(TranscriptError) as later:
        run.record("agent_start")
    assert later.value is error
    with pytest.raises(TranscriptError) as at_close:
        s.close()
    assert at_close.value is error


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
            # (a message_end of no message was written, then read as no message, unsaid)
            ("message_end", {"message": "a string"}, None, "data.message is an object"),
            ("message_end", {}, None, "data.message is an object"),
            ("message_end", None, None, "data.message is an object"),
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
        s._left = file_identity(s._fd)  # (taken as its file: not another program's write,
        s._at = "/dev/full"  # nor a file renamed over its path)
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
        assert_sticky(first.value, s, run)
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
        assert_sticky(first.value, s, run)

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
        records = records_of(valid)
        records[0]["data"]["version"] = 2
        valid.write_bytes(dump_records(records))
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
        s._release()  # (its file closed, nothing more written)
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


def _race(path: Path) -> list[str]:
    """Three threads recording into one run while two close it; what was refused."""
    import threading

    refused: list[str] = []
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        start = threading.Barrier(5)

        def records() -> None:
            start.wait()
            for k in range(40):
                try:
                    run.record("turn_start", {"turn_index": k})
                except RefusedAppendError:
                    refused.append("record")
                    return

        def closes() -> None:
            start.wait()
            try:
                run.close()
            except RefusedAppendError:
                refused.append("close")

        threads = [threading.Thread(target=f) for f in (records, records, records, closes, closes)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return refused


def test_threads_recording_while_others_close_the_run(tmp_path: Path) -> None:
    """The session is safe to share between threads (api.md): a run closed by one thread
    while others record gets one run_close, and nothing of it after that; the others are
    refused as appends to a closed run."""
    from session_core.agentgo import read

    for trial in range(20):
        path = tmp_path / f"t{trial}.jsonl"
        refused = _race(path)
        kinds = [r["type"] for r in read(path)]
        assert kinds.count("run_close") == 1, trial
        assert kinds[-1] == "run_close", trial  # nothing of the run after it
        assert refused.count("close") == 1


def test_a_time_is_rfc_3339_utc_or_refused(tmp_path: Path) -> None:
    """The spec's ``time``: RFC 3339 UTC. Anything else is refused before it is written."""
    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("turn_start", {"turn_index": 0}, time="2026-08-09T13:10:08.542283123Z")
        run.record("turn_start", {"turn_index": 1}, time="2026-08-09T13:10:09Z")
        for bad in (
            "yesterday at noon",
            "2026-08-09 13:10:08Z",
            "2026-13-09T13:10:08Z",
            "2026-08-09T13:10:08+02:00",
            5,
        ):
            size = path.stat().st_size
            with pytest.raises(RefusedAppendError, match="RFC 3339"):
                run.record("turn_start", {"turn_index": 2}, time=bad)  # type: ignore[arg-type]
            assert path.stat().st_size == size


def test_creating_a_session_on_a_fifo_is_refused_not_blocked(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(TranscriptError, match="not a regular file"):
        AgentGoSession.create(fifo)
