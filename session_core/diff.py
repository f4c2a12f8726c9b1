"""Raw versus replayed: what the file says beside what the model is sent next."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .replay import Compaction, Elision, ReplayState, payload_of

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


def diff_rows(state: ReplayState) -> list[DiffRow]:
    """Every message line and every compaction summary, in file order, with its fate."""
    live: dict[str, str] = {}
    for mid, body, _sticky, stub in state.entries:
        live[mid] = stub if stub is not None else _content(body)
    compactions = {c.id: c for c in state.compactions}
    rows: list[DiffRow] = []
    for envelope, line in zip(state.events, state.event_lines, strict=True):
        kind = envelope.get("type")
        if kind not in ("message", "compaction"):
            continue
        eid = str(envelope.get("id"))
        folded_by = state.folded_by.get(eid)
        elisions = state.elided.get(eid, [])
        sent = live.get(eid)
        if kind == "compaction":
            record = compactions.get(eid)
            if record is None:
                continue
            rows.append(
                DiffRow(
                    "summary", line, eid, "user", record.summary, sent, folded_by, record, elisions
                )
            )
            continue
        payload = payload_of(envelope)
        role = str(payload.get("role") or "user")
        if folded_by is not None:
            row_kind: RowKind = "folded"
        elif elisions:
            row_kind = "elided"
        else:
            row_kind = "kept"
        rows.append(
            DiffRow(row_kind, line, eid, role, _content(payload), sent, folded_by, None, elisions)
        )
    return rows


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _clip(text: str, width: int = 72) -> str:
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render_diff(state: ReplayState, path: str) -> str:
    """The diff as plain text: one block per message line, changes marked at the left."""
    rows = diff_rows(state)
    by_line = {c.id: line for c, line in _compaction_lines(state)}
    raw_messages = sum(1 for r in rows if r.kind != "summary")
    out = [
        f"{path}: {raw_messages} message lines in the file, "
        f"{len(state.entries)} messages sent next; "
        f"{_count(len(state.compactions), 'compaction')}, "
        f"{_count(len(state.elisions), 'elision')}",
        "legend: '=' sent as written  '~' sent elided  '-' folded into a summary  "
        "'+' a compaction's summary",
        "",
    ]
    marks = {"kept": "=", "elided": "~", "folded": "-", "summary": "+"}
    for row in rows:
        head = f"{marks[row.kind]} line {row.line:>6}  {row.role:<9} {row.id[:8]}"
        if row.kind == "summary" and row.compaction is not None:
            c = row.compaction
            tokens = f"{c.tokens_before if c.tokens_before is not None else '?'}"
            tokens += f" -> {c.tokens_after if c.tokens_after is not None else '?'}"
            out.append(
                f"{head}  compaction through {c.through[:8]}: folded {len(c.folded)}, "
                f"kept {len(c.kept)} sticky; tokens {tokens}; "
                f"fallback {'yes' if c.fallback else 'no'}"
            )
            out.append(f"{'':10}summary: {_clip(row.raw)}")
        else:
            out.append(f"{head}  {_clip(row.raw, 60)}")
        for e in row.elisions:
            out.append(f"{'':10}elided by {e.elision_id[:8]} at {e.ts}: stub {_clip(e.stub, 50)}")
        if row.kind == "elided" or (row.kind == "summary" and row.elisions):
            out.append(f"{'':10}original: {_clip(row.raw)}")
            out.append(f"{'':10}sent:     {_clip(row.sent or '')}")
        if row.folded_by is not None:
            where = by_line.get(row.folded_by)
            at = f" (line {where})" if where else ""
            out.append(f"{'':10}folded by compaction {row.folded_by[:8]}{at}")
    return "\n".join(out) + "\n"


def _compaction_lines(state: ReplayState) -> list[tuple[Compaction, int]]:
    lines = {str(e.get("id")): n for e, n in zip(state.events, state.event_lines, strict=True)}
    return [(c, lines.get(c.id, 0)) for c in state.compactions]
