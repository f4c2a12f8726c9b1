"""A writer that has its file open for writing (as Codex keeps its rollout) holds it: live
while the descriptor is open, however quiet the file; gone once every process seen with it
open has exited, however fresh; not gone between two writes of a process that opens the
file for each write. Real processes hold the files, and are killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from codex_writer import RolloutWriter
from helpers import app_loaded, screen_text, wait_for

from session_core import writers
from session_core.formats import by_name
from session_core.scan import scan_file
from viewer.screens.model_screen import ModelScreen

HOLD = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND if sys.argv[2] == "w" else os.O_RDONLY)
print("ready", flush=True)
if sys.stdin.readline() == "close\\n":  # a writer that opens its file for each write
    os.close(fd)
    print("closed", flush=True)
time.sleep(120)
"""

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")


@pytest.fixture(autouse=True)
def fresh_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ask scans again (the cache would answer for up to 2 s), and no writer is
    remembered from another test."""
    monkeypatch.setattr(writers, "_OPEN", _Scanning())
    monkeypatch.setattr(writers, "_LOCKS", writers._Locks())
    monkeypatch.setattr(writers, "_HOLDERS", writers._Holders())


class _Scanning(writers._OpenFiles):
    """Every ask is a scan of its own, taken in the caller's thread."""

    def get(self) -> writers.OpenScan | None:
        return writers.scan_open_for_writing()


def _holder(path: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _close(proc: subprocess.Popen[str]) -> None:
    """The holder lets the file go and runs on."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("close\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "closed"


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _key(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def _files() -> dict[tuple[int, int], frozenset[writers.Holder]]:
    scan = writers.open_for_writing()
    return {} if scan is None else scan.files


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A Codex rollout with a call left without its output, quiet for ten minutes (no
    writer by its mtime), open for writing in another process."""
    path = tmp_path / "rollout-2026-02-23T12-00-00-019c0000-0000-7000-8000-000000000001.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    w.turn_context("t1")
    w.message("user", "run the tests")
    w.function_call("shell", {"command": ["pytest"]}, "call_1")
    old = time.time() - 600
    os.utime(path, (old, old))
    proc = _holder(path, "w")
    try:
        yield path, proc
    finally:
        proc.kill()
        proc.wait()


def _states(path: Path) -> list[str]:
    codex = by_name("codex")
    return [
        op.state for op in codex.open(path, writer_alive=codex.writer_alive(path)).tool_operations
    ]


def test_the_scan_finds_a_file_open_for_writing_with_its_process(tmp_path: Path) -> None:
    written, read, mine = tmp_path / "w.jsonl", tmp_path / "r.jsonl", tmp_path / "m.jsonl"
    for path in (written, read, mine):
        path.write_bytes(b"")
    own = os.open(mine, os.O_WRONLY)  # this process's own: its copy of stdin is such a file
    procs = [_holder(written, "w"), _holder(read, "r")]
    try:
        found = writers.scan_open_for_writing()
        assert found is not None
        ((pid, started),) = found.files[_key(written)]
        assert pid == procs[0].pid and writers._running((pid, started))
        assert _key(read) not in found.files
        assert _key(mine) not in found.files
    finally:
        os.close(own)
        for proc in procs:
            _kill(proc)
    assert _key(written) not in _files()
    assert not writers._running((pid, started))


def test_a_pid_given_again_is_another_process() -> None:
    started = writers._start_time(f"/proc/{os.getpid()}")
    assert started is not None
    assert writers._running((os.getpid(), started))
    assert not writers._running((os.getpid(), started + 1))


def test_a_quiet_file_held_open_has_its_writer_and_its_call_runs(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    path, _proc = held
    assert writers.writer_holds_lock(path) is True
    assert by_name("codex").writer_alive(path) is True
    assert _states(path) == ["running"]
    row = scan_file(path)
    assert (row.status, row.locked) == ("live", True)


def test_a_writer_killed_is_gone_at_once_however_fresh_the_file(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    path, proc = held
    assert scan_file(path).status == "live"  # its process seen with the file open
    _kill(proc)
    os.utime(path)  # written a moment ago: fresh, which alone would say "live"
    assert writers.writer_holds_lock(path) is False
    assert by_name("codex").writer_alive(path) is False
    assert _states(path) == ["interrupted"]
    row = scan_file(path)
    assert row.status == "crashed", row.reason


def test_a_writer_between_writes_is_no_writer_gone_until_its_process_exits(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    """A writer that opens its file for each write, seen with it open in one, runs on
    between writes: the file's age rules then, as for any writer not seen."""
    path, proc = held
    assert writers.writer_holds_lock(path) is True  # caught in a write
    _close(proc)
    os.utime(path)  # it wrote a moment ago
    assert writers.writer_holds_lock(path) is False
    assert by_name("codex").writer_alive(path) is None  # may be at work: not known
    assert _states(path) == ["running"]
    assert scan_file(path).status == "live"
    _kill(proc)
    assert by_name("codex").writer_alive(path) is False
    assert _states(path) == ["interrupted"]
    assert scan_file(path).status == "crashed"


@pytest.mark.parametrize("closed", [False, True])
async def test_the_viewer_says_ended_once_its_writer_is_killed_not_between_writes(
    held: tuple[Path, subprocess.Popen[str]], closed: bool
) -> None:
    """Killed: ended (not idle: the writer it saw went) and its call interrupted at once.
    Let go of the file and running (``closed``: a writer between two writes, which wrote
    a moment ago): still live."""
    path, proc = held
    async with app_loaded(path, ModelScreen, (120, 30)) as (app, pilot):
        await wait_for(pilot, lambda: "● live" in screen_text(app))
        assert "1 running" in screen_text(app)
        if closed:
            _close(proc)
            os.utime(path)
            await pilot.pause(2.5)  # (the header is drawn again every second)
            assert "● live" in screen_text(app) and "1 running" in screen_text(app)
        else:
            _kill(proc)
            await wait_for(pilot, lambda: "● ended" in screen_text(app), timeout=10)
            await wait_for(pilot, lambda: "1 interrupted" in screen_text(app), timeout=10)


def test_the_scan_is_refreshed_in_a_thread_and_the_first_ask_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real cache: the first ask scans; a later ask past its age is answered at once
    from the last scan while a thread takes the next."""
    monkeypatch.setattr(writers, "OPEN_SCAN_EVERY", 0.05)
    cache = writers._OpenFiles()
    monkeypatch.setattr(writers, "_OPEN", cache)
    path = tmp_path / "w.jsonl"
    path.write_bytes(b"")
    assert _key(path) not in _files()  # the first ask: a scan, waited for
    proc = _holder(path, "w")
    try:
        time.sleep(0.1)
        assert _key(path) not in _files()  # the stale answer, at once
        deadline = time.monotonic() + 5
        while _key(path) not in _files():
            assert time.monotonic() < deadline, "the thread never took the scan again"
            time.sleep(0.05)
        assert cache.thread is not None and cache.thread.name == "tailscope-open-files"
    finally:
        _kill(proc)


def test_a_scan_s_holder_is_asked_again_before_it_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scan is up to 2 s old: a file its holder let go since (its inode number perhaps
    another file's by now) is not held, nor one whose holder has exited."""
    monkeypatch.setattr(writers, "OPEN_SCAN_EVERY", 3600.0)
    monkeypatch.setattr(writers, "_OPEN", writers._OpenFiles())
    path = tmp_path / "w.jsonl"
    path.write_bytes(b"")
    proc = _holder(path, "w")
    try:
        assert writers.writer_holds_lock(path) is True  # the scan that is kept
        _close(proc)
        assert _key(path) in _files()  # the kept scan still says so
        assert writers.writer_holds_lock(path) is False
    finally:
        _kill(proc)


def test_a_file_written_after_its_writers_went_has_a_writer_again(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    """Gone once its process exited; then written again (a process that opens it for
    each write, started again, never seen): not gone, its file's age rules."""
    path, proc = held
    assert scan_file(path).status == "live"
    _kill(proc)
    assert by_name("codex").writer_alive(path) is False
    with open(path, "ab") as fh:
        fh.write(b'{"timestamp":"2026-02-23T12:09:00.000Z","type":"event_msg","payload":{}}\n')
    assert by_name("codex").writer_alive(path) is None
    assert scan_file(path).status == "live"
    assert _states(path) == ["running"]


def test_the_processes_seen_are_those_that_may_still_write(tmp_path: Path) -> None:
    """A holder seen before that has exited is let go when another holds the file (a
    shell's ``>>`` hands it to each command it runs: they were all kept); a zombie, not
    reaped yet, has exited."""
    path = tmp_path / "w.jsonl"
    path.write_bytes(b"")
    first, second = _holder(path, "w"), _holder(path, "w")
    try:
        started = [writers._start_time(f"/proc/{p.pid}") for p in (first, second)]
        assert None not in started
        holders = [(p.pid, t) for p, t in zip((first, second), started, strict=True)]
        key = writers._seen_key(path, *_key(path))
        memory = writers._Holders()
        memory.note(key, frozenset(holders[:1]))
        first.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 5
        while writers._running(holders[0]):  # (a zombie until reaped: not running)
            assert time.monotonic() < deadline
            time.sleep(0.01)
        memory.note(key, frozenset(holders[1:]))
        assert memory.seen[key] == frozenset(holders[1:])
    finally:
        for proc in (first, second):
            proc.kill()
            proc.wait()


def test_a_format_whose_writers_all_lock_asks_the_locks_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """agentgo's writers all lock: no lock, no writer, whatever else has the file open for
    writing, so its writer rule scans no process's descriptors (a desktop's 20,000: 0.1 s of
    every open); a Codex file's rule still does."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        b'{"seq":0,"type":"session_start","session_id":"s","time":"2026-01-01T00:00:00Z",'
        b'"data":{"version":1}}\n'
    )
    scans: list[int] = []
    scan = writers.scan_open_for_writing
    monkeypatch.setattr(writers, "scan_open_for_writing", lambda: scans.append(1) or scan())
    proc = _holder(path, "w")
    try:
        assert by_name("agentgo-v1").writer_alive(path) is False
        assert scans == []
        assert by_name("codex").writer_alive(path) is True  # (its rule: held open)
        assert scans == [1]
    finally:
        _kill(proc)
