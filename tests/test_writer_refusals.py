"""Both writers refuse what they cannot do before they change anything, free the file
when they fail or are dropped, and say why in words that can be printed."""

from __future__ import annotations

import dataclasses
import enum
import gc
import os
import threading
from pathlib import Path
from typing import Any

import orjson
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


def test_both_writers_say_another_programs_write_in_one_wording(tmp_path: Path) -> None:
    """(one rule beside ``events.file_identity``: v1's said "last read or wrote it",
    agentgo's "last wrote it")"""
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        foreign_append(path, b"not json\n")
        with pytest.raises(TranscriptError) as v1:
            session.append_message(Message(role="user", content="after"))
    path = tmp_path / "a.jsonl"
    writer = AgentGoSession.create(path)
    foreign_append(path, b'{"foreign": true}\n')
    with pytest.raises(TranscriptError) as agentgo:
        writer.begin_run()
    with pytest.raises(TranscriptError):
        writer.close()
    said = {caught.value.reason.split(";")[0] for caught in (v1, agentgo)}
    assert len(said) == 1 and "changed on disk" in said.pop()


# -- an agentgo session dropped unclosed frees its file, writing nothing -----------------


@pytest.mark.parametrize("how", ["created", "opened"])
def test_an_agentgo_session_dropped_without_close_frees_the_lock(
    tmp_path: Path, gc_off: None, how: str
) -> None:
    path = tmp_path / "a.jsonl"
    if how == "opened":
        AgentGoSession.create(path).close()
    session = AgentGoSession.create(path) if how == "created" else AgentGoSession.open(path)
    before = path.read_bytes()
    del session  # (no cycle: freed by its count alone)
    assert path.read_bytes() == before
    AgentGoSession.open(path).close()


def test_an_agentgo_session_dropped_with_a_run_open_frees_the_lock_writing_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.jsonl"
    session = AgentGoSession.create(path)
    session.begin_run().record("agent_start")
    before = path.read_bytes()
    del session  # (it and its run hold each other: freed by the cycle collector)
    gc.collect()
    assert path.read_bytes() == before  # no run_close written for it
    with AgentGoSession.open(path) as again:
        again.begin_run().record("agent_start")
    types = [line.split(b'"type":"')[1].split(b'"')[0] for line in path.read_bytes().splitlines()]
    first = [b"session_start", b"run_start", b"agent_start"]  # (its run left unclosed)
    assert types == [*first, b"run_start", b"agent_start", b"run_close"]


# -- refusals say what failed ----------------------------------------------------------


def test_a_repair_that_cannot_make_its_copy_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only folder: the file is writable, its ``.repair`` cannot be made beside it
    (root may make it anyway, so for root the system's refusal is played by ``os.open``)."""
    path = tmp_path / "t.jsonl"
    written(path)
    with open(path, "ab") as fh:
        fh.write(b'{"id":"cut')
    before = fingerprint(path)
    real_open = os.open

    def no_new_files(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real_open(file, flags, *args, **kwargs)

    tmp_path.chmod(0o555)
    try:
        if os.geteuid() == 0:
            monkeypatch.setattr(os, "open", no_new_files)
        with pytest.raises(TranscriptError) as caught:
            Session.load(path)
    finally:
        tmp_path.chmod(0o755)
    assert caught.value.path == str(path)
    assert caught.value.reason == (
        "cannot repair the crash tail (creating t.jsonl.repair: Permission denied)"
    )
    assert fingerprint(path) == before


@pytest.mark.parametrize("create", [Session.create, AgentGoSession.create], ids=["v1", "agentgo"])
@pytest.mark.parametrize("under", ["notes/t.jsonl", "notes/deeper/t.jsonl"])
def test_create_under_a_file_says_the_file_is_no_folder(
    tmp_path: Path, create: Any, under: str
) -> None:
    (tmp_path / "notes").write_text("not a folder\n")
    with pytest.raises(TranscriptError) as caught:
        create(tmp_path / under)
    assert caught.value.reason.endswith(f": {tmp_path / 'notes'} is a file, not a folder")
    assert (tmp_path / "notes").read_text() == "not a folder\n"


@pytest.mark.parametrize(
    "opener",
    [Session.create, AgentGoSession.create, Session.load, AgentGoSession.open],
    ids=["v1-create", "agentgo-create", "v1-load", "agentgo-open"],
)
def test_an_empty_path_is_said_to_be_empty(opener: Any) -> None:
    with pytest.raises(TranscriptError) as caught:
        opener("")
    assert str(caught.value).startswith("the path is empty")  # (not ": cannot create…")


# -- a number JSON cannot hold is refused, not written null ------------------------------


@dataclasses.dataclass
class Cost:
    cost: float
    _cache: float = float("nan")  # (orjson writes no attribute named so: not refused)


@dataclasses.dataclass
class Slotted:
    __slots__ = ("costs",)
    costs: list[float]


class Priced(enum.Enum):
    UNKNOWN = float("nan")


NOT_FINITE = [
    {"f": float("nan")},
    {"usage": {"prompt-tokens": 3, "cost": float("inf")}},
    {"usage": {"costs": [0.5, -float("inf")]}},
    # (what orjson writes on its own beside dicts and lists: dataclasses, enum members)
    {"usage": Cost(float("nan"))},
    {"usage": [Slotted([1.0, float("inf")])]},
    {"usage": {"cost": Priced.UNKNOWN}},
]
NOT_FINITE_IDS = ["nan", "usage-inf", "in-a-list", "dataclass", "slots-dataclass", "enum"]


@pytest.mark.parametrize("extra", NOT_FINITE, ids=NOT_FINITE_IDS)
def test_a_message_holding_a_non_finite_number_is_refused(
    tmp_path: Path, extra: dict[str, Any]
) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        before = path.read_bytes()
        with pytest.raises(RefusedAppendError, match=r"is (NaN|infinite)") as caught:
            session.append_message(Message(role="assistant", content="hi"), extra=extra)
        assert caught.value.path == str(path)
        assert path.read_bytes() == before
        with pytest.raises(RefusedAppendError, match=r"is (NaN|infinite)"):
            session.append_event(type="x-note", payload=extra)
        assert path.read_bytes() == before
        session.append_message(Message(role="assistant", content="hi"), extra={"f": 1.5})
    with pytest.raises(RefusedAppendError, match=r"usage\.cost is infinite"):
        Session.create(tmp_path / "m.jsonl", meta=NOT_FINITE[1])
    assert not (tmp_path / "m.jsonl").exists()


@pytest.mark.parametrize("data", NOT_FINITE, ids=NOT_FINITE_IDS)
def test_an_agentgo_record_holding_a_non_finite_number_is_refused(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    path = tmp_path / "a.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    before = path.read_bytes()
    with pytest.raises(RefusedAppendError, match=r"is (NaN|infinite)"):
        run.record("custom", data)
    assert path.read_bytes() == before
    with pytest.raises(RefusedAppendError, match="could not be encoded"):  # (sticky: the spec)
        session.close()
    assert path.read_bytes() == before


def test_what_orjson_writes_of_a_dataclass_is_what_is_looked_at(tmp_path: Path) -> None:
    """A NaN in an attribute orjson leaves out (a leading underscore) writes nothing."""
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="assistant", content="hi"), extra={"u": Cost(0.5)})
    assert b'"u":{"cost":0.5}' in path.read_bytes()


def test_a_fragment_that_is_no_json_is_refused(tmp_path: Path) -> None:
    """An ``orjson.Fragment`` is written as it is: one holding NaN would make a line that
    is no JSON (damage to every reader), so both writers refuse it, writing nothing."""
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        before = path.read_bytes()
        with pytest.raises(RefusedAppendError, match="Fragment that is no JSON"):
            session.append_event(type="x-note", payload={"f": orjson.Fragment(b"[NaN]")})
        assert path.read_bytes() == before
        session.append_event(type="x-note", payload={"f": orjson.Fragment(b"[1.5]")})
    assert b'"payload":{"f":[1.5]}' in path.read_bytes()
    agentgo = tmp_path / "a.jsonl"
    session_ag = AgentGoSession.create(agentgo)
    run = session_ag.begin_run()
    before = agentgo.read_bytes()
    with pytest.raises(RefusedAppendError, match="Fragment that is no JSON"):
        run.record("custom", {"f": orjson.Fragment(b"NaN")})
    assert agentgo.read_bytes() == before
    with pytest.raises(RefusedAppendError, match="could not be encoded"):  # (sticky)
        session_ag.close()
