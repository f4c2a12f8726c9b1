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
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_writer import CCWriter, text
from json_strategies import json_values

from session_core import open_transcript, peek
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
    assert t.warnings == ["line 4 is not valid JSON, and was kept as it is"]
    assert main(["check", str(path)]) == 0
