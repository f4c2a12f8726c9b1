"""``tailscope export``: a transcript as Markdown, HTML or JSON. Read-only.

Markdown and HTML lay out the same document (exportdoc): the conversation with
tool calls paired to their results (and their tools' own detail), tool-operation
outcomes, run contexts, compaction and elision marks, usage. JSON is exactly what
``tailscope replay`` prints. Reading never writes the transcript; ``write_export``
writes only the export, atomically, and refuses to write over the transcript itself.

An export is written as it is made (``export_into``): Markdown and HTML a message
at a time (``export_chunks``), JSON as ``tailscope replay`` writes it: an export's
memory is its replay's, however big the file.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO, Literal, Protocol

from .compressed import open_maybe_compressed
from .errors import TranscriptError
from .events import strict_rereads
from .export_html import html_chunks
from .export_md import markdown_chunks
from .exportdoc import Document, View
from .formats import HEAD_LINES, detect_format, detect_records
from .indexing import head_record
from .json_out import EscapedC1, escape_c1
from .reader import bom_length, empty_path, is_blank, opened_as, path_of
from .text import BIG, in_slices
from .views import dump_json, format_for, replay_any

Format = Literal["md", "html", "json"]
FORMATS: tuple[Format, ...] = ("md", "html", "json")
VIEWS: tuple[View, ...] = ("replayed", "raw")


def document(path: str | os.PathLike[str], view: View = "replayed") -> Document:
    """The export document of a transcript of any registered format."""
    return format_for(path).document(path, view)


def export(
    path: str | os.PathLike[str], fmt: Format, view: View = "replayed", *, pretty: bool = False
) -> str:
    """The transcript at ``path`` as ``fmt``; raises ``TranscriptError`` for a bad file.

    ``view`` picks the v1 conversation: "replayed" (what the model is sent next)
    or "raw" (every line as written, with compaction and elision marks). JSON is
    the replayed view only (``tailscope replay``), so JSON with "raw" is refused;
    ``pretty`` indents it as ``tailscope replay --pretty`` does (JSON only).
    """
    with strict_rereads(path):
        return "".join(export_chunks(path, fmt, view, pretty=pretty))


def export_chunks(
    path: str | os.PathLike[str], fmt: Format, view: View = "replayed", *, pretty: bool = False
) -> Iterator[str]:
    """``export``'s text in pieces, made as they are taken (for ``write_export``).

    The transcript is read, and a bad one refused, before this returns; the pieces
    read its lines again as they are made: taken within ``events.strict_rereads``
    (as ``export`` and ``export_into`` take them), a line changed since raises then.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; one of {', '.join(FORMATS)}")
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; one of {', '.join(VIEWS)}")
    if pretty and fmt != "json":
        raise ValueError("pretty indents JSON; Markdown and HTML are laid out already")
    if fmt == "json":
        if view != "replayed":
            raise ValueError("the JSON export is the replayed view (tailscope replay); no raw view")
        return iter((escape_c1(dump_json(replay_any(path), pretty)).decode("utf-8"),))
    doc = document(path, view)
    return markdown_chunks(doc) if fmt == "md" else html_chunks(doc)


def default_output(path: str | os.PathLike[str], fmt: Format) -> str:
    """``<stem>.<ext>`` beside the transcript: relative to the working directory, as
    ``path`` is when it is relative. One in a folder named ``~`` is ``./~/…``: a path
    starting with ``~`` is the home folder's to a shell, or to a dialog that expands it."""
    where = os.fspath(path)
    stem, _ext = os.path.splitext(where)
    if stem.startswith("~"):
        stem = os.path.join(os.curdir, stem)
    return f"{stem}.{fmt}"


def names_folder(target: str) -> bool:
    """Does ``target`` name a folder: one there, or a path ending in a separator
    (``newdir/``), which a shell refuses to write as a file? (``realpath`` drops the
    separator, so ``-o newdir/`` wrote a file named ``newdir``.)"""
    return folder_said(target) is not None


def folder_said(target: str) -> str | None:
    """How ``target`` names a folder (``names_folder``), said truly: ``is a directory``,
    or a path that ends in ``/`` where no folder is (it said "is a directory" of
    ``newdir/`` with no ``newdir``); None: it names none."""
    if os.path.isdir(target):
        return "is a directory"
    if target.endswith(os.sep) or (os.altsep is not None and target.endswith(os.altsep)):
        return f"ends in {target[-1]}, so it names a folder, and there is none"
    return None


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Do two paths name the same file (resolved, and by inode when both exist)?"""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class Writes(Protocol):
    """Where an export is written: anything with a binary ``write``."""

    def write(self, data: bytes, /) -> int: ...


def export_into(
    path: str | os.PathLike[str], fmt: Format, view: View, out: Writes, *, pretty: bool = False
) -> None:
    """Write the export of ``path`` into ``out`` as it is made (a big file's is never
    whole in memory). JSON is ``tailscope replay``'s bytes, C1 controls escaped;
    ``pretty``, ``tailscope replay --pretty``'s (held whole, as that holds it: the
    indenting is orjson's, of the whole value)."""
    path = path_of(path)  # (bytes: the file's name, for every format's reader)
    with strict_rereads(path):  # (a line changed since it was read ends the export)
        if fmt == "json" and view == "replayed":
            if pretty:
                EscapedC1(out).write(dump_json(replay_any(path), pretty=True))  # type: ignore[arg-type]
            else:
                format_for(path).write_replay(path, EscapedC1(out))  # type: ignore[arg-type]
            return
        _write(out, export_chunks(path, fmt, view, pretty=pretty))


def write_export(
    text: str | Iterable[str], out: str | os.PathLike[str], transcript: str | os.PathLike[str]
) -> None:
    """Write ``text`` (or its pieces, as ``export_chunks`` makes them) to ``out`` as
    ``open_export`` says."""
    with open_export(out, transcript) as fh:
        _write(fh, (text,) if isinstance(text, str) else text)


class _OnFirstWrite:
    """A file opened at its first write: the transcript is read (or refused) before a
    FIFO waits for its reader, or a temporary file is made."""

    def __init__(self, opener: Callable[[], BinaryIO]) -> None:
        self._opener = opener
        self.fh: BinaryIO | None = None

    def file(self) -> BinaryIO:
        if self.fh is None:
            self.fh = self._opener()
        return self.fh

    def write(self, data: bytes, /) -> int:
        return self.file().write(data)

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()


@contextlib.contextmanager
def open_export(
    out: str | os.PathLike[str], transcript: str | os.PathLike[str]
) -> Iterator[Writes]:
    """Where an export of ``transcript`` is written: ``out``, replaced atomically (a
    temporary file renamed over it when the block ends, and removed if it raises), with
    the mode the file had, or a new file's under the umask. Nothing is opened or made
    before the first write.

    A FIFO or a device (``/dev/null``) is written into, never replaced; so is an open
    descriptor named by its path (``/dev/stdout``, ``/dev/fd/3``): whatever it is (a pipe,
    a file appended to), it is written to as it was opened.
    Refuses (``TranscriptError``) when ``out`` is the transcript itself, however spelt,
    any other transcript (a subagent's file the export reads; a damaged one no format
    names: ``_kept_from``), a directory, or a file it
    may not write (a read-only one: the rename would replace
    it all the same).
    """
    target = os.fspath(out)
    if not target:  # (else "Is a directory": the working folder's)
        raise empty_path()
    descriptor = _descriptor(target)
    if descriptor is not None and opened_as(descriptor, transcript):  # (``-o - >> it``)
        where = "standard output" if target == "-" else target  # (as the other reads say)
        raise TranscriptError(
            f"is where {where} goes; a read never writes into it", path=os.fspath(transcript)
        )
    if same_file(target, transcript):
        raise TranscriptError(
            "is the transcript being exported; an export never writes over its transcript",
            path=target,
        )
    if descriptor is not None:
        # (a buffer of our own: the descriptor is written as it was opened, never closed)
        with open(descriptor, "wb", closefd=False) as fh:
            yield fh
        return
    folder = folder_said(target)
    if folder is not None:
        raise TranscriptError(f"{folder}; name a file to export to", path=target)
    final = os.path.realpath(target)  # a symlink stays a link; its target gets the export
    try:
        found = os.stat(final)
    except FileNotFoundError:
        found = None
    except OSError as err:
        raise TranscriptError(f"cannot write the export: {err.strerror}", path=target) from None
    if found is not None and stat.S_ISREG(found.st_mode) and not os.access(final, os.W_OK):
        # (the rename would replace it all the same, where ``cp`` or ``>`` would refuse)
        raise TranscriptError(
            "is not writable: an export does not replace a file it may not write",
            path=target,
        )
    claimed = None if found is None or not stat.S_ISREG(found.st_mode) else _kept_from(final)
    if claimed is not None:
        # (a subagent's file the export reads, another session: -o names a file to make)
        raise TranscriptError(
            f"{claimed}; an export never writes over one (name another file)", path=target
        )
    if found is not None and not stat.S_ISREG(found.st_mode):
        # A FIFO, a device: what it is stays (``into`` closes what it opened).
        into = _OnFirstWrite(lambda: open(final, "wb"))  # noqa: SIM115
        try:
            yield into
            into.file()
        finally:
            into.close()
        return
    made: list[str] = []

    def temporary() -> BinaryIO:
        beside = os.path.dirname(final)
        try:
            fd = _new_file(beside, made)
        except OSError as err:  # (said of the user's path: it may be there, /proc/version)
            raise TranscriptError(
                f"cannot make the export's temporary file beside it, in {beside} (an export "
                f"is written there, then renamed over it): {err.strerror}",
                path=target,
            ) from None
        fh = os.fdopen(fd, "wb")
        if found is not None:
            os.fchmod(fh.fileno(), stat.S_IMODE(found.st_mode))
        return fh

    into = _OnFirstWrite(temporary)
    try:
        yield into
        written = into.file()  # (an export of nothing is a file too)
        written.flush()
        os.fsync(written.fileno())
        into.close()
        try:
            os.replace(made[0], final)
        except OSError as err:
            raise TranscriptError(
                f"cannot rename the export over it: {err.strerror}", path=target
            ) from None
    except BaseException:
        into.close()
        for temp in made:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise


_HEAD = 1 << 20  # of a target, what is looked at for a transcript's first lines
_EXPORT_JSON = re.compile(rb'\{\s*"format"\s*:')  # (how replay's JSON, ours, begins)


def _kept_from(final: str) -> str | None:
    """Why ``-o`` may not replace the file ``final``: it is a transcript (a format names
    it, past a byte order mark too), or may be one no format names for its damage: its
    first line is no JSON and the next is a JSON object (a first line cut or written
    over), or its one line begins a JSON object and is not whole (being written), and is
    not the JSON an export writes (``{"format": …``). None: it may be replaced (an
    export, a ``peek``'s or any other JSON no format names, any other text)."""
    if detect_format(final) is not None:
        return "is a transcript"
    try:
        with open_maybe_compressed(final) as fh:
            head = fh.read(_HEAD)
    except OSError as err:  # (mode 200: written, never read; a transcript, maybe)
        return f"cannot be read ({err.strerror}) to tell whether it is a transcript"
    except (EOFError, ValueError):  # (a corrupt .zst: compressed, no export)
        return "is a compressed file that cannot be read (a transcript, maybe)"
    skip = bom_length(head)
    lines = [line for line in head[skip:].split(b"\n") if not is_blank(line)][: HEAD_LINES + 2]
    if skip and detect_records(map(head_record, lines)) is not None:
        return "is a transcript (led by a byte order mark)"
    first, second = [*lines, b"", b""][:2]
    if first and head_record(first) is None:
        if isinstance(head_record(second), dict):
            return "may be a transcript (its first line is no JSON, its second a JSON object)"
        body = first.lstrip()
        if len(lines) == 1 and body.startswith(b"{") and not _EXPORT_JSON.match(body):
            return "may be a transcript (its one line begins a JSON object, not whole yet)"
    return None


def _write(fh: Writes, pieces: Iterable[str]) -> None:
    for piece in pieces:
        if len(piece) < BIG:
            fh.write(piece.encode("utf-8"))
            continue
        for part in in_slices(piece):  # (a big piece's bytes are never whole)
            fh.write(part.encode("utf-8"))


_DESCRIPTORS = {"-": 1, "/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR_PATH = re.compile(r"/(?:dev/fd|proc/self/fd)/(\d+)")


def _descriptor(target: str) -> int | None:
    """The open descriptor ``target`` names (``-`` is standard output), or None."""
    found = _DESCRIPTORS.get(target)
    if found is not None:
        return found
    match = _DESCRIPTOR_PATH.fullmatch(target)
    return int(match.group(1)) if match else None


def _new_file(directory: str, made: list[str]) -> int:
    """A new file of a name nobody has, made 0666 under the umask (``mkstemp``'s 0600
    would hide a report meant to be shared, and ignore a umask that hides it). Its name
    is in ``made`` before the file is: a SIGTERM that lands as it is made (a few
    bytecodes later, the exception it raises) finds it there to remove."""
    while True:
        temp = os.path.join(directory, f".tailscope-export-{secrets.token_hex(6)}")
        made.append(temp)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
            return os.open(temp, flags, 0o666)
        except FileExistsError:
            made.pop()  # (another's file of that name: not ours to remove)
