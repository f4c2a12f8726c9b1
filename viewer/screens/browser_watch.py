"""The browser's live updates: every folder below it watched (watchfiles), the files
that change summarised again, and what the watch cannot do said (a folder it may not
read, a name that is not UTF-8, no watch at all)."""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from session_core.compressed import packed_twin
from session_core.scan import list_transcript_paths, listed_name, part_of_another, readable_folders
from session_core.text import count

from ..safe import fit_path, one_line

if TYPE_CHECKING:
    from session_core.scan import FileSummary

    from .browser_folders import KnownFolders


class DirectoryWatch(Screen[None]):
    """The browser screen's watch of its folders (``BrowserScreen`` is one: this posts
    its ``Changed`` and says what the watch cannot do in notices)."""

    # The browser's, which the watch reads.
    bases: list[str]
    known_folders: KnownFolders
    recursive: bool
    force_polling: bool
    rows: dict[str, FileSummary]
    # A folder that could not be read can be now (the browser's recheck): a watch of
    # folders one by one begins again, that one among them.
    _folders_again = False
    # A scan runs (the browser's, from its start to its last rows): a catch-up waits for
    # its end, to compare with its rows (else each file it has not read yet is read twice).
    scan_running = False
    _catch_up_after_scan = False

    def _summarise(self, path: str) -> FileSummary:
        """A file's row, read whole (the browser's)."""
        raise NotImplementedError

    def _resummarise(self, path: str, *, linked_changed: bool = False) -> FileSummary:
        """A file's row again, after a change (the browser's: a live one brought up to
        date from what was appended; ``linked_changed``: a file of its session did)."""
        raise NotImplementedError

    def _sessions_of(self, part: str) -> list[str]:
        """The rows a file that is part of a session changes (the browser's)."""
        raise NotImplementedError

    def _rel(self, path: str) -> str:
        """A file's name as its row shows it (the browser's)."""
        raise NotImplementedError

    @dataclass
    class Changed(Message):
        """Files that changed (the watcher saw them, or a recheck): fresh summaries, and
        paths that are gone."""

        rows: list[FileSummary]
        gone: list[str]

    @dataclass
    class WatchFailed(Message):
        """The watcher stopped: why."""

        why: str

    @dataclass
    class WatchRestarted(Message):
        """A change the watcher could not hand on (a file name that is not UTF-8): it
        watches again, such files not followed live. ``paths``: the listed files whose
        names are not UTF-8 (watchfiles' error spells the name its own way: not shown)."""

        paths: list[str]

    class WatchResumed(Message):
        """A watch begun (or begun again) is on: what came or went before it was, once
        its scan had listed, is to be looked for."""

    @dataclass
    class WatchNarrowed(Message):
        """Some folders cannot be watched (nor read): the others are, one by one."""

        why: str
        skipped: list[str]

    @work(thread=True, exclusive=True, group="watch", description="watch")
    def watch_directory(self) -> None:
        """Re-summarise only the files watchfiles reports; new files appear, gone ones leave.

        A recursive watch fails whole on one folder it may not read: then each folder
        that can be read is watched on its own (again, with a new one, when one appears),
        and the browser says which could not be."""
        worker = get_current_worker()
        folders: list[str] | None = None  # None: the bases, watched recursively
        last_restart = -math.inf
        try:
            while not worker.is_cancelled:
                try:
                    if not self._watch(worker, folders):
                        return
                except Exception as err:
                    if _undecodable(err):
                        # watchfiles gives up on a name that is not UTF-8: watch again
                        # (the others followed on), at most every RESTART_EVERY seconds
                        if time.monotonic() - last_restart < RESTART_EVERY:
                            time.sleep(RESTART_EVERY)
                        elif last_restart == -math.inf:
                            self.post_message(self.WatchRestarted(self._undecodable_paths()))
                        last_restart = time.monotonic()
                        continue
                    if folders is not None or not self.recursive or not _unreadable(err):
                        raise
                    folders, skipped = readable_folders(self.bases)
                    self.known_folders.add(folders)
                    self.post_message(self.WatchNarrowed(str(err), skipped))
                else:
                    folders, _skipped = readable_folders(self.bases)  # one more came
                    self.known_folders.add(folders)  # (and any made in it before its watch)
        except Exception as err:  # no inotify, too many watches...: say so, keep browsing
            if not worker.is_cancelled:
                self.post_message(self.WatchFailed(str(err)))

    def _watch(self, worker: Any, folders: list[str] | None) -> bool:
        """Watch until cancelled (False), or, watching ``folders`` one by one, until a new
        folder appears (True: watch again, that one too). Once the watch is on, the files
        that came, changed or went while none was are looked for (``WatchResumed``): made
        after the scan listed their folder and before this watch began, they sent no
        event it heard (nor any of a new folder's, made before its watch began)."""
        from watchfiles import Change, watch

        catch_up = True

        for changes in watch(
            *(folders if folders is not None else self.bases),
            watch_filter=lambda _change, path: (
                listed_name(os.path.basename(path)) or os.path.isdir(path)
            ),
            debounce=200,
            step=50,
            rust_timeout=250,
            yield_on_timeout=True,
            raise_interrupt=False,
            recursive=self.recursive and folders is None,
            force_polling=self.force_polling,
            poll_delay_ms=500,
        ):
            if worker.is_cancelled:
                return False
            if self._folders_again and folders is not None:
                self._folders_again = False
                return True
            if catch_up:  # (the first yield comes once the watcher is on)
                catch_up = False
                self.post_message(self.WatchResumed())
            if not changes:
                continue
            fresh: list[FileSummary] = []
            gone: list[str] = []
            sessions: set[str] = set()  # rows a subagent's file changed, made once each
            twins: set[str] = set()  # the other names of files gone (compressed, unpacked)
            new_folder = False
            for change, path in sorted(changes, key=lambda x: x[1]):
                if change == Change.deleted and not os.path.exists(path):
                    gone.append(os.path.abspath(path))
                    twin = packed_twin(path)
                    if twin is not None:
                        twins.add(os.path.abspath(twin))
                elif os.path.isdir(path):
                    # a new directory: files written before its watch began sent no event
                    if change == Change.added:
                        listed: list[str] = []
                        inside, _ = list_transcript_paths(path, self.recursive, folders=listed)
                        self.known_folders.add(listed)  # (said unreadable, if it comes to that)
                        fresh.extend(self._summarise(p) for p in inside)
                        new_folder = True
                elif os.path.isfile(path) and part_of_another(path):
                    sessions.update(self._sessions_of(path))
                elif os.path.isfile(path):
                    fresh.append(self._resummarise(path))
            made = {row.path for row in fresh}
            fresh.extend(self._resummarise(p, linked_changed=True) for p in sorted(sessions - made))
            # a file's row goes on from its other name (its event came before, when the
            # file it is a copy of was there: no row then)
            made.update(row.path for row in fresh)
            for twin in sorted(twins - made):
                if os.path.isfile(twin) and not part_of_another(twin):
                    fresh.append(self._resummarise(twin))
            self.post_message(self.Changed(fresh, gone))
            if new_folder and folders is not None and self.recursive:
                return True
        return False

    @on(WatchNarrowed)
    def _watch_narrowed(self, message: WatchNarrowed) -> None:
        # (each as its row names it, cut from the left as the rows cut it: its name kept)
        skipped = ", ".join(fit_path(self._rel(path), 40) for path in message.skipped[:3])
        more = len(message.skipped) - 3
        # (every root among them: no other folder is watched, nor read)
        none = all(base in message.skipped for base in self.bases)
        them = "it" if len(message.skipped) == 1 else "they"
        then = f"once {them} can be read again" if none else "from the others"
        self.notify(
            f"{count(len(message.skipped), 'folder')} cannot be watched ({skipped}"
            f"{f', {more} more' if more > 0 else ''}): live updates come {then}.",
            severity="warning",
            timeout=8,
        )

    def _undecodable_paths(self) -> list[str]:
        """The listed files whose names are not UTF-8: the ones the watcher cannot
        follow (found by listing, not read back from its error's spelling)."""
        found: list[str] = []
        for base in self.bases:
            paths, _unlisted = list_transcript_paths(base, self.recursive)
            found.extend(os.path.abspath(path) for path in paths if not _utf8(path))
        return found

    @on(WatchRestarted)
    def _watch_restarted(self, message: WatchRestarted) -> None:
        # (within 80 columns: one name, cut from the left as the rows cut it)
        more = len(message.paths) - 1
        if not message.paths:
            said = "A file name is not UTF-8: not followed live"
        else:
            said = "Not followed live (name not UTF-8): "
            said += fit_path(self._rel(message.paths[0]), 20 if more else 30)
            said += f", {more:,} more" if more else ""
        self.notify(f"{said}. r rescans.", severity="warning", timeout=8)

    @on(WatchResumed)
    def _watch_resumed(self) -> None:
        if self.scan_running:  # (once it ends: ``scan_ended``)
            self._catch_up_after_scan = True
            return
        rows = self.rows.items()
        shut = tuple(path for path, row in rows if row.is_folder)
        self._catch_up({path: (row.size, row.mtime) for path, row in rows}, shut)

    def scan_ended(self) -> None:
        """The browser's scan sent its last rows: a catch-up that waited for them now."""
        self.scan_running = False
        if self._catch_up_after_scan:
            self._catch_up_after_scan = False
            self._watch_resumed()

    @work(thread=True, exclusive=True, group="catch-up", description="catch-up")
    def _catch_up(self, known: dict[str, tuple[int, float]], shut: tuple[str, ...]) -> None:
        """The files that came, changed (their size or time: the watcher's batch that
        failed held them too) or went while no watch was on; the others not read again.
        Not those below a folder row (``shut``, said unreadable): the browser's recheck
        brings them with that row's going, once it can be read."""
        listed: set[str] = set()
        folders: list[str] = []
        for base in self.bases:
            found, _unlisted = list_transcript_paths(base, self.recursive, folders=folders)
            listed.update(os.path.abspath(path) for path in found)
        self.known_folders.add(folders)  # (one made meanwhile sent no event the watch heard)
        fresh = []
        below = tuple(folder + os.sep for folder in shut)
        for path in sorted(listed):
            if path.startswith(below):
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue
            if known.get(path) != (st.st_size, st.st_mtime):
                fresh.append(self._resummarise(path))
        gone = sorted(path for path in known.keys() - listed if _gone(path))
        if fresh or gone:
            self.post_message(self.Changed(fresh, gone))

    @on(WatchFailed)
    def _watch_failed(self, message: WatchFailed) -> None:
        self.notify(
            f"Live updates are off ({one_line(message.why, 80)}); press r to rescan.",
            severity="warning",
            timeout=8,
        )


RESTART_EVERY = 2.0  # seconds: the least between two watches begun again after a bad name


def _undecodable(err: Exception) -> bool:
    """Whether the watcher gave up on a path it cannot decode (a name that is not UTF-8:
    watchfiles' words for it), which a watch begun again is not stopped by."""
    return "Unable to decode path" in str(err)


def _gone(path: str) -> bool:
    """Whether nothing is at ``path`` (one in a folder closed meanwhile cannot be looked
    at: no row of it goes, the folder's row comes in their place on the recheck)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def _utf8(path: str) -> bool:
    """Whether a path's name is UTF-8 (``os.fsdecode`` keeps an undecodable byte as a
    lone surrogate, which UTF-8 cannot encode)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unreadable(err: Exception) -> bool:
    """Whether a watcher failed on a folder it may not read (watchfiles' words for it)."""
    return isinstance(err, PermissionError) or "Permission denied" in str(err)
