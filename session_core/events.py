"""The envelopes of a replay, kept compactly: a line read from a file is kept as a
reference to it, and its few facts every view needs are kept beside it.

A replay parses every line (that is how it validates it), but keeping every
parsed line alive is what makes a big replay slow and large. A line read from
a file is kept as the bytes it was read from or, when the file can be read
again (``Events.source``), as its byte span in that file; it is parsed again
when something asks for it, through a small cache. What every view needs of
every line (its type and id; a message's role, line count, tool calls and
usage) is taken at feed time into columns, so drawing, indexing and tallying
a big file never parses a line twice. Envelopes appended live are kept as the
dicts they already are.
"""

from __future__ import annotations

import contextlib
import os
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from itertools import repeat
from operator import is_not
from typing import Any, NoReturn

from .errors import TranscriptError
from .facts import FactsColumn
from .indexed import Indexed, ListLike
from .indexing import loads_payload
from .json_out import compact_json
from .packed_ids import BATCH, PackedIds, Texts
from .text import as_str

CACHE = 512  # parsed lines kept at once
REFUSED = "(not applied)"  # the type of a line a follow kept without applying it
_MORE = 255  # Kinds' code for any type past the 255th
SPAN_BITS = 32  # a span is offset << SPAN_BITS | length
SPAN_MAX = (1 << SPAN_BITS) - 1
# What a line read again says when it is no longer what was read (outside ``strict_rereads``).
CHANGED_LINE = "(this line changed on disk after it was read; the view reloads the file)"


def payload_of(envelope: Mapping[str, Any]) -> dict[str, Any]:
    payload = envelope.get("payload")
    return payload if isinstance(payload, dict) else {}


# The transcript a one-shot read is writing as it goes (an export, a diff, a replay):
# within ``strict_rereads``, a line read again that is not what was read ends it.
_STRICT: ContextVar[str | None] = ContextVar("tailscope_strict_rereads", default=None)


@contextlib.contextmanager
def strict_rereads(path: str | os.PathLike[str]) -> Iterator[None]:
    """Within: a line of ``path`` read again by its span that no longer reads as the line
    it was (cut off, no longer JSON, another id or type: the file truncated or written
    over since) raises ``TranscriptError``. (An edit that keeps a line's shape is not
    seen: no line's bytes are kept to compare.) Outside, a view shows a placeholder for
    it until it reads the file again; what a command writes as it reads must be what the
    file said, or fail (an export half of placeholders replaced a good ``-o`` file with
    a wrong one, and exited 0)."""
    token = _STRICT.set(os.fspath(path))
    try:
        yield
    finally:
        _STRICT.reset(token)


def refuse_changed_line() -> None:
    """Raise within ``strict_rereads``; else return (the caller's placeholder stands)."""
    path = _STRICT.get()
    if path is not None:
        raise TranscriptError(
            "changed on disk while it was being read (a line read again is no longer what "
            "was read: truncated or written over); read it again",
            path=path,
        )


def still_holds(raw: bytes, span: int, *said: str | int) -> bool:
    """Whether ``raw``, a line read again by ``span`` that does not parse, is as long as
    the line was and still holds what it said (its id; its type and seq), each written
    as JSON: then it is not known to have changed, and is not said to have. Asked only
    where a line read again does not parse."""
    return len(raw) == span & SPAN_MAX and all(compact_json(one).encode() in raw for one in said)


def refuse_unread_line(why: str, holds: str = "its id") -> None:
    """Raise within ``strict_rereads`` for a line read again that is as long as it was and
    says what it said (``still_holds``: ``holds``), yet is not read (``why``); else
    return. Not "changed on disk": nothing says it changed."""
    path = _STRICT.get()
    if path is not None:
        raise TranscriptError(
            f"a line read before could not be read again ({why}), though it is as long as "
            f"it was and holds {holds} still: not read as it was the first time",
            path=path,
        )


class FileChangedError(OSError):
    """The file is not as its pinned owner left it: its lines cannot be trusted."""


class LineSource:
    """Lines read back by span from one open file (one inode): never writes.

    Owns its descriptor (a duplicate of the reader's), so the file read stays
    the file replayed even after a rename puts another one at its path.

    A writer that holds the file's lock ``pin``s it after each of its own appends:
    a line is then read again only while the file is still as the writer left it.
    Another process writing under the lock (an editor, ``cp`` over it) would
    otherwise hand the writer new bytes in place of what it loaded.
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd
        self._pinned: tuple[int, int, int] | None = None

    def pin(self) -> None:
        """Take the file as it is now as the only file it may be when read again."""
        if self._fd is not None:
            self._pinned = file_identity(self._fd)

    def unpin(self) -> None:
        """Read lines again whatever the file became since (their ids are still checked)."""
        self._pinned = None

    def changed(self) -> bool:
        """Whether the file is pinned and no longer as it was then."""
        return (
            self._pinned is not None
            and self._fd is not None
            and file_identity(self._fd) != self._pinned
        )

    def read(self, span: int) -> bytes:
        if self._fd is None:
            raise OSError("the file is closed")
        if self.changed():
            raise FileChangedError("the file changed on disk")
        return os.pread(self._fd, span & SPAN_MAX, span >> SPAN_BITS)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.close()


Identity = tuple[int, int, int]  # (inode, size, modification time in ns)

# What a writer (v1's ``Session``, agentgo's ``AgentGoSession``) says of its file once
# another program has written to it; each adds how to go on.
CHANGED_UNDER_WRITER = (
    "the file changed on disk since this session last read or wrote it (something else wrote to it)"
)


# ... and once its path leads to another file, or none (an editor's save by rename, ``mv``,
# ``rm``): appended, the lines would go into a file no name reaches, lost unsaid.
REPLACED_UNDER_WRITER = (
    "the file was replaced or removed since this session last read or wrote it "
    "(its path no longer leads to the file it writes)"
)


def file_identity(fd: int) -> Identity:
    """What changes when anything writes to the open file (an append, a truncation or
    a write in place: another size or modification time). The descriptor's inode never
    changes: a file renamed over its path is ``why_not_append``'s to see."""
    return _identity(os.fstat(fd))


def _identity(stat: os.stat_result) -> Identity:
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def where_written(path: str) -> str:
    """``path`` as a writer checks it on every append: against the working directory it
    was opened in (a later ``chdir`` would make a relative one another file's)."""
    try:
        return os.path.join(os.getcwd(), path)  # (not normalized: ``sym/..`` stays)
    except OSError:  # (the working directory gone: the path as given)
        return path


def why_not_append(path: str, fd: int, left: Identity) -> str | None:
    """Why a writer holding ``fd``, opened at ``path`` (``where_written``), may not append
    now (None: it may): its file is no longer as it left it (``CHANGED_UNDER_WRITER``),
    or ``path`` leads to another file or none (``REPLACED_UNDER_WRITER``). One rule for
    v1's ``Session`` and agentgo's writer. A path that cannot be looked at for another
    reason (its folder made unsearchable a moment) tells nothing: the file held is written,
    as it was before this look (refused, the writer stopped for good, though nothing was
    wrong with the file)."""
    opened = os.fstat(fd)
    if _identity(opened) != left:
        return CHANGED_UNDER_WRITER
    try:
        named = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return REPLACED_UNDER_WRITER
    except OSError:
        return None
    if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
        return REPLACED_UNDER_WRITER
    return None


def wrote_alone(fd: int, before: Identity, written: int) -> tuple[Identity, bool]:
    """The file as a writer's own write of ``written`` bytes (0: a write that failed
    having written nothing) left it, and whether that write is all that changed it since
    ``before``: the same inode, exactly that much longer (its modification time moves
    either way). Else another program's bytes landed beside it (``CHANGED_UNDER_WRITER``)."""
    after = file_identity(fd)
    return after, after[:2] == (before[0], before[1] + written)


class Kinds(ListLike[str]):
    """Each envelope's type, in order: a byte each (its code), not a list's 8-byte pointer
    (5 MB at 1 GB). A type is given its code when first appended; past 255 of them (a
    file of made-up types), the rest are kept by index (``_more``)."""

    __slots__ = ("_code_of", "_more", "codes", "names")

    def __init__(self) -> None:
        self.codes = bytearray()  # per envelope: its type's code
        self.names: list[str] = []  # code -> type (one str object each)
        self._code_of: dict[str, int] = {}
        self._more: dict[int, str] = {}  # envelope -> type, for code _MORE

    def code(self, kind: str) -> int:
        """The code of ``kind`` (given one now if it has none)."""
        code = self._code_of.get(kind)
        if code is None:
            if len(self.names) >= _MORE:
                return _MORE
            code = self._code_of[kind] = len(self.names)
            self.names.append(kind)
        return code

    def known(self, kind: str) -> int:
        """The code of ``kind``, -1 if no envelope has that type (nor a code past 255)."""
        code = self._code_of.get(kind)
        return -1 if code is None else code

    def append(self, kind: str) -> None:
        code = self._code_of.get(kind)
        if code is None:
            code = self.code(kind)
            if code == _MORE:
                self._more[len(self.codes)] = kind
        self.codes.append(code)

    def __len__(self) -> int:
        return len(self.codes)

    def _one(self, index: int) -> str:
        code = self.codes[index]
        return self.names[code] if code != _MORE else self._more[index]

    def __getitem__(self, index: int | slice) -> Any:
        if type(index) is int:  # (the common case, without Indexed's checks: bytearray's)
            code = self.codes[index]
            if code != _MORE:
                return self.names[code]
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[str]:
        if self._more:
            return super().__iter__()
        return map(self.names.__getitem__, self.codes)

    def index(self, kind: Any, start: int = 0, stop: int = sys.maxsize) -> int:
        """The first envelope of type ``kind`` from ``start`` to ``stop`` (ValueError: none)."""
        code = self._code_of.get(kind) if type(kind) is str else None
        if code is None or code == _MORE:
            return super().index(kind, start, stop)
        return self.codes.index(code, start, stop)


class BuiltOnDemand(Indexed[dict[str, Any]]):
    """A sequence of dicts built when asked for (``_build``); the last CACHE built are kept
    (a subclass with a cache of its own overrides ``_one``).

    The dicts handed out are shared with the cache: callers copy before changing one.
    """

    def __init__(self) -> None:
        self._cache: dict[int, dict[str, Any]] = {}

    def _build(self, index: int) -> dict[str, Any]:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def _one(self, index: int) -> dict[str, Any]:
        """Item ``index`` (in range), through the cache."""
        found = self._cache.get(index)
        if found is None:
            found = self._build(index)
            if len(self._cache) >= CACHE:
                del self._cache[next(iter(self._cache))]
            self._cache[index] = found
        return found


class Events(BuiltOnDemand):
    """A list of envelopes, some stored as raw lines or spans. Indexing gives a dict.

    ``kinds``, ``ids`` and ``facts`` (a ``MessageFacts`` for message lines,
    else None) are kept for every envelope.
    """

    def __init__(self) -> None:
        super().__init__()
        # A span per envelope (0: none), in an array: a list of ints costs 36 bytes each.
        self._spans = array("Q")
        # Envelopes kept as dicts or lines (None where a span is kept), made on the first.
        self._others: list[dict[str, Any] | bytes | None] | None = None
        self.kinds = Kinds()
        self.ids = PackedIds()  # (a str each was most of a big replay's memory)
        # Call ids and tool names, each kept once (a call id is named by its call, its
        # answer and its dispatch): the facts and the tool operations keep their numbers.
        self.texts = Texts()
        self.facts = FactsColumn(self, self.texts)
        self.source: LineSource | None = None
        # Told of a line that is not what was replayed, instead of its placeholder (a
        # writer's session: it must not go on from what it no longer has).
        self.refuse_changed: Callable[[int], NoReturn] | None = None

    def append(
        self,
        item: dict[str, Any] | bytes | int,
        kind: str,
        eid: str,
        fields: tuple[Any, ...] | None = None,
    ) -> None:
        """Keep one envelope; given its message facts (``facts.payload_fields``' tuple, or
        the index pass's ``indexing.message_fields``), take them now."""
        self._keep(item)
        kinds = self.kinds
        code = kinds._code_of.get(kind)  # (``Kinds.append``, inline: every line of a load)
        if code is None:
            kinds.append(kind)
        else:
            kinds.codes.append(code)
        ids = self.ids
        ids.tail.append(eid)  # (``ids.append``, inline: every line of a live load)
        if len(ids.tail) >= BATCH:
            ids.pack()
        if fields is None:
            self.facts.append()
        else:
            self.facts.take_fields(fields)

    def _keep(self, item: dict[str, Any] | bytes | int) -> None:
        """Keep a line by its span, or as its dict or bytes (making ``_others`` on the first)."""
        others = self._others
        if isinstance(item, int):
            self._spans.append(item)
            if others is not None:
                others.append(None)
            return
        if others is None:
            others = self._others = [None] * len(self._spans)
        self._spans.append(0)
        others.append(item)

    def keep_line(self, raw: bytes) -> None:
        """Keep a line as its bytes (the reader's loop; ``kinds`` and ``ids`` are its)."""
        self._keep(raw)

    def pad_facts(self) -> None:
        """Give every line appended without facts (the reader's loop) its empty facts."""
        self.facts.pad(len(self._spans))

    def __len__(self) -> int:
        return len(self._spans)

    def line_again(self, keep: bytes | int | None) -> bytes:
        """A line kept as ``feed`` keeps it (its bytes, or its span in ``source``: read
        again), for a refusal's words; b"" where there is none or it cannot be read."""
        if not isinstance(keep, int):
            return keep or b""
        try:
            return self.source.read(keep) if self.source is not None else b""
        except (OSError, ValueError):
            return b""

    def kept(self, index: int) -> dict[str, Any] | bytes | int:
        """How envelope ``index`` is kept: its dict, its line, or its span in ``source``."""
        span = self._spans[index]
        if span or self._others is None:
            return span
        item = self._others[index]
        assert item is not None
        return item

    def all_spans(self, indexes: Iterable[int]) -> bool:
        """Whether each of these envelopes is kept by its span (not its dict or line)."""
        others = self._others
        return others is None or not any(
            map(is_not, map(others.__getitem__, indexes), repeat(None))
        )

    def read(self, index: int) -> dict[str, Any]:
        """Envelope ``index`` parsed again, not through the cache: for another thread."""
        return self._build(index)

    def _build(self, index: int) -> dict[str, Any]:
        item = self.kept(index)
        return item if isinstance(item, dict) else self._parse(index, item)

    def _parse(self, index: int, item: bytes | int) -> dict[str, Any]:
        if self.kinds[index] == REFUSED:
            return self._refused(index, item)
        if isinstance(item, bytes):
            value: dict[str, Any] = loads_payload(item)  # it parsed once already: it parses
            return value
        try:
            raw = self.source.read(item) if self.source is not None else b""
        except OSError:
            return self._changed(index)
        try:
            value = loads_payload(raw)
        except ValueError as err:  # (not JSON: orjson's and json's errors)
            if not still_holds(raw, item, self.ids[index]):
                return self._changed(index)
            return self._unread(index, err)
        if not isinstance(value, dict) or as_str(value.get("id")) != self.ids[index]:
            return self._changed(index)
        return value

    def _refused(self, index: int, item: bytes | int) -> dict[str, Any]:
        """A line kept without being applied (``ReplayState.keep_refused``): its text, in
        an envelope of its own type, whatever it holds (not JSON, perhaps)."""
        if isinstance(item, int):
            try:
                item = self.source.read(item) if self.source is not None else b""
            except OSError:
                return self._changed(index)
        return {"id": self.ids[index], "type": REFUSED, "line": line_text(item)}

    def written(self, index: int) -> str:
        """Envelope ``index``'s line as written (``line_text``): read again by its span,
        or its bytes as kept; one appended as a dict, its compact JSON."""
        item = self.kept(index)
        if isinstance(item, dict):
            return compact_json(item)
        if isinstance(item, int):
            try:
                raw = self.source.read(item) if self.source is not None else b""
            except OSError:
                raw = b""
            if len(raw) != item & SPAN_MAX:  # (cut off since: not the line it was)
                self._changed(index)
                return CHANGED_LINE
            item = raw
        return line_text(item)

    def _unread(self, index: int, err: ValueError) -> dict[str, Any]:
        """The line, as long as it was when it was read, is not read again: not known to
        have changed on disk, so not said to have (``refuse_unread_line``)."""
        why = str(err).split(":")[0]
        refuse_unread_line(why)
        payload: dict[str, Any] = {"content": f"(this line could not be read again: {why})"}
        role = self.facts.taken_role(index)
        if role is not None:
            payload["role"] = role
        return {"v": 1, "type": self.kinds[index], "id": self.ids[index], "payload": payload}

    def _changed(self, index: int) -> dict[str, Any]:
        """The line is not what it was when it was replayed (the file changed under us)."""
        if self.refuse_changed is not None:
            self.refuse_changed(index)
        refuse_changed_line()
        payload: dict[str, Any] = {"content": CHANGED_LINE}
        role = self.facts.taken_role(index)
        if role is not None:
            payload["role"] = role
        return {"v": 1, "type": self.kinds[index], "id": self.ids[index], "payload": payload}


def line_text(raw: bytes) -> str:
    """A line kept as it is (not applied, of a type not known, no record at all), as the
    text a view or an export shows of it: its bytes as written, its line end off; a byte
    that is not UTF-8 as its escape (``\\xff``), not lost to U+FFFD."""
    return raw.decode("utf-8", "backslashreplace").rstrip("\r\n")


class LazyPayload(Mapping[str, Any]):
    """The payload of ``events[index]``, read when asked for (a replayed message's body)."""

    __slots__ = ("_events", "_index")

    def __init__(self, events: Events, index: int) -> None:
        self._events = events
        self._index = index

    @property
    def index(self) -> int:
        """The line's index in ``events``."""
        return self._index

    def _payload(self) -> dict[str, Any]:
        payload = self._events[self._index].get("payload")
        return payload if isinstance(payload, dict) else {}

    def __getitem__(self, key: str) -> Any:
        return self._payload()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._payload().get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._payload())

    def __len__(self) -> int:
        return len(self._payload())
