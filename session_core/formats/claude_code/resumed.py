"""A resumed session's copied lines: those whose ``sessionId`` is not the file's own.

``claude --resume`` / ``--continue`` starts a new file ``<newId>.jsonl`` with a copy of
the earlier session's lines (their uuids, responses and old ``sessionId``), then writes
the new lines with the new id (kenn-io/agentsview#307, ccusage#1765). The file's usage
counts the copies (they are its lines); this says how much of it they are, and whose.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from typing import TYPE_CHECKING

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


def resumed(b: ClaudeCodeBuilder) -> Resumed | None:
    """The copied lines' sessions and their responses' usage (None: no line is another
    session's). Only the runs of lines of another id are looked at: a file that is not
    resumed costs a look at its one mark."""
    marks = b.session_marks
    own = own_session(b.path, marks)
    if own is None or all(session == own for _at, session in marks):
        return None
    # (kept while the file's own lines go on: a followed resumed session is assembled
    # every 2 s, its copies long done; made again while the copies are still coming)
    key = (len(marks), marks[-1][0])
    kept = b.resumed_kept
    if kept is not None and kept[0] == key and marks[-1][1] == own:
        return kept[1]
    responses, found = b.responses, Resumed(own)
    for index, (start, session) in enumerate(marks):
        if session == own:
            continue
        end = marks[index + 1][0] if index + 1 < len(marks) else len(b.raw)
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
    b.resumed_kept = (key, found)
    return found


__all__ = ["own_session", "resumed"]
