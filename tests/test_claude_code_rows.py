"""The replay's operation rows written from the column (``ClaudeOps.json_rows``) are each
operation's ``to_json()``: odd results (a list of blocks, an Edit's detail, no detail, an
error, a result block without its call's id, on a line not of type user), a call whose
line changed on disk, calls not answered, and the real samples."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use, usage
from helpers import SAMPLES
from test_claude_code_variants import FMT


def _rows_are_the_ops(path: Path) -> int:
    ops = FMT.open(path, writer_alive=False).tool_operations
    rows = list(ops.json_rows())  # type: ignore[attr-defined]
    made = FMT.open(path, writer_alive=False).tool_operations
    assert rows == [op.to_json() for op in made]
    return len(rows)


def test_rows_of_odd_results(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [text("a"), tool_use("t1", "Bash", command="ls")], usage=usage(1, 2))
    w.result("t1", [{"type": "text", "text": "x"}, {"type": "image", "source": {}}])
    w.assistant("m2", [tool_use("t2", "Edit", file_path="a.py")], usage=usage(1, 2))
    w.result("t2", "ok", tool_use_result={"originalFile": "big", "patch": [1, 2]})
    w.assistant("m3", [tool_use("t3", "Read", file_path="b.py")], usage=usage(1, 2))
    w.result("t3", None, is_error=True, tool_use_result="Error: no such file")
    w.assistant("m4", [tool_use("t4", "Bash", command="pwd")], usage=usage(1, 2))
    # (a result block on an assistant line answers nothing: t4 stays open)
    w.env(
        "assistant",
        True,
        message={
            "role": "assistant",
            "content": [{"type": "tool_result", "tool_use_id": "t4", "content": "odd"}],
        },
    )
    w.assistant("m5", [tool_use("t5", "Bash", command="date")], usage=usage(1, 2))
    w.result("t5", {"not": "a string"}, tool_use_result={"stdout": "d"})
    w.assistant("m6", [tool_use("t6", "Bash", command="sleep 9")], usage=usage(1, 2))
    w.user("next")  # (t6 never answered)
    assert _rows_are_the_ops(w.write(tmp_path / "s.jsonl")) == 6


def test_rows_of_lines_changed_on_disk(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")], usage=usage(1, 2))
    w.result("t1", "a.py", tool_use_result={"stdout": "a.py"})
    w.assistant("m2", [tool_use("t2", "Bash", command="pwd")], usage=usage(1, 2))
    w.result("t2", "/", tool_use_result={"stdout": "/"})
    path = w.write(tmp_path / "s.jsonl")
    ops = FMT.open(path, writer_alive=False).tool_operations
    made = FMT.open(path, writer_alive=False).tool_operations
    # Rewritten in place, as long as they were: t1's call line not JSON any more, t2's
    # result line of another type (its result without the detail then).
    lines = path.read_bytes().split(b"\n")
    lines[1] = b"x" * len(lines[1])
    assert lines[4].count(b'"type": "user"') == 1
    lines[4] = lines[4].replace(b'"type": "user"', b'"type": "asst"')
    path.write_bytes(b"\n".join(lines))
    assert list(ops.json_rows()) == [op.to_json() for op in made]  # type: ignore[attr-defined]
    assert made[0].arguments is None and made[0].detail == {"stdout": "a.py"}
    assert made[1].arguments == {"command": "pwd"} and made[1].detail is None


@pytest.mark.skipif(not (SAMPLES / "claude-code").is_dir(), reason="no samples")
def test_rows_of_the_samples() -> None:
    files = sorted((SAMPLES / "claude-code").rglob("*.jsonl"))
    assert sum(_rows_are_the_ops(path) for path in files) > 100
