"""Browser rows of files being written, kept up to date from what is appended.

``LiveRows.summary(path, previous)`` answers as ``scan_file`` would, without reading a
file again from its start on every change:

* a file whose size, time and inode are those of ``previous`` (the row shown) is not
  read at all: only its status is told again (locks, time: ``settle_status``);
* a live row's file is followed (``following``'s tail: one inode, one offset) and what
  was appended is fed to the row's fold (``TranscriptFormat.row_fold``: a model
  format's live model, v1's live replay, agentgo's strict tally), the row made from it;
* anything else is read whole by ``scan_file``, as a fresh scan does: a file rewritten
  or truncated (its follow starts again), one not yet live, over ``BUDGET`` (its head
  and tail window), compressed, ending in an unfinished line, or one its fold cannot
  tell (damage: what a fresh read says of it is the row).

A fold is kept only while its row is live, for at most ``MAX_KEPT`` rows at once
(memory and open files stay bounded by the files being written), and dropped with its
open file once the row is not.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
from typing import TYPE_CHECKING, Protocol

from .compressed import is_compressed_file
from .errors import TranscriptError
from .following import MAX_BATCH_BYTES
from .formats import by_name
from .formats.base import IDLE_SECONDS
from .scan import BUDGET, FileSummary, LockTable, scan_file, settle_status
from .tail_reader import TailReader

# Live rows followed at once, at most (a folder touched whole, by rsync or a checkout,
# made every row live: 600 followed rows ran out of descriptors); the others are read
# whole at each change, as a scan reads them.
MAX_KEPT = 32

if TYPE_CHECKING:
    from .follow_update import FollowUpdate
    from .formats.base import LiveModel, TranscriptFormat


class RowFold(Protocol):
    """What a format keeps of a live row's file: its complete lines, as they come."""

    def apply(self, update: FollowUpdate) -> None:
        """Take one update's complete lines (raw, as ``follow(parse=False)`` hands them)."""

    def fill(self, summary: FileSummary) -> None:
        """The row's counts as a whole read of the lines taken would give them;
        ``TranscriptError`` where it cannot tell (the row is read whole instead)."""


class ModelFold:
    """A model format's row: its live model (the viewer's), summarised as a whole read's."""

    def __init__(self, fmt: TranscriptFormat, path: str) -> None:
        self.format = fmt
        self.live: LiveModel = fmt.live(path)

    def apply(self, update: FollowUpdate) -> None:
        self.live.apply(update)

    def fill(self, summary: FileSummary) -> None:
        from .scan_model import summarise_model

        fmt = self.format
        transcript = self.live.whole_transcript(fmt.writer_alive(summary.path))
        # (work read running: how the same lines read once the writer is gone)
        gone = functools.partial(self.live.builder.transcript, False)
        summarise_model(summary, transcript, running_total=fmt.running_total, gone=gone)


class V1Fold:
    """A v1 row: the live replay (``LiveTranscript``) of its lines, summarised as a whole
    replay's. A line it did not apply is damage or a crash tail: a whole read tells."""

    def __init__(self, path: str) -> None:
        from .live import LiveTranscript

        self.replay = LiveTranscript(path)

    def apply(self, update: FollowUpdate) -> None:
        self.replay.apply(update)

    def fill(self, summary: FileSummary) -> None:
        from .scan_v1 import v1_replayed

        state = self.replay.state
        if state.warnings or not state.event_lines:
            raise TranscriptError("a line the live replay did not apply")
        v1_replayed(summary, state)


class AgentGoFold:
    """An agentgo row: the strict reader's rules and tally (``scan_agentgo.AgentGoRow``)."""

    def __init__(self, path: str) -> None:
        from .scan_agentgo import AgentGoRow

        self.row = AgentGoRow(path)

    def apply(self, update: FollowUpdate) -> None:
        for raw, number in zip(update.raw, update.lines, strict=True):
            self.row.take(bytes(raw), number)

    def fill(self, summary: FileSummary) -> None:
        self.row.fill(summary)


class _Kept:
    """One live row's follow: the file's tail and the fold fed from it."""

    def __init__(self, fmt: TranscriptFormat, fold: RowFold, path: str) -> None:
        self.format = fmt
        self.fold = fold
        self.tail = TailReader(path, parse=fmt.parsed_updates)

    def advance(self) -> bool:
        """Feed what was appended; False when the file cannot be followed on (rewritten,
        truncated, gone, unreadable, another format)."""
        while True:
            update = self.tail.step(MAX_BATCH_BYTES)
            if update is None:
                return True
            if update.reset or update.warnings or not update.exists:
                return False
            if update.initial and update.format != self.format.name:
                return False
            self.fold.apply(update)
            if update.caught_up:
                return True

    def whole_lines(self) -> bool:
        """Every byte read ends a line (no unfinished last line held back)."""
        return self.tail.offset == self.tail.complete

    def close(self) -> None:
        self.tail.close()
        source = self.tail.source
        if source is not None:
            source.close()


class LiveRows:
    """The browser's rows brought up to date (``summary``); thread-safe."""

    def __init__(self, live_window: float = IDLE_SECONDS, budget: int = BUDGET) -> None:
        self.live_window = live_window
        self.budget = budget
        self._kept: dict[str, _Kept] = {}
        # Files whose fold could not tell their row (damage, a line it did not apply): read
        # whole at each change, not followed again while the path holds that file (path:
        # its device, inode and the bytes read). Appends leave the lines refused in it;
        # another file at the path, or one cut shorter, may not hold them: let go then,
        # as when the path is gone (``_refusal``).
        self._refused: dict[str, tuple[int, int, int]] = {}
        self._lock = threading.Lock()

    def summary(
        self,
        path: str,
        previous: FileSummary | None = None,
        *,
        locks: LockTable | None = None,
        now: float | None = None,
        linked_changed: bool = False,
    ) -> FileSummary:
        """``path``'s row now (``previous``: the row shown for it, if any;
        ``linked_changed``: a file of its session changed, a subagent's, so the row is
        made again though its own file did not). Never raises."""
        with self._lock:
            return self._summary(path, previous, locks, now, linked_changed)

    def kept(self) -> list[str]:
        """The files followed now (their rows live)."""
        with self._lock:
            return sorted(self._kept)

    def drop(self, path: str) -> None:
        """``path``'s row is gone (its file removed): its follow and refusal let go."""
        with self._lock:
            self._drop(path)
            self._refused.pop(path, None)

    def clear(self) -> None:
        with self._lock:
            for path in list(self._kept):
                self._drop(path)
            self._refused.clear()

    def _summary(
        self,
        path: str,
        previous: FileSummary | None,
        locks: LockTable | None,
        now: float | None,
        linked_changed: bool = False,
    ) -> FileSummary:
        try:
            st = os.stat(path)
        except OSError:
            self._drop(path)
            self._refused.pop(path, None)
            return self._scanned(path, locks, now)
        self._refusal(path, st)
        if (
            previous is not None
            and previous.counts_known
            and not linked_changed
            and _unchanged(previous, st)
        ):
            # (a row read: one that could not be, damaged or unreadable, is read again)
            row = settle_status(
                dataclasses.replace(previous), live_window=self.live_window, locks=locks, now=now
            )
            if row.status != "live":  # (gone quiet: its fold is let go)
                self._drop(path)
            return row
        kept = self._kept.get(path)
        if kept is None:
            kept = self._keep(path, previous, st)
            if kept is None:
                return self._scanned(path, locks, now)
        folded = self._folded(path, kept, st)
        if folded is None:
            return self._scanned(path, locks, now)
        row = settle_status(folded, live_window=self.live_window, locks=locks, now=now)
        if row.status != "live":
            self._drop(path)
        return row

    def _keep(self, path: str, previous: FileSummary | None, st: os.stat_result) -> _Kept | None:
        """A follow for a row shown that is read as a transcript (its format known), else
        None. Its first advance reads the file once from its start."""
        if previous is None or previous.format is None or not previous.counts_known:
            return None
        if st.st_size > self.budget or is_compressed_file(path):
            return None
        if path in self._refused:
            return None
        if len(self._kept) >= MAX_KEPT:  # (each holds its model and two descriptors)
            return None
        fmt = by_name(previous.format)
        fold = fmt.row_fold(path)
        if fold is None:
            return None
        kept = self._kept[path] = _Kept(fmt, fold, path)
        return kept

    def _folded(self, path: str, kept: _Kept, st: os.stat_result) -> FileSummary | None:
        """The row from its fold, brought up to date; None: read it whole."""
        try:
            if not kept.advance() or kept.tail.offset > self.budget:
                self._drop(path)
                return None
            if not kept.whole_lines():  # (a writer mid-line: a whole read says it so)
                return None
            row = FileSummary(path=path, rel=os.path.basename(path))
            # (the stat taken before the read: were more written since, the next look
            # sees a time that differs and takes it)
            row.size, row.mtime = kept.tail.offset, st.st_mtime
            assert kept.tail.ino is not None
            row.device, row.inode = kept.tail.ino
            row.format = kept.format.name
            kept.fold.fill(row)
        except (TranscriptError, OSError):
            device, inode = kept.tail.ino or (st.st_dev, st.st_ino)
            self._refused[path] = (device, inode, kept.tail.offset)
            self._drop(path)
            return None
        return row

    def _refusal(self, path: str, st: os.stat_result) -> None:
        """Let go of ``path``'s refusal once the file there is not the one refused: another
        inode (replaced), or fewer bytes than were read (truncated)."""
        refused = self._refused.get(path)
        if refused is None:
            return
        device, inode, read = refused
        if (device, inode) != (st.st_dev, st.st_ino) or st.st_size < read:
            del self._refused[path]

    def _scanned(self, path: str, locks: LockTable | None, now: float | None) -> FileSummary:
        return scan_file(path, live_window=self.live_window, locks=locks, now=now)

    def _drop(self, path: str) -> None:
        kept = self._kept.pop(path, None)
        if kept is not None:
            kept.close()


def _unchanged(row: FileSummary, st: os.stat_result) -> bool:
    """The file is as the row read it: its size, time and inode."""
    return (row.size, row.mtime, row.device, row.inode) == (
        st.st_size,
        st.st_mtime,
        st.st_dev,
        st.st_ino,
    )


__all__ = ["AgentGoFold", "LiveRows", "ModelFold", "RowFold", "V1Fold"]
