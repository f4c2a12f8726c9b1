"""The model from what the builder kept: chain, marks, operations, runs, usage.

Called after every live batch, so it only walks what was kept (nodes, items, calls),
never the file; a call with nothing new fed returns the previous model's parts.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ...column_items import ItemIds, Items
from ...item_column import FOLDED_MARK, ItemColumn
from ...model import Compaction, Item, Run, Transcript
from ...text import str_or_none
from ...times import seconds_between
from . import NAME, chain
from .blocks import CLEARED, readable
from .builder import META, SIDECHAIN
from .call_ops import ClaudeOps, OpenCalls
from .chain import nodes_of, recover, span_of
from .file_links import link_files
from .records import PackedSummary
from .responses import ENDED_TURN, GAVE_UP
from .resumed import own_session, resumed
from .sidechains import link
from .threading import ASSISTANT, BRANCH, FOLDED, USER
from .usage import SYNTHETIC, USAGE_WITH_COPY

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder
    from .records import Boundary


def assemble(b: ClaudeCodeBuilder, writer_alive: bool | None) -> Transcript:
    threads = b.threads
    main_side = 0 if b.has_main else 1  # a subagent's own file: every line a sidechain
    prev = b.chain
    compacted = None  # the last assembly, where since then only compactions came
    if prev is not None:
        same = (
            prev.main_side == main_side
            and prev.resolved == threads.resolved
            # (a node fed before now has its parent: its status may be another)
            and not any(n < len(prev.active) and threads.has(u) for n, u in threads.pending.items())
        )
        if not same or prev.boundaries != len(b.boundaries):
            since = b.boundaries[prev.boundaries :]
            if same and since and not any(bd.elision for bd in since):
                compacted = prev
            prev = None
    leaf = b.leaf_main if b.has_main else b.leaf_side
    grown = chain.grown(b, prev, leaf) if prev is not None else None
    if grown is not None:
        active = grown
    else:
        active = recover(b, threads.walk(leaf)) if leaf >= 0 else bytearray(len(threads))
    b.answered.clear()

    compactions, folded = _compactions(b)
    last_boundary = max((c.line for c in compactions if c.kind == "compaction"), default=0)
    elided = {i for c in compactions if c.kind == "elision" for i in c.folded}
    start = chain.unchanged(b, prev, active) if prev is not None else 0
    if prev is not None and start >= 0:  # the nodes before ``start`` are as they were
        status = threads.statuses(active, folded, last_boundary, main_side, prev.status, start)
        # The items from ``start``'s line on (an item's first line is its node's line).
        first = prev.items
        if start < len(active):
            first = min(first, bisect.bisect_left(b.raw.line, threads.line[start]))
        branches = prev.branches[: bisect.bisect_left(prev.branches, first)]
        _mark(b, status, last_boundary, elided, branches, first)
        messages_now = chain.taken(b, active, start, prev.messages, prev.seen, prev.items)
    elif compacted is not None and elided == compacted.elided:
        # New compactions: the nodes and items before what they changed keep their
        # statuses and marks (a followed 1 GB session compacts every 2 MB or so).
        node, item = _since(b, compacted, active)
        status = threads.statuses(active, folded, last_boundary, main_side, compacted.status, node)
        branches = compacted.branches[: bisect.bisect_left(compacted.branches, item)]
        _mark(b, status, last_boundary, elided, branches, item)
        messages_now = None
    else:
        status = threads.statuses(active, folded, last_boundary, main_side)
        branches = []
        _mark(b, status, last_boundary, elided, branches)
        messages_now = None
    if messages_now is None:
        messages_now = chain.taken(b, active, 0, array("i"), bytearray(), 0)
        assert messages_now is not None
    b.chain = chain.Chain(
        main_side,
        len(b.boundaries),
        leaf,
        bytes(active),
        status,
        len(b.raw),
        branches,
        *messages_now,
        threads.resolved,  # (as the walks and statuses left it)
        frozenset(elided),
    )
    messages: Sequence[int | Item] = b.chain.messages  # (never changed: the next is new)
    raw = b.raw
    for bd in b.boundaries:
        if bd.kept_raw and active[bd.head]:
            messages = _kept_after_anchor(b, bd, messages)

    link(b)  # (before the operations: a linked call's says where its subagent is)
    link_files(b)  # (likewise; after: a call's lines in this file are its subagent's)
    ops = _operations(b, writer_alive)
    runs = _runs(b, ops, writer_alive)
    usage = b.usage.file_total()
    meta: dict[str, Any] = dict(b.meta)
    title = (
        b.titles.get("custom-title")
        or b.titles.get("ai-title")
        or _summary_title(b)
        or b.titles.get("prompt")
    )
    if title:
        meta["title"] = title
    extra: dict[str, Any] = {}
    if not title and b.summaries and not len(threads):
        # A file of summaries alone, each of a line of another file: theirs, not its
        # own title (1.0.x wrote them at the start of the next session's file)
        extra["untitled"] = "summaries of other sessions"
    extra |= {
        "turns": len(runs),
        "branches": len(branches),
        "line-types": dict(b.type_counts),
        "progress": dict(b.progress_counts),
        "responses": len(b.responses.by_order),
    }
    if b.unpaired:
        extra["unpaired-results"] = sorted(b.unpaired)
    copies = resumed(b)
    if copies is not None and copies.own != meta.get("session-id"):
        meta["resumed-as"] = copies.own  # (``session-id`` is its first line's: the old one)
    elif copies is None and b.session_marks and "agent-id" not in meta:
        # (a continuation written under the earlier session's id: its lines its own)
        own = own_session(b.path, b.session_marks)
        if own is not None and all(session != own for _at, session in b.session_marks):
            meta["continued-as"] = own
    return Transcript(
        format=NAME,
        responses_counted=True,
        path=b.path,
        meta=meta,
        messages=Items(raw, entries=messages),
        raw=Items(raw),
        tool_operations=ops,
        compactions=compactions,
        runs=runs,
        usage=usage,
        warnings=b.warnings_said(writer_alive),
        lines=b.lines,
        extra=extra,
        other_records=list(b.other_records),
        writer_alive=writer_alive,
        resumed=copies,
        # a subagent's own file: its lines name their agent and the session it works for
        parent=str_or_none(meta.get("session-id")) if "agent-id" in meta else None,
    )


def _since(b: ClaudeCodeBuilder, last: chain.Chain, active: bytearray) -> tuple[int, int]:
    """The first node and raw item whose status or marks compactions that came after
    ``last`` may change: where the chain differs, where a new one's folded stretch
    starts, or (a line before the last boundary is folded) the last boundary then."""
    threads = b.threads
    node = min(len(last.status), chain.first_change(last.active, active))
    before = max((bd.line for bd in b.boundaries[: last.boundaries] if not bd.elision), default=0)
    for bd in b.boundaries[last.boundaries :]:
        if bd.folded:
            node = min(node, bd.folded_at)
    node = min(node, bisect.bisect_left(threads.line, before))
    lines = b.raw.line
    item = min(last.items, bisect.bisect_left(lines, before))
    if node < len(threads):
        item = min(item, bisect.bisect_left(lines, threads.line[node]))
    return node, item


def _summary_title(b: ClaudeCodeBuilder) -> str | None:
    """The last summary line naming a line of this file (or none): one naming a line of
    another file is that session's title (1.0.x wrote the previous session's summary at
    the start of the next one's file), this one's only when it has nothing else."""
    for leaf, text in reversed(b.summaries):
        if leaf is None or b.threads.node_of(leaf) >= 0:
            return text
    return None


def _compactions(b: ClaudeCodeBuilder) -> tuple[list[Compaction], bytearray]:
    """Each boundary as a compaction (with the chain it folded) or an elision."""
    out: list[Compaction] = []
    threads = b.threads
    folded = b.folded_nodes
    if len(folded) < len(threads):
        folded.extend(bytes(len(threads) - len(folded)))
    for at, bd in enumerate(b.boundaries):
        if bd.made is not None and bd.made_with == bd.summary_item:
            out.append(bd.made)  # (nothing it is made of has changed since)
            continue
        record = bd.record
        meta = record.get("microcompactMetadata" if bd.elision else "compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        trigger = meta.get("trigger", record.get("trigger"))
        before = meta.get("preTokens", record.get("preTokens"))
        after = meta.get("postTokens")
        content = record.get("content")
        if bd.elision:
            # Each call id whose result it sends otherwise: a content-replacement's
            # preview, or a microcompact's stub (None).
            sent_for: Mapping[str, str | None]
            if bd.replaced is not None:
                sent_for = bd.replaced  # (only read)
            else:
                tool_ids = meta.get("compactedToolIds", record.get("compactedToolIds"))
                ids = tool_ids if isinstance(tool_ids, list) else []
                sent_for = {call_id: None for call_id in ids if isinstance(call_id, str)}
            # Made once, when its line is new: ``folded`` is then the folds of the
            # compactions before it alone, and a result one of them folded is not sent,
            # so this stubs nothing of it.
            cleared: dict[int, dict[str, str | None]] = {}  # each item's results it elided
            # (an id's latest call before it: a whole read has the later ones too)
            before_it = bisect.bisect_left(b.calls.line, bd.line)
            for call_id, sent in sent_for.items():
                found = b.calls.find(call_id, before_it)
                node = b.calls.result_node(found, b.raw_node) if found >= 0 else -1
                if node >= 0 and not folded[node]:
                    cleared.setdefault(b.node_raw[node], {})[call_id] = sent
            for item, elided_now in cleared.items():
                known = b.cleared_results.setdefault(item, {})
                # (a result cleared stays so: a preview said after it does not bring it back)
                fresh = {
                    k: v
                    for k, v in elided_now.items()
                    if k not in known or (known[k] is not None and known[k] != v)
                }
                if fresh:
                    known.update(fresh)
                    _stub_results(b.raw, item, known)
            saved = meta.get("tokensSaved", record.get("tokensSaved"))
            if isinstance(before, int) and isinstance(saved, int) and after is None:
                after = before - saved
            kind: Literal["compaction", "elision"] = "elision"
            summary = (content if isinstance(content, str) else "").encode("utf-8", "surrogatepass")
            named: Sequence[str] = [b.raw.id_of(item) for item in cleared]
            kept: list[str] = []
        else:
            if bd.folded_ids is None:
                # The chain before it: from its logical parent, or (a parent the file does
                # not have) from the last conversation line written before it.
                # A compaction that kept its last messages folded what came before them.
                start = threads.node_of(record.get("logicalParentUuid"))
                if bd.head >= 0:
                    start = bd.cut
                elif start < 0 or start >= bd.node >= 0:
                    start = bd.before
                on = recover(b, threads.walk(start)) if start >= 0 else bytearray()
                # What was written after it (a folded call's late result) it did not fold:
                # a live read works this out once, before such lines come.
                del on[bisect.bisect_left(threads.line, bd.line) :]
                lo, hi = span_of(on)
                bd.folded_at, bd.folded = lo, bytes(on[lo:hi])  # (its stretch alone)
                bd.folded_ids = ItemIds(b.raw, _items_of(b, nodes_of(on)))
                if bd.head >= 0:
                    bd.kept_raw = preserved_items(b, bd.head, bd.tail)
            assert bd.folded is not None and bd.folded_ids is not None
            if at >= b.folded_upto:
                _fold_in(folded, bd.folded, bd.folded_at)
            kind, summary, named = "compaction", b"", bd.folded_ids
            kept = ([bd.summary_item] if bd.summary_item else []) + [
                b.raw.id_of(i) for i in bd.kept_raw
            ]
        bd.made = made = PackedSummary(
            id=bd.id,
            kind=kind,
            line=bd.line,
            folded=named,
            kept=kept,
            summary_id=bd.summary_item if kind == "compaction" else None,
            trigger=trigger if isinstance(trigger, str) else None,
            tokens_before=before if isinstance(before, int) else None,
            tokens_after=after if isinstance(after, int) else None,
            ts=bd.ts,
        )
        if kind == "compaction" and bd.summary_at >= 0:
            made.read_from(b.raw, bd.summary_at)  # (its summary line's text)
        else:
            made.utf8 = summary
        bd.made_with = bd.summary_item
        out.append(made)
    b.folded_upto = len(b.boundaries)
    return out, bytearray(folded)  # (the caller's own: the builder's grows on)


def _stub_results(column: ItemColumn, index: int, cleared: dict[str, str | None]) -> None:
    """What item ``index`` is sent as once the results ``cleared`` are elided (by every
    elision so far): each of those its preview, or the microcompact's stub (None), any
    other as it was (the column's one stub says it where it answers those alone; a
    line answering several calls had every one of them stubbed)."""
    answers = [p for p in column.parts_of(index) if p.kind == "tool-result"]
    sent = [
        (CLEARED if (said := cleared[p.call_id]) is None else said)
        if p.call_id in cleared
        else p.text
        for p in answers
    ]
    if sent != [CLEARED]:
        column.stubs[index] = "\n".join(sent)


def _fold_in(folded: bytearray, on: bytes, at: int) -> None:
    """Mark ``on``'s nodes (a byte each from node ``at``, 1: on) folded too: the two as
    integers, OR-ed (a byte of each is 0 or 1, so no bit spills into the next)."""
    n = len(on)
    if n:
        end = at + n
        both = int.from_bytes(folded[at:end], "little") | int.from_bytes(on, "little")
        folded[at:end] = both.to_bytes(n, "little")


def _items_of(b: ClaudeCodeBuilder, nodes: Sequence[int]) -> array[int]:
    """The conversation items (raw indexes) of these nodes (in file order), once each (an
    array: a compaction of a long session folds 100,000s). A response split over lines
    is one item, which the lines between its own (its calls' results) may interleave."""
    found = array("i")
    seen: set[int] = set()
    kinds, node_raw = b.threads.kind, b.node_raw
    for node in nodes:
        if kinds[node] in (USER, ASSISTANT):
            item = node_raw[node]
            if item not in seen:
                seen.add(item)
                found.append(item)
    return found


def preserved_items(b: ClaudeCodeBuilder, head: int, tail: int) -> list[int]:
    """A compaction's preserved segment: the items from its head to its tail."""
    walked = b.threads.walk(tail)
    # (a tail that does not hang from the head: the head alone)
    segment = walked[: walked.index(head) + 1] if head in walked else array("i", [head])
    return list(_items_of(b, nodes_of(recover(b, segment))))


def _kept_after_anchor(
    b: ClaudeCodeBuilder, bd: Boundary, messages: Sequence[int | Item]
) -> list[int | Item]:
    """The replayed view with a compaction's preserved segment (written before the
    boundary) where the model is sent it: after the summary (its anchor)."""
    kept = set(bd.kept_raw)
    rest = [m for m in messages if m not in kept]
    anchor = b.threads.parent_of(bd.head)
    at = b.node_raw[anchor] if anchor >= 0 else -1
    if at in rest:
        pos = rest.index(at) + 1
    else:  # hung on the boundary itself: before what was written after it
        lines = b.raw.line
        pos = next(
            (n for n, m in enumerate(rest) if isinstance(m, int) and lines[m] > bd.line),
            len(rest),
        )
    return [*rest[:pos], *bd.kept_raw, *rest[pos:]]


def _mark(
    b: ClaudeCodeBuilder,
    status: bytearray,
    last_boundary: int,
    elided: set[str],
    branches: list[int],
    start: int = 0,
) -> None:
    """Set each raw item's marks (from ``start``); append to ``branches`` those where a
    branch leaves the chain."""
    threads = b.threads
    column = b.raw
    kept = column.marks
    flags = column.flags
    lines = column.line
    raw_node, raw_flags = b.raw_node, b.raw_flags
    # A line on no chain (no uuid: bookkeeping) written before the last boundary is
    # marked folded with what it was written among, but a queued prompt: whether it is
    # sent is the delivering line's word (a user line or a ``queued_command``), and no
    # compaction folds a ``queue-operation`` line (the replayed view had none before it;
    # nor one that took a prompt out of the queue, kind ``queue``).
    queued = column.kind_codes("queued") + column.kind_codes("queue")
    kinds = column.kind
    finishes = b.finishes
    # (a response whose place a copy took: the earlier, its usage the copy's)
    superseded = b.counted_with_copy or _NO_ITEMS
    for index in range(start, len(column)):
        node = raw_node[index]
        flag = raw_flags[index]
        if node >= 0:
            st = status[node]
        else:
            st = FOLDED if lines[index] < last_boundary and kinds[index] not in queued else 0
        if st == BRANCH:
            parent = threads.parent_of(node)
            if parent < 0 or status[parent] != BRANCH:
                branches.append(index)
        key = (
            bool(flag & SIDECHAIN),
            st,
            bool(flag & META),
            bool(elided) and column.id_of(index) in elided,
            finishes.get(index) if finishes else None,
            index in superseded,
        )
        marks = _MARKS.get(key)
        if marks is None:
            marks = _MARKS[key] = _marks_of(*key)
        # Folded and nothing else (most items once a long session compacted): a flag,
        # not an entry in the marks dict.
        folded_only = key == _FOLDED_ONLY
        if folded_only != bool(flags[index] & FOLDED_MARK):
            if folded_only:
                column.flag(index, FOLDED_MARK)
            else:
                column.unflag(index, FOLDED_MARK)
        if folded_only:
            marks = _NO_MARKS
        if kept.get(index, _NO_MARKS) is not marks:
            column.set_marks(index, marks)


_NO_MARKS: list[str] = []
_NO_ITEMS: frozenset[int] = frozenset()
# One list per combination of marks, shared by every item that has it (an item built
# from the column gets a copy): a file's items have a handful of combinations.
_MARKS: dict[tuple[bool, int, bool, bool, str | None, bool], list[str]] = {
    (False, 0, False, False, None, False): _NO_MARKS
}
_FOLDED_ONLY = (False, FOLDED, False, False, None, False)


def _marks_of(
    sidechain: bool, status: int, meta: bool, elided: bool, finish: str | None, superseded: bool
) -> list[str]:
    marks = ["sidechain"] if sidechain else []
    if status == BRANCH:
        marks.append("branch")
    elif status == FOLDED:
        marks.append("folded")
    if meta:
        marks.append("meta")
    if elided:
        marks.append("elided")
    if finish is not None:
        marks.append(finish)
    if superseded:  # (its usage shown as written, counted once: with the copy's)
        marks.append(USAGE_WITH_COPY)
    return marks


def _operations(b: ClaudeCodeBuilder, writer_alive: bool | None) -> ClaudeOps:
    """The operations of every call (an in-file sidechain's, 1.0.x subagents', too), each
    made when asked for: one answered from the column (settled: the same whatever comes
    next), one not answered as it was at this snapshot (``OpenCalls``: its state,
    progress and links the snapshot's)."""
    calls = b.calls
    # The subagent files of the calls that name an agent: their result's, else their
    # progress's (a copy: the snapshot's).
    b.named.update(b)
    opened = OpenCalls(calls, b.runs, writer_alive, b.progress_out, b.progress_at)
    return ClaudeOps(calls, len(calls), opened, b.runs, dict(b.named.paths))


def _runs(b: ClaudeCodeBuilder, ops: ClaudeOps, writer_alive: bool | None) -> list[Run]:
    running = ops.open_in_state("running")  # (the last turn's alone)
    moved_on: set[str] | None = None  # turns with a call open (before the last: interrupted)
    last = len(b.runs) - 1
    made, touched = b.made_runs, b.usage.runs_touched
    # The turns before the last, and before any whose usage changed, as they were made.
    first = min((i for i in touched if 0 <= i < len(made)), default=len(made))  # (-1: none)
    out: list[Run] = made[:first]
    for index in range(first, len(b.runs)):
        mark = b.runs[index]
        if index < len(made) and index not in touched:
            out.append(made[index])  # (a turn before the last: its mark is as it was)
            continue
        state: Any
        end_line, ended = mark.end_line, mark.ended
        if mark.responses and not mark.cut and _gave_up(b, mark.responses[-1]):
            # (its last response is Claude Code's own API-error message: the turn ended,
            # on an error, as a run whose loop failed does in every format)
            state = "failed"
            end_line = end_line or (b.runs[index + 1].line - 1 if index < last else mark.last_line)
            ended = ended or mark.last_ts
        elif mark.finished:
            state = "finished"
        elif mark.cut:  # "[Request interrupted by user…]": stopped by the user
            state = "aborted"
            end_line = end_line or (b.runs[index + 1].line - 1 if index < last else mark.last_line)
            ended = ended or mark.last_ts
        elif index < last:  # a later prompt came: it ended, or died with a call unanswered
            if moved_on is None:
                moved_on = {b.runs[turn].id for turn in ops.open_turns() if turn >= 0}
            state = "interrupted" if mark.id in moved_on else "finished"
            end_line = end_line or b.runs[index + 1].line - 1
            ended = ended or mark.last_ts
        elif mark.stop_line > mark.response_line or (mark.command and not mark.responses):
            state = "finished"  # Stop hooks ran after its last response / a local command
            end_line, ended = mark.last_line, mark.last_ts
        elif mark.responses and not running and _ended_turn(b, mark.responses[-1], writer_alive):
            state = "finished"
            end_line, ended = mark.last_line, mark.last_ts
        elif writer_alive is False:  # cut off: it ran to its last line
            state = "interrupted"
            end_line, ended = mark.last_line, mark.last_ts
        else:
            state = "running"
        duration = mark.duration
        if duration is None and state != "running":  # no turn_duration: to its last line
            duration = seconds_between(mark.started, ended)
        out.append(
            Run(
                id=mark.id,
                state=state,
                line=mark.line,
                end_line=end_line,
                started=mark.started,
                ended=ended,
                duration=duration,
                prompt=readable(mark.prompt) or mark.prompt,  # (not its XML wrapper)
                usage=b.usage.run_total(index, mark.responses),
                items=mark.items,
            )
        )
        if index < last:
            if index < len(made):
                made[index] = out[-1]
            else:
                made.append(out[-1])
    touched.clear()
    return out


def _gave_up(b: ClaudeCodeBuilder, response: int) -> bool:
    """Is ``response`` Claude Code's own message that an API call failed for good
    (``isApiErrorMessage``)?"""
    return bool(b.responses.flags[response] & GAVE_UP)


def _ended_turn(b: ClaudeCodeBuilder, last: int, writer_alive: bool | None) -> bool:
    """The turn's last response ended it: Claude Code made it up (model ``<synthetic>``:
    no model's answer follows); it says it ended (``ENDED_TURN``) with no call of it
    left open; or (1.0.x and some 2.x versions write ``stop_reason: null`` on every
    line) it says nothing, calls no tool and the writer is gone (a live writer may still
    add the response's next block)."""
    responses = b.responses
    if _gave_up(b, last) or responses.model(last) == SYNTHETIC:
        return True
    stop = b.raw.string(responses.stop[last])
    if stop in ENDED_TURN:
        results = b.calls.result
        return not any(results[at] < 0 for at in responses.calls.of(last))
    return stop is None and responses.calls.first[last] < 0 and writer_alive is False
