"""What a refusal says, said once and in the words of what went wrong (an audit):
a line that breaks a replay rule was named twice ("line 2: the compaction at line 2
..."), and a text file given to ``Session.load`` was refused as a damaged transcript
("ends in two malformed lines ... a crash tail") where it is no transcript at all."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest
from helpers import run_cli

from session_core import Session, TranscriptError
from session_core.errors import InvalidLineError
from session_core.replay import ReplayState

META = {"id": "00000000-0000-4000-8000-000000000001", "type": "session-meta", "payload": {}}
BROKEN = {
    "compaction": {"summary": "s", "replaces-through-id": "nope", "fallback": False},
    "elision": {"items": [{"id": "nope", "stub": "x"}]},
    "tool-settled": {"op-id": "00000000-0000-4000-8000-000000000001", "outcome": "completed"},
}
SUBJECT = {"compaction": "compaction", "elision": "elision", "tool-settled": "tool-settled line"}


def _envelope(kind: str, payload: dict[str, object], n: int) -> dict[str, object]:
    eid = f"00000000-0000-4000-8000-{n:012d}"
    return {"id": eid, "payload": payload, "ts": "2026-08-09T13:10:08Z", "type": kind, "v": 1}


def _broken_file(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"bad-{kind}.jsonl"
    lines = [_envelope("session-meta", {}, 1), _envelope(kind, BROKEN[kind], 2)]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_line_that_breaks_a_replay_rule_is_named_once(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _broken_file(tmp_path, kind)
    code, _out, err = run_cli(capsys, "replay", str(path))
    assert code == 1
    assert err.startswith(f"tailscope: {path}: line 2: the {SUBJECT[kind]} ")
    assert err.count("line 2") == 1, err
    with pytest.raises(TranscriptError) as refused:
        Session.load(path)
    assert refused.value.line == 2
    assert str(refused.value).count("line 2") == 1, refused.value


def test_a_replay_of_no_file_still_names_the_line() -> None:
    """A state of no file (``ReplayState()``, "this session") names the line alone."""
    state = ReplayState()
    state.feed(_envelope("session-meta", {}, 1), 1)
    with pytest.raises(TranscriptError) as refused:
        state.feed(_envelope("compaction", BROKEN["compaction"], 2), 2)
    assert refused.value.path is None and refused.value.line == 2
    assert str(refused.value).startswith('line 2: the compaction replaces through "nope"')


@pytest.mark.parametrize("text", [b"hello\nworld", b"hello\nworld\n", b"hello", b"\n\nhi\nyo"])
def test_a_text_file_is_no_transcript_not_a_damaged_one(tmp_path: Path, text: bytes) -> None:
    """Two lines of text were "two malformed lines ... (a crash tail)", one "is not valid
    JSON ..., and there is no line before it": both say as ``check`` and ``peek`` say it.
    Nothing is written."""
    path = tmp_path / "notes.txt"
    path.write_bytes(text)
    before = hashlib.sha256(text).hexdigest()
    with pytest.raises(TranscriptError) as refused:
        Session.load(path)
    said = str(refused.value)
    first = 3 if text.startswith(b"\n\n") else 1
    words = "is not valid JSON; a transcript starts with its first record"  # (``check``'s)
    assert said == f"{path}: line {first}: {words}"
    assert isinstance(refused.value, InvalidLineError) and refused.value.line == first
    assert "crash tail" not in said and "malformed" not in said
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_transcript_that_ends_in_two_bad_lines_is_still_damaged(tmp_path: Path) -> None:
    """(What the text file's words must not take: a transcript's two bad last lines.)"""
    path = tmp_path / "t.jsonl"
    path.write_bytes(orjson.dumps(_envelope("session-meta", {}, 1)) + b"\n{bad\n{worse")
    with pytest.raises(TranscriptError, match="two malformed lines") as refused:
        Session.load(path)
    assert refused.value.line == 2
