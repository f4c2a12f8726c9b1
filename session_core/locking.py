"""One writer per file: an advisory flock, checked against the path's current inode."""

from __future__ import annotations

import contextlib
import fcntl
import os
import weakref
from collections.abc import Callable

from .compressed import is_zstd
from .errors import RefusedAppendError, TranscriptError, WriterLockedError
from .reader import NotAFileError, empty_path, no_path, open_regular_fd


def lock_fd(fd: int, path: str) -> None:
    """Take the writer lock on ``fd`` or close it and raise ``WriterLockedError``."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise WriterLockedError(
            "another writer has this transcript open (one writer per file)", path=path
        ) from None


def _compressed(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return is_zstd(fh.read(4))
    except OSError:
        return False


def _same_file(fd: int, path: str) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def open_locked(path: str, flags: int = os.O_RDONLY) -> int:
    """Open ``path`` and lock it; retried when a rename replaced the inode in between."""
    for _ in range(20):
        try:
            fd = os.open(path, flags | os.O_CLOEXEC)
        except OSError as err:
            raise TranscriptError(
                f"cannot open the transcript: {err.strerror or err}", path=path
            ) from None
        lock_fd(fd, path)
        if _same_file(fd, path):
            if _compressed(path):
                os.close(fd)
                raise RefusedAppendError(
                    "is zstd-compressed: a compressed transcript is read, never appended "
                    "to (a repair would cut it); decompress it to continue it",
                    path=path,
                )
            return fd
        os.close(fd)
    raise WriterLockedError("keeps being replaced under us; is another writer busy?", path=path)


def create_locked(path: str, noun: str) -> tuple[int, bool]:
    """``path`` opened to append and locked, made (and its folders) where it is missing,
    and whether this call made it (so only then may a failed create remove it). Only a
    regular file is opened: ``open_regular``'s rule (a FIFO's open waits for a reader)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    if not path:
        raise empty_path()
    try:
        folder = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(folder, exist_ok=True)
        except (FileExistsError, NotADirectoryError):  # (a file where a folder is needed)
            raise TranscriptError(
                f"cannot create the {noun}: {_in_the_way(folder)}", path=path
            ) from None
        try:
            fd, made = open_regular_fd(path, flags | os.O_EXCL), True
        except FileExistsError:
            fd, made = open_regular_fd(path, flags), False
    except (IsADirectoryError, NotAFileError):
        raise TranscriptError(f"is not a regular file, so not a {noun}", path=path) from None
    except OSError as err:
        raise TranscriptError(
            f"cannot create the {noun}: {err.strerror or err}", path=path
        ) from None
    except ValueError:
        raise no_path(path) from None
    lock_fd(fd, path)
    return fd, made


def _in_the_way(folder: str) -> str:
    """What stands where ``makedirs`` needed a folder: the nearest of ``folder`` and the
    folders above it that is there (so is no folder)."""
    while not os.path.lexists(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return f"{folder} is {'a file' if os.path.isfile(folder) else 'there'}, not a folder"


def remove_made(fd: int, path: str) -> None:
    """Remove the file a failed create made (its lock still held: no other writer has
    begun it), where ``path`` still names it."""
    if _same_file(fd, path):
        with contextlib.suppress(OSError):
            os.unlink(path)


def freed_when_dropped(
    owner: object, fds: tuple[int, ...], first: Callable[[], None] | None = None
) -> Callable[[], None]:
    """What closes ``fds`` (so frees the writer lock), after ``first``: once, called by
    the writer's ``close`` or, for a writer dropped unclosed, when it is collected. It
    holds no reference to ``owner`` and writes nothing. (Once only: a descriptor closed
    twice may by then be another file's.)"""
    return weakref.finalize(owner, _release, fds, first)


def _release(fds: tuple[int, ...], first: Callable[[], None] | None) -> None:
    if first is not None:
        first()
    for fd in fds:
        with contextlib.suppress(OSError):  # (already gone: nothing left to release)
            os.close(fd)
