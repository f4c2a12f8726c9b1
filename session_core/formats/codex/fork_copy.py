"""A fork's copy of its parent's history, told by the parent's own file.

A Codex fork's rollout starts with its own ``session_meta`` (``forked_from_id``: the
parent's thread), then the parent's history as Codex copies it (the parent's
``session_meta`` and its lines up to the fork point, each written with the time of the
copy), then the fork's own lines. Codex starts the fork's token count from the parent's
last, so its totals go on from the parent's, and nothing in the file marks where the copy
ends. Where the parent's rollout is found (``tree.rollout_of``: the fork's folder, then
the earlier days' of its ``sessions`` tree), the copy is the fork's lines after its own
header that are the parent's, line for line, by type and payload (``session_meta`` lines
left out on both sides, as upstream's own fork test compares them); it ends where the
parent's lines end, or where the parent goes on with a new turn or prompt (the fork
point). A difference inside a turn is no fork point: the copy is then not told (nor is it
where the parent is not found or cannot be read, until it is: looked for again as the
fork grows), and the file is read as before, said in a warning. A paginated subagent's
rollout (0.15x) says where its copy ends itself, and its parent's file is not looked for
(``ForkCopy.marked``).

Only a fork pays: the two files are read once, read-only, each up to the copy's end and
one line past it (while the copy is being written, each look goes on from where the last
left off: ``Mark``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

import orjson

from ...compressed import open_maybe_compressed
from ...reader import open_regular
from ...resumed import short_id

if TYPE_CHECKING:
    from .turns import CodexTurns

PENDING, FOUND, APPLIED, UNTOLD = range(4)
# A parent not found is looked for again at most this often while a fork is followed (a
# tree's folders listed again: a live fork grows many times a second).
SEARCH_AGAIN = 2.0
# Where a look left off with the fork's lines so far all the parent's: the fork's and the
# parent's byte offsets past the last lines compared, the fork's line there, the end so far.
Mark = tuple[int, int, int, int]
_TURN_EVENTS = frozenset(("task_started", "turn_started", "user_message"))


class ForkCopy:
    """A fork's copy: its parent's thread, whether its end is known (``state``), and
    that end (the fork's last copied line)."""

    __slots__ = ("counted", "end", "mark", "parent", "searched", "state", "tried", "why")

    def __init__(self, parent: str) -> None:
        self.parent = parent
        self.state = PENDING
        self.end = 0
        self.counted = 0  # the last ``token_count``'s line taken before the copy's end known
        self.tried: int | None = None  # the fork file's size when last looked at
        self.why = ""  # UNTOLD: the warning's reason
        self.mark: Mark | None = None
        self.searched: float | None = None  # when its parent was last looked for, not found

    @classmethod
    def marked(cls, parent: str, end: int) -> ForkCopy:
        """A copy whose end the file says itself: a paginated subagent's header names the
        ordinal its own history starts at (``subagent_history_start_ordinal``), and
        ordinals count the file's lines from 0, so its last copied line is ``end``."""
        copy = cls(parent)
        copy.state, copy.end = FOUND, end
        return copy

    def warning(self) -> str | None:
        """What the file's reading says of the copy where it is not told (yet)."""
        if self.state not in (PENDING, UNTOLD) or not self.why:
            return None
        return (
            f"forked from {short_id(self.parent)}: {self.why}, the copied turns read as "
            "this file's own (their usage in its total, and in the parent's file)"
        )


def before_count(b: CodexTurns, line: int) -> None:
    """Before a ``token_count`` at ``line`` is taken: past the copy's end, the counts
    so far are the parent's (``apply``)."""
    copy = b.fork_copy
    if copy is None or copy.state >= APPLIED:
        return
    if copy.state == PENDING:
        look(b.path, copy)
    if copy.state == FOUND and line > copy.end:
        apply(b, copy)
    else:
        copy.counted = line


def settle(b: CodexTurns) -> None:
    """At a snapshot: once the copy is fed whole, its counts are the parent's."""
    copy = b.fork_copy
    if copy is None or copy.state >= APPLIED:
        return
    if copy.state == PENDING:
        look(b.path, copy)
    if copy.state == FOUND and b.lines >= copy.end:
        apply(b, copy)


def apply(b: CodexTurns, copy: ForkCopy) -> None:
    """The copy ended: its usage is the parent's (as where a fork's count starts from 0)."""
    copy.state = APPLIED
    b.tally.parents_copied()
    b._parents_history(through=copy.end)


def look(path: str, copy: ForkCopy) -> None:
    """Find the parent's rollout and the copy's end (``copy.state`` says what came of it)."""
    from .tree import rollout_of

    try:
        size = os.stat(path).st_size
    except OSError:
        size = -1
    if size == copy.tried:
        return  # (as it was when looked at: not read again)
    # A parent not found or not readable stays PENDING: looked for again once the fork
    # grows (it may come, or be let read, as the fork is followed), not more often than
    # every ``SEARCH_AGAIN`` seconds.
    now = time.monotonic()
    if copy.searched is not None and now - copy.searched < SEARCH_AGAIN:
        return  # (``tried`` kept: looked at again with the next growth past it)
    copy.tried = size
    parent = rollout_of(path, copy.parent)
    if parent is None:
        copy.why, copy.searched = "its file not found", now
        return
    copy.searched = None
    try:
        theirs = open_maybe_compressed(parent)
    except OSError as err:  # (found, not let read: looked for again as one not found)
        copy.why = f"its file could not be read ({err.strerror or type(err).__name__})"
        copy.searched = now
        return
    try:
        with open_regular(path) as fork, theirs:
            end, copy.mark = copy_end(fork, theirs, copy.parent, copy.mark)
    except OSError:
        end = None
    if end is None:
        copy.state, copy.why = UNTOLD, "where its copy ends could not be told"
    elif end > 0 and end >= copy.counted:
        copy.state, copy.end = FOUND, end
    elif end > 0:  # (found once the fork was followed past its copy: its counts taken)
        copy.state, copy.why = UNTOLD, "its file found late (open this one again to tell it)"
    else:  # (looked at again once the file grows)
        copy.why = "where its copy ends is not told yet"


def copy_end(
    fork: IO[bytes], parent: IO[bytes], parent_id: str, mark: Mark | None = None
) -> tuple[int | None, Mark | None]:
    """The fork's last copied line (0: not known yet; None: not told), and where this
    look left off where it is not known yet (``mark``: the last one's, gone on from).
    ``fork``'s second line is the parent's copied header; from there each line not a
    ``session_meta`` is the parent's next one, until the fork point: the end is known
    only by a line of the fork's after it that is not the parent's next one (or by the
    parent's lines ending), never by where the fork's file ends so far."""
    if mark is None:
        ours = _records(fork, 0, 0)
        first = next(ours, None)
        second = next(ours, None)
        if first is None or second is None:
            return 0, None
        if not _meta_of(second[1], parent_id):
            return None, None
        mark = (second[2], second[0], 0, second[0])
    else:
        fork.seek(mark[0])
        _skip(parent, mark[2])
        ours = _records(fork, mark[0], mark[1])
    end = mark[3]
    theirs = (r for r in _records(parent, mark[2], 0) if not _is_meta(r[1]))
    for at, record, past in ours:
        if _is_meta(record):
            if end == at - 1:  # (a copied header of an older ancestor: the copy's)
                end = at
            mark = (past, at, mark[2], end)
            continue
        mine = next(theirs, None)
        if mine is None:
            return end, None  # the parent's whole history is copied: the fork's own from here
        if mine[1] is _BAD:
            return None, None
        if record is _BAD or _item(record) != _item(mine[1]):
            return (end if _fork_point(mine[1]) else None), None
        end = at
        mark = (past, at, mine[2], end)
    # The fork's lines so far are all the parent's: its copy may still be being written
    # (Codex writes a line at a time), whatever the parent's next line is; only where the
    # parent has none left is the copy whole.
    return (end, None) if next(theirs, None) is None else (0, mark)


_BAD: dict[str, Any] = {}  # a line that is no JSON object


def _records(fh: IO[bytes], offset: int, line: int) -> Iterator[tuple[int, dict[str, Any], int]]:
    """Each whole line (with its newline) that is not blank, from byte ``offset`` (after
    line ``line``): its number, its record and the byte offset past it."""
    for at, raw in enumerate(fh, line + 1):
        if not raw.endswith(b"\n"):
            return  # (not written whole yet)
        offset += len(raw)
        if not raw.strip():
            continue
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = _BAD
        yield at, record if isinstance(record, dict) else _BAD, offset


def _skip(fh: IO[bytes], size: int) -> None:
    """``fh`` read on from byte ``size`` (a compressed file's bytes read past)."""
    if fh.seekable():
        fh.seek(size)
        return
    while size > 0:
        got = fh.read(min(size, 1 << 20))
        if not got:
            return
        size -= len(got)


def _is_meta(record: dict[str, Any]) -> bool:
    return record.get("type") == "session_meta"


def _meta_of(record: dict[str, Any], thread: str) -> bool:
    payload = record.get("payload")
    return _is_meta(record) and isinstance(payload, dict) and payload.get("id") == thread


def _item(record: dict[str, Any]) -> tuple[Any, Any]:
    """What a copy keeps of a line: its type and payload (its time is the copy's)."""
    return record.get("type"), record.get("payload")


def _fork_point(record: dict[str, Any]) -> bool:
    """A parent's line a fork's copy can end before: a new turn or a prompt's."""
    kind, payload = _item(record)
    if kind == "turn_context":
        return True
    if not isinstance(payload, dict):
        return False
    if kind == "event_msg":
        return payload.get("type") in _TURN_EVENTS
    return (
        kind == "response_item"
        and payload.get("type") == "message"
        and payload.get("role") == "user"
    )


__all__ = ["ForkCopy", "before_count", "copy_end", "settle"]
