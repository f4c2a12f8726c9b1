"""``LinkedLive``: a followed file's snapshots with what other files add to them (a
session's subagents), linked without reading those files on every snapshot."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from .formats.base import LiveModel, TranscriptFormat
from .model import Transcript

if TYPE_CHECKING:
    from .follow_update import FollowUpdate


class LinkedLive(LiveModel):
    """A live model whose snapshots carry what other files add to them (a session's
    subagents): linked once the file has caught up, then again at most every ``REFRESH``
    seconds; between, the last links are put on each snapshot as they were. While the
    file loads, its snapshots are its own alone (linking reads other files)."""

    REFRESH = 2.0

    def __init__(self, fmt: TranscriptFormat, path: str) -> None:
        super().__init__(fmt, path)
        self.caught_up = False
        self._again: Callable[[Transcript], None] | None = None
        self._linked_at = -math.inf  # never (monotonic starts near 0 at boot)
        self._read_ahead = False  # the linked files read ahead, since the last reset
        self._relinked = True  # the last snapshot linked afresh (not the links before)

    def link(self, transcript: Transcript) -> Callable[[Transcript], None]:
        """Link ``transcript`` (the format's own rules); how to link a later snapshot the
        same way without reading anything."""
        raise NotImplementedError

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
            self._again = self.link(transcript)
            self._linked_at = now
            self._relinked = True
        else:
            self._again(transcript)
            self._relinked = False
        return transcript

    def whole_transcript(self, writer_alive: bool | None = None) -> Transcript:
        self._again = None  # (linked afresh, not as a moment ago: a row is kept as it is)
        return self.transcript(writer_alive)

    def snapshot_due(self) -> bool:
        """The last snapshot put on the links of one before it (a Task call it holds may
        name a subagent they do not), and they may be linked again now: a file that went
        quiet within ``REFRESH`` of the last link would keep them for good."""
        return not self._relinked and time.monotonic() - self._linked_at >= self.REFRESH


__all__ = ["LinkedLive"]
