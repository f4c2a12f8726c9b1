"""``CheckpointsPane``: the explicit checkpoints of a session and one snapshot as JSON.

The latest checkpoint is what ``load_checkpoint`` returns; it is marked. The
snapshot is pretty-printed up to a bound (a checkpoint may hold a whole
history) and highlighted by a regex highlighter over inert text, never markup.
"""

from __future__ import annotations

from typing import ClassVar

import orjson
from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from session_core.agentgo.view import AgentGoView, Checkpoint
from session_core.text import count

from ..agentgo_detail import cut
from ..agentgo_model import short, source_time
from ..safe import one_line
from .pane import FocusPane

SNAPSHOT_LIMIT = 64_000  # characters of pretty JSON shown


def shape_text(shape: tuple[str, tuple[str, ...], int]) -> str:
    """``{state, messages}``, ``[3 items]`` or the type's name, from a checkpoint's shape."""
    kind, keys, length = shape
    if kind == "dict":
        shown = ", ".join(one_line(k, 24) for k in keys[:6])
        more = f" +{length - 6}" if length > 6 else ""
        return f"{{{shown}{more}}}"
    if kind == "list":
        return f"[{count(length, 'item')}]"
    return one_line(kind)


def snapshot_json(snapshot: object, limit: int = SNAPSHOT_LIMIT) -> Text:
    """The snapshot as indented JSON: inert, cut at ``limit`` characters, highlighted."""
    try:
        raw = orjson.dumps(snapshot, option=orjson.OPT_INDENT_2, default=str)
    except TypeError:
        raw = repr(snapshot).encode()
    size = len(raw)
    text = Text(cut(raw[: limit * 4].decode(errors="replace"), limit), end="")
    JSONHighlighter().highlight(text)
    header = Text(f"{size:,} bytes of JSON", style="dim", end="")
    return Text("\n", end="").join([header, text])


class CheckpointsPane(Vertical, FocusPane):
    """A table of checkpoints (of the chosen run, or all) and the highlighted one's snapshot."""

    FOCUS_ON = "#agentgo-checkpoints-table"

    COMPONENT_CLASSES: ClassVar[set[str]] = set()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = AgentGoView()
        self.run_id: str | None = None
        self.rows: list[int] = []  # indices into view.checkpoints
        self._row_of: dict[int, int] = {}
        self._seen = 0
        self._shown: int | None = None

    def compose(self) -> ComposeResult:
        table: DataTable[Text] = DataTable(id="agentgo-checkpoints-table", cursor_type="row")
        for key, label in (
            ("n", "#"),
            ("seq", "seq"),
            ("line", "line"),
            ("run", "run"),
            ("time", "time"),
            ("shape", "snapshot"),
            ("latest", ""),
        ):
            table.add_column(label, key=key)
        yield table
        with VerticalScroll(id="agentgo-checkpoint-scroll"):
            yield Static(Text("No checkpoint.", style="dim"), id="agentgo-checkpoint-json")

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#agentgo-checkpoints-table", DataTable)

    def set_view(self, view: AgentGoView, run_id: str | None) -> None:
        self.view = view
        self.run_id = run_id
        self.rows = []
        self._row_of = {}
        self._seen = 0
        self._shown = None
        self.table.clear()
        self.refresh_checkpoints()
        if self.rows:
            self.table.move_cursor(row=len(self.rows) - 1)
        self._show()

    def refresh_checkpoints(self) -> None:
        view = self.view
        table = self.table
        previous_latest = self._seen - 1
        added = False
        for index in range(self._seen, len(view.checkpoints)):
            checkpoint = view.checkpoints[index]
            if self.run_id is not None and checkpoint.run_id != self.run_id:
                continue
            self._row_of[index] = len(self.rows)
            self.rows.append(index)
            table.add_row(*self._cells(len(self.rows) - 1, checkpoint), key=str(index))
            added = True
        self._seen = len(view.checkpoints)
        if self._seen - 1 != previous_latest and previous_latest in self._row_of:
            table.update_cell(str(previous_latest), "latest", Text(""))
        if added:
            self._show()

    def _cells(self, row: int, checkpoint: Checkpoint) -> list[Text]:
        run = self.view.runs.get(checkpoint.run_id)
        latest = checkpoint is self.view.latest_checkpoint()
        return [
            Text(str(row + 1), justify="right"),
            Text(str(checkpoint.seq), justify="right"),
            Text(str(checkpoint.line), justify="right"),
            Text(
                f"{run.index + 1} {short(checkpoint.run_id)}" if run else short(checkpoint.run_id)
            ),
            Text(source_time(checkpoint.time)),
            Text(shape_text(checkpoint.shape)),  # taken as it was fed: nothing is read
            Text("latest (load_checkpoint)", style="bold green") if latest else Text(""),
        ]

    @on(DataTable.RowHighlighted, "#agentgo-checkpoints-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show()

    @on(DataTable.RowSelected, "#agentgo-checkpoints-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()

    def _show(self) -> None:
        body = self.query_one("#agentgo-checkpoint-json", Static)
        if not self.rows:
            body.update(
                Text(
                    "No checkpoint in this "
                    + ("run" if self.run_id is not None else "session")
                    + ". Checkpoints are optional: a run saves one only when its host asks.",
                    style="dim",
                )
            )
            self._shown = None
            return
        row = self.table.cursor_row
        row = row if 0 <= row < len(self.rows) else len(self.rows) - 1
        index = self.rows[row]
        if index == self._shown:
            return
        self._shown = index
        checkpoint = self.view.checkpoints[index]
        body.update(snapshot_json(checkpoint.snapshot))
