"""One screen over the neutral model, for every format without a screen of its own
(agentgo-v1, claude-code, codex, a plugin's): conversation, tool operations, runs and
the diff of what compactions folded, followed live as the file grows; and the panes a
format adds for what those lack (its ``extra_panes``: agentgo's call tree, checkpoints
and timeline), hosted through the ``viewer.formats`` registry.

What the screen reads and draws, and how often, is ``model_screen_following``'s; this
module holds its tabs and what its keys and its panes' messages do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.binding import BindingType
from textual.widgets import TabbedContent

from session_core.column_items import first_of_span, item_key
from session_core.formats import by_name
from session_core.model import Run, ToolOp

from ..formats import PaneSet, pane_set_for
from ..widgets.items_view import ItemsView
from ..widgets.line_list import LineList
from ..widgets.model_diff import ModelDiffView
from ..widgets.model_panes import OpsPane, RunsPane
from ..widgets.row_search import RowSearch
from ..widgets.virtual_table import VirtualTable
from .filter import Choice, FilterScreen
from .following import FIRST_TAB, Command, Tab
from .help import BindingsHelpScreen
from .key_commands import key_chain, key_commands
from .model_screen_classes import help_sections, screen_keys, with_panes
from .model_screen_following import ModelFollowingScreen
from .op_detail import OpDetailScreen
from .searching import UNDER_WAY
from .warnings import WarningsScreen

# The keys of the tab shown that the command palette offers by name, each as its
# binding there says (the conversation's next tool call, a table's copy of its row; its
# next match once a search is set, as the footer says it).
PANE_KEYS = ("t", "T", "e", "E", "x", "X", "c", "enter", "g", "G", "n", "N")


class ModelScreen(ModelFollowingScreen):
    """One file of any model format, followed as it grows. A format with panes of its own
    is shown by ``ModelScreen.for_format(name)``, this class with its tabs and keys."""

    MATCHES_TIMEOUT = 2
    TABS = (
        Tab(
            "conversation",
            "Conversation",
            lambda: ItemsView(id="items"),
            "Show the conversation",
            "The current view's items",
        ),
        Tab(
            "tools",
            "Tool operations",
            lambda: OpsPane(id="ops"),
            "Show tool operations",
            "Every call and what became of it",
        ),
        Tab(
            "runs",
            "Runs",
            lambda: RunsPane(id="model-runs"),
            "Show runs",
            "Turns with their state, usage and context",
        ),
        Tab(
            "diff",
            "Diff",
            lambda: ModelDiffView(id="model-diff"),
            "Show the diff",
            "What compactions folded and kept",
        ),
    )
    BINDINGS: ClassVar[list[BindingType]] = screen_keys(TABS)
    PANE_SET: ClassVar[type[PaneSet] | None] = None  # the format's own panes, if any

    def _made_panes(self) -> PaneSet | None:
        """The format's pane set, made here, where the screen it is given is the one it
        calls (its actions are this class's)."""
        return self.PANE_SET(self) if self.PANE_SET is not None else None

    @classmethod
    def for_format(cls, fmt: str) -> type[ModelScreen]:
        """The screen class for files of ``fmt``: this one, or (a format that names
        ``extra_panes``) one with its pane set's tabs and keys (``with_panes``)."""
        panes = pane_set_for(by_name(fmt))
        return cls if panes is None else with_panes(cls, panes)

    # -- actions ----------------------------------------------------------------------

    def action_show_tab(self, tab: str) -> None:
        if self._tabs_hidden and tab != FIRST_TAB:  # (``_tabs_for_unclaimed``)
            self.notify("This file is not a transcript: its lines alone are shown.", timeout=3)
            return
        self.query_one(TabbedContent).active = tab
        if not self.panes_ready:
            if tab == FIRST_TAB:  # its pane is there from the start: its keys are at once
                self._focus_tab(tab)  # (a search submitted meanwhile left none focused)
            return  # another is drawn and focused when its pane comes
        self._refresh_pane(tab)
        if self.panes is not None:
            self.panes.tab_shown(tab)
        self._focus_tab(tab)

    def focus_shown(self) -> None:
        self._focus_tab(self.query_one(TabbedContent).active)  # (not a hidden tab's view)

    def search_term_in_tab(self) -> str | None:
        own = self._own_search()
        if own is not None:
            return own.search_term
        if self.panes is None:
            return None
        return self.panes.search_term(self.query_one(TabbedContent).active)

    def search_in_tab(self, term: str) -> int | None:
        own = self._own_search()
        if own is not None:  # (searched in a worker: it says when it is done)
            own.search(term)
            self.focus_shown()
            return UNDER_WAY
        if self.panes is None:
            return None
        found = self.panes.search(self.query_one(TabbedContent).active, term)
        if found is not None:
            self.focus_shown()  # (from the search bar: its keys step through them)
        return found

    def action_toggle_mode(self) -> None:
        view = self.conversation
        view.set_mode("raw" if view.mode == "replayed" else "replayed")
        self.action_show_tab("conversation")
        self._refresh_status()
        self.notify(
            f"Raw view: {self.format.raw_view}."  # (v1's and agentgo's are not every line)
            if view.mode == "raw"
            else "Replayed view: what the model is sent next.",
            timeout=3,
        )

    def action_warnings(self) -> None:
        self.app.push_screen(WarningsScreen(list(self.transcript.warnings), self.unfinished()))

    def action_filter(self) -> None:
        if self._ops_shown():
            self._filter_ops()
            return
        view = self.conversation
        with self.state_lock:  # (the snapshot's items are looked at)
            offered = view.filter_choices()
        # (from the runs, the subagents: the dialog opened over them, and what it hid did
        # not show, so it is said, and the conversation shown once a filter is chosen)
        elsewhere = self.say_conversations("filter", "this filters the conversation")

        def chosen(choice: Choice | None) -> None:
            if choice is not None:
                roles, kinds = choice
                with self.state_lock:
                    view.set_filter(roles, kinds, offered=offered)
                if elsewhere:
                    self.action_show_tab("conversation")
                self._refresh_status()

        self.app.push_screen(FilterScreen.conversation(view.roles, view.kinds, *offered), chosen)

    def _filter_ops(self) -> None:
        """``f`` on the tool operations: which tools and states they show."""
        pane = self.ops
        with self.state_lock:  # (the snapshot's operations are counted)
            dialog = pane.filter_dialog()

        def chosen(choice: Choice | None) -> None:
            if choice is not None:
                with self.state_lock:
                    pane.set_filter(choice, dialog)
                self._refresh_status()

        self.app.push_screen(dialog, chosen)

    def action_export(self) -> None:
        from .export import ExportScreen  # only when asked for: start-up is a race

        self.app.push_screen(ExportScreen(self.path, view=self.conversation.mode))

    def action_help(self) -> None:
        if not self.panes_ready:  # (the hidden tabs' keys are their panes': let them come)
            self._mount_panes()
            self.set_timer(0.05, self.action_help)
            return
        sections = help_sections(self)
        title = f"tailscope — {self.format.title}"
        self.app.push_screen(BindingsHelpScreen(title, sections, of_file=True))

    @on(ItemsView.Searched)
    def _searched(self, event: ItemsView.Searched) -> None:
        self._notify_matches(event.term, event.count)

    @on(ItemsView.Searching)
    @on(RowSearch.Searching)
    def _searching(self, _event: ItemsView.Searching | RowSearch.Searching) -> None:
        self._refresh_status()

    @on(RowSearch.Searched)
    def _tab_searched(self, event: RowSearch.Searched) -> None:
        """A tab's own search ended (the timeline's, the tool operations')."""
        self._notify_matches(event.term, event.count)

    @on(ItemsView.Said)
    def _said(self, event: ItemsView.Said) -> None:
        self.notify(event.text, timeout=2)

    @on(OpsPane.Opened)
    def _op_opened(self, event: OpsPane.Opened) -> None:
        panes = self.panes
        more = panes.op_detail(event.op) if panes is not None else []
        artifact = panes.op_artifact(event.op) if panes is not None else None
        self.app.push_screen(
            OpDetailScreen(
                event.op,
                force_polling=self.force_polling,
                more=more,
                artifact=artifact,
                ran=event.ran,
            ),
            lambda _closed: self.ops.detail_closed(),
        )

    @on(OpsPane.Jump)
    def _op_jump(self, event: OpsPane.Jump) -> None:
        self.show_call_message(event.op)

    def show_call_message(self, op: ToolOp) -> None:
        """The message that called ``op``, in the conversation: in the raw view where
        the replayed one does not hold it (a compaction folded it)."""
        ident = op.message_id
        if ident and self.conversation.move_to_id(ident):
            self._show_cursor()
        elif ident:
            self.show_in_raw(
                lambda view: view.move_to_id(ident), "That call's message is not shown (a filter?)."
            )
        else:
            self.notify("No message of this file holds that call.")

    @on(OpDetailScreen.ShowItem)
    def _show_item(self, event: OpDetailScreen.ShowItem) -> None:
        """A subagent in this file (from a call's detail): its first line, in the raw view."""
        self.show_in_raw(
            lambda view: view.move_to_id(event.ident),
            "That subagent's first line is not shown (a filter?).",
        )

    @on(ModelDiffView.ShowRaw)
    def _diff_row_shown(self, event: ModelDiffView.ShowRaw) -> None:
        """A diff row's item (folded, kept, or its compaction's line), in the raw view."""
        self.show_in_raw(
            lambda view: view.move_to_raw(event.index), "That line is not shown (a filter?)."
        )

    def show_in_raw(self, move: Callable[[ItemsView], bool], failed: str) -> None:
        """The conversation's raw view, its cursor where ``move`` puts it (False: it
        found nothing, and the user is told ``failed``)."""
        view = self.conversation
        if view.mode != "raw":
            view.set_mode("raw")
            self._refresh_status()
        if move(view):
            self._show_cursor()
            return
        self.notify(failed)

    def _show_cursor(self) -> None:
        """The conversation, scrolled to its cursor once it is laid out: a hidden tab does
        not scroll, and a view just switched to raw still has its end to scroll to."""
        view = self.conversation
        self.action_show_tab("conversation")
        view.call_after_refresh(view.scroll_to_cursor)

    @on(LineList.Moved, "#items")
    def _conversation_moved(self) -> None:
        if self.conversation.new_count != self._unseen_shown:  # back at the end: none new
            self._refresh_status()

    @on(VirtualTable.Activated, "#runs-table")
    @on(VirtualTable.DoubleClicked, "#runs-table")
    def _run_activated(self, event: VirtualTable.Activated) -> None:
        runs = self.runs.runs
        if not 0 <= event.row < len(runs):
            return
        event.stop()
        run = runs[event.row]
        if self.panes is not None and self.panes.run_chosen(run):
            return
        self.show_run(run)

    def show_run(self, run: Run) -> None:
        """The run's first line (its prompt) in the conversation: in the raw view where
        the replayed one does not hold it (a compaction folded it)."""
        raw = self.transcript.raw
        index = first_of_span(raw, run.line, run.end_line) if run.line else -1
        if index < 0 and self._previewing:  # (its lines are not known: ``lines_not_known``)
            self.notify("The file's end is shown alone: its lines are known once it is read.")
            return
        if index < 0:
            self.notify("This run has no line of its own in the file.")
            return
        ident, line = item_key(raw, index)
        if self.conversation.move_to_item(ident, line):
            self._show_cursor()
        else:
            self.show_in_raw(  # (there: folded by a compaction from the replayed view)
                lambda view: view.move_to_raw(index),
                "That run's first line is not shown (a filter?).",
            )

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id in self._stale:  # a tab drawn for an older snapshot
            self._refresh_pane(event.pane.id)
        if self.panes is not None and event.pane.id is not None and self.panes_ready:
            self.panes.tab_shown(event.pane.id)
        self._refresh_status()  # (a tab's own search is said while it is shown)

    def _palette(self) -> list[Command]:
        return [
            (
                "Toggle raw / replayed view",
                "Every line, or what the model is sent next",
                self.action_toggle_mode,
            ),
            *self._tab_commands(),
            (
                "Search",
                "Find text in the conversation (or in the tab shown, where it has its own search)",
                self.action_search,
            ),
            ("Warnings", "What the reader could not make sense of", self.action_warnings),
            (
                "Filter…",
                "Which roles and line kinds the conversation shows (on the tool "
                "operations tab: which tools and states)",
                self.action_filter,
            ),
            self._export_command(),
            *self._pane_commands(),
            *self.others_palette(),
            *(self.panes.palette() if self.panes is not None else []),
        ]

    def _pane_commands(self) -> list[Command]:
        """The palette's entries for the keys of the tab shown (``PANE_KEYS``), each
        doing what its key does there (the runs table's ``c`` copies the row, the
        conversation's its item)."""
        tab = self.query_one(TabbedContent).active
        if not self.panes_ready and tab != FIRST_TAB:
            return []  # (its pane is not mounted yet)
        target = self._tab_target(tab)
        if target is None:
            return []
        title = next(t.title for t in self.TABS if t.id == tab)
        return key_commands(key_chain(target), PANE_KEYS, f"on the {title} tab")


__all__ = ["ModelScreen"]
