"""Follow a transcript another process is still writing, without ever writing to it.

``follow(path)`` is an async generator of ``FollowUpdate``s. It keeps a byte
offset, reads only what was appended, holds back a partial last line, and
starts again from line 1 (``reset=True``) when the file is truncated,
replaced (a repair's rename) or deleted and re-created. It wakes on
watchfiles events for the file's directory and falls back to polling.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Callable

from .file_watch import Watcher
from .follow_update import FollowUpdate
from .reader import path_of
from .tail_reader import TailReader

# Bytes read per wake-up after the first update, and per read. 1 MB, not 4: a batch's
# blocks and lines, made and freed batch after batch, were 35 MB of a 1 GB v1 file's
# load (the CPU the same).
MAX_BATCH_BYTES = 1 << 20
HOT_SECONDS = 0.3  # after the file changed, also poll every HOT_POLL seconds for this long
HOT_POLL = 0.004
EVENTS_POLL = 0.25  # with file-system events, the idle poll is only a safety net
IDLE_POLL = 0.02  # without them (force_polling, or no watch to be had): within a 50 ms loop's p99


async def follow(
    path: str | os.PathLike[str],
    *,
    force_polling: bool = False,
    poll_interval: float | None = None,
    batch_bytes: int = MAX_BATCH_BYTES,
    initial_batches: bool = False,
    parse: bool = True,
    settle: Callable[[], bool] | None = None,
) -> AsyncGenerator[FollowUpdate, None]:
    """Yield updates for ``path`` until cancelled. Never writes, never locks, never repairs.

    The first update carries the whole existing file (unless
    ``initial_batches``, when it comes in bounded pieces like later appends).
    After that each wake-up reads at most about ``batch_bytes``, and the
    event loop gets a turn between batches. Woken by file-system events, with
    ``poll_interval`` polling as the fallback; for a moment after every
    change the file is also polled every few ms. By default the idle poll is
    ``EVENTS_POLL`` while events arrive and ``IDLE_POLL`` when polling is all
    there is, so that an append after a pause is seen within ``IDLE_POLL``.

    An update that would carry nothing (only a partial line grew) is not sent.
    Close the generator (``aclose``, or cancel the task iterating it) to stop;
    that also stops its watcher thread.

    With ``parse=False`` updates carry their lines in ``raw`` instead of
    ``envelopes``, for a reader that parses each line as it applies it.

    ``settle``: asked once all is read, whether the file's writer is known gone; then a
    held-back last line that is whole is read as its format's whole read reads it
    (``TailReader.settle``). While the writer may still be at work it is held back.
    """
    where = os.path.abspath(path_of(path))  # (bytes: the file's name)
    loop = asyncio.get_running_loop()
    tail = TailReader(where, parse)
    wake = asyncio.Event()
    watcher: Watcher | None = None
    if not force_polling:
        watcher = Watcher(os.path.dirname(where), os.path.basename(where), loop, wake)
    hot_until = 0.0
    try:
        first = True
        caught_up = True
        # As the reader last heard them (from an update sent): the held-back partial line's
        # number (a new one is news, said once: a long line is read in many batches) and
        # whether all was read (a batch it heard was not all: it hears when all is).
        held_line = 0
        heard_caught_up = True
        while True:
            wake.clear()  # before reading: a change from now on wakes the wait below
            limit = None if (first and not initial_batches) else batch_bytes
            update = tail.step(limit)
            if update is None and caught_up and not first and settle is not None and settle():
                update = tail.settle()
            if update is not None:
                hot_until = loop.time() + HOT_SECONDS
                if update.initial and not initial_batches:
                    update = _drain(tail, update)
                # A torn line begun (or gone) is said once all is read: a long one's
                # batches read before then carry nothing else.
                send = (
                    first
                    or not update.is_empty()
                    or (update.caught_up and (not heard_caught_up or update.held_line != held_line))
                )
                first = False
                caught_up = update.caught_up
                if send:
                    held_line, heard_caught_up = update.held_line, update.caught_up
                    yield update
                del update  # its lines view a block to be read into again (``_read_block``)
                if not caught_up:
                    await asyncio.sleep(0)  # bounded work per wake-up
                    continue
            if watcher is not None and not watcher.alive:
                watcher.close()  # no events to be had: poll
                watcher = None
            idle = poll_interval
            if idle is None:
                idle = EVENTS_POLL if watcher is not None else IDLE_POLL
            timeout = HOT_POLL if loop.time() < hot_until else idle
            try:
                async with asyncio.timeout(timeout):
                    await wake.wait()
            except TimeoutError:
                pass
    finally:
        if watcher is not None:
            watcher.close()
        tail.close()


def _drain(tail: TailReader, update: FollowUpdate) -> FollowUpdate:
    """Complete the first update of a file (or of a reset): it carries all of it."""
    while not update.caught_up:
        more = tail.step(None)
        if more is None:
            break
        if more.initial:
            # Replaced, truncated or gone again while we read: start over with that.
            more.warnings[:0] = update.warnings
            more.reset = more.reset or update.reset
            update = more
            continue
        update.envelopes.extend(more.envelopes)
        update.raw.extend(more.raw)
        update.lines.extend(more.lines)
        update.spans.extend(more.spans)
        update.source = more.source
        update.held, update.held_line = more.held, more.held_line
        # (what it withdraws was said in this update, or before it: taken out, or passed on)
        update.withdrawn.extend(w for w in more.withdrawn if w not in update.warnings)
        more.withdraw_from(update.warnings)
        update.warnings.extend(more.warnings)
        update.offset, update.size = more.offset, more.size
        update.problem, update.growing = more.problem, more.growing  # (as it stands now)
        update.caught_up = more.caught_up
        update.format = more.format or update.format
    return update
