"""A big agentgo session's end, read backwards from the end of the file: its first screen.

The conversation is its committed messages (``message_end``). The last of them
are found by reading the file backwards in growing blocks and parsing only the
lines that can be one (a record's type is in its line: a line without
``message_end`` in it is never parsed), until enough are found or a budget of
bytes was read. What they refer to before the window (their runs' numbers, the
calls) is not known: the view is ``partial`` until the whole file is read.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from ..indexing import loads_mended
from ..reader import open_transcript
from .view import AgentGoView

WANT = 64  # committed messages: more than one screen of them
BUDGET = 64 << 20  # bytes read backwards at most
FIRST_BLOCK = 1 << 20


def read_tail(
    path: str | os.PathLike[str], want: int = WANT, budget: int = BUDGET
) -> tuple[AgentGoView, int]:
    """The last ``want`` committed messages (fewer when ``budget`` bytes hold fewer), in a
    partial view, and the file's size. Read-only; the unfinished last line is left out."""
    where = os.fspath(path)
    found: list[dict[str, Any]] = []  # the last first
    with open_transcript(where) as fh:
        fd = fh.fileno()
        size = os.fstat(fd).st_size
        pos = size
        head = b""  # the start of the line that began before ``pos`` (not complete yet)
        block = FIRST_BLOCK
        while pos > 0 and len(found) < want and size - pos < budget:
            step = min(block, pos)
            pos -= step
            chunk = os.pread(fd, step, pos) + head
            if pos > 0:
                cut = chunk.find(b"\n")
                if cut < 0:
                    head = chunk  # one line longer than what was read: read on
                    block *= 2
                    continue
                head, body = chunk[: cut + 1], chunk[cut + 1 :]
            else:
                head, body = b"", chunk
            lines = body.split(b"\n")
            lines.pop()  # after the last newline: the unfinished tail, or nothing
            for raw in reversed(lines):
                if b"message_end" not in raw:
                    continue
                try:
                    record = loads_mended(raw)
                except orjson.JSONDecodeError:
                    continue
                if type(record) is dict and record.get("type") == "message_end":
                    found.append(record)
                    if len(found) >= want:
                        break
            block = min(block * 2, 16 << 20)
    view = AgentGoView()
    view.partial = True
    for record in reversed(found):
        view.feed(record, 0)  # kept as they are: a few dozen; line numbers not known
    return view, size
