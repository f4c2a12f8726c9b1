"""A follower's held-back last line read as a line once its writer is gone
(``TailReader.settle``): where its format keeps a whole last line without its newline."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from .events import SPAN_BITS, SPAN_MAX
from .follow_update import FollowUpdate, parse_records
from .formats import by_name
from .indexing import head_record
from .line_warnings import settled_line
from .reader import is_blank
from .tail_problems import place, position

if TYPE_CHECKING:
    from .tail_reader import TailReader


def settle_held(tail: TailReader) -> FollowUpdate | None:
    """The held-back last line as a line read, its writer gone: where the file's format
    keeps a whole last line without its newline (``keeps_unended_line``, as its whole
    read does) and the line is whole (its records read as a complete line's are), or
    blank (no record, nothing said, as its whole read skips it). None where there is
    none, or it is not whole (a crash tail, still held back)."""
    held = (tail.complete, tail.offset)
    if not tail.partial or held == tail.refused:
        return None
    line = b"".join(tail.partial)
    raw = line.removesuffix(b"\r")
    if tail.format is None and not _held_decides(tail, raw):
        tail.refused = held
        return None
    assert tail.format is not None
    fmt = by_name(tail.format)
    said: list[str] = []
    records = parse_records(
        raw,
        tail.line + 1,
        said,
        mend=fmt.mends_lines,
        joins=fmt.joins_lines,
        blank_ok=fmt.blank_lines_ok,
    )
    blank = not records and not said  # (white space alone: a CR after a newline)
    if not fmt.keeps_unended_line or not (records or blank):
        tail.refused = held
        return None
    update = FollowUpdate(read=tail.reading)
    number = tail.line + 1
    span = tail.complete << SPAN_BITS | len(raw) if len(raw) <= SPAN_MAX else 0
    if not blank:  # (a blank line the whole read skips, saying nothing: so here)
        update.warnings.extend([*said, settled_line(number)])
        if tail.parse:
            update.envelopes.extend(records)
            update.lines.extend([number] * len(records))
            update.spans.extend([span if len(records) == 1 else 0] * len(records))
        else:
            update.raw.append(raw)
            update.lines.append(number)
            update.spans.append(span)
    tail.line = number
    tail.complete = tail.offset
    tail.partial = []
    tail.ending = line[-1:]
    update.offset = update.size = tail.offset
    update.caught_up = True
    update.format = tail.format
    update.source = tail.source
    return update


def settle_cut(tail: TailReader, update: FollowUpdate | None) -> FollowUpdate | None:
    """``update`` (the held line settled, or None), saying a compressed file's cut end as
    damage where its writer is gone and the warnings do not say it yet: a frame cut after
    the file was opened is being written (the banner alone says it) until then."""
    damage = tail.damage
    if damage is None:
        return update
    unsaid = damage != tail.damage_said
    if update is None:
        if not unsaid:
            return None
        at = position(tail, len(tail.unpacked or b""))  # (its size: what was unpacked)
        update = place(FollowUpdate(read=tail.reading), at)
        update.caught_up = True
    if unsaid:
        tail.damage_said = damage
        update.warnings.append(damage)
    update.problem = damage  # (what was read is shown, and why no more is: no more growing)
    return update


def _held_decides(tail: TailReader, raw: bytes) -> bool:
    """Whether the held line, whole, names the file's format (as ``detect_format`` reads
    an unended last line: a session-meta alone); it is the format then. One that names
    none leaves the head as it was (were it ended and read again: not taken twice)."""
    if tail.seen_first or is_blank(raw):
        return False
    head = copy.copy(tail.head)
    if not head.feed(head_record(raw)) or head.format is None:
        return False
    tail.head, tail.seen_first, tail.format = head, True, head.format
    return True


__all__ = ["settle_cut", "settle_held"]
