"""The model screen's reading and drawing (``ModelScreen`` adds what its keys and its
panes' messages do).

The worker applies each batch to the format's ``LiveModel``; the UI thread takes one
snapshot (``live.transcript``) per batch it draws and hands it to the panes, each of
which keeps its cursor on its item and draws only the rows on screen. A format's own
panes are told of every batch (``PaneSet.followed``) and keep up by appends. Snapshots
keep to their share of the time (``DRAW_SHARE_*``); the header and the banner say what
was read, and how.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import time
from collections.abc import Callable

from textual.widget import Widget
from textual.widgets import TabbedContent

from session_core.compressed import file_read, is_compressed_file
from session_core.follow_update import FollowUpdate
from session_core.formats import by_name
from session_core.formats.base import LiveModel, tail_transcript
from session_core.line_warnings import (
    UNFINISHED_SHOWN,
    held_back,
    is_settled_line,
    named_line,
    unfinished_line,
)
from session_core.model import Transcript
from session_core.open_work import transcript_work
from session_core.text import count

from ..formats import PaneSet, panes_missing
from ..widgets.items_view import ItemsView
from ..widgets.model_diff import ModelDiff, ModelDiffView
from ..widgets.model_panes import OpsPane, RunsPane
from ..widgets.model_status import ModelStatus
from ..widgets.row_search import RowSearch
from .following import FIRST_TAB
from .not_a_transcript import Unclaimed, not_a_transcript, unclaimed_view
from .other_sessions import OtherSessions
from .pane_lookup import Pane
from .searching import SearchingScreen
from .unfinished_line import UnfinishedLine, line_bytes

DRAW_EVERY = 0.4  # seconds between snapshots while a batch of a big load is still coming
# A snapshot walks what the model kept, so on a big file it takes a while: the share of
# the time at most spent taking them, while a file loads and while it is followed after.
DRAW_SHARE_LOADING = 0.1
DRAW_SHARE_FOLLOWING = 0.3
_ids = itertools.count(1)


class ModelFollowingScreen(OtherSessions, SearchingScreen):
    """A file of a model format read into its live model and drawn, snapshot by snapshot,
    to the panes (the shared ones, and a format's own: ``panes``), and the header."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        fmt: str,
        force_polling: bool = False,
        known: bool = True,
    ) -> None:
        """``known``: the file's first line names ``fmt``; False: an empty or missing
        file, read as ``fmt`` while it is waited for (the header says "unknown format"
        until a line names one; a line naming another format swaps the screen)."""
        super().__init__(path, force_polling=force_polling, id=f"model-{next(_ids)}")
        self.format = by_name(fmt)
        self.WRITER_LOCKS = self.format.no_lock_no_writer(self.path)  # (a pipe's copy: no)
        # FollowingScreen reads these per instance: one class serves every format.
        self.FORMAT = fmt
        self.PARSED_UPDATES = self.format.parsed_updates
        self.live: LiveModel = self.format.live(self.path)
        self.transcript = Transcript(format=fmt, path=self.path)
        self._held_said: tuple[tuple[int, int, int], str] = ((0, 0, 0), "")  # (its warning)
        self.init_other_sessions()
        self._stale: set[str] = set()
        self._drawn_at = -math.inf  # never (monotonic starts near 0 at boot)
        # What a snapshot costs, as the gap before the next one is measured by: the
        # lesser of the last two (seconds). A steady cost holds draws back; a one-off
        # (a compaction's fold at 1 GB: 0.18 s, once) does not hold the next one back
        # three times as long.
        self._draw_cost = 0.0
        self._last_cost = math.inf  # the last snapshot's own
        self._pending = False
        self._withdrawn: list[str] = []  # warnings updates withdrew since the last draw
        # The file's size as of the snapshot drawn, which the header says beside its
        # counts: the model's own runs ahead between draws (it said "472 B | 0 lines").
        self._drawn_size = 0
        # A compressed file's size on disk, said beside that of its lines (``_packed_size``),
        # and the file and size of what was read it was looked up for.
        self._packed: int | None = None
        self._packed_for: tuple[str, int] = ("", -1)
        self.panes: PaneSet | None = None  # the format's own (``_made_panes``, below)
        self._tab_ids = frozenset(tab.id for tab in self.TABS)
        self._detected: str | None = fmt if known else None  # what the first line names
        self._unseen_shown = 0  # the "N new" the header says
        self._panes_behind = False  # the pane set has not followed the last updates
        self._panes_reset = False  # ... and one of them was a reset
        # Why the file is no transcript (``_not_a_transcript``), as of the model's (resets,
        # size) it was asked at
        self._unclaimed: Unclaimed | None = None
        self._unclaimed_at: tuple[tuple[int, int], Unclaimed | None] = ((-1, -1), None)
        self._tabs_hidden = False
        self.panes = self._made_panes()

    def _made_panes(self) -> PaneSet | None:
        """The format's own panes (``ModelScreen``'s: the screen they call is that)."""
        return None

    # -- layout -----------------------------------------------------------------------

    def _status_bar(self) -> Widget:
        return ModelStatus(id="model-status")

    conversation = Pane(ItemsView, "#items")
    ops = Pane(OpsPane, "#ops")
    runs = Pane(RunsPane, "#model-runs")
    diff = Pane(ModelDiffView, "#model-diff")

    DEFER_PANES = True

    def on_mount(self) -> None:
        # (FollowingScreen's on_mount runs after this one: Textual calls each class's.)
        if self._going_away():  # (closed before it was mounted: its panes are going)
            return
        if self.panes is not None:
            self.conversation.narrow = self.panes.narrow
        elif self._detected is not None and (missing := panes_missing(self.format)):
            # (shown with the shared tabs alone; said by the screen of a file whose first
            # line names the format, not by one waiting for a line to name any)
            self.notify(missing, severity="warning", timeout=8)

    def _panes_mounted(self) -> None:
        panes = self.panes
        if panes is not None:
            self.runs.more = panes.run_detail
            if self._loaded and not self._previewing:
                self._panes_behind = True  # its own panes, for what was read meanwhile
                with self.state_lock:
                    self._follow_panes()
        tab = self.query_one(TabbedContent).active
        self._refresh_pane(tab)
        if tab != FIRST_TAB:  # asked for before its pane came
            if panes is not None:
                panes.tab_shown(tab)
            if not self.search_open:  # (the bar opened meanwhile keeps its keys)
                self._focus_tab(tab)
        self._refresh_status()

    def _read_tail(self) -> Transcript | None:
        return tail_transcript(self.format, self.path)

    def _draw_preview(self, preview: Transcript) -> None:
        self.transcript = preview
        self.conversation.show(preview, to_end=True, end_alone=True)
        self._stale = {"tools", "runs", "diff"}
        self._refresh_pane(self.query_one(TabbedContent).active)

    # -- following --------------------------------------------------------------------

    def _apply_update(self, update: FollowUpdate) -> None:
        self._withdrawn.extend(update.withdrawn)
        wait = self._draw_wait(update)
        if wait > 0:
            # A big load arrives in many batches, and a fast writer in many appends: a
            # snapshot per batch would be the time spent drawing. One comes after.
            if not self._pending:
                self._pending = True
                self.set_timer(wait, self._flush)
            self._refresh_status()
            return
        if update.reset and self._loaded:
            self._say_rebuilt(update)
            self.conversation.rebuilt()  # (its cursor kept at its line, nothing re-read new)
        self._draw(to_end=True if (update.reset or not self._loaded) else None)
        if update.reset:
            self._renew_warnings("the file was read again from line 1: its warnings now")
        if update.caught_up and not self._loaded:
            self._loaded = True
            # That draw (a big file's first whole snapshot: 0.2 s at 1 GB) is no measure
            # of a followed line's, and held the next draw back 0.7 s: the next one says.
            self._draw_cost = 0.0
            self._refresh_status()  # (drawn as still loading a moment ago)

    def _renew_warnings(self, why: str) -> None:
        """A warnings dialog open over this screen lists the file's warnings as they are
        after a reset, or an update that withdrew some (it kept those, a count the header
        no longer said); ``why`` the list changed."""
        from .warnings import WarningsScreen

        stack = self.app.screen_stack
        for screen in stack[stack.index(self) + 1 :] if self in stack else ():
            if isinstance(screen, WarningsScreen):
                screen.renew(list(self.transcript.warnings), self.unfinished(), why)

    def _unfinished(self) -> str:
        start, size = self.held_span
        key = (self.held_line, start, size)
        if self._held_said[0] != key:  # (read once, not at every draw)
            self._held_said = (
                key,
                unfinished_line(self.held_line, size, self._held_head(start, size)),
            )
        return self._held_said[1]

    def unfinished(self) -> UnfinishedLine | None:
        """The last line its writer left unfinished, as the warnings say it (the writer
        gone at the last draw); None where there is none."""
        if not self.held_line or self._was_live:
            return None
        start, size = self.held_span
        return UnfinishedLine(os.fspath(self.reading or self.path), self.held_line, start, size)

    def _packed_size(self, unpacked: int) -> int | None:
        """A compressed file's size on disk, the browser's column's, which the header
        says beside the size of its lines unpacked (``3.3 KB (914 B packed)``); None for a
        plain file. Looked up again only once more was read (a frame appended)."""
        read = os.fspath(self.reading or self.path)
        if self._packed_for != (read, unpacked):
            self._packed_for, self._packed = (read, unpacked), None
            if is_compressed_file(read):
                with contextlib.suppress(OSError):  # (gone since: its lines' size alone)
                    self._packed = os.stat(read).st_size
        return self._packed

    def _held_head(self, start: int, size: int) -> bytes:
        """The first bytes of the line held back (what was in flight when the writer
        died), read from the file; none from a compressed one (its lines are unpacked)."""
        read = self.reading or self.path
        if not size or is_compressed_file(read):
            return b""
        try:
            return line_bytes(read, start, min(size, UNFINISHED_SHOWN))
        except (OSError, ValueError):
            return b""

    def _draw_wait(self, update: FollowUpdate) -> float:
        """Seconds until ``update`` may be drawn (0: now). A load's last batch and a
        reset are drawn at once; otherwise snapshots keep to their share of the time."""
        if update.reset or (update.caught_up and not self._loaded):
            return 0.0
        if self._loaded:
            gap = self._draw_cost / DRAW_SHARE_FOLLOWING
        else:
            gap = max(DRAW_EVERY, self._draw_cost / DRAW_SHARE_LOADING)
        return self._drawn_at + gap - time.monotonic()

    def _flush(self) -> None:
        if self._pending and self.is_attached:
            with self.state_lock:
                self._draw()

    def _draw(self, *, to_end: bool | None = None) -> None:
        """One snapshot of the model (the caller holds ``state_lock``), to every pane."""
        self._pending = False
        started = time.monotonic()
        alive = self._is_live()
        self._was_live, self._was_writer = alive, self.writer_state()
        self.writer_gone = not alive
        self.transcript = self.live.transcript(writer_alive=self._was_writer)
        self._drawn_size = self.live.size
        self._unclaimed = unclaimed = self._not_a_transcript()
        if unclaimed is not None:  # (its lines alone: no format's rules, no counts)
            said = f"This file {unclaimed.why}"
            self.transcript = unclaimed_view(self.transcript, unclaimed, said)
        self._tabs_for_unclaimed()
        # (a live writer is still writing it; an older writer's document has no lines)
        if self.held_line and not alive and not self._document():
            self.transcript.warnings = [*self.transcript.warnings, self._unfinished()]
        if self.carried:  # (why the screen of another format gave way to this one)
            self.transcript.warnings = [*self.carried, *self.transcript.warnings]
        if self._withdrawn:  # (a compressed file's cut end, read whole since; a note of
            # a last line read without its newline, that came after all)
            noted = all(is_settled_line(w) for w in self._withdrawn)
            self._withdrawn = []
            self._renew_warnings(
                "the last line read without its newline has it now"
                if noted
                else "the file's end, cut when it was opened, was read whole"
            )
        self.conversation.show(self.transcript, to_end=to_end)
        self._stale = {"tools", "runs", "diff"}
        self._refresh_pane(self.query_one(TabbedContent).active)
        self._follow_panes()
        self._refresh_status()
        self._drawn_at = time.monotonic()
        cost = self._drawn_at - started
        self._draw_cost, self._last_cost = min(cost, self._last_cost), cost

    def _refresh_pane(self, tab: str) -> None:
        """The shown pane follows the snapshot now; hidden ones catch up when shown (a
        shared pane a format's order leaves out is not there)."""
        if tab not in self._stale or not self.panes_ready or tab not in self._tab_ids:
            return
        self._stale.discard(tab)
        with self.state_lock:
            if tab == "tools":
                self.ops.show(self.transcript, self.working_now())
            elif tab == "runs":
                self.runs.show(self.transcript, contexts=self.format.has_run_contexts)
            elif tab == "diff":
                self.diff.show(ModelDiff(self.transcript))

    def _receive(self, update: FollowUpdate) -> None:
        if self._going_away():
            return
        if update.reset and update.exists:  # (a file gone: what was read stays, as it was)
            self._detected = None
        self._detected = update.format or self._detected
        # The pane set follows with the next draw, at the draws' pace: an agentgo
        # session's call tree, updated on every append of a fast writer, took more
        # of the UI thread than it had (a 1 GB session's lag grew to seconds).
        self._panes_behind = True
        self._panes_reset = self._panes_reset or update.reset
        super()._receive(update)

    def _follow_panes(self) -> None:
        """The pane set told what the model read since it was last (the caller holds
        ``state_lock``)."""
        panes = self.panes
        if not self._panes_behind or panes is None or self._swapping or self._previewing:
            return  # (a big file's own panes are drawn once it is read)
        if not self.is_attached or not self.panes_ready:
            return  # drawn when they come (``_panes_mounted``)
        reset, self._panes_behind, self._panes_reset = self._panes_reset, False, False
        panes.followed(reset)

    def _liveness_changed(self, live: bool) -> None:
        # Calls without a result turn from running to interrupted (and back).
        if self._loaded:
            with self.state_lock:
                self._draw()
        if self.panes is not None and not self._previewing and self.panes_ready:
            with self.state_lock:
                self.panes.liveness_changed(live)

    def working_now(self) -> float | None:
        """Now, where the writer is known to be at work (its lock or its open file seen,
        not a recent change alone): its calls running are running still."""
        return time.time() if self.writer_state() is True else None

    def _tick(self) -> None:
        super()._tick()
        # (a call running's ``took`` goes on with the clock while its writer works)
        tools = "tools" in self._tab_ids and "tools" not in self._stale
        if tools and self.panes_ready and self.query_one(TabbedContent).active == "tools":
            with self.state_lock:
                self.ops.tick(self.working_now())
        # A file gone quiet just after a snapshot that put on the links of one before
        # it (a session's subagents), or whose subagents' files changed since the last
        # link (a session waiting on one writes nothing): the next links them afresh.
        if self._loaded and not self._pending and self.live.snapshot_due():
            with self.state_lock:
                self._panes_behind = True
                self._draw()

    def _writer_alive(self, held: bool | None) -> bool | None:
        return self.format.writer_alive(self.path, held=held, saw_lock=self._saw_lock)

    def writer_is_alive(self) -> bool:
        """May a writer be at work on the file (its lock, or, taking none, a change within
        ``IDLE_SECONDS``: the one rule, ``_is_live``)?"""
        return self._is_live()

    def redraw_runs(self) -> None:
        """The runs tab drawn again (what a format's pane set says of a run changed)."""
        self._stale.add("runs")
        self._refresh_pane(self.query_one(TabbedContent).active)

    def _refresh_status(self) -> None:
        if self._previewing:  # the preview's snapshot is its own: the worker's lock is
            self._show_status()  # not waited for (it may be making the first whole one)
            return
        with self.state_lock:  # (the header counts the snapshot's operations)
            self._show_status()

    def _show_status(self) -> None:
        view = self.conversation
        extra = ""
        if not self._loaded and self._progress[1]:
            extra = f"loading {self._loaded_percent()}%"
            if self._previewing:
                extra += " · showing the file's end meanwhile"
        elif self._previewing:
            extra = "showing the file's end; loading the rest"
        # (of what is loaded so far, while it loads; on the tool operations, theirs)
        searched = view.search_status()
        if self.search_term_in_tab() is not None:  # the tab's own search, not the
            own = self._own_search()  # conversation's, which its n does not step through
            if own is not None:
                searched = own.search_said(own.search_term, own.searching)
            else:  # (a format's pane's own: agentgo's calls)
                tab = self.query_one(TabbedContent).active
                searched = self.panes.search_said(tab) if self.panes is not None else ""
        extra = f"{extra} · {searched}" if extra and searched else extra or searched
        # (a filter said, so that what it hides is not taken for not there: on the tool
        # operations, theirs, which ``f`` there sets)
        filtered = ""
        if self._ops_shown():
            filtered = self.ops.filter_said()
        elif view.filtered:
            whole = self.transcript.raw if view.mode == "raw" else self.transcript.messages
            filtered = f"filter: {len(view.items):,} of {len(whole):,} shown (f)"
        if filtered:
            extra = f"{filtered}  {extra}".rstrip()
        size: int | None = self._drawn_size
        packed = self._packed_size(size) if size else None  # (of the lines read)
        # (nothing read yet: the file's end on screen; or nothing read of a file that
        # cannot be, a .zst that unpacks to nothing too: its size on disk, not "0 B";
        # not known where it cannot be looked at either)
        if not size and (not self._loaded or self.read_problem is not None):
            packed = None  # (the size on disk itself)
            size = self._progress[1]
            try:
                size = size or os.stat(self.reading or self.path).st_size
            except OSError:
                size = size or (None if self.read_problem is not None else 0)
        self._unseen_shown = view.new_count
        if view.new_count:
            extra = f"↓ {view.new_count:,} new  {extra}".rstrip()
        self.query_one(ModelStatus).show(
            self.transcript,
            name=os.path.basename(self.reading or self.path),  # (its compressed copy: named)
            title=self._title(),
            size=size,
            packed=packed,
            live=self.live_label(),
            since=self.quiet_label(self.transcript.last_time()),
            mode=view.mode,
            extra=extra,
            note=self.panes.status() if self.panes is not None else (),
            in_flight=(
                self.panes.in_flight(self.transcript)
                if self.panes is not None
                else transcript_work(self.transcript).said()
            ),
            partial=self._previewing,
            uncounted=self._uncounted(),
        )
        self.show_banner(self._problem(), self._held_alone())

    def _title(self) -> str:
        """The file's format, as the header names it."""
        if self._detected is not None:
            return self.format.title
        return "unknown format" if self._unclaimed is None else "not a transcript"

    def _held_alone(self) -> str | None:
        """What is said while nothing was read but a last line held back, its writer at
        work (the screen had shown nothing, and said nothing, until the writer was idle)."""
        if not self._loaded or not self.held_line or self.transcript.raw or not self._is_live():
            return None
        if self._document():  # (its end no line held back: what it is is said)
            return None
        return held_back(self.held_line, self.held_span[1])

    def _document(self) -> bool:
        """Is the file an older writer's whole JSON document (no lines of it to show)?"""
        return self._unclaimed is not None and self._unclaimed.document

    def _not_a_transcript(self) -> Unclaimed | None:
        """Why the file is no transcript, in ``check``'s words ("is not a transcript: its
        first line is neither …"), where no line named a format (the screen waits as
        ``WAITING_AS``'s) and the file holds lines: no format's rules are applied to them
        then, nor anything counted. None: a format is named, or the file is empty, or not
        there, or cannot be read (waited for). Asked again only once more is read."""
        if self._detected is not None or self.gone or self.read_problem is not None:
            return None
        if not self.transcript.lines:
            return None
        key = (self.live.resets, self.live.size)
        if self._unclaimed_at[0] != key:
            self._unclaimed_at = (key, not_a_transcript(self.reading or file_read(self.path)))
        return self._unclaimed_at[1]

    def _tabs_for_unclaimed(self) -> None:
        """A file that is no transcript shows its lines alone: every tab but the
        conversation is hidden (no format's panes for it), and shown again once it is one."""
        hide = self._unclaimed is not None
        if hide == self._tabs_hidden:
            return
        self._tabs_hidden = hide
        tabs = self.query_one(TabbedContent)
        if hide:
            tabs.active = FIRST_TAB
        for tab in self.TABS:
            if tab.id != FIRST_TAB:
                (tabs.hide_tab if hide else tabs.show_tab)(tab.id)

    def _uncounted(self) -> str | None:
        """Why the header counts nothing (each count would read 0, as if known): a file no
        format claims, or nothing read of one that cannot be read."""
        t = self.transcript
        if self._document():  # (no lines shown: none counted either)
            return "not a transcript: nothing of it is counted"
        if self._unclaimed is not None:
            return f"{count(t.lines, 'line')} · not a transcript: nothing of it is counted"
        if self.read_problem is not None and not self.read_once and not self._previewing:
            return "nothing read: the file cannot be read"
        return None

    def _problem(self) -> str | None:
        if self.gone:
            return self.missing_message()
        if self.read_problem is not None:  # (what was read stays shown meanwhile)
            return f"{self.read_problem} (it is read again as soon as it can be)"
        if (unclaimed := self._unclaimed) is not None:
            if unclaimed.document:  # (its error alone: an older writer's stays what it is)
                return f"This file {unclaimed.why}"
            then = "followed: once it is one, it is shown as such"
            return f"This file {unclaimed.why} ({then})"
        t = self.transcript
        # (a last line read whole once its writer was gone is said, and is no problem: a
        # session-meta alone so read has no items and is a transcript all the same)
        warned = [w for w in t.warnings if not is_settled_line(w)]
        if not (self._loaded and self._drawn_size and not t.raw and warned):
            return None  # (an empty file, one truncated to nothing, is no problem)
        if t.lines:
            # (what its first bad line says, before a note of the file's being read again)
            said = [w for w in warned if w.startswith("line ")]
            why = min(said, key=named_line) if said else (warned or t.warnings)[0]
            return f"This file could not be read as {self.format.title}: {why}"
        return None

    # -- where a tab's keys go ----------------------------------------------------------

    def _focus_tab(self, tab: str) -> None:
        target = self._tab_target(tab)
        if target is not None:
            target.focus()

    def _tab_target(self, tab: str) -> Widget | None:
        """What a tab's keys go to (what showing it focuses)."""
        shared: dict[str, Callable[[], Widget]] = {
            "conversation": lambda: self.conversation,
            "tools": lambda: self.ops.table,
            "runs": lambda: self.runs.table,
            "diff": lambda: self.diff,
        }
        if tab in shared and tab in self._tab_ids:
            return shared[tab]()
        return self.panes.focus_target(tab) if self.panes is not None else None

    def _ops_shown(self) -> bool:
        """Is the tool operations tab shown (its panes there: its ``f`` is its own)?"""
        return self.panes_ready and self.query_one(TabbedContent).active == "tools"

    def _own_search(self, tab: str | None = None) -> RowSearch | None:
        """The tab's own search, where what it shows is a list that searches its rows
        (the tool operations, agentgo's timeline); the shown tab's by default."""
        if not self.panes_ready:  # (a hidden tab's panes are not mounted yet)
            return None
        target = self._tab_target(tab or self.query_one(TabbedContent).active)
        return target if isinstance(target, RowSearch) else None
