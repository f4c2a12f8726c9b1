"""``TimelineView``: every record of a run (or of the session) in seq order, one line each.

A Line API list: 100k records cost an index list and only the visible
lines are ever formatted. ``enter`` on a record about a call opens that call; ``/``
searches the records (``RowSearch``, by ``RecordSearch``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip

from session_core.agentgo.records import NO_SEQ, Records
from session_core.agentgo.search import RecordSearch
from session_core.agentgo.view import KNOWN_TYPES, AgentGoView, CallKey
from session_core.cells import clip_cells, pad_cells
from session_core.fold import fold

from ..agentgo_model import compact_json, fitted_time, record_summary
from ..heights import Uniform
from ..safe import one_line
from .line_list import highlight
from .row_search import RowSearch
from .virtual_table import SCROLLBAR, Column, fitted_columns

CATEGORY: dict[str, str] = {
    "session_start": "lifecycle",
    "run_start": "lifecycle",
    "run_close": "lifecycle",
    "agent_start": "lifecycle",
    "agent_end": "lifecycle",
    "turn_start": "turn",
    "turn_end": "turn",
    "model_request": "model",
    "model_exec_end": "model",
    "model_response": "model",
    "message_end": "message",
    "tool_exec_start": "tool",
    "tool_invoke_start": "tool",
    "tool_exec_end": "tool",
    "retry": "failed",
    "context_projected": "context",
    "context_compacted": "context",
    "checkpoint": "checkpoint",
}

FALLBACK_STYLES: dict[str, str] = {
    "timeline--seq": "dim",
    "timeline--time": "cyan",
    "timeline--lifecycle": "bold magenta",
    "timeline--turn": "magenta",
    "timeline--model": "bold blue",
    "timeline--message": "bold green",
    "timeline--tool": "bold yellow",
    "timeline--context": "cyan",
    "timeline--checkpoint": "bold cyan",
    "timeline--failed": "bold red",
    "timeline--unknown": "italic",
    "timeline--exec": "",
    "timeline--dim": "dim",
    "timeline--cursor": "reverse",
    "timeline--match": "bold black on yellow",
    "timeline--header": "bold",
}


# Cells of each column with the 1 that parts it from the next (the time's fraction, at
# the precision the file gives it: ``.`` and up to nanoseconds, beside the time). The
# type's holds ``authorization_grants``, the longest the demo writes (it ran 2 cells over
# a column of 18 and pushed its row's other columns along); a longer one is cut (``…``).
TIME_WIDTH, FRACTION_WIDTH, TYPE_WIDTH, RUN_WIDTH, EXEC_WIDTH = 9, 11, 21, 4, 27
LEAST_SUMMARY = 30  # cells the summary keeps before a column goes
DROPPED = ("fraction", "run", "exec")


class TimelineView(RowSearch):
    """Records of the chosen run (``None``: all) with seq, source time, type and execution."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(FALLBACK_STYLES)
    FALLBACK_STYLES: ClassVar[Mapping[str, str]] = FALLBACK_STYLES
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "open_call", "Open call")]
    HEADER = 1  # its columns' labels, as every table has (it had none)

    @dataclass
    class OpenCall(Message):
        key: CallKey

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = AgentGoView()
        self.run_id: str | None = None
        self.rows: list[int] | None = None  # record indices of the run; None: every record
        self._seen = 0
        self.heights = self.shown = Uniform()

    def _style(self, name: str) -> Style:
        return self.component(f"timeline--{name}")

    # -- feeding ------------------------------------------------------------------

    def set_view(self, view: AgentGoView, run_id: str | None) -> None:
        """A new view (a reset) or another run: rebuild the index (one pass)."""
        self.view = view
        self.run_id = run_id
        self._seen = 0
        self.rows = None if run_id is None else []
        self._catch_up()
        self.reset_items()
        self.search_again()

    def refresh_records(self) -> None:
        before = self.item_count()
        at_end = self.is_at_end
        self._catch_up()
        self.items_appended(before, at_end)
        self.search_appended()

    def _catch_up(self) -> None:
        view = self.view
        records = view.records
        if self.rows is not None:
            run = view.runs.get(self.run_id) if self.run_id is not None else None
            # Records of the run whose run_id is that str (the view numbered them as fed).
            want = run.index if run is not None else None
            runs = records.runs
            rows = self.rows
            if want is not None:
                rows.extend(i for i in range(self._seen, len(records)) if runs[i] == want)
        self._seen = len(records)
        self.shown.count = self._seen if self.rows is None else len(self.rows)

    def record_index(self, row: int) -> int:
        return row if self.rows is None else self.rows[row]

    # -- searching (``RowSearch``) ------------------------------------------------------

    NOT_FOUND = "No record matches: / searches the timeline."

    def search_source(self) -> Records:
        return self.view.records

    def search_keys(self, start: int, end: int) -> Sequence[int]:
        return range(start, end) if self.rows is None else self.rows[start:end]

    def finder(self, term: str) -> RecordSearch:
        return RecordSearch(term)

    # -- rendering ------------------------------------------------------------------

    def _shown_columns(self, width: int) -> set[str]:
        """The columns a row ``width`` cells wide shows: the summary keeps at least
        ``LEAST_SUMMARY`` cells, by the rule every table fits its width by
        (``fitted_columns``), the time's fraction, the run and the execution going in
        that order (the call's detail, ``enter``, says them)."""
        digits = max(3, len(str(len(self.view.records))))
        # (fitted_columns counts 2 cells between columns and a scroll bar: here each
        # width holds its 1-cell separator, ``width`` is past the bar and the row
        # begins with the cursor's mark.)
        columns: list[Column] = [
            (key, "", cells - 2)
            for key, cells in (
                ("seq", digits + 1),
                ("time", TIME_WIDTH),
                ("fraction", FRACTION_WIDTH),
                ("type", TYPE_WIDTH),
                ("run", RUN_WIDTH),
                ("exec", EXEC_WIDTH),
            )
        ]
        columns.append(("summary", "", width))
        if self.run_id is not None:  # (one run shown: no run column)
            columns = [column for column in columns if column[0] != "run"]
        fitted = fitted_columns(columns, width + SCROLLBAR + 1, "summary", LEAST_SUMMARY, DROPPED)
        return {key for key, _, _ in fitted}

    def header_strip(self, y: int) -> Strip:
        """The columns' labels, each over its column as ``item_lines`` lays them out."""
        width = self.content_width
        shown = self._shown_columns(width)
        digits = max(3, len(str(len(self.view.records))))
        line = Text(" " + f"{'seq':>{digits}} ", no_wrap=True, end="")
        cells = TIME_WIDTH - 1 + (FRACTION_WIDTH if "fraction" in shown else 0)
        line.append(f"{'time':<{cells}} {'type':<{TYPE_WIDTH - 1}} ")
        if self.run_id is None and "run" in shown:
            line.append(f"{'run':<{RUN_WIDTH - 1}} ")
        if "exec" in shown:
            line.append(f"{'execution':<{EXEC_WIDTH - 1}} ")
        line.append("summary")
        line.stylize(self._style("header"))
        line.truncate(width, overflow="ellipsis", pad=True)
        return Strip(list(line.render(self.app.console)), width)

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        view = self.view
        at = self.record_index(index)
        record = view.records[at]
        shown = self._shown_columns(width)
        kind = one_line(record.get("type"), 40)
        seq = record.get("seq")
        line = Text(no_wrap=True)
        line.append("▌" if selected else " ", self._style("cursor") if selected else "")
        digits = max(3, len(str(len(view.records))))
        line.append(f"{one_line(seq, digits):>{digits}} ", self._style("seq"))
        cells = TIME_WIDTH - 1 + (FRACTION_WIDTH if "fraction" in shown else 0)
        line.append(f"{fitted_time(record.get('time'), cells)} ", self._style("time"))
        category = CATEGORY.get(kind, "unknown" if kind not in KNOWN_TYPES else "lifecycle")
        misshapen = view.is_misshapen(at)
        if misshapen:
            category = "unknown"
        elif kind == "model_exec_end" and _field(record, "error"):
            category = "failed"
        if kind == "tool_exec_end" and _field(record, "is_error"):
            category = "failed"
        shown_kind = pad_cells(clip_cells(kind, TYPE_WIDTH - 1), TYPE_WIDTH - 1)
        line.append(f"{shown_kind} ", self._style(category))
        if self.run_id is None and "run" in shown:
            run = view.runs.get(str(record.get("run_id"))) if record.get("run_id") else None
            line.append(
                f"{'r' + str(run.index + 1) if run else '':<{RUN_WIDTH - 1}} ", self._style("dim")
            )
        execution = record.get("execution")
        if "exec" in shown:
            ident = Text()
            if isinstance(execution, dict):
                ident.append(
                    f"{one_line(execution.get('kind'), 7)} {one_line(execution.get('id'), 16)}"
                )
                ident.append(f" #{one_line(execution.get('attempt'), 3)}")
                parent = execution.get("parent_id")
                if parent is not None:
                    ident.append(f" ↳{one_line(parent, 12)}", self._style("dim"))
            ident.truncate(EXEC_WIDTH - 1, overflow="ellipsis", pad=True)  # (a cut parent: …)
            line.append_text(ident)
            line.append(" ")
        if misshapen:  # (not read as its type says: its data as written)
            line.append("(misshapen, raw) ", self._style("dim"))
            line.append(compact_json(record.get("data"), max(10, width - line.cell_len)))
        else:
            if kind not in KNOWN_TYPES:
                line.append("(unknown type, raw) ", self._style("dim"))
            line.append(record_summary(record, max(10, width - line.cell_len)))
        if selected:
            line.stylize(self._style("cursor"), 1)
        line.truncate(width, overflow="ellipsis")
        if self.search_term:  # (where the term is on the row: it may be deeper in)
            highlight(line, fold(self.search_term), self._style("match"))
        return [line]

    def selected_call(self) -> CallKey | None:
        if not 0 <= self.cursor < self.item_count():
            return None
        at = self.view.records.calls[self.record_index(self.cursor)]
        return self.view.call_order[at] if at >= 0 else None  # (a misshapen one: none)

    def action_open_call(self) -> None:
        key = self.selected_call()
        if key is None:
            self.app.notify("This record is not about a call.", timeout=2)
            return
        self.post_message(self.OpenCall(key))

    def move_to_seq(self, seq: int) -> bool:
        records = self.view.records
        seqs = records.seqs
        for row in range(self.item_count()):
            at = self.record_index(row)
            found = seqs[at]
            if found == seq or (found == NO_SEQ and records[at].get("seq") == seq):
                self.move_to(row)
                return True
        return False


def _field(record: dict[str, object], name: str) -> object:
    data = record.get("data")
    return data.get(name) if isinstance(data, dict) else None
