"""Reading never writes: peek, replay_file and ``tailscope peek|replay|check|diff``
leave the bytes, the inode and the mtime of what they read exactly as they were."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import fingerprint

from session_core import Message, Session, TranscriptError, WriterLockedError, peek
from session_core.reader import replay_file

REPO = Path(__file__).resolve().parent.parent


def write_transcript(path: Path) -> list[str]:
    with Session.create(path, meta={"agent": "ro"}) as s:
        a = s.append_message(Message(role="user", content="héllo"))
        b = s.append_message(Message(role="assistant", content="hi €"))
        s.append_elision([{"id": b, "stub": "[stub]"}])
        s.append_compaction(summary="sum", replaces_through_id=a)
        op = s.append_tool_dispatched(call_id="c1", tool="t", arguments="{}")
        s.append_tool_settled(op_id=op, outcome="failed", error="boom")
        return s.message_ids()


def _set_old_mtime(path: Path) -> None:
    # an mtime in the past, so that a rewrite "in the same tick" would still show
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))


@pytest.fixture(params=["valid", "malformed-tail", "no-eol-tail"])
def transcript(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    write_transcript(path)
    if request.param == "malformed-tail":
        with path.open("ab") as fh:
            fh.write(b'{"id":"x","payload":{"content":"\xe2\x82')
    elif request.param == "no-eol-tail":
        path.write_bytes(path.read_bytes()[:-1])
    _set_old_mtime(path)
    return path


def assert_untouched(path: Path, before: tuple[str, int, int]) -> None:
    assert fingerprint(path) == before
    assert not Path(str(path) + ".repair").exists()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_peek_never_writes(transcript: Path) -> None:
    before = fingerprint(transcript)
    result = peek(transcript)
    assert result.error is None
    assert_untouched(transcript, before)


def test_replay_file_never_writes(transcript: Path) -> None:
    before = fingerprint(transcript)
    state = replay_file(transcript, tolerate_tail=True)
    assert state.message_ids()
    assert_untouched(transcript, before)
    if transcript.read_bytes().endswith(b"\x82"):
        with pytest.raises(TranscriptError):
            replay_file(transcript, tolerate_tail=False)
        assert_untouched(transcript, before)


@pytest.mark.parametrize("command", ["peek", "replay", "check", "diff"])
def test_the_commands_never_write(transcript: Path, command: str) -> None:
    before = fingerprint(transcript)
    proc = subprocess.run(
        [sys.executable, "-m", "viewer.cli", command, str(transcript)],
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert_untouched(transcript, before)


def test_load_of_a_file_another_session_holds_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as holder:
        holder.append_message(Message(role="user", content="mine"))
        before = fingerprint(path)
        with pytest.raises(WriterLockedError) as info:
            Session.load(path)
        assert isinstance(info.value, TranscriptError)
        assert str(path) in str(info.value)
        with pytest.raises(TranscriptError):
            Session.create(path, meta={})
        assert fingerprint(path) == before
        # the holder is unharmed
        holder.append_message(Message(role="user", content="still mine"))
    with Session.load(path) as s:
        assert [m.content for m in s.messages()] == ["mine", "still mine"]


def test_load_refused_by_the_lock_does_not_repair(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as holder:
        holder.append_message(Message(role="user", content="mine"))
        with path.open("ab") as fh:
            fh.write(b'{"half')
        before = fingerprint(path)
        with pytest.raises(WriterLockedError):
            Session.load(path)
        assert_untouched(path, before)
