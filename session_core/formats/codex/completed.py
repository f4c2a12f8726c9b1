"""Newer writers' ``item_completed`` tool items (CommandExecution, FileChange, ...).

Each is a call and its outcome in one event; it becomes a tool operation only in a
file that has no ``response_item`` saying the same (the builder decides).
"""

from __future__ import annotations

from typing import Any

from ...model import Item
from ...parts import Part
from ...text import command_line, str_or_none
from ...tool_ops import OpState, ToolOp, classify_op
from .items import field
from .tools import compact, rust_seconds

TOOL_ITEMS = ("CommandExecution", "FileChange", "McpToolCall", "WebSearch", "DynamicToolCall")


def _status(item: dict[str, Any]) -> str:
    status = item.get("status")
    return status.replace("_", "").lower() if isinstance(status, str) else ""


def _duration(item: dict[str, Any]) -> float | None:
    ms = field(item, "duration_ms")
    if isinstance(ms, int | float) and not isinstance(ms, bool) and ms >= 0:
        return float(ms) / 1000
    return rust_seconds(item.get("duration"))


def completed_tool(
    item: dict[str, Any], item_id: str, line: int, ts: str | None, run_id: str | None
) -> tuple[Item, ToolOp] | None:
    """A tool ``item_completed`` as an item (call + result) and its operation."""
    kind = item.get("type")
    if kind not in TOOL_ITEMS:
        return None
    call_id = str_or_none(item.get("id")) or item_id
    status = _status(item)
    failed = status in ("failed", "declined", "error")
    result: str | None = None
    if kind == "CommandExecution":
        tool = "command_execution"
        arguments: Any = item.get("command")
        shown = command_line(arguments) or compact(arguments)
        output = field(item, "aggregated_output")
        if not isinstance(output, str):
            output = field(item, "formatted_output")
        if not isinstance(output, str):
            output = item.get("stdout")
        result = output if isinstance(output, str) else None
        code = field(item, "exit_code")
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            failed = True
    elif kind == "FileChange":
        tool = "apply_patch"
        arguments = item.get("changes")
        shown = "\n".join(arguments) if isinstance(arguments, dict) else compact(arguments)
        out = [t for t in (item.get("stdout"), item.get("stderr")) if isinstance(t, str) and t]
        result = "\n".join(out) if out else None
    elif kind == "McpToolCall":
        server, name = str_or_none(item.get("server")) or "?", str_or_none(item.get("tool")) or "?"
        tool = f"mcp:{server}/{name}"
        arguments = item.get("arguments")
        shown = compact(arguments)
        error = item.get("error")
        if error is not None:
            failed = True
            result = compact(error)
        elif item.get("result") is not None:
            result = compact(item.get("result"))
    elif kind == "WebSearch":
        tool = "web_search"
        arguments = item.get("action") if item.get("action") is not None else item.get("query")
        shown = str_or_none(item.get("query")) or compact(arguments)
    else:
        tool = str_or_none(item.get("tool")) or "dynamic_tool"
        arguments = item.get("arguments")
        shown = compact(arguments)
        if item.get("success") is False or item.get("error") is not None:
            failed = True
        if item.get("content_items") is not None or item.get("contentItems") is not None:
            result = compact(field(item, "content_items"))
    done = status not in ("inprogress", "running", "pending")
    state: OpState = classify_op(has_result=done, failed=failed)
    parts = [Part("tool-call", shown, call_id=call_id, name=tool, data=arguments)]
    if done:
        parts.append(Part("tool-result", result or "", call_id=call_id, is_error=failed))
    op = ToolOp(
        call_id=call_id,
        tool=tool,
        state=state,
        arguments=arguments,
        result=result,
        line=line,
        result_line=line if done else None,
        run_id=run_id,
        message_id=item_id,
        started=ts,
        ended=ts if done else None,
        duration=_duration(item),
    )
    return Item(item_id, "assistant", parts, line, ts=ts), op


__all__ = ["TOOL_ITEMS", "completed_tool"]
