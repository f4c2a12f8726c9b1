"""The export document of an agentgo-v1 session: conversation, runs, calls, checkpoints."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from .agentgo.folds import ContextFolds, context_compactions, unsent_events
from .agentgo.messages import message_role
from .agentgo.stored import Committed
from .agentgo.view import AgentGoView, Call, message_text, state_said
from .exportdoc import (
    UNSHOWN_CALLS,
    CallItem,
    CallKey,
    Document,
    Mark,
    MessageItem,
    Note,
    Section,
    Table,
    TextBlock,
    Tone,
    View,
    _message_usage,
    _preview,
    _s,
    _usage_fact,
    answers_flag,
    arguments_cell,
    by_ask,
    document_title,
    noting_calls,
)
from .formats.agentgo.asked import unstarted_state
from .formats.agentgo.raw_rows import failure_item
from .json_out import readable_json
from .message_usage import exec_end_usage
from .model import UNSENT, overlay_counts, projection_dropped
from .open_work import IN_FLIGHT, agentgo_open_work, open_work_said
from .overlay_said import OVERLAYS_FACT
from .text import Name, count_text, finish_mark, written_count
from .titles import agentgo_prompt, first_of
from .tool_ops import ask_in_run, ask_of, state_label, state_tone
from .usage import (
    Usage,
    is_model_call,
    is_response,
    refused_end,
    shown_usage,
    tally_agentgo,
)

# A call id's committed results, in order: (seq, line, a preview)
Results = dict[str, list[tuple[int, int, str]]]


class _Paired:
    """The tool executions and committed results, each under the call it is of
    (``CallKey``: the seq of the message asking for it, and its id; ``ask_of``'s rule, one
    for every export: the last message before it asking for its id, else the first, as
    seq is append order and an execution may come before the message asking for it; an
    execution's own run's message first, ``ask_in_run``, as the model's)."""

    def __init__(self, agv: AgentGoView) -> None:
        askers: dict[str, list[int]] = {}  # call id -> the seqs of the messages asking for it
        ask_runs: dict[str, list[str]] = {}  # ... and their runs
        self.results: Results = {}
        self.tools: dict[CallKey, str] = {}  # (seq asking, call id) -> its tool
        for m in agv.messages:
            msg = m.message
            tcid = msg.get("tool_call_id")
            if tcid is not None:
                said = (m.seq, m.line, _preview(message_text(msg)))
                self.results.setdefault(_s(tcid), []).append(said)
            parts = msg.get("content")
            for part in parts if isinstance(parts, list) else []:
                if isinstance(part, dict) and part.get("type") == "tool_call":
                    askers.setdefault(_s(part.get("id")), []).append(m.seq)
                    self.tools.setdefault((str(m.seq), _s(part.get("id"))), _s(part.get("name")))
                    ask_runs.setdefault(_s(part.get("id")), []).append(m.run_id)
        self.executions: dict[CallKey, Call] = {}
        for key in agv.call_order:
            call = agv.calls[key]
            if call.tool_start is None:
                continue
            cid = _s(call.tool_start.get("tool_call_id"))
            seqs = askers.get(cid)
            asked = ""  # (none asks)
            if seqs:
                at = ask_in_run(seqs, ask_runs[cid], call.first_seq, call.run_id)
                asked = str(seqs[at])
            self.executions[(asked, cid)] = call  # (its last attempt)
        # Each call's first answer: its place among its id's results (a result's preview
        # may be replaced by its stub, in the same place).
        self.answer: dict[CallKey, int] = {}
        for cid, answers in self.results.items():
            grouped = by_ask(askers.get(cid, []), ((a[0], at) for at, a in enumerate(answers)))
            for ask, places in grouped.items():
                self.answer[(str(ask), cid)] = places[0]
        self.askers = askers

    def tool(self, call_id: str, seq: int) -> str:
        """The tool of the call a result at ``seq`` answers (``ask_of``); "?" where no
        message asks for ``call_id``."""
        seqs = self.askers.get(call_id)
        return "?" if not seqs else self.tools.get((str(ask_of(seqs, seq)), call_id)) or "?"

    def answer_of(self, results: Results, key: CallKey) -> tuple[int, int, str] | None:
        """The first result answering call ``key``, from ``results`` (``self.results``, or
        a copy whose previews are what is sent)."""
        at = self.answer.get(key)
        return None if at is None else results[key[1]][at]


def _unshown(
    tool_calls: dict[CallKey, Call], shown: set[CallKey] | None
) -> Iterator[Note | TextBlock]:
    """The tool calls the conversation did not show (read once it was written), whole:
    their ``tool_exec_start`` and ``tool_exec_end`` as written."""
    if shown is None:
        return
    said = False
    for key, call in tool_calls.items():
        if key in shown:
            continue
        tcid = key[1]
        if not said:
            said = True
            yield Note(UNSHOWN_CALLS)
        where = f"line {call.first_line}" if call.first_line else "a tail's"
        head = f"{tcid} · {_s(call.tool_name)} · {where}"
        start, end = call.tool_start, call.tool_end
        if start is not None:
            arguments = start.get("args", start)
            yield TextBlock(f"{head}: arguments", readable_json(arguments, indent=2))
        if end is not None:  # (its text parts as text; anything else as written)
            parts = message_text(end) if isinstance(end.get("content"), list) else ""
            text = parts or readable_json(end, indent=2)
            yield TextBlock(f"{tcid}: result{' (an error)' if end.get('is_error') else ''}", text)


def _summary(data: dict[str, Any]) -> str:
    return _preview(_s(data.get("summary")))


def agentgo_document(agv: AgentGoView, path: str, view: View = "replayed") -> Document:
    tally = tally_agentgo(agv)
    paired = _Paired(agv)
    tool_calls = paired.executions
    folds = ContextFolds(agv) if agv.context_events else None
    conversation = Section(
        "Conversation (every committed message)"
        if folds is None
        else "Conversation (what the model is sent next)"
        if view == "replayed"
        else "Conversation (every committed message, with what each context event folded)",
        "conversation",
        _conversation(agv, folds, view, paired),
    )
    if view == "raw":  # (as the viewer's raw view says it: ``failure_item``)
        conversation.items = _with_failures(agv, conversation.items)
    # (the calls the conversation shows, noted as it is written: the calls after it give
    # the others whole, a replayed view's calls a context event folded)
    shown: set[CallKey] | None = set() if view == "replayed" and folds is not None else None
    if shown is not None:
        conversation.items = noting_calls(conversation.items, shown)
    run_rows = []
    for run_id in agv.run_order:
        run = agv.runs[run_id]
        usage = tally.runs.get(run_id, Usage())
        run_rows.append(
            [
                run_id,
                agv.run_status(run_id),
                agv.run_outcome(run_id),
                run.first_time,
                run.last_time,
                str(run.turns),
                str(len(run.calls)),
                usage.describe_tokens(),
                usage.describe_cost(),
            ]
        )
    headers = ["run", "status", "outcome", "started", "last record", "turns", "calls"]
    runs = Section("Runs", "runs", [Table([*headers, "tokens", "cost"], run_rows)])
    call_rows = []
    for key in agv.call_order:
        call = agv.calls[key]
        result = call.result or {}
        usage_text = ""
        if is_model_call(call):
            found = exec_end_usage(result)
            usage_text = found.describe() if found else "unknown"
            if found is None and call.model_failed and refused_end(result):
                usage_text = "none (refused: no response)"
        tool_error = (call.tool_end or {}).get("is_error")
        error = result.get("error") or ("tool error" if tool_error else "")
        call_rows.append(
            [
                call.run_id,
                call.name,
                str(call.attempt),
                call.kind,
                state_said(agv.call_state(call)),
                _s(call.parent_id),
                str(call.first_seq),
                usage_text,
                _s(error or ""),
                arguments_cell(start.get("args", start)) if (start := call.tool_start) else "",
            ]
        )
    headers = ["run", "call", "attempt", "kind", "status", "parent", "first seq", "usage"]
    calls = Section(
        "Calls",
        "calls",
        itertools.chain(
            [Table([*headers, "error", "arguments"], call_rows)], _unshown(tool_calls, shown)
        ),
    )
    checkpoints = Section(
        "Checkpoints",
        "checkpoints",
        (
            TextBlock(
                f"line {c.line} · seq {c.seq} · run {c.run_id}",
                readable_json(c.snapshot, indent=2),
            )
            for c in agv.checkpoints
        )
        if agv.checkpoints
        else [Note("No checkpoints.")],
    )
    # (each event by its line, as v1's export names its compaction's, and its seq)
    lines = agv.records.lines
    rows = [
        [
            str(lines[at]),
            str(seq),
            run,
            kind,
            count_text(written_count(d, "tokens_before")),  # (``?`` left out, ``null``)
            count_text(written_count(d, "tokens_after")),
            _summary(d),
        ]
        for at, (seq, run, kind, d) in zip(agv.context_at, agv.context_events, strict=True)
    ]
    contexts = Section(
        "Context events",
        "context-events",
        [
            Table(["line", "seq", "run", "type", "tokens before", "tokens after", "summary"], rows)
            if rows
            else Note("No context projections or compactions.")
        ],
    )
    sections = [conversation, runs, calls, checkpoints, contexts]
    others = [
        TextBlock(
            f"line {line} · {_s(record.get('type'))}",
            readable_json(record, indent=2),
        )
        for line, record in agv.other_records()
    ]
    if others:
        sections.append(Section("Records of other types (as written)", "other-records", others))
    problems = [Note(g, "warn") for g in agv.gaps()] + [Note(w, "bad") for w in agv.warnings]
    if problems:
        sections.append(Section("Gaps and warnings", "warnings", list(problems)))
    facts: list[tuple[str, str]] = [
        ("file", Name(path)),
        ("format", "agentgo-v1"),
        ("view", _VIEWS[view] if folds is not None else _NO_EVENT),
        ("session", _s(agv.session_id)),
        ("started", agv.started),
        (
            "runs / calls / messages",
            f"{len(agv.run_order)} / {len(agv.call_order)} / {len(agv.messages)}",
        ),
        ("usage", _usage_fact(tally)),
    ]
    if folds is not None:  # (as the header counts them: each event once, what it stubbed)
        overlays = overlay_counts(context_compactions(agv, folds))
        facts.insert(-1, (OVERLAYS_FACT, ", ".join(overlays.said("compaction", "elision"))))
    in_flight = open_work_said(agentgo_open_work(agv))
    if in_flight is not None:  # (what its writer left in flight: ``check``'s words)
        facts.insert(-1, (IN_FLIGHT, in_flight))
    # (its records name no title: its first prompt, as the browser's row says it)
    prompt = first_of(agentgo_prompt(m.message) for m in agv.messages)
    title = document_title({}, "agentgo-v1", prompt, _s(agv.session_id) or path)
    return Document(title, facts, sections)


_NO_EVENT = "every committed message (no context event: the model is sent them all)"
_VIEWS: dict[View, str] = {
    "replayed": "replayed: what the model is sent next, as the requests after each context "
    "event held it, then everything committed since",
    "raw": "raw: every committed message, those a context event folded, dropped or stubbed marked",
}


def _with_failures(agv: AgentGoView, items: Iterable[Any]) -> Iterator[Any]:
    """``items`` (a raw view's: a message each), each failed run's loop said where it
    ended, after the messages committed before its ``agent_end``."""
    ends = sorted(
        (run.end_at[3], run.end_at[0], failure_item(run).text)
        for run in agv.runs.values()
        if run.failed and run.end_at is not None
    )
    taken = 0
    for item in items:
        while ends and ends[0][0] <= taken:
            yield Note(ends.pop(0)[2], "bad")
        yield item
        taken += isinstance(item, MessageItem)
    yield from (Note(said, "bad") for _after, _seq, said in ends)


def _conversation(
    agv: AgentGoView,
    folds: ContextFolds | None,
    view: View,
    paired: _Paired,
) -> Iterator[MessageItem | Note]:
    """The conversation as ``view`` has it: with no context event, every committed
    message; replayed, what the viewer's conversation shows (``ContextFolds.sent``: a
    message sent as a stub shown as its stub, a summary a request held as an item of its
    own); raw, every committed message, marked where an event folded or stubbed it."""
    messages = agv.messages
    results = paired.results
    if folds is None:
        yield from (_message(agv, m, paired, results) for m in messages)
        return
    unsent = sorted(unsent_events(agv))
    if unsent:  # (said first: what the events did is not in the messages, none knows it yet)
        lines = ", ".join(str(agv.records.lines[agv.context_at[e]]) for e in unsent)
        plural = "s" if len(unsent) > 1 else ""
        said = f"Context event{plural} at line{plural} {lines}: {UNSENT}"
        if view == "replayed":
            said += "; the messages are what the last request held and what was committed since"
        yield Note(said + ".", "warn")
    if view == "replayed":
        entries = folds.sent(len(messages))
        results = dict(results)  # (a call's answer previewed as it is sent: its stub)
        for position, sent_as in folds.stubs.items():
            call = messages[position].message.get("tool_call_id")
            if call is not None and _s(call) in results:
                line = messages[position].line
                results[_s(call)] = [
                    (seq, at, _preview(sent_as) if at == line else said)
                    for seq, at, said in results[_s(call)]
                ]
        for entry in entries:
            if entry < 0:
                own = folds.own[-1 - entry]
                yield MessageItem(
                    f"sent-{-entry}",
                    message_role(own),
                    ["sent, committed as no message (a summary)"],
                    message_text(own),
                )
                continue
            item = _message(agv, messages[entry], paired, results)
            stub = folds.stubs.get(entry)
            if stub is not None:
                item.content = stub
                item.marks.append(
                    Mark(
                        "warn",
                        "elided: the model is sent this stub; "
                        "the original stays in the file (raw view)",
                    )
                )
            yield item
        return
    # A message's id -> the line of the event that folded it, and of the last one that
    # stubbed it (an aged result a later compaction folds has both; one a projection
    # dropped is sent no stub, unless a later one sends it again as one).
    folded: dict[str, int] = {}
    elided: dict[str, int] = {}
    for event, (_seq, _run, kind, _data) in enumerate(agv.context_events):
        line = agv.records.lines[agv.context_at[event]]
        if kind == "context_compacted":
            for ident in folds.of(event):
                folded.setdefault(ident, line)
            continue
        for ident, stub in zip(folds.of(event), folds.sent_as(event), strict=True):
            if stub is not None:
                elided[ident] = line
    for position, m in enumerate(messages):
        item = _message(agv, m, paired, results)
        fold = folded.get(f"seq-{m.seq}")
        if fold is not None:
            item.marks.append(
                Mark(
                    "warn",
                    f"folded by the compaction at line {fold}: the model is no longer sent this",
                )
            )
        dropped_by = folds.dropped.get(position)
        if dropped_by is not None:
            line = agv.records.lines[agv.context_at[dropped_by]]
            item.marks.append(Mark("warn", projection_dropped(f"line {line}")))
        stub = folds.stubs.get(position)
        if stub is not None:
            at = elided.get(f"seq-{m.seq}")
            where = f" at line {at}" if at is not None else ""
            sent = "was sent a stub before that" if fold is not None else "is sent a stub"
            # (the stub's label says "stub:": the words do not say it again)
            item.marks.append(Mark("warn", f"elided{where}: the model {sent}", stub, "stub"))
        yield item


def _message(agv: AgentGoView, m: Committed, paired: _Paired, results: Results) -> MessageItem:
    msg = m.message
    role = message_role(msg)
    where = [f"line {m.line}", f"seq {m.seq}", f"run {m.run_id}", m.time]
    item = MessageItem(f"line-{m.line}", role, where, message_text(msg))
    if msg.get("is_error"):
        item.flags.append("ERROR")
    finish = finish_mark(msg.get("stop_reason"))  # (v1's words for its finish-reason)
    if finish is not None:
        item.flags.append(finish)
    if msg.get("tool_call_id") is not None:
        answered = _s(msg.get("tool_call_id"))
        item.flags.append(answers_flag(paired.tool(answered, m.seq), answered))
    reported = shown_usage(agv, m, msg)  # (its own, else its model call's)
    item.usage = _message_usage(reported, is_response(m, msg))
    parts = msg.get("content")
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "thinking":
            item.blocks.append(("thinking", _s(part.get("text"))))
        elif part.get("type") == "tool_call":
            cid = _s(part.get("id"))
            execution = paired.executions.get((str(m.seq), cid))
            if execution is None:  # (asked for, never started: the model's op state)
                unstarted = unstarted_state(agv, m.run_id)
                tone: Tone = state_tone(unstarted)  # type: ignore[assignment]
                said = state_label(unstarted)
            else:
                status = agv.call_state(execution)
                tone = {"ok": "ok", "failed": "bad"}.get(status, "warn")  # type: ignore[assignment]
                said = state_said(status)
            entry = CallItem(_s(part.get("name")), cid, _s(part.get("arguments")), said, tone)
            entry.asked_in = str(m.seq)
            if execution is not None:
                entry.details.append(f"execution {execution.id} attempt {execution.attempt}")
                ended = execution.tool_end_at >= 0 or execution.result_at >= 0
                entry.details.append(
                    f"{execution.first_time} → {execution.last_time}"
                    if ended  # (no terminal event: its last record, no end)
                    else f"started {execution.first_time}, no terminal event"
                )
            answer = paired.answer_of(results, (str(m.seq), cid))
            if answer:
                entry.result = f"result: line {answer[1]}: {answer[2]}"
                entry.result_anchor = f"line-{answer[1]}"
            else:
                entry.result = "no committed tool result answers this call"
            item.calls.append(entry)
    return item
