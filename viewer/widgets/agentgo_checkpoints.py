"""``CheckpointsPane``: the explicit checkpoints of a session and one snapshot as JSON.

The latest checkpoint is what ``load_checkpoint`` returns; it is marked. The
snapshot is pretty-printed up to a bound (a checkpoint may hold a whole
history) into a Line-API view, each line on screen highlighted by a regex
highlighter over inert text, never markup, as it is drawn (a ``Static`` of its
64,000 characters took 150-230 ms a move at 100 MB).
"""

from __future__ import annotations

from typing import ClassVar

import orjson
from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical

from session_core.agentgo.view import AgentGoView, Checkpoint
from session_core.json_out import json_bytes
from session_core.text import count

from ..agentgo_detail import cut
from ..agentgo_model import short, source_time
from ..safe import one_line
from .block_view import Entry, LinesView, wrap
from .pane import FocusPane
from .virtual_table import Column, Cut, Fit, FittedTable, VirtualTable

SNAPSHOT_LIMIT = 1_000_000  # characters of pretty JSON shown (drawn as they come on screen)
COLUMNS: list[Column] = [
    ("n", Text("#", justify="right"), 3),
    ("seq", Text("seq", justify="right"), 6),
    ("line", Text("line", justify="right"), 6),
    ("run", "run", 12),
    ("time", "time", 19),
    ("shape", "snapshot", 36),
    ("latest", "", 24),
]
# The table fits the screen (``fitted_columns``): the snapshot's shape takes what the
# others leave; at 80 columns its line and time go (the snapshot's first line says them).
FIT = Fit("shape", 20, ("line", "time"))
LATEST = "latest (load_checkpoint)"


def shape_text(shape: tuple[str, tuple[str, ...], int], key_width: int | None = 24) -> str:
    """``{state, messages}``, ``[3 items]`` or the type's name, from a checkpoint's shape
    (each key cut to ``key_width`` cells; None: whole)."""
    kind, keys, length = shape
    if kind == "dict":
        shown = ", ".join(one_line(k, key_width) for k in keys[:6])
        more = f" +{length - 6}" if length > 6 else ""
        return f"{{{shown}{more}}}"
    if kind == "list":
        return f"[{count(length, 'item')}]"
    return one_line(kind)


def snapshot_entries(snapshot: object, limit: int = SNAPSHOT_LIMIT) -> list[Entry]:
    """The snapshot as indented JSON, a row a line after a header: inert, cut at
    ``limit`` characters."""
    raw = json_bytes(snapshot, orjson.OPT_INDENT_2)
    text = cut(raw[: limit * 4].decode(errors="replace"), limit)
    return [("dim", f"{len(raw):,} bytes of JSON"), *(("json", line) for line in text.split("\n"))]


def snapshot_json(snapshot: object, limit: int = SNAPSHOT_LIMIT) -> Text:
    """The snapshot as ``SnapshotView`` shows it, whole, as one text (tests, copying)."""
    return Text("\n", end="").join(
        [SnapshotView.styled(style, text) for style, text in snapshot_entries(snapshot, limit)]
    )


class SnapshotView(LinesView):
    """A snapshot's JSON lines, each highlighted as it is drawn."""

    _HIGHLIGHT = JSONHighlighter()

    @classmethod
    def styled(cls, style: str, text: str) -> Text:
        if style != "json":
            return Text(text, style=style, end="")
        line = Text(text, end="")
        cls._HIGHLIGHT.highlight(line)
        return line

    def block_height(self, index: int, width: int) -> int:
        if self.entries[index][0] == "json":
            return super().block_height(index, width)
        return len(self.block_lines(index, width))  # (prose: its wrapping's, made)

    def block_lines(self, index: int, width: int) -> list[Text]:
        style, text = self.entries[index]
        if style != "json":  # (prose, as the empty tab's words: "as" / "ks." at 100 columns)
            return wrap(text, width, style, words=True)
        out = wrap(text, width)
        for line in out:
            self._HIGHLIGHT.highlight(line)  # (a string cut by the wrap: its pieces, plain)
        return out


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
        self._shown: tuple[int, bool] | None = None  # (the checkpoint shown, the latest?)
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
        yield FittedTable(COLUMNS, self._row, FIT, id="agentgo-checkpoints-table")
        yield SnapshotView(id="agentgo-checkpoint-json")

    @property
    def table(self) -> FittedTable:
        return self.query_one("#agentgo-checkpoints-table", FittedTable)

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

    def _row(self, row: int) -> dict[str, Text]:
        return self._cells(row, self.view.checkpoints[self.rows[row]])

    def _cells(self, row: int, checkpoint: Checkpoint) -> dict[str, Text]:
        run = self.view.runs.get(checkpoint.run_id)
        latest = checkpoint is self.view.latest_checkpoint()
        number = f"{run.index + 1} " if run else ""
        return {
            "n": Text(str(row + 1), justify="right"),
            "seq": Text(str(checkpoint.seq), justify="right"),
            "line": Text(str(checkpoint.line), justify="right"),
            "run": Cut(f"{number}{short(checkpoint.run_id)}", f"{number}{checkpoint.run_id}"),
            "time": Text(source_time(checkpoint.time)),
            # (taken as it was fed: nothing read)
            "shape": Cut(shape_text(checkpoint.shape), shape_text(checkpoint.shape, None)),
            "latest": Text(LATEST, style="bold green") if latest else Text(""),
        }

    def _said(self, checkpoint: Checkpoint) -> str:
        """The snapshot's first line: its checkpoint (the columns dropped to fit)."""
        time = source_time(checkpoint.time)
        said = [f"seq {checkpoint.seq}", f"line {checkpoint.line}", f"at {time}" if time else ""]
        if checkpoint is self.view.latest_checkpoint():
            said.append(LATEST)
        return " · ".join(part for part in said if part)

    @on(VirtualTable.Highlighted, "#agentgo-checkpoints-table")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self._show()

    @on(VirtualTable.Activated, "#agentgo-checkpoints-table")
    def _opened(self, event: VirtualTable.Activated) -> None:
        """``enter``: into the snapshot, to scroll it (the help's "Open" did nothing)."""
        event.stop()
        self.query_one("#agentgo-checkpoint-json", SnapshotView).focus()

    def _show(self) -> None:
        self._unshown = not self.active
        if self._unshown:
            return
        body = self.query_one("#agentgo-checkpoint-json", SnapshotView)
        if not self.rows:
            # (in the table's first row, as every tab's empty view says it: it was said
            # in the snapshot's place below a blank table)
            self.table.empty_text = (
                f"No checkpoint in this {'run' if self.run_id is not None else 'session'}."
                " Checkpoints are optional: a run saves one only when its host asks."
            )
            # (its height is its rows': room for the note's lines, wrapped at 80 columns)
            self.table.styles.min_height = self.table.HEADER + 3
            body.set_entries([])
            self._shown = None
            return
        self.table.styles.min_height = None
        row = self.table.cursor_row
        row = row if 0 <= row < len(self.rows) else len(self.rows) - 1
        index = self.rows[row]
        checkpoint = self.view.checkpoints[index]
        shown = (index, checkpoint is self.view.latest_checkpoint())  # (its first line says)
        if shown == self._shown:
            return
        self._shown = shown
        body.set_entries([("bold", self._said(checkpoint)), *snapshot_entries(checkpoint.snapshot)])
