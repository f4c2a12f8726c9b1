"""The export document of an agentgo-v1 session: conversation, runs, calls, checkpoints."""

from __future__ import annotations

import json
from typing import Any

from .agentgo.stored import Committed
from .agentgo.view import AgentGoView, Call, message_text
from .exportdoc import (
    CallItem,
    Document,
    MessageItem,
    Note,
    Section,
    Table,
    TextBlock,
    Tone,
    _preview,
    _s,
    _usage_fact,
)
from .message_usage import agentgo_usage
from .usage import Usage, is_model_call, tally_agentgo


def _summary(data: dict[str, Any]) -> str:
    return _preview(_s(data.get("summary")))


def agentgo_document(agv: AgentGoView, path: str) -> Document:
    tally = tally_agentgo(agv)
    # tool call id -> (tool call execution, committed tool_result line)
    tool_calls: dict[str, Call] = {}
    for key in agv.call_order:
        call = agv.calls[key]
        if call.tool_start is not None:
            tool_calls[_s(call.tool_start.get("tool_call_id"))] = call
    # tool call id -> its first committed result's line and a preview of it
    results: dict[str, tuple[int, str]] = {}
    for m in agv.messages:
        tcid = m.message.get("tool_call_id")
        if tcid is not None and _s(tcid) not in results:
            results[_s(tcid)] = (m.line, _preview(message_text(m.message)))
    conversation = Section(
        "Conversation (committed messages)",
        "conversation",
        (_message(m, tool_calls, results) for m in agv.messages),
    )
    run_rows = []
    for run_id in agv.run_order:
        run = agv.runs[run_id]
        usage = tally.runs.get(run_id, Usage())
        run_rows.append(
            [
                run_id,
                agv.run_status(run_id),
                run.outcome(),
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
            found = agentgo_usage(result.get("usage"))
            usage_text = found.describe() if found else "unknown"
        tool_error = (call.tool_end or {}).get("is_error")
        error = result.get("error") or ("tool error" if tool_error else "")
        call_rows.append(
            [
                call.run_id,
                call.name,
                str(call.attempt),
                call.kind,
                call.status,
                _s(call.parent_id),
                str(call.first_seq),
                usage_text,
                _s(error or ""),
            ]
        )
    headers = ["run", "call", "attempt", "kind", "status", "parent", "first seq", "usage"]
    calls = Section("Calls", "calls", [Table([*headers, "error"], call_rows)])
    checkpoints = Section(
        "Checkpoints",
        "checkpoints",
        (
            TextBlock(
                f"line {c.line} · seq {c.seq} · run {c.run_id}",
                json.dumps(c.snapshot, indent=2, ensure_ascii=False),
            )
            for c in agv.checkpoints
        )
        if agv.checkpoints
        else [Note("No checkpoints.")],
    )
    rows = [
        [str(seq), run, kind, _s(d.get("tokens_before")), _s(d.get("tokens_after")), _summary(d)]
        for seq, run, kind, d in agv.context_events
    ]
    contexts = Section(
        "Context events",
        "context-events",
        [
            Table(["seq", "run", "type", "tokens before", "tokens after", "summary"], rows)
            if rows
            else Note("No context projections or compactions.")
        ],
    )
    sections = [conversation, runs, calls, checkpoints, contexts]
    others = [
        TextBlock(
            f"line {line} · {_s(record.get('type'))}",
            json.dumps(record, indent=2, ensure_ascii=False),
        )
        for line, record in agv.other_records()
    ]
    if others:
        sections.append(Section("Records of other types (as written)", "other-records", others))
    problems = [Note(g, "warn") for g in agv.gaps()] + [Note(w, "bad") for w in agv.warnings]
    if problems:
        sections.append(Section("Gaps and warnings", "warnings", list(problems)))
    facts: list[tuple[str, str]] = [
        ("file", path),
        ("format", "agentgo-v1"),
        ("view", "as written (an agentgo session has one view: nothing is replaced)"),
        ("session", _s(agv.session_id)),
        ("started", agv.started),
        (
            "runs / calls / messages",
            f"{len(agv.run_order)} / {len(agv.call_order)} / {len(agv.messages)}",
        ),
        ("usage", _usage_fact(tally)),
    ]
    return Document("agentgo session — tailscope export", facts, sections)


def _message(
    m: Committed, tool_calls: dict[str, Call], results: dict[str, tuple[int, str]]
) -> MessageItem:
    msg = m.message
    kind = _s(msg.get("kind")) or "user"
    role = {"tool_result": "tool"}.get(kind, kind)
    where = [f"line {m.line}", f"seq {m.seq}", f"run {m.run_id}", m.time]
    item = MessageItem(f"line-{m.line}", role, where, message_text(msg))
    if msg.get("is_error"):
        item.flags.append("ERROR")
    if msg.get("stop_reason") is not None:
        item.flags.append(f"stop {_s(msg.get('stop_reason'))}")
    if msg.get("tool_call_id") is not None:
        item.flags.append(f"answers {_s(msg.get('tool_call_id'))}")
    reported = agentgo_usage(msg.get("usage"))
    item.usage = reported.describe() if reported else None
    parts = msg.get("content")
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "thinking":
            item.blocks.append(("thinking", _s(part.get("text"))))
        elif part.get("type") == "tool_call":
            cid = _s(part.get("id"))
            execution = tool_calls.get(cid)
            status = execution.status if execution else "no execution recorded"
            tone: Tone = {"ok": "ok", "failed": "bad"}.get(status, "warn")  # type: ignore[assignment]
            entry = CallItem(_s(part.get("name")), cid, _s(part.get("arguments")), status, tone)
            if execution is not None:
                entry.details.append(f"execution {execution.id} attempt {execution.attempt}")
                entry.details.append(f"{execution.first_time} → {execution.last_time}")
            answer = results.get(cid)
            if answer:
                entry.result = f"result: line {answer[0]}: {answer[1]}"
                entry.result_anchor = f"line-{answer[0]}"
            else:
                entry.result = "no committed tool result answers this call"
            item.calls.append(entry)
    return item
