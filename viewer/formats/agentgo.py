"""agentgo-v1's own panes on the model screen: the call tree, the checkpoints and the
timeline (its ``extra_panes``), which the shared conversation, tool operations, runs
and diff do not show; and the run filter they share with the conversation (``enter`` on
a run, ``a``, ``[`` and ``]``).

The panes read the format's own view (``AgentGoLive.view``), kept up to date by
appends: only the calls a batch touched are relabelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TabbedContent

from session_core.agentgo.view import AgentGoView
from session_core.column_items import Items
from session_core.formats import AGENTGO
from session_core.formats.agentgo import AgentGoLive
from session_core.model import Item, Run, Transcript
from session_core.open_work import agentgo_open_work
from session_core.text import count

from ..agentgo_model import CallStats, short, touched_calls
from ..screens.following import Command
from ..widgets.agentgo_calls import CallsPane
from ..widgets.agentgo_checkpoints import CheckpointsPane
from ..widgets.agentgo_timeline import TimelineView
from ..widgets.block_view import Entry
from . import ExtraPane, PaneSet, register_panes

if TYPE_CHECKING:
    from ..screens.model_screen import ModelScreen


class AgentGoPanes(PaneSet):
    """The call tree, checkpoints and timeline of an agentgo session, for the chosen run
    (``None``: every run)."""

    PANES = (
        ExtraPane(
            "calls",
            "Calls",
            lambda: CallsPane(id="agentgo-calls"),
            "Show the call tree",
            "Model, tool and compact calls with attempts and their detail",
        ),
        ExtraPane(
            "checkpoints",
            "Checkpoints",
            lambda: CheckpointsPane(id="agentgo-checkpoints"),
            "Show checkpoints",
            "Saved snapshots as JSON",
        ),
        ExtraPane(
            "timeline",
            "Timeline",
            lambda: TimelineView(id="agentgo-timeline"),
            "Show the timeline",
            "Every record in seq order with its source time",
        ),
    )
    # agentgo's keys as they always were: 1 runs, 2 calls, 3 conversation, 4 checkpoints,
    # 5 timeline; then the shared panes it did not have.
    ORDER = ("runs", "calls", "conversation", "checkpoints", "timeline", "tools", "diff")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "choose_run(None)", "All runs", show=False),
        Binding("right_square_bracket", "step_run(1)", "Next run", show=False),
        Binding("left_square_bracket", "step_run(-1)", "Previous run", show=False),
        Binding("e", "next_problem(1)", "Failed/gap call"),
        Binding("E", "next_problem(-1)", "Previous failed/gap call", show=False),
    ]

    def __init__(self, screen: ModelScreen) -> None:
        super().__init__(screen)
        self.stats = CallStats()
        self.run_filter: str | None = None
        self._records_seen = 0
        self._built = False  # the panes were drawn from the view (after its first batch)
        self._status: list[str] = []
        self._in_flight: list[str] = []  # (made with the status: not on every tick)

    # -- what the panes read ----------------------------------------------------------

    @property
    def view(self) -> AgentGoView:
        live = self.screen.live
        assert isinstance(live, AgentGoLive)
        return live.view

    @property
    def calls(self) -> CallsPane:
        return self.screen.query_one(CallsPane)

    @property
    def checkpoints(self) -> CheckpointsPane:
        return self.screen.query_one(CheckpointsPane)

    @property
    def timeline(self) -> TimelineView:
        return self.screen.query_one(TimelineView)

    # -- following ---------------------------------------------------------------------

    def followed(self, reset: bool) -> None:
        view = self.view
        view.writer_alive = self.screen.writer_is_alive()
        if reset or not self._built:
            if reset and self.run_filter is not None:
                self.run_filter = None  # a new file: every run (the conversation too)
                conversation = self.screen.conversation
                conversation.show(conversation.transcript, to_end=True)
            self.stats = CallStats()
            self.stats.update(view, list(view.call_order))
            self.stats.update_runs(view)
            self._records_seen = len(view.records)
            self._rebuild()
            self._built = True
        else:
            touched = touched_calls(view, self._records_seen)
            self._records_seen = len(view.records)
            self.stats.update(view, touched)
            self.stats.update_runs(view)
            self.calls.refresh_calls(touched)
            self.checkpoints.refresh_checkpoints()
            self.timeline.refresh_records()
        self._refresh_said()

    def liveness_changed(self, live: bool) -> None:
        # The last open run becomes "interrupted" when its writer dies, and back.
        if not self._built:
            return  # drawn once the file is read
        self.view.writer_alive = live
        self._rebuild()
        self._refresh_said()

    def _rebuild(self) -> None:
        """Every pane from the current view and run filter (a reset, or another run)."""
        view = self.view
        self.calls.set_view(view, self.run_filter)
        self.checkpoints.set_view(view, self.run_filter)
        self.timeline.set_view(view, self.run_filter)

    def tab_shown(self, tab: str) -> None:
        self.calls.activate(tab == "calls")  # a hidden tree catches up when shown
        self.checkpoints.activate(tab == "checkpoints")

    def focus_target(self, tab: str) -> Widget:
        panes: dict[str, Widget] = {
            "calls": self.calls,
            "checkpoints": self.checkpoints,
            "timeline": self.timeline,
        }
        return panes[tab]

    # -- what the header and the runs tab say -------------------------------------------

    def status(self) -> list[str]:
        return self._status

    def in_flight(self, transcript: Transcript) -> list[str]:
        """Its view's calls and runs without their end (model calls too), as ``check``."""
        return self._in_flight

    def _refresh_said(self) -> None:
        """The header's words, from the view as it is now (lock held)."""
        self._status = self._status_line()
        self._in_flight = agentgo_open_work(self.view).said()

    def _status_line(self) -> list[str]:
        view = self.view
        runs = self.stats.run_states(view)  # (counted as the records came: no run walked)
        states = [f"{runs[s]} {s}" for s in ("open", "closed", "interrupted") if runs[s]]
        failed_runs = self.stats.failed
        states += [f"{failed_runs} failed"] if failed_runs else []
        runs_said = count(len(view.run_order), "run") + (
            f" ({', '.join(states)})" if states else ""
        )
        failed = self.stats.total["failed"]
        calls = count(len(view.call_order), "call") + (f" ({failed:,} failed)" if failed else "")
        gaps = self.stats.shown_gaps(view)
        return [
            runs_said,
            calls,
            count(len(view.messages), "message"),
            count(len(view.checkpoints), "checkpoint"),
            count(gaps, "gap"),
            f"showing {self.showing()}",
        ]

    def showing(self) -> str:
        if self.run_filter is None:
            return "all runs"
        run = self.view.runs.get(self.run_filter)
        index = f"run {run.index + 1}" if run else "run"
        return f"{index} ({short(self.run_filter)})"

    def run_detail(self, run: Run, index: int) -> list[Entry]:
        view = self.view
        own = view.runs.get(run.id)
        if own is None:
            return []
        status = view.run_status(run.id)
        gaps = self.stats.run_gaps(view, run.id)
        outcome = view.run_outcome(run.id)
        failed = own.failed
        chosen = run.id == self.run_filter
        return [
            ("bold", "agentgo"),
            ("", f"status {status} · {count(own.records, 'record')} · {count(own.turns, 'turn')}"),
            ("red" if failed else "", f"outcome (agent_end): {outcome}"),
            (
                "yellow" if gaps else "",
                f"{count(len(own.calls), 'call')} · {count(gaps, 'gap')}",
            ),
            (
                "bold" if chosen else "dim",
                "Calls, Conversation, Checkpoints and Timeline show this run (enter, a: every run)"
                if chosen
                else "enter: this run alone in Calls, Conversation, Checkpoints and Timeline "
                "(a: every run; [ ]: step)",
            ),
        ]

    # -- the run filter -------------------------------------------------------------------

    def narrow(self, items: Sequence[Item]) -> Sequence[Item]:
        """The chosen run's committed messages of ``items`` (items of the column, whose
        index is the view's message's: the run's are picked by index, none is built)."""
        run_id = self.run_filter
        live = self.screen.live
        if run_id is None or not isinstance(items, Items) or not isinstance(live, AgentGoLive):
            return items  # every run; or a big file's end, shown before its runs are known
        messages = live.view.messages
        column = live.builder.model.column
        n = min(len(messages), len(column))
        return items.of_column(lambda i: i < n and messages[i].run_id == run_id)

    def run_chosen(self, run: Run) -> bool:
        self.action_choose_run(None if run.id == self.run_filter else run.id)
        return True

    def action_choose_run(self, run_id: str | None) -> None:
        if run_id == self.run_filter:
            return
        self.run_filter = run_id
        screen = self.screen
        with screen.state_lock:
            if self._built:
                self._rebuild()
                self._refresh_said()
            conversation = screen.conversation
            conversation.show(conversation.transcript, to_end=conversation.follows_end)
            screen.redraw_runs()  # its detail says which run the tabs show
            runs = screen.runs  # (the runs table's cursor on it: [ and ] left it where it was)
            row = next((i for i, run in enumerate(runs.runs) if run.id == run_id), None)
            if row is not None and row != runs.table.cursor_row:
                runs.table.move_cursor(row)
        screen._refresh_status()

    def action_step_run(self, step: int) -> None:
        order = self.view.run_order
        if not order:
            return
        choices: list[str | None] = [None, *order]
        position = choices.index(self.run_filter) if self.run_filter in choices else 0
        self.action_choose_run(choices[(position + step) % len(choices)])

    def search_term(self, tab: str) -> str | None:
        return self.calls.search_term if tab == "calls" else None

    def search_said(self, tab: str) -> str:
        # (on its tab alone: it was said on every tab; on the first line, as the
        # timeline's is: it was on the fourth)
        return self.calls.match_text() if tab == "calls" and self._built else ""

    def search(self, tab: str, term: str) -> int | None:
        return self.calls.search(term) if tab == "calls" else None

    def action_next_problem(self, step: int) -> None:
        tabs = self.screen.query_one(TabbedContent)
        calls = self.calls
        calls.activate(True)  # caught up, so every call can be found
        if not calls.step_problem(step):
            calls.activate(tabs.active == "calls")
            self.screen.notify("No other failed or gap call here.", timeout=2)
            return
        tabs.active = "calls"
        calls.activate(True)
        calls.focus()

    def on_timeline_view_open_call(self, event: TimelineView.OpenCall) -> None:
        self.screen.action_show_tab("calls")
        self.calls.select(event.key)

    # -- the palette ---------------------------------------------------------------------

    def palette(self) -> list[Command]:
        return [
            *super().palette(),
            (
                "All runs",
                "Every run in the Calls, Conversation, Checkpoints and Timeline tabs",
                lambda: self.action_choose_run(None),
            ),
            ("Next run", "Only the next run there", lambda: self.action_step_run(1)),
            ("Previous run", "Only the previous run there", lambda: self.action_step_run(-1)),
            ("Next failed or gap call", "In the call tree", lambda: self.action_next_problem(1)),
            (
                "Previous failed or gap call",
                "In the call tree",
                lambda: self.action_next_problem(-1),
            ),
            ("Open the record's call", "From the timeline", self.timeline.action_open_call),
        ]


register_panes(AGENTGO, AgentGoPanes)

__all__ = ["AgentGoPanes"]
