"""``RunsPane``: every run of an agentgo session; choosing one filters the other panes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from session_core.agentgo.view import AgentGoView
from session_core.text import count

from ..agentgo_model import CallStats, day_time, short, source_time
from ..safe import one_line
from .line_list import component_style
from .pane import FocusPane
from .virtual_table import Column, VirtualTable

ALL = "*all*"  # the row key of "all runs"

COLUMNS: list[Column] = [  # 120 cells in all, with a cell of padding each side
    ("n", Text("#", justify="right"), 3),
    ("run", "run id", 12),
    ("status", "status", 11),
    ("outcome", "outcome (agent_end)", 22),
    ("started", "started", 19),
    ("last", "last", 12),
    ("records", Text("records", justify="right"), 7),
    ("turns", Text("turns", justify="right"), 5),
    ("calls", Text("calls", justify="right"), 5),
    ("gaps", Text("gaps", justify="right"), 4),
]

FALLBACK_STYLES: dict[str, str] = {
    "agentgo-runs--open": "bold green",
    "agentgo-runs--closed": "",
    "agentgo-runs--interrupted": "bold yellow",
    "agentgo-runs--failed": "red",
    "agentgo-runs--gap": "yellow",
    "agentgo-runs--chosen": "bold",
}


class RunsPane(Vertical, FocusPane):
    """A table of runs; ``enter`` (or a click) chooses the run the other panes show."""

    FOCUS_ON = "#agentgo-runs-table"

    COMPONENT_CLASSES: ClassVar[set[str]] = set(FALLBACK_STYLES)

    @dataclass
    class Chosen(Message):
        """A run was chosen; ``run_id`` None means every run."""

        run_id: str | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chosen: str | None = None
        self.keys: list[str] = []  # the rows: "all runs", then each run in order
        self.view = AgentGoView()
        self.stats = CallStats()

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, self._row, id="agentgo-runs-table")
        yield Static(
            Text(
                "enter chooses the run the Calls, Conversation, Checkpoints and Timeline "
                "tabs show; the first row shows every run.",
                style="dim",
            ),
            id="agentgo-runs-hint",
        )

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#agentgo-runs-table", VirtualTable)

    def _style(self, name: str) -> Style:
        return component_style(self, f"agentgo-runs--{name}", FALLBACK_STYLES)

    def clear(self) -> None:
        self.keys = []
        self.table.set_row_count(0)

    def refresh_view(self, view: AgentGoView, stats: CallStats) -> None:
        """The rows again: "all runs", then every run (their cells are made when drawn)."""
        self.view, self.stats = view, stats
        self.keys = [ALL, *view.run_order]
        self.table.set_row_count(len(self.keys))

    def _row(self, index: int) -> Sequence[Text]:
        key = self.keys[index]
        if key == ALL:
            return self._all_cells(self.view, self.stats)
        cells = self._cells(self.view, self.stats, key)
        if key == self.chosen:
            for cell in cells[:2]:
                cell.stylize(self._style("chosen"))
        return cells

    def _all_cells(self, view: AgentGoView, stats: CallStats) -> list[Text]:
        mark = "▶" if self.chosen is None else ""
        gaps = stats.gaps() + stats.run_gaps(view)
        return [
            Text(mark),
            Text("all runs", style="italic"),
            Text(count(len(view.run_order), "run")),
            Text(""),
            Text(day_time(view.started)),
            Text(""),
            Text(f"{len(view.records):,}", justify="right"),
            Text(""),
            Text(f"{len(view.call_order):,}", justify="right"),
            Text(f"{gaps:,}" if gaps else "", style=self._style("gap"), justify="right"),
        ]

    def _cells(self, view: AgentGoView, stats: CallStats, run_id: str) -> list[Text]:
        run = view.runs[run_id]
        status = view.run_status(run_id)
        outcome = run.outcome()
        if run.agent_end is not None and run.agent_end.get("error"):
            outcome_style = self._style("failed")
        elif run.agent_end is None and run.agent_started:
            outcome_style = self._style("gap")
        else:
            outcome_style = Style()
        gaps = stats.gaps(run_id) + (0 if status == "closed" else 1)
        mark = "▶ " if run_id == self.chosen else ""
        return [
            Text(f"{mark}{run.index + 1}", justify="right"),
            Text(short(run_id, 12)),
            Text(status, style=self._style(status)),
            Text(one_line(outcome, 34), style=outcome_style),
            Text(day_time(run.first_time)),
            Text(source_time(run.last_time)[:12]),
            Text(f"{run.records:,}", justify="right"),
            Text(f"{run.turns:,}", justify="right"),
            Text(f"{len(run.calls):,}", justify="right"),
            Text(f"{gaps:,}" if gaps else "", style=self._style("gap"), justify="right"),
        ]

    def choose(self, run_id: str | None, view: AgentGoView, stats: CallStats) -> None:
        self.chosen = run_id
        self.refresh_view(view, stats)

    @on(VirtualTable.Activated)
    @on(VirtualTable.DoubleClicked)
    def _selected(self, event: VirtualTable.Activated) -> None:
        event.stop()
        key = self.keys[event.row] if 0 <= event.row < len(self.keys) else ALL
        self.post_message(self.Chosen(None if key == ALL else key))
