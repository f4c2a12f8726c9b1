"""``-`` for standard input: a pipe copied into a file the readers can seek.

Every reader reads a transcript by offset, and the viewer follows a file as it grows; a
pipe can do neither. So standard input is copied into ``stdin.jsonl`` in a folder of its
own under the system's temporary directory, removed when the command ends: whole before a
text command reads it (``zstdcat run.jsonl.zst | tailscope check -``), and as it comes
while the viewer follows it (``ssh host tail -f -n +1 run.jsonl | tailscope -``), the
viewer then reading its keys from the terminal (``/dev/tty``), as ``less`` does. A file
on standard input (``tailscope - < run.jsonl``) is read where it is, not copied.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from session_core import TranscriptError
from session_core.formats import format_of
from session_core.text import size_text
from session_core.writers import is_pipe_copy, pipe_copy

if TYPE_CHECKING:
    from textual.app import App

STDIN = "-"  # the path that names standard input
NAME = "stdin.jsonl"  # the copy's name: what the viewer's header and messages say
_CHUNK = 1 << 16
# The copies whose pipe has ended (``copy_as_it_comes``; their real paths): they grow no
# more, and their age is then their last line's, which says nothing of a writer's quiet.
_ENDED: set[str] = set()


class StdinError(Exception):
    """Standard input could not be read, or not copied (said in one line)."""


@contextlib.contextmanager
def spool_path() -> Iterator[Path]:
    """A new, empty ``stdin.jsonl`` in a folder of its own, removed with it afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="tailscope-"))
    path = folder / NAME
    try:
        path.touch(mode=0o600)
        pipe_copy(path)
        yield path
    finally:
        remove_spool(path)


def remove_spool(path: Path) -> None:
    """The copy and its folder gone (again: nothing)."""
    pipe_copy(path, made=False)
    _ENDED.discard(os.path.realpath(path))
    shutil.rmtree(path.parent, ignore_errors=True)


def is_spool(path: str | os.PathLike[str]) -> bool:
    """Is ``path`` a copy of standard input (gone when the command ends: nothing is to
    be written beside it)?"""
    return is_pipe_copy(path)


def input_ended(path: str | os.PathLike[str]) -> bool:
    """Is ``path`` a followed copy of standard input whose pipe has ended?"""
    return bool(_ENDED) and os.path.realpath(path) in _ENDED


def copy_whole(source: int, path: Path, out: int | None = None) -> int:
    """Standard input (``source``, a descriptor) into ``path`` (or its open descriptor
    ``out``, closed here), to its end: the bytes copied. ``StdinError`` where it cannot
    be read or the copy cannot be written. Either way, the copy's mtime is then the
    writer's (``_writers_time``)."""
    copied = 0
    if out is None:
        out = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    try:
        while True:
            try:
                chunk = os.read(source, _CHUNK)
            except OSError as err:
                raise StdinError(f"standard input: cannot be read: {err.strerror}") from None
            if not chunk:
                return copied
            try:
                _write_all(out, chunk)
            except OSError as err:
                raise StdinError(
                    f"standard input: cannot be copied into {path} "
                    f"after {size_text(os.fstat(out).st_size)}: {err.strerror}"
                ) from None
            copied += len(chunk)
    finally:
        os.close(out)
        _writers_time(path)


def _writers_time(path: Path) -> None:
    """The copy's mtime set to when its writer last wrote, as its last line says
    (``written_at``), once the pipe has ended: the copy was made now, the run may be
    long over (``zstdcat old.jsonl.zst |``), or still written (``cat live.jsonl |``),
    and every rule that judges a writer it cannot see by its file's age reads the
    mtime (``writer_alive``, the header's dot). A copy whose lines say no time keeps
    the pipe's end as its time."""
    with contextlib.suppress(OSError, TranscriptError):  # (its time then unknown)
        fmt = format_of(path)
        when = None if fmt is None else fmt.written_at(path)
        if when is not None:
            os.utime(path, (time.time(), when))


def _write_all(out: int, data: bytes) -> None:
    """All of ``data``, on disk as it comes (the viewer follows it): a write may be
    short (a file-size limit, a disk nearly full), and the next one then says why."""
    view = memoryview(data)
    while view:
        view = view[os.write(out, view) :]


@contextlib.contextmanager
def stdin_file() -> Iterator[str]:
    """A text command's standard input as a file: itself where it is one, else a copy of
    all of it (a terminal's: what is typed, to ctrl-d, as ``cat`` reads it)."""
    source = stdin_source()
    if not _open(source):  # (``tailscope check - <&-``: said as the viewer says it)
        raise StdinError(STDIN_CLOSED)
    where = regular_file(source)
    if where is not None:
        yield where
        return
    if _open(source) and os.isatty(source):
        print(
            "tailscope: reading a transcript from standard input (ctrl-d ends it)", file=sys.stderr
        )
    with spool_path() as path:
        copy_whole(source, path)
        yield str(path)


def regular_file(source: int = 0) -> str | None:
    """The path of the file that is standard input (``< run.jsonl``), where it is one,
    read from its start (``{ read x; tailscope -; } < f`` gives the rest: a copy), and
    its name still leads to it, for this user; None for a pipe, a terminal, a device."""
    try:
        seen = os.fstat(source)
        if not stat.S_ISREG(seen.st_mode) or os.lseek(source, 0, os.SEEK_CUR) != 0:
            return None
        named = os.readlink(f"/proc/self/fd/{source}")
        there = os.stat(named)
    except OSError:
        return None
    same = (there.st_dev, there.st_ino) == (seen.st_dev, seen.st_ino)
    return named if same and os.access(named, os.R_OK) else None


def stdin_source() -> int:
    """Standard input's descriptor (0 where ``sys.stdin`` is None or has none)."""
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return 0


def stdin_written_by(out: int) -> str | None:
    """Where standard input is the regular file the descriptor ``out`` writes into
    (``tailscope replay - < X >> X``, read in part or not): its name, or "standard input"
    where no name leads to it; None where it is not (a pipe is another file)."""
    source = stdin_source()
    try:
        seen, written = os.fstat(source), os.fstat(out)
    except OSError:
        return None
    if not stat.S_ISREG(seen.st_mode) or (seen.st_dev, seen.st_ino) != (
        written.st_dev,
        written.st_ino,
    ):
        return None
    try:
        named = os.readlink(f"/proc/self/fd/{source}")
        there = os.stat(named)
    except OSError:
        return "standard input"
    return named if (there.st_dev, there.st_ino) == (seen.st_dev, seen.st_ino) else "standard input"


def _open(source: int) -> bool:
    try:
        os.fstat(source)
    except OSError:
        return False
    return True


def is_piped() -> bool:
    """Whether standard input is a pipe or a file (``cat x | tailscope``,
    ``tailscope < x``), not a terminal nor a device such as ``/dev/null``."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode  # (None, or not a descriptor: no)
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


# What every command says of ``-`` with no standard input at all (``<&-``).
STDIN_CLOSED = "standard input is closed: there is no transcript to read"


def stdin_closed() -> bool:
    """``tailscope - <&-``: there is no standard input at all."""
    return not _open(0)


def keys_from_terminal() -> int:
    """Standard input moved to a new descriptor (returned), and the terminal
    (``/dev/tty``) put in its place, where Textual reads keys. ``OSError``: there is no
    terminal to read keys from (nothing was moved). Standard input must be open (else
    the terminal would be opened as descriptor 0 and taken for the pipe)."""
    tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        piped = os.dup(0)
        os.dup2(tty, 0)
    finally:
        os.close(tty)
    return piped


Told = Callable[[str, bool], None]  # (what to say, is it an error)


def copy_as_it_comes(source: int, path: Path, told: Told) -> threading.Thread:
    """Standard input into ``path`` as it arrives, in a thread that ends at its end (or
    when the process does: it is a daemon, blocked in a read the viewer never waits on);
    ``told`` says how it ended: the pipe closed, or the copy failed (a full disk: the
    file then ends where the copy did, which is no writer's crash)."""

    # The copy's lock, held while the pipe is open (as a ``Session`` writer holds its
    # file's): the viewer tells its writer at work. Its end says nothing of the writer
    # (``writers.pipe_copy``): the copy is then judged by its mtime, the last line's time,
    # set before the lock is let go (its own descriptor: ``copy_whole`` closes ``out``).
    lock = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    fcntl.flock(lock, fcntl.LOCK_EX)
    out = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)

    def copy() -> None:
        try:
            copied = copy_whole(source, path, out)
        except StdinError as err:
            said, error = f"{err}; what came before is shown", True
        else:
            said, error = f"standard input ended, after {size_text(copied)}", False
        finally:
            _ENDED.add(os.path.realpath(path))  # (before its lock goes: the screen looks then)
            os.close(lock)  # (before it is told: ``tell`` waits for the screen to run)
            os.close(source)
        told(said, error)

    thread = threading.Thread(target=copy, name="tailscope-stdin", daemon=True)
    thread.start()
    return thread


def tell(app: App[Any], message: str, error: bool) -> None:
    """``message`` as the app's notification, from another thread, once the app runs (a
    short pipe ends before it has started); none once it has ended."""
    deadline = time.monotonic() + 60
    while not app.is_running:
        if app.return_code is not None or time.monotonic() > deadline:
            return
        time.sleep(0.05)
    severity = "error" if error else "information"
    with contextlib.suppress(RuntimeError):  # (it ended meanwhile)
        app.call_from_thread(app.notify, message, severity=severity, timeout=10 if error else 5)


__all__ = [
    "NAME",
    "STDIN",
    "STDIN_CLOSED",
    "StdinError",
    "copy_as_it_comes",
    "copy_whole",
    "input_ended",
    "is_piped",
    "is_spool",
    "keys_from_terminal",
    "regular_file",
    "remove_spool",
    "spool_path",
    "stdin_closed",
    "stdin_file",
    "stdin_written_by",
    "tell",
]
