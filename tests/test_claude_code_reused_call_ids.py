"""A Claude Code call id used by more than one tool_use block (a resumed or retried
session's, a redacted file's): each block of its own response is a call with its own
operation, and a result answers the latest call of its id. The same block written again
(its line copied, same uuid; another line of its response) is not another call. A
followed file reads as the whole file read at each point. Files written with our own
writer (``claude_code_writer``) and read both ways (``claude_code_helpers.both``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, text, tool_use
from helpers import follow_into, neutral

from session_core.model import ops_by_call


def _reusing() -> CCWriter:
    """Three turns each calling ``t1``: answered, failed, and left unanswered."""
    w = CCWriter()
    w.user("first")
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")])
    w.result("t1", "FIRST-RESULT")
    w.assistant("m2", [text("ok")], stop="end_turn")
    w.user("second")
    w.assistant("m3", [text("again"), tool_use("t1", "Read", file_path="/x")])
    w.result("t1", "SECOND-RESULT", is_error=True)
    w.assistant("m4", [text("failed")], stop="end_turn")
    w.user("third")
    w.assistant("m5", [tool_use("t1", "Grep", pattern="y")])
    return w


def _rows(t: Any) -> list[tuple[Any, ...]]:
    return [
        (op.tool, op.state, op.line, op.result, op.result_line, op.arguments)
        for op in t.tool_operations
    ]


def test_each_block_reusing_an_id_is_an_operation_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _reusing().write(tmp_path / "reuse.jsonl")
    t = both(path, monkeypatch)
    assert _rows(t) == [
        ("Bash", "completed", 2, "FIRST-RESULT", 3, {"command": "ls"}),
        ("Read", "failed", 7, "SECOND-RESULT", 8, {"file_path": "/x"}),
        ("Grep", "interrupted", 11, None, None, {"pattern": "y"}),
    ]
    askers = [i.id for i in t.raw if any(p.kind == "tool-call" for p in i.parts)]
    assert [op.message_id for op in t.tool_operations] == askers  # each its own asker's
    assert ops_by_call(t.tool_operations)["t1"].tool == "Grep"  # the id's latest
    assert [op.state for op in t.tool_operations.unsettled()] == ["interrupted"]
    assert t.to_json()["tool-operations"][1]["result"] == "SECOND-RESULT"


def test_a_call_a_later_call_took_the_id_of_is_never_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its id's result answers the later call: the earlier, unanswered, was cut off (and
    says so while the writer is alive: no result will ever be its)."""
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [tool_use("t1", "Bash", command="sleep 9")])
    w.assistant("m2", [tool_use("t1", "Bash", command="sleep 1")])  # (a retried request)
    w.result("t1", "slept")
    path = w.write(tmp_path / "passed.jsonl")
    for alive in (False, True):
        t = both(path, monkeypatch, writer_alive=alive)
        states = [(op.arguments["command"], op.state, op.result) for op in t.tool_operations]
        assert states == [("sleep 9", "interrupted", None), ("sleep 1", "completed", "slept")]
        assert t.tool_operations.count_state("interrupted") == 1
        assert [op.line for op in t.tool_operations.unsettled()] == [2]


def test_the_same_block_written_again_is_one_operation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line copied (its uuid again: a resumed session's copy of its history) and a
    response's block on a second line of it (its message id again, in its turn) are the
    call already read, not another."""
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")])
    copied = dict(w.lines[-1])
    w.bare(copied)  # the same line, the same uuid
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")])  # another line of m1
    w.result("t1", "a b")
    w.bare(copied)  # and again after its result
    path = w.write(tmp_path / "copied.jsonl")
    t = both(path, monkeypatch)
    assert _rows(t) == [("Bash", "completed", 2, "a b", 5, {"command": "ls"})]


def test_a_followed_file_reusing_ids_reads_as_the_file_read_whole(tmp_path: Path) -> None:
    """After each update, the followed session (its operations and all else) is the file
    read whole up to its last line."""
    w = _reusing()
    w.assistant("m6", [tool_use("t1", "Bash", command="pwd")])  # (passes m5's call)
    w.result("t1", "/w")
    w.microcompact(["t1"])  # (the latest call before it: m6's)
    w.assistant("m7", [tool_use("t1", "Bash", command="id")])  # (not one it cleared)
    w.result("t1", "uid=0")
    path = w.write(tmp_path / "reuse.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    whole = tmp_path / "whole.jsonl"
    live = FMT.live(str(path))
    compared: list[int] = []

    def apply(update: Any) -> None:
        live.apply(update)
        if not update.lines:
            return
        count = update.lines[-1]
        whole.write_bytes(b"".join(lines[:count]))
        opened = FMT.open(whole, writer_alive=False)
        followed = live.transcript(writer_alive=False)
        assert _rows(followed) == _rows(opened), f"after {count} lines"
        assert neutral(followed) == neutral(opened), count
        compared.append(count)

    follow_into(apply, path, 512, FMT.parsed_updates)
    assert len(compared) >= 8 and compared[-1] == len(lines)
    followed = live.transcript(writer_alive=False)
    assert [op.state for op in followed.tool_operations] == [
        "completed",
        "failed",
        "interrupted",
        "completed",
        "completed",
    ]
    elided = [i.line for i in followed.raw if "elided" in i.marks]
    assert elided == [13]  # m6's result, not an earlier call's
