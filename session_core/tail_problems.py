"""What a follower (``TailReader``) says of a file it cannot read: gone, no regular file,
not to be opened or read. Each such update says where reading stands, as the last one
that read did (``position``): a reader keeps what was read, whose size, held line and
resume offset are no 0 for a file that could not be looked at."""

from __future__ import annotations

import stat
from typing import TYPE_CHECKING, NamedTuple

from .events import LineSource
from .follow_update import FollowUpdate
from .formats import Format

if TYPE_CHECKING:
    from .tail_reader import TailReader


class Position(NamedTuple):
    """Where a reader stands, as its last update that read said."""

    offset: int
    size: int
    held: int
    held_line: int
    format: Format | None
    source: LineSource | None


def position(tail: TailReader, size: int | None = None) -> Position:
    """Where ``tail`` stands now (taken before a restart: where it stood); its size the
    last said, or ``size`` (a compressed file's: what was unpacked), at least the offset."""
    held = tail.offset - tail.complete
    size = max(tail.size_said if size is None else size, tail.offset)
    return Position(tail.offset, size, held, tail.line + 1 if held else 0, tail.format, tail.source)


def place(update: FollowUpdate, at: Position) -> FollowUpdate:
    """``update``, saying it stands ``at``: every field of a position set here alone, so
    that each update placed without a read (``complain``, ``tail_settle.settle_cut``)
    says the same ones."""
    update.offset, update.size, update.held, update.held_line = at[:4]
    update.format, update.source = at.format, at.source
    return update


def complain(
    tail: TailReader, update: FollowUpdate, text: str, at: Position | None = None
) -> FollowUpdate | None:
    """Report an unreadable file once, not on every poll (each update says it stands),
    placed where reading stands (``at``: where it stood before a restart)."""
    place(update, at or position(tail))
    update.problem = text
    if text == tail.problem:
        return update if not update.is_empty() else None
    tail.problem = text
    update.warnings.append(text)
    return update


def vanish(tail: TailReader, update: FollowUpdate) -> FollowUpdate | None:
    """The file is not there: said once, the reader started again (a reset: a file
    there again is read from line 1)."""
    if tail.vanished:
        return None
    tail.restart()
    tail.vanished = True
    tail.started = True
    tail.problem = None
    update.exists = False
    update.reset = True
    update.initial = True
    # ("any more" only of a file that was there: a path named before its writer has
    # started is not there yet)
    when = "any more" if tail.existed else "yet"
    update.warnings.append(f"{tail.path} does not exist {when}; waiting for it")
    return update


def not_a_file(tail: TailReader, update: FollowUpdate, mode: int) -> FollowUpdate | None:
    """A directory, FIFO, socket or device: never opened (a FIFO's open would block).
    In place of a file read: what was read stands (no reset) until a file that can
    be read is there, which is read from line 1 then."""
    tail.started = True
    tail.vanished = False
    # (in the place of a file read, open or gone first: what was read is shown still)
    was = "was replaced by" if tail.fd is not None or tail.existed else "is"
    said = f"{tail.path} {was} {_kind(mode)}, not a regular file"
    if stat.S_ISFIFO(mode):  # (never opened: what reads a pipe is said, as the CLI says it)
        said += "; `-` reads a pipe, as standard input (`tailscope - < PIPE`)"
    return complain(tail, update, f"{said}; waiting for one")


def unreadable(
    tail: TailReader, update: FollowUpdate, why: str, reason: str
) -> FollowUpdate | None:
    """The file at the path (``why``: it cannot be opened) is not the one read, for
    ``reason``. A file read before stands as read (no reset: nothing of it is thrown
    away for a file not read) until this one can be read: its reset comes then, and
    says it can be read now."""
    tail.started = True
    if tail.fd is not None:
        tail.blocked = True
        return complain(tail, update, f"{why}; {reason}" if reason else why)
    return complain(tail, update, why)


def _kind(mode: int) -> str:
    """What a path that is no regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe (a FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


__all__ = ["Position", "complain", "not_a_file", "place", "position", "unreadable", "vanish"]
