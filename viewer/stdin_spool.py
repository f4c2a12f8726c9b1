"""``-`` for standard input: a pipe copied into a file the readers can seek.

Every reader reads a transcript by offset, and the viewer follows a file as it grows; a
pipe can do neither. So standard input is copied into ``stdin.jsonl`` in a folder of its
own under the system's temporary directory, removed when the command ends: whole before a
text command reads it (``zstdcat run.jsonl.zst | tailscope check -``), and as it comes
while the viewer follows it (``ssh host tail -f -n +1 run.jsonl | tailscope -``), the
viewer then reading its keys from the terminal (``/dev/tty``), as ``less`` does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

STDIN = "-"  # the path that names standard input
NAME = "stdin.jsonl"  # the copy's name: what the viewer's header and messages say
_CHUNK = 1 << 16


@contextlib.contextmanager
def spool_path() -> Iterator[Path]:
    """A new, empty ``stdin.jsonl`` in a folder of its own, removed with it afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="tailscope-"))
    try:
        path = folder / NAME
        path.touch(mode=0o600)
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def copy_whole(source: int, path: Path) -> None:
    """Standard input (``source``, a descriptor) into ``path``, to its end."""
    with open(path, "ab", buffering=0) as out:
        while chunk := os.read(source, _CHUNK):
            out.write(chunk)


def copy_as_it_comes(source: int, path: Path) -> threading.Thread:
    """Standard input into ``path`` as it arrives, in a thread that ends at its end (or
    when the process does: it is a daemon, blocked in a read the viewer never waits on)."""

    def copy() -> None:
        with contextlib.suppress(OSError):
            copy_whole(source, path)
        os.close(source)

    thread = threading.Thread(target=copy, name="tailscope-stdin", daemon=True)
    thread.start()
    return thread


def is_piped() -> bool:
    """Whether standard input is a pipe or a file (``cat x | tailscope``,
    ``tailscope < x``), not a terminal nor a device such as ``/dev/null``."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode  # (None, or not a descriptor: no)
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def keys_from_terminal() -> int:
    """Standard input moved to a new descriptor (returned), and the terminal
    (``/dev/tty``) put in its place, where Textual reads keys. ``OSError``: there is no
    terminal to read keys from (nothing was moved)."""
    tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        piped = os.dup(0)
        os.dup2(tty, 0)
    finally:
        os.close(tty)
    return piped


__all__ = [
    "NAME",
    "STDIN",
    "copy_as_it_comes",
    "copy_whole",
    "is_piped",
    "keys_from_terminal",
    "spool_path",
]
