"""session_core: read, write, replay, repair, peek at and follow agent transcripts.

A headless library: it never imports a UI toolkit.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .errors import (
    InvalidLineError,
    RefusedAppendError,
    ReplayError,
    SessionClosedError,
    TranscriptError,
    WriterLockedError,
)
from .formats import FORMATS, TranscriptFormat, detect_format, register
from .indexing import allow_deep_values as _allow_deep_values
from .model import Transcript

# A value orjson reads can be nested 1,024 levels deep, past Python's default recursion
# limit: every read path, and a program's own ``str()`` of a value handed to it, must
# be able to walk it (raised, never lowered).
_allow_deep_values()


def open_transcript(path: str | os.PathLike[str]) -> Transcript:
    """A read-only replay of a file of any registered format, in the neutral model.

    Never writes. ``TranscriptError`` when the file cannot be read or no format claims it.
    """
    from .reader import path_of
    from .views import format_for

    where = path_of(path)  # (bytes: the file's name, for every format's reader)
    fmt = format_for(where)
    return fmt.open(where, writer_alive=fmt.writer_alive(where))


if TYPE_CHECKING:
    from .artifacts import artifact_dir, artifact_path, artifact_status, is_safe_basename
    from .codec import arguments_digest, canonical_arguments, canonical_json, data_digest
    from .follow_update import FollowUpdate
    from .following import follow
    from .live import LiveTranscript
    from .message import Message
    from .peeking import PeekResult, peek
    from .reader import replay_file
    from .replay import ReplayState
    from .session import Session

# Each name's module, imported when the name is first asked for: the viewer's start (and
# every read-only command) pays only for what it uses, not for the writer, the follower's
# asyncio or every format's peek.
_LAZY = {
    "FollowUpdate": "follow_update",
    "LiveTranscript": "live",
    "Message": "message",
    "PeekResult": "peeking",
    "ReplayState": "replay",
    "Session": "session",
    "arguments_digest": "codec",
    "artifact_dir": "artifacts",
    "artifact_path": "artifacts",
    "artifact_status": "artifacts",
    "canonical_arguments": "codec",
    "canonical_json": "codec",
    "data_digest": "codec",
    "follow": "following",
    "is_safe_basename": "artifacts",
    "peek": "peeking",
    "replay_file": "reader",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'session_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "FORMATS",
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
    "Transcript",
    "TranscriptError",
    "TranscriptFormat",
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
    "open_transcript",
    "peek",
    "register",
    "replay_file",
]
