"""The model screen's tables: tool operations and runs (with their contexts). Each draws
only the rows on screen. (The diff of what compactions folded and kept: ``model_diff``.)"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Iterable, Sequence
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
    Run,
    ToolOp,
    Transcript,
    Usage,
    op_states,
    ops_in_state,
    packed_tools,
    unsettled_ops,
)
from session_core.op_running import ANSWERED_UNSETTLED, RanAtLeast, ran_by_call
from session_core.search import OpSearch, main_argument, op_arguments
from session_core.text import count, duration_in, duration_text, took_text
from session_core.tool_ops import STATE_LABELS, state_label, state_tone

from ..safe import fit_path, one_line, one_line_text
from ..screens.filter import Choice, FilterScreen
from .block_view import Entry, ProseLines
from .line_list import highlight
from .ops_filter import OpsFilter
from .row_search import RowSearch
from .run_context import day_clock
from .virtual_table import Column, Cut, Fit, FittedTable, VirtualTable

TONE_STYLES = {"ok": "green", "bad": "bold red", "warn": "bold yellow", "info": "bold cyan"}
RUN_TONES = {
    "finished": "ok",
    "running": "info",
    "interrupted": "bad",
    "aborted": "warn",
    "failed": "bad",
}


def usage_short(usage: Usage, in_part: bool = False, *, answered: bool = False) -> str:
    """``12,345 tok``; ``≥12,345 tok`` where the total leaves out responses that reported
    none, or in part (``Usage.tokens_partial``; ``in_part``: a file's read left a line
    out), as the browser marks it; ``unknown`` (``tokens unknown`` beside a known cost),
    never 0, as ``Usage.describe`` says it; blank where no response could have reported
    any (a run that made no model request; ``answered``: the model answered in it, so
    it did: ``Run.unrequested``)."""
    tokens = usage.tokens
    if tokens is None:
        if usage.unrequested and not answered:
            return ""
        return "tokens unknown" if usage.known else "unknown"
    at_least = "≥" if usage.tokens_partial or in_part else ""
    return f"{at_least}{tokens:,} tok"


def tone_text(label: str, tone: str) -> Text:
    return Text(label, style=TONE_STYLES.get(tone, ""), end="", no_wrap=True)


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
        """How long ``op`` took, in ``cells`` (``duration_in``); one not ended, at least how
        long (``ran_at_least``); one answered that never ended and cannot be timed (no
        start), ``?``: never a blank, which read as a column not filled."""
        ran = self.ran.get((op.call_id, op.line)) if op.duration is None else None
        if ran is not None:
            return ran.text_in(cells)
        took = duration_in(op.duration, cells)
        return "?" if not took and op.state in ANSWERED_UNSETTLED else took

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


RUN_COLUMNS: list[Column] = [
    ("n", "#", 4),
    ("state", "state", 12),
    ("started", "started", 14),  # (its day and time: at 100 columns the 24 of a whole ISO one went)
    ("duration", "took", 8),
    ("items", "items", 6),
    ("usage", "usage", 16),
    ("prompt", "prompt", 60),
]


class TableDetail(Vertical):
    """Rows in a table; the selected one's detail below it (the runs, a session's
    subagents). A subclass says a row's cells, its detail, and what identifies a detail
    already shown (the cursor highlighting its row again leaves it as it is; new rows
    make it anew)."""

    DEFAULT_CSS = """
    TableDetail {
        height: 1fr;
        & > VirtualTable { height: 2fr; }
        & > LinesView { height: 1fr; border-top: solid $panel-lighten-2; }
    }
    """

    # What the empty table says in its first row, as every tab's empty view does
    # (``LineList.empty_note``): it said it in the detail below, under a blank table.
    EMPTY = "Nothing here."
    # The table fits the pane (``fitted_columns``): its free-text column takes what the
    # others leave, at least ``LEAST`` cells, where ``DROPPED`` go first (the detail
    # says them).
    FREE = ""
    LEAST = 20
    DROPPED: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self, columns: Sequence[Column], *, table_id: str, detail_id: str, id: str | None
    ) -> None:
        super().__init__(id=id)
        fit = Fit(self.FREE, self.LEAST, self.DROPPED)
        self.table = FittedTable(columns, self.cells, fit, fixed_columns=1, id=table_id)
        self.table.empty_text = self.EMPTY
        self.detail = ProseLines(id=detail_id)
        self._shown: Hashable | None = None

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.detail

    def cells(self, index: int) -> dict[str, Text]:
        """Row ``index``'s cells, by their columns' keys (every column's, shown or not)."""
        raise NotImplementedError

    def detail_key(self, index: int) -> Hashable:
        raise NotImplementedError

    def detail_entries(self, index: int) -> list[Entry]:
        raise NotImplementedError

    def show_rows(self, count: int, *, follow_end: bool = False) -> None:
        """The table's rows are now ``count`` (the cursor to the last where it was there,
        with ``follow_end``), every one drawn again (``set_row_count``: what a row says may
        have changed, not their number) and the detail made anew."""
        table = self.table
        at_end = table.row_count > 0 and table.at_end and table.cursor_row > 0
        table.set_row_count(count)
        if follow_end and at_end:
            table.move_cursor(count - 1)
        self._shown = None
        self.show_detail(table.cursor_row)

    @on(VirtualTable.Highlighted)
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.table is self.table:
            event.stop()
            self.show_detail(event.row)

    def show_detail(self, index: int) -> None:
        count = self.table.row_count
        if not 0 <= index < count:
            self.detail.set_entries([])  # (the table's first row says why it is empty)
            return
        key = self.detail_key(index)
        if key == self._shown:
            return
        self._shown = key
        self.detail.set_entries(self.detail_entries(index))


class RunsPane(TableDetail):
    """Runs (turns) in a table; the selected one's context (facts, sections) below."""

    DEFAULT_CSS = """
    RunsPane > LinesView { height: 3fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "step_unfinished(1)", "Next run not finished", show=False),
        Binding("E", "step_unfinished(-1)", "Previous run not finished", show=False),
    ]
    EMPTY = "No runs in this file."
    FREE = "prompt"
    DROPPED = ("started",)  # (its detail says when it started)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(RUN_COLUMNS, table_id="runs-table", detail_id="run-context", id=id)
        self.runs: Sequence[Run] = []
        # What a format says of a run besides (its pane set's ``run_detail``).
        self.more: Callable[[Run, int], list[Entry]] | None = None
        self.contexts = True  # its format records run contexts (``has_run_contexts``)

    def show(self, transcript: Transcript, *, contexts: bool = True) -> None:
        self.runs, self.contexts = transcript.runs, contexts
        self.show_rows(len(self.runs))

    def cells(self, index: int) -> dict[str, Text]:
        run = self.runs[index]
        return {
            "n": Text(str(index + 1), end=""),
            "state": tone_text(run.state, RUN_TONES.get(run.state, "info")),
            "started": Cut(day_clock(run.started), run.started),  # (c copies it whole)
            "duration": Text(duration_text(run.duration), end=""),
            "items": Text(str(run.items), end=""),
            "usage": Text(
                "the parent's" if run.copied else usage_short(run.usage, answered=run.answered),
                end="",
            ),
            "prompt": Cut(one_line(run.prompt, 60), run.prompt),  # (c copies it whole)
        }

    def detail_key(self, index: int) -> Hashable:
        run = self.runs[index]
        return (run.id, run.end_line or 0)

    def detail_entries(self, index: int) -> list[Entry]:
        run = self.runs[index]
        previous = self.runs[index - 1].context if index > 0 else None
        entries = run_entries(run, index, previous, contexts=self.contexts)
        if self.more is not None:
            entries += self.more(run, index)
        return entries

    def action_step_unfinished(self, step: int) -> None:
        """The cursor to the next (or previous) run that did not finish: failed, cut off by the
        user, interrupted, or still running."""
        runs = self.runs
        unfinished = "run that did not finish"
        self.table.jump_or_say(lambda index: runs[index].state != "finished", step, unfinished)


def _usage_said(run: Run) -> str:
    """``usage 12,345 tok (…)``; ``no model request`` where its column is blank."""
    usage = run.describe_usage()
    return f"usage {usage}" if usage else "no model request"


def run_entries(
    run: Run, index: int, previous: object | None, *, contexts: bool = True
) -> list[Entry]:
    """One run's detail: state, lines, prompt, usage, then its context's facts and sections
    (a fact that differs from the previous run's is marked, but one each run has its own
    value of: ``RunContext.own_facts``). ``contexts``: its format records run contexts
    (``has_run_contexts``); where it records none, none is said to be missing."""
    span = f"lines {run.line:,}-{run.end_line:,}" if run.end_line else f"from line {run.line:,}"
    # (Claude Code's own turn_duration: its active time, not its lines' span)
    took = took_text(run.duration, run.started, run.ended, "from its first line to its last")
    # (blank in the column while it runs, as where no time is known: here, which of them)
    took = f"took {took}" if took else "still running" if run.state == "running" else "took ?"
    started = f"started {one_line(run.started)} · " if run.started else ""
    out: list[Entry] = [
        ("bold", f"run {index + 1}  {run.id}  {run.state_said()}  {span}"),
        ("", f"{started}{took} · {count(run.items, 'item')} · {_usage_said(run)}"),
    ]
    if run.prompt:
        out.append(("bold", "prompt"))
        out.append(("", run.prompt))
    context = run.context
    if context is None:
        if contexts:
            out.append(("dim", "No run context recorded for this run."))
        return out
    before = dict(getattr(previous, "facts", ()) or ())
    out.append(("bold", f"context (line {context.line:,})"))
    for key, value in context.facts:
        changed = index > 0 and key not in context.own_facts and before.get(key) != value
        out.append(
            ("yellow" if changed else "", f"  {key} = {value}{'   (changed)' if changed else ''}")
        )
    for name, text in context.sections:
        out.append(("bold", f"section: {name} ({count(len(text), 'char')})"))
        out.append(("dim", text))
    return out


__all__ = [
    "OpsPane",
    "RunsPane",
    "run_entries",
    "usage_short",
]
