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
fork grows), and the file is read as before, said in a warning.

Only a fork pays: the two files are read once (again only while the copy is not written
whole), read-only, each up to the copy's end and one line past it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

import orjson

from ...compressed import open_maybe_compressed
from ...reader import open_regular
from ...resumed import short_id

if TYPE_CHECKING:
    from .turns import CodexTurns

PENDING, FOUND, APPLIED, UNTOLD = range(4)
_TURN_EVENTS = frozenset(("task_started", "turn_started", "user_message"))


class ForkCopy:
    """A fork's copy: its parent's thread, whether its end is known (``state``), and
    that end (the fork's last copied line)."""

    __slots__ = ("counted", "end", "parent", "state", "tried", "why")

    def __init__(self, parent: str) -> None:
        self.parent = parent
        self.state = PENDING
        self.end = 0
        self.counted = 0  # the last ``token_count``'s line taken before the copy's end known
        self.tried: int | None = None  # the fork file's size when last looked at
        self.why = ""  # UNTOLD: the warning's reason

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
    copy.tried = size
    # A parent not found or not readable stays PENDING: looked for again once the fork
    # grows (it may come, or be let read, as the fork is followed).
    parent = rollout_of(path, copy.parent)
    if parent is None:
        copy.why = "its file not found"
        return
    try:
        theirs = open_maybe_compressed(parent)
    except OSError as err:
        copy.why = f"its file could not be read ({err.strerror or type(err).__name__})"
        return
    try:
        with open_regular(path) as fork, theirs:
            end = copy_end(fork, theirs, copy.parent)
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


def copy_end(fork: IO[bytes], parent: IO[bytes], parent_id: str) -> int | None:
    """The fork's last copied line (0: not known yet; None: not told). ``fork``'s
    second line is the parent's copied header; from there each line not a
    ``session_meta`` is the parent's next one, until the fork point: the end is known
    only by a line of the fork's after it that is not the parent's next one (or by the
    parent's lines ending), never by where the fork's file ends so far."""
    ours = _records(fork)
    first = next(ours, None)
    second = next(ours, None)
    if first is None or second is None:
        return 0
    if not _meta_of(second[1], parent_id):
        return None
    end = second[0]
    theirs = (r for r in _records(parent) if not _is_meta(r[1]))
    for at, record in ours:
        if _is_meta(record):
            if end == at - 1:  # (a copied header of an older ancestor: the copy's)
                end = at
            continue
        mine = next(theirs, None)
        if mine is None:
            return end  # the parent's whole history is copied: the fork's own from here
        if mine[1] is _BAD:
            return None
        if record is _BAD or _item(record) != _item(mine[1]):
            return end if _fork_point(mine[1]) else None
        end = at
    # The fork's lines so far are all the parent's: its copy may still be being written
    # (Codex writes a line at a time), whatever the parent's next line is; only where the
    # parent has none left is the copy whole.
    return end if next(theirs, None) is None else 0


_BAD: dict[str, Any] = {}  # a line that is no JSON object


def _records(fh: IO[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each whole line (with its newline) that is not blank: its number and record."""
    for at, raw in enumerate(fh, 1):
        if not raw.endswith(b"\n"):
            return  # (not written whole yet)
        if not raw.strip():
            continue
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = _BAD
        yield at, record if isinstance(record, dict) else _BAD


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
