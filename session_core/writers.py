"""Is a writer holding this transcript? Answered from /proc/locks, without touching the file."""

from __future__ import annotations

import os


def writer_holds_lock(path: str | os.PathLike[str], locks: str = "/proc/locks") -> bool | None:
    """True when some process holds a flock on the file (as ``Session`` writers do).

    None when the kernel does not say (no /proc/locks, or the file is gone).
    Reading /proc/locks takes no lock and opens nothing but that table.
    """
    try:
        st = os.stat(path)
        with open(locks, encoding="ascii", errors="replace") as fh:
            table = fh.read()
    except OSError:
        return None
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    wanted = {
        f"{major:02x}:{minor:02x}:{st.st_ino}",
        f"{major:x}:{minor:x}:{st.st_ino}",
        f"{major}:{minor}:{st.st_ino}",
    }
    for line in table.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; blocked waiters start with "->".
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] in wanted:
            return True
    return False
