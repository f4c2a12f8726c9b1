"""Two records on one line (``{…}{…}``): Claude Code 2.0.76–2.1.17 wrote a ``summary`` or
``file-history-snapshot`` record straight after a line whose newline it never wrote. The
tolerant readers read each record (``indexing.concatenated``); a torn last object is
still the crash tail it was. The contract suite holds every format to it
(``test_two_records_on_one_line_are_both_read_or_the_line_is_refused``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_writer import CCWriter, text
from format_fixtures import FACTORIES
from helpers import follow_into
from json_strategies import json_values

from session_core import Message, Session, TranscriptError, open_transcript, peek
from session_core.following import FollowUpdate
from session_core.indexing import concatenated
from viewer.cli import main

OBJECTS = st.dictionaries(
    st.text(max_size=6),
    json_values(ints=1 << 62, infinity=False, width=3, key_size=6, leaves=12),
    max_size=4,
)


@given(st.lists(OBJECTS, min_size=2, max_size=4), st.sampled_from(["", " ", "\t"]))
def test_objects_written_back_to_back_are_each_read(objects: list[Any], gap: str) -> None:
    line = gap.encode().join(orjson.dumps(value) for value in objects)
    assert concatenated(line) == objects


def test_anything_else_is_not_taken_apart() -> None:
    assert concatenated(b'{"a":1}') is None  # one object: orjson's to read
    assert concatenated(b'{"a":1}{"b":') is None  # a torn tail
    assert concatenated(b'{"a":1}[1]') is None and concatenated(b"[1]{}") is None
    assert concatenated(b'{"a":1}{"b":NaN}') is None  # what orjson refuses stays refused
    assert concatenated(b'{"a":1}\xff{}') is None
    assert concatenated(b'{"a":"\\ud83d"}{}') == [{"a": "\ufffd"}, {}]  # (Node's, mended)


def _session(tmp_path: Path, *, torn: bool = False) -> Path:
    w = CCWriter()
    w.user("hello")
    w.assistant("msg_1", [text("hi there")], stop="end_turn")
    w.user("fix the permissions")
    w.assistant("msg_2", [text("done")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    summary = orjson.dumps(
        {"type": "summary", "summary": "Fix Go file permissions", "leafUuid": w.last}
    )
    data = path.read_bytes().rstrip(b"\n")
    path.write_bytes(data + (summary[:20] if torn else summary + b"\n"))
    return path


def test_a_summary_written_onto_the_last_line_names_the_session(tmp_path: Path) -> None:
    path = _session(tmp_path)
    t = open_transcript(path)
    assert t.meta["title"] == "Fix Go file permissions"
    assert len(t.messages) == 4 and [i.kind for i in t.raw][-1] == "title"
    assert t.warnings == ["line 4 holds 2 records with no line break between them; each was read"]
    assert main(["check", str(path)]) == 0
    assert [e.get("type") for e in peek(path).envelopes][-2:] == ["assistant", "summary"]


def test_a_torn_record_after_the_last_line_is_still_a_crash_tail(tmp_path: Path) -> None:
    path = _session(tmp_path, torn=True)
    t = open_transcript(path)
    assert len(t.messages) == 3  # the line is not read: its second record is not whole
    (warning,) = t.warnings
    assert warning.startswith(
        "line 4 has no newline: the writer left it unfinished, and it is not read (a crash "
        "tail); its "
    )  # (then its size and what it began with: what was in flight)
    assert main(["check", str(path)]) == 0


def _envelopes(path: Path) -> tuple[list[dict[str, Any]], list[int], list[str]]:
    """What the public ``follow`` hands on, parsed: its records, their lines, warnings."""
    got: list[dict[str, Any]] = []
    lines: list[int] = []
    warnings: list[str] = []

    def apply(update: FollowUpdate) -> None:
        got.extend(update.envelopes)
        lines.extend(update.lines)
        warnings.extend(update.warnings)

    follow_into(apply, path, 1 << 20, parse=True)
    return got, lines, warnings


def test_the_public_follow_hands_on_each_record(tmp_path: Path) -> None:
    path = _session(tmp_path)
    got, lines, warnings = _envelopes(path)
    assert [e.get("type") for e in got][-2:] == ["assistant", "summary"] and lines[-2:] == [4, 4]
    assert warnings == ["line 4 holds 2 records with no line break between them; each was read"]


def test_a_joined_first_line_is_read_so_too(tmp_path: Path) -> None:
    """Detection takes a joined line's first record (the format then says how it reads
    the line): a Claude Code file is read whole; a v1 file is refused at line 1."""
    path = _session(tmp_path)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(lines[0] + lines[1] + b"\n" + b"\n".join(lines[2:]))
    t = open_transcript(path)
    assert len(t.messages) == 4 and t.meta["title"] == "Fix Go file permissions"
    assert t.warnings[0].startswith("line 1 holds 2 records")
    assert _envelopes(path)[0][0]["type"] == "user"
    v1 = tmp_path / "v1.jsonl"
    with Session.create(v1, {}) as s:
        s.append_message(Message("user", "hi"))
    first, second = v1.read_bytes().split(b"\n")[:2]
    v1.write_bytes(first + second + b"\n")
    with pytest.raises(TranscriptError) as err:
        open_transcript(v1)
    assert err.value.line == 1


def test_the_records_of_a_codex_line_are_told_apart(tmp_path: Path) -> None:
    """Codex names an item by its line (``L12``): a joined line's later records are
    ``L12.2``..., so a compaction's folded ids name each, as the split file's do."""
    sample = FACTORIES["codex"](tmp_path)
    lines = sample.read_bytes().split(b"\n")
    joined = tmp_path / "joined.jsonl"
    joined.write_bytes(b"\n".join([lines[0], lines[1] + lines[2], *lines[3:]]))
    split, read = open_transcript(sample), open_transcript(joined)
    ids = [item.id for item in read.raw]
    assert len(ids) == len(set(ids)) and ids[1:3] == ["L2", "L2.2"]
    renamed = {"L2": "L2", "L3": "L2.2"} | {f"L{n}": f"L{n - 1}" for n in range(4, len(lines) + 1)}
    assert [renamed.get(i.id, i.id) for i in split.raw] == ids
    for mine, theirs in zip(read.compactions, split.compactions, strict=True):
        assert list(mine.folded) == [renamed.get(i, i) for i in theirs.folded]
