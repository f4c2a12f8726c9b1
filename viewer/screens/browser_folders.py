"""The browser's folders that became unreadable, or readable again, while it is open:
looked at on its refresh tick (``BrowserScreen.recheck``), as the viewer's banner clears
itself. Only the folders listed are looked at (one ``opendir`` each, its entries not
read: 300 folders, a millisecond or two a tick), never the whole tree again."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from session_core.scan import FileSummary, list_transcript_paths


class KnownFolders:
    """The folders the browser listed (whatever lists its rows: its scan, the watch's
    catch-up, a folder come or opened again since): the ones no row is in too (empty, or
    only other files) are looked at on the tick, to be said unreadable as the others are.
    Thread-safe (the scan, the watch and the tick add and read it from their threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folders: set[str] = set()
        self._since: set[str] | None = None  # added while a scan lists (``listing``)

    def listing(self) -> None:
        """A scan begins to list: what is added meanwhile (a folder it may have passed
        by, its watch's event) outlasts the ``replace`` it ends with."""
        with self._lock:
            self._since = set()

    def replace(self, folders: Iterable[str]) -> None:
        """The folders a scan listed, in place of all the others (gone ones with them)."""
        fresh = {os.path.abspath(folder) for folder in folders}
        with self._lock:
            self._folders = fresh | (self._since or set())
            self._since = None

    def add(self, folders: Iterable[str]) -> None:
        fresh = {os.path.abspath(folder) for folder in folders}
        with self._lock:
            self._folders |= fresh
            if self._since is not None:
                self._since |= fresh

    def drop(self, folders: Iterable[str]) -> None:
        with self._lock:
            self._folders.difference_update(folders)

    def now(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._folders)


def _closed(folder: str, gone: list[str] | None = None) -> bool:
    """Whether ``folder`` is there and cannot be listed (one gone is no unreadable one:
    the watch says it went; ``gone``: it is added to it)."""
    try:
        with os.scandir(folder):
            return False
    except (FileNotFoundError, NotADirectoryError):
        if gone is not None:
            gone.append(folder)
        return False
    except OSError:
        return True


def folder_changes(
    rows: Mapping[str, FileSummary],
    bases: Sequence[str],
    recursive: bool,
    summarise: Callable[[str], FileSummary],
    known: KnownFolders,
) -> tuple[list[FileSummary], list[str], bool]:
    """The rows to add or make again, the paths whose rows go, and whether a folder can
    be read again (its watch to be begun, where folders are watched one by one).

    A folder row that can be listed now goes, its files (and any folder below it that
    cannot be listed) come; a folder rows are in that cannot be listed now (the topmost
    such one, below a root: what a scan again would show) becomes a row, and the rows
    below it go. A folder listed (``known``) is looked at too, where no row is in it."""
    items = tuple(rows.items())  # (from a worker's thread: one copy, made at once)
    fresh: list[FileSummary] = []
    gone: list[str] = []
    opened = False
    for folder, row in items:
        if row.is_folder and not _closed(folder) and os.path.isdir(folder):
            listed: list[str] = []
            found, problems = list_transcript_paths(folder, recursive, folders=listed)
            known.add(listed)
            fresh.extend(summarise(path) for path in found)
            fresh.extend(problems)
            gone.append(folder)
            opened = True
    parents = {os.path.dirname(p) for p, row in items if not row.is_folder}
    shut: list[str] = []
    vanished: list[str] = []
    for parent in sorted(parents | known.now()):
        if any(parent == top or parent.startswith(top + os.sep) for top in shut):
            continue
        if not _closed(parent, vanished):
            continue
        top = parent
        while top not in bases and (up := os.path.dirname(top)) != top and _closed(up):
            top = up
        shut.append(top)
    for top in shut:
        if top in rows:
            continue
        _found, problems = list_transcript_paths(top, recursive)
        fresh.extend(problem for problem in problems if problem.path == top)
        gone.extend(path for path, _row in items if path.startswith(top + os.sep))
    known.drop(vanished)  # (one made again under that name is listed as it comes)
    return fresh, gone, opened
