"""Following a transcript replaced under the follower: truncated, renamed over, deleted,
not a regular file, repaired by a real ``Session.load`` while it is read; each a
reset, after which ``LiveTranscript`` is rebuilt from the new content alone."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from follow_helpers import (
    EMOJI,
    Follower,
    append_raw,
    assert_live_matches_load,
    caught_up,
    message_line,
    records,
    run_writer,
    transcript_at,
    write_transcript,
)

from session_core import Message, Session
from session_core.formats import V1

# Rounds of: load (which repairs the previous round's crash tail by renaming a new
# inode over the file), a quick burst of appends, then a crash in the middle of a line
# (cut inside a multi-byte character). The last round leaves a clean end marker.
CRASHING_WRITER = r"""
import os, sys
from session_core import Message, Session
path, rounds, burst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for r in range(rounds):
    s = Session.load(path)
    for i in range(burst):
        s.append_message(Message(role="assistant", content=f"round {r} line {i}"))
    s.close()
    cut = '{"id":"CUT","payload":{"content":"\u00fc\u20ac'.encode()[:-1]
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, cut)
    os.close(fd)
s = Session.load(path)
s.append_event(type="x-end", payload={"rounds": rounds})
s.close()
"""


# --- resets ---------------------------------------------------------------------------


async def test_truncation_resets(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 5)
    keep = len(b"".join(path.read_bytes().splitlines(keepends=True)[:3]))
    ino = path.stat().st_ino
    async with caught_up(path, force_polling=polling) as f:
        os.truncate(path, keep)  # the same inode, shorter, at a line boundary
        update = await f.next()
        assert update.reset and update.initial
        assert update.envelopes == records(path) and len(update.envelopes) == 3
        assert any("truncated" in w for w in update.warnings)
        os.truncate(path, 0)
        update = await f.next()
        assert update.reset and update.envelopes == []
        write_transcript(path, 2, tag="b")  # create refuses content, accepts the empty file
        assert path.stat().st_ino == ino
        await f.until(lambda f: len(f.current) == 3)
        assert f.current == records(path)
        assert f.current[0]["payload"] == {"agent": "b"}
        assert f.resets == 2
        f.assert_epochs_consistent()


@pytest.mark.parametrize("longer", [False, True], ids=["shorter", "longer"])
async def test_rename_replacement_resets(tmp_path: Path, polling: bool, longer: bool) -> None:
    path = transcript_at(tmp_path, 4)
    async with caught_up(path, force_polling=polling) as f:
        staging = tmp_path / "t.jsonl.new"
        if longer:
            # The old bytes and then some: only the inode says it is another file.
            shutil.copyfile(path, staging)
            s = Session.load(staging)
            for i in range(3):
                s.append_message(Message(role="assistant", content=f"more {i}"))
            s.close()
            assert staging.stat().st_size > path.stat().st_size
        else:
            write_transcript(staging, 1, tag="b")
        os.rename(staging, path)
        update = await f.next()
        assert update.reset and update.initial and update.exists
        assert any("replaced" in w for w in update.warnings)
        assert update.envelopes == records(path)
        assert update.lines[0] == 1
        assert f.current == records(path)
        append_raw(path, message_line("appended to the new inode"))
        update = await f.next()
        assert not update.reset and update.envelopes[0]["payload"]["content"].startswith("app")
        f.assert_epochs_consistent()


async def test_deleted_file_warns_and_waits_then_recreation_resets(
    tmp_path: Path, polling: bool
) -> None:
    path = transcript_at(tmp_path, 3)
    async with caught_up(path, force_polling=polling) as f:
        path.unlink()
        update = await f.next()
        assert not update.exists and update.reset and update.envelopes == []
        assert any("does not exist any more" in w for w in update.warnings)  # (it was there)
        assert not f.live.exists and f.live.state.messages() == []
        assert await f.quiet(0.5) == []  # a wait, not an error: no repeats, still running
        write_transcript(path, 2, tag="again")
        await f.until(lambda f: len(f.current) == 3)
        update = next(u for u in f.updates[::-1] if u.reset)
        assert update.exists and update.initial
        assert any("appeared again" in w for w in update.warnings)
        assert f.current == records(path)
        assert f.live.exists
        assert f.live.state.messages()[0].content.startswith("again 0")
        f.assert_epochs_consistent()


async def test_missing_at_start_then_created(tmp_path: Path, polling: bool) -> None:
    path = tmp_path / "t.jsonl"
    async with Follower(path, force_polling=polling) as f:
        first = await f.next()
        assert not first.exists and first.envelopes == [] and first.warnings
        write_transcript(path, 1)
        await f.until(lambda f: len(f.current) == 2)
        assert f.current == records(path)
        # It appeared; it never was there before, so nothing came "again".
        assert not any("again" in w for u in f.updates[1:] for w in u.warnings)


def test_a_replacement_while_the_first_update_is_read_is_not_mixed_in(tmp_path: Path) -> None:
    """A reset's first update is completed in one go; if the file is replaced again
    meanwhile, it carries the newest file alone, not the old file's head glued to it."""
    from session_core.following import _drain
    from session_core.tail_reader import TailReader

    path = transcript_at(tmp_path, 500)
    tail = TailReader(str(path))
    try:
        piece = tail.step(4096)  # the first bounded piece, as follow reads after a reset
        assert piece is not None and piece.initial and not piece.caught_up
        assert 0 < len(piece.envelopes) < 501
        staging = tmp_path / "t.jsonl.new"
        write_transcript(staging, 3, tag="b")
        os.rename(staging, path)
        update = _drain(tail, piece)
        assert update.reset and update.initial and update.caught_up
        assert update.envelopes == records(path)
        assert update.lines == [1, 2, 3, 4]
    finally:
        tail.close()


@pytest.mark.parametrize("kind", ["fifo", "directory"])
async def test_not_a_regular_file_is_a_warning_and_never_blocks(
    tmp_path: Path, polling: bool, kind: str
) -> None:
    path = tmp_path / "t.jsonl"
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    else:
        path.mkdir()
    with unsticking(path) as rescued:
        await _follow_a_non_file(path, polling, kind, rescued)


@contextlib.contextmanager
def unsticking(fifo: Path) -> Any:
    """Should the follower regress and block the loop in open() of a FIFO, play the
    writer after a while so the test fails instead of hanging CI. Yields a list that
    holds True once it had to: a writer's open of the FIFO succeeded, so a reader had
    it open (the follower never opens one; ENXIO otherwise)."""
    done = threading.Event()
    rescued: list[bool] = []

    def rescue() -> None:
        if done.wait(3):
            return
        while not done.wait(0.1):
            with contextlib.suppress(OSError):
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO if no reader
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        rescued.append(True)
                finally:
                    os.close(fd)

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield rescued
    finally:
        done.set()
        thread.join()


async def _follow_a_non_file(path: Path, polling: bool, kind: str, rescued: list[bool]) -> None:
    async with Follower(path, force_polling=polling, poll_interval=0.05) as f:
        first = await f.next()
        assert first.envelopes == [] and any("not a regular file" in w for w in first.warnings)
        assert await f.quiet(0.3) == []  # said once, not on every poll
        assert not rescued  # the loop was never stuck in open(): nobody had to play writer
        if kind == "fifo":
            path.unlink()
        else:
            path.rmdir()
        write_transcript(path, 2)
        await f.until(lambda f: len(f.current) == 3)
        assert f.current == records(path)
        assert any(u.reset for u in f.updates[1:])


# --- a real repair racing the follower ---------------------------------------------


async def test_load_repair_racing_the_follower(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 5)
    async with caught_up(path, force_polling=polling) as f:
        await run_writer(CRASHING_WRITER, path, 6, 150, timeout=30)
        await f.until(f.ends_with("x-end"))
        final = records(path)
        assert f.current == final
        assert len(final) == 6 + 6 * 150 + 1
        assert f.resets >= 1  # at least one repair's rename was seen as a replacement
        f.assert_epochs_consistent()
        # The cut lines were held back, never yielded, never warned about.
        assert all(env.get("id") != "CUT" for u in f.updates for env in u.envelopes)
        assert not any("could not be read" in w for u in f.updates for w in u.warnings)
        assert not os.path.exists(str(path) + ".repair")
        assert_live_matches_load(f.live, path, tmp_path)


# --- the live view --------------------------------------------------------------------


def rich_transcript(path: Path, tag: str, extra: int) -> None:
    """Messages, a compaction, an elision, tool operations, grants, run context."""
    s = Session.create(path, meta={"agent": tag})
    s.append_message(Message(role="system", content=f"{tag} system", sysprompt=True))
    ids = [s.append_message(Message(role="user", content=f"{tag} q{i}")) for i in range(4)]
    s.append_grants([{"tool": "fs_read", "scope": tag}])
    op = s.append_tool_dispatched(
        call_id="c1", tool="fs_read", arguments='{"path":"a"}', run_id="r1", round=1
    )
    s.append_tool_settled(op_id=op, outcome="completed", duration=0.5)
    s.append_tool_dispatched(call_id="c2", tool="fs_write", arguments="{}", run_id="r1", round=2)
    s.append_compaction(summary=f"{tag} summary", replaces_through_id=ids[1])
    s.append_elision([{"id": ids[3], "stub": "[elided]"}])
    s.append_run_context(run_id="r1", digest="d1", facts=[("date", "2026-08-09")])
    for i in range(extra):
        s.append_message(Message(role="assistant", content=f"{tag} a{i} {EMOJI}"))
    s.close()


async def test_live_transcript_rebuilds_from_new_content_after_a_reset(
    tmp_path: Path, polling: bool
) -> None:
    path = tmp_path / "t.jsonl"
    rich_transcript(path, "first", 3)
    async with caught_up(path, force_polling=polling) as f:
        assert_live_matches_load(f.live, path, tmp_path)
        assert f.live.format == V1
        # Replaced by another transcript (a rename): the view is rebuilt from it alone.
        staging = tmp_path / "next.jsonl"
        rich_transcript(staging, "second", 1)
        os.rename(staging, path)
        await f.until(lambda f: f.resets == 1 and len(f.current) == len(records(path)))
        assert f.live.resets == 1
        assert_live_matches_load(f.live, path, tmp_path)
        assert all("first" not in m.content for m in f.live.state.messages())
        # Appends after the reset apply incrementally on the rebuilt state.
        s = Session.load(path)
        mid = s.append_message(Message(role="user", content="later"))
        s.append_compaction(summary="later summary", replaces_through_id=mid)
        s.close()
        await f.until(f.ends_with("compaction"))
        assert_live_matches_load(f.live, path, tmp_path)
        # Truncated to nothing and rewritten: rebuilt again.
        os.truncate(path, 0)
        await f.until(lambda f: f.resets == 2)
        assert f.live.state.messages() == [] and f.live.format is None
        rich_transcript(path, "third", 2)
        await f.until(lambda f: len(f.current) == len(records(path)))
        assert_live_matches_load(f.live, path, tmp_path)


@pytest.mark.parametrize("parse", [True, False])
@pytest.mark.parametrize("size", [19, 6000])  # (a held line shorter and longer than checked)
def test_a_torn_tail_rewritten_in_place_is_read_again(
    tmp_path: Path, parse: bool, size: int
) -> None:
    """A writer cuts its torn last line off and writes the whole line before the next
    read: the size is past what was read and the boundary still a newline, so the held
    bytes were joined to the new ones, a record the file never had (the fuzzer). The
    held bytes are checked against the file: the file is read again from line 1."""
    from session_core.tail_reader import TailReader

    path = transcript_at(tmp_path, 1)
    good = path.read_bytes()
    whole = orjson.dumps({"v": 1, "type": "note", "id": "x", "pad": "y" * size}) + b"\n"
    torn = b'{"v":1,"type":"mess' + b"z" * (size - 19)  # (other bytes of the same length)
    path.write_bytes(good + torn)
    tail = TailReader(str(path), parse=parse)
    try:
        first = tail.step(None)
        assert first is not None and first.held == len(torn)
        with path.open("r+b") as fh:  # cut back to the last newline, the line written whole
            fh.truncate(len(good))
            fh.seek(len(good))
            fh.write(whole)
        update = tail.step(None)
        assert update is not None and update.reset
        assert "the file was rewritten under us: reading it again from line 1" in update.warnings
        taken = update.envelopes if parse else [orjson.loads(bytes(r)) for r in update.raw]
        assert taken[-1]["id"] == "x" and len(taken) == len(good.splitlines()) + 1
    finally:
        tail.close()


def test_the_held_line_check_reads_its_ends_alone(tmp_path: Path) -> None:
    """The check compares the first and last 4 KB of a held line: it joined every piece of
    a long one to take its first 4 KB, at every read, idle polls too (a 150 MB line cost
    75 ms a poll: the review)."""
    import tracemalloc

    from session_core.tail_reader import HELD_CHECK, TailReader

    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"x"}\n{"a":"')
    tail = TailReader(str(path), parse=True)
    try:
        tail.step(None)
        with path.open("ab") as fh:
            for _ in range(40):  # a line 40 MB long, unfinished, read a block at a time
                fh.write(b"x" * (1 << 20))
                fh.flush()
                tail.step(None)
        assert len(tail.partial) > 40 and tail.fd is not None
        tracemalloc.start()
        assert tail._held_intact(tail.fd)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 8 * HELD_CHECK, peak
    finally:
        tail.close()


@pytest.mark.parametrize("parse", [True, False])
def test_a_file_begun_again_between_two_reads_is_read_again(tmp_path: Path, parse: bool) -> None:
    """Truncated and written again before the next read, a newline back where the last
    line read ended (an agentgo session begun again: its session_start line is the same
    length each time): every other check passed, and the old first line was kept with
    the new lines after it. The file's first complete lines are checked too."""
    from session_core.tail_reader import TailReader

    path = tmp_path / "s.jsonl"
    first = orjson.dumps({"v": 1, "type": "note", "id": "a" * 8}) + b"\n"
    again = orjson.dumps({"v": 1, "type": "note", "id": "b" * 8}) + b"\n"
    assert len(first) == len(again)
    path.write_bytes(first)
    tail = TailReader(str(path), parse=parse)
    try:
        tail.step(None)
        with path.open("r+b") as fh:
            fh.truncate(0)
            fh.write(again + again)
        update = tail.step(None)
        assert update is not None and update.reset
        assert "the file was rewritten under us: reading it again from line 1" in update.warnings
        taken = update.envelopes if parse else [orjson.loads(bytes(r)) for r in update.raw]
        assert [r["id"] for r in taken] == ["b" * 8] * 2
        assert tail.step(None) is None  # (idle: nothing said again)
    finally:
        tail.close()


@contextlib.contextmanager
def _opens_refused() -> Iterator[None]:
    """Within it, the follower's every open of its file is refused as a mode-000 file's
    is, whoever runs the test; opens as before after it."""
    import session_core.tail_reader as tail_reader

    def refused(where: str) -> int:
        raise PermissionError(13, "Permission denied", where)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tail_reader, "_open_ro", refused)
        yield


def test_a_file_that_can_be_read_now_is_said_so_not_replaced(tmp_path: Path) -> None:
    """A file there but not to be read (mode 000) says why; once it can be read it is read
    from line 1 and the reset says it can be read now (an audit: the viewer's toast said
    "truncated or replaced", the follower giving no reason). The open refuses as a mode-000
    file's does, whoever runs the test."""
    from session_core.tail_reader import TailReader

    path = transcript_at(tmp_path, 2)
    tail = TailReader(str(path))
    try:
        with _opens_refused():
            update = tail.step(None)
            assert update is not None
            assert update.problem == f"{path} cannot be read: Permission denied"
            assert not update.envelopes
        update = tail.step(None)
        assert update is not None and update.reset and update.problem is None
        assert "the file can be read now: reading it again from line 1" in update.warnings
        assert not any("replaced" in w or "truncated" in w for w in update.warnings)
        assert update.envelopes == records(path)
    finally:
        tail.close()


def test_a_file_replaced_by_one_that_cannot_be_read_keeps_what_was_read(
    tmp_path: Path,
) -> None:
    """Replaced by a file that cannot be opened (mode 000): no reset until it can be (an
    audit: the reset came first, and the viewer threw away every line read for a file it
    never read); the problem says why and what happened, once; then the new file is read
    from line 1, said so."""
    from session_core.tail_reader import TailReader

    path = transcript_at(tmp_path, 2)
    tail = TailReader(str(path))
    try:
        first = tail.step(None)
        assert first is not None and len(first.envelopes) == 3
        staging = tmp_path / "new.jsonl"
        write_transcript(staging, 4, tag="b")
        os.replace(staging, path)
        with _opens_refused():
            update = tail.step(None)
            assert update is not None and not update.reset and not update.initial
            why = f"{path} cannot be read: Permission denied; the file was replaced"
            assert update.problem is not None and update.problem.startswith(why)
            assert update.warnings == [update.problem] and not update.envelopes
            assert tail.step(None) is None  # (said once)
        update = tail.step(None)
        assert update is not None and update.reset and update.problem is None
        assert "the file can be read now: reading it again from line 1" in update.warnings
        assert update.envelopes == records(path)
    finally:
        tail.close()


def test_a_file_replaced_by_a_directory_keeps_what_was_read(tmp_path: Path) -> None:
    """Replaced by a directory: no reset (what was read stands), the problem says what is
    there now; a file there again is read from line 1."""
    from session_core.tail_reader import TailReader

    path = transcript_at(tmp_path, 2)
    tail = TailReader(str(path))
    try:
        assert tail.step(None) is not None
        path.unlink()
        path.mkdir()
        update = tail.step(None)
        assert update is not None and not update.reset and update.exists
        said = f"{path} was replaced by a directory, not a regular file; waiting for one"
        assert update.problem == said and update.warnings == [said]
        assert tail.step(None) is None
        path.rmdir()
        write_transcript(path, 1, tag="c")
        update = tail.step(None)
        assert update is not None and update.reset and update.problem is None
        assert update.envelopes == records(path)
    finally:
        tail.close()


def test_a_directory_where_the_gone_file_was_is_said_as_the_readme_says(tmp_path: Path) -> None:
    """The file removed (said gone), then a directory made in its place: the banner was
    "is not a regular file", the README's "was replaced by a directory"; what was read
    is shown still, as for a directory that took the place of a file open."""
    from session_core.tail_reader import TailReader

    path = transcript_at(tmp_path, 2)
    tail = TailReader(str(path))
    try:
        assert tail.step(None) is not None
        path.unlink()
        update = tail.step(None)
        assert update is not None and update.warnings == [
            f"{path} does not exist any more; waiting for it"
        ]
        path.mkdir()
        update = tail.step(None)
        said = f"{path} was replaced by a directory, not a regular file; waiting for one"
        assert update is not None and update.problem == said and update.warnings == [said]
    finally:
        tail.close()


def test_a_pipe_where_a_file_is_awaited_says_what_reads_it(tmp_path: Path) -> None:
    """A FIFO at the path before any file was: what it is, and that ``-`` reads a pipe."""
    from session_core.tail_reader import TailReader

    path = tmp_path / "t.jsonl"
    tail = TailReader(str(path))
    try:
        tail.step(None)  # (not there yet)
        os.mkfifo(path)
        update = tail.step(None)
        said = (
            f"{path} is a pipe (a FIFO), not a regular file; `-` reads a pipe, as standard "
            "input (`tailscope - < PIPE`); waiting for one"
        )
        assert update is not None and update.problem == said
    finally:
        tail.close()


def test_a_file_that_could_not_be_looked_at_says_when_it_can(tmp_path: Path) -> None:
    """Its folder made unreadable, then readable again with nothing appended: an update
    says the file can be read again (the viewer's banner stood till something was
    appended), and a second time it cannot be looked at is said again."""
    from helpers import file_permissions_apply

    from session_core.tail_reader import TailReader

    folder = tmp_path / "d"
    folder.mkdir()
    path = folder / "t.jsonl"
    write_transcript(path, 2)
    tail = TailReader(str(path))
    try:
        with file_permissions_apply():
            assert tail.step(None) is not None
            for _ in range(2):
                folder.chmod(0)
                update = tail.step(None)
                assert update is not None and update.problem is not None
                assert "Permission denied" in update.problem and not update.reset
                folder.chmod(0o755)
                update = tail.step(None)
                assert update is not None and update.problem is None and not update.reset
                assert update.warnings == [f"{path} can be read again"] and not update.envelopes
                assert tail.step(None) is None
    finally:
        folder.chmod(0o755)
        tail.close()
