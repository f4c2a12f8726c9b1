"""One writer per file: an advisory flock, checked against the path's current inode."""

from __future__ import annotations

import fcntl
import os

from .compressed import is_zstd
from .errors import RefusedAppendError, TranscriptError, WriterLockedError


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
