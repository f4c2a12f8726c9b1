"""The records an agentgo view lists, kept where they are to be read again: checkpoints
and committed messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .messages import SentShape, message_lines
from .records import Records


@dataclass(slots=True, eq=False)
class Stored:
    """A record the view lists (a checkpoint, a committed message): its facts, and
    where it is kept to be read again."""

    seq: int
    line: int
    run_id: str
    time: str
    store: Records
    at: int  # the record's index in ``store``


@dataclass(slots=True, eq=False)
class Checkpoint(Stored):
    shape: tuple[str, tuple[str, ...], int]  # ``snapshot_shape`` of the snapshot

    @property
    def snapshot(self) -> Any:
        return self.store.data(self.at).get("snapshot")


@dataclass(slots=True, eq=False)
class Committed(Stored):
    """A committed conversation message (message_end)."""

    # The model call (its index in the view's ``call_order``) whose ``model_exec_end``
    # reported this message's usage, where the message reports none of its own; -1: none.
    usage_call: int = -1
    # What ``agentgo.folds`` tells first whether a request may hold it by (``sent_shape``),
    # taken as it is fed; its key (``sent_key``) is read again only where one may.
    # None: not taken (every request may hold it).
    shape: SentShape | None = None

    @property
    def message(self) -> dict[str, Any]:
        message = self.store.data(self.at).get("message")
        return message if isinstance(message, dict) else {}

    @property
    def lines(self) -> int:
        """``message_lines`` of the message, up to LINES_COUNTED: read again when asked
        (no read path asks: the neutral model measures its items' parts)."""
        return message_lines(self.message)


def snapshot_shape(snapshot: Any) -> tuple[str, tuple[str, ...], int]:
    """(type name, its first 7 keys for an object, its length): what a table row says."""
    if isinstance(snapshot, dict):
        keys: list[str] = []
        for key in snapshot:
            if len(keys) == 7:
                break
            keys.append(key)
        return "dict", tuple(keys), len(snapshot)
    if isinstance(snapshot, list):
        return "list", (), len(snapshot)
    return type(snapshot).__name__, (), 0


__all__ = ["Checkpoint", "Committed", "Stored", "snapshot_shape"]
