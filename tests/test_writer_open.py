"""A writer that keeps its file open for writing (as Codex keeps its rollout) holds it:
live while the descriptor is open, however quiet the file; gone once it is closed, however
fresh. Real processes hold the files: one opens a file and waits, and is killed."""

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

from session_core import writers
from session_core.formats import by_name
from session_core.scan import scan_file

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
    """Each ask scans again (the cache would answer for up to 2 s), a file held in two
    scans in a row is held steadily, and no writer is remembered from another test."""
    monkeypatch.setattr(writers, "_OPEN", _Scanning())
    monkeypatch.setattr(writers, "_LOCKS_SEEN", set())
    monkeypatch.setattr(writers, "STEADY_SCANS", 2)
    monkeypatch.setattr(writers, "STEADY_SECONDS", 0.0)


class _Scanning(writers._OpenFiles):
    """Every ask is a scan of its own, taken in the caller's thread."""

    def get(self) -> writers.OpenScan | None:
        return self.streaks.scan(writers.scan_open_for_writing(), time.monotonic())


def _holder(path: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A Codex rollout with a call left without its output, quiet for ten minutes (no
    writer by its mtime), held open for writing by another process."""
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


def _files() -> frozenset[tuple[int, int]]:
    scan = writers.open_for_writing()
    return frozenset() if scan is None else scan.files


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_a_file_held_open_for_writing_is_in_the_scan_and_one_read_is_not(tmp_path: Path) -> None:
    written, read = tmp_path / "w.jsonl", tmp_path / "r.jsonl"
    written.write_bytes(b"")
    read.write_bytes(b"")
    mine = os.open(tmp_path / "mine.jsonl", os.O_WRONLY | os.O_CREAT)  # this process's own
    procs = [_holder(written, "w"), _holder(read, "r")]
    try:
        found = writers.scan_open_for_writing()
        assert found is not None
        key = lambda p: (os.stat(p).st_dev, os.stat(p).st_ino)  # noqa: E731
        assert key(written) in found
        assert key(read) not in found
        assert key(tmp_path / "mine.jsonl") not in found
    finally:
        os.close(mine)
        for proc in procs:
            _kill(proc)
    assert key(written) not in (writers.scan_open_for_writing() or ())


def test_a_quiet_file_held_open_has_its_writer_and_its_call_runs(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    path, _proc = held
    codex = by_name("codex")
    assert writers.writer_holds_lock(path) is True
    assert codex.writer_alive(path) is True
    states = [
        op.state for op in codex.open(path, writer_alive=codex.writer_alive(path)).tool_operations
    ]
    assert states == ["running"]
    row = scan_file(path)
    assert (row.status, row.locked) == ("live", True)


def test_a_writer_killed_is_gone_at_once_however_fresh_the_file(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    path, proc = held
    codex = by_name("codex")
    assert scan_file(path).status == "live"  # seen holding it, in two scans in a row
    assert writers.writer_holds_lock(path) is True
    _kill(proc)
    os.utime(path)  # written a moment ago: fresh, which alone would say "live"
    assert writers.writer_holds_lock(path) is False
    assert codex.writer_alive(path) is False
    states = [
        op.state for op in codex.open(path, writer_alive=codex.writer_alive(path)).tool_operations
    ]
    assert states == ["interrupted"]
    row = scan_file(path)
    assert row.status == "crashed", row.reason


def test_a_fresh_file_no_writer_was_seen_to_hold_is_live_by_its_mtime(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-02-23T12-00-00-019c0000-0000-7000-8000-000000000002.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    w.message("user", "hi")
    row = scan_file(path)
    assert (row.status, row.locked) == ("live", False)
    assert by_name("codex").writer_alive(path) is None  # may be at work: not known


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
    key = (os.stat(path).st_dev, os.stat(path).st_ino)
    first = writers.open_for_writing()
    assert first is not None and key not in first.files
    proc = _holder(path, "w")
    try:
        time.sleep(0.1)
        assert key not in _files()  # the stale answer, at once
        deadline = time.monotonic() + 5
        while key not in _files():
            assert time.monotonic() < deadline, "the thread never took the scan again"
            time.sleep(0.05)
        assert cache.thread is not None and cache.thread.name == "tailscope-open-files"
    finally:
        _kill(proc)


def test_a_write_caught_in_its_moment_is_no_writer_that_went(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    """A writer that opens its file for each write, caught holding it once, is between
    writes when it is not: its calls run on while the file is fresh, and the row is live."""
    path, proc = held
    codex = by_name("codex")
    assert writers.writer_holds_lock(path) is True  # one scan: caught in a write
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("close\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "closed"
    os.utime(path)  # it wrote a moment ago
    assert writers.writer_holds_lock(path) is False
    assert codex.writer_alive(path) is None  # may be at work: not known, not gone
    states = [
        op.state for op in codex.open(path, writer_alive=codex.writer_alive(path)).tool_operations
    ]
    assert states == ["running"]
    assert scan_file(path).status == "live"


def test_steady_is_held_in_scans_in_a_row_over_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writers, "STEADY_SCANS", 3)
    monkeypatch.setattr(writers, "STEADY_SECONDS", 3.0)
    streaks, a, b = writers.Streaks(), (1, 10), (1, 11)
    assert streaks.scan(frozenset({a, b}), 0.0).steady == frozenset()  # type: ignore[union-attr]
    assert streaks.scan(frozenset({a, b}), 1.0).steady == frozenset()  # type: ignore[union-attr]
    assert streaks.scan(frozenset({a}), 2.0).steady == frozenset()  # type: ignore[union-attr]
    third = streaks.scan(frozenset({a, b}), 3.0)  # a: three in a row over 3 s; b let go
    assert third is not None and third.steady == frozenset({a})
    assert streaks.scan(None, 4.0) is None  # /proc unreadable: nothing is known
    assert streaks.scan(frozenset({a}), 5.0).steady == frozenset()  # type: ignore[union-attr]
