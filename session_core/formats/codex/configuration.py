"""Codex's ``configuration_update`` response item (``{type, reasoning: {effort}}``): a
change of the model's settings mid-conversation, sent as an input item so that the
request's own settings, and so its cached prefix, stay as they were.

Upstream writes it with its harness metadata beside the item, not in it (a rollout
line ``{type: response_item, payload: {...}, metadata: {...}}``; a compaction's history
in ``replacement_history_metadata``, one entry per item), and sends only the updates
the harness wrote itself (``metadata.harness_authored_configuration``:
``context_manager/history.rs``'s ``is_api_message``); any other is left out of every
request, kept in the raw view.
"""

from __future__ import annotations

from typing import Any

from ...json_out import compact_json

CONFIGURATION = "configuration_update"
# Where upstream keeps an item's harness metadata: beside its payload. A writer that put
# it inside instead is read as upstream reads it there: past it (no item has the key).
METADATA = "metadata"


def harness_authored(metadata: Any) -> bool:
    """Did the Codex harness write this configuration update itself (its envelope's
    metadata says ``harness_authored_configuration: true``)?"""
    return isinstance(metadata, dict) and metadata.get("harness_authored_configuration") is True


def configuration_said(payload: dict[str, Any], sent: bool) -> str:
    """``[configuration: reasoning effort high]``; one not sent says so (the rest of it,
    and its metadata, in its line)."""
    reasoning = payload.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
    if isinstance(effort, str):
        what = f"reasoning effort {effort}"
    else:  # (a shape not seen: what it says, as written)
        what = compact_json({k: v for k, v in payload.items() if k not in ("type", METADATA)})
    said = f"[configuration: {what}]"
    return said if sent else f"{said} (not sent: not written by the Codex harness)"


def without_metadata(payload: dict[str, Any]) -> dict[str, Any]:
    """A payload as upstream reads it: a ``metadata`` key in it ignored."""
    if METADATA not in payload:
        return payload
    return {k: v for k, v in payload.items() if k != METADATA}


__all__ = [
    "CONFIGURATION",
    "METADATA",
    "configuration_said",
    "harness_authored",
    "without_metadata",
]
