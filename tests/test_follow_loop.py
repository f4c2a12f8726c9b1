"""The follower in the event loop: woken by file-system events, or by polling when there
are none; bounded work per wake-up under a fast writer; cancelled cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from pathlib import Path

import pytest
from follow_helpers import (
    EMOJI,
    STEADY_WRITER,
    Follower,
    append_raw,
    caught_up,
    message_line,
    reaped,
    records,
    run_writer,
    spawn,
    transcript_at,
    write_transcript,
)

import session_core.following as following_module
from session_core.following import follow

# --- woken by events, or by polling -----------------------------------------------


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
        assert not first.exists  # (not there yet: never "any more", a file never seen)
        assert any("does not exist yet" in w for w in first.warnings), first.warnings
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
