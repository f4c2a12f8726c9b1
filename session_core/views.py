"""JSON-ready views of a replay, shared by ``tailscope replay`` and exports."""

from __future__ import annotations

import os
from typing import Any

import orjson

from .agentgo.reader import read_view
from .formats import AGENTGO, V1, detect_format
from .message import MESSAGE_KEYS
from .reader import replay_file
from .replay import ReplayState


def replay_json(state: ReplayState) -> dict[str, Any]:
    """The replayed view, shaped as ``tailscope replay`` prints it."""
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
    ops = list(state.tool_ops)  # built from their lines once, not once per use
    return {
        "format": V1,
        "meta": state.meta,
        "messages": messages,
        "grants": state.grants,
        "tool-operations": ops,
        "pending-tool-operations": [op for op in ops if not op["settled"]],
        "run-contexts": list(state.run_contexts),
        "warnings": list(state.warnings),
    }


def replay_any(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The replayed view of either format, read-only; ``TranscriptError`` when it cannot be."""
    if detect_format(path) == AGENTGO:
        return read_view(path).to_json()
    return replay_json(replay_file(path, tolerate_tail=True))


def dump_json(value: Any, pretty: bool = False) -> bytes:
    """The bytes ``tailscope replay`` prints (and ``export --format json`` writes)."""
    option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
    return orjson.dumps(value, option=option, default=str)
