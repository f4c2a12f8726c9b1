"""The model screen's tables and overlays: tool operations, runs (with their contexts) and
the diff of what compactions folded and kept. Every one draws only the rows on screen."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message

from session_core.model import STATE_TONES, Item, Run, ToolOp, Transcript, Usage
from session_core.text import count
from session_core.tool_ops import STATE_LABELS

from ..safe import one_line, one_line_text
from .block_view import Entry, LinesView
from .items_view import args_preview
from .virtual_table import Column, VirtualTable

TONE_STYLES = {"ok": "green", "bad": "bold red", "warn": "bold yellow", "info": "bold cyan"}
RUN_TONES = {"finished": "ok", "running": "info", "interrupted": "bad", "aborted": "warn"}


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{rest:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def usage_short(usage: Usage | None) -> str:
    if usage is None or usage.tokens is None:
        return ""
    return f"{usage.tokens:,} tok"


def tone_text(label: str, tone: str) -> Text:
    return Text(label, style=TONE_STYLES.get(tone, ""), end="", no_wrap=True)


PRIMARY_ARGUMENTS = ("command", "file_path", "path", "pattern", "query", "url", "prompt")


def op_arguments(arguments: object) -> str:
    """A call's arguments at a glance: its main argument first (a command, a path)."""
    if isinstance(arguments, dict):
        for key in PRIMARY_ARGUMENTS:
            value = arguments.get(key)
            if isinstance(value, str) and value:
                rest = {k: v for k, v in arguments.items() if k != key}
                return value + (f"  {args_preview(rest)}" if rest else "")
    return args_preview(arguments)


# The state column fits every state's label whole (and a running call's " …"): the
# crash states differ in their last words ("interrupted: no result, the writer is gone").
STATE_WIDTH = max(len(label) for label in STATE_LABELS.values()) + 2
OP_COLUMNS: list[Column] = [
    ("state", "state", STATE_WIDTH),
    ("tool", "tool", 16),
    ("call", "call id", 30),
    ("args", "arguments", 54),
    ("duration", "took", 8),
    ("line", "line", 7),
]


class OpsPane(Vertical):
    """Every tool operation: its state, tool, call id, arguments and duration."""

    DEFAULT_CSS = """
    OpsPane { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "jump", "In the conversation", show=False)
    ]

    @dataclass
    class Opened(Message):
        """Enter on an operation: show its detail."""

        op: ToolOp

    @dataclass
    class Jump(Message):
        """``m`` on an operation: show the message that called it in the conversation."""

        op: ToolOp

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ops: Sequence[ToolOp] = []
        self.table = VirtualTable(OP_COLUMNS, self._cells, fixed_columns=1, id="ops-table")

    def compose(self) -> ComposeResult:
        yield self.table

    def show(self, transcript: Transcript) -> None:
        table = self.table
        follow = table.row_count > 0 and table.at_end and table.cursor_row > 0
        self.ops = transcript.tool_operations
        table.set_row_count(len(self.ops))
        if follow:
            table.move_cursor(len(self.ops) - 1)

    def _cells(self, index: int) -> Sequence[Text]:
        op = self.ops[index]
        label = op.label
        if op.state == "running" and op.progress:
            label += " …"
        return [
            tone_text(label, STATE_TONES.get(op.state, "info")),
            one_line_text(op.tool, 16),
            one_line_text(op.call_id, 30),
            one_line_text(op_arguments(op.arguments), 54),
            Text(duration_text(op.duration), end=""),
            Text(f"{op.line:,}" if op.line else "", end=""),
        ]

    @property
    def selected(self) -> ToolOp | None:
        row = self.table.cursor_row
        return self.ops[row] if 0 <= row < len(self.ops) else None

    @on(VirtualTable.Activated, "#ops-table")
    @on(VirtualTable.DoubleClicked, "#ops-table")
    def _activated(self, event: VirtualTable.Activated) -> None:
        event.stop()
        if 0 <= event.row < len(self.ops):
            self.post_message(self.Opened(self.ops[event.row]))

    def action_jump(self) -> None:
        op = self.selected
        if op is not None:
            self.post_message(self.Jump(op))


RUN_COLUMNS: list[Column] = [
    ("n", "#", 4),
    ("state", "state", 12),
    ("started", "started", 24),
    ("duration", "took", 8),
    ("items", "items", 6),
    ("usage", "usage", 16),
    ("prompt", "prompt", 60),
]


class RunsPane(Vertical):
    """Runs (turns) in a table; the selected one's context (facts, sections) below."""

    DEFAULT_CSS = """
    RunsPane {
        height: 1fr;
        & > #runs-table { height: 2fr; }
        & > #run-context { height: 3fr; border-top: solid $panel-lighten-2; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.runs: Sequence[Run] = []
        self.table = VirtualTable(RUN_COLUMNS, self._cells, fixed_columns=1, id="runs-table")
        self.context = LinesView(id="run-context")
        self._shown: tuple[str, int] | None = None
        # What a format says of a run besides (its pane set's ``run_detail``).
        self.more: Callable[[Run, int], list[Entry]] | None = None

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.context

    def show(self, transcript: Transcript) -> None:
        self.runs = transcript.runs
        self.table.set_row_count(len(self.runs))
        self._shown = None
        self._show_context(self.table.cursor_row)

    def _cells(self, index: int) -> Sequence[Text]:
        run = self.runs[index]
        return [
            Text(str(index + 1), end=""),
            tone_text(run.state, RUN_TONES.get(run.state, "info")),
            one_line_text(run.started or "", 24),
            Text(duration_text(run.duration), end=""),
            Text(str(run.items), end=""),
            Text(usage_short(run.usage), end=""),
            one_line_text(run.prompt or "", 60),
        ]

    @on(VirtualTable.Highlighted, "#runs-table")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self._show_context(event.row)

    def _show_context(self, index: int) -> None:
        if not 0 <= index < len(self.runs):
            self.context.set_entries([("dim", "No runs in this file.")] if not self.runs else [])
            return
        run = self.runs[index]
        key = (run.id, run.end_line or 0)
        if key == self._shown:
            return
        self._shown = key
        previous = self.runs[index - 1].context if index > 0 else None
        entries = run_entries(run, index, previous)
        if self.more is not None:
            entries += self.more(run, index)
        self.context.set_entries(entries)


def run_entries(run: Run, index: int, previous: object | None) -> list[Entry]:
    """One run's detail: state, lines, prompt, usage, then its context's facts and sections
    (a fact that differs from the previous run's is marked)."""
    span = f"lines {run.line:,}-{run.end_line:,}" if run.end_line else f"from line {run.line:,}"
    out: list[Entry] = [
        ("bold", f"run {index + 1}  {run.id}  {run.state}  {span}"),
        (
            "",
            f"took {duration_text(run.duration) or '?'} · {count(run.items, 'item')}"
            f" · usage {run.usage.describe()}",
        ),
    ]
    if run.prompt:
        out.append(("bold", "prompt"))
        out.append(("", run.prompt))
    context = run.context
    if context is None:
        out.append(("dim", "No run context recorded for this run."))
        return out
    before = dict(getattr(previous, "facts", ()) or ())
    out.append(("bold", f"context (line {context.line:,})"))
    for key, value in context.facts:
        changed = index > 0 and before.get(key) != value
        out.append(
            ("yellow" if changed else "", f"  {key} = {value}{'   (changed)' if changed else ''}")
        )
    for name, text in context.sections:
        out.append(("bold", f"section: {name} ({count(len(text), 'char')})"))
        out.append(("dim", text))
    return out


def diff_entries(transcript: Transcript, limit: int = 50_000) -> list[Entry]:
    """Raw versus replayed: what each compaction folded and kept, each elision stubbed."""
    raw, sent = transcript.raw, transcript.messages
    out: list[Entry] = [
        (
            "bold",
            f"raw: {count(len(raw), 'item')} · replayed: {count(len(sent), 'message')} · "
            f"{count(sum(c.kind == 'compaction' for c in transcript.compactions), 'compaction')}, "
            f"{count(sum(c.kind == 'elision' for c in transcript.compactions), 'elision')}",
        )
    ]
    marks: dict[str, int] = {}
    for item in raw:
        for mark in item.marks:
            marks[mark] = marks.get(mark, 0) + 1
    if marks:
        listed = ", ".join(f"{n:,} {mark}" for mark, n in sorted(marks.items()))
        out.append(("dim", f"marked in the raw view: {listed}"))
    if not transcript.compactions:
        out.append(("dim", "No compaction or elision: nothing was folded."))
        return out
    wanted: set[str] = set()
    for compaction in transcript.compactions:
        wanted.update(compaction.folded[:limit])
        wanted.update(compaction.kept[:limit])
    by_id: dict[str, Item] = {}
    for item in raw:
        if item.id in wanted:
            by_id.setdefault(item.id, item)
    for compaction in transcript.compactions:
        tokens = ""
        if compaction.tokens_before is not None:
            after = compaction.tokens_after
            tokens = (
                f" · {compaction.tokens_before:,} → {after:,} tok"
                if after
                else (f" · {compaction.tokens_before:,} tok before")
            )
        out.append(("", ""))
        out.append(
            (
                "bold magenta",
                f"◆ {compaction.kind} at line {compaction.line:,}"
                f"{' · ' + compaction.trigger if compaction.trigger else ''}{tokens}",
            )
        )
        if compaction.summary:
            out.append(("italic", compaction.summary[:4000]))
        verb = "folded" if compaction.kind == "compaction" else "stubbed"
        out.append(("bold red", f"{verb}: {count(len(compaction.folded), 'item')}"))
        out.extend(_item_entry("red", "−", ident, by_id) for ident in compaction.folded[:limit])
        if compaction.kept:
            out.append(("bold green", f"kept: {count(len(compaction.kept), 'item')}"))
            out.extend(_item_entry("green", "+", ident, by_id) for ident in compaction.kept[:limit])
    return out


def _item_entry(style: str, sign: str, ident: str, by_id: dict[str, Item]) -> Entry:
    item = by_id.get(ident)
    if item is None:
        return (style, f"  {sign} {ident} (not a line of this file)")
    preview = item.text or next((p.text or p.name or p.kind for p in item.parts), item.kind)
    return (style, f"  {sign} line {item.line:,} {item.role}: {one_line(preview, 100)}")


__all__ = ["OpsPane", "RunsPane", "diff_entries", "duration_text", "run_entries", "usage_short"]
