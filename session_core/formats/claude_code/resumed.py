"""A resumed session's copied lines: those before the file's first line of its own id.

``claude --resume`` / ``--continue`` starts a new file ``<newId>.jsonl`` with a copy of
the earlier session's lines (their uuids, responses and old ``sessionId``), then writes
the new lines with the new id (kenn-io/agentsview#307, ccusage#1765). The file's usage
counts the copies (they are its lines); this says how much of it they are, and whose.
A line of another id is a copy only where it comes before the first of the file's own:
a continuation file writes its new lines under the parent's id (claude-code#30606,
#87884), and a file none of whose lines carries its own id is no resume at all.

A fork (``/branch``, ``--fork-session``, 2.1.x) copies its parent's lines under its own
id, each naming its source (``forkedFrom``): the builder marks such a line with that
source's id, and such a line is a copy wherever it is, before or after a line of the
fork's own id (its ``permission-mode`` line can come first); a fork of copies alone, none
of its own lines yet, is still a fork: its lines say so.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from typing import TYPE_CHECKING, NamedTuple

from ...resumed import Resumed

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def own_session(path: str, marks: list[tuple[int, str]]) -> str | None:
    """The file's own session id: its name's stem where that is a UUID (Claude Code names a
    session's file so), else the id its last lines carry."""
    stem = os.path.basename(path).split(".", 1)[0]
    if _UUID.fullmatch(stem):
        return stem
    return marks[-1][1] if marks else None


class Copies(NamedTuple):
    """The file's own id and which of its ``session_marks`` begin copied lines (their
    indexes, in order)."""

    own: str
    marks: tuple[int, ...]


def copied_marks(b: ClaudeCodeBuilder) -> Copies | None:
    """Which of the file's ``session_marks`` are copies: those before the first of its own
    id (a resumed file's), and wherever they are, a fork's (their lines name their source,
    ``forkedFrom``: a fork's first line of its own id, a ``permission-mode`` line, can come
    before them). None where none is: not resumed (no line of another id before its own,
    or no line of its own id at all: a continuation written under the earlier session's
    id is all its own lines)."""
    marks = b.session_marks
    own = own_session(b.path, marks)
    if own is None:
        return None
    first = next((index for index, (_at, session) in enumerate(marks) if session == own), None)
    forked = b.forked_from
    if first is None:  # (no line of its own: all copies where its lines say so, a fork's)
        first = len(marks) if forked else 0
    copies = tuple(range(first))
    if forked:  # (a fork's: its copies' marks past its first own line too)
        sources = forked - {own}
        copies += tuple(i for i in range(first, len(marks)) if marks[i][1] in sources)
    return Copies(own, copies) if copies else None


def _copies_end(b: ClaudeCodeBuilder, mark: int) -> int:
    """The raw item where the lines marked by ``mark`` end: the next mark's, or the
    file's end."""
    marks = b.session_marks
    return marks[mark + 1][0] if mark + 1 < len(marks) else len(b.raw)


def copied_from(b: ClaudeCodeBuilder, raw_at: int, found: Copies | None) -> str | None:
    """The earlier session the file's raw item ``raw_at`` was copied from (None: the
    file's own); ``found``: ``copied_marks(b)`` (looked at once for many items)."""
    if found is None:
        return None
    marks = b.session_marks
    index = bisect_left(marks, (raw_at + 1,)) - 1  # (the last mark at or before it)
    if index < 0 or index > found.marks[-1]:
        return None
    copied = found.marks
    at = bisect_left(copied, index)
    return marks[index][1] if at < len(copied) and copied[at] == index else None


def resumed(b: ClaudeCodeBuilder) -> Resumed | None:
    """The copied lines' sessions and their responses' usage (None: not resumed,
    ``copied_marks``). Only the runs of copied lines are looked at: a file that is not
    resumed costs a look at its few marks."""
    found_marks = copied_marks(b)
    if found_marks is None:
        return None
    marks = b.session_marks
    # (the copies, once made, stay as they are: a followed resumed session is assembled
    # every 2 s, its copies counted once)
    spans = tuple((index, _copies_end(b, index)) for index in found_marks.marks)
    kept = b.resumed_kept
    if kept is not None and kept[0] == spans:
        return kept[1]
    responses, found = b.responses, Resumed(found_marks.own)
    for index, end in spans:
        start, session = marks[index]
        if session in b.forked_from:
            found.forked.add(session)
        first, past = bisect_left(responses.raw, start), bisect_left(responses.raw, end)
        order, by_order = responses.order, responses.by_order
        # (each response once, as the file's total counts it: not one another took the
        # place of)
        copied = [at for at in range(first, past) if by_order[order[at]] == at]
        usage = found.copied.get(session)
        folded = b.usage.fold(copied)
        if usage is None:
            found.copied[session] = folded
        else:
            usage.add(folded)
    b.resumed_kept = (spans, found)
    return found


__all__ = ["Copies", "copied_from", "copied_marks", "own_session", "resumed"]
