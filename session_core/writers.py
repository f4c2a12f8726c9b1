"""Is a writer holding this transcript? Answered from /proc/locks, without touching the file.

``LockTable`` is the one reader of that table: a directory scan reads it once for many
files, ``writer_holds_lock`` once for one.
"""

from __future__ import annotations

import os


class LockTable:
    """One read of /proc/locks, asked about many files (a directory scan reads it once)."""

    def __init__(self, text: str | None) -> None:
        self.known = text is not None
        self.held: set[str] = set()
        for line in (text or "").splitlines():
            fields = line.split()
            # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; blocked waiters start with "->".
            if len(fields) >= 6 and fields[1] == "FLOCK":
                self.held.add(fields[5])

    @classmethod
    def read(cls, path: str = "/proc/locks") -> LockTable:
        try:
            with open(path, encoding="ascii", errors="replace") as fh:
                return cls(fh.read())
        except OSError:
            return cls(None)

    def holds(self, device: int, inode: int) -> bool | None:
        if not self.known:
            return None
        major, minor = os.major(device), os.minor(device)
        return any(
            key in self.held
            for key in (
                f"{major:02x}:{minor:02x}:{inode}",
                f"{major:x}:{minor:x}:{inode}",
                f"{major}:{minor}:{inode}",
            )
        )


# The files (path, device, inode) this process saw a writer's lock on: a writer seen to
# lock its file and gone is gone, for every read path of the process alike (the viewer's
# export said "running" of a call its screen said was interrupted, the lock it saw gone).
# The path too: an inode number is given again to a file made after one is removed.
_LOCKS_SEEN: set[tuple[str, int, int]] = set()


def writer_holds_lock(path: str | os.PathLike[str], locks: str = "/proc/locks") -> bool | None:
    """True when some process holds a flock on the file (as ``Session`` writers do).

    None when the kernel does not say (no /proc/locks, or the file is gone).
    Reading /proc/locks takes no lock and opens nothing but that table. A lock found
    is remembered (``lock_seen``).
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    held = LockTable.read(locks).holds(st.st_dev, st.st_ino)
    if held:
        _LOCKS_SEEN.add((os.path.realpath(path), st.st_dev, st.st_ino))
    return held


def lock_seen(path: str | os.PathLike[str]) -> bool:
    """Whether this process saw a writer hold this file's lock (this inode's)."""
    if not _LOCKS_SEEN:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (os.path.realpath(path), st.st_dev, st.st_ino) in _LOCKS_SEEN
