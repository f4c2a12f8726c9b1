"""A session's subagents (Claude Code's subagent files, the Codex rollouts a session
spawned): each one's state (its call's), messages, usage and where it is, in a table;
the selected one's detail below. ``enter`` opens it, ``m`` shows the call that started
it in the conversation."""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message

from session_core.model import Subagent, ToolOp, Transcript, Usage, ops_by_call
from session_core.open_work import aborted_runs, call_said
from session_core.text import count, duration_text, name_line
from session_core.tool_ops import state_tone

from ..browser_cells import money_cell
from ..safe import fit_path, one_line
from .block_view import Entry
from .model_panes import TableDetail, tone_text, usage_short
from .virtual_table import Column, Cut, VirtualTable

COLUMNS: list[Column] = [  # (each at most this wide, as wide as it holds: ``subagent_columns``)
    ("n", "#", 3),
    ("state", "state", 23),  # (``interrupted by the user``: ``open_work.call_said``)
    ("duration", "took", 7),
    ("messages", "messages", 8),
    ("usage", "usage", 15),
    ("cost", "cost", 9),
    ("description", "subagent", 60),
    ("where", "where", 28),
]
DESCRIPTION, WHERE = (width for key, _, width in COLUMNS if key in ("description", "where"))
NOT_READ = "not read"  # (its usage is unknown: never shown as 0)
UNKNOWN = "unknown"  # (its file read, no usage reported in it)


def subagent_columns(rows: Iterable[Mapping[str, Text]]) -> list[Column]:
    """``COLUMNS``, each as wide as its label or its widest cell in ``rows``, up to its
    width there: the subagent's description takes what the others leave
    (``fitted_columns``), not a ``where`` kept 28 cells wide for a 13-character name."""
    widest = {
        key: cell_len(label) if isinstance(label, str) else label.cell_len
        for key, label, _ in COLUMNS
    }
    for row in rows:
        for key, cell in row.items():
            widest[key] = max(widest[key], cell.cell_len)
    return [(key, label, min(width, widest[key])) for key, label, width in COLUMNS]


def cost_text(usage: Usage, in_part: bool = False) -> str:
    """``$0.02``; ``≥$0.02`` where some responses were not priced (or ``in_part``: its
    file's read left a line out); ``unknown``: the browser's cost column's rule
    (``money_cell``), so it fits its column (the detail gives it in full)."""
    if usage.cost is None:
        return "unknown"
    return money_cell(usage.cost, "≥" if usage.cost_partial or in_part else "")


def where_text(subagent: Subagent) -> str:
    """Where a subagent's lines are (``Subagent.where``), a file by its name alone (no
    ``.jsonl``; cut from the left where it is long, as a Codex rollout's, whose end is
    its own id)."""
    if subagent.in_file or subagent.path is None:
        return subagent.where
    name = os.path.basename(subagent.path)  # (every one a .jsonl: said once, in the detail)
    return name.removesuffix(".zst").removesuffix(".jsonl")


def shown_path(path: str, beside: str) -> str:
    """``path`` from the folder of the file ``beside`` where it lies under it (a Claude
    Code session's ``<session>/subagents/…``), else as it is."""
    relative = os.path.relpath(path, os.path.dirname(os.path.abspath(beside)))
    return path if relative.startswith("..") else relative


def subagent_entries(
    subagent: Subagent,
    index: int,
    op: ToolOp | None,
    session: str,
    aborted: AbstractSet[str] = frozenset(),
) -> list[Entry]:
    """One subagent's detail: what it is, the call that started it (its state as its row
    says it, ``open_work.call_said``: ``aborted``, the runs the user stopped), where its
    lines are (its file from the folder of ``session``'s), and what it used."""
    out: list[Entry] = [("bold", f"subagent {index + 1}  {subagent.id}")]
    if subagent.description:
        out.append(("", subagent.description))
    if op is not None:
        line = f" · line {op.line:,}" if op.line else ""
        took = f" · took {duration_text(op.duration)}" if op.duration is not None else ""
        said = call_said(op, aborted)
        out.append(("", f"call {op.call_id} · {op.tool} · {said}{took}{line}  (m shows it)"))
    elif subagent.call_id:
        took = f" · took {duration_text(subagent.took)}" if subagent.took is not None else ""
        out.append(("dim", f"call {subagent.call_id}{took} (not among this file's operations)"))
    if subagent.in_file:
        start = f", from line {subagent.line:,}" if subagent.line else ""
        out.append(("", f"its lines: this file's{start}  (enter shows them)"))
    elif subagent.unnamed:
        said = "its call has no result to name it, and no subagent file begins with its prompt"
        out.append(("yellow", f"its file: not known ({said})"))
    elif subagent.path is None:
        # (an id that is no file name: none looked for, none missing)
        said = "none, its id is not a file name" if subagent.no_file_name else "not there"
        out.append(("yellow", f"its file: {said}"))
    else:
        out.append(("", f"its file: {shown_path(subagent.path, session)}  (enter opens it)"))
    if subagent.lines_read:
        messages = count(subagent.messages, "message")
        # (a file that reported no usage: unknown, and left out of the total with it)
        left_out = "" if subagent.counted else " (none reported: not in the session's total)"
        at_least = "at least " if subagent.in_part else ""
        usage = subagent.usage.describe()
        out.append(("", f"{messages} · usage {at_least}{usage}{left_out}"))
        if subagent.left_out is not None:
            out.append(("yellow", f"read in part: {subagent.left_out}"))
    elif subagent.path is not None:
        bound = "past what the reader reads of a session's subagents"
        out.append(("yellow", f"usage: not read ({bound})"))
    else:
        out.append(("yellow", f"usage: unknown ({subagent.no_file})"))
    return out


class SubagentsPane(TableDetail):
    """The session's subagents in a table; the selected one's detail below."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "jump", "The call in the conversation", show=False),
        Binding("e", "step_unfinished(1)", "Next subagent not completed", show=False),
        Binding("E", "step_unfinished(-1)", "Previous subagent not completed", show=False),
        Binding("s", "sort", "By usage / in file order", show=False),
    ]
    NONE = "No subagents: no call here started one, and no file beside it is its child."
    EMPTY = NONE
    FREE = "description"
    DROPPED = ("where", "cost", "duration")  # (the detail says them)

    @dataclass
    class Open(Message):
        """Enter on a subagent: open its file, or show its lines in this one."""

        subagent: Subagent

    @dataclass
    class Jump(Message):
        """``m`` on a subagent: show the message whose call started it."""

        op: ToolOp

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(COLUMNS, table_id="subagents-table", detail_id="subagent-detail", id=id)
        self.subagents: Sequence[Subagent] = []  # as shown: in file order, or by usage
        self._numbers: Sequence[int] = []  # each one's place in the file's order (from 0)
        self.by_usage = False
        self._in_file: Sequence[Subagent] = []
        self._ops: Mapping[str, ToolOp] = {}
        self._aborted: set[str] = set()  # the runs the user stopped (``call_said``)
        self._session = ""  # the session's file

    def show(self, transcript: Transcript) -> None:
        chosen = self.selected
        self._in_file = transcript.subagents
        self._session = transcript.path
        self._ops = ops_by_call(transcript.tool_operations)
        self._aborted = aborted_runs(transcript)
        self._order()
        self.table.set_all_columns(subagent_columns(map(self.cells, range(len(self.subagents)))))
        self.show_rows(len(self.subagents), follow_end=not self.by_usage)
        if self.by_usage and chosen is not None:  # (its row may have moved)
            self._select(chosen.id)

    def _select(self, ident: str) -> None:
        """The cursor on the subagent ``ident`` (where it is listed)."""
        row = next((r for r, s in enumerate(self.subagents) if s.id == ident), -1)
        if row >= 0:
            self.table.move_cursor(row)

    def _order(self) -> None:
        """The rows, in file order or by usage (the most tokens first, unknown last)."""
        numbers: Sequence[int] = range(len(self._in_file))
        if self.by_usage:
            tokens = [s.usage.tokens if s.counted else None for s in self._in_file]
            numbers = sorted(numbers, key=lambda n: (tokens[n] is None, -(tokens[n] or 0), n))
        self._numbers = numbers
        self.subagents = [self._in_file[n] for n in numbers]

    def action_sort(self) -> None:
        """``s``: by usage, the most first; again: in file order. The cursor stays on its
        subagent."""
        chosen = self.selected
        self.by_usage = not self.by_usage
        self._order()
        self.show_rows(len(self.subagents))
        if chosen is not None:
            self._select(chosen.id)
        said = "by usage, the most first" if self.by_usage else "in file order"
        self.notify(f"Subagents {said}.", timeout=2)

    def op_of(self, subagent: Subagent) -> ToolOp | None:
        """The call that started ``subagent`` (None: no operation of this file has it)."""
        return self._ops.get(subagent.call_id) if subagent.call_id else None

    def cells(self, index: int) -> dict[str, Text]:
        subagent = self.subagents[index]
        op = self.op_of(subagent)
        state = tone_text(call_said(op, self._aborted), state_tone(op.state)) if op else Text("—")
        counted, known = subagent.counted, subagent.lines_read
        # (``≥`` as its cost cell: responses that reported none, or its file read in part)
        usage = usage_short(subagent.usage, subagent.in_part) if counted else None
        where = where_text(subagent)
        return {
            "n": Text(str(self._numbers[index] + 1), end=""),
            "state": state,
            "duration": Text(duration_text(op.duration if op else subagent.took), end=""),
            "messages": Text(f"{subagent.messages:,}" if known else "—", end=""),
            "usage": Text(usage or (UNKNOWN if known else NOT_READ), end=""),
            "cost": Text(cost_text(subagent.usage, subagent.in_part) if counted else "", end=""),
            "description": Cut(one_line(subagent.description, DESCRIPTION), subagent.description),
            "where": Cut(fit_path(where, WHERE), name_line(where)),
        }

    def detail_key(self, index: int) -> Hashable:
        subagent = self.subagents[index]
        return (subagent.id, subagent.path, subagent.line)

    def detail_entries(self, index: int) -> list[Entry]:
        subagent = self.subagents[index]
        number = self._numbers[index]
        op = self.op_of(subagent)
        return subagent_entries(subagent, number, op, self._session, self._aborted)

    @property
    def selected(self) -> Subagent | None:
        row = self.table.cursor_row
        return self.subagents[row] if 0 <= row < len(self.subagents) else None

    @on(VirtualTable.Activated, "#subagents-table")
    @on(VirtualTable.DoubleClicked, "#subagents-table")
    def _activated(self, event: VirtualTable.Activated) -> None:
        event.stop()
        if 0 <= event.row < len(self.subagents):
            self.post_message(self.Open(self.subagents[event.row]))

    def action_step_unfinished(self, step: int) -> None:
        """The cursor to the next (or previous) subagent whose call did not complete:
        running, failed, interrupted (one no call names is not asked about)."""
        subagents, op_of = self.subagents, self.op_of

        def unfinished(index: int) -> bool:
            op = op_of(subagents[index])
            return op is not None and op.state != "completed"

        self.table.jump_or_say(unfinished, step, "subagent whose call did not complete")

    def action_jump(self) -> None:
        subagent = self.selected
        op = self.op_of(subagent) if subagent is not None else None
        if op is not None:
            self.post_message(self.Jump(op))
        elif subagent is not None:
            self.notify("No call of this file started that subagent.", timeout=2)


__all__ = ["SubagentsPane", "cost_text", "shown_path", "subagent_entries", "where_text"]
