"""What every file screen shares: following the file, and knowing whether its writer is alive."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import threading
import time
from collections.abc import Iterable
from typing import Any

from textual import work
from textual.app import SystemCommand
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from session_core import gc_pause
from session_core.following import FollowUpdate, follow
from session_core.writers import writer_holds_lock

from ..safe import inert_text

LIVE_WINDOW = 30.0  # seconds since the last change for a file to count as live
PROGRESS_EVERY = 0.25  # seconds between redraws of a big file's loading progress


class _GcHold:
    """One worker's pause of the cyclic collector (``gc_pause``) while it loads a file.

    When the load ends, what it kept is frozen: it lives as long as the file is
    shown, and later collections need not rescan it.
    """

    def __init__(self) -> None:
        self.held = False

    def set(self, hold: bool) -> None:
        if hold == self.held:
            return
        self.held = hold
        if hold:
            gc_pause.hold()
        else:
            gc.freeze()
            gc_pause.release()


class FollowingScreen(Screen[None]):
    """A screen over one file: read, parsed and replayed in a worker thread, in bounded
    batches; the UI thread only draws what each batch changed."""

    class FormatChanged(Message):
        """The followed file is (or became) another format than this screen shows."""

        def __init__(self, screen: FollowingScreen, format: str) -> None:
            super().__init__()
            self.following = screen
            self.format = format

    def __init__(self, path: str | os.PathLike[str], *, force_polling: bool, id: str) -> None:
        super().__init__(id=id)
        self.path = os.fspath(path)
        self.force_polling = force_polling
        self.last_change = 0.0
        self._saw_lock = False
        self._live_at = -1.0
        self._live_cached = False
        self._loaded = False
        self._swapping = False
        self._was_live = False  # what the panes were last drawn for
        # Held by the worker while it replays and by the UI thread while it reads the result.
        self.state_lock = threading.Lock()
        # A big file shows its end first (a preview) while the worker loads all of it.
        self._previewing = False
        self._progress = (0, 0)  # bytes loaded, of the file's size
        self._progress_drawn = 0.0

    @work(thread=True, exclusive=True, group="follow")
    def follow_file(self) -> None:
        worker = get_current_worker()
        loading = _GcHold()

        async def pump() -> None:
            updates = follow(
                self.path,
                force_polling=self.force_polling,
                initial_batches=True,
                parse=self.PARSED_UPDATES,
            )
            reader = asyncio.ensure_future(anext(updates))
            try:
                while not worker.is_cancelled:
                    done, _ = await asyncio.wait({reader}, timeout=0.1)
                    if not done:
                        continue
                    update = reader.result()
                    if not update.caught_up:
                        loading.set(True)
                    if not self._replay(update):
                        return
                    self.app.call_from_thread(self._receive, update)
                    if update.caught_up:  # drawn too: the load is over
                        loading.set(False)
                    reader = asyncio.ensure_future(anext(updates))
            finally:
                reader.cancel()
                with contextlib.suppress(BaseException):
                    await reader
                await updates.aclose()

        try:
            with contextlib.suppress(RuntimeError):  # the app closed under us
                asyncio.run(pump())
        finally:
            loading.set(False)

    def _replay(self, update: FollowUpdate) -> bool:
        """In the worker: replay the update into ``self.live``; False when the file is
        the other format (then the UI thread swaps screens and this worker stops)."""
        if update.format is not None and update.format != self.FORMAT:
            self.app.call_from_thread(self._swap, update.format)
            return False
        with self.state_lock:
            self.live.apply(update)
        return True

    def _swap(self, fmt: str) -> None:
        if self._swapping or not self.is_attached:
            return
        self._swapping = True
        self.workers.cancel_group(self, "follow")
        self.post_message(self.FormatChanged(self, fmt))  # the app swaps the screen

    def _receive(self, update: FollowUpdate) -> None:
        """On the UI thread: show what the worker replayed (the state is not changing now)."""
        if self._swapping or not self.is_attached:
            return
        self.last_change = time.monotonic()
        if update.reset:
            self.forget_writer()
        with self.state_lock:
            self._apply_update(update)

    FORMAT = ""
    PARSED_UPDATES = True  # False: ``live.apply`` parses the lines (``follow(parse=False)``)
    live: Any  # the replayed file: LiveTranscript or LiveAgentGo (set by the subclass)

    def _apply_update(self, update: FollowUpdate) -> None:
        """Bring the panes up to date with ``self.live`` after ``update`` was replayed."""
        raise NotImplementedError

    def _still_previewing(self, update: FollowUpdate) -> bool:
        """While a big file's preview stands and its whole load goes on: note the progress
        (drawn a few times a second, not per batch: each redraw is time the load waits) and
        say True. The load's last batch ends the preview, to be shown as a first load."""
        self._progress = (update.offset, update.size)
        if not self._previewing:
            return False
        if not update.caught_up:
            now = time.monotonic()
            if now - self._progress_drawn >= PROGRESS_EVERY:
                self._progress_drawn = now
                self._refresh_status()
            return True
        self._previewing = False
        self._loaded = False
        return False

    def _refresh_status(self) -> None:
        """Redraw the header (and the problem banner)."""
        raise NotImplementedError

    def _liveness_changed(self, live: bool) -> None:
        """The writer died or came back: redraw what says "running" or "interrupted"."""
        raise NotImplementedError

    def _tick(self) -> None:
        """Once a second (the subclass sets the interval): the header, and the panes when
        the writer's liveness changed since they were drawn."""
        live = self._is_live()
        if live != self._was_live:
            self._was_live = live
            self._liveness_changed(live)
        self._refresh_status()

    def commands(self) -> Iterable[SystemCommand]:
        """Every action of this screen, for the command palette."""
        raise NotImplementedError

    def live_label(self) -> str:
        """What the header says of the writer: gone (no file), live or idle."""
        if not self.live.exists:
            return "gone"
        return "live" if self._is_live() else "idle"

    def missing_message(self) -> str:
        """The banner while the file is not there (any more)."""
        return f"{self.path} does not exist (any more); waiting for it to appear."

    def show_problem(self, message: str | None) -> None:
        """The problem banner under the header: shown with ``message`` (inert), or hidden."""
        problem = self.query_one("#problem", Static)
        problem.display = message is not None
        if message is not None:
            problem.update(inert_text(message))

    def forget_writer(self) -> None:
        """A new file (a reset): whether its writer locks is not known yet."""
        self._saw_lock = False
        self._live_at = -1.0

    def _is_live(self) -> bool:
        """A writer holds the file's lock, or (for writers that do not lock) it changed lately.

        Asked on every update; /proc/locks is read at most twice a second.
        """
        now = time.monotonic()
        if now - self._live_at < 0.5:
            return self._live_cached
        self._live_at = now
        self._live_cached = self._check_live()
        return self._live_cached

    def _check_live(self) -> bool:
        held = writer_holds_lock(self.path)
        if held:
            self._saw_lock = True
            return True
        if self._saw_lock:
            return False  # the writer that held the lock is gone, however fresh the file
        try:
            mtime = os.stat(self.path).st_mtime
        except OSError:
            return False
        return time.time() - mtime < LIVE_WINDOW
