"""How a follower opens and reads a file without changing it: read-only, never waiting
on a FIFO that took the file's place, its access time left alone where the system
allows; and the blocks it reads into again (``TailReader``)."""

from __future__ import annotations

import os


def unviewed(blocks: list[bytearray]) -> bytearray | None:
    """One of ``blocks`` that no view holds: resizing a bytearray with live views raises
    ``BufferError`` (and one byte off and back on moves nothing)."""
    for block in blocks:
        try:
            last = block.pop()
        except BufferError:
            continue
        block.append(last)
        return block
    return None


_NOATIME = getattr(os, "O_NOATIME", 0)


def open_read_only(path: str) -> int:
    """A descriptor of ``path`` for reading alone."""
    # O_NONBLOCK: should a FIFO take the file's place after our stat, opening it
    # must not wait for a writer (it changes nothing for a regular file).
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK
    if _NOATIME:
        try:
            return os.open(path, flags | _NOATIME)
        except PermissionError:
            pass
    return os.open(path, flags)


__all__ = ["open_read_only", "unviewed"]
