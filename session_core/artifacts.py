"""Artifacts: oversized tool results kept in ``<stem>.artifacts/<file>`` beside a transcript."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

from .codec import content_digest
from .errors import TranscriptError
from .text import as_written

if TYPE_CHECKING:
    import regex


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
        raise TranscriptError(
            f"refusing artifact name {as_written(name)}: it is not a plain file name"
        )
    assert isinstance(name, str)
    return os.path.join(artifact_dir(transcript), name)


@dataclass(frozen=True, slots=True)
class ArtifactStatus:
    state: Literal["here", "missing", "refused", "unreadable"]
    path: str | None
    detail: str


# Each state in words, as every surface says it beside an artifact's name (the viewer's
# operation detail and artifact screen, the exports): one rule, one set of words.
REFUSED = "refused: not a plain file name"
MISSING = "not here any more"
ARTIFACT_SAID = {
    "here": "here",
    "missing": MISSING,
    "refused": REFUSED,
    "unreadable": "cannot be read",
}


def artifact_status(transcript: str | os.PathLike[str], name: object) -> ArtifactStatus:
    """Whether an artifact can be shown; a missing file is "not here any more", never an error."""
    try:
        where = artifact_path(transcript, name)
    except TranscriptError as err:
        return ArtifactStatus("refused", None, err.reason)
    if not os.path.isfile(where):
        return ArtifactStatus("missing", where, MISSING)
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


# Characters are graphemes, as the reference module counts them (Raku's ``.chars``):
# an excerpt never cuts between a letter and its combining accent, inside an emoji's
# sequence, or between the CR and the LF of a CRLF.
@cache
def _grapheme() -> regex.Pattern[str]:
    import regex  # only text that is not plain ASCII needs it (and start-up does not)

    return regex.compile(r"\X")


def grapheme_count(text: str) -> int:
    """How many characters ``text`` holds, counted as the reference counts them."""
    if text.isascii():  # in ASCII only a CRLF is two code points to one grapheme
        return len(text) - text.count("\r\n")
    return int(_grapheme().subn("", text)[1])


def _grapheme_start(text: str, n: int) -> int:
    """The index in ``text`` where its grapheme number ``n`` (from 0) starts."""
    if n <= 0:
        return 0
    if text.isascii() and "\r\n" not in text:
        return min(n, len(text))
    rest = _grapheme().subn("", text, count=n)[0]
    return len(text) - len(rest)


def elided_chars(chars: int, limit: int) -> int:
    """How many characters an excerpt of ``limit`` leaves out of ``chars``."""
    return chars - limit if limit > 0 and chars > limit else 0


def _commify(n: int) -> str:
    return f"{n:,}"


def stored_marker(elided: int, file: str, size: int, digest: str) -> str:
    """The marker line of a result whose full bytes are in the artifact ``file``."""
    return (
        f"[... elided {_commify(elided)} chars ({_commify(size)} bytes total); "
        f"full result: {file} sha256 {digest} ...]"
    )


def unstored_marker(elided: int, size: int, digest: str, why: str = "not stored") -> str:
    """The marker line of a result that could not be stored (no transcript, a failed
    write): it says so rather than naming a file nobody can open."""
    return (
        f"[... elided {_commify(elided)} chars ({_commify(size)} bytes total); "
        f"full result {why}, sha256 {digest} ...]"
    )


def excerpt(content: str, limit: int, marker: str) -> str:
    """First ¾ of ``limit`` characters, the marker on a line of its own, the last ¼.

    ``content`` of ``limit`` characters or fewer comes back unchanged."""
    if limit <= 0 or len(content) <= limit:  # never more graphemes than code points
        return content
    return _cut(content, grapheme_count(content), limit, marker)


def _cut(content: str, chars: int, limit: int, marker: str) -> str:
    if limit <= 0 or chars <= limit:
        return content
    head = -(-limit * 3 // 4)
    tail = limit - head
    end = content[_grapheme_start(content, chars - tail) :] if tail > 0 else ""
    return content[: _grapheme_start(content, head)] + "\n" + marker + "\n" + end


_SAFE_NAME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def sanitise_name(op_id: str) -> str:
    """The artifact's file name for an operation id: every character (grapheme) but
    ASCII letters, digits, ``_``, ``.`` and ``-`` made ``_``, as the reference does."""
    if not all(c in _SAFE_NAME for c in op_id):
        op_id = _grapheme().sub(lambda m: m[0] if m[0] in _SAFE_NAME else "_", op_id)
    return op_id or "artifact"


def store_artifact(
    transcript: str | os.PathLike[str], op_id: str, content: str, limit: int
) -> tuple[str, dict[str, object]]:
    """Write the full result as an artifact; return (the excerpt for the model, artifact record).

    For a result of more than ``limit`` characters (``grapheme_count``), as the
    reference stores one; a write that fails raises ``OSError`` (the reference's loop
    then gives the model ``excerpt`` with an ``unstored_marker``)."""
    name = sanitise_name(op_id) + ".txt"
    folder = artifact_dir(transcript)
    os.makedirs(folder, exist_ok=True)
    data = content.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as fh:
        fh.write(data)
    digest = content_digest(content)
    chars = grapheme_count(content)
    elided = elided_chars(chars, limit)
    record: dict[str, object] = {
        "file": name,
        "digest": digest,
        "bytes": len(data),
        "chars": chars,
        "elided-chars": elided,
    }
    return _cut(content, chars, limit, stored_marker(elided, name, len(data), digest)), record
