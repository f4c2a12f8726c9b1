"""What ``follow`` hands on: one ``FollowUpdate`` a batch, and how a reader that asked for
raw lines parses one (``parse_line``: a line that is no JSON object said, never raised)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from .events import LineSource
from .formats import Format
from .indexing import concatenated, loads_mended
from .line_warnings import joined_warning, skipped_line
from .reader import is_blank, loads_line


@dataclass(slots=True)
class FollowUpdate:
    """Records completed since the last update, in file order."""

    envelopes: list[dict[str, Any]] = field(default_factory=list)
    reset: bool = False
    warnings: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # file line of each envelope (or raw line)
    # With ``follow(..., parse=False)``: the complete lines themselves, not parsed
    # (``envelopes`` stays empty); the reader parses each as it goes (``parse_line``),
    # so that no batch of parsed lines is ever alive at once. A line may be a view
    # into the block read: ``bytes(line)`` to keep one.
    raw: list[bytes | memoryview] = field(default_factory=list)
    # Where each envelope is in the file (offset << SPAN_BITS | length, 0 for a line too
    # long to say so), to be read again through ``source`` instead of being kept.
    spans: list[int] = field(default_factory=list)
    source: LineSource | None = None
    format: Format | None = None
    size: int = 0  # the file's size when this update was read
    offset: int = 0  # bytes consumed, the held-back partial line included
    held: int = 0  # bytes of that partial line: a last line without its newline (yet)
    held_line: int = 0  # its line number, where ``held``
    exists: bool = True
    problem: str | None = None  # the file is there and cannot be read now: why
    # ``problem`` is the file's end still being written (a zstd frame appended in part to a
    # file grown in place): said in the banner alone, no warning, no toast
    growing: bool = False
    # Warnings an earlier update said that stand no more: a compressed file's last frame,
    # cut when it was opened, read whole since (it was being written). A reader that keeps
    # the warnings drops these (``withdraw_from``), as a torn line that completes is not
    # warned of; one that printed them as they came may say they stand no more.
    withdrawn: list[str] = field(default_factory=list)
    caught_up: bool = True  # nothing more was readable when this was sent
    initial: bool = False  # the first update of a file (or of a reset)
    read: str = ""  # the file read: the path followed, or the compressed copy in its place

    def is_empty(self) -> bool:
        """Nothing a reader needs to act on (only the held-back partial line grew)."""
        return not (
            self.envelopes
            or self.raw
            or self.warnings
            or self.reset
            or self.initial
            or not self.exists
            or self.growing  # (the banner's news: its end is being written)
            or self.withdrawn
        )

    def withdraw_from(self, warnings: list[str]) -> None:
        """Take the warnings this update withdraws out of ``warnings`` (kept as said)."""
        for said in self.withdrawn:
            for at in range(len(warnings) - 1, -1, -1):  # (the last said: the latest)
                if warnings[at] == said:
                    del warnings[at]
                    break


def parse_line(
    raw: bytes, number: int, warnings: list[str], *, mend: bool = True, blank_ok: bool = True
) -> dict[str, Any] | None:
    """A line as a JSON object, or None (a warning said why; a blank line is skipped,
    said so too where it is no part of the format: ``blank_ok`` False, agentgo's).
    ``mend``: as the format reads a line orjson refuses (``TranscriptFormat.mends_lines``;
    v1's is read as its reference reads it, ``reader.loads_line``)."""
    records = parse_records(raw, number, warnings, mend=mend, blank_ok=blank_ok)
    return records[0] if records else None


def parse_records(
    raw: bytes,
    number: int,
    warnings: list[str],
    *,
    mend: bool = True,
    joins: bool = False,
    blank_ok: bool = True,
) -> list[dict[str, Any]]:
    """``parse_line``'s record as a list, and where the format ``joins_lines``, each
    record of a line of several with no line break between them (a warning says so)."""
    try:
        record = loads_mended(raw) if mend else loads_line(raw)
    except orjson.JSONDecodeError:
        records = concatenated(raw) if joins else None
        if records is not None:
            warnings.append(joined_warning(number, len(records)))
            return records
        if not is_blank(raw) or not blank_ok:
            warnings.append(skipped_line(number, raw))
        return []
    if type(record) is not dict:
        warnings.append(f"line {number} is not a JSON object, and was skipped")
        return []
    return [record]


__all__ = ["FollowUpdate", "parse_line", "parse_records"]
