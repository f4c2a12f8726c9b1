"""Following changes nothing: the file's bytes, inode and mtime stay as they were, it is
opened read only, and no lock is held."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
from pathlib import Path

from follow_helpers import (
    Follower,
    append_raw,
    caught_up,
    message_line,
    records,
    transcript_at,
)


def fingerprint(path: Path) -> tuple[str, int, int, int, int]:
    st = os.stat(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest, st.st_ino, st.st_dev, st.st_mtime_ns, st.st_size


# --- following changes nothing -------------------------------------------------------


def _our_fds_on(path: Path) -> list[int]:
    target = os.path.realpath(path)
    found = []
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{name}") == target:
                found.append(int(name))
    return found


async def test_following_changes_nothing_and_takes_no_lock(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 50)
    append_raw(path, b'{"broken": \n')  # damage is shown, never repaired
    append_raw(path, message_line("partial")[:-7])  # a crash tail: held back, never cut
    os.utime(path, ns=(1_000_000_000, 2_000_000_000))
    before = fingerprint(path)
    listing = sorted(os.listdir(tmp_path))
    async with Follower(path, force_polling=polling) as f:
        first = await f.next()
        assert first.envelopes == records(path, skip_bad=True)  # the crash tail is held back
        assert any("line 52" in w for w in first.warnings)
        await asyncio.sleep(0.3)
        if os.path.isdir("/proc/self/fd"):
            fds = _our_fds_on(path)
            assert fds, "the follower keeps the file open"
            for fd in fds:
                info = Path(f"/proc/self/fdinfo/{fd}").read_text()
                mode = int(info.split("flags:")[1].split()[0], 8)
                assert mode & os.O_ACCMODE == os.O_RDONLY
        assert fingerprint(path) == before
        assert sorted(os.listdir(tmp_path)) == listing
    assert fingerprint(path) == before
    # No lock is held while following: the writer's exclusive flock is free to take.
    async with caught_up(path, force_polling=polling) as f:
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the follower held one
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    assert fingerprint(path) == before
