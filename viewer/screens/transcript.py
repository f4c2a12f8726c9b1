"""The transcript screen: live and post-mortem views of one v1 transcript."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Input, Static, TabbedContent, TabPane

from session_core.errors import TranscriptError
from session_core.following import FollowUpdate
from session_core.formats import V1
from session_core.live import LiveTranscript
from session_core.replay import ReplayState
from session_core.tailwindow import preview_state, read_tail_window
from session_core.usage import UsageTally

from ..model import CallIndex
from ..widgets.conversation import ConversationView
from ..widgets.diff_view import DiffView
from ..widgets.run_context import RunContextPane
from ..widgets.status import StatusBar
from ..widgets.tool_ops import ToolOpsPane
from .export import ExportScreen
from .filter import FilterScreen
from .following import FollowingScreen
from .warnings import WarningsScreen

PREVIEW_FROM = 16 << 20  # bytes: a file this big shows its end first, while it loads


class TranscriptScreen(FollowingScreen):
    """One transcript, followed as it grows: conversation, diff, tool operations, run contexts."""

    FORMAT = V1
    PARSED_UPDATES = False  # LiveTranscript parses each line as it applies it

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search"),
        Binding("r", "toggle_mode", "Raw/replayed"),
        Binding("d", "show_tab('diff')", "Diff"),
        Binding("f", "filter", "Filter"),
        Binding("w", "warnings", "Warnings"),
        Binding("1", "show_tab('conversation')", "Conversation", show=False),
        Binding("2", "show_tab('diff')", "Diff", show=False),
        Binding("3", "show_tab('tools')", "Tools", show=False),
        Binding("4", "show_tab('contexts')", "Run contexts", show=False),
    ]

    def __init__(self, path: str | os.PathLike[str], *, force_polling: bool = False) -> None:
        super().__init__(path, force_polling=force_polling, id="transcript")
        self.live = LiveTranscript(self.path)
        self.usage = UsageTally()
        self._stale_panes: set[str] = set()

    # -- layout -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Static(id="problem")
        with TabbedContent(id="tabs", initial="conversation"):
            with TabPane("Conversation", id="conversation"):
                yield ConversationView("replayed", id="messages")
            with TabPane("Diff", id="diff"):
                yield DiffView(id="diffview")
            with TabPane("Tool operations", id="tools"):
                yield ToolOpsPane(id="toolops")
            with TabPane("Run contexts", id="contexts"):
                yield RunContextPane(id="runcontexts")
        with Vertical(id="search-bar"):
            yield Input(placeholder="search (enter finds, escape closes)", id="search")
        yield Footer()

    @property
    def conversation(self) -> ConversationView:
        return self.query_one("#messages", ConversationView)

    @property
    def calls(self) -> CallIndex:
        """The file's tool calls and answers: the conversation indexes them for its rows."""
        return self.conversation.renderer.calls

    def on_mount(self) -> None:
        self.query_one("#search-bar").display = False
        self.query_one("#problem").display = False
        self.conversation.focus()
        self._refresh_status()
        self.set_interval(1.0, self._tick)
        try:
            big = os.path.getsize(self.path) > PREVIEW_FROM
        except OSError:
            big = False
        if big:
            # The full load starts once the end is on screen: run at once, the two
            # workers would share the interpreter and the end would show later.
            self._previewing = True
            self.show_tail()
        else:
            self.follow_file()

    # -- following ----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="preview")
    def show_tail(self) -> None:
        """A big file's end, at once, while the follow worker reads all of it."""
        try:
            state = preview_state(read_tail_window(self.path), self.path)
        except TranscriptError:
            self.app.call_from_thread(self.follow_file)  # the full load says what is wrong
            return
        self.app.call_from_thread(self._show_preview, state)

    def _show_preview(self, state: ReplayState) -> None:
        if not self.is_attached:
            return
        self.conversation.set_state(state)
        self.conversation.action_last_row()
        self._refresh_status()
        self.call_after_refresh(self.follow_file)

    def _apply_update(self, update: FollowUpdate) -> None:
        if self._still_previewing(update):
            return
        first = not self._loaded
        reset = update.reset  # the worker replayed it into self.live already
        if reset or first:
            if reset and not first:
                self.notify(
                    "The file was truncated or replaced: the view was rebuilt from line 1.",
                    severity="warning",
                    timeout=6,
                )
            self.usage = UsageTally()
            self.conversation.set_state(self.live.state)
            self.query_one(DiffView).set_state(self.live.state)
            self._loaded = True
        else:
            self.conversation.refresh_rows()
            self.query_one(DiffView).mark_stale()
        self.usage.update(self.live.state)
        self._refresh_panes()
        self._refresh_status()

    def _refresh_panes(self) -> None:
        """Bring the shown pane up to date; the hidden ones catch up when shown."""
        # What the panes are now drawn for: the once-a-second check compares with it, so a
        # writer that dies before that check first ran still turns "running" into "died".
        live = self._was_live = self._is_live()
        self.conversation.set_live(live)
        self._stale_panes = {"tools", "contexts"}
        self._refresh_pane(self.query_one(TabbedContent).active)

    def _refresh_pane(self, tab: str) -> None:
        if tab not in self._stale_panes:
            return
        self._stale_panes.discard(tab)
        live = self._is_live()
        if tab == "tools":
            self.query_one(ToolOpsPane).refresh_view(self.live, self.calls, live)
        elif tab == "contexts":
            self.query_one(RunContextPane).refresh_view(self.live, self.calls, live)

    def _liveness_changed(self, live: bool) -> None:
        self._refresh_panes()  # "running" becomes "running when the writer died"

    def _refresh_status(self) -> None:
        state = self.live.state
        view = self.conversation
        live = self.live_label()
        extra = ""
        if view.search_term and view.searching is not None:
            extra = f"/{view.search_term}: searching {int(100 * view.searching)}%"
        elif view.search_term:
            position = view.match_pos + 1 if view.matches else 0
            extra = f"/{view.search_term}: {position}/{len(view.matches)}"
        if self._previewing:
            done, size = self._progress
            percent = 100 * done // size if size else 0
            extra = f"loading {percent}%, showing the end meanwhile"
        mode = "replayed" if view.mode == "replayed" else "raw"
        self.query_one(StatusBar).show(
            name=os.path.basename(self.path),
            fmt=f"{self.live.format or 'unknown format'} · {mode} view",
            size=self.live.size,
            live=live,
            meta=state.meta,
            lines=state.last_line,
            raw_messages=state.message_count,
            sent_messages=len(state.entries),
            ops=len(state.tool_ops),
            pending=state.pending_count,
            warnings=len(state.warnings),
            grants=state.grants,
            usage=self.usage.transcript,
            unseen=view.new_count,
            extra=extra,
        )
        self.show_problem(self._problem())

    def _problem(self) -> str | None:
        if not self.live.exists:
            return self.missing_message()
        state = self.live.state
        if not state.events and state.warnings:
            return "This file could not be read as a transcript: " + state.warnings[0]
        if self.live.format not in (None, "transcript-v1"):
            return f"This is a {self.live.format} file; this view shows transcript-v1 files."
        return None

    # -- actions ------------------------------------------------------------------

    def action_export(self) -> None:
        view = self.conversation.mode
        self.app.push_screen(ExportScreen(self.path, view="raw" if view == "raw" else "replayed"))

    def action_warnings(self) -> None:
        self.app.push_screen(WarningsScreen(list(self.live.state.warnings)))

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        target = {
            "conversation": "#messages",
            "diff": "#diffview",
            "tools": "#toolops VirtualTable",
            "contexts": "#runcontexts",
        }[tab]
        for widget in self.query(target):
            widget.focus()
            break

    def action_toggle_mode(self) -> None:
        view = self.conversation
        view.mode = "raw" if view.mode == "replayed" else "replayed"
        selected = view.rows[view.cursor].id if 0 <= view.cursor < len(view.rows) else None
        stick = view.follows_end
        view.set_state(self.live.state, stick=stick)
        if selected is not None and not stick:
            view.move_to_id(selected)
            view.call_after_refresh(view.move_to_id, selected)  # once the new height is laid out
        self.action_show_tab("conversation")
        self._refresh_status()
        self.notify(
            "Raw view: every line as written, with compaction and elision overlays."
            if view.mode == "raw"
            else "Replayed view: what the model is sent next."
        )

    def action_filter(self) -> None:
        view = self.conversation

        def chosen(choice: tuple[frozenset[str] | None, frozenset[str] | None] | None) -> None:
            if choice is not None:
                view.set_filter(*choice)
                self._refresh_status()

        self.app.push_screen(FilterScreen(view.roles, view.types), chosen)

    def action_search(self) -> None:
        bar = self.query_one("#search-bar")
        bar.display = True
        search = self.query_one("#search", Input)
        search.value = self.conversation.search_term
        search.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.query_one("#search-bar").display = False
        self.action_show_tab("conversation")
        count = self.conversation.search(event.value)
        if event.value and count is not None:
            self._notify_matches(event.value, count)
        self._refresh_status()

    @on(ConversationView.Searched)
    def _searched(self, event: ConversationView.Searched) -> None:
        self._notify_matches(event.term, event.count)
        self._refresh_status()

    def _notify_matches(self, term: str, count: int) -> None:
        self.notify(f"{count} match{'es' if count != 1 else ''} for {term!r}")

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.query_one("#search-bar").display:
            event.stop()  # escape closes the search, not the file (the app's "back to the list")
            self.query_one("#search-bar").display = False
            self.conversation.focus()

    @on(ConversationView.Changed)
    def _conversation_changed(self) -> None:
        self._refresh_status()

    @on(ConversationView.JumpFailed)
    def _jump_failed(self, event: ConversationView.JumpFailed) -> None:
        self.notify(event.what, timeout=2)

    @on(DiffView.Stepped)
    def _diff_stepped(self, event: DiffView.Stepped) -> None:
        self.notify(event.text, timeout=2)

    @on(ToolOpsPane.Selected)
    def _op_selected(self, event: ToolOpsPane.Selected) -> None:
        view = self.conversation
        for mid in [event.message_id, *event.answer_ids]:
            if mid and view.move_to_id(mid):
                self.action_show_tab("conversation")
                return
        self.notify("That message is not in this view (folded by a compaction?); try r.")

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "diff":
            self.query_one(DiffView).on_show()
        elif event.pane.id is not None:
            self._refresh_pane(event.pane.id)

    def commands(self) -> Iterable[SystemCommand]:
        """Every action of this screen, for the command palette."""
        view = self.conversation
        commands = [
            (
                "Toggle raw / replayed view",
                "Raw: every line as written; replayed: what the model is sent next",
                self.action_toggle_mode,
            ),
            (
                "Show the diff",
                "Raw versus replayed, side by side",
                lambda: self.action_show_tab("diff"),
            ),
            (
                "Show the conversation",
                "Messages of the current view",
                lambda: self.action_show_tab("conversation"),
            ),
            (
                "Show tool operations",
                "Every operation and its crash state",
                lambda: self.action_show_tab("tools"),
            ),
            (
                "Show run contexts",
                "Facts and sections of each run",
                lambda: self.action_show_tab("contexts"),
            ),
            ("Search", "Find text in messages", self.action_search),
            ("Filter", "By role or by line type", self.action_filter),
            ("Warnings", "Malformed lines, resets, replaced files", self.action_warnings),
            (
                "Next tool call",
                "Jump to the next message with a tool call",
                lambda: view.action_jump("call", 1),
            ),
            (
                "Previous tool call",
                "Jump to the previous tool call",
                lambda: view.action_jump("call", -1),
            ),
            ("Next error", "Jump to the next error", lambda: view.action_jump("error", 1)),
            ("Previous error", "Jump to the previous error", lambda: view.action_jump("error", -1)),
            (
                "Next compaction",
                "Jump to the next compaction",
                lambda: view.action_jump("compaction", 1),
            ),
            (
                "Previous compaction",
                "Jump to the previous compaction",
                lambda: view.action_jump("compaction", -1),
            ),
            ("Copy message", "Copy the selected message to the clipboard", view.action_copy),
            ("Fold / expand message", "Show the whole message", view.action_toggle_fold),
            ("Original / stub", "For an elided message", view.action_toggle_original),
            ("Go to top", "First message", view.action_first_row),
            ("Go to bottom", "Last message (and stick to new ones)", view.action_last_row),
            (
                "Export…",
                "Write the transcript as HTML, Markdown or JSON beside it",
                self.action_export,
            ),
        ]
        for title, help_text, callback in commands:
            yield SystemCommand(title, help_text, callback)
