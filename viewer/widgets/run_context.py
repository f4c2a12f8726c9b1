"""``RunContextPane``: each run's context (facts in order, sections) and what changed.

A section's body is written once (``rendered``) and later runs point at the
line that carries it (``rendered-in``); the pane resolves every body through
``ReplayState.run_context_section(digest)`` and says "body not in this
transcript" when the carrying line is gone. Sections are compared with the
previous run-context line by name: new, changed (another digest), same, or
removed. All transcript text goes through ``viewer.safe``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import astuple
from functools import partial
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from session_core.replay import ReplayState
from session_core.text import count

from ..safe import inert, one_line, one_line_middle, short_id
from .pane import FocusPane
from .run_section import SectionInfo, SectionStatus, SectionView, _component_style
from .virtual_table import SCROLLBAR, Column, Cut, Fit, FittedTable, VirtualTable, fitted_columns
from .width_static import WidthStatic

_TS = re.compile(r"^\d{4}-(\d\d-\d\d)T(\d\d:\d\d:\d\d)")


# The runs table: (key, label, width in cells).
RUN_COLUMNS = (
    ("run", "run", 12),
    ("ts", "at", 14),
    ("digest", "digest", 8),
    ("facts", "facts", 5),
    ("sections", "sections", 8),
    ("changed", "vs previous", 20),
)
# The runs list fits its share of the screen (``fitted_columns``): what changed takes
# what the others leave, and the columns the run's detail says go first (at 80 columns:
# its digest, facts, time and sections count; below 120, its digest).
RUNS_FIT = Fit("changed", 18, ("digest", "facts", "ts", "sections"))
# The facts table fits the detail: a fact's value takes what the others leave, cut
# with ``…``; its number goes first, then (narrower than 79 columns) how it compares
# (``c`` copies a fact whole).
FACTS_FIT = Fit("value", 12, ("n", "vs"))
# The runs list takes 66% of the pane, at most its 81 cells, and leaves the detail
# ``DETAIL_LEAST`` cells where it keeps its own least (a run, what changed: ``2 facts,
# 2 sections`` uncut): at 80 columns a 66% share left the facts table 27, where how a
# fact compares went (``RunContextPane.on_resize``).
RUNS_SHARE, RUNS_MOST, RUNS_LEAST, DETAIL_LEAST = 0.66, 81, 39, 40


def day_clock(ts: object) -> str:
    """``08-09 13:10:08`` from an ISO-8601 timestamp; anything else, inert and clipped."""
    if not isinstance(ts, str):
        return ""
    match = _TS.match(ts)
    return f"{match.group(1)} {match.group(2)}" if match else one_line(ts, 14)


def _sections_by_name(run: dict[str, Any]) -> dict[str, str]:
    """name -> digest of a run's sections (a repeated name: its first occurrence)."""
    out: dict[str, str] = {}
    for section in run.get("sections", []):
        name = section.get("name")
        key = name if isinstance(name, str) else repr(name)
        digest = section.get("digest")
        out.setdefault(key, digest if isinstance(digest, str) else repr(digest))
    return out


def section_changes(previous: dict[str, Any] | None, run: dict[str, Any]) -> dict[str, str]:
    """name -> "new", "changed", "same" or "removed" versus ``previous`` ({} for a first run)."""
    if previous is None:
        return {}
    before = _sections_by_name(previous)
    now = _sections_by_name(run)
    out: dict[str, str] = {}
    for name, digest in now.items():
        if name not in before:
            out[name] = "new"
        else:
            out[name] = "same" if before[name] == digest else "changed"
    for name in before:
        if name not in now:
            out[name] = "removed"
    return out


def _facts_by_key(run: dict[str, Any]) -> dict[str, str]:
    """key -> value of a run's facts, inert (a repeated key: its first occurrence)."""
    out: dict[str, str] = {}
    for fact in run.get("facts", []):
        if len(fact) >= 1:
            out.setdefault(inert(fact[0]), inert(fact[1]) if len(fact) >= 2 else "")
    return out


def fact_changes(previous: dict[str, Any] | None, run: dict[str, Any]) -> dict[str, str]:
    """key -> "new", "changed", "same" or "removed" versus ``previous`` ({} for a first run)."""
    if previous is None:
        return {}
    before, now = _facts_by_key(previous), _facts_by_key(run)
    out = {
        key: "new" if key not in before else "same" if before[key] == value else "changed"
        for key, value in now.items()
    }
    out.update((key, "removed") for key in before if key not in now)
    return out


def changed_count(previous: dict[str, Any] | None, run: dict[str, Any]) -> tuple[int, int] | None:
    """How many facts and how many sections are new, changed or removed versus
    ``previous`` (None: first run)."""
    if previous is None:
        return None
    facts = sum(1 for status in fact_changes(previous, run).values() if status != "same")
    sections = sum(1 for status in section_changes(previous, run).values() if status != "same")
    return facts, sections


def section_body(state: ReplayState, section: dict[str, Any]) -> str | None:
    """The section's text: inline, or through its ``rendered-in`` pointer (None when gone)."""
    rendered = section.get("rendered")
    if isinstance(rendered, str):
        return rendered
    digest = section.get("digest")
    if not isinstance(digest, str):
        return None
    return state.run_context_section(digest)


def run_sections(
    state: ReplayState, run: dict[str, Any], previous: dict[str, Any] | None
) -> list[SectionInfo]:
    """The run's sections in order, then those the previous run had and this one dropped."""
    changes = section_changes(previous, run)
    before = _sections_by_name(previous) if previous is not None else {}
    out: list[SectionInfo] = []
    for section in run.get("sections", []):
        name_raw = section.get("name")
        name = name_raw if isinstance(name_raw, str) else repr(name_raw)
        digest_raw = section.get("digest")
        digest = digest_raw if isinstance(digest_raw, str) else repr(digest_raw)
        carrier_raw = section.get("rendered-in")
        if isinstance(section.get("rendered"), str):
            location, carrier = "inline", None
        elif carrier_raw is not None:
            carrier = carrier_raw if isinstance(carrier_raw, str) else repr(carrier_raw)
            location = f"rendered-in {short_id(carrier)}"
        else:
            location, carrier = "no body", None
        status: SectionStatus = changes.get(name, "first") if previous is not None else "first"  # type: ignore[assignment]
        out.append(
            SectionInfo(
                name=name,
                digest=digest,
                location=location,
                carrier=carrier,
                status=status,
                body=section_body(state, section),
                previous_digest=before.get(name),
            )
        )
    if previous is not None:
        for section in previous.get("sections", []):
            name_raw = section.get("name")
            name = name_raw if isinstance(name_raw, str) else repr(name_raw)
            if changes.get(name) != "removed" or any(s.name == name for s in out):
                continue
            digest = before.get(name, "")
            out.append(
                SectionInfo(
                    name=name,
                    digest=digest,
                    location="(previous run)",
                    carrier=None,
                    status="removed",
                    body=section_body(state, section),
                    previous_digest=digest,
                )
            )
    return out


class RunContextPane(Horizontal, FocusPane):
    """Runs on the left; the highlighted run's facts and sections on the right."""

    FOCUS_ON = "#runs"
    NONE = "No run context in this transcript yet."
    MOUNTS_LATER = (SectionView,)  # a run's sections, when it is shown: ``?`` lists their keys

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "run-context--label",
        "run-context--new",
        "run-context--changed",
        "run-context--removed",
        "run-context--same",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state: ReplayState | None = None
        self._path = ""
        self._count = 0  # run rows in the table
        self._shown: tuple[int, int, int] | None = None  # (run index, runs known, sections known)
        self._expanded: set[tuple[str, int]] = set()  # (run line id, section position)
        self._facts: list[dict[str, Text]] = []  # the shown run's facts (a run has few)

    def compose(self) -> ComposeResult:
        yield FittedTable(RUN_COLUMNS, self._row_cells, RUNS_FIT, id="runs")
        # The detail scrolls as a whole, its sections below the facts (at 80x24 the
        # facts left the sections no line: a section focused was never seen). Hidden
        # while there is no run: the runs list's first row says so (``NONE``), as every
        # tab's empty view does, where the detail said it beside a blank list.
        detail = VerticalScroll(id="run-detail")
        detail.display = False
        with detail:
            yield WidthStatic(Text(""), id="run-header")
            yield FittedTable(_fact_columns([]), self._fact_cells, FACTS_FIT, id="run-facts")
            yield Static(Text("sections", style="bold"), id="run-sections-title")
            yield Vertical(id="run-sections")

    @property
    def runs_table(self) -> FittedTable:
        return self.query_one("#runs", FittedTable)

    @property
    def facts_table(self) -> FittedTable:
        return self.query_one("#run-facts", FittedTable)

    def _fact_cells(self, index: int) -> dict[str, Text]:
        return self._facts[index]

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        share = min(int(width * RUNS_SHARE), RUNS_MOST, max(RUNS_LEAST, width - DETAIL_LEAST))
        # No wider than the columns that fit its share (and its border): at 120 columns the
        # list kept blank cells while the detail cut a fact's value at 12.
        fitted = fitted_columns(RUN_COLUMNS, share - 1, *astuple(RUNS_FIT))
        self.runs_table.styles.width = min(share, sum(w + 2 for _, _, w in fitted) + SCROLLBAR + 1)

    # -- the data -------------------------------------------------------------

    def refresh_view(self, state: ReplayState, path: str) -> None:
        """Bring the pane up to date with ``state``, the replay of the file at ``path``
        (call after every follow update).

        Run-context lines are append-only, so new runs are appended (a row is built
        only when drawn); a new state object (a reset) rebuilds.
        """
        table = self.runs_table
        first = False
        if state is not self._state or path != self._path:
            self._state = state
            self._path = path
            self._count = 0
            self._shown = None
            self._expanded.clear()
            first = True
        runs = state.run_contexts
        was_at_end = self._count > 0 and table.cursor_row >= self._count - 1
        added = len(runs) > self._count
        self._count = len(runs)
        table.empty_text = self.NONE
        table.set_row_count(self._count)
        self.query_one("#run-detail").display = self._count > 0
        if added and (first or was_at_end):
            table.move_cursor(row=self._count - 1)
        self._show_run(self._cursor_index(), force=added)

    def _row_cells(self, index: int) -> dict[str, Text]:
        if self._state is None:
            return {}
        runs = self._state.run_contexts
        return self._run_cells(index, runs[index], runs[index - 1] if index > 0 else None)

    def _run_cells(
        self, index: int, run: dict[str, Any], previous: dict[str, Any] | None
    ) -> dict[str, Text]:
        counts = changed_count(previous, run)
        if counts is None:
            changed = Text("first run", no_wrap=True)
        elif counts == (0, 0):
            changed = Text("no change", _component_style(self, "run-context--same"), no_wrap=True)
        else:
            said = [
                count(number, noun)
                for number, noun in zip(counts, ("fact", "section"), strict=True)
                if number
            ]
            changed = Text(
                ", ".join(said), _component_style(self, "run-context--changed"), no_wrap=True
            )
        run_id = run.get("run-id")
        return {
            "run": Cut(one_line_middle(run_id, 12), run_id),  # (ends differ)
            "ts": Cut(day_clock(run.get("ts")), run.get("ts")),
            "digest": Cut(short_id(run.get("digest"), 8), run.get("digest")),
            "facts": Text(str(len(run.get("facts", []))), no_wrap=True),
            "sections": Text(str(len(run.get("sections", []))), no_wrap=True),
            "changed": changed,
        }

    def _cursor_index(self) -> int | None:
        if self._count == 0:
            return None
        return min(max(self.runs_table.cursor_row, 0), self._count - 1)

    @on(VirtualTable.Highlighted, "#runs")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self._show_run(self._cursor_index())

    @on(VirtualTable.Highlighted, "#run-facts")
    @on(VirtualTable.Activated, "#run-facts")
    def _quiet(self, event: VirtualTable.Highlighted) -> None:
        event.stop()

    @on(VirtualTable.Activated, "#runs")
    def _opened(self, event: VirtualTable.Activated) -> None:
        """``enter`` on a run: into its sections (``enter`` there folds one), else its
        facts (the help's "Open" did nothing)."""
        event.stop()
        sections = self.query(SectionView)
        (sections.first() if sections else self.query_one("#run-facts", VirtualTable)).focus()

    def _show_run(self, index: int | None, force: bool = False) -> None:
        state = self._state
        if state is None or index is None:
            return
        key = (index, len(state.run_contexts), len(state.sections))
        if self._shown == key or (
            not force and self._shown is not None and self._shown[0] == index
        ):
            return
        self._shown = key
        runs = state.run_contexts
        run = runs[index]
        previous = runs[index - 1] if index > 0 else None
        self.query_one("#run-header", WidthStatic).show(partial(self._header, index, run, previous))
        self._fill_facts(run, previous)
        container = self.query_one("#run-sections", Vertical)
        container.remove_children()
        infos = run_sections(state, run, previous)
        run_id = str(run.get("id"))
        views = [
            SectionView(info, key=(run_id, position), expanded=(run_id, position) in self._expanded)
            for position, info in enumerate(infos)
        ]
        if views:
            container.mount_all(views)
        else:
            container.mount(Static(Text("(no sections)", style="dim")))

    def _header(
        self, index: int, run: dict[str, Any], previous: dict[str, Any] | None, width: int
    ) -> Text:
        """The run's header for ``width`` cells: each value cut to what its line leaves, so
        a cut value's ``…`` never wraps onto a line of its own (at 80 columns the detail
        is 39 cells wide)."""
        label = _component_style(self, "run-context--label")
        total = len(self._state.run_contexts) if self._state else 0
        out = Text(end="")
        title = f"run {index + 1} of {total}: "
        run_id = one_line_middle(run.get("run-id"), min(40, width - cell_len(title)))
        out.append(title, label)
        out.append(run_id)
        when = one_line(run.get("ts"), 40)
        apart = cell_len(f"{title}{run_id}   at {when}") > width  # the time on its own line
        out.append("\nat " if apart else "   at ", label)
        out.append(one_line(run.get("ts"), min(40, width - 3)) if apart else when)
        out.append("\n")
        out.append("line id ", label)  # (the id of the line that holds it)
        out.append(one_line(run.get("id"), min(60, width - 8)))
        out.append("\n")
        out.append("digest ", label)
        out.append(one_line(run.get("digest"), min(40, width - 7)))
        out.append("\n")
        if previous is None:
            out.append("the first run-context line of this transcript", "dim")
        else:
            out.append("vs previous run ", label)
            # (cut to what the line leaves after its label; the counts wrap as words)
            out.append(one_line_middle(previous.get("run-id"), min(30, width - 17)))
            out.append(": ")
            # Sections and facts each counted by their own word: "1 changed, 2 same" of
            # sections alone read as the whole run's, beside 3 changed facts.
            for position, (what, changes) in enumerate(
                (
                    ("sections", section_changes(previous, run)),
                    ("facts", fact_changes(previous, run)),
                )
            ):
                out.append("; " if position else "")
                out.append(f"{what}: ", label)
                if not changes:
                    out.append("none on either side", "dim")
                    continue
                counts = Counter(changes.values())
                out.append_text(
                    Text(", ").join(
                        Text(
                            f"{counts[status]} {status}",
                            _component_style(self, f"run-context--{status}"),
                        )
                        for status in ("changed", "new", "removed", "same")
                        if counts[status]
                    )
                )
        return out

    def _fill_facts(self, run: dict[str, Any], previous: dict[str, Any] | None) -> None:
        rows: list[dict[str, Text]] = []
        before = _facts_by_key(previous) if previous is not None else {}
        changes = fact_changes(previous, run)
        for position, fact in enumerate(run.get("facts", [])):
            key = inert(fact[0]) if len(fact) >= 1 else ""
            value = inert(fact[1]) if len(fact) >= 2 else ""
            status = changes.get(key, "same")
            if status in ("new", "changed"):
                vs = Text(status, _component_style(self, f"run-context--{status}"))
            else:
                vs = Text("")
            rows.append(
                {
                    "n": Text(str(position + 1), no_wrap=True),
                    "key": Cut(one_line(key, 30), key),
                    "value": Cut(one_line(value, 400), value),
                    "vs": vs,
                }
            )
        for key, value in before.items():
            if changes.get(key) == "removed":
                style = _component_style(self, "run-context--removed")
                rows.append(
                    {
                        "n": Text("", no_wrap=True),
                        "key": Cut(one_line(key, 30), key, style),
                        "value": Cut(one_line(value, 400), value, style),
                        "vs": Text("removed", style),
                    }
                )
        self._facts = rows
        table = self.facts_table
        table.set_all_columns(_fact_columns(rows))  # as wide as what they hold, fitted
        table.set_row_count(len(rows))

    def section_views(self) -> list[SectionView]:
        return list(self.query(SectionView))

    @on(SectionView.Left)
    def _left(self, event: SectionView.Left) -> None:
        event.stop()
        self.runs_table.focus()

    @on(SectionView.Toggled)
    def _remember(self, event: SectionView.Toggled) -> None:
        event.stop()
        if event.view.expanded:
            self._expanded.add(event.view.key)
        else:
            self._expanded.discard(event.view.key)


_FACT_LABELS = (("n", "#"), ("key", "fact"), ("value", "value"), ("vs", "vs previous"))


def _fact_columns(rows: list[dict[str, Text]]) -> list[Column]:
    """The facts table's columns, each as wide as its label or its widest cell."""
    return [
        (key, label, max([len(label), *(row[key].cell_len for row in rows)]))
        for key, label in _FACT_LABELS
    ]
