"""What shape a record of a named type must have, one rule for the writer and every reader.

The spec: ``data`` is always an object; ``run_id`` is on every record of a run;
``execution`` is ``{id, kind: model|tool|compact, attempt (>= 1), parent_id?}`` on
records about one call. A record of a named type not in that shape is not read as
what its type says (a ``model_exec_end`` whose data is a list would be a success with
no message): it is kept raw among the other records, and said by its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EXECUTION_KINDS = frozenset(("model", "tool", "compact"))
# The records about one call: each carries its call's execution.
NEEDS_EXECUTION = frozenset(
    (
        "model_request",
        "model_exec_end",
        "model_response",
        "tool_exec_start",
        "tool_invoke_start",
        "tool_exec_end",
        "retry",
    )
)


def execution_said(execution: Any) -> str | None:
    """What is wrong with an ``execution`` (None: nothing), in the writer's words."""
    if type(execution) is not dict and not isinstance(execution, Mapping):  # (dict: most)
        return "its execution is not an object"
    ident = execution.get("id")
    if type(ident) is not str or not ident:
        return "an execution needs an id"
    kind = execution.get("kind")
    if type(kind) is not str or kind not in EXECUTION_KINDS:  # (a list is no key)
        return f"execution kind must be one of {', '.join(sorted(EXECUTION_KINDS))}"
    attempt = execution.get("attempt")
    if type(attempt) is not int or attempt < 1:
        return "execution attempt must be an integer >= 1"
    parent = execution.get("parent_id")
    if parent is not None and (type(parent) is not str or not parent):
        return "execution parent_id must be a call id"
    return None


def well_shaped(kind: str, data: Any, run_id: Any, execution: Any) -> bool:
    """Whether a record of a named type (not session_start) is in its shape: a few type
    checks, asked of every record a view is fed."""
    if type(data) is not dict or type(run_id) is not str:
        return False
    if execution is None:
        if kind in NEEDS_EXECUTION:
            return False
    elif execution_said(execution) is not None:
        return False
    return kind != "message_end" or type(data.get("message")) is dict


def shape_said(record: Mapping[str, Any], line: int) -> str | None:
    """Why a record of a named type (not session_start) is not in its shape, said by its
    line (None: it is)."""
    kind = record.get("type")
    data = record.get("data")
    execution = record.get("execution")
    if type(kind) is not str:
        return None
    if kind == "message_end" and not (isinstance(data, dict) and type(data.get("message")) is dict):
        # (the words this case has always had)
        return (
            f"line {line}: a message_end without a message object: "
            "no message, kept raw among the other records"
        )
    if type(data) is not dict:
        why = "its data is not an object"
    elif type(record.get("run_id")) is not str:
        why = "it has no run_id" if record.get("run_id") is None else "its run_id is not a string"
    elif execution is None and kind in NEEDS_EXECUTION:
        why = "it has no execution"
    elif execution is not None and (said := execution_said(execution)) is not None:
        why = said
    else:
        return None
    return f"line {line}: a misshapen {kind} ({why}): kept raw among the other records"
