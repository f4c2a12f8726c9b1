"""A Claude Code line whose ``message`` is a bare string (other readers' types declare
``message?: string | MessageContent``) reads its string as its text, as a plain-string
``content`` does, by one rule on every path: the typed lines (which hand it to the dict
path), the dict path, parsed records fed one at a time, and a line read again when shown
(an audit: it read as content "" with no warning, its text dropped)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both

from session_core.formats.claude_code.blocks import line_parts
from session_core.scan import scan_file

SESSION = "c3c3c3c3-0000-4000-8000-00000000000c"


def _line(n: int, kind: str, message: Any) -> dict[str, Any]:
    return {
        "parentUuid": None if n == 1 else f"0000000{n - 1}-5555-4000-8000-000000000000",
        "isSidechain": False,
        "cwd": "/w",
        "sessionId": SESSION,
        "version": "0.2.9",
        "type": kind,
        "message": message,
        "uuid": f"0000000{n}-5555-4000-8000-000000000000",
        "timestamp": f"2025-03-05T10:00:0{n}.000Z",
    }


RECORDS = [
    _line(1, "user", "hello as a bare string"),
    _line(2, "assistant", "an answer as a bare string"),
    _line(3, "user", {"role": "user", "content": "next, as written since"}),
    _line(
        4,
        "assistant",
        {
            "id": "msg_1",
            "role": "assistant",
            "model": "claude-3-7-sonnet-20250219",
            "content": [{"type": "text", "text": "done"}],
            "stop_reason": "end_turn",
        },
    ),
]
TEXTS = [
    ("user", "hello as a bare string"),
    ("assistant", "an answer as a bare string"),
    ("user", "next, as written since"),
    ("assistant", "done"),
]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    where = tmp_path / "s.jsonl"
    where.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in RECORDS))
    return where


def _texts(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in messages]


def test_the_string_is_the_text_typed_and_as_dicts(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = both(path, monkeypatch)  # (the dict path read alike, every item and warning)
    assert _texts(t.to_json()["messages"]) == TEXTS
    assert t.warnings == []
    assert [p.kind for p in t.raw[0].parts] == ["text"]
    assert t.runs[0].state == "finished" and t.meta.get("title") == "hello as a bare string"


def test_fed_one_record_at_a_time_and_read_again(path: Path) -> None:
    builder = FMT.builder(str(path))
    for number, record in enumerate(RECORDS, 1):
        builder.feed(record, number)
    assert _texts(builder.transcript(False).to_json()["messages"]) == TEXTS
    # (a line read again by its span when shown gives the same part)
    (part,) = line_parts(RECORDS[0])
    assert (part.kind, part.text) == ("text", "hello as a bare string")


def test_the_browser_row_is_titled_by_it(path: Path) -> None:
    row = scan_file(path)
    assert row.title == "hello as a bare string" and row.messages == 4
