"""Follow a transcript another process is still writing, without ever writing to it.

``follow(path)`` is an async generator of ``FollowUpdate``s. It keeps a byte
offset, reads only what was appended, holds back a partial last line, and
starts again from line 1 (``reset=True``) when the file is truncated,
replaced (a repair's rename) or deleted and re-created. It wakes on
watchfiles events for the file's directory and falls back to polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from .formats import Format, detect_record

MAX_BATCH_BYTES = 1 << 22  # per read step after the first update
MAX_BATCH_LINES = 5000


@dataclass(slots=True)
class FollowUpdate:
    """Records completed since the last update, in file order."""

    envelopes: list[dict[str, Any]] = field(default_factory=list)
    reset: bool = False
    warnings: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # file line of each envelope
    format: Format | None = None
    size: int = 0  # the file's size when this update was read
    offset: int = 0  # bytes consumed, the held-back partial line included
    exists: bool = True
    caught_up: bool = True  # nothing more was readable when this was sent
    initial: bool = False  # the first update of a file (or of a reset)


_NOATIME = getattr(os, "O_NOATIME", 0)


def _open_ro(path: str) -> int:
    flags = os.O_RDONLY | os.O_CLOEXEC
    if _NOATIME:
        try:
            return os.open(path, flags | _NOATIME)
        except PermissionError:
            pass
    return os.open(path, flags)


class _Tail:
    """The reading side of a follower: one inode, one offset, a held-back partial line."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd: int | None = None
        self.ino: tuple[int, int] | None = None
        self.offset = 0
        self.line = 0
        self.partial: list[bytes] = []
        self.format: Format | None = None
        self.seen_first = False
        self.vanished = False
        self.started = False

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _restart(self) -> None:
        self.close()
        self.ino = None
        self.offset = 0
        self.line = 0
        self.partial = []
        self.format = None
        self.seen_first = False

    def _boundary_intact(self, fd: int) -> bool:
        """Whether the byte before our last complete line's end is still a newline."""
        end = self.offset - sum(len(p) for p in self.partial)
        if end <= 0:
            return True
        try:
            return os.pread(fd, 1, end - 1) == b"\n"
        except OSError:
            return False

    def step(self, limit_bytes: int | None) -> FollowUpdate | None:
        """Read what is new (at most about ``limit_bytes``); None when nothing changed."""
        update = FollowUpdate()
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            if not self.vanished and (self.ino is not None or not self.started):
                self.vanished = True
                self.started = True
                self._restart()
                update.exists = False
                update.reset = True
                update.initial = True
                update.warnings.append(f"{self.path} does not exist (any more); waiting for it")
                return update
            return None
        except OSError as err:
            update.warnings.append(f"{self.path} cannot be read: {err.strerror}")
            return update
        key = (st.st_dev, st.st_ino)
        reason = None
        if self.ino is None:
            reason = "" if not self.started else "the file appeared again"
        elif key != self.ino:
            reason = "the file was replaced (a new inode, e.g. a repair's rename)"
        elif st.st_size < self.offset:
            reason = "the file was truncated"
        elif self.fd is not None and not self._boundary_intact(self.fd):
            reason = "the file was rewritten under us"
        if reason is not None:
            self._restart()
            try:
                self.fd = _open_ro(self.path)
            except FileNotFoundError:
                return None
            except OSError as err:
                update.warnings.append(f"{self.path} cannot be read: {err.strerror}")
                self.started = True
                return update
            fst = os.fstat(self.fd)
            self.ino = (fst.st_dev, fst.st_ino)
            update.reset = self.started
            update.initial = True
            if reason:
                update.warnings.append(f"{reason}: reading it again from line 1")
            self.started = True
            self.vanished = False
            st = fst
        elif st.st_size == self.offset:
            return None
        assert self.fd is not None
        self._read(update, limit_bytes)
        update.size = st.st_size
        return update

    def _read(self, update: FollowUpdate, limit_bytes: int | None) -> None:
        assert self.fd is not None
        fd = self.fd
        end_goal = None if limit_bytes is None else self.offset + limit_bytes
        while True:
            want = 1 << 22
            block = os.pread(fd, want, self.offset)
            if not block:
                update.caught_up = True
                break
            self.offset += len(block)
            cut = block.rfind(b"\n")
            if cut < 0:
                self.partial.append(block)
            else:
                head = (
                    b"".join(self.partial) + block[: cut + 1] if self.partial else block[: cut + 1]
                )
                self.partial = [block[cut + 1 :]] if cut + 1 < len(block) else []
                self._parse(head, update)
            if end_goal is not None and self.offset >= end_goal:
                update.caught_up = False
                break
        update.offset = self.offset
        update.format = self.format

    def _parse(self, chunk: bytes, update: FollowUpdate) -> None:
        lines = chunk.split(b"\n")
        lines.pop()  # the chunk ends with \n
        loads = orjson.loads
        number = self.line
        envelopes = update.envelopes
        numbers = update.lines
        for raw in lines:
            number += 1
            try:
                record = loads(raw)
            except orjson.JSONDecodeError:
                if raw.strip():
                    update.warnings.append(f"line {number} could not be read, and was skipped")
                continue
            if type(record) is not dict:
                update.warnings.append(f"line {number} is not a JSON object, and was skipped")
                continue
            if not self.seen_first:
                self.seen_first = True
                self.format = detect_record(record)
                if self.format is None:
                    update.warnings.append(
                        f"line {number} is not the start of a known transcript format"
                    )
            envelopes.append(record)
            numbers.append(number)
        self.line = number


async def _watch(directory: str, name: str, wake: asyncio.Event, stop: asyncio.Event) -> None:
    """Set ``wake`` whenever watchfiles reports a change to ``name`` in ``directory``."""
    from watchfiles import awatch

    targets = {name, name + ".repair"}

    def only_ours(_change: object, changed: str) -> bool:
        return os.path.basename(changed) in targets

    async for _changes in awatch(
        directory,
        watch_filter=only_ours,
        debounce=10,
        step=1,
        stop_event=stop,
        recursive=False,
        rust_timeout=500,
        yield_on_timeout=False,
    ):
        wake.set()


async def follow(
    path: str | os.PathLike[str],
    *,
    force_polling: bool = False,
    poll_interval: float = 0.25,
    batch_bytes: int = MAX_BATCH_BYTES,
    initial_batches: bool = False,
) -> AsyncIterator[FollowUpdate]:
    """Yield updates for ``path`` until cancelled. Never writes, never locks, never repairs.

    The first update carries the whole existing file (unless
    ``initial_batches``, when it comes in bounded pieces like later appends).
    Woken by file-system events, with ``poll_interval`` polling as the
    fallback; while the file is busy it is also polled every few ms.
    """
    where = os.path.abspath(os.fspath(path))
    tail = _Tail(where)
    wake = asyncio.Event()
    stop = asyncio.Event()
    watcher: asyncio.Task[None] | None = None
    if not force_polling:
        watcher = asyncio.ensure_future(
            _watch(os.path.dirname(where), os.path.basename(where), wake, stop)
        )
    hot_until = 0.0
    loop = asyncio.get_running_loop()
    try:
        first = True
        while True:
            limit = None if (first and not initial_batches) else batch_bytes
            update = tail.step(limit)
            if update is not None:
                if update.initial and not initial_batches:
                    # The first update of a file or a reset carries all of it.
                    while not update.caught_up:
                        more = tail.step(None)
                        if more is None:
                            break
                        update.envelopes.extend(more.envelopes)
                        update.lines.extend(more.lines)
                        update.warnings.extend(more.warnings)
                        update.offset, update.size = more.offset, more.size
                        update.caught_up = more.caught_up
                        update.format = more.format or update.format
                first = False
                yield update
                hot_until = loop.time() + 0.3
                if not update.caught_up:
                    await asyncio.sleep(0)  # bounded work per wake-up
                    continue
            if watcher is not None and watcher.done():
                # No events to be had (no inotify, a vanished directory): poll.
                with contextlib.suppress(BaseException):
                    watcher.result()
                watcher = None
            timeout = 0.004 if loop.time() < hot_until else poll_interval
            wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout)
    finally:
        stop.set()
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(BaseException):
                await watcher
        tail.close()
