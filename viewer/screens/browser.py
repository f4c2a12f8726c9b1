"""The browser: every transcript below a directory, in a sortable, filterable table, kept live."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label, ProgressBar, Static
from textual.worker import get_current_worker

from session_core.compressed import packed_twin
from session_core.formats.base import IDLE_SECONDS
from session_core.scan import (
    FileSummary,
    LockTable,
    Status,
    list_transcript_paths,
    scan_file,
    session_of,
)
from session_core.scan_live import LiveRows
from session_core.text import count

from ..browser_cells import (
    AGENT_WIDTH,
    COLUMNS,
    NUMERIC,
    SORTABLE,
    Sort,
    cells,
    fitting_columns,
    grouped,
    matches,
    none_shown,
    sort_key,
)
from ..browser_cells import totals as totals_line
from ..safe import one_line
from ..widgets.keys_footer import KeysFooter
from ..widgets.virtual_table import Column, VirtualTable
from .browser_folders import KnownFolders, folder_changes
from .browser_keys import BROWSER_KEYS, BROWSER_MOUSE
from .browser_labels import detail_text, file_named, no_file_below, root_named, title_line
from .browser_watch import DirectoryWatch
from .key_commands import key_commands

BATCH_ROWS = 250  # rows per message from the scanner...
BATCH_SECONDS = 0.1  # ...or fewer, at least this often
RECHECK_SECONDS = 2.0  # how often live rows are looked at again (a writer may have gone)


class BrowserScreen(DirectoryWatch):
    """Every ``*.jsonl`` below a directory: status, agent, activity, usage. Enter opens one."""

    BINDINGS: ClassVar[list[BindingType]] = BROWSER_KEYS
    HELP_MOUSE: ClassVar[str] = BROWSER_MOUSE

    @dataclass
    class Scanned(Message):
        """A batch of summaries from the scanner (``done`` of ``total`` files so far)."""

        rows: list[FileSummary]
        done: int
        total: int
        final: bool

    def __init__(
        self,
        root: str | os.PathLike[str] | Sequence[str],
        *,
        recursive: bool = True,
        live_window: float = IDLE_SECONDS,
        force_polling: bool = False,
        watch: bool = True,
    ) -> None:
        super().__init__(id="browser")
        # One directory, or several (``tailscope`` with no path: each agent's own tree).
        roots = [root] if isinstance(root, str | os.PathLike) else list(root)
        self.bases = [os.path.abspath(os.fspath(r)) for r in roots]
        self.root = " + ".join(os.fspath(r) for r in roots)
        # Each root as the user gave it: a row of the root itself is named so ("." said
        # nothing), as the title names it
        self.named = [root_named(os.fspath(r), b) for r, b in zip(roots, self.bases, strict=True)]
        self.base = self.bases[0]
        self.recursive = recursive
        self.live_window = live_window
        self.force_polling = force_polling
        self.watching = watch
        self.rows: dict[str, FileSummary] = {}  # absolute path -> its summary
        self.known_folders = KnownFolders()  # the folders listed (``browser_folders``)
        # live rows followed, brought up to date from what is appended (not read again)
        self.live_rows = LiveRows(live_window)
        self.order: list[str] = []  # the rows shown (the filter's), in the sort's order
        self._shown: set[str] = set()  # the same paths, to look up
        self._depth: dict[str, int] = {}  # a subagent's row under its parent's: how deep
        self.sort = Sort()
        self.needle = ""
        self.status_filter: Status | None = None
        self.scanning = False
        self.scanned_at = 0.0
        self._fitting: list[tuple[str, str, int]] = []  # the columns the screen shows, as wide
        self._session_width = self._agent_width = 0  # (the session's and agent's, as fitted)
        self._at: list[int] = []  # each shown column's place in a row's cells
        self._fit(120)  # (until the screen's width is known)
        self._sorted_at = -math.inf  # never (monotonic starts near 0 at boot)
        self._first_row: str | None = None  # the cursor's file when a scan's rows came
        self._kept: str | None = None  # the cursor's file when a scan again was asked for
        self._before_filter: str | None = None  # the cursor's file when a text filter began

    # -- layout -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="browser-title")
        with Horizontal(id="browser-progress"):
            yield Label("scanning…", id="browser-progress-label")
            yield ProgressBar(id="browser-progress-bar", show_eta=False)
        yield Input(
            placeholder="filter: file, agent, model, status or reason (enter keeps it)",
            id="browser-filter",
        )
        yield VirtualTable(self._columns(), self._cells, id="browser-table")
        yield Static(id="browser-detail")
        yield Static(id="browser-totals")
        yield KeysFooter()

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#browser-table", VirtualTable)

    def on_unmount(self) -> None:
        self.live_rows.clear()  # (the files followed closed)

    def on_mount(self) -> None:
        self.query_one("#browser-filter").display = False
        self._fit(self.size.width)
        self.table.set_columns(self._columns())
        self.table.focus()
        self._refresh_labels()
        self.scan_running = True
        self.scan_directory()
        if self.watching:
            self.watch_directory()
        self.set_interval(RECHECK_SECONDS, self._recheck_live)

    def _fit(self, width: int) -> bool:
        """The columns and their widths for a screen ``width`` wide, the sorted-by column
        among them; whether they changed."""
        shown = fitting_columns(width, keep=self.sort.column)
        if shown == self._fitting:
            return False
        keys = [key for key, _, _ in COLUMNS]
        self._fitting, self._session_width = shown, shown[0][2]
        self._agent_width = next((w for key, _, w in shown if key == "agent"), AGENT_WIDTH)
        self._at = [keys.index(key) for key, _, _ in shown]
        return True

    def _columns(self) -> list[Column]:
        return [
            (
                key,
                Text(header, justify="right" if key in NUMERIC else "left"),
                width,
            )
            for key, header, width in self._fitting
        ]

    def _cells(self, index: int) -> Sequence[Text]:
        path = self.order[index]
        row = self._row(path)
        return row if len(self._at) == len(row) else [row[at] for at in self._at]

    def cell_text(self, path: str, key: str) -> str:
        """One cell as it reads (for tests): the row of ``path``, the column ``key``."""
        at = [k for k, _label, _width in COLUMNS].index(key)
        return str(self._row(path)[at])

    def _row(self, path: str) -> list[Any]:
        depth = self._depth.get(path, 0)
        return cells(self.rows[path], self._session_width, depth, self._agent_width)

    def on_resize(self, event: events.Resize) -> None:
        if self._fit(event.size.width):
            self.table.set_columns(self._columns())
        self._refresh_title()  # (the root is fitted to the width; the rest is as it was)
        self._refresh_totals()  # (broken between facts to the width)
        self._refresh_detail()  # (its first line cut to the width, its second wrapped)

    # -- scanning ---------------------------------------------------------------

    @work(thread=True, exclusive=True, group="scan", description="scan")
    def scan_directory(self) -> None:
        """List, then summarise every file (bounded reads), posting rows in batches."""
        worker = get_current_worker()
        paths: list[str] = []
        problems: list[FileSummary] = []
        listed: list[str] = []
        self.known_folders.listing()  # (what the watch adds meanwhile outlasts it)
        for base in self.bases:
            found, unlisted = list_transcript_paths(base, self.recursive, folders=listed)
            paths.extend(found)
            problems.extend(unlisted)
        self.known_folders.replace(listed)
        total = len(paths) + len(problems)
        batch = list(problems)
        self.post_message(self.Scanned([], 0, total, False))
        locks, locks_at = LockTable.read(), time.monotonic()
        sent_at = time.monotonic()
        for done, path in enumerate(paths, start=len(problems) + 1):
            if worker.is_cancelled:
                return
            if time.monotonic() - locks_at > 1.0:
                locks, locks_at = LockTable.read(), time.monotonic()
            batch.append(self._summarise(path, locks))
            if len(batch) >= BATCH_ROWS or time.monotonic() - sent_at > BATCH_SECONDS:
                self.post_message(self.Scanned(batch, done, total, False))
                batch, sent_at = [], time.monotonic()
        self.post_message(self.Scanned(batch, total, total, True))

    def _summarise(self, path: str, locks: LockTable | None = None) -> FileSummary:
        """A file's row, read whole (the scan's)."""
        return self._placed(scan_file(path, live_window=self.live_window, locks=locks))

    def _resummarise(
        self, path: str, locks: LockTable | None = None, *, linked_changed: bool = False
    ) -> FileSummary:
        """A file's row again (a change, a recheck): not read when it did not change
        (unless a file of its session did: ``linked_changed``), a live one brought up to
        date from what was appended (``LiveRows``)."""
        where = os.path.abspath(path)
        previous = self.rows.get(where)
        row = self.live_rows.summary(where, previous, locks=locks, linked_changed=linked_changed)
        return self._placed(row)

    def _sessions_of(self, part: str) -> list[str]:
        """The rows a file that is part of a session changes: those that link it (a
        subagent's file), and the one its path names (a subagent not linked yet)."""
        where = os.path.abspath(part)
        rows = tuple(self.rows.items())  # (from the watch's thread: one copy, made at once)
        found = {path for path, row in rows if where in row.subagents}
        named = session_of(where)
        if named is not None and os.path.abspath(named) in self.rows:
            found.add(os.path.abspath(named))
        return sorted(found)

    def _placed(self, summary: FileSummary) -> FileSummary:
        summary.path = os.path.abspath(summary.path)
        summary.rel = self._rel(summary.path)
        return summary

    def _rel(self, path: str) -> str:
        """The path below its root; with several roots, below the root's parent (so that
        ``.claude/projects/...`` and ``.codex/sessions/...`` tell themselves apart); a root
        itself as it was given (``named``)."""
        if path in self.bases:
            return self.named[self.bases.index(path)]
        for base in self.bases:
            if path.startswith(base + os.sep):
                top = base if len(self.bases) == 1 else os.path.dirname(os.path.dirname(base))
                return os.path.relpath(path, top)
        return os.path.relpath(path, self.base)

    @on(Scanned)
    def _scanned(self, message: Scanned) -> None:
        if not message.done and not message.final:
            self.scanning = True
            self.rows.clear()
            self.order, self._shown = [], set()
            self._show_rows()
            self._first_row = None
        # re-sorting 5,000 rows per batch costs more than the rows: twice a second will do
        due = message.final or time.monotonic() - self._sorted_at > 0.5
        self._merge(message.rows, sort=due)
        if message.final and not message.rows:  # (rows of earlier batches not sorted yet)
            self._apply_sort()
        if self._first_row is None and self.order:
            self._first_row = self._selected_path()
        progress = self.query_one("#browser-progress-bar", ProgressBar)
        progress.update(total=max(message.total, 1), progress=message.done)
        self.query_one("#browser-progress-label", Label).update(
            f"scanning {message.done:,} of {count(message.total, 'file')} "
        )
        if message.final:
            self.scanning = False
            self.scanned_at = time.monotonic()
            self.scan_ended()  # (after the rows are merged: a catch-up compares with them)
            # The cursor followed the first row shown as rows came: the first row, or the
            # file it was on before a scan again; unless the user moved it meanwhile.
            if self.table.row_count and self._selected_path() == self._first_row:
                if self._kept in self._shown:
                    self._move_to(self._kept)
                else:
                    self.table.move_cursor(row=0)
            self._kept = None
        self._refresh_labels()

    # -- live updates (``DirectoryWatch``): what they change ------------------------

    @on(DirectoryWatch.Changed)
    def _changed(self, message: DirectoryWatch.Changed) -> None:
        selected, was = self._selected_path(), self.table.cursor
        for path in message.gone:
            self.live_rows.drop(path)
        gone = {path for path in message.gone if self.rows.pop(path, None) is not None}
        if gone & self._shown:
            self._remove(gone)
        self._merge(message.rows)
        # Its file compressed or unpacked in place (the viewer reads on from the other
        # name): the cursor goes on with it.
        twin = packed_twin(selected) if selected in gone else None
        if twin is not None and twin in self._shown:
            self._move_to(twin, scroll=False, was=was)
        self._refresh_labels()

    def _recheck_live(self) -> None:
        """Writers that stop, or take a file's lock without writing, send no file event."""
        if self.rows and not self.scanning:
            self.recheck(list(self.rows.values()))

    @work(thread=True, exclusive=True, group="recheck", description="recheck")
    def recheck(self, summaries: list[FileSummary]) -> None:
        """Look again at live rows and at rows whose file a writer now holds."""
        locks = LockTable.read()
        targets = [
            s
            for s in summaries
            if s.status == "live" or (s.format and locks.holds(s.device, s.inode))
        ]
        fresh = [self._resummarise(s.path, locks) for s in targets if os.path.isfile(s.path)]
        changed = [s for s in fresh if self.rows.get(s.path) != s]
        # (folders made unreadable, or readable again: said as a scan again would say them)
        came, gone, opened = folder_changes(
            self.rows, self.bases, self.recursive, self._summarise, self.known_folders
        )
        self._folders_again |= opened  # (a watch of folders one by one: that one too)
        if changed or came or gone:
            self.post_message(self.Changed(changed + [self._placed(s) for s in came], gone))
        if shut := [row.path for row in came if row.is_folder]:  # (as a watch begun says)
            self.post_message(self.WatchNarrowed("cannot be listed now", shut))

    # -- the table --------------------------------------------------------------

    def _merge(self, summaries: Iterable[FileSummary], sort: bool = True) -> None:
        """Add or update rows in place, then restore the sort order (the cursor stays put)."""
        shown = self._shown
        hidden: set[str] = set()
        touched = False
        for summary in summaries:
            path = summary.path
            self.rows[path] = summary
            visible = matches(summary, self.needle, self.status_filter)
            if path in shown:
                if not visible:
                    hidden.add(path)
                touched = True
            elif visible:
                self.order.append(path)
                shown.add(path)
                touched = True
        if hidden:
            self._remove(hidden)
        if touched:
            if sort:
                self._apply_sort()
            else:
                self._show_rows()

    def _remove(self, paths: set[str]) -> None:
        selected = self._selected_path()  # (its row moves up when one above it goes)
        was = self.table.cursor
        self.order = [path for path in self.order if path not in paths]
        self._shown -= paths
        self._show_rows()
        self._move_to(selected, scroll=False, was=was)

    def _show_rows(self) -> None:
        """The rows changed: the table draws them again (the cursor stays in range)."""
        self.table.set_row_count(len(self.order))

    def _apply_sort(self, *, scroll: bool = False) -> None:
        """The rows in the sort's order, the cursor on its file (``scroll``: its row
        brought on screen, as a sort the user asked for does; rows merged keep it where
        it was on screen, ``_move_to``)."""
        self._sorted_at = time.monotonic()
        selected = self._selected_path()
        was = self.table.cursor
        order = sort_key(self.sort.column, self.sort.reverse)
        rows = self.rows
        self.order.sort(key=lambda path: order(rows[path]), reverse=self.sort.reverse)
        self.order, self._depth = grouped(self.order, rows)
        self._show_rows()
        self._move_to(selected, scroll=scroll, was=was)
        self._refresh_detail()

    def _move_to(self, path: str | None, *, scroll: bool = True, was: int | None = None) -> None:
        """The cursor to ``path``'s row: brought on screen (``scroll``), else kept where
        row ``was`` (its row before rows came or went above it) was on screen, as a scan's
        rows sort in above it. Not a cursor no key has moved in a scan (it goes to the
        first row when the scan ends): the view stays at the rows' top meanwhile."""
        if path is None or path not in self._shown:
            return
        table = self.table
        table.cursor = row = self.order.index(path)
        if scroll:  # (once the rows' new height is laid out: before it, no scroll)
            table.call_after_refresh(table.scroll_to_cursor)
        elif was is not None and not (self.scanning and path == self._first_row):
            table.keep_row_place(was, row)

    def _rebuild(self) -> None:
        """Every visible row again (a new filter). The cursor stays on its file; where
        the filter had shown no rows (no file under it), it goes back to the file it was
        on before the text filter began, else to the first row (not to the row its
        index was left at)."""
        selected = self._selected_path()
        self.order = [
            p for p, s in self.rows.items() if matches(s, self.needle, self.status_filter)
        ]
        self._shown = set(self.order)
        self._apply_sort()
        if selected is None:
            selected = self._before_filter
            if selected not in self._shown and self.order:
                self.table.cursor = 0
                self.table.call_after_refresh(self.table.scroll_to_cursor)
        self._move_to(selected)
        self._refresh_labels()

    def _selected_path(self) -> str | None:
        index = self.table.cursor
        return self.order[index] if 0 <= index < len(self.order) else None

    # -- labels -----------------------------------------------------------------

    def _refresh_labels(self) -> None:
        self._refresh_title()
        none = None if self.order else none_shown(len(self.rows), self.needle, self.status_filter)
        if not self.rows and not self.scanning:
            none = no_file_below(self.root)
        self.table.empty_text = none  # (drawn again where it changed)
        self.query_one("#browser-progress").display = self.scanning
        self._refresh_totals()
        self._refresh_detail()

    def _refresh_totals(self) -> None:
        width = max(self.size.width - 2, 20)  # (its padding; broken between its facts)
        rows = self.rows
        shown = sum(not (row := rows.get(path)) or not row.is_folder for path in self.order)
        said = totals_line(rows.values(), shown, width)
        self.query_one("#browser-totals", Static).update(said)

    def _refresh_title(self) -> None:
        title = title_line(
            self.root,
            self.recursive,
            self.sort.describe(),
            self.needle,
            self.status_filter,
            self.size.width or 200,
        )
        self.query_one("#browser-title", Static).update(title)

    def _refresh_detail(self) -> None:
        path = self._selected_path()
        summary = self.rows.get(path) if path is not None else None
        width = self.size.width - 2  # (its padding)
        shown = file_named(summary, self.root, self.bases, self.named)
        text = detail_text(summary, shown, self.scanning, width)
        self.query_one("#browser-detail", Static).update(text)

    @on(VirtualTable.Highlighted, "#browser-table")
    def _highlighted(self) -> None:
        self._refresh_detail()

    # -- actions ----------------------------------------------------------------

    def commands(self) -> Iterable[SystemCommand]:
        """Every key of the list, by name, for the command palette (as ``?`` names it)."""
        keys = [binding.key for binding in Binding.make_bindings(self.BINDINGS)]
        for title, about, callback in key_commands([self], keys):
            yield SystemCommand(title, about, callback)

    @on(VirtualTable.Activated, "#browser-table")
    @on(VirtualTable.DoubleClicked, "#browser-table")
    def _selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        path = self._selected_path()
        summary = self.rows.get(path) if path is not None else None
        if summary is None:
            return
        if not os.path.isfile(summary.path):
            what = f"{summary.unsized}, " if summary.unsized else ""
            self.notify(f"{one_line(summary.rel)} is {what}not a file that can be opened.")
            return
        from ..format_screens import open_file_screen  # (by its format, in one place)

        self.app.push_screen(open_file_screen(summary.path, force_polling=self.force_polling))

    def action_cycle_sort(self) -> None:
        index = (SORTABLE.index(self.sort.column) + 1) % len(SORTABLE)
        self._sort_by(SORTABLE[index])

    def action_reverse_sort(self) -> None:
        self.sort.reverse = not self.sort.reverse
        self._apply_sort(scroll=True)
        self._refresh_labels()

    def _sort_by(self, column: str) -> None:
        if column == self.sort.column:
            self.sort.reverse = not self.sort.reverse
        else:
            # numbers and times read best largest/newest first; names A to Z
            self.sort = Sort(column, column not in ("session", "agent", "status"))
            if self._fit(self.size.width):  # (the sorted-by column is kept on screen)
                self.table.set_columns(self._columns())
        self._apply_sort(scroll=True)
        self._refresh_labels()

    @on(VirtualTable.HeaderClicked, "#browser-table")
    def _header_clicked(self, event: VirtualTable.HeaderClicked) -> None:
        self._sort_by(event.key)

    def action_status(self, status: Status | None) -> None:
        self.status_filter = status
        if status is None:  # "All": the text filter goes too
            self._clear_needle()
        self._rebuild()

    def _clear_needle(self) -> None:
        """No text filter any more (the rows are rebuilt by the caller)."""
        self.needle = ""
        box = self.query_one("#browser-filter", Input)
        with box.prevent(Input.Changed):
            box.value = ""
        box.display = False

    def action_filter(self) -> None:
        if not self.needle:  # (a new filter: where the cursor goes back to, ``_rebuild``)
            self._before_filter = self._selected_path()
        box = self.query_one("#browser-filter", Input)
        box.display = True
        box.value = self.needle
        box.focus()

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.needle = event.value.strip()
        self._rebuild()

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self) -> None:
        self._close_filter()

    def _close_filter(self) -> None:
        box = self.query_one("#browser-filter", Input)
        box.display = bool(self.needle)
        self.table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``clear_filter`` only while there is a text filter, typed or kept (from the box
        too: escape there left it, the filter kept, a second cleared it); else None, so
        escape goes on to the app's binding and ``?`` still lists it."""
        if action == "clear_filter":
            box = self.query_one("#browser-filter", Input)
            return True if box.has_focus or self.needle else None
        return super().check_action(action, parameters)

    def action_clear_filter(self) -> None:
        self._clear_needle()  # (a status filter stays)
        self._rebuild()
        self.table.focus()

    def action_rescan(self) -> None:
        self._kept = self._selected_path()  # (the cursor comes back to it)
        self.live_rows.clear()  # (every file read again)
        self.scan_running = True
        self.scan_directory()
        if self.watching:  # (and the watch begun again, where it had stopped)
            self.watch_directory()
