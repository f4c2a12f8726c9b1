"""A followed file no format claims: why, in the words every command says it, and the
view of it the screen shows (its lines alone, as they are: no format's rules applied)."""

from __future__ import annotations

from session_core.errors import TranscriptError
from session_core.formats import detect_format
from session_core.model import Transcript
from session_core.tail_reader import AGAIN
from session_core.views import blank_file, unclaimed


def not_a_transcript(where: str) -> str | None:
    """Why the file at ``where`` is no transcript, as ``check`` says it, after the file's
    name ("is not a transcript: its first line is neither …", "is not a transcript: line
    1: is not valid JSON; …"); None where a format claims it now, it is empty (a
    transcript not written yet) or it cannot be read (the follower says why)."""
    try:
        if detect_format(where) is not None or blank_file(where):
            return None
        error = unclaimed(where)
    except (OSError, TranscriptError):
        return None
    said = error.reason if error.line is None else f"line {error.line}: {error.reason}"
    return said if said.startswith("is not a transcript") else f"is not a transcript: {said}"


def unclaimed_view(read: Transcript, why: str) -> Transcript:
    """What a file no format claims shows: its lines (``read``'s raw view, each kept as
    it is), and ``why`` as its warning, after a reset's (why it was read again from line
    1, as a format's screen keeps it); no format's warning, nothing replayed or counted."""
    return Transcript(
        format=read.format,
        path=read.path,
        raw=read.raw,
        lines=read.lines,
        warnings=[*(w for w in read.warnings if w.endswith(AGAIN)), why],
        line_ends=read.line_ends,
    )


__all__ = ["not_a_transcript", "unclaimed_view"]
