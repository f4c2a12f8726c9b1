"""session_core: read, write, replay, repair, peek at and follow agent transcripts.

A headless library: it never imports a UI toolkit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .artifacts import artifact_dir, artifact_path, artifact_status, is_safe_basename
from .codec import arguments_digest, canonical_arguments, canonical_json, data_digest
from .errors import (
    InvalidLineError,
    RefusedAppendError,
    ReplayError,
    SessionClosedError,
    TranscriptError,
    WriterLockedError,
)
from .formats import detect_format
from .message import Message
from .peeking import PeekResult, peek
from .reader import replay_file
from .replay import ReplayState
from .session import Session

if TYPE_CHECKING:
    from .following import FollowUpdate, follow
    from .live import LiveTranscript

# The follower needs asyncio; the read-only commands should not pay for importing it.
_LAZY = {"follow": "following", "FollowUpdate": "following", "LiveTranscript": "live"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'session_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "FollowUpdate",
    "InvalidLineError",
    "LiveTranscript",
    "Message",
    "PeekResult",
    "RefusedAppendError",
    "ReplayError",
    "ReplayState",
    "Session",
    "SessionClosedError",
    "TranscriptError",
    "WriterLockedError",
    "arguments_digest",
    "artifact_dir",
    "artifact_path",
    "artifact_status",
    "canonical_arguments",
    "canonical_json",
    "data_digest",
    "detect_format",
    "follow",
    "is_safe_basename",
    "peek",
    "replay_file",
]
