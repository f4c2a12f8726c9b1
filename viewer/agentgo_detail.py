"""The detail of one agentgo call: request, result, tool steps, retries and its events.

Built as a ``Text`` from inert strings (``viewer.safe``), bounded so that a
huge request (a long history, a big tool result) never renders in full.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from rich.style import Style
from rich.text import Text

from session_core.agentgo.view import AgentGoView, Call, message_text, thinking_text
from session_core.json_out import json_text
from session_core.text import count

from .agentgo_model import (
    args_differ,
    call_label_parts,
    compact_json,
    kinds_summary,
    source_time,
    tool_calls,
)
from .safe import inert, one_line

StyleOf = Callable[[str], Style]

REQUEST_MESSAGES = 12  # the last messages of a request shown (the rest are counted)
EXCERPT = 160  # cells of one message excerpt in a request
BODY_LIMIT = 4000  # characters of a result text or tool result
JSON_LIMIT = 6000  # characters of pretty JSON (arguments, details, config)
EVENTS_LIMIT = 200


def pretty_json(value: Any, limit: int = JSON_LIMIT) -> str:
    """Indented JSON (a string argument that holds JSON is decoded first), inert and cut."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith(("{", "[")):
            try:
                value = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                return cut(value, limit)
        else:
            return cut(value, limit)
    return cut(json_text(value, orjson.OPT_INDENT_2), limit)


def _trim(value: Any) -> Any:
    return value.rstrip("\n") if isinstance(value, str) else value


def cut(text: str, limit: int) -> str:
    text = inert(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… {count(len(text) - limit, 'more character')} not shown"


class _Builder:
    def __init__(self, style: StyleOf) -> None:
        self.style = style
        self.out = Text(end="")

    def heading(self, title: str) -> None:
        if self.out:
            self.out.append("\n\n")
        self.out.append(title, self.style("heading"))

    def pair(self, label: str, value: str, value_style: str = "") -> None:
        self.out.append("\n")
        self.out.append(f"{label}: ", self.style("label"))
        self.out.append(value, self.style(value_style) if value_style else Style())

    def block(self, text: str, style: str = "") -> None:
        self.out.append("\n")
        self.out.append(text, self.style(style) if style else Style())


def call_detail(view: AgentGoView, call: Call, style: StyleOf) -> Text:
    """Everything the file says about one call attempt."""
    b = _Builder(style)
    status = view.call_state(call)
    kind, name, qualifier = call_label_parts(call)
    b.out.append(f"{kind} {name}", style("title"))
    if qualifier:
        b.out.append(f" {qualifier}", style("dim"))
    b.out.append(f"  attempt {call.attempt}  ", style("label"))
    b.out.append(
        {
            "ok": "ok",
            "failed": "failed",
            "gap": "gap: no terminal event",
            "running": "running: no terminal event yet",
        }[status],
        style(status),
    )
    run = view.runs.get(call.run_id)
    where = f"run {run.index + 1} ({one_line(call.run_id)})" if run else one_line(call.run_id)
    b.pair("run", where)
    if call.parent_id is not None:
        b.pair("parent", one_line(call.parent_id))
    if call.turn_index is not None:
        b.pair("turn", compact_json(call.turn_index))
    if call.children:
        b.pair("children", ", ".join(one_line(k[1]) + f" #{k[2]}" for k in call.children[:20]))
    attempts = [n for n in range(1, call.attempt + 20) if (call.run_id, call.id, n) in view.calls]
    if len(attempts) > 1:
        b.pair("attempts", ", ".join(map(str, attempts)) + f" (this is {call.attempt})")
    if call.request is not None:
        _request(b, call.request)
    if call.result is not None or call.recovery is not None:
        _result(b, call)
    if call.tool_start is not None or call.tool_invoke is not None or call.tool_end is not None:
        _tool(b, call)
    if call.retries:
        b.heading("Retries")
        for retry in call.retries:
            line = f"attempt {compact_json(retry.get('attempt'))}: {one_line(retry.get('error'))}"
            if retry.get("delay_ms") is not None:
                line += f" (after {compact_json(retry.get('delay_ms'))} ms)"
            b.block(line, "failed")
    if call.context:
        b.heading("Context")
        for kind, data in call.context:
            b.block(f"{kind}: {compact_json(data, 200)}")
    b.heading(f"Events ({len(call.events)})")
    for seq, kind, time in call.events[:EVENTS_LIMIT]:
        b.block(f"seq {seq:>6}  {source_time(time):<19}  {one_line(kind, 30)}", "dim")
    if len(call.events) > EVENTS_LIMIT:
        b.block(f"… {len(call.events) - EVENTS_LIMIT:,} more", "dim")
    if status == "gap":
        b.block("", "")
        b.block("The file has no terminal event for this call: its outcome is unknown.", "gap")
    return b.out


def _request(b: _Builder, request: dict[str, Any]) -> None:
    b.heading("Model request")
    messages = request.get("messages")
    b.pair("messages", kinds_summary(messages))
    if isinstance(messages, list):
        shown = messages[-REQUEST_MESSAGES:]
        if len(messages) > len(shown):
            b.block(f"  … {count(len(messages) - len(shown), 'earlier message')}", "dim")
        for message in shown:
            if not isinstance(message, dict):
                b.block("  " + compact_json(message, EXCERPT))
                continue
            kind = one_line(message.get("kind") or "?", 14)
            text = message_text(message).strip()
            calls = tool_calls(message)
            excerpt = one_line(text, EXCERPT) if text else ""
            if calls:
                names = ", ".join(name for _, name, _ in calls)
                excerpt = (excerpt + " " if excerpt else "") + one_line(f"→ {names}", 60)
            b.out.append("\n  ")
            b.out.append(f"{kind}: ", b.style("label"))
            b.out.append(excerpt)
    tools = request.get("tools")
    if isinstance(tools, list):
        tool_names = [
            one_line(tool.get("name") if isinstance(tool, dict) else tool, 40) for tool in tools
        ]
        b.pair("tools", ", ".join(tool_names) if tool_names else "none")
    config = request.get("config")
    if isinstance(config, dict) and config:
        b.pair(
            "config",
            " ".join(f"{one_line(k, 30)}={compact_json(v, 60)}" for k, v in config.items()),
        )
    if request.get("snapshot_error"):
        b.pair("snapshot_error", one_line(request.get("snapshot_error")), "failed")


def _result(b: _Builder, call: Call) -> None:
    result = call.result or {}
    b.heading("Result (model_exec_end)" if call.result is not None else "Result")
    if call.result is None:
        b.block("no model_exec_end: a gap", "gap")
    if result.get("error"):
        b.pair("error", one_line(result.get("error")), "failed")
    for key, label in (("message", "message"), ("partial_message", "partial message")):
        message = result.get(key)
        if not isinstance(message, dict):
            continue
        kind = one_line(message.get("kind") or "?")
        extra = (
            f", stop_reason {one_line(message.get('stop_reason'))}"
            if message.get("stop_reason")
            else ""
        )
        b.pair(label, f"{kind}{extra}")
        thinking = thinking_text(message).strip()
        if thinking:
            b.block(cut(thinking, 600), "dim")
        text = message_text(message)
        if text:
            b.block(cut(text, BODY_LIMIT))
        for cid, name, arguments in tool_calls(message):
            b.block(f"→ {name} ({cid}) {compact_json(arguments, 200)}", "label")
    usage = result.get("usage")
    if isinstance(usage, dict):
        b.pair(
            "usage", " ".join(f"{one_line(k, 24)}={compact_json(v, 20)}" for k, v in usage.items())
        )
    if "provider_state" in result:
        b.pair("provider_state", compact_json(result.get("provider_state"), 120), "dim")
    if call.recovery is not None:
        b.pair("length recovery", compact_json(call.recovery, 200))


def _tool(b: _Builder, call: Call) -> None:
    start = call.tool_start or {}
    b.heading(f"Tool {one_line(start.get('tool') or '?')}")
    if start.get("tool_call_id") is not None:
        b.pair("tool_call_id", one_line(start.get("tool_call_id")))
    differ = args_differ(call)
    b.pair("requested args", "" if call.tool_start is not None else "(no tool_exec_start)")
    if call.tool_start is not None:
        b.block(pretty_json(start.get("args")))
    if call.tool_invoke is None:
        b.pair("actual args", "no tool_invoke_start", "dim")
    else:
        b.pair(
            "actual args",
            "DIFFER from the requested ones (middleware or authorization changed them)"
            if differ
            else "as requested",
            "differ" if differ else "ok",
        )
        if differ:
            b.block(pretty_json(call.tool_invoke.get("args")), "differ")
    end = call.tool_end
    if end is None:
        b.pair("result", "no tool_exec_end: a gap (outcome unknown)", "gap")
        return
    is_error = bool(end.get("is_error"))
    b.pair("is_error", "true" if is_error else "false", "failed" if is_error else "ok")
    if end.get("disposition") is not None:
        b.pair("disposition", compact_json(end.get("disposition"), 80))
    if "result" in end:
        b.pair("result", "")
        b.block(pretty_json(_trim(end.get("result")), BODY_LIMIT), "failed" if is_error else "")
    content = end.get("content")
    if isinstance(content, list) and content:
        b.pair("content", f"{len(content)} part{'s' if len(content) != 1 else ''}")
        for part in content[:20]:
            if isinstance(part, dict) and part.get("type") == "text":
                b.block(cut(str(part.get("text") or "").rstrip("\n"), BODY_LIMIT))
            else:
                b.block(compact_json(part, 200), "dim")
    if end.get("details") is not None:
        b.pair("details", "")
        b.block(pretty_json(end.get("details")), "dim")
