"""The error hierarchy: every refusal and every bad file ends in a TranscriptError."""

from __future__ import annotations

import os

from .text import inert, name_line


class TranscriptError(Exception):
    """A transcript could not be read, replayed or written as asked.

    ``path`` and ``line`` (1-based) name where the problem is, when there is a where.
    """

    def __init__(
        self, message: str, *, path: str | os.PathLike[str] | None = None, line: int | None = None
    ) -> None:
        self.reason = message
        self.path = os.fspath(path) if path is not None else None
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        """The message, inert: a path or a reason may hold what the caller or the file
        gave (an escape sequence; a lone surrogate, which no stream can print), shown
        as ``text.inert`` and ``name_line`` show it. ``path`` and ``reason`` keep it."""
        reason = inert(self.reason)
        if self.path is not None and self.line is not None:
            return f"{name_line(self.path)}: line {self.line}: {reason}"
        if self.path is not None:
            return f"{name_line(self.path)}: {reason}"
        if self.line is not None:  # (a line of no named file: a session's own replay)
            return f"line {self.line}: {reason}"
        return reason


class InvalidLineError(TranscriptError):
    """A line is not a JSON envelope (malformed JSON, bad UTF-8, not an object, bad ``v``...)."""

    def __init__(
        self,
        message: str,
        *,
        path: str | os.PathLike[str] | None = None,
        line: int | None = None,
        raw: bytes = b"",
    ) -> None:
        self.raw = raw
        super().__init__(message, path=path, line=line)


class ReplayError(TranscriptError):
    """An envelope breaks a replay rule (a compaction naming nothing, a double settle...)."""


class RefusedAppendError(TranscriptError):
    """An ``append_*`` call was refused before anything was written."""


class SessionClosedError(TranscriptError):
    """An append on a closed session."""


class WriterLockedError(TranscriptError):
    """Another writer (process or ``Session``) already holds this transcript."""
