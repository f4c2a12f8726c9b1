"""The browser's labels as text: its title line (root, sort, filter) and the detail of the
cursor's row, built from what the screen holds (``BrowserScreen`` puts them on screen)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.text import Text

from session_core.scan import FileSummary, Status

from ..browser_cells import STATUS_NAME, detail
from ..safe import fit_path, one_line


def title_line(
    root: str,
    recursive: bool,
    sorted_by: str,
    needle: str,
    status: Status | None,
    width: int,
) -> Text:
    """The title: the root fitted to ``width``, then the state (sort, filter). The state
    comes before the root's room is reckoned: a long root gives way, cut from the left as
    paths are (at 80 columns it pushed the sort off as "sorted by…")."""
    state = Text(no_wrap=True, overflow="ellipsis", end="")
    state.append(f"   sorted by {sorted_by}")
    if needle or status:
        state.append("   filter: ", style="bold")
        shown = []
        if status:
            shown.append(f"status {STATUS_NAME[status]}")
        if needle:
            shown.append(repr(needle))
        state.append(one_line(" and ".join(shown)))
    state.append("   times in UTC", style="dim")
    below = "  (and below)" if recursive else ""
    head = " tailscope   "
    room = width - len(head) - len(below) - min(state.cell_len, width - len(head) - 12)
    title = Text(no_wrap=True, overflow="ellipsis", end="")
    title.append(" tailscope ", style="bold reverse")
    title.append("  ")
    title.append(fit_path(root, max(room, 12)), style="bold")
    title.append(below, style="dim")
    title.append_text(state)
    return title


def detail_text(
    summary: FileSummary | None,
    shown: str,
    root: str,
    scanning: bool,
    any_rows: bool,
    width: int,
) -> Text:
    """The detail below the table: the cursor's row (``summary``, its file ``shown`` as
    that path), else what there is none of (below ``root``)."""
    if summary is not None:
        return detail(summary, shown, width)
    if scanning:
        return Text("reading the directory…", style="dim")
    if any_rows:  # (none shown: the table's first row says why, once)
        return Text("", end="")
    return Text(
        f"No session's file below {one_line(root)} (a subagent's file is "
        "listed under its session's row).",
        style="dim",
        end="",
    )


def root_named(given: str, base: str) -> str:
    """A root as the user gave it, or its path (``base``) where that names no folder but
    by a way up from here ("." or ".."): its row's name, and its name in what is said."""
    return base if os.path.basename(os.path.normpath(given)) in (".", "..") else given


def file_named(
    summary: FileSummary | None, root: str, bases: Sequence[str], named: Sequence[str]
) -> str:
    """Where the detail says a row's file is: under the root as given (one root), a root
    itself as its row names it (``named``, of ``bases``); with several roots, its path."""
    if summary is None:
        return ""
    if summary.path in bases:
        return named[bases.index(summary.path)]
    return os.path.join(root, summary.rel) if len(bases) == 1 else summary.path
