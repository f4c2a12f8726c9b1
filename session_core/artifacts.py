"""Artifacts: oversized tool results kept in ``<stem>.artifacts/<file>`` beside a transcript."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from .codec import content_digest
from .errors import TranscriptError


def artifact_dir(transcript: str | os.PathLike[str]) -> str:
    """``<stem>.artifacts`` beside the transcript (stem: the name less its last extension)."""
    where = os.fspath(transcript)
    folder, name = os.path.split(where)
    stem, ext = os.path.splitext(name)
    return os.path.join(folder, (stem if ext else name) + ".artifacts")


def is_safe_basename(name: object) -> bool:
    """A plain file name: no separator, no ``..``, not absolute, not empty, no NUL."""
    if not isinstance(name, str) or not name or name in (".", ".."):
        return False
    if "/" in name or "\\" in name or "\x00" in name or ".." in name:
        return False
    return not os.path.isabs(name)


def artifact_path(transcript: str | os.PathLike[str], name: object) -> str:
    """Where the artifact ``name`` lives; a ``TranscriptError`` for anything but a basename."""
    if not is_safe_basename(name):
        raise TranscriptError(f"refusing artifact name {name!r}: it is not a plain file name")
    assert isinstance(name, str)
    return os.path.join(artifact_dir(transcript), name)


@dataclass(frozen=True, slots=True)
class ArtifactStatus:
    state: Literal["here", "missing", "refused", "unreadable"]
    path: str | None
    detail: str


def artifact_status(transcript: str | os.PathLike[str], name: object) -> ArtifactStatus:
    """Whether an artifact can be shown; a missing file is "not here any more", never an error."""
    try:
        where = artifact_path(transcript, name)
    except TranscriptError as err:
        return ArtifactStatus("refused", None, err.reason)
    if not os.path.isfile(where):
        return ArtifactStatus("missing", where, "not here any more")
    if not os.access(where, os.R_OK):
        return ArtifactStatus("unreadable", where, "cannot be read (permission denied)")
    return ArtifactStatus("here", where, f"{os.path.getsize(where)} bytes")


def read_artifact(
    transcript: str | os.PathLike[str], name: object, limit: int | None = None
) -> str | None:
    """The artifact's text (at most ``limit`` bytes), or None when it is not here any more."""
    where = artifact_path(transcript, name)
    try:
        with open(where, "rb") as fh:
            data = fh.read() if limit is None else fh.read(limit)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise TranscriptError(f"cannot read the artifact: {err.strerror}", path=where) from None
    return data.decode("utf-8", "replace")


def _commify(n: int) -> str:
    return f"{n:,}"


def stored_marker(elided: int, file: str, size: int, digest: str) -> str:
    return (
        f"[... elided {_commify(elided)} chars ({_commify(size)} bytes total); "
        f"full result: {file} sha256 {digest} ...]"
    )


def excerpt(content: str, limit: int, marker: str) -> str:
    """First ¾ of ``limit`` chars, the marker on a line of its own, the last ¼."""
    if limit <= 0 or len(content) <= limit:
        return content
    head = -(-limit * 3 // 4)
    tail = limit - head
    end = content[-tail:] if tail > 0 else ""
    return content[:head] + "\n" + marker + "\n" + end


def sanitise_name(op_id: str) -> str:
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "_" for c in op_id)
    return safe or "artifact"


def store_artifact(
    transcript: str | os.PathLike[str], op_id: str, content: str, limit: int
) -> tuple[str, dict[str, object]]:
    """Write the full result as an artifact; return (the excerpt for the model, artifact record)."""
    name = sanitise_name(op_id) + ".txt"
    folder = artifact_dir(transcript)
    os.makedirs(folder, exist_ok=True)
    data = content.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as fh:
        fh.write(data)
    digest = content_digest(content)
    elided = max(0, len(content) - limit) if limit > 0 else 0
    record: dict[str, object] = {
        "file": name,
        "digest": digest,
        "bytes": len(data),
        "chars": len(content),
        "elided-chars": elided,
    }
    return excerpt(content, limit, stored_marker(elided, name, len(data), digest)), record
