"""What every file screen shares: following the file, and knowing whether its writer is
alive; its layout (a header, the problem banner, tabs declared as ``Tab``s, their number
keys made by ``tab_keys``), a big file's end shown first, the reset notice and the command
palette (``searching.SearchingScreen`` adds the search bar)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from session_core.compressed import file_read, is_compressed_file
from session_core.errors import TranscriptError
from session_core.follow_update import FollowUpdate
from session_core.following import follow
from session_core.tail_reader import AGAIN
from session_core.times import epoch
from session_core.writers import lock_gone, lock_seen, writer_holds_lock, writer_seen_gone

from ..safe import inert_text
from ..stdin_spool import input_ended
from ..widgets.keys_footer import KeysFooter
from ..widgets.model_status import quiet_text
from .gc_hold import GcHold
from .mount_safe import RemovedOnceMounted

PROGRESS_EVERY = 0.25  # seconds between redraws of a big file's loading progress
# Seconds between a load's batches handed to the UI thread. Each hand-on waits for it
# (``call_from_thread``), and a 1 GB load is a thousand batches: waiting for each was a
# fifth of the load. A batch's model is in ``live`` whether told or not; the ones between
# are only progress, and a reset, a warning or the load's last batch is always told.
HAND_ON_EVERY = 0.05
PREVIEW_FROM = 2 << 20  # bytes: a file this big shows its end first, while it loads
PANES_AFTER = 0.5  # seconds: the hidden tabs' panes come by then, drawn content or not
FIRST_TAB = "conversation"  # every file screen opens on its conversation

# The keys that mean the same on every file screen that has them.
SEARCH = Binding("slash", "search", "Search")
RAW_REPLAYED = Binding("r", "toggle_mode", "Raw/replayed")
FILTER = Binding("f", "filter", "Filter")
WARNINGS = Binding("w", "warnings", "Warnings")

Command = tuple[str, str, Callable[[], object]]  # a palette entry: title, help, what it does


@dataclass(frozen=True, slots=True)
class Tab:
    """One tab of a file screen: its id and title, how its pane is made, and the
    command palette's entry that shows it (its name and what it says of the pane)."""

    id: str
    title: str
    pane: Callable[[], Widget]
    command: str = ""
    about: str = ""
    key: str | None = None  # what its number key says, where not its title


def tab_keys(tabs: Sequence[Tab], *, show: bool = False) -> list[Binding]:
    """``1``, ``2``, … for the tabs, in order."""
    return [
        Binding(str(number), f"show_tab('{tab.id}')", tab.key or tab.title, show=show)
        for number, tab in enumerate(tabs, 1)
    ]


class FollowingScreen(RemovedOnceMounted):
    """A screen over one file: read, parsed and replayed in a worker thread, in bounded
    batches; the UI thread only draws what each batch changed."""

    @dataclass
    class FormatChanged(Message):
        """The followed file is (or became) another format than this screen shows."""

        following: FollowingScreen
        format: str
        # What the reset before it said (the file replaced, truncated, rewritten: the
        # follower's warnings), carried to the new screen's warnings and said
        said: list[str]

    def __init__(self, path: str | os.PathLike[str], *, force_polling: bool, id: str) -> None:
        super().__init__(id=id)
        self.path = os.fspath(path)
        self.force_polling = force_polling
        self._saw_lock = False
        self._live_at = -1.0
        self._live_cached = False
        self._writer_cached: bool | None = None  # what the model is told of the writer
        self._writer_ended = False  # a writer seen to hold the file went ("ended")
        self._loaded = False
        self._swapping = False
        self._was_live = False  # what the panes were last drawn for
        self._was_writer: bool | None = None  # (and what the model was told of the writer)
        self.held_line = 0  # the file's last line, where it has no newline (yet)
        self.held_span = (0, 0)  # ...where it starts (in the lines read) and its bytes
        # The writer was judged gone at the last draw: a held-back last line its format
        # keeps whole is read then (``follow``'s ``settle``, asked by the worker).
        self.writer_gone = False
        # The file is not there (deleted, moved away): what was read stays shown, said so,
        # until a file is there again (then read from line 1).
        self.gone = False
        self._file_seen = False  # a file was there (read) since this screen was made
        self.reading = ""  # the file the follower reads: the path, or its compressed copy
        self._was_gone = False  # ... as the update before this one said
        self.read_problem: str | None = None  # the file is there and cannot be read: why
        self.read_once = False  # a file was read (opened), its lines counted (none, may be)
        # The warnings of the reset that brought this screen in place of another format's
        # (``swap_format``): shown with its own till its next reset; and its own last
        # reset's (the worker's), to carry on to a screen of another format
        self.carried: list[str] = []
        self._reset_said: list[str] = []
        self._seen_live = False  # the writer was at work while the file was shown
        self.quiet_since: float | None = None  # its last write, while it is quiet since
        # Held by the worker while it replays and by the UI thread while it reads the
        # result: a snapshot shares the live model's columns, which a replay extends.
        # Reentrant: what reads the snapshot takes it itself, whoever calls it.
        self.state_lock = threading.RLock()
        # A big file shows its end first (a preview) while the worker loads all of it.
        self._previewing = False
        self.panes_ready = not self.DEFER_PANES
        self._mounting_panes = False
        self._progress = (0, 0)  # bytes loaded, of the file's size
        self._progress_drawn = -math.inf  # never

    @work(thread=True, exclusive=True, group="follow", description="follow")
    def follow_file(self) -> None:
        worker = get_current_worker()
        loading = GcHold()

        async def pump() -> None:
            updates = follow(
                self.path,
                force_polling=self.force_polling,
                initial_batches=True,
                parse=self.PARSED_UPDATES,
                settle=lambda: self.writer_gone,
            )
            me = asyncio.current_task()
            assert me is not None

            async def end_when_cancelled() -> None:
                # Textual's cancel is a flag: looked at every 0.1 s, it ends the read below.
                # (Waiting for each batch with a timeout instead made a task, a waiter and a
                # timer a batch: 0.1 s of a 1 GB load.)
                while not worker.is_cancelled:
                    await asyncio.sleep(0.1)
                me.cancel()

            watch = asyncio.create_task(end_when_cancelled())
            # when a batch was last handed to the UI thread (never: the first is handed
            # on, however young the clock is; monotonic starts near 0 at boot)
            told = -math.inf
            try:
                async for update in updates:
                    if worker.is_cancelled:
                        return
                    if not update.caught_up:
                        loading.set(True)
                    if not self._replay(update):
                        return
                    now = time.monotonic()
                    if (
                        update.caught_up
                        or update.reset
                        or update.warnings
                        or now >= told + HAND_ON_EVERY
                    ):
                        self.app.call_from_thread(self._receive, update)
                        told = now
                    if update.caught_up:  # drawn too: the load is over
                        loading.set(False)
                    # Let go of the batch before the next read: its lines view the block
                    # that read may read into again.
                    del update
            except asyncio.CancelledError:
                pass  # (cancelled: ``end_when_cancelled``)
            finally:
                watch.cancel()
                await updates.aclose()

        try:
            with contextlib.suppress(RuntimeError):  # the app closed under us
                asyncio.run(pump())
        finally:
            loading.set(False)

    def _replay(self, update: FollowUpdate) -> bool:
        """In the worker: replay the update into ``self.live``; False when the file is
        the other format (then the UI thread swaps screens and this worker stops)."""
        if update.reset:  # (said again by the screen of another format, if it comes to one)
            self._reset_said = [w for w in update.warnings if w.endswith(AGAIN)]
        if update.format is not None and update.format != self.FORMAT:
            self.app.call_from_thread(self._swap, update.format)
            return False
        if not update.exists:
            return True  # (the model keeps what was read: ``gone``)
        with self.state_lock:
            self.live.apply(update)
        self.live.read_ahead(update, self.state_lock)  # a snapshot's work, done here
        return True

    def _swap(self, fmt: str) -> None:
        if self._swapping or not self.is_attached:
            return
        self._swapping = True
        self.workers.cancel_group(self, "follow")
        said = self._reset_said or self.carried
        self.post_message(self.FormatChanged(self, fmt, said))  # the app swaps the screen

    def _receive(self, update: FollowUpdate) -> None:
        """On the UI thread: show what the worker replayed (the state is not changing now)."""
        if self._swapping or not self.is_attached or self._going_away():
            return
        self.held_line = update.held_line
        self.held_span = (update.offset - update.held, update.held)  # (where, bytes)
        new_problem = update.problem not in (None, self.read_problem) and not update.growing
        if new_problem and self._loaded and not update.reset:
            self.notify(  # (the follower kept what it read: no reset until it can read)
                f"{update.problem}. What was read stays shown until it can be read.",
                severity="warning",
                timeout=8,
            )
        self.read_problem = update.problem  # (until an update says the file reads again)
        if not update.exists:
            if not self.gone and self._loaded:
                self.notify(
                    "The file is gone (deleted or moved away): what was read stays shown "
                    "until a file is there again.",
                    severity="warning",
                    timeout=6,
                )
            self.gone = True
            self._previewing = False
            self._loaded = True
            self._refresh_status()
            self._mount_panes()
            return
        self._was_gone, self.gone = self.gone, False
        self._file_seen = True
        # (a file opened that gave no line for its damage, a ``.zst`` unpacking to nothing,
        # is read no more than one that cannot be opened: its counts are not known, not 0)
        opened = update.initial and update.problem is None
        self.read_once = (self.read_once and not update.reset) or opened or bool(update.lines)
        if update.reset:
            self.forget_writer()
            self.carried = []  # (its own reset says why now)
        elif self._loaded and not self._live_cached and update.lines:
            # Lines written to a file judged idle: its writer is asked again at once, not
            # half a second on (a run just begun read "interrupted" until then).
            self._live_at = -1.0
        if update.read and update.read != self.reading:
            self._say_reading(update.read)
        with self.state_lock:
            if not self._still_previewing(update):
                self._apply_update(update)
        self._mount_panes()

    FORMAT = ""
    # The hidden tabs' panes come once the first screen is drawn: mounting and styling
    # them was a third of a screen's start. A screen that says so reads them only once
    # ``panes_ready`` (``_panes_mounted`` is called then).
    DEFER_PANES = False
    PARSED_UPDATES = True  # False: ``live.apply`` parses the lines (``follow(parse=False)``)
    TABS: ClassVar[Sequence[Tab]] = ()
    live: Any  # the followed file's live model (set by the subclass: the format's LiveModel)
    conversation: Any  # the pane focused first (the subclass names it)

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self._status_bar()
        yield Static(id="problem")
        with TabbedContent(id="tabs", initial=FIRST_TAB):
            for tab in self.TABS:
                with TabPane(tab.title, id=tab.id):
                    if tab.id == FIRST_TAB or not self.DEFER_PANES:
                        yield tab.pane()
        yield from self._below_tabs()
        yield KeysFooter()

    def _status_bar(self) -> Widget:
        """The header over the tabs."""
        raise NotImplementedError

    def _below_tabs(self) -> Iterable[Widget]:
        """What stands between the tabs and the footer."""
        return ()

    def on_mount(self) -> None:
        if self._going_away():  # (closed before it was mounted: its children are going)
            return
        self.query_one("#problem").display = False
        self.conversation.focus()
        self._refresh_status()
        self.set_interval(1.0, self._tick)
        if not self.panes_ready:
            self.set_timer(PANES_AFTER, self._mount_panes)  # if nothing comes to draw
        try:
            big = os.path.getsize(self.path) > self._preview_from()
        except OSError:
            big = False
        if big:
            self._previewing = True
            self._show_tail()
        else:
            # After the first refresh: every pane's own children are mounted by then.
            self.call_after_refresh(self.follow_file)

    # -- a big file's end first ---------------------------------------------------------

    def _preview_from(self) -> int:
        """The size from which a file shows its end first (a screen's module may say)."""
        return PREVIEW_FROM

    def _show_tail(self) -> None:
        """A big file's end (its last few MB alone), drawn before the first frame, then the
        full load in the follow worker.

        Read here, on the UI thread, not in a worker: the read is bounded (``_read_tail``'s
        window) and nothing is on screen yet, whereas a worker shared the interpreter with
        the first frame's layout, and its end came a frame later (0.1 s at 1 GB). The full
        load starts only after: run at once, the two would share the interpreter too.
        """
        try:
            preview = self._read_tail()
        except TranscriptError:
            preview = None  # the full load says what is wrong
        if preview is not None:
            self._draw_preview(preview)
            self._refresh_status()
        else:
            self._previewing = False
        self.call_after_refresh(self.follow_file)
        self._mount_panes()

    def _read_tail(self) -> object | None:
        """What the file's end shows (None: nothing to show)."""
        raise NotImplementedError

    def _going_away(self) -> bool:
        """The app (or this screen) is closing: its panes are being removed. A screen
        closed while it mounts them (a subagent's, opened and popped at once) is out of
        the stack before its pump stops: what it did next (focus its conversation, whose
        tab was gone) had Textual's tabs raise "No Tab with id", and the app end."""
        return not (self.app.is_running and self.is_running) or self.closed

    # -- the hidden tabs' panes, after the first screen ---------------------------------

    def _mount_panes(self) -> None:
        """Once the first content is drawn (or ``PANES_AFTER`` passed): the other tabs'
        panes, mounted after that screen is on the terminal."""
        if self.panes_ready or self._mounting_panes or not self.is_attached:
            return
        self._mounting_panes = True
        self.call_after_refresh(self._mount_hidden_panes)

    async def _mount_hidden_panes(self) -> None:
        if not self.is_attached or self._going_away():
            return
        hidden = [tab for tab in self.TABS if tab.id != FIRST_TAB]
        await asyncio.gather(*(self.query_one(f"TabPane#{t.id}").mount(t.pane()) for t in hidden))
        if not self.is_attached or self._going_away():
            return  # closed meanwhile: a closing app mounts nothing, so there is none to draw
        self.panes_ready = True
        with self.state_lock:
            self._panes_mounted()

    def _panes_mounted(self) -> None:
        """The hidden tabs' panes are there now (the state lock held): draw what they
        missed."""

    def _draw_preview(self, preview: Any) -> None:
        """Show what ``_read_tail`` read, the end in view."""
        raise NotImplementedError

    def _loaded_percent(self) -> int:
        done, size = self._progress
        return 100 * done // size if size else 0

    # -- following ----------------------------------------------------------------------

    def _apply_update(self, update: FollowUpdate) -> None:
        """Bring the panes up to date with ``self.live`` after ``update`` was replayed
        (a big file's preview is over)."""
        raise NotImplementedError

    def _say_reading(self, read: str) -> None:
        """The file read is not (or no longer) the path named: its compressed copy, which
        the header names from now on; said once, where the path was not there to begin
        with (a compression under the follow is said by its reset)."""
        named = os.path.abspath(self.path)  # (as the follower names it)
        if read == named + ".zst" and not self.reading:
            self.notify(
                f"{os.path.basename(self.path)} is not there: showing its compressed copy, "
                f"{os.path.basename(read)}.",
                timeout=6,
            )
        self.reading = read

    def _say_rebuilt(self, update: FollowUpdate) -> None:
        """A reset after the first load: the view starts again, and why (the follower's
        reason: truncated, replaced, compressed...)."""
        if self._was_gone:  # (a file there now where there was none: nothing replaced)
            self.notify("The file is there: read from line 1.", timeout=4)
            return
        why = next((w.removesuffix(AGAIN) for w in update.warnings if w.endswith(AGAIN)), "")
        said = why[:1].upper() + why[1:] if why else "The file was truncated or replaced"
        self.notify(f"{said}: the view was rebuilt from line 1.", severity="warning", timeout=6)

    def _still_previewing(self, update: FollowUpdate) -> bool:
        """While a big file's preview stands and its whole load goes on: note the progress
        (drawn a few times a second, not per batch: each redraw is time the load waits) and
        say True. The load's last batch ends the preview, to be shown as a first load."""
        self._progress = (update.offset, update.size)
        if not self._previewing:
            return False
        if not update.caught_up:
            now = time.monotonic()
            if now - self._progress_drawn >= PROGRESS_EVERY:
                self._progress_drawn = now
                self._refresh_status()
            return True
        self._previewing = False
        self._loaded = False
        return False

    def _refresh_status(self) -> None:
        """Redraw the header (and the problem banner)."""
        raise NotImplementedError

    def _liveness_changed(self, live: bool) -> None:
        """The writer died or came back: redraw what says "running" or "interrupted"."""
        raise NotImplementedError

    def _tick(self) -> None:
        """Once a second (the subclass sets the interval): the header, and the panes when
        the writer's liveness changed since they were drawn."""
        live = self._is_live()
        if live != self._was_live or self._writer_cached != self._was_writer:
            self._was_live, self._was_writer = live, self._writer_cached
            self._liveness_changed(live)
        self._refresh_status()

    def _show(self, tab: str) -> Callable[[], None]:
        """A palette entry's callback: show the tab."""
        return lambda: self.action_show_tab(tab)

    def _tab_commands(self) -> list[Command]:
        """The palette's entry for each tab of this screen (so none for a tab it lacks)."""
        return [(tab.command, tab.about, self._show(tab.id)) for tab in self.TABS if tab.command]

    def action_show_tab(self, tab: str) -> None:
        """Bring the tab to the front, its pane focused."""
        raise NotImplementedError

    def commands(self) -> Iterable[SystemCommand]:
        """Every action of this screen, for the command palette."""
        for title, help_text, callback in self._palette():
            yield SystemCommand(title, help_text, callback)

    def _palette(self) -> list[Command]:
        """The command palette's entries."""
        raise NotImplementedError

    EXPORT_HELP = "Write the transcript as HTML, Markdown or JSON beside it"

    def _export_command(self) -> Command:
        return ("Export…", self.EXPORT_HELP, self.action_export)

    def action_export(self) -> None:
        raise NotImplementedError

    def live_label(self) -> str:
        """What the header says of the writer: gone (the file that was there is not),
        waiting (none was there yet), live, ended (a writer seen went: ``writers``) or
        idle (``LIVE_STATES``)."""
        if self.gone:
            return "gone" if self._file_seen else "waiting"
        if self._is_live():
            return "live"
        return "ended" if self._writer_ended else "idle"

    def quiet_label(self, last_time: str | None) -> str:
        """A writer seen at work that has written nothing for a while: for how long, by its
        last write (``last_time``, its last record's, or the file's mtime if later); a
        pipe's copy whose pipe has ended says so instead."""
        self.quiet_since = None
        if not self._seen_live:
            self._seen_live = self._loaded and self._is_live()
        if self.gone:
            return ""
        if input_ended(self.path):  # (a pipe's copy, no more written: its age is its
            return "input ended"  # last line's, no quiet of a writer's)
        if not self._seen_live:
            return ""
        read = file_read(self.path)  # (a rollout compressed in place: its copy)
        if is_compressed_file(read):
            return ""  # (a compressed file's writer is done: idle, not quiet)
        times = [epoch(last_time)]
        with contextlib.suppress(OSError):  # (a stat of its own: see ``_check_live``)
            times.append(os.stat(read).st_mtime)
        known = [t for t in times if t is not None]
        last = max(known) if known else None
        said = quiet_text(last, time.time())
        self.quiet_since = last if said else None
        return said

    def missing_message(self) -> str:
        """The banner while the file is not there: not yet (a path named before its writer
        has started), or not any more (``_file_seen``)."""
        if self._file_seen:
            return f"{self.path} does not exist any more; waiting for a file there again."
        return f"{self.path} does not exist yet; waiting for it to appear."

    def show_problem(self, message: str | None, *, notice: bool = False) -> None:
        """The problem banner under the header: shown with ``message`` (inert), or hidden;
        ``notice``: news, not a problem (drawn as such)."""
        problem = self.query_one("#problem", Static)
        problem.display = message is not None
        problem.set_class(notice, "notice")
        if message is not None:
            problem.update(inert_text(message))

    def forget_writer(self) -> None:
        """A new file (a reset): whether its writer locks is not known yet."""
        self._saw_lock = self._writer_ended = False
        self._live_at = -1.0

    def _is_live(self) -> bool:
        """Its writer may be at work: a writer holds the file's lock, or (for writers that
        do not lock) it changed within ``IDLE_SECONDS`` (``writer_state``'s rule).

        Asked on every update; /proc/locks is read at most twice a second.
        """
        now = time.monotonic()
        if now - self._live_at < 0.5:
            return self._live_cached
        self._live_at = now
        self._live_cached = self._check_live()
        return self._live_cached

    WRITER_LOCKS = False  # its format's writers lock the file: no lock, no writer

    def writer_state(self) -> bool | None:
        """What the model is told of the writer (its calls running or interrupted): the
        rule every read path has (``TranscriptFormat.writer_alive``), read with the dot."""
        self._is_live()
        return self._writer_cached

    def _writer_alive(self, held: bool | None) -> bool | None:
        """The format's rule for the writer, given whether its lock is ``held`` now
        (None: not known)."""
        return held or None

    def _check_live(self) -> bool:
        read = file_read(self.path)  # (a rollout compressed in place: its copy)
        held = writer_holds_lock(read)
        # (a lock, not a descriptor: a process that opens the file for each write lets
        # it go between writes, and is gone only once it exits: the format's rule)
        if held:
            self._saw_lock = self._saw_lock or lock_seen(read)
        elif self._saw_lock and not lock_gone(read):
            self._saw_lock = False  # written since its lock was let go: a writer not seen
        self._writer_cached = self._writer_alive(held)
        self._writer_ended = not held and writer_seen_gone(read)
        if held:
            return True
        if self._saw_lock or self.WRITER_LOCKS:
            return False  # the writer that held the lock is gone, however fresh the file
        # The one rule (``TranscriptFormat.writer_alive``: a lock-less writer may be at
        # work until its file has been quiet ``IDLE_SECONDS``), by a stat of its own:
        # ``TailReader`` keeps no mtime, and a writer mid-way through a long line sends
        # no update (only a held-back line grew), though the file is written.
        return self._writer_cached is not False
