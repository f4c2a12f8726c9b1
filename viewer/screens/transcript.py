"""The transcript screen: live and post-mortem views of one v1 transcript."""

from __future__ import annotations

import os
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TabbedContent

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
from .filter import FilterScreen
from .following import (
    FILTER,
    PREVIEW_FROM,
    RAW_REPLAYED,
    SEARCH,
    WARNINGS,
    Command,
    Pane,
    SearchingScreen,
    Tab,
    tab_keys,
)
from .warnings import WarningsScreen


class TranscriptScreen(SearchingScreen):
    """One transcript, followed as it grows: conversation, diff, tool operations, run contexts."""

    FORMAT = V1
    PARSED_UPDATES = False  # LiveTranscript parses each line as it applies it
    FOLLOW_AT_ONCE = True

    TABS = (
        Tab("conversation", "Conversation", lambda: ConversationView("replayed", id="messages")),
        Tab("diff", "Diff", lambda: DiffView(id="diffview")),
        Tab("tools", "Tool operations", lambda: ToolOpsPane(id="toolops"), key="Tools"),
        Tab("contexts", "Run contexts", lambda: RunContextPane(id="runcontexts")),
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        SEARCH,
        RAW_REPLAYED,
        Binding("d", "show_tab('diff')", "Diff"),
        FILTER,
        WARNINGS,
        *tab_keys(TABS),
    ]

    DEFER_PANES = True

    def __init__(self, path: str | os.PathLike[str], *, force_polling: bool = False) -> None:
        super().__init__(path, force_polling=force_polling, id="transcript")
        self.live = LiveTranscript(self.path)
        self.usage = UsageTally()
        self._stale_panes: set[str] = set()

    # -- layout -----------------------------------------------------------------

    def _status_bar(self) -> Widget:
        return StatusBar(id="status")

    conversation = Pane(ConversationView, "#messages")

    @property
    def calls(self) -> CallIndex:
        """The file's tool calls and answers: the conversation indexes them for its rows."""
        return self.conversation.renderer.calls

    # -- following ----------------------------------------------------------------

    def _preview_from(self) -> int:
        return PREVIEW_FROM  # this module's, read when asked (a test lowers it)

    def _read_tail(self) -> ReplayState:
        return preview_state(read_tail_window(self.path), self.path)

    def _draw_preview(self, preview: ReplayState) -> None:
        self.conversation.set_state(preview)
        self.conversation.action_last()

    def _apply_update(self, update: FollowUpdate) -> None:
        first = not self._loaded
        reset = update.reset  # the worker replayed it into self.live already
        if reset or first:
            if reset and not first:
                self._say_rebuilt()
            self.usage = UsageTally()
            self.conversation.set_state(self.live.state)
            if self.panes_ready:
                self.query_one(DiffView).set_state(self.live.state)
            self._loaded = True
        else:
            self.conversation.refresh_rows()
            if self.panes_ready:
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
        if tab not in self._stale_panes or not self.panes_ready:
            return
        self._stale_panes.discard(tab)
        live = self._is_live()
        if tab == "tools":
            self.query_one(ToolOpsPane).refresh_view(self.live, self.calls, live)
        elif tab == "contexts":
            self.query_one(RunContextPane).refresh_view(self.live.state, self.path)

    def _panes_mounted(self) -> None:
        if self._loaded:
            self.query_one(DiffView).set_state(self.live.state)
        self._refresh_pane(self.query_one(TabbedContent).active)

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
            extra = f"loading {self._loaded_percent()}%, showing the end meanwhile"
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
        from .export import ExportScreen  # only when asked for: start-up is a race

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

    @on(ConversationView.Searched)
    def _searched(self, event: ConversationView.Searched) -> None:
        self._notify_matches(event.term, event.count)

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
            if self.panes_ready:
                self.query_one(DiffView).on_show()
        elif event.pane.id is not None:
            self._refresh_pane(event.pane.id)

    def _palette(self) -> list[Command]:
        view = self.conversation
        return [
            (
                "Toggle raw / replayed view",
                "Raw: every line as written; replayed: what the model is sent next",
                self.action_toggle_mode,
            ),
            ("Show the diff", "Raw versus replayed, side by side", self._show("diff")),
            ("Show the conversation", "Messages of the current view", self._show("conversation")),
            ("Show tool operations", "Every operation and its crash state", self._show("tools")),
            ("Show run contexts", "Facts and sections of each run", self._show("contexts")),
            ("Search", "Find text in messages", self.action_search),
            ("Filter", "By role or by line type", self.action_filter),
            ("Warnings", "Malformed lines, resets, replaced files", self.action_warnings),
            *self._jumps(
                view,
                "call",
                "tool call",
                "Jump to the next message with a tool call",
                "Jump to the previous tool call",
            ),
            *self._jumps(
                view, "error", "error", "Jump to the next error", "Jump to the previous error"
            ),
            *self._jumps(
                view,
                "compaction",
                "compaction",
                "Jump to the next compaction",
                "Jump to the previous compaction",
            ),
            ("Copy message", "Copy the selected message to the clipboard", view.action_copy),
            ("Fold / expand message", "Show the whole message", view.action_toggle_fold),
            ("Original / stub", "For an elided message", view.action_toggle_original),
            ("Go to top", "First message", view.action_first),
            ("Go to bottom", "Last message (and stick to new ones)", view.action_last),
            self._export_command(),
        ]
