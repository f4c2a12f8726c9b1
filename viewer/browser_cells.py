"""How a FileSummary reads in the browser: cells, sort keys, the detail and totals lines."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rich.cells import cell_len
from rich.text import Text

from session_core.fold import fold, holds
from session_core.formats.base import IDLE_SECONDS
from session_core.scan import STATUSES, FileSummary, Status
from session_core.text import HUGE_COST, cost_text, count, duration_text, name_line, size_text
from session_core.times import epoch
from session_core.usage_totals import NO_RESPONSE, NO_RESPONSE_SHORT

from .browser_copies import copies_counted
from .browser_fitted import broken, cut_to, wrapped_lines
from .safe import fit_path, inert, one_line
from .widgets.model_status import age_text

# The agent / model column: 18 cells (at 80 columns, and up to where the session column
# has SESSION_ROOM), then half of the session column's more, to AGENT_WIDTH_MAX (at 220
# columns 18 cut "worktrees / claud…" while the session column had 117).
AGENT_WIDTH, AGENT_WIDTH_MAX, SESSION_ROOM = 18, 40, 40
# (key, header, width; None = the session column, which takes what is left)
COLUMNS: list[tuple[str, str, int | None]] = [
    ("session", "session", None),
    ("agent", "agent / model", AGENT_WIDTH),
    ("started", "started", 11),
    ("duration", "duration", 8),  # (from the first line's time to the last's)
    ("last", "last active", 11),
    ("size", "size", 6),
    ("messages", "msgs", 6),
    ("tools", "tools", 6),
    ("tokens", "tokens", 7),  # ("unknown")
    ("cost", "cost", 7),
    ("status", "status", 10),  # ("unreadable": every label whole)
]
# The session column is how people tell sessions apart: the least needed columns go
# before it is narrower than SESSION_WIDTH_WANTED (at 120 columns it had 16 cells, "Work on
# bead sp…", beside every other column); SESSION_WIDTH_MIN where none is left to drop.
SESSION_WIDTH_MIN, SESSION_WIDTH_WANTED = 16, 24
# Where the table is too narrow for every column, these go first, in this order: a file's
# status, messages and last activity stay on screen, not cut off at the right edge (and
# the column the rows are sorted by, so the order can be seen). Tokens before the
# duration: the cost column beside it says much of what they do.
DROPPED_FIRST = ("started", "tools", "size", "tokens", "duration", "agent", "cost")
# Narrower still (40 columns), these go too, before the session column is narrower than
# SESSION_WIDTH_MIN, and then the sorted-by column: the status is never dropped (at 40
# columns it was, and the row ran past the edge, a scroll bar's stray ``▍`` below it).
DROPPED_THEN = ("messages", "last")
SESSION_WIDTH_LEAST = 4  # (where even the session and the status alone do not fit)
SORTABLE = [key for key, _, _ in COLUMNS]
LABELS = {key: header for key, header, _ in COLUMNS}
NUMERIC = {"duration", "size", "messages", "tools", "tokens", "cost"}  # (right-aligned)


@dataclass(slots=True)
class Sort:
    """The browser's order: a column, and which way."""

    column: str = "last"
    reverse: bool = True  # newest first

    def describe(self) -> str:
        return f"{LABELS[self.column]} {'↓' if self.reverse else '↑'}"


# Each status's one name, on every surface the browser says it (its cell, the footer's
# counts, the filter in the title, an empty table's row, the detail): a file no format
# claims is "other" (it was also "not a transcript", "not-a-transcript" and "other than a
# transcript" there), as the README's status table names it.
STATUS_NAME: dict[Status, str] = {
    "live": "live",
    "finished": "finished",
    "crashed": "crashed",
    "damaged": "damaged",
    "unreadable": "unreadable",
    "not-a-transcript": "other",
}
STATUS_LABEL: dict[Status, str] = {**STATUS_NAME, "live": "● live"}  # (the cell's)
STATUS_STYLE: dict[Status, str] = {
    "live": "bold green",
    "finished": "",
    "crashed": "bold yellow",
    "damaged": "bold red",
    "unreadable": "bold magenta",
    "not-a-transcript": "dim italic",
}
UNKNOWN = Text("unknown", style="dim", justify="right")
# A file that made no model response: its usage none, as its header says it (``NO_RESPONSE``)
NONE_MADE = Text(NO_RESPONSE_SHORT, style="dim", justify="right")
# A finished file with a run whose loop failed (``FileSummary.failed_runs``): in the
# Runs tab's word and colour for it (nothing was left open: it is no crash)
FAILED = ("failed", "bold red")


def status_cell(summary: FileSummary) -> Text:
    """The row's status: *failed* for a finished file a run of which failed."""
    if summary.status == "finished" and summary.failed_runs:
        return Text(FAILED[0], style=FAILED[1])
    return Text(STATUS_LABEL[summary.status], style=STATUS_STYLE[summary.status])


def fitting_columns(width: int, keep: str | None = None) -> list[tuple[str, str, int]]:
    """The columns shown in ``width`` cells, each with its width: all of them when the
    session column can be ``SESSION_WIDTH_WANTED`` wide, else without the first of
    ``DROPPED_FIRST`` that it takes, never ``keep`` (the sorted-by column); narrower, so
    that it keeps ``SESSION_WIDTH_MIN``, ``DROPPED_THEN`` and ``keep`` too, never the
    status; the session column takes the rest, the agent / model column half of what it
    has to spare."""
    dropped: set[str] = set()
    first = [k for k in DROPPED_FIRST if k != keep]
    then = [k for k in (*DROPPED_THEN, keep) if k in LABELS and k not in ("session", "status")]
    for at, key in enumerate((None, *first, *dict.fromkeys(then))):
        if key is not None:
            dropped.add(key)
        shown = [column for column in COLUMNS if column[0] not in dropped]
        fixed = sum(w or 0 for _, _, w in shown)
        room = width - fixed - 2 * len(shown) - 2  # 2: a cell each side; 2: the scrollbar
        if room >= (SESSION_WIDTH_WANTED if at < len(first) else SESSION_WIDTH_MIN):
            break
    grow = min(AGENT_WIDTH_MAX - AGENT_WIDTH, max(0, room - SESSION_ROOM) // 2)
    if not any(key == "agent" for key, _, _ in shown):
        grow = 0
    least = SESSION_WIDTH_MIN if room >= SESSION_WIDTH_MIN else SESSION_WIDTH_LEAST
    widths = {"session": max(least, room - grow), "agent": AGENT_WIDTH + grow}
    return [(key, label, widths.get(key, w or 0)) for key, label, w in shown]


def short_time(seconds: float | None) -> str:
    if seconds is None or seconds <= 0:
        return "—"
    return time.strftime("%m-%d %H:%M", time.gmtime(seconds))


def long_time(seconds: float | None) -> str:
    if seconds is None or seconds <= 0:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


def compact(count: int) -> str:
    """At most 5 characters (6 with an estimate's ``~``: the narrowest number column),
    so a count is never cut: ``9,999``, ``12.3k``, ``123k``, ``12.3M``, ``123M``, ``1.2B``."""
    if count < 10_000:
        return f"{count:,}"
    big = ((unit, scale) for unit, scale in _BIG_UNITS if round(count / scale, 1) >= 1)
    unit, scale = next(big, ("k", 1000))
    value = count / scale
    return f"{value:.1f}{unit}" if round(value, 1) < 100 else f"{value:.0f}{unit}"


_BIG_UNITS = (("B", 1_000_000_000), ("M", 1_000_000))


def money(cost: float) -> str:
    """A total in full, where it is not held to a column's width (the footer): ``$0.0012``,
    ``$1.50``, ``$123,456``; ``<$0.0001`` above 0 (``$0.0000`` read as nothing spent)."""
    if cost < 0.01 or cost >= HUGE_COST:  # (``cost_text``'s: never 309 digits)
        return cost_text(cost)
    return f"${cost:,.{2 if cost < 100 else 0}f}"


def money_cell(cost: float, mark: str = "") -> str:
    """A cost in the cost column: at most 6 characters after an estimate's ``~`` or a lower
    bound's ``≥`` (``mark``), so it is never cut: ``$0.001`` to ``$0.009`` below a cent,
    ``$99.99``, then whole dollars as the counts are shown (``$9,999``, ``$12.3k``,
    ``$1.2M``). Above 0 and below ``$0.001`` it is ``<$0.001`` (the ``<`` takes the
    mark's cell), or with a mark ``~$0.000`` / ``≥$0.000`` (``$0.00`` is none spent)."""
    if not math.isfinite(cost):  # (costs a file wrote that add up past a double's reach)
        return f"{mark}${cost}"
    mills = f"{cost:.3f}"  # (each bound judged on the figure as shown, rounded)
    if cost > 0 and float(mills) < 0.01:
        if float(mills) == 0:
            return f"{mark}$0.000" if mark else "<$0.001"
        return f"{mark}${mills}"
    cents = f"{cost:.2f}"
    if float(cents) < 100:
        return f"{mark}${cents}"
    return f"{mark}${compact(round(cost))}"


def _number(value: int | None, estimated: bool, partial: bool = False) -> Text:
    """A count; ``~`` an estimate (a big file's tail scaled), ``≥`` a total that leaves
    out responses that did not report (the line under the table says how many)."""
    if value is None:
        return UNKNOWN
    return Text(_mark(estimated, partial) + compact(value), justify="right")


def _mark(estimated: bool, partial: bool) -> str:
    return "~" if estimated else "≥" if partial else ""


def cells(
    summary: FileSummary, session_width: int, depth: int = 0, agent_width: int = AGENT_WIDTH
) -> list[Any]:
    """One row, every cell a ``Text`` built from plain strings (never markup); a subagent
    listed under its parent (``depth`` > 0) is marked and indented."""
    who = " / ".join(x for x in (summary.agent, summary.model) if x) or "—"
    mark = "  " * (depth - 1) + "↳ " if depth else ""
    if not summary.counts_known:  # nothing was counted
        numbers: list[Any] = [Text("—", justify="right", style="dim") for _ in range(4)]
    else:
        cost = summary.cost
        numbers = [
            _number(summary.messages, summary.estimated),
            _number(summary.tool_calls, summary.estimated),
            NONE_MADE
            if summary.tokens is None and summary.no_response
            else _number(summary.tokens, summary.estimated, summary.tokens_partial),
            (NONE_MADE if summary.no_response else UNKNOWN)
            if cost is None
            else Text(
                money_cell(cost, _mark(summary.estimated, summary.cost_partial)), justify="right"
            ),
        ]
    return [
        session_cell(summary, session_width, mark),
        Text(one_line(who, agent_width), no_wrap=True),
        started_cell(summary),
        duration_cell(summary),
        Text(short_time(summary.last_activity)),
        _size_cell(summary),
        *numbers,
        status_cell(summary),
    ]


def started_cell(summary: FileSummary) -> Text:
    """When it began; where no record says (an older writer's document that does not),
    its file's day, said so (``file 04-20``: when it was last written, not begun)."""
    if summary.started_by_file and summary.started_at is None and summary.mtime > 0:
        return Text(time.strftime("file %m-%d", time.gmtime(summary.mtime)), style="dim")
    return Text(short_time(summary.started_at))


def _size_cell(summary: FileSummary) -> Text:
    """Its size; one nothing was there to measure (a broken link), ``—``: never 0 B."""
    if summary.unsized is not None:
        return Text("—", justify="right", style="dim")
    return Text(size_text(summary.size, compact=True), justify="right")


def duration_cell(summary: FileSummary) -> Text:
    """How long a run ran, from its first line's time to its last's, at most 7
    characters (``duration_text``; from 100 hours on, days: ``4d04h``, ``1.2kd``);
    "unknown" where a time is missing, never 0. A damaged file's where both its times
    were read (a Claude Code or Codex file's: every line is read past the damage)."""
    seconds = _duration(summary)
    if seconds is None or not math.isfinite(seconds):
        # (a damaged file's read stopped short of its last time: as its counts, none)
        return UNKNOWN if summary.counts_known else Text("—", justify="right", style="dim")
    if seconds < 100 * 3600:
        return Text(duration_text(seconds), justify="right")
    days, hours = divmod(round(seconds / 3600), 24)
    shown = f"{days}d{hours:02d}h" if days < 100 else f"{compact(days)}d"
    return Text(shown, justify="right")


def _duration(summary: FileSummary) -> float | None:
    """Its times' span where it was read as a transcript (damaged too), else None."""
    return summary.duration if summary.format is not None else None


def session_cell(summary: FileSummary, width: int, mark: str = "") -> Text:
    """What a session is about, as people tell sessions apart (its title: a summary line or
    its first prompt); a file with none is named by its path, dim, and why it has none
    where its format says (``summaries of other sessions · a.jsonl``)."""
    width -= len(mark)
    if summary.title:
        return Text(mark + one_line(summary.title, width), no_wrap=True, end="")
    why = _words_within(summary.untitled or "", width // 2 - 3)  # (the format's own words)
    why = f"{why} · " if why else ""  # (too narrow even for a word: the path alone)
    path = fit_path(summary.rel, width - len(why))
    return Text(mark + why + path, style="dim", no_wrap=True, end="")


def _words_within(words: str, width: int) -> str:
    """``words`` in ``width`` cells, cut after a whole word (``summaries of…``) where they
    do not fit; "" where not even the first does."""
    words = one_line(words)
    if cell_len(words) <= width:
        return words
    kept = ""
    for word in words.split(" "):
        longer = f"{kept} {word}" if kept else word
        if cell_len(longer) + 1 > width:
            break
        kept = longer
    return f"{kept}…" if kept else ""


def sort_key(column: str, reverse: bool = False) -> Callable[[FileSummary], Any]:
    """A total order for a column; unknowns sort last either way (the table reverses keys)."""
    last = 0 if reverse else 1

    def known(value: Any) -> tuple[int, Any]:
        return (last, 0) if value is None else (1 - last, value)

    keys: dict[str, Callable[[FileSummary], Any]] = {
        "session": lambda s: (s.title or s.rel).casefold(),
        "agent": lambda s: known(" / ".join(x for x in (s.agent, s.model) if x) or None),
        "started": lambda s: known(s.started_at or (s.mtime if s.started_by_file else None)),
        "duration": lambda s: known(_duration(s)),
        "last": lambda s: s.last_activity,
        "size": lambda s: s.size,
        "messages": lambda s: known(s.messages),
        "tools": lambda s: known(s.tool_calls),
        "tokens": lambda s: known(_made(s.tokens, s.no_response)),
        "cost": lambda s: known(_made(s.cost, s.no_response)),
        "status": lambda s: STATUSES.index(s.status),
    }
    primary = keys[column]
    return lambda s: (primary(s), s.rel)


def _made(value: float | None, none_made: bool) -> float | None:
    """A usage figure to sort by: none made is 0 (below any reported), not unknown."""
    return 0 if value is None and none_made else value


def grouped(order: list[str], rows: Mapping[str, FileSummary]) -> tuple[list[str], dict[str, int]]:
    """The sorted ``order`` with each subagent's file moved under its parent's row (when both
    are shown), siblings in the sort's order; and the depth of each row moved."""
    shown = set(order)
    parent_of: dict[str, str] = {}
    for path in order:
        for child in rows[path].subagents:
            if child in shown and child != path:
                parent_of.setdefault(child, path)
    if not parent_of:
        return order, {}
    children: dict[str, list[str]] = {}
    for path in order:
        if path in parent_of:
            children.setdefault(parent_of[path], []).append(path)
    out: list[str] = []
    depth: dict[str, int] = {}
    placed: set[str] = set()

    def place(path: str, level: int) -> None:
        if path in placed:  # (a loop of files naming each other: each once)
            return
        placed.add(path)
        out.append(path)
        if level:
            depth[path] = level
        for child in children.get(path, ()):
            place(child, level + 1)

    for path in order:
        if path not in parent_of:
            place(path, 0)
    for path in order:  # any left: a loop with no top
        place(path, 0)
    return out, depth


def none_shown(every: int, needle: str, status: Status | None) -> str | None:
    """What the table says when its filters leave none of the ``every`` files (None: a
    table with no filter, or no file)."""
    if not every or not (needle or status):
        return None
    said = [f"matches {one_line(needle, 40)!r}"] if needle else []
    if status == "not-a-transcript":  # (a name, not an adjective: "is other" reads amiss)
        said.append(f"has status {STATUS_NAME[status]}")
    elif status == "finished":  # (a file read *failed* is one: its loop said it ended)
        said.append("is finished (or failed)")
    elif status is not None:
        said.append(f"is {STATUS_NAME[status]}")
    return f"No file {' and '.join(said)}: a shows all {count(every, 'file')}."


def matches(summary: FileSummary, needle: str, status: Status | None) -> bool:
    if status is not None and summary.status != status:
        return False
    if not needle:
        return True
    haystack = " ".join(
        x or ""
        for x in (
            summary.rel,
            summary.agent,
            summary.title,
            summary.model,
            summary.status,
            STATUS_NAME[summary.status],
            status_cell(summary).plain,  # (a finished file read *failed* is found so)
            summary.format,
            summary.reason,  # (what the line under the table says of it: "TypeScript")
        )
    )
    return holds(haystack, fold(needle))


def quiet_said(mtime: float) -> str:
    """Why a file no writer holds may still have one at work: ``no lock; written to 40s
    ago``, and until when (``IDLE_SECONDS`` of quiet), as the viewer's header says it."""
    ago = age_text(time.time() - mtime)
    return f"no lock; written to {ago} ago, idle once quiet {age_text(IDLE_SECONDS)}"


def detail(summary: FileSummary, shown_path: str, width: int = 0) -> Text:
    """Two lines about the selected file: where and when, then what is wrong with it;
    ``width``: the first cut to it, the second wrapped between words onto more lines (its
    reason was cut at 100 columns: ``tokens and cost at l…``)."""
    first = Text(no_wrap=True, overflow="ellipsis", end="")
    first.append(name_line(shown_path), style="bold")  # (the session column shows its title)
    facts = [summary.format or "", summary.unsized or f"{summary.size:,} bytes"]
    if summary.started:
        facts.append(f"started {long_time(epoch(summary.started))}")
    elif summary.started_by_file:
        facts.append(f"no start said: file written {long_time(summary.mtime)}")
    facts.append(f"last active {long_time(summary.last_activity)}")
    if summary.estimated:
        facts.append("counts estimated from the tail (a big file)")
    first.append("  " + " · ".join(f for f in facts if f), style="dim")
    second = Text(no_wrap=True, overflow="ellipsis", end="")
    second.append(STATUS_NAME[summary.status], style=STATUS_STYLE[summary.status] or "bold")
    if summary.status == "live":
        if summary.locked:
            why = "a writer holds it"
        else:  # (the one rule: a writer that takes no lock is given two minutes of quiet)
            why = f"its writer may still be at work ({quiet_said(summary.mtime)})"
        second.append(f": {why}")
        if summary.reason:
            second.append(f" (so far: {inert(summary.reason)})", style="dim")
    elif summary.reason:
        second.append(": " + one_line(summary.reason))
    elif summary.status == "finished":
        ended = "every run ended" if summary.unstarted else "every run and tool operation ended"
        second.append(f": {ended}", style="dim")
    if summary.failed_runs:  # (its loop ended in an error: said whatever else it is)
        second.append(" · ")
        second.append(f"{count(summary.failed_runs, 'run')} failed", style=FAILED[1])
    if summary.unstarted:  # (as ``check`` says them: no crash, its loop said it ended)
        second.append(f" · {one_line(summary.unstarted)}", style="yellow")
    # (its usage as the row shows it: none where its counts are not, a damaged file's)
    known = summary.counts_known
    family = [f"usage {summary.with_subagents}"] if summary.with_subagents and known else []
    lower = [
        w
        for w, part in (("tokens", summary.tokens_partial), ("cost", summary.cost_partial))
        if part and known
    ]
    if lower:  # (a ≥ in its row)
        why = "; ".join(summary.lower_why) or "not every response counted"
        family.append(f"{' and '.join(lower)} at least: {why}")
    if summary.no_response and known and summary.tokens is None:  # (its row's "none")
        family.append(f"usage {NO_RESPONSE}")
    if summary.parent:
        family.append(f"a subagent of {one_line(summary.parent, 60)}")
    if summary.resumed:  # (its usage holds the earlier session's copied lines)
        family.append(f"usage: {one_line(summary.resumed, 120)}")
    if summary.untitled:  # (its row may have no room for why: said here whole)
        family.append(f"no title of its own: {one_line(summary.untitled, 120)}")
    if family:
        second.append("".join(f" · {fact}" for fact in family), style="dim")
    # (enter opens only what is there: a broken link's row promises nothing)
    hint = Text("" if summary.unsized else "   enter opens it, escape comes back", "dim", end="")
    if width <= 0 or wrapped_lines(second + hint, width) <= DETAIL_LINES - 1:
        second.append_text(hint)  # (the first to go: the keys' help says it too)
    elif wrapped_lines(second, width) > DETAIL_LINES - 1:
        second = cut_to(second, width, DETAIL_LINES - 1)
    if width > 0:
        first.truncate(width, overflow="ellipsis")
    joined = Text("\n").join([first, second])
    joined.no_wrap, joined.overflow = width <= 0, "ellipsis" if width <= 0 else "fold"
    return joined


# The detail's most lines (its style's ``max-height``): its path's, and its why wrapped.
DETAIL_LINES = 6


_N = TypeVar("_N", int, float)


class _Total(Generic[_N]):
    """One measure (tokens or cost) over the transcripts listed: its sum, how many did
    not say it (``unknown``) and how many known figures leave out responses (``partial``,
    lower bounds)."""

    __slots__ = ("partial", "sum", "unknown")

    def __init__(self, zero: _N) -> None:
        self.sum: _N = zero
        self.unknown = 0
        self.partial = 0

    def add(self, value: _N | None, alone: bool, partial: bool, added: bool) -> None:
        """A transcript's figure: unknown where it has none, or only its subagents'
        (``alone``: the file reported none of its own); summed where it is not counted in
        a parent's row too (``added``)."""
        if value is None or alone:
            self.unknown += 1
        elif partial:
            self.partial += 1
        if value is not None and added:
            self.sum += value


def totals(summaries: Iterable[FileSummary], shown: int, width: int = 0) -> Text:
    """Files per status (``shown``: how many the table shows; a folder that cannot be
    listed counted apart), then tokens and cost with the files that did not say. A subagent's
    file that is a row of its own and counted in its parent's row is added once. In
    ``width`` cells (0: one line) on as many lines as they take, broken between facts, as
    the headers' counts are (at 80 columns one line cut the cost, or its unknowns, off)."""
    summaries = list(summaries)
    in_parents = {path for summary in summaries for path in summary.counted}
    copies = copies_counted(summaries)  # (a resumed session's copied history: once)
    counts = dict.fromkeys(STATUSES, 0)
    failed = 0  # (finished files read *failed*: among the finished, said with them)
    tokens, cost = _Total(0), _Total(0.0)
    transcripts = 0
    folders = 0  # (a folder that cannot be listed is a row, not a file: counted apart)
    for summary in summaries:
        if summary.is_folder:
            folders += 1
            continue
        counts[summary.status] += 1
        failed += summary.status == "finished" and bool(summary.failed_runs)
        if not summary.counts_known:
            continue
        transcripts += 1
        added = summary.path not in in_parents
        path, said_tokens, said_cost = summary.path, summary.tokens, summary.cost
        if said_tokens is not None and path in copies.tokens:
            said_tokens = max(said_tokens - copies.tokens[path], 0)
        if said_cost is not None and path in copies.cost:
            said_cost = max(said_cost - copies.cost[path], 0.0)
        if summary.no_response:  # (none made: known, none, as its row says)
            said_tokens = 0 if said_tokens is None else said_tokens
            said_cost = 0.0 if said_cost is None else said_cost
        tokens.add(said_tokens, summary.tokens_alone, summary.tokens_partial, added)
        cost.add(said_cost, summary.cost_alone, summary.cost_partial, added)
    total = sum(counts.values())
    files = Text(f"{total:,} file{'s' if total != 1 else ''}", style="bold", end="")
    if shown != total:
        files.append(f" ({shown:,} shown)", style="not bold")
    facts: list[tuple[str, Text]] = [("", files)]
    for status in STATUSES:
        if counts[status]:
            named = f"{counts[status]:,} {STATUS_NAME[status]}"
            fact = Text(named, style=STATUS_STYLE[status], end="")
            if status == "finished" and failed:
                fact.append(" (")
                fact.append(f"{failed:,} {FAILED[0]}", style=FAILED[1])
                fact.append(")")
            facts.append(("  ", fact))
    if folders:
        unreadable = f"{count(folders, 'folder')} unreadable"
        facts.append(("  ", Text(unreadable, style=STATUS_STYLE["unreadable"], end="")))
    if not total and not folders:  # (no file: no total to know, "tokens unknown" said
        return broken(facts, width, TOTALS_LINES)  # there read as a failure to read one)
    known = transcripts > tokens.unknown
    facts.append(
        ("  │  ", Text.assemble("tokens ", (f"{tokens.sum:,}" if known else "unknown", "bold")))
    )
    known = transcripts > cost.unknown
    facts.append(("  ", Text.assemble("cost ", (money(cost.sum) if known else "unknown", "bold"))))
    # What a known total leaves out, said of each (a Codex rollout's tokens are known
    # where its model has no price: its cost alone is unknown).
    pairs = (("tokens", tokens.unknown), ("cost", cost.unknown))
    partial = [(what, n) for what, n in pairs if 0 < n < transcripts]
    if len(partial) == 2 and tokens.unknown == cost.unknown:
        partial = [("usage", tokens.unknown)]
    said = [f"{what} unknown in {n:,}" for what, n in partial]
    # (a lower bound: as its rows mark it, ``≥``, the one word for both where they agree)
    parts = [("tokens", tokens.partial), ("cost", cost.partial)]
    if tokens.partial == cost.partial:
        parts = [("usage", tokens.partial)]
    said += [f"{what} ≥ in {n:,}" for what, n in parts if n]
    said += copies.said()
    for index, words in enumerate(said):
        shut = ")" if index == len(said) - 1 else ","
        facts.append(("  (" if index == 0 else " ", Text(words + shut, style="dim", end="")))
    return broken(facts, width, TOTALS_LINES)


# The footer's most lines (its style's ``max-height``): its facts are fitted to them,
# whole facts dropped past them (an ellipsis said), never a line cut off unseen.
TOTALS_LINES = 4
