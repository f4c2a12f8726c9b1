"""What the tests of ``session_core.following`` and ``LiveTranscript`` share: writer
processes (bounded by timeouts, so a bug fails the test instead of hanging CI),
transcripts on disk, and ``Follower``, a follower run in a task whose updates are kept."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_core import Message, Session
from session_core.codec import dump_line, new_id, now_ts
from session_core.following import FollowUpdate, follow
from session_core.live import LiveTranscript

EMOJI = "ü € 😀 中文"


@pytest.fixture(params=[pytest.param(False, id="events"), pytest.param(True, id="polling")])
def polling(request: pytest.FixtureRequest) -> bool:
    """A test that takes it runs twice: woken by file-system events, and by polling."""
    return bool(request.param)


# --- writers (separate processes) ---------------------------------------------------

STEADY_WRITER = r"""
import sys, time
from session_core import Message, Session
path, rate, count, how = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = Session.create(path, meta={"agent": "steady"}) if how == "create" else Session.load(path)
t0 = time.monotonic()
for i in range(count):
    delay = t0 + i / rate - time.monotonic()
    if delay > 0.001:
        time.sleep(delay)
    s.append_message(Message(role="assistant", content=f"line {i} ü € 😀"), extra={"seq": i})
s.append_event(type="x-end", payload={"count": count})
s.close()
"""


def spawn(script: str, *args: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


async def wait_process(proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            pytest.fail(f"writer did not finish within {timeout}s")
        await asyncio.sleep(0.01)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    assert proc.returncode == 0, err


@contextlib.contextmanager
def reaped(proc: subprocess.Popen[bytes]) -> Any:
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


async def run_writer(script: str, *args: object, timeout: float) -> None:
    """Runs a writer process to its end (killed, and the test failed, past ``timeout``)."""
    with reaped(spawn(script, *args)) as proc:
        await wait_process(proc, timeout)


# --- files --------------------------------------------------------------------------


def records(path: Path, *, skip_bad: bool = False) -> list[dict[str, Any]]:
    """Every complete (newline-terminated) non-blank line of the file, parsed."""
    lines = path.read_bytes().split(b"\n")[:-1]
    out = []
    for line in lines:
        if line.strip():
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                if not skip_bad:
                    raise
    return out


def make_transcript(path: Path, count: int, *, tag: str = "a") -> Session:
    s = Session.create(path, meta={"agent": tag})
    for i in range(count):
        s.append_message(Message(role="user", content=f"{tag} {i} {EMOJI}"))
    return s


def write_transcript(path: Path, count: int, *, tag: str = "a") -> None:
    make_transcript(path, count, tag=tag).close()


def transcript_at(tmp_path: Path, count: int) -> Path:
    """``t.jsonl`` in ``tmp_path``: a transcript of ``count`` messages."""
    path = tmp_path / "t.jsonl"
    write_transcript(path, count)
    return path


def append_raw(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def message_line(content: str) -> bytes:
    payload = {"role": "assistant", "content": content}
    envelope = {"id": new_id(), "payload": payload, "ts": now_ts(), "type": "message", "v": 1}
    return dump_line(envelope)


# --- the follower harness -----------------------------------------------------------


class Follower:
    """Runs ``follow`` in a task; keeps every update, the per-reset epochs and a live view."""

    def __init__(self, path: Path, **options: Any) -> None:
        self.path = path
        self.options = options
        self.updates: list[FollowUpdate] = []
        self.epochs: list[list[tuple[int, dict[str, Any]]]] = [[]]
        self.live = LiveTranscript(path)
        self._fresh = asyncio.Queue[FollowUpdate]()
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Follower:
        self.task = asyncio.create_task(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def stop(self) -> None:
        assert self.task is not None
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(self.task, 5)

    async def _run(self) -> None:
        async with contextlib.aclosing(follow(self.path, **self.options)) as updates:
            async for update in updates:
                self.updates.append(update)
                if update.reset:
                    self.epochs.append([])
                self.epochs[-1].extend(zip(update.lines, update.envelopes, strict=True))
                self.live.apply(update)
                self._fresh.put_nowait(update)

    @property
    def current(self) -> list[dict[str, Any]]:
        """The envelopes of the latest epoch (since the last reset), in order."""
        return [env for _, env in self.epochs[-1]]

    @property
    def resets(self) -> int:
        return sum(1 for u in self.updates if u.reset)

    def _check_alive(self) -> None:
        assert self.task is not None
        if self.task.done():
            self.task.result()  # raises what killed it
            pytest.fail("the follower stopped by itself")

    async def next(self, timeout: float = 5.0) -> FollowUpdate:
        deadline = time.monotonic() + timeout
        while self._fresh.empty():
            self._check_alive()
            if time.monotonic() > deadline:
                pytest.fail(f"no update within {timeout}s")
            await asyncio.sleep(0.002)
        return self._fresh.get_nowait()

    async def quiet(self, seconds: float) -> list[FollowUpdate]:
        """Whatever arrives within ``seconds`` (waits the whole time)."""
        await asyncio.sleep(seconds)
        self._check_alive()
        got = []
        while not self._fresh.empty():
            got.append(self._fresh.get_nowait())
        return got

    async def until(self, done: Callable[[Follower], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not done(self):
            self._check_alive()
            if time.monotonic() > deadline:
                pytest.fail(
                    f"condition not met within {timeout}s: {len(self.updates)} updates, "
                    f"{self.resets} resets, {len(self.current)} envelopes since the last"
                )
            await asyncio.sleep(0.005)
        while not self._fresh.empty():
            self._fresh.get_nowait()

    def assert_epochs_consistent(self) -> None:
        """Within each epoch: lines 1, 2, 3, ... each once, in order (no blank lines here)."""
        for epoch in self.epochs:
            numbers = [n for n, _ in epoch]
            assert numbers == list(range(1, len(numbers) + 1)), numbers[:20]
            ids = [env.get("id") for _, env in epoch]
            assert len(ids) == len(set(ids))

    def ends_with(self, kind: str) -> Callable[[Follower], bool]:
        return lambda f: bool(f.current) and f.current[-1].get("type") == kind


@contextlib.asynccontextmanager
async def caught_up(path: Path, **options: Any) -> AsyncIterator[Follower]:
    """A ``Follower`` of ``path`` whose first update (the file as it is) has come."""
    async with Follower(path, **options) as f:
        await f.next()
        yield f


def load_copy(path: Path, tmp_path: Path, name: str = "copy.jsonl") -> Session:
    """``Session.load`` of a copy of the file (loading the followed file could repair it)."""
    copy = tmp_path / "copies" / name
    copy.parent.mkdir(exist_ok=True)
    shutil.copyfile(path, copy)
    return Session.load(copy)


def assert_live_matches_load(live: LiveTranscript, path: Path, tmp_path: Path) -> None:
    s = load_copy(path, tmp_path)
    try:
        assert live.state.messages() == s.messages()
        assert live.state.message_ids() == s.message_ids()
        assert live.state.meta == s.meta()
        assert live.state.grants == s.grants()
        assert live.state.pending_tool_operations() == s.pending_tool_operations()
        assert len(live.state.events) == len(s)
    finally:
        s.close()
