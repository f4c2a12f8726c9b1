"""Both writers refuse what they cannot do before they change anything, free the file
when they fail or are dropped, and say why in words that can be printed."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from session_core import Message, Session, TranscriptError
from session_core.agentgo import AgentGoSession
from session_core.errors import RefusedAppendError


def written(path: Path, count: int = 3) -> None:
    with Session.create(path, meta={"agent": "refusals"}) as session:
        for number in range(count):
            session.append_message(Message(role="user", content=f"hello {number}"))


def fingerprint(path: Path) -> tuple[bytes, int, int]:
    info = path.stat()
    return path.read_bytes(), info.st_ino, info.st_mode


@pytest.fixture
def gc_off() -> Iterator[None]:
    """Only reference counting frees an object: what a dropped session holds is freed
    at once, or not until the cycle collector runs (which a test cannot wait for)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def refuse_writing(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """``path`` (0444) cannot be opened for writing. Root may write to a read-only file,
    so for root the system's refusal is played by ``os.open``; the directory stays
    writable either way (a repair's rename into it would succeed)."""
    path.chmod(0o444)
    if os.geteuid() != 0:
        return
    real_open = os.open

    def open_as_a_user(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(file) == str(path) and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_as_a_user)


# -- a load that will be refused changes nothing --------------------------------------


@pytest.mark.parametrize(
    "tail",
    [b'{"id":"cut', b'{"v":1,"type":"event","id":"whole","ts":"t","payload":{}}'],
    ids=["cut-line", "whole-line-no-newline"],
)
def test_a_load_refused_for_writing_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: bytes
) -> None:
    path = tmp_path / "t.jsonl"
    written(path)
    with open(path, "ab") as fh:
        fh.write(tail)
    refuse_writing(monkeypatch, path)
    before = fingerprint(path)
    with pytest.raises(TranscriptError, match="Permission denied") as caught:
        Session.load(path)
    assert caught.value.path == str(path)
    assert fingerprint(path) == before  # not repaired (renamed over) before the refusal
    assert sorted(os.listdir(tmp_path)) == ["t.jsonl"]


# -- a created session is checked as a loaded one is ----------------------------------


def foreign_append(path: Path, line: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # not through the lock
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def test_a_created_session_refuses_after_another_program_wrote(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="user", content="mine"))
        foreign_append(path, b"this is not json\n")
        before = path.read_bytes()
        with pytest.raises(TranscriptError, match="changed on disk") as caught:
            session.append_message(Message(role="user", content="after"))
        assert caught.value.path == str(path)
        assert path.read_bytes() == before  # the foreign line stays the last line
    with Session.load(path) as loaded:  # (its tail: a crash tail, so cut)
        assert [message.content for message in loaded.messages()] == ["mine"]


def test_an_agentgo_session_refuses_after_another_program_wrote(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    run.record("note", {"text": "mine"})
    foreign_append(path, b'{"foreign": true}\n')
    before = path.read_bytes()
    with pytest.raises(TranscriptError, match="changed on disk") as caught:
        run.record("note", {"text": "after"})
    assert caught.value.path == str(path)
    with pytest.raises(TranscriptError, match="changed on disk"):
        session.close()  # (the run is not closed over the foreign line either)
    assert path.read_bytes() == before


# -- a FIFO is refused at once ---------------------------------------------------------


@pytest.mark.parametrize("create", [Session.create, AgentGoSession.create], ids=["v1", "agentgo"])
def test_create_on_a_fifo_is_refused_at_once(tmp_path: Path, create: Any) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            create(fifo).close()
            outcome.append(None)
        except BaseException as err:  # (told to the test's thread)
            outcome.append(err)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(5)
    if worker.is_alive():  # blocked in open() until a reader comes: be that reader
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        worker.join(5)
        pytest.fail("create waited on a FIFO for a reader")
    assert len(outcome) == 1 and isinstance(outcome[0], TranscriptError)
    assert "not a regular file" in str(outcome[0])


# -- a failed or dropped session frees its file -----------------------------------------


def test_a_failed_create_frees_the_lock_and_removes_the_file_it_made(
    tmp_path: Path, gc_off: None
) -> None:
    path = tmp_path / "t.jsonl"
    with pytest.raises(RefusedAppendError, match="cannot encode"):
        Session.create(path, meta={"x": {1, 2}})  # (a set: no JSON)
    assert not path.exists()
    Session.create(path, meta={}).close()  # not "another writer has this transcript open"


def test_a_failed_create_keeps_the_empty_file_it_did_not_make(tmp_path: Path, gc_off: None) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    with pytest.raises(RefusedAppendError, match="cannot encode"):
        Session.create(path, meta={"x": {1, 2}})
    assert path.exists() and path.read_bytes() == b""
    Session.create(path, meta={}).close()


@pytest.mark.parametrize("how", ["created", "loaded"])
def test_a_session_dropped_without_close_frees_the_lock(
    tmp_path: Path, gc_off: None, how: str
) -> None:
    path = tmp_path / "t.jsonl"
    written(path)
    if how == "created":
        path.unlink()
    session = Session.create(path) if how == "created" else Session.load(path)
    session.messages()
    del session
    with Session.load(path) as again:
        again.append_message(Message(role="user", content="next writer"))


# -- refusals are TranscriptErrors, printable -----------------------------------------


@pytest.mark.parametrize("create", [Session.create, AgentGoSession.create], ids=["v1", "agentgo"])
def test_create_of_a_path_with_a_nul_byte_is_a_transcript_error(
    tmp_path: Path, create: Any
) -> None:
    with pytest.raises(TranscriptError, match="NUL"):
        create(str(tmp_path / "a\0b.jsonl"))
    assert os.listdir(tmp_path) == []


def test_a_refusal_naming_the_callers_lone_surrogate_can_be_printed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session, pytest.raises(RefusedAppendError) as caught:
        session.append_event(type="x-\ud800", payload={})
    said = str(caught.value)
    said.encode("utf-8")  # (print() to a UTF-8 stream: no UnicodeEncodeError)
    assert "x-\\ud800" in said
    assert caught.value.reason.startswith("cannot encode the x-\ud800 line")  # (as given)


def test_an_agentgo_refusal_naming_a_lone_surrogate_can_be_printed(tmp_path: Path) -> None:
    session = AgentGoSession.create(tmp_path / "a.jsonl")
    run = session.begin_run()
    with pytest.raises(TranscriptError) as caught:
        run.record("x-\ud800", {})
    str(caught.value).encode("utf-8")
    assert "x-\\ud800" in str(caught.value)


def test_an_error_naming_an_undecodable_file_name_can_be_printed(tmp_path: Path) -> None:
    where = os.fsdecode(os.fsencode(str(tmp_path)) + b"/\xff.jsonl")  # (a surrogate)
    with pytest.raises(TranscriptError) as caught:
        Session.load(where)
    assert caught.value.path == where  # the path as given, to open it by
    str(caught.value).encode("utf-8")


def _full_disk(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Writes fail with nothing written, as on a full disk, which still changes the file's
    modification time (ext4, tmpfs)."""
    import errno

    import session_core.session as session_module

    def write(fd: int, data: Any) -> int:
        later = path.stat().st_mtime_ns + 10_000_000
        os.utime(path, ns=(later, later))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(session_module.os, "write", write)


@pytest.mark.parametrize("how", ["create", "load"])
def test_a_write_that_failed_having_written_nothing_leaves_the_session_appending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """(the review: a created or loaded session refused every later append as "changed
    on disk" after a full disk, the failed write's mtime taken for another program's)"""
    path = tmp_path / "t.jsonl"
    session = Session.create(path)
    if how == "load":
        session.close()
        session = Session.load(path)
    with monkeypatch.context() as patch:
        _full_disk(patch, path)
        with pytest.raises(TranscriptError, match="No space left"):
            session.append_message(Message(role="user", content="lost"))
    session.append_message(Message(role="user", content="after space freed"))
    session.close()
    assert path.read_bytes().count(b"\n") == 2


def test_a_foreign_write_then_a_failed_one_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    session = Session.create(path)
    with path.open("ab") as other:
        other.write(b'{"id":"x","payload":{},"type":"x-note","v":1}\n')
    with monkeypatch.context() as patch:
        _full_disk(patch, path)
        with pytest.raises(TranscriptError):
            session.append_message(Message(role="user", content="lost"))
    with pytest.raises(TranscriptError, match="changed on disk"):
        session.append_message(Message(role="user", content="refused"))
    session.close()


def _foreign_during_the_write(monkeypatch: pytest.MonkeyPatch, module: Any, path: Path) -> None:
    """Another program's line lands in the file just as the session writes its own."""
    real = os.write

    def write(fd: int, data: Any) -> int:
        with path.open("ab") as other:
            other.write(b'{"foreign":true}\n')
        monkeypatch.setattr(module.os, "write", real)
        return real(fd, data)

    monkeypatch.setattr(module.os, "write", write)


def test_a_foreign_line_landing_beside_an_append_is_said_on_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(the last review: each writer took the file as it was just after its own write,
    so a line another program appended between its look and its write went unseen)"""
    import session_core.agentgo.writer as agentgo_writer
    import session_core.session as session_module

    path = tmp_path / "t.jsonl"
    session = Session.create(path)
    _foreign_during_the_write(monkeypatch, session_module, path)
    session.append_message(Message(role="user", content="mine"))
    with pytest.raises(TranscriptError, match="changed on disk"):
        session.append_message(Message(role="user", content="refused"))
    session.close()
    path = tmp_path / "a.jsonl"
    writer = AgentGoSession.create(path)
    run = writer.begin_run()
    _foreign_during_the_write(monkeypatch, agentgo_writer, path)
    run.record("agent_start")
    with pytest.raises(TranscriptError, match="changed on disk"):
        run.record("agent_end", {})
    with pytest.raises(TranscriptError, match="changed on disk"):  # (close says it too)
        writer.close()
