"""The format registry: which formats tailscope reads, tried in order, and detection.

Every read path asks the registry, never a format name: ``format_of(path)`` (or
``by_name``) gives the ``TranscriptFormat`` that reads a file, and a file that no
registered format claims is "not a transcript" everywhere. Built-in formats are
registered here exactly as a plugin would register its own (``register``).
"""

from __future__ import annotations

import os
from typing import Any

from ..compressed import open_maybe_compressed
from ..errors import TranscriptError
from ..indexing import head_record
from ..reader import bom_length, is_blank
from ..vocabulary import check_words
from .base import LiveModel, TranscriptFormat
from .builders import Builder

Format = str  # a registered format's name
V1: Format = "transcript-v1"
AGENTGO: Format = "agentgo-v1"
CLAUDE_CODE: Format = "claude-code"
CODEX: Format = "codex"

FORMATS: list[TranscriptFormat] = []


def register(fmt: TranscriptFormat) -> TranscriptFormat:
    """Add a format (tried after those already registered); its name must be new, and
    its own words (``kind_words``, ``meta_keys``) of categories and facts there are."""
    if any(known.name == fmt.name for known in FORMATS):
        raise ValueError(f"a format named {fmt.name!r} is already registered")
    check_words(fmt)
    FORMATS.append(fmt)
    return fmt


def by_name(name: str) -> TranscriptFormat:
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    raise KeyError(f"no format named {name!r}; known: {', '.join(names())}")


def names() -> list[str]:
    return [fmt.name for fmt in FORMATS]


def not_a_transcript() -> str:
    """Why a file no format claims is not a transcript, naming what each format starts with."""
    hints = [fmt.first_line or f"a {fmt.title} line" for fmt in FORMATS]
    if len(hints) == 1:
        return f"its first line is not {hints[0]}"
    return f"its first line is neither {', '.join(hints[:-1])} nor {hints[-1]}"


def detect_record(record: Any, *, after_unknown: bool = False) -> Format | None:
    """The format a parsed first record belongs to, or None (``after_unknown``: a
    record after lines no format claimed, asked only of the formats that open so)."""
    if not isinstance(record, dict):
        return None
    for fmt in FORMATS:
        if (not after_unknown or fmt.opens_past_unknown_lines) and fmt.claims(record):
            return fmt.name
    return None


HEAD_LINES = 16  # lines of a type no format claims that may open a file before one it does


class HeadDetector:
    """A file's format from its first records, fed one at a time: the first record's
    format; or, where it and the next are objects of a type no format claims (a newer
    writer's bookkeeping), up to ``HEAD_LINES`` of them, the format that opens past such
    lines (``opens_past_unknown_lines``) and claims the first record after them."""

    def __init__(self, bom: bool = False) -> None:
        self.skipped = 0
        self.format: Format | None = None
        self.done = False
        # The file began with a byte order mark, read past: only a format that reads one
        # (``reads_bom``) claims it.
        self.bom = bom

    def feed(self, record: Any) -> bool:
        """Take the next record; True once the format is decided (``format``: None, no
        transcript)."""
        if self.done:
            return True
        self.format = detect_record(record, after_unknown=self.skipped > 0)
        if self.format is not None and self.bom and not by_name(self.format).reads_bom:
            self.format, self.done = None, True
            return True
        unknown = isinstance(record, dict) and isinstance(record.get("type"), str)
        if self.format is None and unknown and self.skipped < HEAD_LINES:
            self.skipped += 1
            return False
        self.done = True
        return True


def detect_records(records: Any, bom: bool = False) -> Format | None:
    """The format of a file whose first records (non-blank lines, parsed; a line that is
    no JSON as None) ``records`` yields: ``HeadDetector`` (``bom``: the file began with
    one, read past)."""
    head = HeadDetector(bom)
    for record in records:
        if head.feed(record):
            break
    return head.format


def of_another_format(
    path: str, err: TranscriptError, wanted: str, opener: str, does: str = "continues"
) -> TranscriptError:
    """``err`` (a writer's open, or a strict reader, refusing its first line), or, where
    the file is of another format, what it is and what reads it: "has envelope version
    None" said nothing of a Claude Code session given to ``Session.load``."""
    if err.line not in (None, 1):
        return err
    found = detect_format(path)
    if found is None or found == wanted:
        return err
    return TranscriptError(
        f"is {found}, not {wanted}: {opener} {does} {wanted} files alone "
        "(session_core.open_transcript reads every format)",
        path=path,
        line=err.line,  # (its first line: where the file says what it is)
    )


def detect_format(path: str | os.PathLike[str], limit: int = 1 << 24) -> Format | None:
    """Read the first complete non-blank lines (bounded) and name the format
    (``HeadDetector``: the first line's, or the first past a newer writer's)."""
    head = HeadDetector()
    try:
        with open_maybe_compressed(path) as fh:  # a .jsonl.zst is read as its lines
            buffered = b""
            first = True
            read = 0  # (bytes of lines: white space before them is skipped, not counted)
            while read < limit:
                block = fh.read(1 << 16)
                if not block:
                    break
                if first and (skip := bom_length(block)):  # (the file's first 3 bytes)
                    head.bom, block = True, block[skip:]
                first = False
                if not buffered and not (block := block.lstrip()):
                    continue
                read += len(block)
                buffered += block
                start = 0  # (lines found in place: a block of short ones is not copied
                while (end := buffered.find(b"\n", start)) >= 0:  # over and over)
                    line, start = buffered[start:end], end + 1
                    if not is_blank(line) and head.feed(head_record(line)):
                        return head.format
                buffered = buffered[start:]
            if not is_blank(buffered):
                head.feed(head_record(buffered))
            return head.format
    except (OSError, EOFError, ValueError, TypeError):  # (a NUL in the path; no path)
        return None


def format_of(path: str | os.PathLike[str]) -> TranscriptFormat | None:
    """The registered format that reads this file, or None (not a transcript)."""
    name = detect_format(path)
    return None if name is None else by_name(name)


def _register_builtins() -> None:
    from .agentgo import AgentGoFormat
    from .v1 import V1Format

    register(V1Format())
    register(AgentGoFormat())
    from .claude_code import ClaudeCodeFormat

    register(ClaudeCodeFormat())
    from .codex import CodexFormat

    register(CodexFormat())


_register_builtins()

__all__ = [
    "AGENTGO",
    "CLAUDE_CODE",
    "CODEX",
    "FORMATS",
    "HEAD_LINES",
    "V1",
    "Builder",
    "Format",
    "HeadDetector",
    "LiveModel",
    "TranscriptFormat",
    "by_name",
    "detect_format",
    "detect_record",
    "detect_records",
    "format_of",
    "names",
    "not_a_transcript",
    "of_another_format",
    "register",
]
