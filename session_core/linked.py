"""``LinkedLive``: a followed file's snapshots with what other files add to them (a
session's subagents), linked without reading those files on every snapshot."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from .formats.base import LiveModel, TranscriptFormat
from .model import Transcript

if TYPE_CHECKING:
    from .follow_update import FollowUpdate

FileKey = tuple[int, int]  # a file's or folder's (size, mtime) when looked at
# A folder changed within this long of a look may change again with the same mtime (a
# folder's mtime is coarse, its size the same for one more entry): looked at as changed.
_SETTLED_NS = 1_000_000_000


def file_key(path: str) -> FileKey | None:
    """``path``'s (size, mtime) now; None where it is not there."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_size, found.st_mtime_ns)


def _settled(key: FileKey | None) -> FileKey | None:
    """A folder's key as a later look compares it: one that changed a moment ago as no
    key it can have (the next look sees it changed, and its files are listed again)."""
    if key is not None and time.time_ns() - key[1] < _SETTLED_NS:
        return (key[0], -1)
    return key


class LinkedLive(LiveModel):
    """A live model whose snapshots carry what other files add to them (a session's
    subagents): linked once the file has caught up, then again at most every ``REFRESH``
    seconds; between, the last links are put on each snapshot as they were. While the
    file loads, its snapshots are its own alone (linking reads other files). The files
    a link read, and the folders where the files it links appear, are looked at (a
    stat each, at most every ``REFRESH``) while the file is quiet: one of them changed
    makes a snapshot due (``snapshot_due``), since a session waiting on its subagent
    writes nothing while the subagent works."""

    REFRESH = 2.0

    def __init__(self, fmt: TranscriptFormat, path: str) -> None:
        super().__init__(fmt, path)
        self.caught_up = False
        self._again: Callable[[Transcript], None] | None = None
        self._linked_at = -math.inf  # never (monotonic starts near 0 at boot)
        self._read_ahead = False  # the linked files read ahead, since the last reset
        self._relinked = True  # the last snapshot linked afresh (not the links before)
        # What the last link read or listed, as it was then (``linked_folders``,
        # ``read_key``); when they were last looked at for a change
        self._watched: dict[str, FileKey | None] = {}
        self._looked_at = -math.inf

    def link(self, transcript: Transcript) -> Callable[[Transcript], None]:
        """Link ``transcript`` (the format's own rules); how to link a later snapshot the
        same way without reading anything."""
        raise NotImplementedError

    def linked_folders(self) -> tuple[str, ...]:
        """The folders a file the link would link appears in (a new one changes them)."""
        return ()

    def read_key(self, path: str) -> FileKey | None:
        """The (size, mtime) at which the last link read the linked file at ``path``;
        None where it did not read it."""
        return None

    def read_linked(self, lock: AbstractContextManager[Any]) -> None:
        """Read the files the first link would read into the format's cache, outside
        ``lock`` (taken only to look at the model); what cannot be read is the link's
        to say."""

    def read_ahead(self, update: FollowUpdate, lock: AbstractContextManager[Any]) -> None:
        """Once caught up, before the first link: the linked files read here
        (``read_linked``), so that the link, on the UI thread, finds them read (a 1 GB
        Claude Code session's 1,854 subagent files took it 0.8 s); then the first
        snapshot, as every model."""
        if update.reset:
            self._read_ahead = False
        if self.caught_up and self._again is None and not self._read_ahead:
            self._read_ahead = True
            self.read_linked(lock)
        super().read_ahead(update, lock)

    def apply(self, update: FollowUpdate) -> bool:
        reset = super().apply(update)
        if reset:
            self._again = None
        self.caught_up = self.caught_up or update.caught_up
        return reset

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        transcript = self.builder.transcript(writer_alive)
        if not self.caught_up:
            return transcript
        now = time.monotonic()
        if self._again is None or now - self._linked_at >= self.REFRESH:
            # (the folders as they were before the link listed them: a file that comes
            # during it is a change the next look sees)
            watched = {folder: _settled(file_key(folder)) for folder in self.linked_folders()}
            self._again = self.link(transcript)
            for sub in transcript.subagents:  # (one not read, over a bound: not looked at)
                key = self.read_key(sub.path) if sub.path is not None and sub.read else None
                if sub.path is not None and key is not None:
                    watched[sub.path] = key
            self._watched = watched
            self._linked_at = self._looked_at = now
            self._relinked = True
        else:
            self._again(transcript)
            self._relinked = False
        return transcript

    def whole_transcript(self, writer_alive: bool | None = None) -> Transcript:
        self._again = None  # (linked afresh, not as a moment ago: a row is kept as it is)
        return self.transcript(writer_alive)

    def snapshot_due(self) -> bool:
        """The links may be made again now (``REFRESH`` since the last), and either the
        last snapshot put on the links of one before it (a Task call it holds may name a
        subagent they do not: a file that went quiet within ``REFRESH`` of the last link
        would keep them for good), or a file or folder the last link looked at changed
        since (a subagent's file came or grew while the session's own is quiet). Those
        are looked at (a stat each, nothing read) at most every ``REFRESH``."""
        now = time.monotonic()
        if now - self._linked_at < self.REFRESH:
            return False
        if not self._relinked:
            return True
        if now - self._looked_at < self.REFRESH:
            return False
        self._looked_at = now
        return any(file_key(path) != key for path, key in self._watched.items())


__all__ = ["FileKey", "LinkedLive", "file_key"]
