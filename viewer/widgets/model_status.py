"""The model screen's header: the file, its format and writer, its meta and its usage."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from session_core.model import (
    Transcript,
    ops_in_state,
    overlay_counts,
    unsent_said,
    unsettled_ops,
)
from session_core.open_work import interrupted_said, stopped_by_user
from session_core.runs import runs_in_state
from session_core.text import count, name_line, size_text
from session_core.vocabulary import header_meta

from ..safe import clip, one_line

# The header's dot: what it says of the file's writer, in what colour, and what that
# means (the file's ``?`` lists them, as the README's table does).
LIVE_STATES: dict[str, tuple[str, str]] = {
    "live": (
        "bold green",
        "its writer may be at work: one holds the file (its lock, or open for writing),"
        " or, taking no lock, changed it in the last 2 min (not an agentgo file, whose"
        " writers all lock; not a compressed file); its calls are running meanwhile",
    ),
    "idle": (
        "yellow",
        "no writer at work: none holds the file, nor (taking no lock) changed it for"
        " 2 min (an agentgo or compressed file: none holds it); its calls left open are"
        " interrupted, an unfinished last line a crash tail",
    ),
    "ended": (
        "magenta",
        "the writer this view saw is gone: its lock let go, or every process seen with"
        " the file open for writing exited (nothing written since)",
    ),
    "gone": ("bold red", "the file that was there is not (deleted or moved away)"),
    "waiting": ("cyan", "the file named is not there yet"),
}
LIVE_STYLES = {state: style for state, (style, _means) in LIVE_STATES.items()}


def age_text(seconds: float) -> str:
    """``12s``, ``4m``, ``3h``, ``2d``: how long ago, to the largest whole unit."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(max(seconds, 0))}s"


QUIET_AFTER = 30.0  # seconds without a write before the header says so


def quiet_text(last: float | None, now: float) -> str:
    """``quiet for 40s``: a writer watched at work has written nothing for half a minute or
    more (stuck, a long tool call, or, taking no lock, gone: ``IDLE_SECONDS`` tells);
    nothing before that, or when not known."""
    if last is None or now - last < QUIET_AFTER:
        return ""
    return f"quiet for {age_text(now - last)}"


def rate_limits_text(limits: Any) -> str:
    """``primary 12% of 5h · secondary 3% of 7d``, or the value on one line.

    Newer Codex writers nest each window (``{"primary": {"used_percent": …,
    "window_minutes": …}}``); older ones wrote them flat (``primary_used_percent``,
    ``primary_window_minutes``)."""
    if isinstance(limits, dict):
        shown = []
        for name, value in limits.items():
            if isinstance(value, dict) and "used_percent" in value:
                shown.append(_limit(name, value["used_percent"], value.get("window_minutes")))
            elif isinstance(name, str) and name.endswith("_used_percent"):
                window = name.removesuffix("_used_percent")
                shown.append(_limit(window, value, limits.get(f"{window}_window_minutes")))
        if shown:
            return " · ".join(shown)
    return one_line(str(limits), 80)


def _limit(name: str, used: Any, window: Any) -> str:
    return f"{name} {_percent(used)}%" + (f" of {_window(window)}" if window else "")


def _percent(used: Any) -> str:
    """A share as one number however it was written (Codex writes ``8.0`` and ``8``
    alike): ``8``, ``7.5``; a value that is no finite number is shown as written."""
    if isinstance(used, float) and math.isfinite(used):
        return f"{round(used, 1):g}"
    return str(used)


def _window(minutes: Any) -> str:
    """A rate limit's window, in the unit it is a whole number of: ``5h``, ``7d``."""
    if isinstance(minutes, int) and not isinstance(minutes, bool) and minutes > 0:
        for unit, size in (("d", 1440), ("h", 60)):
            if minutes % size == 0:
                return f"{minutes // size}{unit}"
    return f"{minutes} min"


def top_line(name: str, title: str, view: str, state: Text, width: int) -> Text:
    """The header's first line: the file's name, its format, view and size, then its
    state, all in ``width`` cells where it can be: the format's title goes first, then
    the name is cut (to 20 cells), then the view and size go, then the name is cut (to
    no less than 12 cells), the state last (at 60 columns the view had cut it)."""
    top = Text(no_wrap=True, end="")
    room = width - state.cell_len - 2  # (the name's, with its spaces)
    about = f" {title} · {view} "
    if cell_len(name) + cell_len(about) > room:
        about = f" {view} "
        if min(cell_len(name), 20) + cell_len(about) > room:
            about = " "
    room -= cell_len(about)
    top.append(f" {clip(name, max(12, min(100, room)))} ", "bold")  # (a rollout's: ~75)
    top.append(about)
    top.append_text(state)
    return top


class Term(Text):
    """A part that goes on from the one before it after a space, not a `` · ``: a usage
    breakdown's term (``+ 28,755 out``), so a narrow line breaks between its numbers (one
    part, it was cut mid-number at 80 columns)."""


def breakdown_terms(
    terms: Sequence[str], style: str = "", opened: str = "(", closed: str = ")"
) -> list[Text]:
    """``(177 in``, ``+ 28,755 out``, ``+ 479,537 cache write)``: a breakdown's terms as
    ``Term``s, ``opened`` before the first and ``closed`` after the last; an ``opened``
    without a ``(`` (``this file ``) makes the first a part of its own, after a `` · ``."""
    said = [f"+ {term}" if index else term for index, term in enumerate(terms)]
    if not said:
        return []
    said[0] = opened + said[0]
    said[-1] += closed  # (after: the same term where there is one)
    first = Term if opened.startswith("(") else Text
    return [first(said[0], style), *(Term(words, style) for words in said[1:])]


def in_flight_parts(parts: Sequence[str]) -> list[Text]:
    """What was left in flight as the header's parts: ``2 tool calls without a result;``
    ``1 run not finished``, each after the one before it by a ``;`` (``Term``: a space,
    not the counts' `` · ``), so a narrow line breaks between them, never inside one."""
    last = len(parts) - 1
    return [
        (Term if index else Text)(part + (";" if index < last else ""))
        for index, part in enumerate(parts)
    ]


def in_flight_lines(parts: list[Text], width: int) -> list[Text]:
    """``in flight: …`` (``in_flight_parts``) on lines of its own in ``width`` cells, its
    words in one style, the spaces between them too (as one run of text)."""
    lead = "in flight:"
    lines = counts_lines(Text(lead), parts, [], width)
    for index, line in enumerate(lines):
        line.stylize("bold yellow", 1 + (len(lead) + 1 if index == 0 else 0))
    return lines


def counts_lines(lead: Text, said: list[Text], meta: Sequence[Text], width: int) -> list[Text]:
    """The header's counts (``lead``, then each of ``said``) in ``width`` cells: on as many
    lines as they take, broken between counts (at 80 columns one line lost the last,
    "6 elisions"), then ``meta``'s facts after them, broken between facts by the same rule
    (at 80 columns a Codex file's ``model=`` was cut off, and its last count with it)."""
    line = Text(" ", no_wrap=True, end="")
    line.append_text(lead)
    lines = [line]
    for index, words in enumerate(said):
        sep = (
            ""
            if index == 0 and not lead
            else " "
            if index == 0 or isinstance(words, Term)
            else " · "
        )
        _put(lines, sep, words, width)
    for index, fact in enumerate(meta):
        _put(lines, "  " if index or lines[-1].cell_len > 1 else "", fact, width)
    return lines


def _put(lines: list[Text], sep: str, words: Text, width: int) -> None:
    """``words`` after ``sep`` on the last of ``lines``, or on a new line where they do
    not fit on it (a part never broken: one wider than a line alone is cut at its end)."""
    line = lines[-1]
    if line.cell_len > 1 and line.cell_len + cell_len(sep) + words.cell_len > width:
        line = Text(" ", no_wrap=True, end="")
        lines.append(line)
        sep = ""
    line.append(sep)
    line.append_text(words)


class ModelStatus(Static):
    """Three lines of facts; the text is built inert, never parsed as markup."""

    DEFAULT_CSS = """
    ModelStatus {
        height: 3;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        background: $panel;
        color: $text;
    }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._top: tuple[str, str, str, Text] = ("", "", "", Text())
        self._counts: tuple[Text, list[Text], list[Text]] = (Text(), [], [])
        self._usage: list[Text] = []  # the usage's parts, broken between them as the counts
        self._usage_lead = Text()  # before them: a big file's end said so
        self._note: list[Text] = []  # a format's own panes' words, broken between them
        self._in_flight: list[Text] = []  # what was left in flight (``in_flight_parts``)
        self._shown = False  # (``show`` was called: there is something to draw again)

    def show(
        self,
        transcript: Transcript,
        *,
        name: str,
        title: str,
        size: int | None,
        live: str,
        packed: int | None = None,
        since: str = "",
        mode: str,
        extra: str = "",
        note: Sequence[str] = (),
        in_flight: Sequence[str] = (),
        partial: bool = False,
        uncounted: str | None = None,
    ) -> None:
        """``note``: what a format's own panes say (a line of its own, the last).
        ``in_flight``: what the writer left in flight, part by part, in ``check``'s words
        (``open_work``), on a line of its own after the counts. ``partial``: the
        transcript is a big file's end alone (its preview), so its counts and usage are
        the end's, and its lines are not counted yet: said so, never passed off as the
        file's. ``uncounted``: why nothing is counted (a file not read, one that is no
        transcript), said in place of the counts and the usage, which would read 0.
        ``size`` None: not known (the file cannot be looked at). ``packed``: a compressed
        file's size on disk (``size`` is its lines', unpacked), said beside it."""
        # What the file is doing (live, warnings, a search's place, "↓ N new") before its
        # name: on a narrow screen the name is cut first (the first line lost them at 80).
        state = Text(no_wrap=True, end="")
        state.append(f"● {live}", LIVE_STYLES.get(live, ""))
        if since:
            state.append(f" · {since}", "dim")
        warnings = len(transcript.warnings)
        if warnings:
            state.append(f"  ⚠ {count(warnings, 'warning')} (w)", "bold red")
        if extra:
            state.append(f"  {one_line(extra, 60)}", "italic")
        if transcript.parent:
            state.append(f"  a subagent of {one_line(transcript.parent, 40)}", "italic")
        self._shown = True
        sized = "size not known" if size is None else size_text(size)
        if packed is not None and size is not None:
            sized += f" ({size_text(packed)} packed)"
        self._top = (name_line(name), title, f"{mode} view · {sized}", state)
        if uncounted is not None:
            self._counts = (Text(), [Text(uncounted, "italic")], [])
            self._usage_lead, self._usage, self._note = Text(), [], []
            self._in_flight = []
            self._draw()
            return

        lead = Text("the file's end alone:", "italic") if partial else Text()
        ops = transcript.tool_operations
        busy = unsettled_ops(ops)  # (not every operation made for the two counts)
        running = sum(op.state == "running" for op in busy)
        interrupted = sum(op.state == "interrupted" for op in busy)
        said = [] if partial else [Text(count(transcript.lines, "line"))]
        sent = Text(f"{len(transcript.messages):,} sent next")
        unsent = unsent_said(transcript.compactions)
        if unsent:  # (what it holds is the last request's: the events after it not in it)
            sent.append(f" {unsent}", "yellow")
        said.append(sent)
        tools = Text(count(len(ops), "tool op"))
        failed = ops_in_state(ops, "failed")  # (an outcome not known is not a failure)
        # (the interrupted ones the user stopped said: they are not in flight, beside
        # which a bare "2 interrupted" read as a contradiction of "1 tool call ...")
        by_user = stopped_by_user(transcript) if interrupted else 0
        states = [
            (words, style)
            for n, words, style in (
                (running, f"{running:,} running", "bold cyan"),
                (interrupted, interrupted_said(interrupted, by_user), "bold red"),
                (failed, f"{failed:,} failed", "bold red"),
            )
            if n
        ]
        if states:  # one parenthesis: "(2 interrupted, 1 of them by the user, 1 failed)"
            tools.append(" (")
            for index, (words, style) in enumerate(states):
                tools.append(", " if index else "")
                tools.append(words, style)
            tools.append(")")
        said.append(tools)
        overlays = overlay_counts(transcript.compactions).said("compaction")
        runs = Text(count(len(transcript.runs), "run"))
        failed_runs = runs_in_state(transcript.runs, "failed")  # (v1's: none made)
        if failed_runs:  # (as a failed operation is said: its loop ended in an error)
            runs.append(" (")
            runs.append(f"{failed_runs:,} failed", "bold red")
            runs.append(")")
        said.append(runs)
        # (what its writer left in flight, on a line of its own: among the counts, "1 run
        # running · 0 compactions" read as part of it)
        self._in_flight = [] if partial else in_flight_parts(in_flight)
        said.extend(Text(words) for words in overlays)
        facts = [
            f"{key}={one_line(str(value), 50)}"
            for key, value in header_meta(transcript.meta, transcript.format)
        ]
        if not facts and not any(v not in (None, "") for v in transcript.meta.values()):
            # ("no meta yet" only before there is any: a v1 file's agent=x, said on its own
            # line, read "no meta yet" here)
            # ("yet" only before a line is read: a v1 file's empty meta read "no meta yet")
            facts = ["no meta yet" if not transcript.lines else "no meta"]
        self._counts = (lead, said, [Text(fact, "dim") for fact in facts])

        # (the lead alone italic: a base style on the first part made all of it so)
        self._usage_lead = Text("the file's end alone:", "italic") if partial else Text()
        own, both = transcript.usage, transcript.usage_with_subagents
        brief = own.described_parts(breakdown=False, none_made=transcript.made_no_response())
        usage = [Text(f"usage {brief[0]}")]
        if both is None or not any(s.counted for s in transcript.subagents):
            if own.tokens is not None:
                usage.extend(breakdown_terms(own.breakdown_terms()))
            usage.extend(Text(part) for part in brief[1:])
            if both is not None:  # (a total of nothing more)
                usage.append(Text(transcript.with_subagents_text(), "dim"))
        else:  # the totals first: the breakdowns would push the session's off the line
            usage.extend(Text(part) for part in brief[1:])
            total = both.described_parts(breakdown=False)
            least = "at least " if transcript.subagents_left_out() is not None else ""
            with_them = Text(f"{transcript.with_subagents_text()} {least}")
            with_them.append(total[0], "bold")
            usage.append(with_them)
            usage.extend(Text(part, "bold") for part in total[1:])
            if own.tokens is not None:
                usage.extend(breakdown_terms(own.breakdown_terms(), "dim", "this file ", ""))
        if transcript.resumed is not None:  # (its usage holds the copied history)
            # (in parts a narrow line breaks between: one part was cut "…: resum…")
            parts = transcript.resumed.said_parts(as_own=True)
            usage.append(Text(one_line(parts[0], 200), "dim"))
            usage.extend(Term(one_line(part, 200), "dim") for part in parts[1:])
        limits = transcript.extra.get("rate-limits", transcript.extra.get("rate_limits"))
        if limits:
            usage.append(Text(f"limits {rate_limits_text(limits)}", "dim"))
        self._usage = usage
        # (broken between its parts as the counts are: at 80 columns one line cut off
        # agentgo's gaps and the run shown; given as parts, never split at " · ", which
        # a part's own value may hold: an agent's name, a search term)
        self._note = [Text(one_line(part, 300)) for part in note if part]
        self._draw()

    def on_resize(self) -> None:
        if self._shown:
            self._draw()

    def _draw(self) -> None:
        width = self.size.width or 200
        rows = [top_line(*self._top, width), *counts_lines(*self._counts, width)]
        if self._in_flight:
            rows.extend(in_flight_lines(self._in_flight, width))
        if self._usage:  # (none where nothing is counted)
            rows.extend(counts_lines(self._usage_lead, self._usage, [], width))
        if self._note:
            rows.extend(counts_lines(Text(), self._note, [], width))
        if self.styles.height is None or self.styles.height.value != len(rows):
            self.styles.height = len(rows)  # (the counts on two lines, or back on one)
        lines = Text("\n", no_wrap=True, overflow="ellipsis").join(rows)
        lines.no_wrap = True  # cut at the width: never wrapped onto the next
        self.update(lines)


__all__ = ["ModelStatus", "Term", "breakdown_terms", "counts_lines", "rate_limits_text"]
