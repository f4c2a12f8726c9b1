"""``CheckpointsPane``: the explicit checkpoints of a session and one snapshot as JSON.

The latest checkpoint is what ``load_checkpoint`` returns; it is marked. The
snapshot is pretty-printed up to a bound (a checkpoint may hold a whole
history) and highlighted by a regex highlighter over inert text, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import orjson
from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from session_core.agentgo.view import AgentGoView, Checkpoint
from session_core.json_out import dumps, escape_c1
from session_core.text import count

from ..agentgo_detail import cut
from ..agentgo_model import short, source_time
from ..safe import one_line
from .pane import FocusPane
from .virtual_table import Column, VirtualTable

SNAPSHOT_LIMIT = 64_000  # characters of pretty JSON shown
COLUMNS: list[Column] = [
    ("n", Text("#", justify="right"), 3),
    ("seq", Text("seq", justify="right"), 6),
    ("line", Text("line", justify="right"), 6),
    ("run", "run", 12),
    ("time", "time", 19),
    ("shape", "snapshot", 36),
    ("latest", "", 24),
]


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
    raw = escape_c1(dumps(snapshot, orjson.OPT_INDENT_2))  # (as ``json_text``)
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
        self._seen = 0
        self._shown: int | None = None
        # The tab is shown: a hidden pane's snapshot (a big JSON made and styled, 0.1 s
        # at the end of a 1 GB load) waits until it is.
        self.active = False
        self._unshown = False

    def activate(self, active: bool) -> None:
        """The tab is shown (show the highlighted snapshot, if one waits) or hidden."""
        self.active = active
        if active and self._unshown:
            self._show()

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, self._row, id="agentgo-checkpoints-table")
        with VerticalScroll(id="agentgo-checkpoint-scroll"):
            yield Static(Text("No checkpoint.", style="dim"), id="agentgo-checkpoint-json")

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#agentgo-checkpoints-table", VirtualTable)

    def set_view(self, view: AgentGoView, run_id: str | None) -> None:
        self.view = view
        self.run_id = run_id
        self.rows = []
        self._seen = 0
        self._shown = None
        self.table.set_row_count(0)
        self.refresh_checkpoints()
        if self.rows:
            self.table.move_cursor(row=len(self.rows) - 1)
        self._show()

    def refresh_checkpoints(self) -> None:
        view = self.view
        before = len(self.rows)
        for index in range(self._seen, len(view.checkpoints)):
            if self.run_id is None or view.checkpoints[index].run_id == self.run_id:
                self.rows.append(index)
        self._seen = len(view.checkpoints)
        if len(self.rows) != before:
            self.table.set_row_count(len(self.rows))  # drawn again: the latest's mark moved
            self._show()

    def _row(self, row: int) -> Sequence[Text]:
        return self._cells(row, self.view.checkpoints[self.rows[row]])

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

    @on(VirtualTable.Highlighted, "#agentgo-checkpoints-table")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self._show()

    def _show(self) -> None:
        self._unshown = not self.active
        if self._unshown:
            return
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
