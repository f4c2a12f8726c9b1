"""JSON-ready views of a replay, shared by ``tailscope replay`` and exports."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import orjson

from .errors import TranscriptError
from .message import MESSAGE_KEYS
from .replay import ReplayState

if TYPE_CHECKING:
    from .formats.base import TranscriptFormat


def replay_json(state: ReplayState, writer_alive: bool | None = None) -> dict[str, Any]:
    """The replayed view of a v1 file, shaped as ``tailscope replay`` prints it."""
    from .formats.v1 import transcript_of

    messages = []
    for mid, body, _sticky, stub in state.entries:
        out: dict[str, Any] = {"id": mid}
        for key, value in body.items():
            if key in MESSAGE_KEYS:
                out[key] = value
        out.setdefault("role", "user")
        out.setdefault("content", "")
        if stub is not None:
            out["content"] = stub
        messages.append(out)
    model = transcript_of(state, state.where, writer_alive)
    # Copies: the records are the state's own (built from their lines once).
    ops = [
        {**op, "state": neutral.state}
        for op, neutral in zip(state.tool_ops, model.tool_operations, strict=True)
    ]
    return {
        "format": model.format,
        "meta": state.meta,
        "messages": messages,
        "grants": state.grants,
        "tool-operations": ops,
        "pending-tool-operations": [op for op in ops if not op["settled"]],
        "run-contexts": list(state.run_contexts),
        "compactions": [c.to_json() for c in model.compactions],
        "usage": model.usage.to_json(),
        "warnings": list(state.warnings),
    }


def replay_any(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The replayed view of a file of any registered format, read-only.

    ``TranscriptError`` when it cannot be read, or no format claims it.
    """
    return format_for(path).replay_json(path)


def format_for(path: str | os.PathLike[str]) -> TranscriptFormat:
    """The format that reads ``path``; ``TranscriptError`` when none claims it."""
    from .formats import format_of, not_a_transcript
    from .reader import open_transcript

    where = os.fspath(path)
    with open_transcript(where) as fh:  # missing / directory / unreadable, worded once
        empty = not fh.read(1 << 16).strip()
    if empty:
        raise TranscriptError("is empty; a transcript starts with its first record", path=where)
    fmt = format_of(where)
    if fmt is None:
        _first_line_damage(where)
        raise TranscriptError(
            f"is not a transcript: {not_a_transcript()}",
            path=where,
        )
    return fmt


def dump_json(value: Any, pretty: bool = False) -> bytes:
    """The bytes ``tailscope replay`` prints (and ``export --format json`` writes)."""
    option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
    return orjson.dumps(value, option=option, default=str)


def _first_line_damage(where: str) -> None:
    """A first line that is not JSON at all is damage at line N, not "not a transcript"."""
    from .formats.base import read_records

    for number, value, raw in read_records(where):
        if value is None:
            from .formats.base import bad_line_reason

            raise TranscriptError(
                f"{bad_line_reason(raw)}; a transcript starts with its first record",
                path=where,
                line=number,
            )
        return
