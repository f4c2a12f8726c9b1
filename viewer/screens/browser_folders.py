"""The browser's folders that became unreadable, or readable again, while it is open:
looked at on its refresh tick (``BrowserScreen.recheck``), as the viewer's banner clears
itself. Only the folders rows are in and the unreadable folders' rows are looked at (one
``opendir`` each), never the whole tree again."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from session_core.scan import FileSummary, list_transcript_paths


def _closed(folder: str) -> bool:
    """Whether ``folder`` is there and cannot be listed (one gone is no unreadable one:
    the watch says it went)."""
    try:
        with os.scandir(folder):
            return False
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True


def folder_changes(
    rows: Mapping[str, FileSummary],
    bases: Sequence[str],
    recursive: bool,
    summarise: Callable[[str], FileSummary],
) -> tuple[list[FileSummary], list[str], bool]:
    """The rows to add or make again, the paths whose rows go, and whether a folder can
    be read again (its watch to be begun, where folders are watched one by one).

    A folder row that can be listed now goes, its files (and any folder below it that
    cannot be listed) come; a folder rows are in that cannot be listed now (the topmost
    such one, below a root: what a scan again would show) becomes a row, and the rows
    below it go."""
    items = tuple(rows.items())  # (from a worker's thread: one copy, made at once)
    fresh: list[FileSummary] = []
    gone: list[str] = []
    opened = False
    for folder, row in items:
        if row.is_folder and not _closed(folder) and os.path.isdir(folder):
            found, problems = list_transcript_paths(folder, recursive)
            fresh.extend(summarise(path) for path in found)
            fresh.extend(problems)
            gone.append(folder)
            opened = True
    parents = sorted({os.path.dirname(p) for p, row in items if not row.is_folder})
    shut: list[str] = []
    for parent in parents:
        if any(parent == top or parent.startswith(top + os.sep) for top in shut):
            continue
        if not _closed(parent):
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
    return fresh, gone, opened
