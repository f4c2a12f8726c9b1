"""``session_core.following`` and ``LiveTranscript``: tailing a transcript another process writes.

Real files and real writers: a subprocess appending through ``Session`` at a
steady rate, one dribbling lines a byte at a time, a real ``Session.load``
repair renaming a new inode over the file while the follower reads it.
Everything is bounded by timeouts so a bug fails the test instead of hanging CI.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import session_core.following as following_module
from session_core import Message, Session
from session_core.codec import dump_line, new_id, now_ts
from session_core.following import FollowUpdate, follow
from session_core.formats import V1
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

DRIBBLER = r"""
import os, sys, time
from session_core.codec import dump_line, new_id, now_ts
path, count, pause = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
for i in range(count):
    payload = {"role": "assistant", "content": f"drip {i} — ü € 😀 中文"}
    line = dump_line({"id": new_id(), "payload": payload, "ts": now_ts(),
                      "type": "message", "v": 1})
    for b in range(len(line)):
        os.write(fd, line[b : b + 1])
        time.sleep(pause)
os.close(fd)
"""

# Rounds of: load (which repairs the previous round's crash tail by renaming a new
# inode over the file), a quick burst of appends, then a crash in the middle of a line
# (cut inside a multi-byte character). The last round leaves a clean end marker.
CRASHING_WRITER = r"""
import os, sys
from session_core import Message, Session
path, rounds, burst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for r in range(rounds):
    s = Session.load(path)
    for i in range(burst):
        s.append_message(Message(role="assistant", content=f"round {r} line {i}"))
    s.close()
    cut = '{"id":"CUT","payload":{"content":"\u00fc\u20ac'.encode()[:-1]
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, cut)
    os.close(fd)
s = Session.load(path)
s.append_event(type="x-end", payload={"rounds": rounds})
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


def fingerprint(path: Path) -> tuple[str, int, int, int, int]:
    st = os.stat(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest, st.st_ino, st.st_dev, st.st_mtime_ns, st.st_size


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


# --- the first update ---------------------------------------------------------------


async def test_first_update_carries_the_whole_existing_file(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 300)
    # A large batch limit must not split the first update (it carries all of the file).
    async with Follower(path, force_polling=polling, batch_bytes=1024) as f:
        first = await f.next()
        assert first.initial and not first.reset and first.exists and first.caught_up
        assert first.envelopes == records(path)
        assert first.lines == list(range(1, 302))
        assert first.format == V1
        assert first.offset == first.size == path.stat().st_size
        assert first.warnings == []
        assert await f.quiet(0.3) == []  # nothing changes: nothing is sent


async def test_initial_batches_splits_the_first_read(tmp_path: Path) -> None:
    path = transcript_at(tmp_path, 2000)
    async with Follower(path, force_polling=True, batch_bytes=16 << 10, initial_batches=True) as f:
        await f.until(lambda f: len(f.current) == 2001)
        assert len(f.updates) > 3
        assert not f.updates[0].caught_up and f.updates[-1].caught_up
        assert f.current == records(path)
        f.assert_epochs_consistent()


# --- appends --------------------------------------------------------------------------


async def test_steady_writer_every_envelope_once_in_order(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 3)
    async with caught_up(path, force_polling=polling) as f:
        await run_writer(STEADY_WRITER, path, 800, 800, "load", timeout=20)
        await f.until(f.ends_with("x-end"))
        assert f.resets == 0
        assert f.current == records(path)
        assert len(f.current) == 3 + 1 + 800 + 1
        f.assert_epochs_consistent()
        # Appends arrived as they were written, not in one lump at the end.
        assert sum(1 for u in f.updates if u.envelopes) > 10
        assert_live_matches_load(f.live, path, tmp_path)


async def test_dribbling_writer_each_line_once_and_complete(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 1)
    async with caught_up(path, force_polling=polling) as f:
        await run_writer(DRIBBLER, path, 6, 0.0003, timeout=30)
        await f.until(lambda f: len(f.current) == 2 + 6)
        assert f.current == records(path)
        contents = [env["payload"]["content"] for env in f.current[2:]]
        assert contents == [f"drip {i} — ü € 😀 中文" for i in range(6)]
        f.assert_epochs_consistent()
        assert all(not u.warnings for u in f.updates)
        # Each line was yielded on its own, when its newline landed.
        assert sum(1 for u in f.updates if u.envelopes) >= 4
        assert await f.quiet(0.2) == []


async def test_line_cut_inside_a_multibyte_character_is_held_back(
    tmp_path: Path, polling: bool
) -> None:
    path = transcript_at(tmp_path, 1)
    line = message_line("naïve café 😀")
    cut = line.index("😀".encode()) + 2  # two of the emoji's four bytes
    async with caught_up(path, force_polling=polling) as f:
        append_raw(path, line[:cut])
        assert await f.quiet(0.4) == []  # held back, no warning either
        append_raw(path, line[cut:-1])  # all but the newline: still held back
        assert await f.quiet(0.3) == []
        append_raw(path, b"\n")
        update = await f.next()
        assert [e["payload"]["content"] for e in update.envelopes] == ["naïve café 😀"]
        assert update.lines == [3]
        assert update.warnings == []
        assert update.offset == path.stat().st_size


async def test_malformed_complete_line_is_a_warning_and_following_continues(
    tmp_path: Path, polling: bool
) -> None:
    path = transcript_at(tmp_path, 1)
    async with caught_up(path, force_polling=polling) as f:
        append_raw(path, b'{"id": "x", "payload": {"cont\n')
        append_raw(path, b"[1, 2]\n")
        append_raw(path, b'{"id":"v2","payload":{},"ts":"x","type":"message","v":2}\n')
        append_raw(path, message_line("after the damage"))
        await f.until(lambda f: len(f.current) == 4)
        warnings = [w for u in f.updates for w in u.warnings]
        assert any("line 3" in w and "could not be read" in w for w in warnings), warnings
        assert any("line 4" in w and "not a JSON object" in w for w in warnings), warnings
        assert [n for n, _ in f.epochs[-1]] == [1, 2, 5, 6]
        assert f.current[-1]["payload"]["content"] == "after the damage"
        # The live view shows the damage and skips what it cannot apply.
        assert any("line 5" in w and "not applied" in w for w in f.live.state.warnings)
        assert [m.content for m in f.live.state.messages()][-1] == "after the damage"
        assert f.resets == 0
        append_raw(path, message_line("still following"))
        update = await f.next()
        assert update.lines == [7]


# --- resets ---------------------------------------------------------------------------


async def test_truncation_resets(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 5)
    keep = len(b"".join(path.read_bytes().splitlines(keepends=True)[:3]))
    ino = path.stat().st_ino
    async with caught_up(path, force_polling=polling) as f:
        os.truncate(path, keep)  # the same inode, shorter, at a line boundary
        update = await f.next()
        assert update.reset and update.initial
        assert update.envelopes == records(path) and len(update.envelopes) == 3
        assert any("truncated" in w for w in update.warnings)
        os.truncate(path, 0)
        update = await f.next()
        assert update.reset and update.envelopes == []
        write_transcript(path, 2, tag="b")  # create refuses content, accepts the empty file
        assert path.stat().st_ino == ino
        await f.until(lambda f: len(f.current) == 3)
        assert f.current == records(path)
        assert f.current[0]["payload"] == {"agent": "b"}
        assert f.resets == 2
        f.assert_epochs_consistent()


@pytest.mark.parametrize("longer", [False, True], ids=["shorter", "longer"])
async def test_rename_replacement_resets(tmp_path: Path, polling: bool, longer: bool) -> None:
    path = transcript_at(tmp_path, 4)
    async with caught_up(path, force_polling=polling) as f:
        staging = tmp_path / "t.jsonl.new"
        if longer:
            # The old bytes and then some: only the inode says it is another file.
            shutil.copyfile(path, staging)
            s = Session.load(staging)
            for i in range(3):
                s.append_message(Message(role="assistant", content=f"more {i}"))
            s.close()
            assert staging.stat().st_size > path.stat().st_size
        else:
            write_transcript(staging, 1, tag="b")
        os.rename(staging, path)
        update = await f.next()
        assert update.reset and update.initial and update.exists
        assert any("replaced" in w for w in update.warnings)
        assert update.envelopes == records(path)
        assert update.lines[0] == 1
        assert f.current == records(path)
        append_raw(path, message_line("appended to the new inode"))
        update = await f.next()
        assert not update.reset and update.envelopes[0]["payload"]["content"].startswith("app")
        f.assert_epochs_consistent()


async def test_deleted_file_warns_and_waits_then_recreation_resets(
    tmp_path: Path, polling: bool
) -> None:
    path = transcript_at(tmp_path, 3)
    async with caught_up(path, force_polling=polling) as f:
        path.unlink()
        update = await f.next()
        assert not update.exists and update.reset and update.envelopes == []
        assert any("does not exist" in w for w in update.warnings)
        assert not f.live.exists and f.live.state.messages() == []
        assert await f.quiet(0.5) == []  # a wait, not an error: no repeats, still running
        write_transcript(path, 2, tag="again")
        await f.until(lambda f: len(f.current) == 3)
        update = next(u for u in f.updates[::-1] if u.reset)
        assert update.exists and update.initial
        assert any("appeared again" in w for w in update.warnings)
        assert f.current == records(path)
        assert f.live.exists
        assert f.live.state.messages()[0].content.startswith("again 0")
        f.assert_epochs_consistent()


async def test_missing_at_start_then_created(tmp_path: Path, polling: bool) -> None:
    path = tmp_path / "t.jsonl"
    async with Follower(path, force_polling=polling) as f:
        first = await f.next()
        assert not first.exists and first.envelopes == [] and first.warnings
        write_transcript(path, 1)
        await f.until(lambda f: len(f.current) == 2)
        assert f.current == records(path)


def test_a_replacement_while_the_first_update_is_read_is_not_mixed_in(tmp_path: Path) -> None:
    """A reset's first update is completed in one go; if the file is replaced again
    meanwhile, it carries the newest file alone, not the old file's head glued to it."""
    from session_core.following import _drain, _Tail

    path = transcript_at(tmp_path, 500)
    tail = _Tail(str(path))
    try:
        piece = tail.step(4096)  # the first bounded piece, as follow reads after a reset
        assert piece is not None and piece.initial and not piece.caught_up
        assert 0 < len(piece.envelopes) < 501
        staging = tmp_path / "t.jsonl.new"
        write_transcript(staging, 3, tag="b")
        os.rename(staging, path)
        update = _drain(tail, piece)
        assert update.reset and update.initial and update.caught_up
        assert update.envelopes == records(path)
        assert update.lines == [1, 2, 3, 4]
    finally:
        tail.close()


@pytest.mark.parametrize("kind", ["fifo", "directory"])
async def test_not_a_regular_file_is_a_warning_and_never_blocks(
    tmp_path: Path, polling: bool, kind: str
) -> None:
    path = tmp_path / "t.jsonl"
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    else:
        path.mkdir()
    with unsticking(path) as rescued:
        await _follow_a_non_file(path, polling, kind, rescued)


@contextlib.contextmanager
def unsticking(fifo: Path) -> Any:
    """Should the follower regress and block the loop in open() of a FIFO, play the
    writer after a while so the test fails instead of hanging CI. Yields a list that
    holds True once it had to: a writer's open of the FIFO succeeded, so a reader had
    it open (the follower never opens one; ENXIO otherwise)."""
    done = threading.Event()
    rescued: list[bool] = []

    def rescue() -> None:
        if done.wait(3):
            return
        while not done.wait(0.1):
            with contextlib.suppress(OSError):
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO if no reader
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        rescued.append(True)
                finally:
                    os.close(fd)

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield rescued
    finally:
        done.set()
        thread.join()


async def _follow_a_non_file(path: Path, polling: bool, kind: str, rescued: list[bool]) -> None:
    async with Follower(path, force_polling=polling, poll_interval=0.05) as f:
        first = await f.next()
        assert first.envelopes == [] and any("not a regular file" in w for w in first.warnings)
        assert await f.quiet(0.3) == []  # said once, not on every poll
        assert not rescued  # the loop was never stuck in open(): nobody had to play writer
        if kind == "fifo":
            path.unlink()
        else:
            path.rmdir()
        write_transcript(path, 2)
        await f.until(lambda f: len(f.current) == 3)
        assert f.current == records(path)
        assert any(u.reset for u in f.updates[1:])


async def test_events_wake_the_follower_without_polling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no hot-polling window after a change and an idle poll of an hour, only a
    file-system event can wake the follower: each append, and a rename, arrives (in
    order, each once) well before any poll could have found it."""
    monkeypatch.setattr(following_module, "HOT_SECONDS", 0.0)  # idle from the start
    path = transcript_at(tmp_path, 1)
    async with caught_up(path, poll_interval=3600) as f:
        for word in ("one", "two"):
            append_raw(path, message_line(word))
            update = await f.next(timeout=10)
            assert [env["payload"]["content"] for env in update.envelopes] == [word]
        assert [env["payload"].get("content") for env in f.current[-2:]] == ["one", "two"]
        # A rename is seen through the directory watch too.
        staging = tmp_path / "t.jsonl.new"
        write_transcript(staging, 1, tag="b")
        os.rename(staging, path)
        update = await f.next(timeout=10)
        assert update.reset and update.envelopes == records(path)


async def test_falls_back_to_polling_when_events_are_unavailable(tmp_path: Path) -> None:
    """The directory does not exist yet, so there is nothing to watch: polling finds the file."""
    path = tmp_path / "later" / "t.jsonl"
    threads = set(threading.enumerate())
    async with Follower(path, poll_interval=0.05) as f:
        first = await f.next()
        assert not first.exists
        deadline = time.monotonic() + 5
        while not set(threading.enumerate()) <= threads:  # the failed watcher goes
            if time.monotonic() > deadline:
                pytest.fail(
                    f"the failed watcher is still there: {set(threading.enumerate()) - threads}"
                )
            await asyncio.sleep(0.01)
        write_transcript(path, 2)
        await f.until(lambda f: len(f.current) == 3, timeout=5)
        assert f.current == records(path)


# --- a real repair racing the follower ---------------------------------------------


async def test_load_repair_racing_the_follower(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 5)
    async with caught_up(path, force_polling=polling) as f:
        await run_writer(CRASHING_WRITER, path, 6, 150, timeout=30)
        await f.until(f.ends_with("x-end"))
        final = records(path)
        assert f.current == final
        assert len(final) == 6 + 6 * 150 + 1
        assert f.resets >= 1  # at least one repair's rename was seen as a replacement
        f.assert_epochs_consistent()
        # The cut lines were held back, never yielded, never warned about.
        assert all(env.get("id") != "CUT" for u in f.updates for env in u.envelopes)
        assert not any("could not be read" in w for u in f.updates for w in u.warnings)
        assert not os.path.exists(str(path) + ".repair")
        assert_live_matches_load(f.live, path, tmp_path)


# --- the live view --------------------------------------------------------------------


def rich_transcript(path: Path, tag: str, extra: int) -> None:
    """Messages, a compaction, an elision, tool operations, grants, run context."""
    s = Session.create(path, meta={"agent": tag})
    s.append_message(Message(role="system", content=f"{tag} system", sysprompt=True))
    ids = [s.append_message(Message(role="user", content=f"{tag} q{i}")) for i in range(4)]
    s.append_grants([{"tool": "fs_read", "scope": tag}])
    op = s.append_tool_dispatched(
        call_id="c1", tool="fs_read", arguments='{"path":"a"}', run_id="r1", round=1
    )
    s.append_tool_settled(op_id=op, outcome="completed", duration=0.5)
    s.append_tool_dispatched(call_id="c2", tool="fs_write", arguments="{}", run_id="r1", round=2)
    s.append_compaction(summary=f"{tag} summary", replaces_through_id=ids[1])
    s.append_elision([{"id": ids[3], "stub": "[elided]"}])
    s.append_run_context(run_id="r1", digest="d1", facts=[("date", "2026-08-09")])
    for i in range(extra):
        s.append_message(Message(role="assistant", content=f"{tag} a{i} {EMOJI}"))
    s.close()


async def test_live_transcript_rebuilds_from_new_content_after_a_reset(
    tmp_path: Path, polling: bool
) -> None:
    path = tmp_path / "t.jsonl"
    rich_transcript(path, "first", 3)
    async with caught_up(path, force_polling=polling) as f:
        assert_live_matches_load(f.live, path, tmp_path)
        assert f.live.format == V1
        # Replaced by another transcript (a rename): the view is rebuilt from it alone.
        staging = tmp_path / "next.jsonl"
        rich_transcript(staging, "second", 1)
        os.rename(staging, path)
        await f.until(lambda f: f.resets == 1 and len(f.current) == len(records(path)))
        assert f.live.resets == 1
        assert_live_matches_load(f.live, path, tmp_path)
        assert all("first" not in m.content for m in f.live.state.messages())
        # Appends after the reset apply incrementally on the rebuilt state.
        s = Session.load(path)
        mid = s.append_message(Message(role="user", content="later"))
        s.append_compaction(summary="later summary", replaces_through_id=mid)
        s.close()
        await f.until(f.ends_with("compaction"))
        assert_live_matches_load(f.live, path, tmp_path)
        # Truncated to nothing and rewritten: rebuilt again.
        os.truncate(path, 0)
        await f.until(lambda f: f.resets == 2)
        assert f.live.state.messages() == [] and f.live.format is None
        rich_transcript(path, "third", 2)
        await f.until(lambda f: len(f.current) == len(records(path)))
        assert_live_matches_load(f.live, path, tmp_path)


# --- following changes nothing -------------------------------------------------------


def _our_fds_on(path: Path) -> list[int]:
    target = os.path.realpath(path)
    found = []
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{name}") == target:
                found.append(int(name))
    return found


async def test_following_changes_nothing_and_takes_no_lock(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 50)
    append_raw(path, b'{"broken": \n')  # damage is shown, never repaired
    append_raw(path, message_line("partial")[:-7])  # a crash tail: held back, never cut
    os.utime(path, ns=(1_000_000_000, 2_000_000_000))
    before = fingerprint(path)
    listing = sorted(os.listdir(tmp_path))
    async with Follower(path, force_polling=polling) as f:
        first = await f.next()
        assert first.envelopes == records(path, skip_bad=True)  # the crash tail is held back
        assert any("line 52" in w for w in first.warnings)
        await asyncio.sleep(0.3)
        if os.path.isdir("/proc/self/fd"):
            fds = _our_fds_on(path)
            assert fds, "the follower keeps the file open"
            for fd in fds:
                info = Path(f"/proc/self/fdinfo/{fd}").read_text()
                mode = int(info.split("flags:")[1].split()[0], 8)
                assert mode & os.O_ACCMODE == os.O_RDONLY
        assert fingerprint(path) == before
        assert sorted(os.listdir(tmp_path)) == listing
    assert fingerprint(path) == before
    # No lock is held while following: the writer's exclusive flock is free to take.
    async with caught_up(path, force_polling=polling) as f:
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the follower held one
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    assert fingerprint(path) == before


# --- load: bounded work per wake-up -------------------------------------------------


class Turns:
    """A task that takes every turn the event loop gives (``asyncio.sleep(0)`` in a loop)
    and notes, at each, how many updates the follower has handed on. A follower that
    reads two batches without giving the loop a turn between them leaves a count unseen.
    (How long a turn waits is timing, measured in bench/, not asserted here.)"""

    def __init__(self, follower: Follower) -> None:
        self.follower = follower
        self.seen: set[int] = set()
        self.first = 0
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            self.seen.add(len(self.follower.updates))
            await asyncio.sleep(0)

    async def start(self) -> None:
        """Start taking turns; counted from the first turn taken."""
        self.task = asyncio.create_task(self._run())
        while not self.seen:
            await asyncio.sleep(0)
        self.first = min(self.seen)

    async def stop(self) -> None:
        assert self.task is not None
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task

    def assert_a_turn_between_updates(self) -> None:
        last = len(self.follower.updates)
        assert last > self.first + 1, "too few updates to tell"
        missed = [n for n in range(self.first, last) if n not in self.seen]  # n, before n + 1
        assert not missed, f"no turn for the loop after updates {missed[:10]} (of {last})"


async def test_10k_lines_per_second_writer_does_not_starve_the_loop(
    tmp_path: Path, polling: bool
) -> None:
    path = transcript_at(tmp_path, 1)
    async with caught_up(path, force_polling=polling) as f:
        turns = Turns(f)
        await turns.start()
        try:
            await run_writer(STEADY_WRITER, path, 10_000, 15_000, "load", timeout=30)
            await f.until(f.ends_with("x-end"), timeout=15)
        finally:
            await turns.stop()
        assert f.current == records(path)
        assert len(f.current) == 1 + 1 + 15_000 + 1  # meta, one message, the burst, x-end
        f.assert_epochs_consistent()
        turns.assert_a_turn_between_updates()


async def test_a_burst_is_read_in_bounded_batches(tmp_path: Path) -> None:
    path = transcript_at(tmp_path, 1)
    line_size = len(message_line(f"burst 00000 {EMOJI}"))
    burst = b"".join(message_line(f"burst {i:05} {EMOJI}") for i in range(40_000))
    batch = 64 << 10
    async with caught_up(path, force_polling=True, batch_bytes=batch) as f:
        turns = Turns(f)
        await turns.start()
        append_raw(path, burst)  # ~8 MB at once
        try:
            await f.until(lambda f: len(f.current) == 2 + 40_000, timeout=20)
        finally:
            await turns.stop()
        later = [u for u in f.updates[1:] if u.envelopes]
        assert len(later) >= len(burst) // batch
        assert all(len(u.envelopes) * line_size <= batch + 2 * line_size for u in later)
        assert not later[0].caught_up and f.updates[-1].caught_up
        assert f.current == records(path)
        f.assert_epochs_consistent()
        turns.assert_a_turn_between_updates()  # the loop ran between every two batches


# --- cancellation ---------------------------------------------------------------------


def _native_threads() -> int | None:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


async def _settle_threads(baseline: set[threading.Thread], natives: int | None) -> None:
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        extra = set(threading.enumerate()) - baseline
        native_ok = natives is None or (_native_threads() or 0) <= natives
        if not extra and native_ok:
            return
        await asyncio.sleep(0.02)
    extra = set(threading.enumerate()) - baseline
    assert not extra, f"threads left behind: {extra}"
    assert natives is None or (_native_threads() or 0) <= natives, "native threads left behind"


@pytest.mark.parametrize("how", ["cancel-idle", "cancel-busy", "aclose"])
async def test_cancellation_is_clean(tmp_path: Path, polling: bool, how: str) -> None:
    path = transcript_at(tmp_path, 10)
    tasks = asyncio.all_tasks()
    threads = set(threading.enumerate())
    natives = _native_threads()
    if how == "aclose":
        seen = 0
        async with contextlib.aclosing(follow(path, force_polling=polling)) as updates:
            async for update in updates:
                seen += len(update.envelopes)
                append_raw(path, message_line("one more"))
                if seen >= 13:
                    break
        assert seen >= 13
    else:
        f = Follower(path, force_polling=polling)
        await f.__aenter__()
        await f.next()
        if how == "cancel-busy":
            with reaped(spawn(STEADY_WRITER, path, 5_000, 3_000, "load")) as proc:
                await f.until(lambda f: len(f.current) > 200, timeout=10)
                await f.stop()  # mid-stream
                proc.kill()
        else:
            await asyncio.sleep(0.4)  # idle, waiting on events / the poll timer
            await f.stop()
        assert f.task is not None and f.task.cancelled()
    assert asyncio.all_tasks() == tasks
    await _settle_threads(threads, natives)


async def test_unparsed_updates_carry_the_lines_their_numbers_and_spans(tmp_path: Path) -> None:
    """``follow(parse=False)``: each complete line as it is in the file (a view into the
    block read), never a dict; a line cut across reads (here inside a UTF-8 character,
    and across 700-byte batches) comes whole, once; the format is still known."""
    path = transcript_at(tmp_path, 3)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n") + b"\n   \n")  # CRLF, blanks
    line = message_line("naïve café 😀")
    cut = line.index("😀".encode()) + 2
    seen: list[tuple[int, bytes, int]] = []
    formats = set()
    updates = follow(path, force_polling=True, initial_batches=True, batch_bytes=700, parse=False)
    try:
        async for update in updates:
            assert update.envelopes == []
            assert len(update.raw) == len(update.lines) == len(update.spans)
            formats.add(update.format)
            source = update.source
            assert source is not None
            for raw, number, span in zip(update.raw, update.lines, update.spans, strict=True):
                assert source.read(span) == bytes(raw)
                seen.append((number, bytes(raw), span))
            if update.caught_up and len(seen) == len(path.read_bytes().split(b"\n")) - 1:
                if line[cut:] in path.read_bytes():
                    break
                append_raw(path, line[:cut])
                await asyncio.sleep(0.05)
                append_raw(path, line[cut:])
    finally:
        await updates.aclose()
    expected = path.read_bytes().split(b"\n")[:-1]
    assert [raw for _, raw, _ in seen] == expected
    assert [number for number, _, _ in seen] == list(range(1, len(expected) + 1))
    assert seen[-1][1] == line[:-1] and formats == {V1}
