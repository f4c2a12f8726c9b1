"""The runs pane: runs (turns) in a table, the selected one's context below
(``RunsPane``), and a run's detail (``run_entries``)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from session_core.model import COPIED_CUT, Run, Transcript, Usage
from session_core.text import count, duration_text, took_text

from ..safe import one_line
from .block_view import Entry
from .run_context import day_clock
from .table_detail import TableDetail, tone_text
from .virtual_table import Column, Cut

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


# The prompt takes what the other columns leave (``fitted_columns``), up to this: it was
# cut to 60 characters before its width was known, 25 columns left blank at 160
PROMPT_WIDTH = 500

RUN_COLUMNS: list[Column] = [
    ("n", "#", 4),
    ("state", "state", 12),
    ("started", "started", 14),  # (its day and time: at 100 columns the 24 of a whole ISO one went)
    ("duration", "took", 8),
    ("items", "items", 6),
    ("usage", "usage", 16),
    ("prompt", "prompt", PROMPT_WIDTH),
]


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
            "state": tone_text(run.state_word(), RUN_TONES.get(run.state_word(), "info")),
            "started": Cut(day_clock(run.started), run.started),  # (c copies it whole)
            "duration": Text(duration_text(run.duration), end=""),
            "items": Text(str(run.items), end=""),
            "usage": Text(
                "the parent's" if run.copied else usage_short(run.usage, answered=run.answered),
                end="",
            ),
            "prompt": Cut(one_line(run.prompt, PROMPT_WIDTH), run.prompt),  # (c copies it whole)
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
        user, interrupted, or still running (a fork's copied turn cut short is the parent's,
        not one of this file's that did not finish)."""
        runs = self.runs
        unfinished = "run that did not finish"
        self.table.jump_or_say(
            lambda index: runs[index].state_word() not in ("finished", COPIED_CUT),
            step,
            unfinished,
        )


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
    # (none where its lines are not known: the file's end read alone, ``lines_not_known``)
    span = f"lines {run.line:,}-{run.end_line:,}" if run.end_line else f"from line {run.line:,}"
    span = f"  {span}" if run.line else ""
    # (Claude Code's own turn_duration: its active time, not its lines' span)
    took = took_text(run.duration, run.started, run.ended, "from its first line to its last")
    # (blank in the column while it runs, as where no time is known: here, which of them)
    took = f"took {took}" if took else "still running" if run.state == "running" else "took ?"
    started = f"started {one_line(run.started)} · " if run.started else ""
    out: list[Entry] = [
        ("bold", f"run {index + 1}  {run.id}  {run.state_said()}{span}"),
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
    out.append(("bold", f"context (line {context.line:,})" if context.line else "context"))
    for key, value in context.facts:
        changed = index > 0 and key not in context.own_facts and before.get(key) != value
        out.append(
            ("yellow" if changed else "", f"  {key} = {value}{'   (changed)' if changed else ''}")
        )
    for name, text in context.sections:
        out.append(("bold", f"section: {name} ({count(len(text), 'char')})"))
        out.append(("dim", text))
    return out
