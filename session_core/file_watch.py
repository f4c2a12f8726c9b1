"""The wake-ups ``follow`` waits on: a watchfiles watcher on one directory, in a thread
of its own, setting an asyncio event when the followed file (or its repair or compressed
copy) changes."""

from __future__ import annotations

import asyncio
import os
import threading

WATCH_DEBOUNCE_MS = 10  # watchfiles: the longest a burst of events is grouped
WATCH_STEP_MS = 2  # watchfiles: quiet time that ends a group (and its idle wake-up period)


class Watcher:
    """A watchfiles watcher on one directory, in a thread of its own, setting ``wake``.

    Its own thread (not anyio's worker pool) so that closing it leaves no
    thread behind. The thread ends by itself when events are unavailable
    (no inotify, a missing directory); ``alive`` then turns False.
    """

    def __init__(
        self, directory: str, name: str, loop: asyncio.AbstractEventLoop, wake: asyncio.Event
    ) -> None:
        self._loop = loop
        self._wake = wake
        self._stop = threading.Event()
        self._targets = frozenset((name, name + ".repair", name + ".zst"))
        self._thread = threading.Thread(
            target=self._run, args=(directory,), name=f"tailscope-follow:{name}", daemon=True
        )
        self._thread.start()

    def _run(self, directory: str) -> None:
        targets = self._targets

        def ours(_change: object, changed: str) -> bool:
            return os.path.basename(changed) in targets

        try:
            from watchfiles import watch

            for _changes in watch(
                directory,
                watch_filter=ours,
                debounce=WATCH_DEBOUNCE_MS,
                step=WATCH_STEP_MS,
                stop_event=self._stop,
                rust_timeout=0,
                yield_on_timeout=False,
                raise_interrupt=False,
                recursive=False,
            ):
                self._poke()
        except Exception:
            pass  # no events to be had: the follower polls instead
        finally:
            self._poke()

    def _poke(self) -> None:
        if self._stop.is_set():
            return
        try:
            self._loop.call_soon_threadsafe(self._wake.set)
        except RuntimeError:  # the loop is closed
            self._stop.set()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def close(self) -> None:
        """Stop the thread and wait for it (a few ms: watchfiles checks every step)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)


__all__ = ["WATCH_DEBOUNCE_MS", "WATCH_STEP_MS", "Watcher"]
