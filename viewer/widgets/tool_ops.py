"""``ToolOpsPane``: every tool operation, with the spec's three crash states told apart.

The table is a ``VirtualTable``: a row is built (``OpRows``) only when it is
drawn, so a file with 100,000s of operations shows its table at once.
``refresh_view`` catches up with what replay added; the cursor stays on its
operation (or call) and follows the end while the file grows. Every cell is
a ``rich.text.Text`` made from ``viewer.safe`` output: nothing from the
transcript is ever parsed as markup or reaches the terminal raw.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from session_core.artifacts import ArtifactStatus, artifact_status
from session_core.live import LiveTranscript
from session_core.replay import ReplayState
from session_core.text import count

from ..model import CallIndex, OpRows, ToolOpRow
from ..safe import inert, one_line
from .pane import FocusPane
from .virtual_table import VirtualTable

# (column key, label, width in cells the cell text is clipped to)
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("state", "state", 30),
    ("tool", "tool", 22),
    ("call", "call id", 14),
    ("round", "round", 5),
    ("run", "run", 12),
    ("idempotency", "idempotency", 11),
    ("dispatched", "dispatched-at", 12),
    ("outcome", "outcome", 15),
    ("reason", "reason", 20),
    ("duration", "duration", 9),
    ("error", "error", 30),
    ("artifact", "artifact", 26),
)

STATE_CLASSES: dict[str, str] = {
    "completed": "tool-ops--completed",
    "failed": "tool-ops--failed",
    "outcome-unknown": "tool-ops--outcome-unknown",
    "running": "tool-ops--running",
    "running-dead": "tool-ops--running-dead",
    "unsettled-answered": "tool-ops--unsettled-answered",
    "never-dispatched": "tool-ops--never-dispatched",
    "undispatched-answered": "tool-ops--undispatched-answered",
}

# Used only if the stylesheet lacks a component class (e.g. a harness without panes.tcss).
FALLBACK_STYLES: dict[str, str] = {
    "tool-ops--completed": "green",
    "tool-ops--failed": "red",
    "tool-ops--outcome-unknown": "yellow",
    "tool-ops--running": "cyan",
    "tool-ops--running-dead": "magenta",
    "tool-ops--unsettled-answered": "yellow",
    "tool-ops--never-dispatched": "dim",
    "tool-ops--undispatched-answered": "blue",
    "tool-ops--label": "bold",
    "tool-ops--missing": "dim",
    "tool-ops--refused": "red",
}

ARGUMENTS_LIMIT = 20_000
_TS = re.compile(r"^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)(?:\.(\d{1,6})\d*)?Z?$")


def clock(ts: object) -> str:
    """``13:10:08.542`` from an ISO-8601 timestamp; anything else, inert and clipped."""
    if not isinstance(ts, str) or not ts:
        return ""
    match = _TS.match(ts)
    if match is None:
        return one_line(ts, 12)
    frac = (match.group(2) or "")[:3]
    return match.group(1) + ("." + frac.ljust(3, "0") if frac else "")


def short_id(value: object, width: int = 8) -> str:
    """The first ``width`` characters of an id (inert), enough to tell lines apart."""
    if value is None:
        return ""
    return one_line(value)[:width]


def duration_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return one_line(value, 9)
    seconds = float(value)
    if seconds < 60:
        return f"{seconds:.3f}s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{int(minutes)}m{rest:04.1f}s"
    hours, minutes = divmod(minutes, 60)
    return f"{int(hours)}h{int(minutes):02d}m"


def pretty_arguments(arguments: object) -> str:
    """Arguments as indented JSON when they are JSON (a string or an object), else as given."""
    value: Any = arguments
    if isinstance(arguments, str):
        stripped = arguments.strip()
        if stripped.startswith(("{", "[")):
            try:
                value = json.loads(stripped)
            except ValueError:
                return arguments
        else:
            return arguments
    if isinstance(value, dict | list):
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)
    return "" if value is None else str(value)


class ToolOpsPane(Vertical, FocusPane):
    """A table of every tool operation and a detail view of the highlighted one.

    ``enter`` or ``a`` opens the highlighted operation's artifact; ``m`` (or a
    double click) posts ``ToolOpsPane.Selected`` so the app can show the
    conversation around the call.
    """

    FOCUS_ON = "#tool-ops-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "open_artifact", "Artifact"),
        Binding("m", "jump", "Conversation"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {*STATE_CLASSES.values()} | {
        "tool-ops--label",
        "tool-ops--missing",
        "tool-ops--refused",
    }

    class Selected(Message):
        """The user asked to see this operation's call in the conversation."""

        def __init__(self, pane: ToolOpsPane, row: ToolOpRow) -> None:
            super().__init__()
            self.pane = pane
            self.row = row
            self.call_id: str = row.call_id
            self.op_id: str | None = row.op_id
            self.message_id: str | None = row.message_id  # the assistant message
            self.answer_ids: list[str] = list(row.answer_ids)  # tool messages answering it

        @property
        def control(self) -> ToolOpsPane:
            return self.pane

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state: ReplayState | None = None
        self._path: str = ""
        self._is_live = False
        self._rows = OpRows(ReplayState(), CallIndex())
        self._artifacts: dict[str, ArtifactStatus] = {}  # file name -> status (cached)
        self._shown: tuple[ToolOpRow, bool] | None = None  # what the detail shows

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, self._row_cells, id="tool-ops-table")
        with VerticalScroll(id="tool-op-detail-scroll"):
            yield Static(Text("No tool operations yet.", style="dim"), id="tool-op-detail")

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#tool-ops-table", VirtualTable)

    # -- the data -------------------------------------------------------------

    def refresh_view(self, live: LiveTranscript, calls: CallIndex, is_live: bool) -> None:
        """Bring the table up to date with ``live.state`` (call after every follow update).

        ``calls`` must already be updated from ``live.state``. A new state object
        (a reset) starts again at the top; otherwise the cursor stays on its row's
        operation, or moves to the newest when it was on the last row of a live file.
        """
        table = self.table
        state = live.state
        rows = self._rows
        fresh = state is not self._state or live.path != self._path or calls is not rows.calls
        if fresh:
            self._state = state
            self._path = live.path
            self._artifacts.clear()
            self._shown = None
            rows = self._rows = OpRows(state, calls)
        was_at_end = table.row_count > 0 and table.at_end
        old_count = len(rows)
        current = self.selected_row() if not fresh else None
        self._is_live = is_live
        rows.update()
        table.set_row_count(len(rows))
        if is_live and was_at_end and len(rows) > old_count:
            table.move_cursor(len(rows) - 1)
        elif current is not None:
            index = rows.index_of(current)
            if index is not None and index != table.cursor_row:
                table.move_cursor(index)
        self._show_detail()

    def _row_cells(self, index: int) -> list[Text]:
        return self._cells(self._rows[index])

    def _state_class(self, row: ToolOpRow) -> str:
        if row.state == "running" and not self._is_live:
            return STATE_CLASSES["running-dead"]
        return STATE_CLASSES.get(row.state, STATE_CLASSES["never-dispatched"])

    def _style(self, component: str) -> Style:
        try:
            style = self.get_component_rich_style(component, partial=True)
        except KeyError:
            style = Style()
        return style if style else Style.parse(FALLBACK_STYLES.get(component, ""))

    def artifact_status(self, row: ToolOpRow) -> ArtifactStatus | None:
        """Whether the row's artifact is here (cached per file name; the modal re-checks)."""
        if row.artifact is None:
            return None
        name = row.artifact.get("file")
        cache_key = name if isinstance(name, str) else repr(name)
        status = self._artifacts.get(cache_key)
        if status is None:
            status = artifact_status(self._path, name)
            self._artifacts[cache_key] = status
        return status

    def _artifact_cell(self, row: ToolOpRow, width: int, style: Style) -> Text:
        status = self.artifact_status(row)
        if status is None or row.artifact is None:
            return Text("", style=style, no_wrap=True)
        name = row.artifact.get("file")
        shown = name if isinstance(name, str) else repr(name)
        if status.state == "refused":
            return Text(
                one_line("⚠ refused: " + inert(shown), width), self._style("tool-ops--refused")
            )
        if status.state == "missing":
            return Text(
                one_line("✗ not here: " + inert(shown), width), self._style("tool-ops--missing")
            )
        if status.state == "unreadable":
            return Text(
                one_line("✗ unreadable: " + inert(shown), width), self._style("tool-ops--refused")
            )
        return Text(one_line("▤ " + shown, width), style=style, no_wrap=True)

    def _cells(self, row: ToolOpRow) -> list[Text]:
        style = self._style(self._state_class(row))
        values = {
            "state": row.label(self._is_live),
            "tool": row.tool,
            "call": row.call_id,
            "round": "" if row.round is None else row.round,
            "run": row.run_id,
            "idempotency": row.idempotency,
            "dispatched": clock(row.dispatched_at),
            "outcome": row.outcome,
            "reason": row.reason,
            "duration": duration_text(row.duration),
            "error": row.error,
        }
        cells: list[Text] = []
        for key, _label, width in COLUMNS:
            if key == "artifact":
                cells.append(self._artifact_cell(row, width, style))
                continue
            cell_style = style + Style(bold=True) if key == "state" else style
            cells.append(Text(one_line(values[key], width), style=cell_style, no_wrap=True))
        return cells

    # -- selection and detail ------------------------------------------------

    def selected_row(self) -> ToolOpRow | None:
        """The model row under the cursor, or None when the table is empty."""
        table = self.table
        if table.row_count == 0 or table.cursor_row >= len(self._rows):
            return None
        return self._rows[table.cursor_row]

    @on(VirtualTable.Highlighted, "#tool-ops-table")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#tool-op-detail", Static)
        row = self.selected_row()
        if row is None:
            self._shown = None
            detail.update(Text("No tool operations yet.", style="dim"))
            return
        if self._shown == (row, self._is_live):
            return
        self._shown = (row, self._is_live)
        detail.update(self.detail_text(row))

    def detail_text(self, row: ToolOpRow) -> Text:
        """Everything about one operation, as inert text."""
        label = self._style("tool-ops--label")
        out = Text(no_wrap=False, end="")

        def line(*pairs: tuple[str, object]) -> None:
            first = True
            for name, value in pairs:
                if value is None or value == "":
                    continue
                if not first:
                    out.append("   ")
                first = False
                out.append(f"{name}: ", label)
                out.append(inert(value))
            if not first:
                out.append("\n")

        out.append(row.label(self._is_live), self._style(self._state_class(row)) + Style(bold=True))
        out.append("\n")
        record: dict[str, Any] = {}
        if row.op_id is not None and self._state is not None:
            record = self._state.tool_operation(row.op_id) or {}
        line(("tool", row.tool), ("call id", row.call_id), ("op id", row.op_id))
        line(("run", row.run_id), ("round", row.round), ("idempotency", row.idempotency))
        line(("dispatched-at", row.dispatched_at), ("settled-at", row.settled_at))
        line(
            ("outcome", row.outcome),
            ("reason", row.reason),
            ("duration", duration_text(row.duration)),
        )
        line(
            ("arguments-digest", record.get("arguments-digest")),
            ("result-digest", record.get("result-digest")),
            ("settle line", record.get("settle-id")),
        )
        line(("assistant message", row.message_id), ("answered by", ", ".join(row.answer_ids)))
        if row.error not in (None, ""):
            out.append("error:\n", label)
            out.append(inert(row.error) + "\n", self._style("tool-ops--failed"))
        if row.artifact is not None:
            status = self.artifact_status(row)
            out.append("artifact: ", label)
            where = {
                "here": "here (enter or a: open)",
                "missing": "not here any more",
                "refused": "refused: not a plain file name",
                "unreadable": "cannot be read",
            }.get(status.state if status else "", "")
            out.append(where + "\n")
            for key in ("file", "bytes", "chars", "elided-chars", "digest"):
                if key in row.artifact:
                    value = row.artifact[key]
                    out.append(f"  {key}: ", label)
                    out.append(inert(value if isinstance(value, str) else repr(value)) + "\n")
        if row.arguments not in (None, ""):
            text = pretty_arguments(row.arguments)
            more = len(text) - ARGUMENTS_LIMIT
            out.append("arguments:\n", label)
            out.append(inert(text[:ARGUMENTS_LIMIT]))
            if more > 0:
                out.append(f"\n… {count(more, 'more character')}", "dim")
        out.rstrip()
        return out

    # -- actions -------------------------------------------------------------

    @on(VirtualTable.Activated, "#tool-ops-table")
    def _activated(self, event: VirtualTable.Activated) -> None:
        event.stop()
        self.action_open_artifact()

    @on(VirtualTable.DoubleClicked, "#tool-ops-table")
    def _double_clicked(self, event: VirtualTable.DoubleClicked) -> None:
        event.stop()
        if event.row < len(self._rows):
            self.post_message(self.Selected(self, self._rows[event.row]))

    def action_open_artifact(self) -> None:
        """Open the highlighted operation's artifact (a modal), if it has one."""
        row = self.selected_row()
        if row is None:
            return
        if row.artifact is None:
            self.notify("This operation has no artifact.", timeout=2)
            return
        from ..screens.artifact import ArtifactScreen  # only when one is opened

        self.app.push_screen(ArtifactScreen(self._path, row.artifact.get("file"), row.artifact))

    def action_jump(self) -> None:
        """Ask the app to show the highlighted operation's call in the conversation."""
        row = self.selected_row()
        if row is not None:
            self.post_message(self.Selected(self, row))
