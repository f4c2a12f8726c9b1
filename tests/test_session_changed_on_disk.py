"""A loaded ``Session`` reads its lines again from the file by their spans: it must never
hand back bytes that something else wrote there after it loaded them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from session_core import Message, Session, TranscriptError


def written(path: Path, count: int = 5) -> None:
    with Session.create(path, meta={"agent": "changed-test"}) as session:
        for number in range(count):
            session.append_message(Message(role="user", content=f"hello {number}"))


def overwrite_in_place(path: Path, old: bytes, new: bytes) -> None:
    """What ``cp other path`` or an editor's save does: same inode, new bytes."""
    data = path.read_bytes()
    assert old in data and len(old) == len(new)
    with open(path, "r+b") as fh:
        fh.write(data.replace(old, new))


def test_a_loaded_session_refuses_lines_overwritten_under_it(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    written(path)
    with Session.load(path) as session:
        overwrite_in_place(path, b"hello 2", b"HELLO 2")
        with pytest.raises(TranscriptError) as caught:
            session.messages()
        assert caught.value.path == str(path)
        assert caught.value.line is not None
        assert "changed on disk" in caught.value.reason
        before = path.read_bytes()
        with pytest.raises(TranscriptError, match="changed on disk"):
            session.append_message(Message(role="user", content="after"))
        assert path.read_bytes() == before  # refused before anything was written


def test_a_line_already_read_keeps_what_was_loaded(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    written(path)
    with Session.load(path) as session:
        loaded = [message.content for message in session.messages()]
        overwrite_in_place(path, b"hello 2", b"HELLO 2")
        assert [message.content for message in session.messages()] == loaded


def test_the_sessions_own_appends_change_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    written(path)
    with Session.load(path) as session:
        session.append_message(Message(role="assistant", content="mine"))
        session.state.events._cache.clear()  # every line read again from the file
        contents = [message.content for message in session.messages()]
    assert contents == [f"hello {number}" for number in range(5)] + ["mine"]


def test_a_closed_session_reads_past_another_writers_appends(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    written(path)
    first = Session.load(path)
    first.close()
    with Session.load(path) as second:
        second.append_message(Message(role="user", content="later"))
    assert [message.content for message in first.messages()][-1] == "hello 4"


def test_a_session_refuses_a_file_grown_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    written(path)
    with Session.load(path) as session:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # not through the lock
        os.write(fd, path.read_bytes().splitlines(keepends=True)[-1])
        os.close(fd)
        with pytest.raises(TranscriptError, match="changed on disk"):
            session.append_message(Message(role="user", content="after"))
