"""JSON-ready views of a replay, shared by ``tailscope replay`` and exports."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, NamedTuple

import orjson

from .errors import InvalidLineError, TranscriptError
from .json_out import dumps as dump_any
from .message import MESSAGE_KEYS

if TYPE_CHECKING:
    from .formats.base import TranscriptFormat
    from .replay import ReplayState  # (v1's: another format's open imports none of it)


def _messages(state: ReplayState) -> Iterator[dict[str, Any]]:
    """The replayed messages, one at a time (each read again from its line)."""
    for mid, body, _sticky, stub in state.entries:
        out: dict[str, Any] = {"id": mid}
        for key, value in body.items():
            if key in MESSAGE_KEYS:
                out[key] = value
        out.setdefault("role", "user")
        out.setdefault("content", "")
        if stub is not None:
            out["content"] = stub
        yield out


def _replay_parts(state: ReplayState, writer_alive: bool | None) -> Iterator[tuple[str, Any]]:
    """The replay JSON's keys in order; its lists as iterators (see ``write_replay``).

    What the shared keys need of every message line (the calls tool messages answered,
    usage) comes from the packed facts, not from an object per message.
    """
    from .formats.v1.asked import CallMarks, answered_ops
    from .formats.v1.model import NAME
    from .formats.v1.ops import answered_last, op_state, superseded_ops, undispatched_calls
    from .formats.v1.others import other_records
    from .formats.v1.overlays import compactions_of
    from .model import Usage
    from .usage import tally_state

    marks = CallMarks(state)  # (the call ids answered, by number: no str of each)

    def ops(pending: bool = False) -> Iterator[dict[str, Any]]:
        # Copies, one at a time: the records are the state's own (built from their lines
        # once), and a big file has 100,000s of them. The pending list builds only the
        # unsettled (the replay knows which, without reading a line).
        tool_ops = state.tool_ops
        superseded = superseded_ops(state)
        last = answered_last(state, writer_alive)
        # (a settled one's state is its outcome: only the others' answers are looked at)
        answered_op = answered_ops(state, state.pending_indices(), marks.answers)
        for index in range(len(tool_ops)):
            if pending and tool_ops.is_settled(index):
                continue
            op = tool_ops[index]
            alive = writer_alive
            if not tool_ops.is_settled(index) and superseded(index):
                alive = False
            said = op_state(op, index in answered_op, alive, last(index))
            yield {**op, "state": said}
        if pending:
            return
        # Then the calls no dispatch line names (they never ran, as far as the file says).
        for cid, tool, state_ in undispatched_calls(state, writer_alive, marks):
            yield {"call-id": cid, "tool": tool, "settled": False, "state": state_}

    usage = Usage.of_totals(tally_state(state).transcript)
    yield "format", NAME
    yield "meta", state.meta
    yield "messages", _messages(state)
    yield "grants", state.grants
    yield "tool-operations", ops()
    yield "pending-tool-operations", ops(pending=True)
    yield "run-contexts", iter(state.run_contexts)
    yield "compactions", (c.to_json() for c in compactions_of(state))
    yield "usage", usage.to_json()
    yield "warnings", iter(state.warnings)
    yield "other-records", (r.to_json() for r in other_records(state))


def replay_json(state: ReplayState, writer_alive: bool | None = None) -> dict[str, Any]:
    """The replayed view of a v1 file, shaped as ``tailscope replay`` prints it."""
    return {
        key: list(value) if isinstance(value, Iterator) else value
        for key, value in _replay_parts(state, writer_alive)
    }


def write_replay(state: ReplayState, out: IO[bytes], writer_alive: bool | None = None) -> None:
    """``dump_json(replay_json(state))``, byte for byte, written a message at a time: a big
    file's replay never holds every message at once."""
    write_parts(_replay_parts(state, writer_alive), out)


_CHUNK = 256 << 10  # bytes of elements written together (one write, not one per element)


def write_parts(parts: Iterable[tuple[str, Any]], out: IO[bytes]) -> None:
    """``dump_json`` of the object these (key, value) parts make, byte for byte, where a
    value that is an iterator is written an element at a time (gathered into writes of
    about ``_CHUNK`` bytes: a write per element was a system call each)."""
    dumps = orjson.dumps
    out.write(b"{")
    for position, (key, value) in enumerate(parts):
        out.write((b"," if position else b"") + dumps(key) + b":")
        if not isinstance(value, Iterator):
            out.write(dump_any(value))
            continue
        out.write(b"[")
        rows: list[bytes] = []
        size = 0
        sep = b""  # before the next rows written: nothing after "[", else a comma
        for element in value:
            row = dump_any(element)
            rows.append(row)
            size += len(row)
            if size >= _CHUNK:
                out.write(sep + b",".join(rows))
                rows, size, sep = [], 0, b","
        out.write((sep + b",".join(rows) if rows else b"") + b"]")
    out.write(b"}\n")


def replay_any(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The replayed view of a file of any registered format, read-only.

    ``TranscriptError`` when it cannot be read, or no format claims it.
    """
    from .reader import path_of

    where = path_of(path)  # (bytes: the file's name, for every format's reader)
    return format_for(where).replay_json(where)


def format_for(path: str | os.PathLike[str]) -> TranscriptFormat:
    """The format that reads ``path``; ``TranscriptError`` when none claims it."""
    from .formats import format_of
    from .reader import open_transcript, path_of

    where = path_of(path)
    with open_transcript(where) as fh:  # missing / directory / unreadable, worded once
        try:
            fh.read(1)
        except OSError as err:  # (opened, then refused: /proc/self/mem says EIO)
            raise TranscriptError(f"cannot be read: {err.strerror}", path=where) from None
    fmt = format_of(where)
    if fmt is None:
        raise unclaimed(where)
    return fmt


class NoClaim(NamedTuple):
    """What a file no format claims is, each case worked out once (``why_unclaimed``):
    white space alone (``empty``), an older writer's whole JSON document (``document``,
    what it is; ``started``: when it says its session began), or neither; ``error()``
    says it in the words every command says it."""

    where: str
    empty: bool
    document: str | None = None
    started: str | None = None

    def error(self) -> TranscriptError:
        """Empty, an older writer's document, its first line's damage, or not a
        transcript (the first line read again only in the last two cases)."""
        from .formats import not_a_transcript

        where = self.where
        if self.empty:  # (blank lines, however many, then records: detected)
            return TranscriptError(
                "is empty; a transcript starts with its first record", path=where
            )
        if self.document is not None:
            return TranscriptError(f"is {self.document}", path=where)
        damage = first_line_damage(where)
        if damage is not None:
            return damage
        return TranscriptError(f"is not a transcript: {not_a_transcript()}", path=where)


def why_unclaimed(where: str) -> NoClaim:
    """Which case a file no format claims is: the one place that tells them apart, so
    that no caller reads a whole document twice to say what it is."""
    empty = blank_file(where)
    document = None if empty else older_document(where)
    return NoClaim(where, empty, *(document or (None, None)))


def unclaimed(where: str) -> TranscriptError:
    """Why no format claims the file at ``where``, in the words every command says it
    (``check``, ``replay``, ``diff``, ``export`` and ``peek`` alike): empty, its first
    line damage, or not a transcript."""
    return why_unclaimed(where).error()


DOCUMENT_LIMIT = 64 << 20  # a bigger file is not parsed whole to say what it is


def older_document(where: str) -> tuple[str, str | None] | None:
    """What a file that is one JSON object (pretty-printed over many lines, say) is, where
    a format names it as an older writer's that no reader reads (``unread_document``),
    and when it says its session began (``unread_started``: read from the document
    parsed to say what it is, no other read)."""
    from .formats import FORMATS

    try:
        if os.path.getsize(where) > DOCUMENT_LIMIT:
            return None
        with open(where, "rb") as fh:
            head = fh.read(1 << 16)
            first, _, rest = head.lstrip().partition(b"\n")
            # (an object pretty-printed, opened on a line of its own, or one line alone:
            # any other file is not read whole)
            if first.strip() != b"{" and (first[:1] != b"{" or rest.strip()):
                return None
            document = orjson.loads(head + fh.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(document, dict):
        return None
    for fmt in FORMATS:
        if (said := fmt.unread_document(document)) is not None:
            return said, fmt.unread_started(document)
    return None


def blank_file(where: str) -> bool:
    """Does the file hold nothing but white space, Unicode's too as ``reader.is_blank``
    takes it (read until it does not; a compressed one, once unpacked), past a byte order
    mark that opens it, which is read past (``reader.BOM``), not damage?"""
    import codecs

    from .codec import WHITE_SPACE
    from .compressed import open_maybe_compressed

    # (a character cut between blocks; "utf-8-sig": a mark that opens the file dropped)
    text = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        with open_maybe_compressed(where) as fh:
            while block := fh.read(1 << 16):
                if text.decode(block).strip(WHITE_SPACE):  # (every block: a character
                    return False  # cut across an ASCII one is no white space)
            return not text.decode(b"", final=True).strip(WHITE_SPACE)
    except UnicodeDecodeError:  # (not UTF-8: not white space)
        return False
    except OSError:  # (a compressed file cut short: damage, said by the caller's reader)
        return False


def dump_json(value: Any, pretty: bool = False) -> bytes:
    """The bytes ``tailscope replay`` prints (and ``export --format json`` writes)."""
    option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
    return dump_any(value, option)


def first_line_damage(where: str) -> TranscriptError | None:
    """A first line that is not JSON at all: damage at line N (a byte order mark, say),
    not "not a transcript"."""
    from .file_lines import read_records

    for number, value, raw in read_records(where):
        return first_line_refused(where, number, raw) if value is None else None
    return None


def first_line_refused(where: str, number: int, raw: bytes) -> InvalidLineError:
    """Why a file's first line (``number``: past blank ones), no JSON, makes it no
    transcript, as every path says it (a byte order mark named)."""
    from .line_warnings import bad_line_reason

    return InvalidLineError(
        f"{bad_line_reason(raw)}; a transcript starts with its first record",
        path=where,
        line=number,
        raw=raw,
    )
