"""The browser's labels as text: its title line (root, sort, filter) and the detail of the
cursor's row, built from what the screen holds (``BrowserScreen`` puts them on screen)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text

from session_core.scan import FileSummary, Status

from ..browser_cells import STATUS_NAME, detail
from ..safe import fit_path, one_line

ROOT_LEAST = 20  # the cells the root keeps before the state says itself in fewer words
# The state as it fits, its words given up whole (at 100 columns with a filter it read
# "times in U…", the root cut to "…red/samples"): the times' zone said shorter, then
# not, then the sort's "sorted"; the sort and the filter stay.
STATE_SAID = (
    ("sorted by ", "   times in UTC"),
    ("sorted by ", "   UTC"),
    ("sorted by ", ""),
    ("by ", ""),
)


def title_line(
    root: str,
    recursive: bool,
    sorted_by: str,
    needle: str,
    status: Status | None,
    width: int,
) -> Text:
    """The title: the root fitted to ``width``, then the state (sort, filter, the times'
    zone). The state comes before the root's room is reckoned: a long root gives way, cut
    from the left as paths are (at 80 columns it pushed the sort off as "sorted by…"),
    down to ``ROOT_LEAST`` cells (or its whole), past which the state says itself in
    fewer words (``STATE_SAID``), and then down to its own name."""
    below = "  (and below)" if recursive else ""
    head = " tailscope   "
    name = os.path.basename(os.path.normpath(root)) or root
    least = min(cell_len(fit_path(root, ROOT_LEAST + 1)), ROOT_LEAST)
    floor = min(least, max(cell_len(fit_path(name, 40)) + 2, 8))  # ("…/samples")
    fits = [(least, said) for said in STATE_SAID] + [(floor, said) for said in STATE_SAID]
    for need, (sort_words, times) in fits:
        state = _state(sort_words + sorted_by, needle, status, times)
        room = width - len(head) - len(below) - state.cell_len
        if room >= need:
            break
    title = Text(no_wrap=True, overflow="ellipsis", end="")
    title.append(" tailscope ", style="bold reverse")
    title.append("  ")
    title.append(fit_path(root, max(room, floor)), style="bold")
    title.append(below, style="dim")
    title.append_text(state)
    return title


def _state(sort: str, needle: str, status: Status | None, times: str) -> Text:
    """The title's state: the sort, the filter, and ``times`` (``STATE_SAID``)."""
    state = Text(no_wrap=True, overflow="ellipsis", end="")
    state.append(f"   {sort}")
    if needle or status:
        state.append("   filter: ", style="bold")
        shown = []
        if status:
            shown.append(f"status {STATUS_NAME[status]}")
        if needle:
            shown.append(repr(needle))
        state.append(one_line(" and ".join(shown)))
    state.append(times, style="dim")
    return state


def detail_text(
    summary: FileSummary | None,
    shown: str,
    scanning: bool,
    width: int,
) -> Text:
    """The detail below the table: the cursor's row (``summary``, its file ``shown`` as
    that path), else nothing but while the folder is read: the table's first row says
    why it is empty (``none_shown``, ``no_file_below``), once."""
    if summary is not None:
        return detail(summary, shown, width)
    if scanning:
        return Text("reading the directory…", style="dim")
    return Text("", end="")


def no_file_below(root: str) -> str:
    """What the table of a folder with no session's file says in its first row (it said
    it in the detail, below a blank table, as no other empty table does)."""
    return (
        f"No session's file below {one_line(root)} (a subagent's file is "
        "listed under its session's row)."
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
