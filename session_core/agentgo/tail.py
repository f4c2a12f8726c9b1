"""A big agentgo session's end, read backwards from the end of the file: its first screen.

The conversation is its committed messages (``message_end``). The last of them
are found by reading the file backwards in growing blocks, until enough are found or
a budget of bytes was read; with them, every other record of the window that is a row
of the raw view as the whole read makes it (``makes_a_row``: of a type the reader does
not know, misshapen, a run's ``agent_end`` that may say its loop failed), so the
first screen shows what the whole read shows there and ends at the same time. A
line with ``message_end`` in it is parsed; another only for its envelope, its data
not built (a big one's, ``skim_envelope``), and parsed whole if it makes a row.
What they refer to before the window (their runs' numbers, the calls) is not known:
the view is ``partial`` until the whole file is read.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from ..indexing import loads_mended
from ..reader import open_transcript
from ..text import as_str
from .reader import SKIM_OVER, skim_envelope
from .shape import well_shaped
from .view import KNOWN_TYPES, AgentGoView

WANT = 64  # committed messages: more than one screen of them
BUDGET = 64 << 20  # bytes read backwards at most
FIRST_BLOCK = 1 << 20
_OWN_ROWS = frozenset(("message_end", "agent_end"))  # (a failed run's row: its agent_end's)


def makes_a_row(kind: str, data: Any, run_id: Any, execution: Any) -> bool:
    """Whether a record of type ``kind`` is (or may be, an ``agent_end``) a row of the raw
    view, as ``AgentGoView.feed`` takes it: a message, a run's failure, a record kept raw
    (of a type it does not know, or misshapen: ``well_shaped``)."""
    if kind in _OWN_ROWS:
        return True
    if kind not in KNOWN_TYPES:
        return True
    return kind != "session_start" and not well_shaped(kind, data, run_id, execution)


def _row(raw: bytes) -> dict[str, Any] | None:
    """A line's record if it makes a row (None: it does not, or it is no JSON object).
    A big line not about a message is parsed whole only if its envelope says it may."""
    if len(raw) > SKIM_OVER and b"message_end" not in raw:
        said = skim_envelope(raw)
        if said is not None:
            kind, run_id, execution, data_is_object = said
            if not makes_a_row(as_str(kind), {} if data_is_object else None, run_id, execution):
                return None
    try:
        record = loads_mended(raw)
    except orjson.JSONDecodeError:
        return None
    if type(record) is not dict:
        return None
    data, run_id, execution = record.get("data"), record.get("run_id"), record.get("execution")
    return record if makes_a_row(as_str(record.get("type")), data, run_id, execution) else None


def read_tail(
    path: str | os.PathLike[str], want: int = WANT, budget: int = BUDGET
) -> tuple[AgentGoView, int]:
    """The last ``want`` committed messages (fewer when ``budget`` bytes hold fewer) and
    the other rows' records after the first of them, in a partial view, and the file's
    size. Read-only; the unfinished last line is left out."""
    where = os.fspath(path)
    found: list[dict[str, Any]] = []  # the last first
    messages = 0
    with open_transcript(where) as fh:
        fd = fh.fileno()
        size = os.fstat(fd).st_size
        pos = size
        head = b""  # the start of the line that began before ``pos`` (not complete yet)
        block = FIRST_BLOCK
        while pos > 0 and messages < want and size - pos < budget:
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
                record = _row(raw)
                if record is None:
                    continue
                found.append(record)
                if record.get("type") == "message_end":
                    messages += 1
                    if messages >= want:
                        break
            block = min(block * 2, 16 << 20)
    view = AgentGoView()
    view.partial = True
    for record in reversed(found):
        view.feed(record, 0)  # kept as they are: a few dozen; line numbers not known
    return view, size
