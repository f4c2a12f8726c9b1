"""The agentgo screen: runs, call tree, conversation, checkpoints and timeline of one session."""

from __future__ import annotations

import os
from collections import Counter
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TabbedContent

from session_core.agentgo.live import LiveAgentGo
from session_core.agentgo.tail import read_tail
from session_core.agentgo.view import AgentGoView
from session_core.following import FollowUpdate
from session_core.formats import AGENTGO

from ..agentgo_model import CallStats, short, touched_calls
from ..widgets.agentgo_calls import CallsPane
from ..widgets.agentgo_checkpoints import CheckpointsPane
from ..widgets.agentgo_conversation import CommittedView
from ..widgets.agentgo_runs import RunsPane
from ..widgets.agentgo_status import AgentGoStatus
from ..widgets.agentgo_timeline import TimelineView
from .export import ExportScreen
from .following import PREVIEW_FROM, WARNINGS, Command, FollowingScreen, Pane, Tab, tab_keys
from .warnings import WarningsScreen


class AgentGoScreen(FollowingScreen):
    """One agentgo-v1 session, followed as it grows."""

    FORMAT = AGENTGO
    PARSED_UPDATES = False  # LiveAgentGo parses each line as it applies it
    EXPORT_HELP = "The session as Markdown, HTML or JSON (like tailscope export)"

    TABS = (
        Tab("runs", "Runs", lambda: RunsPane(id="agentgo-runs")),
        Tab("calls", "Calls", lambda: CallsPane(id="agentgo-calls")),
        Tab("conversation", "Conversation", lambda: CommittedView(id="agentgo-conversation")),
        Tab("checkpoints", "Checkpoints", lambda: CheckpointsPane(id="agentgo-checkpoints")),
        Tab("timeline", "Timeline", lambda: TimelineView(id="agentgo-timeline")),
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        *tab_keys(TABS, show=True),
        Binding("a", "choose_run(None)", "All runs", show=False),
        Binding("right_square_bracket", "step_run(1)", "Next run", show=False),
        Binding("left_square_bracket", "step_run(-1)", "Previous run", show=False),
        Binding("e", "next_problem(1)", "Failed/gap call"),
        Binding("E", "next_problem(-1)", "Previous failed/gap call", show=False),
        WARNINGS,
    ]

    def __init__(self, path: str | os.PathLike[str], *, force_polling: bool = False) -> None:
        super().__init__(path, force_polling=force_polling, id="agentgo")
        self.live = LiveAgentGo(self.path)
        self.stats = CallStats()
        self.run_filter: str | None = None
        self._records_seen = 0

    # -- layout -----------------------------------------------------------------

    def _status_bar(self) -> Widget:
        return AgentGoStatus(id="status")

    runs = Pane(RunsPane)
    calls = Pane(CallsPane)
    conversation = Pane(CommittedView)
    checkpoints = Pane(CheckpointsPane)
    timeline = Pane(TimelineView)

    # -- following ----------------------------------------------------------------

    def _preview_from(self) -> int:
        return PREVIEW_FROM  # this module's, read when asked (a test lowers it)

    def _read_tail(self) -> AgentGoView:
        """The conversation's end (a big file's preview shows nothing else)."""
        view, _size = read_tail(self.path)
        return view

    def _draw_preview(self, preview: AgentGoView) -> None:
        self.conversation.set_view(preview, None)

    def _apply_update(self, update: FollowUpdate) -> None:
        first = not self._loaded
        reset = update.reset  # the worker replayed it into self.live already
        view = self.live.view
        view.writer_alive = self._was_live = self._is_live()
        if reset or first:
            if reset and not first:
                self._say_rebuilt()
                self.run_filter = None
            self.stats = CallStats()
            self.stats.update(view, list(view.call_order))
            self._records_seen = len(view.records)
            self._rebuild()
            self._loaded = True
        else:
            touched = touched_calls(view, self._records_seen)
            self._records_seen = len(view.records)
            self.stats.update(view, touched)
            self.calls.refresh_calls(touched)
            self.conversation.refresh_messages()
            self.checkpoints.refresh_checkpoints()
            self.timeline.refresh_records()
            self.runs.refresh_view(view, self.stats)
        self._refresh_status()

    def _rebuild(self) -> None:
        """Every pane from the current view and run filter (a reset, or another run)."""
        view = self.live.view
        self.runs.clear()
        self.runs.choose(self.run_filter, view, self.stats)
        self.calls.set_view(view, self.run_filter)
        self.conversation.set_view(view, self.run_filter)
        self.checkpoints.set_view(view, self.run_filter)
        self.timeline.set_view(view, self.run_filter)

    def _liveness_changed(self, live: bool) -> None:
        # The last open run becomes "interrupted" when its writer dies, and back.
        if self._previewing:
            return  # the panes are drawn once the load is over
        self.live.view.writer_alive = live
        self._rebuild()

    def showing(self) -> str:
        view = self.live.view
        if self.run_filter is None:
            return "all runs"
        run = view.runs.get(self.run_filter)
        index = f"run {run.index + 1}" if run else "run"
        return f"{index} ({short(self.run_filter)})"

    def _refresh_status(self) -> None:
        view = self.live.view
        live = self.live_label()
        if self._previewing:
            self.query_one(AgentGoStatus).show_loading(
                name=os.path.basename(self.path),
                size=max(self.live.size, self._progress[1]),
                live=live,
                note=f"loading {self._loaded_percent()}%, showing the conversation's end meanwhile",
            )
            self.show_problem(None)
            return
        runs: Counter[str] = Counter(view.run_status(run_id) for run_id in view.run_order)
        self.query_one(AgentGoStatus).show(
            name=os.path.basename(self.path),
            size=self.live.size,
            live=live,
            session_id=view.session_id,
            runs={state: runs[state] for state in ("open", "closed", "interrupted")},
            calls=len(view.call_order),
            failed=self.stats.total["failed"],
            messages=len(view.messages),
            checkpoints=len(view.checkpoints),
            gaps=self.stats.gaps() + self.stats.run_gaps(view),
            warnings=len(view.warnings),
            showing=self.showing(),
        )
        self.show_problem(self._problem())

    def _problem(self) -> str | None:
        if not self.live.exists:
            return self.missing_message()
        view = self.live.view
        if view.session_id is None and view.warnings:
            return "This file could not be read as an agentgo session: " + view.warnings[0]
        return None

    # -- actions ------------------------------------------------------------------

    def action_warnings(self) -> None:
        self.app.push_screen(WarningsScreen(list(self.live.view.warnings)))

    def action_export(self) -> None:
        self.app.push_screen(ExportScreen(self.path))

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.calls.activate(tab == "calls")
        pane = {
            "runs": self.runs,
            "calls": self.calls,
            "conversation": self.conversation,
            "checkpoints": self.checkpoints,
            "timeline": self.timeline,
        }[tab]
        pane.focus()

    def action_choose_run(self, run_id: str | None) -> None:
        if run_id == self.run_filter:
            return
        self.run_filter = run_id
        self._rebuild()
        self._refresh_status()  # the status bar says which run is shown

    def action_step_run(self, step: int) -> None:
        order = self.live.view.run_order
        if not order:
            return
        choices: list[str | None] = [None, *order]
        position = choices.index(self.run_filter) if self.run_filter in choices else 0
        self.action_choose_run(choices[(position + step) % len(choices)])

    def action_next_problem(self, step: int) -> None:
        self.calls.activate(True)  # caught up, so every call can be found
        if not self.calls.step_problem(step):
            self.calls.activate(self.query_one(TabbedContent).active == "calls")
            self.notify("No other failed or gap call here.", timeout=2)
            return
        self.query_one(TabbedContent).active = "calls"
        self.calls.activate(True)
        self.calls.focus()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.calls.activate(event.pane.id == "calls")

    @on(RunsPane.Chosen)
    def _run_chosen(self, event: RunsPane.Chosen) -> None:
        self.action_choose_run(event.run_id)

    @on(TimelineView.OpenCall)
    def _open_call(self, event: TimelineView.OpenCall) -> None:
        self.action_show_tab("calls")
        self.calls.select(event.key)

    def _palette(self) -> list[Command]:
        conversation = self.conversation
        return [
            self._export_command(),
            ("Show runs", "Every run: status, outcome, calls, gaps", self._show("runs")),
            (
                "Show the call tree",
                "Model, tool and compact calls with attempts and their detail",
                self._show("calls"),
            ),
            (
                "Show the conversation",
                "Committed messages (message_end)",
                self._show("conversation"),
            ),
            ("Show checkpoints", "Saved snapshots as JSON", self._show("checkpoints")),
            (
                "Show the timeline",
                "Every record in seq order with its source time",
                self._show("timeline"),
            ),
            ("All runs", "Show every run in the tabs", lambda: self.action_choose_run(None)),
            ("Next run", "Show the next run only", lambda: self.action_step_run(1)),
            ("Previous run", "Show the previous run only", lambda: self.action_step_run(-1)),
            ("Next failed or gap call", "In the call tree", lambda: self.action_next_problem(1)),
            (
                "Previous failed or gap call",
                "In the call tree",
                lambda: self.action_next_problem(-1),
            ),
            ("Warnings", "Broken rules, resets, replaced files", self.action_warnings),
            (
                "Expand / fold message",
                "The selected committed message",
                conversation.action_toggle_fold,
            ),
            ("Copy message", "The selected committed message's text", conversation.action_copy),
            ("Open the record's call", "From the timeline", self.timeline.action_open_call),
        ]
