"""Raw versus replayed: what the file says beside what the model is sent next."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .cells import clip_cells, cut_cells, head_for, pad_cells
from .diff_model import place_said
from .elisions import per_line
from .formats.v1.items import message_parts
from .formats.v1.overlays import replay_counts
from .indexed import Indexed
from .replay import Compaction, Elision, ReplayState, payload_of
from .search import call_said
from .text import count, count_text, line_pieces, name_line, one_line

# A row's fate, its sign: sent as written (``=``; a summary's ``+``), sent as a stub
# (``~``), folded away (``-``), a message's or a summary's alike.
RowKind = Literal["kept", "elided", "folded", "summary"]
MARKS: dict[RowKind, str] = {"kept": "=", "elided": "~", "folded": "-", "summary": "+"}


@dataclass(slots=True)
class DiffRow:
    """One message line of the file (or one compaction's summary), and its fate."""

    kind: RowKind  # (a summary's: "summary" when sent as written)
    line: int
    id: str
    role: str
    raw: str  # what the file says (for a summary: the summary text)
    sent: str | None  # what the model is sent next; None when folded away
    folded_by: str | None = None
    compaction: Compaction | None = None  # for a summary row, its compaction
    elisions: list[Elision] = field(default_factory=list)  # ``per_line``: the last is sent
    place: str = ""  # a summary sent: its place among what is sent ("2 of 5 sent next")

    @property
    def changed(self) -> bool:
        return self.kind != "kept"

    @property
    def mark(self) -> str:
        return MARKS[self.kind]


def _content(payload: Mapping[str, Any]) -> str:
    value = payload.get("content")
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _said(payload: Mapping[str, Any]) -> str:
    """What a message says: its content, or where it has none, its tool calls as the
    conversation names them (``→ fs_read {"path":"a.py"}``): a blank row named nothing."""
    text = _content(payload)
    if text.strip() or not payload.get("tool-calls"):
        return text
    calls = [call_said(part) for part in message_parts(payload) if part.kind == "tool-call"]
    return "  ".join(calls) or text


def _sent_order(state: ReplayState) -> array[int]:
    """Each row's event (every message line's, each compaction's for its summary) in the
    order the model is sent them: a summary where its compaction placed it, before the
    entry that then followed what it folded (``placed_before``), not at its line, which
    comes after the messages it kept. Rows not sent stay by their line, so a summary
    comes after what it folded. (Entries keep their order; a compaction only puts its
    summary in among them: the sent rows read as ``state.entries``.)"""
    kinds = state.events.kinds
    events = {c.event for c in state.compactions}
    rows = [
        position
        for position, kind in enumerate(kinds)
        if kind == "message" or (kind == "compaction" and position in events)
    ]
    before: dict[int, list[int]] = {}  # an event -> the summaries placed before it, in order
    for compaction in state.compactions:
        if compaction.placed_before >= 0:
            before.setdefault(compaction.placed_before, []).append(compaction.event)
    if not before:
        return array("q", rows)
    placed = {event for summaries in before.values() for event in summaries}
    order = array("q")
    for row in rows:
        if row in placed:
            continue  # (listed before the entry it was placed before)
        if row not in before:
            order.append(row)
            continue
        # Depth first, without recursion (a chain of summaries each placed before the
        # last is as long as a file makes it): what was placed before a row, then it.
        stack = [(row, 0)]
        while stack:
            event, taken = stack[-1]
            summaries = before.get(event)
            if summaries is not None and taken < len(summaries):
                stack[-1] = (event, taken + 1)
                stack.append((summaries[taken], 0))
            else:
                stack.pop()
                order.append(event)
    return order


class DiffRows(Indexed[DiffRow]):
    """Every message line and every compaction summary with its fate, in file order but
    for a summary, listed where it is sent (``_sent_order``): a row is built when asked
    for (a big file has 100,000s; each holds a message's text).

    Made from the replay's columns, without parsing a line; a row's texts are read
    when it is built, through small caches. It describes the state as it was when made.
    """

    def __init__(self, state: ReplayState) -> None:
        self.state = state
        self._compactions = {c.event: c for c in state.compactions}
        # The event index of each row, in the order sent (``_sent_order``).
        self.positions = _sent_order(state)
        kinds, ids = state.events.kinds, state.events.ids
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
        eid = events.ids[position]
        if eid in self.state.folded_by:
            return "folded"
        if eid in self.state.elided:
            return "elided"
        return "summary" if events.kinds[position] == "compaction" else "kept"

    def is_summary(self, index: int) -> bool:
        """Row ``index`` is a compaction's summary (sent or not), not a message line."""
        return bool(self.state.events.kinds[self.positions[index]] == "compaction")

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
        elisions = per_line(state.elided.get(eid, []))  # (one a line: the stub it left)
        entry = state.live_entry(eid)
        sent = None if entry is None else entry[3] if entry[3] is not None else _said(entry[1])
        kind: RowKind = "folded" if folded_by is not None else "elided" if elisions else "kept"
        if events.kinds[position] == "compaction":
            record = self._compactions[position]
            at = state.sent_position(eid) if folded_by is None else None
            place = "" if at is None else place_said(at + 1, len(state.entries), "sent next")
            return DiffRow(
                "summary" if kind == "kept" else kind,
                line,
                eid,
                "user",
                record.summary,
                sent,
                folded_by,
                record,
                elisions,
                place,
            )
        payload = payload_of(events[position])
        role = str(payload.get("role") or "user")
        return DiffRow(kind, line, eid, role, _said(payload), sent, folded_by, None, elisions)


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
    raw_messages = sum(1 for index in range(len(rows)) if not rows.is_summary(index))
    yield from [
        f"{name_line(path)}: {count(raw_messages, 'message line')} in the file, "
        f"{count(len(state.entries), 'message')} sent next; "
        + ", ".join(replay_counts(state).said("compaction", "elision")),
        "legend: '=' sent as written  '~' sent elided  '-' not sent: folded into a summary  "
        "'+' a compaction's summary, sent",
        "        (in the order sent: a summary where it is sent, [its place], after what it "
        "folded)",
        "",
    ]
    for row in rows:
        # (padded by cells, inert first: a wide or zero-width character in a role or id
        # moves no column after it)
        role, ident = pad_cells(one_line(row.role), 9), cut_cells(one_line(row.id), 8)
        head = f"{row.mark} line {row.line:>6}  {role} {pad_cells(ident, 8)}"
        if row.compaction is not None:
            c = row.compaction
            tokens = f"{count_text(c.tokens_before)} -> {count_text(c.tokens_after)}"
            yield (
                f"{head}  compaction through {cut_cells(one_line(c.through), 8)}: "
                f"folded {len(c.folded)}, "
                f"kept {len(c.kept)} sticky; tokens {tokens}; "
                f"fallback {'yes' if c.fallback else 'no'}"
                + (f" [{row.place}]" if row.place else "")
            )
            yield f"{'':10}summary: {_clip(row.raw)}"
        else:
            yield f"{head}  {_clip(row.raw, 60)}"
        for e in row.elisions:
            yield (
                f"{'':10}elided by {e.elision_id[:8]} (line {e.elision_line}) at {e.ts}: "
                f"stub {_clip(e.stub, 50)}"
            )
        if row.kind == "elided":
            yield f"{'':10}original: {_clip(row.raw)}"
            yield f"{'':10}sent:     {_clip(row.sent or '')}"
        if row.folded_by is not None:
            where = by_line.get(row.folded_by)
            at = f" (line {where})" if where else ""
            yield f"{'':10}folded by compaction {row.folded_by[:8]}{at}"
