"""The rare line types, read as dicts: system lines (compaction boundaries, turn
durations, stop hooks) and bookkeeping (summaries, queued input, attachments, titles,
and every line type newer than this reader, kept as it is)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model import Part
from ...text import as_written, count, str_or_none, timed_seconds
from . import NAMED_TYPES, blocks
from .lines import DUPLICATE, Line
from .records import Boundary
from .threading import OTHER, SYSTEM, USER

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


def rare_line(
    b: ClaudeCodeBuilder,
    kind: str,
    record: dict[str, Any],
    facts: Line,
    line: int,
    uuid: str | None,
    side: bool,
    ts: str | None,
) -> None:
    """A line of any type but the hot ones (user, assistant, progress): an item of its
    own; a system line may also mark a compaction or the end of a run (``_system``)."""
    before = b.conv_main  # the last main-chain conversation node before it
    if kind == "system":
        node = b.node_for(facts, uuid, line, SYSTEM, side)
        text = blocks.system_text(record)
        part = Part("text", text=text, name=str_or_none(record.get("subtype")))
        role = "system"
        item_kind = "error" if blocks.says_error(record) else "system"  # (the shared word)
    elif (queued := _queued_prompt(record) if kind == "attachment" else None) is not None:
        # a prompt typed while the model was busy, delivered mid-turn: what the model
        # is sent, on the chain like a user line (it starts no turn of its own)
        node = b.node_for(facts, uuid, line, USER, side)
        part, role, item_kind = queued, "user", "queued"
    else:
        node = b.node_for(facts, uuid, line, OTHER, side)
        part, role, item_kind = _record_item(b, kind, record)
        if kind not in NAMED_TYPES and kind != DUPLICATE:  # (kept raw: listed as written)
            b.other_record(line, facts.type, record)
    b.add_item(
        [part],
        line,
        node,
        side,
        role=role,
        kind=item_kind,
        ts=ts,
        meta=facts.isMeta is True,
        keep=True,
    )
    if kind == "system" and not b.off:
        _system(b, record, line, uuid or f"line-{line}", node, before, ts)
    elif kind == "content-replacement":
        _replaced(b, record, line, uuid or f"line-{line}", node, before, ts)


def _system(
    b: ClaudeCodeBuilder,
    record: dict[str, Any],
    line: int,
    ident: str,
    node: int,
    before: int,
    ts: str | None,
) -> None:
    """What a main-chain system line's subtype says beside its item."""
    subtype = str_or_none(record.get("subtype"))
    if subtype in ("compact_boundary", "microcompact_boundary"):
        keep = {k: record.get(k) for k in _BOUNDARY_KEYS if k in record}
        boundary = Boundary(
            id=ident,
            line=line,
            node=node,
            elision=subtype == "microcompact_boundary",
            record=keep,
            before=before,
            ts=ts,
        )
        b.boundaries.append(boundary)
        if not boundary.elision:
            _preserve(b, boundary, keep.get("compactMetadata"))
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
                run.duration = timed_seconds(ms / 1000)


def _replaced(
    b: ClaudeCodeBuilder,
    record: dict[str, Any],
    line: int,
    ident: str,
    node: int,
    before: int,
    ts: str | None,
) -> None:
    """A content-replacement line (2.1.x): tool results too large to send, kept on disk,
    the model sent a ``<persisted-output>`` preview of instead (each ``replacement``,
    by its call's ``toolUseId``), from the request it was made for on. The line
    rewrites none of them: an elision, as a microcompact's, its item kept as written.
    A replacement of a call this file has not (before it) elides nothing: warned of,
    no elision made of it; one of another ``kind`` or shape is not read: the line is
    listed as a record the reader does not know (``other_records``)."""
    given = record.get("replacements")
    replaced: dict[str, str] = {}
    missing: list[str] = []
    unread = not isinstance(given, list)
    for each in given if isinstance(given, list) else []:
        if isinstance(each, dict) and each.get("kind") == "tool-result":
            call, sent = each.get("toolUseId"), each.get("replacement")
            if isinstance(call, str) and isinstance(sent, str):
                if b.calls.find(call) >= 0:  # (every call before it is fed by now)
                    replaced[call] = sent
                else:
                    missing.append(call)
                continue
        unread = True
    if unread:
        b.other_record(line, "content-replacement", record)
    if missing:
        b.warnings.append(_no_call(line, missing, bool(replaced)))
    if replaced:
        results = count(len(replaced), "tool result")
        said = {"content": f"{results} too large to send, sent as a preview"}
        b.boundaries.append(Boundary(ident, line, node, True, said, before, ts, replaced=replaced))


def _no_call(line: int, calls: list[str], some: bool) -> str:
    """The warning for a content-replacement's results of calls this file has not
    (``some``: it names others it has, which it elides)."""
    named = ", ".join(as_written(c) for c in calls[:3])
    named += f" and {len(calls) - 3} more" if len(calls) > 3 else ""
    made = "only its others are elided" if some else "no elision is made of it (shown as written)"
    return f"line {line}: a content-replacement names {named}, no call of this file: {made}"


def _preserve(b: ClaudeCodeBuilder, boundary: Boundary, meta: Any) -> None:
    """A compaction that kept its last messages (``preservedSegment``: head, anchor,
    tail). They stay where they were written, before the boundary, the head still
    naming its old parent: as Claude Code does when it loads the file, the head is hung
    on the anchor (the summary or the boundary), so the chain from the leaf runs tail,
    ..., head, summary, boundary. The head's old parent is where the folded chain starts."""
    segment = meta.get("preservedSegment") if isinstance(meta, dict) else None
    if not isinstance(segment, dict):
        return
    threads = b.threads
    head = threads.node_of(segment.get("headUuid"))
    anchor = segment.get("anchorUuid")
    if head < 0 or head >= boundary.node or not isinstance(anchor, str):
        return  # a head the file does not have before the boundary: nothing to hang
    boundary.cut = threads.parent_of(head)
    boundary.head = head
    tail = threads.node_of(segment.get("tailUuid"))
    boundary.tail = tail if head <= tail < boundary.node else head
    threads.relink(head, anchor)


def _queued_prompt(record: dict[str, Any]) -> Part | None:
    """A ``queued_command`` attachment's prompt (text, or blocks joined), or None."""
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return None
    prompt = attachment.get("prompt")
    if isinstance(prompt, str):
        return Part("text", text=prompt, name="queued_command")
    texts = [p.text for p in blocks.parts_of(prompt) if p.kind in ("text", "image")]
    return Part("text", text="\n".join(texts), name="queued_command")


def _record_item(b: ClaudeCodeBuilder, kind: str, record: dict[str, Any]) -> tuple[Part, str, str]:
    """A bookkeeping line's part, role and item kind (a title it gives is taken)."""
    role = "system"
    if kind == "summary":
        text = str_or_none(record.get("summary")) or ""
        part = Part("text", text=text, name=kind)
        item_kind = "title"  # a session's title (the model's word "summary" is a compaction's)
        if text:
            b.summaries.append((str_or_none(record.get("leafUuid")), text))
    elif kind == "queue-operation":
        part, role, item_kind = _queue_operation(record)
    elif kind == "attachment":
        attachment = record.get("attachment")
        atype = str_or_none(attachment.get("type")) if isinstance(attachment, dict) else None
        if atype is not None and isinstance(attachment, dict):  # (its name says its type)
            attachment = {k: v for k, v in attachment.items() if k != "type"}
        part = Part("other", text=blocks.compact(attachment), name=atype or kind)
        item_kind = "hook" if atype and atype.startswith("hook") else "attachment"
    elif kind in _TITLES and (title := _title_of(kind, record)) is not None:
        # a title the user gave (custom-title) or Claude Code made up (ai-title, later
        # 2.1.x; the latest of each wins)
        b.titles[kind] = title
        part = Part("text", text=title, name=kind)
        item_kind = "title"
    elif kind in _SAID and (said := _SAID[kind](record)) is not None:
        # (its words; the line as written is the raw view's ``t``)
        part = Part("text", text=said, name=kind)
        item_kind = kind
    else:  # a type newer than this reader: the line as written (``kept_line``)
        part = b.kept_line(kind, record)
        item_kind = "record"
    return part, role, item_kind


def _agent_name(record: dict[str, Any]) -> str | None:
    """An ``agent-name`` line in words: the name the session's agent was given."""
    name = str_or_none(record.get("agentName"))
    return None if name is None else f"agent name: {name}"


def _pr_link(record: dict[str, Any]) -> str | None:
    """A ``pr-link`` line in words: the pull request the session opened or is on
    (``PR #42 in o/r: https://…``)."""
    number, url = record.get("prNumber"), str_or_none(record.get("prUrl"))
    repo = str_or_none(record.get("prRepository"))
    has_number = isinstance(number, int) and not isinstance(number, bool)
    if not has_number and url is None:
        return None
    said = f"PR #{number}" if has_number else "PR"
    said += f" in {repo}" if repo else ""
    return said + (f": {url}" if url else "")


# Bookkeeping lines said in words (any other field is the line's, ``t``); None: the line
# has not what its type says, and is kept as it is.
_SAID = {"agent-name": _agent_name, "pr-link": _pr_link}


# What a queue operation other than ``enqueue`` did to the queue (its content, where it
# names one, follows): input taken out of it, not input of its own.
_DEQUEUED = {
    "remove": "removed from the queue",
    "dequeue": "dequeued",
    "popAll": "queue taken back to the prompt",
}


def _queue_operation(record: dict[str, Any]) -> tuple[Part, str, str]:
    """A ``queue-operation`` line's part, role and kind: an ``enqueue`` is input the
    user typed while the model was busy (``queued``); the others (``remove``,
    ``dequeue``, ``popAll``) take input out of the queue, said as such (``queue``)."""
    content = str_or_none(record.get("content"))
    op = str_or_none(record.get("operation"))
    if op == "enqueue":
        return Part("text", text=_enqueued(record), name=op), "user", "queued"
    said = _DEQUEUED.get(op or "") or f"queue operation {op or '(none named)'}"
    text = f"{said}: {content}" if content else said
    return Part("text", text=text, name=op or "queue-operation"), "system", "queue"


def _enqueued(record: dict[str, Any]) -> str:
    """What an ``enqueue`` queued: its text; else what its content is (an empty row
    said nothing of a content missing or not text)."""
    content = record.get("content")
    if isinstance(content, str) and content:
        return content
    if content is None or content == "":
        return "enqueue (no text)"
    return f"enqueue (not text: {blocks.compact(content, 80)})"


_TITLES = {"custom-title": ("customTitle", "title"), "ai-title": ("aiTitle", "title")}


def _title_of(kind: str, record: dict[str, Any]) -> str | None:
    """A title line's title (None: none, or blank: it names no title, so it beats none)."""
    for key in _TITLES[kind]:
        title = str_or_none(record.get(key))
        if title and not title.isspace():
            return title
    return None
