"""JSON-ready views of a replay, shared by ``tailscope replay`` and exports."""

from __future__ import annotations

import copy
from typing import Any

from .formats import V1
from .message import MESSAGE_KEYS
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
    return {
        "format": V1,
        "meta": state.meta,
        "messages": messages,
        "grants": state.grants,
        "tool-operations": state.tool_ops,
        "pending-tool-operations": [op for op in state.tool_ops if not op["settled"]],
        "run-contexts": state.run_contexts,
        "warnings": list(state.warnings),
    }


def replay_json_copy(state: ReplayState) -> dict[str, Any]:
    return copy.deepcopy(replay_json(state))
