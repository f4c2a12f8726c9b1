"""An update of a file that cannot be read now (its folder closed, or replaced by a file
that may not be opened) says where reading stands, as the last one that read did: its
offset, size and held-back line, never 0s, which a reader took for the file's (the
size "0 B", the last line unfinished no more, the first update's size after a drain)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import file_permissions_apply

from session_core import Message, Session
from session_core.following import _drain
from session_core.live import LiveTranscript
from session_core.tail_reader import TailReader

SIZE = (160, 30)
HELD = b'{"type": "message", "id": "m-cut", "pay'  # (its writer was cut short)


def _written(folder: Path) -> Path:
    folder.mkdir()
    path = folder / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as s:
        for n in range(20):
            s.append_message(Message(role="user", content=f"line {n} " + "x" * 40))
    with open(path, "ab") as out:
        out.write(HELD)
    return path


def _said_unfinished(warnings: list[str]) -> bool:
    return any(w.startswith("line 22 ") and "unfinished" in w for w in warnings)


def _close(path: Path, how: str) -> None:
    """Make the file unreadable from now on: its folder closed, or the file replaced by
    one of mode 000 (a new inode the follower may not open)."""
    if how == "folder":
        path.parent.chmod(0)
        return
    other = path.with_name("other")
    other.write_bytes(path.read_bytes() + b"\n")
    other.chmod(0)
    os.replace(other, path)


@pytest.fixture(params=["folder", "replaced"])
def how(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_an_unreadable_update_says_where_reading_stands(tmp_path: Path, how: str) -> None:
    path = _written(tmp_path / "d")
    try:
        with file_permissions_apply():
            tail = TailReader(str(path))
            read = tail.step(None)
            assert read is not None and read.held == len(HELD) and read.held_line == 22
            _close(path, how)
            shut = tail.step(None)
            assert shut is not None and shut.problem is not None
            assert "Permission denied" in shut.problem and not shut.reset
            placed = (shut.offset, shut.size, shut.held, shut.held_line, shut.format)
            assert placed == (read.offset, read.size, read.held, read.held_line, read.format)
            assert shut.source is read.source
    finally:
        path.parent.chmod(0o755)
        path.chmod(0o644)


def test_a_drained_first_update_keeps_the_size_read(tmp_path: Path, how: str) -> None:
    """``follow``'s first update drained (a reset read in batches): the file closed before
    its last batch leaves the size and offset of what was read, which a live reader keeps
    (it took the update's 0 as the file's size: it has lines)."""
    path = _written(tmp_path / "d")
    size = path.stat().st_size
    try:
        with file_permissions_apply():
            tail = TailReader(str(path))
            first = tail.step(256)
            assert first is not None and not first.caught_up and first.lines
            read_to = first.offset
            _close(path, how)
            whole = _drain(tail, first)
            assert whole.problem is not None and "Permission denied" in whole.problem
            assert (whole.offset, whole.size) == (read_to, size) and read_to > 0
            live = LiveTranscript(str(path))
            live.apply(whole)
            assert live.size == size
    finally:
        path.parent.chmod(0o755)
        path.chmod(0o644)


async def test_the_viewer_keeps_the_unfinished_line_of_a_file_closed(tmp_path: Path) -> None:
    from helpers import app_loaded, screen_lines, wait_for

    from viewer.screens.model_screen import ModelScreen

    path = _written(tmp_path / "d")
    old = path.stat().st_mtime - 3600  # (its writer long gone: the line said unfinished)
    os.utime(path, (old, old))
    try:
        with file_permissions_apply():
            async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
                screen = app.file_screen
                await wait_for(pilot, lambda: screen.held_line == 22)
                span = screen.held_span
                await wait_for(pilot, lambda: _said_unfinished(screen.transcript.warnings))
                path.parent.chmod(0)
                await wait_for(pilot, lambda: "Permission denied" in " ".join(screen_lines(app)))
                await pilot.pause(0.3)
                assert (screen.held_line, screen.held_span) == (22, span)
                assert _said_unfinished(screen.transcript.warnings)
    finally:
        path.parent.chmod(0o755)


def test_a_restarted_reader_says_none_of_the_old_files_size(tmp_path: Path) -> None:
    """A file removed starts the reader again (nothing of it read); one put in its place
    that cannot be opened is said to stand at its start, of size 0, as the reset said:
    never at the size of the file removed, which a reader took for this one's."""
    path = _written(tmp_path / "d")
    try:
        with file_permissions_apply():
            tail = TailReader(str(path))
            read = tail.step(None)
            assert read is not None and read.size > 0
            path.unlink()
            gone = tail.step(None)
            assert gone is not None and gone.reset and not gone.exists and gone.size == 0
            path.write_bytes(b'{"type": "message"}\n' * 3)
            path.chmod(0)
            shut = tail.step(None)
            assert shut is not None and shut.problem is not None
            assert "Permission denied" in shut.problem
            assert (shut.offset, shut.size, shut.held, shut.source) == (0, 0, 0, None)
    finally:
        path.chmod(0o644)


def test_a_removed_file_in_a_folder_closed_says_none_of_its_size(tmp_path: Path) -> None:
    """Removed (the reader starts again), then its folder closed: the path cannot even
    be looked at; where reading stands is its start, no size read of any file."""
    path = _written(tmp_path / "d")
    try:
        with file_permissions_apply():
            tail = TailReader(str(path))
            read = tail.step(None)
            assert read is not None and read.size > 0
            path.unlink()
            assert tail.step(None) is not None
            path.parent.chmod(0)
            shut = tail.step(None)
            assert shut is not None and shut.problem is not None
            assert "Permission denied" in shut.problem
            assert (shut.offset, shut.size) == (0, 0)
    finally:
        path.parent.chmod(0o755)
