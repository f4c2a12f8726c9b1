"""The model screen's tables: tool operations and runs (with their contexts). Each draws
only the rows on screen. (The diff of what compactions folded and kept: ``model_diff``.)"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message

from session_core.fold import fold
from session_core.model import (
    ToolOp,
    Transcript,
    op_states,
    ops_in_state,
    packed_tools,
    unsettled_ops,
)
from session_core.op_running import RanAtLeast, ran_by_call, took_said
from session_core.search import OpSearch, main_argument, op_arguments
from session_core.tool_ops import STATE_LABELS, state_label, state_tone

from ..safe import fit_path, one_line, one_line_text
from ..screens.filter import Choice, FilterScreen
from .line_list import highlight
from .ops_filter import OpsFilter
from .row_search import RowSearch
from .runs_pane import RUN_COLUMNS, RunsPane, run_entries, usage_short
from .table_detail import TableDetail, tone_text
from .virtual_table import Column, VirtualTable

PATH_ARGUMENTS = frozenset({"file_path", "path"})


def fit_op_arguments(arguments: object, width: int) -> str:
    """``op_arguments`` on one line in ``width`` cells. A main argument that is a path is
    cut from the left (``safe.fit_path``): its file name tells the rows apart; the rest
    is cut at its end."""
    found = main_argument(arguments)
    if found is None or found[0] not in PATH_ARGUMENTS:
        return one_line(op_arguments(arguments), width)
    _key, value, rest = found
    path = fit_path(value, width)
    return path + one_line(f"  {rest}", width - cell_len(path)) if rest else path


# The state column fits the labels of the states its operations are in: a settled one's
# (these, counted without making the operations), and those of the operations that may
# not be (``unsettled_ops``: few, and where v1's crash states are, which differ in their
# last words).
SETTLED_STATES = ("completed", "failed", "outcome-unknown", "interrupted")
STATE_WIDTH = max(len(STATE_LABELS[state]) for state in SETTLED_STATES)
TOOL_WIDTH = (len("tool"), 12)  # the tool column fits its names, within these
CALL_WIDTH = (14, 32)  # a call id's start ("…": the detail has it whole); whole with room
OP_COLUMNS: list[Column] = [
    ("state", "state", STATE_WIDTH),
    ("tool", "tool", TOOL_WIDTH[1]),
    ("call", "call id", CALL_WIDTH[0]),
    ("args", "arguments", 54),
    ("duration", "took", 8),
    ("line", "line", 7),
]
ARGS_WIDTH = (20, 120)  # the arguments take what the other columns leave, within these
ARGS_BEFORE_CALL = 40  # the call id is shown only where the arguments keep this many
# ... and the line too, ``took`` then as wide as a duration is (``duration_text``: "4m07s",
# "<0.01s"): at 80 columns they kept 32 cells to their 15 (a first-time-user audit)
NARROW_TOOK = 6


def op_widths(width: int, state: int, tool: int = TOOL_WIDTH[1]) -> dict[str, int]:
    """The columns' widths in a table ``width`` cells wide whose state and tool columns
    are ``state`` and ``tool`` wide (what they hold), so that what a call sent gets the
    room and the line is on screen where it can be (at 140 cells it was cut to "38"):
    the arguments take what the others leave (each column 2 cells apart, 2 for the
    scroll bar), within ``ARGS_WIDTH``; the call id (the least needed: the detail has it)
    is its start, goes first where the arguments would keep fewer than
    ``ARGS_BEFORE_CALL`` cells, and is whole where they have all theirs; where they
    would still keep fewer, the line goes too (the detail has it, ``m`` shows its
    message) and ``took`` narrows (``NARROW_TOOK``); past that the table scrolls. As
    ``OP_COLUMNS`` while the width is not known."""
    widths = {key: w for key, _, w in OP_COLUMNS}
    widths["state"], widths["tool"] = state, tool
    if width <= 0:
        return widths
    rest = width - 2 * len(OP_COLUMNS) - 2 - state - tool - widths["duration"] - widths["line"]
    if rest - widths["call"] < ARGS_BEFORE_CALL:
        rest += 2  # (its gap: its cells go to the arguments)
        widths["call"] = 0  # (dropped: ``op_columns`` leaves it out)
        if rest < ARGS_BEFORE_CALL:
            rest += widths["line"] + 2 + widths["duration"] - NARROW_TOOK
            widths["line"], widths["duration"] = 0, NARROW_TOOK
    args = widths["args"] = max(ARGS_WIDTH[0], min(ARGS_WIDTH[1], rest - widths["call"]))
    if widths["call"]:  # (what the arguments leave: the call id whole, as far as it goes)
        widths["call"] = max(CALL_WIDTH[0], min(CALL_WIDTH[1], rest - args))
    return widths


def op_columns(width: int, state: int, tool: int = TOOL_WIDTH[1]) -> list[Column]:
    """The operations table's columns at ``width`` (``op_widths``; a dropped one left out)."""
    widths = op_widths(width, state, tool)
    return [(key, label, widths[key]) for key, label, _ in OP_COLUMNS if widths[key]]


def state_widths(ops: Sequence[ToolOp]) -> tuple[int, int]:
    """The state column's width: the longest label of the states ``ops`` are in, long
    and short (``STATE_SHORT_LABELS``: a settled state has no short one)."""
    settled = [len(STATE_LABELS[s]) for s in SETTLED_STATES if ops_in_state(ops, s)]
    unsettled = unsettled_ops(ops)
    least = max([len("state"), *settled])
    long = max([least, *(len(_state_text(op)) for op in unsettled)])
    return long, max([least, *(len(_state_text(op, short=True)) for op in unsettled)])


def tool_width(names: Iterable[str] | None, least: int = TOOL_WIDTH[0]) -> int:
    """The tool column's width for these tool names (None: not known, the widest
    allowed), at least ``least`` (the names measured before), within ``TOOL_WIDTH``."""
    if names is None:
        return TOOL_WIDTH[1]
    return min(TOOL_WIDTH[1], max([least, *map(cell_len, set(names))]))


def _state_text(op: ToolOp, short: bool = False) -> str:
    label = state_label(op.state, short)
    return label + " …" if op.state == "running" and op.progress else label


class OpsTable(VirtualTable, RowSearch):  # (CSS comes down the first base: the table's)
    """The operations' table, searched (``/``: ``OpSearch``, what each operation holds)."""

    NOT_FOUND = "No operation matches: / searches the tool operations."

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ops: Sequence[ToolOp] = []
        self.rows: Sequence[int] = range(0)  # the operation each row shows (its filter's)
        self.filter = OpsFilter()
        self.known = False  # a file's operations shown (none before: not known to be none)

    def search_source(self) -> Sequence[ToolOp]:
        return self.ops

    def search_keys(self, start: int, end: int) -> Sequence[int]:
        return self.rows[start:end]

    def empty_note(self) -> str | None:
        if self.known and not self.ops:  # (the table said nothing: a blank tab)
            return "No tool operations in this file."
        return self.filter.empty_note(len(self.ops))

    def finder(self, term: str) -> OpSearch:
        return OpSearch(term)


class OpsPane(Vertical):
    """Every tool operation: its state, tool, call id, arguments and duration."""

    DEFAULT_CSS = """
    OpsPane { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "jump", "In the conversation"),
        Binding("e", "step_unfinished(1)", "Next operation not completed", show=False),
        Binding("E", "step_unfinished(-1)", "Previous operation not completed", show=False),
    ]

    @dataclass
    class Opened(Message):
        """Enter on an operation: show its detail (and how long it ran at least, one
        not answered)."""

        op: ToolOp
        ran: RanAtLeast | None = None

    @dataclass
    class Jump(Message):
        """``m`` on an operation: show the message that called it in the conversation."""

        op: ToolOp

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ops: Sequence[ToolOp] = []
        self.ran: dict[tuple[str, int], RanAtLeast] = {}  # (those not answered: few)
        self._shown: Transcript | None = None  # the snapshot shown (``tick``'s)
        self.table = OpsTable(OP_COLUMNS, self._cells, fixed_columns=1, id="ops-table")
        self._state_width = (STATE_WIDTH, STATE_WIDTH)  # (long labels, short: ``_fit``)
        self._short = False  # the state column says its short labels
        self._tool_width = (0, TOOL_WIDTH[0])  # the operations measured, their names' width
        self._dialog: FilterScreen | None = None  # the ``f`` dialog last opened
        # An operation's detail is open over the table: its cursor stays on that row (as
        # a cursor that left the end does), not following the end underneath, so escape
        # comes back to it (``detail_closed``).
        self.detail_open = False

    def compose(self) -> ComposeResult:
        yield self.table

    @property
    def rows(self) -> Sequence[int]:
        """The operation each row shows, by its index in ``ops`` (the filter's)."""
        return self.table.rows

    def show(self, transcript: Transcript, now: float | None = None) -> None:
        """The operations of ``transcript``; ``now``: the time its writer is known to be
        at work (a call running has run till then: ``ran_at_least``)."""
        table = self.table
        follow = table.row_count > 0 and table.at_end and table.cursor_row > 0
        follow = follow and not self.detail_open
        searched = table.rows
        self.ops = table.ops = transcript.tool_operations
        table.known = True
        self._shown = transcript
        self.ran = ran_by_call(transcript, now)
        rows = table.rows = table.filter.rows(self.ops)
        self._state_width = state_widths(self.ops)
        measured, least = self._tool_width
        if measured > len(self.ops):  # (fewer: another file's, after a reset)
            measured, least = 0, TOOL_WIDTH[0]
        least = tool_width(packed_tools(self.ops, measured), least)  # (those appended)
        self._tool_width = (len(self.ops), least)
        self._fit()
        table.set_row_count(len(rows))
        if follow:
            table.move_cursor(len(rows) - 1)
        # (a snapshot: the operations appended are looked at; a filtered one's rows may
        # also have come or gone above them, an operation's state changed, and another
        # file's are fewer, after a reset)
        if len(rows) >= len(searched) and rows[: len(searched)] == searched:
            table.search_appended()
        else:
            table.search_again()
        dialog = self._dialog
        # (open: its counts follow the file. Pushed is enough, composed or not, so no
        # snapshot's counts are lost; one dismissed, though still attached as it is torn
        # down, is off the stack)
        if dialog is not None and dialog in self.app.screen_stack:
            dialog.follow(table.filter.lists(self.ops))

    def tick(self, now: float | None) -> None:
        """The screen's tick, its writer known at work at ``now`` (None: not): the calls
        running have run on (their ``took``), drawn again where it reads otherwise."""
        if self._shown is None or (now is None and not any(r.now for r in self.ran.values())):
            return
        ran = ran_by_call(self._shown, now)
        if ran != self.ran:
            self.ran = ran
            self.table.invalidate()

    def filter_dialog(self) -> FilterScreen:
        """The ``f`` dialog: the tools and states of the operations, with counts (as of
        each snapshot while it is open)."""
        self._dialog = self.table.filter.dialog(self.ops)
        return self._dialog

    def set_filter(self, choice: Choice, dialog: FilterScreen) -> None:
        """Show the tools and states chosen in ``dialog`` (None: all), the cursor on the
        operation it was on where that is shown, else on the next one that is."""
        table = self.table
        was = self.rows[table.cursor_row] if table.row_count else 0
        tools, states = choice
        table.filter.set(tools, states, dialog)
        rows = table.rows = table.filter.rows(self.ops)
        table.set_row_count(len(rows))
        if rows:
            table.move_cursor(min(bisect.bisect_left(rows, was), len(rows) - 1))
            # (once the new rows are laid out: a cursor moved down the longer table sat
            # off screen, where enter and m acted on a row not seen)
            table.call_after_refresh(table.scroll_to_cursor)
        table.search_again()

    def filter_said(self) -> str:
        """What the header says of the filter (empty: none)."""
        return self.table.filter.said(len(self.rows), len(self.ops))

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The columns for the state labels shown and the pane's width (``op_columns``):
        the long labels, or the short ones where the long would leave the arguments
        fewer than ``ARGS_BEFORE_CALL`` cells and the short are narrower (v1's crash
        states at 80 cells)."""
        table = self.table
        width, (long, short), tool = self.size.width, self._state_width, self._tool_width[1]
        self._short = short < long and op_widths(width, long, tool)["args"] < ARGS_BEFORE_CALL
        columns = op_columns(width, short if self._short else long, tool)
        if [c[::2] for c in columns] != [c[::2] for c in table.columns]:
            table.set_columns(columns)

    def _cells(self, row: int) -> Sequence[Text]:
        op = self.ops[self.rows[row]]
        cells: list[Text] = []
        term = fold(self.table.search_term)
        for key, _label, width in self.table.columns:
            if key == "state":
                cells.append(tone_text(_state_text(op, self._short), state_tone(op.state)))
            elif key == "tool":
                cells.append(one_line_text(op.tool, width))
            elif key == "call":
                cells.append(one_line_text(op.call_id, width))
            elif key == "args":
                cells.append(Text(fit_op_arguments(op.arguments, width), end="", no_wrap=True))
            elif key == "duration":
                cells.append(Text(self._took(op, width), end=""))
            else:
                cells.append(Text(f"{op.line:,}" if op.line else "", end=""))
        if term:  # (where a cell shows it: it may be in the result, not shown)
            style = self.table.component("virtual-table--match")
            for cell in cells:
                highlight(cell, term, style)
        return cells

    def _took(self, op: ToolOp, cells: int) -> str:
        """How long ``op`` took in ``cells``; one not ended, at least how long
        (``ran_at_least``); else by the one rule of every surface (``took_said``: ``?``
        where the file does not time it, never a blank, which read as a column not
        filled)."""
        ran = self.ran.get((op.call_id, op.line)) if op.duration is None else None
        if ran is not None:
            return ran.text_in(cells)
        return took_said(op, cells)

    @property
    def selected(self) -> ToolOp | None:
        row, rows = self.table.cursor_row, self.rows
        return self.ops[rows[row]] if 0 <= row < len(rows) else None

    @on(VirtualTable.Activated, "#ops-table")
    @on(VirtualTable.DoubleClicked, "#ops-table")
    def _activated(self, event: VirtualTable.Activated) -> None:
        event.stop()
        if 0 <= event.row < len(self.rows):
            op = self.ops[self.rows[event.row]]
            self.detail_open = True
            self.post_message(self.Opened(op, self.ran.get((op.call_id, op.line))))

    def detail_closed(self) -> None:
        """The detail ``Opened`` asked for is closed: the table follows the end again
        where its cursor is there (rows appended meanwhile: it is not, and stays)."""
        self.detail_open = False

    def action_step_unfinished(self, step: int) -> None:
        """The cursor to the next (or previous) operation that did not complete: failed,
        interrupted, running, of unknown outcome, left in a crash state. Its state is
        asked without making it (a big file has 100,000s). Of those the filter shows."""
        states, rows = op_states(self.ops), self.rows
        unfinished = "operation that did not complete"
        self.table.jump_or_say(lambda row: states(rows[row]) != "completed", step, unfinished)

    def action_jump(self) -> None:
        op = self.selected
        if op is not None:
            self.post_message(self.Jump(op))


__all__ = [
    "RUN_COLUMNS",
    "OpsPane",
    "RunsPane",
    "TableDetail",
    "run_entries",
    "tone_text",
    "usage_short",
]
