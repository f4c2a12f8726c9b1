"""What the ``tailscope demo`` tests share: reading a demo file through a ``Session.load``
of a copy, the writer's lock at the crash, and the writer run as a real process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from session_core import Session, WriterLockedError
from viewer.demo import simulate_run

T = TypeVar("T")


def loaded_copy(path: Path, where: Path) -> Session:
    """Session.load on a copy (load may repair, and the original is the writer's)."""
    where.mkdir(parents=True, exist_ok=True)
    copy = where / path.name
    shutil.copyfile(path, copy)
    return Session.load(copy)


def from_copy(path: Path, where: Path, read: Callable[[Session], T]) -> T:
    """``read`` of a ``Session.load`` of a copy of the file (closed after)."""
    session = loaded_copy(path, where)
    try:
        return read(session)
    finally:
        session.close()


def pending_in_copy(path: Path, where: Path) -> int:
    """How many tool operations a load of a copy of the file finds pending."""
    return len(from_copy(path, where, Session.pending_tool_operations))


def assert_still_held_at_crash(path: Path, reopen: Callable[[Path], object], **kw: Any) -> None:
    """``simulate_run``'s ``at_crash`` runs with the file whole and the writer's lock held:
    ``reopen`` (a writer's open) is refused then."""
    seen: list[int] = []

    def at_crash() -> None:
        seen.append(path.stat().st_size)
        with pytest.raises(WriterLockedError):
            reopen(path)  # the writer still holds its lock: it has not closed

    simulate_run(str(path), speed=0, at_crash=at_crash, **kw)
    assert seen == [path.stat().st_size]


def run_write_command(path: Path, *options: str) -> None:
    """``python -m viewer.demo write`` at full speed: it ends killed by SIGKILL (the crash)."""
    done = subprocess.run(
        [sys.executable, "-m", "viewer.demo", "write", str(path), "--speed", "0", *options],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == -9, done.stderr.decode()
