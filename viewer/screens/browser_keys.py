"""The browser's keys, and what its mouse does: one source for its footer, its ``?`` help
and its command palette (the help had described the file screen's mouse, and left out
escape, which clears the filter)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

BROWSER_KEYS: list[BindingType] = [
    Binding("enter", "open", "Open", show=True, tooltip="Open the selected file"),
    Binding("slash", "filter", "Filter", tooltip="Filter the files by text"),
    Binding("s", "cycle_sort", "Sort", tooltip="Sort by the next column"),
    Binding("S", "reverse_sort", "Reverse", tooltip="Reverse the sort order"),
    Binding("a", "status(None)", "All", tooltip="Every file (the text filter cleared too)"),
    Binding("l", "status('live')", "Live", tooltip="Only the live files"),
    Binding("c", "status('crashed')", "Crashed", tooltip="Only the crashed files"),
    Binding("d", "status('damaged')", "Damaged", tooltip="Only the damaged files"),
    Binding(
        "u",
        "status('unreadable')",
        "Unreadable",
        show=False,
        tooltip="Only the unreadable files",
    ),
    Binding(
        "f",
        "status('finished')",
        "Finished",
        show=False,
        tooltip="Only the finished files (failed runs too)",
    ),
    Binding(
        "n",
        "status('not-a-transcript')",
        "Other",
        show=False,
        tooltip="Only the files of status other: not transcripts",
    ),
    Binding("r", "rescan", "Rescan", show=False, tooltip="Scan the files again"),
    # (a binding, so that ``?`` lists it: only while a text filter is set or typed;
    # else escape is the app's, back to where the list was opened from)
    Binding(
        "escape",
        "clear_filter",
        "Clear filter",
        show=False,
        tooltip="Clear the text filter (a status filter stays)",
    ),
]
BROWSER_MOUSE = (
    "mouse: click selects, double-click opens the file, a click on a column's header"
    " sorts by it (again: the other way), the wheel scrolls"
)
