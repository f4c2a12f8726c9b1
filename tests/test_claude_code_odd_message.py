"""A Claude Code user or assistant line whose ``message`` is neither an object nor the
bare string other readers' types allow: a list is read as the content blocks it holds
(anything in it that is no block kept as written, as in a content list), any other
value (a number, ``true``) is shown as written; each is said in the warnings, never a
blank message (it read as content "" with no warning, its blocks and its value lost)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, tool_use
from helpers import follow_into

from session_core.formats.claude_code.blocks import line_parts


def _write(tmp_path: Path) -> Path:
    w = CCWriter()
    w.user("list the files")
    w.env("assistant", message=[tool_use("t1", "Bash", command="ls")])
    w.env(
        "user",
        message=[{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}],
        toolUseResult={"stdout": "a.txt"},
    )
    w.env("user", message=["loose text", 3])
    w.env("user", message=42)
    w.env("assistant", message=True)
    return w.write(tmp_path / "s.jsonl")


def test_a_list_is_its_blocks_and_a_number_is_shown_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path)
    t = both(path, monkeypatch)  # (the dict path read alike)
    replay = t.to_json()
    sent = [(m["role"], m["content"]) for m in replay["messages"]]
    assert sent == [
        ("user", "list the files"),
        ("assistant", ""),
        ("user", "a.txt"),
        ("user", "loose text\n3"),
        ("user", "42"),
        ("assistant", "true"),
    ]
    assert replay["messages"][1]["tool-calls"][0]["arguments"] == {"command": "ls"}
    (op,) = replay["tool-operations"]
    assert (op["state"], op["result"], op["detail"]) == ("completed", "a.txt", {"stdout": "a.txt"})
    assert t.warnings == [
        "line 2: its message is a list, not an object: read as its content",
        "line 3: its message is a list, not an object: read as its content",
        "line 4: its message is a list, not an object: read as its content",
        "line 5: its message is 42, not an object: shown as written",
        "line 6: its message is true, not an object: shown as written",
    ]
    live = FMT.live(str(path))  # followed a block at a time: the same
    follow_into(live.apply, path, 256, FMT.parsed_updates)
    assert live.transcript(writer_alive=False).to_json() == replay  # type: ignore[attr-defined]


def test_a_line_read_again_gives_the_same_parts() -> None:
    record = {"type": "user", "message": [{"type": "text", "text": "hi"}, 5]}
    assert [(p.kind, p.text) for p in line_parts(record)] == [("text", "hi"), ("other", "5")]
    (part,) = line_parts({"type": "user", "message": 42})
    assert (part.kind, part.text) == ("other", "42")
