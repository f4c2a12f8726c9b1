"""Raw versus replayed: what the file says beside what the model is sent next."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .cells import clip_cells, cut_cells, head_for, pad_cells
from .indexed import Indexed
from .replay import Compaction, Elision, ReplayState, payload_of
from .text import count, line_pieces, name_line, one_line

RowKind = Literal["kept", "elided", "folded", "summary"]


@dataclass(slots=True)
class DiffRow:
    """One message line of the file (or one compaction's summary), and its fate."""

    kind: RowKind
    line: int
    id: str
    role: str
    raw: str  # what the file says (for a summary: the summary text)
    sent: str | None  # what the model is sent next; None when folded away
    folded_by: str | None = None
    compaction: Compaction | None = None  # for a summary row, its compaction
    elisions: list[Elision] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.kind != "kept"


def _content(payload: Mapping[str, Any]) -> str:
    value = payload.get("content")
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


class DiffRows(Indexed[DiffRow]):
    """Every message line and every compaction summary, in file order, with its fate:
    a row is built when asked for (a big file has 100,000s; each holds a message's text).

    Made from the replay's columns, without parsing a line; a row's texts are read
    when it is built, through small caches. It describes the state as it was when made.
    """

    def __init__(self, state: ReplayState) -> None:
        self.state = state
        self._compactions = {c.id: c for c in state.compactions}
        kinds, ids = state.events.kinds, state.events.ids
        compactions = self._compactions
        # The event index of each row.
        self.positions = array(
            "q",
            [
                position
                for position, kind in enumerate(kinds)
                if kind == "message" or (kind == "compaction" and ids[position] in compactions)
            ],
        )
        self.summary_lines = {
            ids[position]: state.event_lines[position]
            for position in self.positions
            if kinds[position] == "compaction"
        }
        self._changed: list[int] | None = None
        self._cache: dict[int, DiffRow] = {}

    def __len__(self) -> int:
        return len(self.positions)

    def kind(self, index: int) -> RowKind:
        """Row ``index``'s fate, without building it."""
        position = self.positions[index]
        events = self.state.events
        if events.kinds[position] == "compaction":
            return "summary"
        eid = events.ids[position]
        if eid in self.state.folded_by:
            return "folded"
        return "elided" if eid in self.state.elided else "kept"

    def changed(self) -> list[int]:
        """The rows whose fate is not "kept", in order: a row whose event is folded told
        without making its id (``kind`` made every id: 0.55 s at 1 GB, at each rebuild
        of a followed diff that shows the changed rows alone)."""
        if self._changed is None:
            state = self.state
            kinds, ids = state.events.kinds, state.events.ids
            folded_at, folded_by, elided = (
                state.folded_by.folded_events(),
                state.folded_by,
                state.elided,
            )
            out: list[int] = []
            for index, position in enumerate(self.positions):
                if position in folded_at or kinds[position] == "compaction":
                    out.append(index)
                else:
                    eid = ids[position]
                    if eid in folded_by or eid in elided:
                        out.append(index)
            self._changed = out
        return self._changed

    def _one(self, index: int) -> DiffRow:
        found = self._cache.get(index)
        if found is None:
            found = self._build(index)
            if len(self._cache) >= 512:
                self._cache.clear()
            self._cache[index] = found
        return found

    def _build(self, index: int) -> DiffRow:
        state = self.state
        position = self.positions[index]
        events = state.events
        eid = events.ids[position]
        line = state.event_lines[position]
        folded_by = state.folded_by.get(eid)
        elisions = state.elided.get(eid, [])
        entry = state.live_entry(eid)
        sent = None if entry is None else entry[3] if entry[3] is not None else _content(entry[1])
        if events.kinds[position] == "compaction":
            record = self._compactions[eid]
            return DiffRow(
                "summary", line, eid, "user", record.summary, sent, folded_by, record, elisions
            )
        payload = payload_of(events[position])
        role = str(payload.get("role") or "user")
        kind: RowKind = "folded" if folded_by is not None else "elided" if elisions else "kept"
        return DiffRow(kind, line, eid, role, _content(payload), sent, folded_by, None, elisions)


def diff_rows(state: ReplayState) -> list[DiffRow]:
    """Every row of ``DiffRows``, built at once."""
    return list(DiffRows(state))


def _clip(text: str, width: int = 72) -> str:
    """On one line, inert (as the terminal shows it), at most ``width`` cells."""
    return clip_cells(one_line(head_for(text, width)), width)


def render_diff(state: ReplayState, path: str) -> Iterator[str]:
    """The diff as plain text: one block per message line, changes marked at the left;
    a batch of lines at a time, as they are made."""
    return line_pieces(_diff_lines(state, path))


def _diff_lines(state: ReplayState, path: str) -> Iterator[str]:
    rows = DiffRows(state)
    by_line = rows.summary_lines
    raw_messages = sum(1 for index in range(len(rows)) if rows.kind(index) != "summary")
    yield from [
        f"{name_line(path)}: {raw_messages} message lines in the file, "
        f"{len(state.entries)} messages sent next; "
        f"{count(len(state.compactions), 'compaction')}, "
        f"{count(len(state.elisions), 'elision')}",
        "legend: '=' sent as written  '~' sent elided  '-' folded into a summary  "
        "'+' a compaction's summary",
        "",
    ]
    marks = {"kept": "=", "elided": "~", "folded": "-", "summary": "+"}
    for row in rows:
        # (padded by cells, inert first: a wide or zero-width character in a role or id
        # moves no column after it)
        role, ident = pad_cells(one_line(row.role), 9), cut_cells(one_line(row.id), 8)
        head = f"{marks[row.kind]} line {row.line:>6}  {role} {pad_cells(ident, 8)}"
        if row.kind == "summary" and row.compaction is not None:
            c = row.compaction
            tokens = f"{c.tokens_before if c.tokens_before is not None else '?'}"
            tokens += f" -> {c.tokens_after if c.tokens_after is not None else '?'}"
            yield (
                f"{head}  compaction through {c.through[:8]}: folded {len(c.folded)}, "
                f"kept {len(c.kept)} sticky; tokens {tokens}; "
                f"fallback {'yes' if c.fallback else 'no'}"
            )
            yield f"{'':10}summary: {_clip(row.raw)}"
        else:
            yield f"{head}  {_clip(row.raw, 60)}"
        for e in row.elisions:
            yield f"{'':10}elided by {e.elision_id[:8]} at {e.ts}: stub {_clip(e.stub, 50)}"
        if row.kind == "elided" or (row.kind == "summary" and row.elisions):
            yield f"{'':10}original: {_clip(row.raw)}"
            yield f"{'':10}sent:     {_clip(row.sent or '')}"
        if row.folded_by is not None:
            where = by_line.get(row.folded_by)
            at = f" (line {where})" if where else ""
            yield f"{'':10}folded by compaction {row.folded_by[:8]}{at}"
