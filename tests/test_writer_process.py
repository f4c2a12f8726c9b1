"""A real writer in another process, holding its lock, while tailscope reads its file.

Every read command and the viewer run on a file whose writer holds the flock: none may
wait for the lock, take one, or keep one, and the writer must go on appending to the same
file. Then the writer is SIGKILLed: its lock goes with it, and what was in flight reads as
interrupted (agentgo's run and call, v1's operation).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import (
    file_loaded,
    fingerprint,
    locks_held_by,
    locks_on,
    screen_lines,
    screen_text,
    wait_for,
)
from textual.widgets import TabbedContent

from session_core.formats.base import IDLE_SECONDS
from session_core.tool_ops import STATE_LABELS
from viewer.app import TailscopeApp
from viewer.cli import main
from viewer.screens.following import FollowingScreen

REPO = Path(__file__).resolve().parent.parent

WRITER = r"""
import sys
from session_core import Message, Session
from session_core.agentgo import AgentGoSession

fmt, path = sys.argv[1], sys.argv[2]
if fmt == "v1":
    s = Session.create(path, meta={"agent": "writer-process"})
    s.append_message(Message(role="user", content="list the files"))
    call = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    s.append_message(Message(role="assistant", content="", tool_calls=(call,)))
    s.append_tool_dispatched("call_1", "ls", {"path": "."})

    def more(n):
        s.append_message(Message(role="user", content=f"more {n}"))
else:
    s = AgentGoSession.create(path)
    run = s.begin_run()
    run.record("agent_start", {})
    text = [{"type": "text", "text": "list the files"}]
    run.record("message_end", {"message": {"kind": "user", "content": text}})
    run.record(
        "tool_exec_start",
        {"tool": "ls", "tool_call_id": "tc1", "args": {"path": "."}},
        execution={"id": "t1", "kind": "tool", "attempt": 1},
    )

    def more(n):
        text = [{"type": "text", "text": f"more {n}"}]
        run.record("message_end", {"message": {"kind": "user", "content": text}})

print("ready", flush=True)
for n, _ in enumerate(sys.stdin, 1):
    more(n)
    print(f"appended {n}", flush=True)
"""


class Writer:
    """The writer process: holds the file's lock from its first line until it dies."""

    def __init__(self, fmt: str, path: Path) -> None:
        self.path = path
        self.appended = 0
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, fmt, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        self._expect("ready")

    def _expect(self, word: str, timeout: float = 30.0) -> None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if line.strip() != word:
            self.kill()
            assert self.proc.stderr is not None
            pytest.fail(f"the writer said {line!r}, not {word!r}: {self.proc.stderr.read()}")

    def append(self) -> str:
        """One more message, appended by the writer; returns its text once it is written."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("more\n")
        self.proc.stdin.flush()
        self.appended += 1
        self._expect(f"appended {self.appended}")
        return f"more {self.appended}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


@pytest.fixture(params=["v1", "agentgo"])
def writer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Writer]:
    w = Writer(request.param, tmp_path / f"{request.param}.jsonl")
    try:
        yield w
    finally:
        w.kill()


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: a read that waits for the writer's lock is interrupted."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s: waiting for the writer's lock?")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def read_commands(path: Path, out: Path) -> list[tuple[list[str], int]]:
    """Each read command with its exit code."""
    return [
        (["peek", str(path)], 0),
        (["replay", str(path)], 0),
        (["check", str(path)], 0),
        (["diff", str(path)], 0),
        (["export", str(path), "--format", "md"], 0),
        (["export", str(path), "--format", "html", "-o", str(out)], 0),
    ]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "viewer.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=30,
    )


def replay(path: Path) -> dict[str, Any]:
    done = run_cli("replay", str(path))
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_writer_holds_its_lock(writer: Writer) -> None:
    """The premise of every test here: the kernel lists the writer's flock on the file."""
    assert locks_held_by(writer.proc.pid, writer.path) == (("FLOCK", "WRITE", writer.proc.pid),)


def test_every_read_command_leaves_a_locked_file_to_its_writer(
    writer: Writer, tmp_path: Path
) -> None:
    path = writer.path
    before = fingerprint(path)
    for args, code in read_commands(path, tmp_path / "out.html"):
        done = run_cli(*args)  # a command that waited for the lock would time out
        assert done.returncode == code, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert fingerprint(path) == before, args  # bytes, inode, mtime, and only its lock
    text = writer.append()
    assert text.encode() in path.read_bytes()  # the same file: it was not replaced
    assert path.stat().st_ino == before[1]
    assert locks_on(path) == before[3]


def test_in_process_read_commands_take_no_lock(
    writer: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = writer.path
    before = fingerprint(path)
    for args, code in read_commands(path, tmp_path / "out.html"):
        with deadline(30):
            assert main(args) == code, (args, capsys.readouterr().err)
        capsys.readouterr()
        assert locks_held_by(os.getpid(), path) == (), args
        assert fingerprint(path) == before, args
    assert writer.append().encode() in path.read_bytes()


async def test_the_viewer_follows_a_locked_file_and_takes_no_lock(writer: Writer) -> None:
    path = writer.path
    inode = path.stat().st_ino
    app = TailscopeApp(path)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await file_loaded(pilot, FollowingScreen)
            if path.name.startswith("agentgo"):
                await pilot.press("3")  # its conversation (it opens on its runs)
            await wait_for(pilot, lambda: "list the files" in screen_text(app))
            assert locks_held_by(os.getpid(), path) == ()
            text = writer.append()  # the writer goes on while the viewer follows
            await wait_for(pilot, lambda: text in screen_text(app), timeout=15)
            assert locks_held_by(os.getpid(), path) == ()
    except BaseException:
        writer.kill()  # a viewer stuck on the lock gets it back, and the test can end
        raise
    assert writer.append().encode() in path.read_bytes()
    assert path.stat().st_ino == inode
    assert locks_on(path) == (("FLOCK", "WRITE", writer.proc.pid),)


def replayed_across_a_kill(writer: Writer, key: str) -> tuple[list[str], dict[str, Any]]:
    """The states of ``key``'s operations while the writer lives, then the replay once
    it is killed (and its lock gone with it)."""
    try:
        alive = [op["state"] for op in replay(writer.path)[key]]
    finally:
        writer.kill()
    assert locks_on(writer.path) == ()
    return alive, replay(writer.path)


def test_agentgo_in_flight_work_is_interrupted_once_the_writer_is_killed(
    tmp_path: Path,
) -> None:
    writer = Writer("agentgo", tmp_path / "agentgo.jsonl")
    alive, gone = replayed_across_a_kill(writer, "tool-operations")
    assert alive == ["running"]
    assert [op["state"] for op in gone["tool-operations"]] == ["interrupted"]


def test_v1_pending_operation_is_interrupted_once_the_writer_is_killed(tmp_path: Path) -> None:
    """v1's reference writer takes no lock: a file with no lock that changed lately may
    have one at work (running, as the viewer says too); untouched since, it has none."""
    writer = Writer("v1", tmp_path / "v1.jsonl")
    alive, gone = replayed_across_a_kill(writer, "pending-tool-operations")
    assert alive == ["running"]
    assert [op["state"] for op in gone["pending-tool-operations"]] == ["running"]
    old = time.time() - IDLE_SECONDS - 5
    os.utime(writer.path, (old, old))
    gone = replay(writer.path)
    assert [op["state"] for op in gone["pending-tool-operations"]] == ["interrupted"]
    assert [op["call-id"] for op in gone["tool-operations"]] == ["call_1"]


async def test_the_agentgo_viewer_says_interrupted_when_its_writer_is_killed(
    tmp_path: Path,
) -> None:
    writer = Writer("agentgo", tmp_path / "agentgo.jsonl")
    app = TailscopeApp(writer.path)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await file_loaded(pilot, FollowingScreen)
            assert "(1 open)" in screen_text(app) and "interrupted" not in screen_text(app)
            writer.kill()
            await wait_for(pilot, lambda: "(1 interrupted)" in screen_text(app), timeout=15)
    finally:
        writer.kill()


async def test_the_v1_viewer_says_the_writer_died_when_it_is_killed(tmp_path: Path) -> None:
    writer = Writer("v1", tmp_path / "v1.jsonl")
    app = TailscopeApp(writer.path)
    try:
        async with app.run_test(size=(160, 40)) as pilot:
            await file_loaded(pilot, FollowingScreen)
            await pilot.press("3")  # the tool operations tab
            await wait_for(pilot, lambda: app.screen.query_one(TabbedContent).active == "tools")
            await wait_for(pilot, lambda: "running" in screen_text(app), timeout=15)
            assert STATE_LABELS["interrupted"] not in screen_text(app)
            writer.kill()
            await wait_for(
                pilot, lambda: STATE_LABELS["interrupted"] in screen_text(app), timeout=15
            )
    finally:
        writer.kill()


async def test_the_v1_conversation_and_tools_tab_agree_when_the_writer_is_killed(
    tmp_path: Path,
) -> None:
    """The call's state in the conversation reads as the tools tab reads it, before the
    writer dies ("running") and after ("interrupted")."""

    writer = Writer("v1", tmp_path / "v1.jsonl")
    app = TailscopeApp(writer.path)

    def call_row() -> str:
        rows = [line for line in screen_lines(app) if "→ ls  [" in line]
        return rows[0] if len(rows) == 1 else f"not one call row: {rows}"

    try:
        async with app.run_test(size=(160, 40)) as pilot:
            await file_loaded(pilot, FollowingScreen)
            await wait_for(pilot, lambda: "● live" in screen_text(app), timeout=15)
            assert "→ ls  [running]" in call_row()
            writer.kill()
            died = STATE_LABELS["interrupted"]
            await wait_for(pilot, lambda: f"→ ls  [{died}]" in call_row(), timeout=15)
            await pilot.press("3")  # the tool operations tab says it in the same words
            await wait_for(pilot, lambda: app.screen.query_one(TabbedContent).active == "tools")
            await wait_for(pilot, lambda: died in screen_text(app), timeout=15)
            await pilot.press("1")
            await wait_for(pilot, lambda: f"→ ls  [{died}]" in call_row(), timeout=15)
    finally:
        writer.kill()
