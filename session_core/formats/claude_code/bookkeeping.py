"""The rare line types, read as dicts: system lines (compaction boundaries, turn
durations, stop hooks) and bookkeeping (summaries, queued input, attachments, titles,
and every line type newer than this reader, kept as it is)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model import Part
from ...text import str_or_none
from . import blocks
from .lines import Line
from .records import Boundary
from .threading import OTHER, SYSTEM

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder

_BOUNDARY_KEYS = (
    "logicalParentUuid",
    "compactMetadata",
    "microcompactMetadata",
    "content",
    "tokensSaved",
    "compactedToolIds",
    "trigger",
    "preTokens",
)


def system_line(
    b: ClaudeCodeBuilder,
    record: dict[str, Any],
    facts: Line,
    line: int,
    uuid: str | None,
    side: bool,
    ts: str | None,
) -> None:
    subtype = str_or_none(record.get("subtype"))
    before = b.conv_main
    node = b.node_for(facts, uuid, line, SYSTEM, side)
    ident = uuid or f"line-{line}"
    b.add_item(
        [Part("text", text=blocks.system_text(record), name=subtype)],
        line,
        uuid,
        node,
        side,
        role="system",
        kind="system",
        ts=ts,
        meta=facts.isMeta is True,
        keep=True,
    )
    if side:
        return
    if subtype in ("compact_boundary", "microcompact_boundary"):
        keep = {k: record.get(k) for k in _BOUNDARY_KEYS if k in record}
        b.boundaries.append(
            Boundary(
                id=ident,
                line=line,
                node=node,
                elision=subtype == "microcompact_boundary",
                record=keep,
                before=before,
                ts=ts,
            )
        )
    elif subtype == "stop_hook_summary" and b.runs:
        b.runs[-1].stop_line = line
    elif subtype == "turn_duration" and b.runs:
        run = b.runs[-1]
        if not run.finished:
            run.finished = True
            run.end_line = line
            run.ended = ts
            ms = record.get("durationMs")
            if isinstance(ms, (int, float)) and not isinstance(ms, bool):
                run.duration = ms / 1000


def other_line(
    b: ClaudeCodeBuilder,
    kind: str,
    record: dict[str, Any],
    facts: Line,
    line: int,
    uuid: str | None,
    side: bool,
    ts: str | None,
) -> None:
    node = b.node_for(facts, uuid, line, OTHER, side)
    role = "system"
    name: str | None = kind
    if kind == "summary":
        text = str_or_none(record.get("summary")) or ""
        part = Part("text", text=text, name=kind)
        item_kind = "summary"
        if text:
            b.titles["summary"] = text
    elif kind == "queue-operation":
        content = record.get("content")
        op = str_or_none(record.get("operation")) or "queue-operation"
        part = Part("text", text=content if isinstance(content, str) else op, name=op)
        item_kind, role = "queued", "user"
    elif kind == "attachment":
        attachment = record.get("attachment")
        atype = str_or_none(attachment.get("type")) if isinstance(attachment, dict) else None
        name = atype or kind
        part = Part("other", text=blocks.compact(attachment), name=name)
        item_kind = "hook" if atype and atype.startswith("hook") else "attachment"
    else:
        if kind == "custom-title":
            title = str_or_none(record.get("customTitle")) or str_or_none(record.get("title"))
            if title:
                b.titles["custom-title"] = title
        part = Part("other", text=blocks.compact(record), name=kind)
        item_kind = "record"
    b.add_item(
        [part],
        line,
        uuid,
        node,
        side,
        role=role,
        kind=item_kind,
        ts=ts,
        meta=facts.isMeta is True,
        keep=True,
    )
