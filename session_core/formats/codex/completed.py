"""Newer writers' ``item_completed`` tool items (CommandExecution, FileChange, ...).

Each is a call and its outcome in one event; it becomes a tool operation only in a
file that has no ``response_item`` saying the same (the builder decides). They read as
the response items saying the same do: a command as its command line (its arguments
``{"command": argv}``, a shell call's), a file change as the patch it made (in
``apply_patch``'s envelope: read by the files it touches), a result's content blocks
as their text (``decode_output``), a web search with no result (as its
``web_search_call`` has none).
"""

from __future__ import annotations

import shlex
from typing import Any

from ...model import Item
from ...parts import Part
from ...patch_args import BEGIN
from ...text import error_message, str_or_none
from ...tool_ops import OpState, ToolOp, classify_op
from .event_words import file_change
from .items import field, searched
from .tools import compact, decode_output, rust_seconds, shown_arguments

TOOL_ITEMS = ("CommandExecution", "FileChange", "McpToolCall", "WebSearch", "DynamicToolCall")


def _status(item: dict[str, Any]) -> str:
    status = item.get("status")
    return status.replace("_", "").lower() if isinstance(status, str) else ""


def _duration(item: dict[str, Any]) -> float | None:
    ms = field(item, "duration_ms")
    if isinstance(ms, int | float) and not isinstance(ms, bool) and ms >= 0:
        return float(ms) / 1000
    return rust_seconds(item.get("duration"))


def changes_patch(changes: Any) -> str | None:
    """A FileChange's ``changes`` (``{path: {type: add|delete|update, ...}}``, or the
    app server's list of ``{path, kind, diff}``) as the patch that makes them, in
    ``apply_patch``'s envelope; None where a change is of no kind Codex writes (its JSON
    is then shown)."""
    if isinstance(changes, list):
        changes = _by_path(changes)
    if not isinstance(changes, dict) or not changes:
        return None
    lines = [BEGIN]
    for path, change in changes.items():
        kind, fields = file_change(change)
        if kind == "add":
            lines.append(f"*** Add File: {path}")
            content = fields.get("content")
            lines += [f"+{row}" for row in content.splitlines()] if isinstance(content, str) else []
        elif kind == "delete":
            lines.append(f"*** Delete File: {path}")
        elif kind == "update":
            lines.append(f"*** Update File: {path}")
            moved = str_or_none(fields.get("move_path"))
            if moved:
                lines.append(f"*** Move to: {moved}")
            diff = fields.get("unified_diff")
            lines += diff.splitlines() if isinstance(diff, str) else []
        else:
            return None
    lines.append("*** End Patch")
    return "\n".join(lines)


def _by_path(changes: list[Any]) -> dict[str, Any] | None:
    """The app server's changes (``[{path, kind: {type, move_path}, diff}]``: ``diff`` an
    added or deleted file's content, an update's unified diff, a move's followed by
    ``Moved to: <path>``) as the ``{path: change}`` the rollout's events write (None:
    one is not of that shape, or names a path twice)."""
    out: dict[str, Any] = {}
    for entry in changes:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            return None
        kind, fields = file_change(entry.get("kind"))
        diff = entry.get("diff")
        if kind is None or entry["path"] in out or not isinstance(diff, str):
            return None
        moved = str_or_none(field(fields, "move_path"))
        if moved:
            diff = diff.removesuffix(f"\n\nMoved to: {moved}")
        text = "unified_diff" if kind == "update" else "content"
        out[entry["path"]] = {"type": kind, text: diff, "move_path": moved}
    return out


def _argv(command: Any) -> Any:
    """A command the app server wrote as one shell-joined string, as the argv it joined
    (as a rollout's list reads); as written where it does not split."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError:
            return command
        return argv or command
    return command


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
    answered = True  # (a web search has no result: it ended with its call)
    if kind == "CommandExecution":
        tool = "command_execution"
        arguments: Any = {"command": _argv(item.get("command"))}  # (a shell call's arguments)
        if isinstance(item.get("cwd"), str):
            arguments["cwd"] = item["cwd"]
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
        arguments = changes_patch(item.get("changes")) or item.get("changes")
        out = [t for t in (item.get("stdout"), item.get("stderr")) if isinstance(t, str) and t]
        result = "\n".join(out) if out else None
    elif kind == "McpToolCall":
        server, name = str_or_none(item.get("server")) or "?", str_or_none(item.get("tool")) or "?"
        tool = f"mcp:{server}/{name}"
        arguments = item.get("arguments")
        error = item.get("error")
        if error is not None:
            failed = True
            result = error_message(error) or compact(error)
        elif item.get("result") is not None:
            outcome = decode_output(item.get("result"))  # (its content blocks' text)
            result, failed = outcome.text, failed or outcome.failed
    elif kind == "WebSearch":
        tool = "web_search"
        arguments = item.get("action") if item.get("action") is not None else item.get("query")
        answered = False
    else:
        tool = str_or_none(item.get("tool")) or "dynamic_tool"
        arguments = item.get("arguments")
        if item.get("success") is False or item.get("error") is not None:
            failed = True
        content = field(item, "content_items")
        if content is not None:
            result = decode_output(content).text
    done = status not in ("inprogress", "running", "pending")
    state: OpState = classify_op(has_result=done, failed=failed)
    parts = [
        Part("tool-call", _shown(tool, item, arguments), call_id=call_id, name=tool, data=arguments)
    ]
    if done and answered:
        parts.append(Part("tool-result", result or "", call_id=call_id, is_error=failed))
    op = ToolOp(
        call_id=call_id,
        tool=tool,
        state=state,
        arguments=arguments,
        result=result,
        line=line,
        result_line=line if done and answered else None,
        run_id=run_id,
        message_id=item_id,
        started=ts,
        ended=ts if done else None,
        duration=_duration(item),
    )
    return Item(item_id, "assistant", parts, line, ts=ts), op


def _shown(tool: str, item: dict[str, Any], arguments: Any) -> str:
    """How a call's arguments read (a response item's call's rule, ``shown_arguments``;
    a web search's, ``searched``)."""
    if tool == "web_search":
        query = str_or_none(item.get("query"))
        said = query or (searched(arguments) if isinstance(arguments, dict) else None)
        if said:
            return said
    return shown_arguments(tool, arguments, arguments)


__all__ = ["TOOL_ITEMS", "changes_patch", "completed_tool"]
