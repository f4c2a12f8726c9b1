"""A followed file no format claims: why, in the words every command says it, and the
view of it the screen shows (its lines alone, as they are: no format's rules applied;
an older writer's whole document, no lines: what it is alone)."""

from __future__ import annotations

from typing import NamedTuple

from session_core.errors import TranscriptError
from session_core.formats import detect_format
from session_core.model import Transcript
from session_core.tail_reader import AGAIN
from session_core.views import why_unclaimed


class Unclaimed(NamedTuple):
    """Why a file is no transcript, after its name, and whether it is an older writer's
    whole JSON document (``views.older_document``): no lines of it are records to show."""

    why: str
    document: bool = False


def not_a_transcript(where: str) -> Unclaimed | None:
    """Why the file at ``where`` is no transcript, as ``check`` says it, after the file's
    name ("is not a transcript: its first line is neither …", "is not a transcript: line
    1: is not valid JSON; …", "is a rollout of the TypeScript Codex CLI …"); None where a
    format claims it now, it is empty (a transcript not written yet) or it cannot be read
    (the follower says why)."""
    try:
        if detect_format(where) is not None:
            return None
        why = why_unclaimed(where)
        if why.empty:
            return None
        if why.document is not None:  # (what it is says it: no "not")
            return Unclaimed(f"is {why.document}", document=True)
        error = why.error()
    except (OSError, TranscriptError):
        return None
    said = error.reason if error.line is None else f"line {error.line}: {error.reason}"
    if not said.startswith("is not a transcript"):
        said = f"is not a transcript: {said}"
    return Unclaimed(said)


def unclaimed_view(read: Transcript, unclaimed: Unclaimed, why: str) -> Transcript:
    """What a file no format claims shows: its lines (``read``'s raw view, each kept as
    it is), and ``why`` as its warning, after a reset's (why it was read again from line
    1, as a format's screen keeps it); no format's warning, nothing replayed or counted.
    An older writer's document shows no lines (none is a record: its error alone)."""
    shown = not unclaimed.document
    return Transcript(
        format=read.format,
        path=read.path,
        raw=read.raw if shown else [],
        lines=read.lines if shown else 0,
        warnings=[*(w for w in read.warnings if w.endswith(AGAIN)), why],
        line_ends=read.line_ends if shown else None,
    )


__all__ = ["Unclaimed", "not_a_transcript", "unclaimed_view"]
