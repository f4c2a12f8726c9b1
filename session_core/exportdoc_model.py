"""The export document of any model format: conversation, tool operations, runs, usage.

Every string stays as the file says it (untrusted): the renderers make it inert.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from .diff_model import tokens_said
from .exportdoc import (
    NOT_REPORTED,
    UNSHOWN_BY_MARK,
    UNSHOWN_ELSE,
    CallItem,
    CallKey,
    DetailBlock,
    Document,
    Heading,
    Mark,
    MessageItem,
    Note,
    PrintedOnce,
    Section,
    Table,
    TextBlock,
    Tone,
    View,
    _preview,
    answers_flag,
    arguments_cell,
    by_ask,
    detail_block,
    document_title,
    noting_calls,
)
from .exportdoc import (
    Item as DocItem,
)
from .json_out import readable_json
from .model import (
    Compaction,
    Item,
    Run,
    Subagent,
    ToolOp,
    Transcript,
    Usage,
    overlay_counts,
    overlay_kind,
)
from .op_running import RanAtLeast, ran_by_call, took_said
from .open_work import IN_FLIGHT, aborted_runs, call_said, open_work, open_work_said
from .overlay_said import OVERLAYS_FACT
from .parts import reasoning_said
from .patch_args import as_patch
from .text import Name, count, duration_text, named
from .titles import model_first_prompt
from .tool_ops import ask_of, state_tone
from .vocabulary import Readable, as_written, readable_of, shown_parts

_MARKS: dict[str, tuple[Tone, str]] = {
    "folded": ("warn", "folded by a compaction: the model is no longer sent this"),
    "elided": ("warn", "elided: the model is sent a stub; the original stays in the file"),
    "branch": ("info", "not on the active chain (a rewound or edited branch)"),
    "sidechain": ("info", "a sidechain (a subagent's line)"),
    "meta": ("info", "a meta line (not shown to the model as a prompt)"),
}


def model_document(transcript: Transcript, view: View = "replayed") -> Document:
    calls = _Calls(transcript.raw, transcript.tool_operations)
    # (a Claude Code command as typed; the raw view's lines as written)
    readable = readable_of(transcript.format) if view == "replayed" else as_written
    items = transcript.messages if view == "replayed" else transcript.raw
    # (the raw view's folded items name their compaction's line, as v1's and agentgo's)
    folded_at = {} if view == "replayed" else _folding_lines(transcript.compactions)
    conversation = Section(
        "Conversation (what the model is sent next)"
        if view == "replayed"
        else "Conversation (every line as written)",
        "conversation",
        _anchored(
            _message(item, calls, transcript.raw, view, readable, folded_at) for item in items
        ),
    )
    # (the calls the conversation shows, noted as it is written: the operations after it
    # give the others whole, a replayed view's calls a compaction folded)
    shown: set[CallKey] | None = set() if view == "replayed" else None
    if shown is not None:
        conversation.items = noting_calls(conversation.items, shown)
    ran = ran_by_call(transcript)  # (a call not ended: at least how long, as the viewer's)
    sections = [conversation, _operations(transcript.tool_operations, shown, calls.marked, ran)]
    if transcript.compactions:
        sections.append(_compactions(transcript))
    if transcript.runs:
        sections.append(_runs(transcript))
    if any(run.context is not None for run in transcript.runs):
        sections.append(Section("Run contexts", "run-contexts", _run_contexts(transcript.runs)))
    if transcript.subagents:
        sections.append(_subagents(transcript, calls.by_id))
    sections.append(_usage(transcript))
    if transcript.warnings:
        sections.append(
            Section("Warnings", "warnings", [Note(w, "warn") for w in transcript.warnings])
        )
    facts = [("format", transcript.format), ("file", Name(transcript.path))]
    for key, value in transcript.meta.items():
        if isinstance(value, dict):  # (a Codex rollout's git: its commit, branch, remote)
            facts.extend(
                (f"{key}.{sub}", str(inner))
                for sub, inner in value.items()
                if inner is not None and not isinstance(inner, dict | list)
            )
        elif value is not None and not isinstance(value, list):
            facts.append((str(key), str(value)))
    last = transcript.last_time()
    if last is not None:  # (when the file was last written to, as its lines say)
        facts.append(("last line's time", last))
    in_flight = open_work_said(open_work(transcript))
    if in_flight is not None:  # (what its writer left in flight: ``check``'s words)
        facts.append((IN_FLIGHT, in_flight))
    if transcript.compactions:  # (as the header counts them: each elision once, what it stubbed)
        overlays = overlay_counts(transcript.compactions)
        facts.append((OVERLAYS_FACT, ", ".join(overlays.said("compaction", "elision"))))
    facts.append(("usage", transcript.usage.describe(transcript.made_no_response())))
    if transcript.resumed is not None:  # (its usage holds the copied history: the header's words)
        resumed = transcript.resumed  # (a fork's row ``forked``: the header's word)
        facts.append((resumed.how, resumed.said(as_own=True)))
    meta = transcript.meta
    fallback = meta.get("id") or transcript.path
    title = document_title(meta, transcript.format, model_first_prompt(transcript), fallback)
    return Document(title, facts, sections)


class _Calls:
    """Each call in the conversation (the item asking for it and its id: a call id another
    item asks for again is another call) with its answers and its operation, by the rule
    of every export (``ask_of``): an answer is of the last call of its id asked before it.
    Grouped once, as the raw items are read: no call scans its id's answers."""

    def __init__(self, raw: Sequence[Item], ops: Sequence[ToolOp]) -> None:
        self.by_call = {(op.message_id or "", op.call_id): op for op in ops}
        self.by_id = {op.call_id: op for op in ops}  # (the last of each id)
        self.asks: dict[str, list[int]] = {}  # call id -> the lines of the items asking
        self.tools: dict[tuple[str, int], str] = {}  # (call id, line asking) -> its tool
        # call id -> the raw items answering it, by the line of the item asking (their
        # numbers: an item is read again when its call is shown; kept, the answers were
        # most of a big file's text)
        answers: dict[str, list[tuple[int, int]]] = {}
        # the marks of each item asking for calls that has any (why a call is not sent next)
        self.marked: dict[str, list[str]] = {}
        for at, item in enumerate(raw):
            for part in item.parts:
                cid = part.call_id
                if cid is None:
                    continue
                if part.kind == "tool-result":
                    said = answers.setdefault(cid, [])
                    if not said or said[-1][1] != at:
                        said.append((item.line, at))
                elif part.kind == "tool-call":
                    asks = self.asks.setdefault(cid, [])
                    if not asks or asks[-1] != item.line:
                        asks.append(item.line)
                    self.tools.setdefault((cid, item.line), part.name or "")
                    if item.marks:
                        self.marked[item.id] = item.marks
        for asks in self.asks.values():
            if len(asks) > 1:
                asks.sort()
        self.answered = {
            cid: by_ask(self.asks.get(cid) or [0], said) for cid, said in answers.items()
        }

    def _ask(self, call_id: str, line: int) -> int:
        """The call of ``call_id`` an item at ``line`` asks for: its ask (``ask_of``)."""
        return ask_of(self.asks.get(call_id) or [0], line)

    def answers(self, call_id: str, line: int) -> list[int]:
        """The raw items answering the call of ``call_id`` asked at ``line``, in order."""
        return self.answered.get(call_id, {}).get(self._ask(call_id, line), [])

    def tool(self, call_id: str, line: int) -> str:
        """The tool of the call an answer at ``line`` is of (``ask_of``); "?" where no
        item asks for ``call_id``."""
        asks = self.asks.get(call_id)
        return "?" if not asks else self.tools.get((call_id, ask_of(asks, line))) or "?"

    def op(self, asked_in: str, call_id: str, line: int) -> ToolOp | Literal[False] | None:
        """The operation of the call of ``call_id`` that item ``asked_in`` at ``line``
        asks for (by the item, else the id's); False: the operation found is another
        call's of that id (its result answers another call)."""
        op = self.by_call.get((asked_in, call_id))
        asks = self.asks.get(call_id, [])
        if len(asks) < 2:  # (asked once: the id's operation is its)
            return op or self.by_id.get(call_id)
        ask = ask_of(asks, line)
        if op is None:  # (the id's, if its result answers this call)
            op = self.by_id.get(call_id)
            if op is None:
                return None
            mine = op.result_line is not None and ask_of(asks, op.result_line) == ask
        else:  # (its own, unless its result answers another call of the id)
            mine = op.result_line is None or ask_of(asks, op.result_line) == ask
        return op if mine else False


def _anchored(items: Iterator[MessageItem]) -> Iterator[MessageItem]:
    """``items``, each anchor once: the messages a line makes (a Codex compaction's
    replacement history) are ``line-N``, ``line-N-2``… (six shared one id)."""
    seen: dict[str, int] = {}
    for item in items:
        made = seen.get(item.anchor, 0)
        seen[item.anchor] = made + 1
        if made:
            item.anchor = f"{item.anchor}-{made + 1}"
        yield item


def _folding_lines(compactions: Sequence[Compaction]) -> dict[str, int]:
    """Each item id a compaction from a line folded -> that line (the last one's, as the
    raw view's); a rollback's are marked rolled back, not folded."""
    out: dict[str, int] = {}
    for compaction in compactions:
        if compaction.line and overlay_kind(compaction)[0] == "compaction":
            out.update(dict.fromkeys(compaction.folded, compaction.line))
    return out


def _message(
    item: Item,
    calls: _Calls,
    raw: Sequence[Item],
    view: View,
    readable: Readable,
    folded_at: Mapping[str, int],
) -> MessageItem:
    where = f"line {item.line}" if item.line else ""
    if item.line and item.lines > 1:  # (a response split over lines: the viewer's words)
        where = f"{item.lines:,} lines from line {item.line}"
    facts = [where, item.ts or "", f"id {item.id}"]
    parts = shown_parts(item, readable)  # (its text as a person reads it: the JSON's is as written)
    text = "\n".join(p.text for p in parts if p.kind in _CONTENT)
    beside = ""  # a line's own text beside the results it answers with (replay's ``text``)
    if any(p.kind == "tool-result" for p in parts) and any(p.kind == "text" for p in parts):
        text = "\n".join(p.text for p in parts if p.kind in ("tool-result", "image"))
        beside = "\n".join(p.text for p in parts if p.kind == "text")
    stub = item.stub
    # Without results or a stub, the text keeps its place among the other blocks (a
    # Claude Code response's thinking, then its text; a web search's blocks, the text on
    # them): its first run is the content, each later run a block of its own.
    ordered = not beside and (stub is None or view != "replayed")
    if stub is not None and view == "replayed":  # what the model is sent: the stub alone
        text, stub, beside = stub, None, ""
    out = MessageItem(f"line-{item.line}", item.role, [f for f in facts if f], text)
    if item.kind != "message":
        out.flags.append(item.kind)
    if item.model:
        out.flags.append(item.model)
    for mark in item.marks:
        tone, words = _MARKS.get(mark, ("info", mark))
        if mark == "folded" and item.id in folded_at:
            by = f"the compaction at line {folded_at[item.id]}"
            words = f"folded by {by}: the model is no longer sent this"
        elif mark == "elided" and view == "replayed" and item.stub is not None:
            words = "elided: the model is sent this stub; the original stays in the file (raw view)"
        elif mark == "elided" and "folded" in item.marks:  # (stubbed, then folded: not sent)
            words = "elided before that: the model was sent a stub; the original stays in the file"
        if mark == "elided" and stub is not None:  # the raw view: the original, the stub beside
            out.marks.append(Mark(tone, words, stub, "stub"))  # (its label says "stub:")
            continue
        out.marks.append(Mark(tone, words))
    if beside:  # (not run into the result, as if the tool had said it)
        out.blocks.append(("text beside the result", beside))
    runs: list[tuple[int, list[str]]] = []  # each run of text: where it goes, its texts
    after_text = False  # the last block was text (a call between two does not part them)
    for part in parts:
        if ordered and part.kind in _CONTENT:
            if not after_text:  # (the first run's place: -1, the content's)
                runs.append((len(out.blocks) if runs else -1, []))
                if len(runs) == 1:
                    out.content_at = len(out.blocks)
                else:
                    out.blocks.append(("text", ""))
            runs[-1][1].append(part.text)
            after_text = True
        elif part.kind in ("reasoning", "other"):
            after_text = False
        if part.kind == "reasoning":  # (Claude Code's thinking may keep no text: said so)
            out.blocks.append((reasoning_said(part), part.text))
        elif part.kind == "other":
            text = part.text
            key = (item.id, part.call_id or "")
            if part.call_id and key in calls.by_call:  # (a block the item's operation is of)
                if key not in out.held:  # (its call's block and its result's)
                    out.held.append(key)
                if part.is_call and part.data is not None:  # (its call: every argument)
                    text = _arguments(part.data)
            out.blocks.append((named(part.name, "record"), text))
        elif part.kind == "tool-result" and part.is_error:
            out.flags.append("ERROR")
        elif part.kind == "tool-call":
            cid = part.call_id or ""
            op = calls.op(item.id, cid, item.line)
            state = "never-dispatched" if op is None else "" if op is False else op.state
            status = OTHER_CALLS_OP if op is False else state if op is None else op.label
            how = "warn" if op is False else state_tone(state)
            call = CallItem(
                part.name or "",
                cid,
                # every argument the call was given, as JSON (its text is a short form:
                # a command line, say), else that text
                _arguments(part.data) if part.data is not None else part.text,
                status,
                how,  # type: ignore[arg-type]
                asked_in=item.id,
            )
            answers = calls.answers(cid, item.line)
            at = answers[0] if answers else None
            if at is not None:
                answer = raw[at]
                said = _preview(
                    answer.stub  # (as the model is sent it)
                    if view == "replayed" and answer.stub is not None
                    else _result(answer, part.call_id)
                )
                call.result = f"result: line {answer.line}: {said}"
                call.result_anchor = f"line-{answer.line}"
            elif isinstance(op, ToolOp) and op.result_line is not None:  # a result no item
                # answers with by its id (an image generation's, its call's own; a hosted
                # search's output, naming none): its operation's, as replay says it
                said = _preview(op.result or "") or "(empty text)"  # (as its item says it)
                call.result = f"result: line {op.result_line}: {said}"
                call.result_anchor = f"line-{op.result_line}"
            else:
                call.result = "no result answers this call"
            if isinstance(op, ToolOp):  # (after the answer's text: its line read is cached)
                call.detail = detail_block("detail", op.detail)
            out.calls.append(call)
    # Which call each result answers, as v1's and agentgo's exports say it (the viewer's
    # ``← result``): a Claude Code result was a bare "user" message, read as a prompt.
    asking = {p.call_id for p in parts if p.kind == "tool-call"}  # (one line, both: said)
    for answered in dict.fromkeys(p.call_id for p in parts if p.kind == "tool-result"):
        if answered is not None and answered not in asking:
            out.flags.append(answers_flag(calls.tool(answered, item.line), answered))
    for at, texts in runs:
        if at < 0:
            out.content = "\n".join(texts)
        else:
            out.blocks[at] = ("text", "\n".join(texts))
    if item.usage is not None:  # (a response's: the model gives it one, known or not)
        out.usage = item.usage.describe_response() if item.usage.known else NOT_REPORTED
    return out


_CONTENT = ("text", "tool-result", "image")  # a message's content (a call's result)
# The state of a call whose id's one operation is another call's (``_Calls.op``).
OTHER_CALLS_OP = "state not known (its id's one operation is another call's)"


def _result(item: Item, call_id: str | None) -> str:
    """What ``item`` answers the call with: its result part for that call (a line may
    answer several, beside text of its own), else its text (a v1 tool message's)."""
    for p in item.parts:
        if p.kind == "tool-result" and p.call_id == call_id:
            return p.text
    return item.text or "\n".join(p.text for p in item.parts if p.kind == "tool-result")


def _operations(
    ops: Sequence[ToolOp],
    shown: set[CallKey] | None = None,
    marked: Mapping[str, list[str]] | None = None,
    ran: Mapping[tuple[str, int], RanAtLeast] | None = None,
) -> Section:
    """Every operation in a table (its arguments cut); ``shown``: the calls the
    conversation showed, filled as it was written. Each other one (a compaction folded
    it from what is sent next, a subagent's, ...: the marks of the item asking for it,
    ``marked``) follows the table whole, its arguments and result, which the export has
    nowhere else."""
    section = Section("Tool operations", "tool-operations")
    if not ops:
        section.items = [Note("no tool operations")]
        return section
    rows = (
        [
            op.label,
            op.tool,
            op.call_id,
            f"line {op.line}",
            _took(op, ran or {}),
            arguments_cell(op.arguments),
        ]
        for op in ops
    )
    progress = (
        TextBlock(f"{op.call_id}: latest output (running)", op.progress)
        for op in ops
        if op.progress
    )
    headers = ["state", "tool", "call id", "where", "duration", "arguments"]
    unshown = _unshown(ops, shown, marked or {})
    section.items = itertools.chain((Table(headers, rows),), progress, unshown)
    return section


def _unshown(
    ops: Sequence[ToolOp], shown: set[CallKey] | None, marked: Mapping[str, list[str]]
) -> Iterator[Note | TextBlock | DetailBlock]:
    """The operations the conversation did not show, whole (read once it was written),
    in groups by why (the first of ``UNSHOWN_BY_MARK``'s marks their item has), each
    group said once before its first."""
    if shown is None:
        return
    groups: dict[str, list[ToolOp]] = {}
    for op in ops:
        if (op.message_id or "", op.call_id) not in shown:
            marks = marked.get(op.message_id or "", ())
            why = next((m for m in UNSHOWN_BY_MARK if m in marks), "")
            groups.setdefault(why, []).append(op)
    for why, group in groups.items():
        yield Note(UNSHOWN_BY_MARK.get(why, UNSHOWN_ELSE))
        for op in group:
            where = f"line {op.line}" if op.line else "no line"
            yield TextBlock(
                f"{op.call_id} · {op.tool} · {op.label} · {where}: arguments",
                _arguments(op.arguments),
            )
            if op.result is not None:
                yield TextBlock(f"{op.call_id}: result", op.result)
            detail = detail_block(f"{op.call_id}: detail", op.detail)
            if detail is not None:
                yield detail


def _arguments(value: Any) -> str:
    """A call's arguments whole: a patch as its lines, the rest as JSON after them (as
    the viewer's detail shows them), anything else as written or as JSON."""
    if value is None:
        return ""
    patch = as_patch(value)
    if patch is not None:
        text, rest = patch
        return text + (f"\n{readable_json(rest)}" if rest else "")
    return value if isinstance(value, str) else readable_json(value)


def _compactions(transcript: Transcript) -> Section:
    return Section("Compactions and elisions", "compactions", _compaction_items(transcript))


def _compaction_items(transcript: Transcript) -> Iterator[Note | TextBlock]:
    for c in transcript.compactions:
        kind, did = overlay_kind(c)  # (a rollback drops turns, it summarises nothing)
        # (its tokens as ``diff``'s ``#`` row and the Diff tab say them, the count after
        # too: it said only ``209,950 tokens before`` where they said ``→ 48,297 tok``)
        tokens = tokens_said(c)
        what = (
            f"{kind} at line {c.line}: {did} {count(len(c.folded), 'item')}"
            f"{f', kept {len(c.kept)}' if c.kept else ''}"
            f"{f'; trigger {c.trigger}' if c.trigger and kind != 'rollback' else ''}"
            f"{f'; {tokens}' if tokens else ''}"
        )
        yield Note(what, "info")
        if summary := c.summary:  # (asked once: a packed one reads its line again)
            yield TextBlock("summary", summary)


def _runs(transcript: Transcript) -> Section:
    rows = (
        [
            run.id,
            run.state_said(),
            f"line {run.line}",
            duration_text(run.duration),
            run.describe_usage(),
            _preview(run.prompt or "", 60),
        ]
        for run in transcript.runs
    )
    table = Table(["run", "state", "from", "duration", "usage", "prompt"], rows)
    return Section("Runs", "runs", [table])


def _run_contexts(runs: Sequence[Run]) -> Iterator[DocItem]:
    """Each run's context: its facts (after the first, those that changed), its sections
    (each text once, long ones as every long text is: folded in HTML); a context that is
    an earlier run's again (a writer repeats it every turn) said to be that one."""
    printed = PrintedOnce()  # (a section's body by its text)
    runs_of: dict[int, str] = {}  # a context (by identity) -> the first run it was
    before: tuple[str, dict[str, str]] | None = None  # the previous context's run, facts
    for run in runs:
        context = run.context
        if context is None:
            yield Note(f"run {run.id}: no run context recorded")
            continue
        yield Heading(f"run {run.id} · its context from line {context.line}")
        same = runs_of.setdefault(id(context), run.id)
        if same != run.id:
            yield Note(f"the same context as run {same}'s")
            continue
        facts = dict(context.facts)
        rows = [[k, v] for k, v in context.facts]
        if before is not None:
            ran, was = before
            # (its own facts, a turn's id, are its own every run: listed, not as changes)
            mine = context.own_facts
            own = [[k, v] for k, v in context.facts if k in mine]
            rows = [[k, v] for k, v in context.facts if k not in mine and was.get(k) != v]
            rows += [[k, "(not given)"] for k in was if k not in facts and k not in mine]
            kept = len(context.facts) - len(own) - sum(1 for k, _v in rows if k in facts)
            if kept:
                said = [f"its own {', '.join(k for k, _v in own)}"] if own else []
                said += ["those that differ"] if rows else []
                listed = f"; {' and '.join(said)}:" if said else ""
                yield Note(f"{count(kept, 'fact')} as run {ran}'s{listed}")
            rows = own + rows
        if rows:
            yield Table(["fact", "value"], rows)
        before = (run.id, facts)
        for name, text in context.sections:
            label = f"section {name} ({count(len(text), 'character')})"
            yield printed.section(run.id, name, text, label, text)


def _subagents(transcript: Transcript, ops: Mapping[str, ToolOp]) -> Section:
    """Each subagent the session linked: the call that started it, what it used, and
    where its lines are (its usage "not read" where its file is missing or past the
    reader's bound, never 0)."""
    rows = []
    aborted = aborted_runs(transcript)  # (a call the user stopped is said so: not cut off)
    for sub in transcript.subagents:
        op = ops.get(sub.call_id) if sub.call_id else None
        took = duration_text(op.duration if op is not None else sub.took)
        rows.append(
            [
                sub.id,
                _preview(sub.description or "", 60),
                "—" if op is None else f"{op.tool} {op.call_id}: {call_said(op, aborted)}",
                took,
                f"{sub.messages:,}" if sub.lines_read else "not read",
                _sub_usage(sub) if sub.lines_read else "not read",
                sub.where,
            ]
        )
    headers = ["subagent", "description", "call", "took", "messages", "usage", "where"]
    return Section("Subagents", "subagents", [Table(headers, rows)])


def _took(op: ToolOp, ran: Mapping[tuple[str, int], RanAtLeast]) -> str:
    """How long ``op`` took, by the viewer's Tools tab's rule: one not ended, at least
    how long (``≥1m05s``: never a launch's ``0s``); else its lines' times, or ``?``."""
    bound = ran.get((op.call_id, op.line)) if op.duration is None else None
    return bound.text if bound is not None else took_said(op)


def _usage(transcript: Transcript) -> Section:
    rows = [_usage_row("this file", transcript.usage)]
    for sub in transcript.subagents:
        if sub.lines_read:  # (its usage unknown where it reported none)
            rows.append(_usage_row(f"subagent {sub.id}", sub.usage, _sub_usage(sub)))
        else:  # (its file not read: not "0 of 0 responses")
            rows.append([f"subagent {sub.id}", "not read", "unknown"])
    both = transcript.usage_with_subagents
    if both is not None:
        said = transcript.with_subagents_text()
        if not any(s.counted for s in transcript.subagents):  # (the file's own, and why)
            said = f"with {said}"
        if transcript.subagents_left_out() is None:
            rows.append(_usage_row(said, both))
        else:  # a lower bound, as the browser's ``≥``: what its label says is left out
            reporting = f"{both.reported} of at least {both.responses}"
            rows.append([said, reporting, at_least(both)])
    return Section("Usage", "usage", [Table(["what", "responses reporting", "usage"], rows)])


def at_least(usage: Usage) -> str:
    """A lower bound's usage: ``at least`` what is known of it; unknown stays "unknown"
    (it read "at least unknown", no bound), a cost known alone bounds the cost alone."""
    if usage.tokens is not None:
        return f"at least {usage.describe()}"
    if usage.cost is None:
        return usage.describe()
    return f"tokens unknown · at least {usage.describe_cost()}"


def _usage_row(name: str, usage: Usage, said: str | None = None) -> list[str]:
    return [name, f"{usage.reported} of {usage.responses}", said or usage.describe()]


def _sub_usage(sub: Subagent) -> str:
    """A subagent's usage; a lower bound said so, and why (``Subagent.left_out``)."""
    if sub.left_out is None or not sub.counted:
        return sub.usage.describe()
    return f"at least {sub.usage.describe()} (read in part: {sub.left_out})"
