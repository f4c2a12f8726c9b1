"""session_core: read, write, replay, repair, peek at and follow agent transcripts.

A headless library: it never imports a UI toolkit.
"""

from __future__ import annotations

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
from .following import FollowUpdate, follow
from .formats import detect_format
from .live import LiveTranscript
from .message import Message
from .peeking import PeekResult, peek
from .reader import replay_file
from .replay import ReplayState
from .session import Session

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
