"""``RunsPane``: every run of an agentgo session; choosing one filters the other panes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from session_core.agentgo.view import AgentGoView
from session_core.text import count

from ..agentgo_model import CallStats, day_time, short, source_time
from ..safe import one_line
from .line_list import component_style
from .pane import FocusPane

ALL = "*all*"  # the row key of "all runs"

# (column key, label)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("n", "#"),
    ("run", "run id"),
    ("status", "status"),
    ("outcome", "outcome (agent_end)"),
    ("started", "started"),
    ("last", "last"),
    ("records", "records"),
    ("turns", "turns"),
    ("calls", "calls"),
    ("gaps", "gaps"),
)

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
        self._signatures: dict[str, tuple[Any, ...]] = {}

    def compose(self) -> ComposeResult:
        table: DataTable[Text] = DataTable(
            id="agentgo-runs-table", cursor_type="row", zebra_stripes=True
        )
        for key, label in COLUMNS:
            table.add_column(label, key=key)
        yield table
        yield Static(
            Text(
                "enter chooses the run the Calls, Conversation, Checkpoints and Timeline "
                "tabs show; the first row shows every run.",
                style="dim",
            ),
            id="agentgo-runs-hint",
        )

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#agentgo-runs-table", DataTable)

    def _style(self, name: str) -> Style:
        return component_style(self, f"agentgo-runs--{name}", FALLBACK_STYLES)

    def clear(self) -> None:
        self.table.clear()
        self._signatures.clear()

    def refresh_view(self, view: AgentGoView, stats: CallStats) -> None:
        """Add new runs and update changed rows in place (runs are few; rows are keyed)."""
        all_cells = self._all_cells(view, stats)
        self._put(ALL, all_cells)
        for run_id in view.run_order:
            self._put(run_id, self._cells(view, stats, run_id))

    def _put(self, key: str, cells: list[Text]) -> None:
        table = self.table
        signature = (*(cell.plain for cell in cells), key == self.chosen)
        if self._signatures.get(key) == signature:
            return
        if key == self.chosen:
            for cell in cells[:2]:
                cell.stylize(self._style("chosen"))
        if key not in self._signatures:
            table.add_row(*cells, key=key)
        else:
            for (column, _), cell in zip(COLUMNS, cells, strict=True):
                table.update_cell(key, column, cell)
        self._signatures[key] = signature

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

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        self.post_message(self.Chosen(None if key in (None, ALL) else key))
