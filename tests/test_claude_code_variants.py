"""The claude-code reader on shapes of other Claude Code versions than our samples.

Each test writes the shape with our own writer (``claude_code_writer``): 1.0.x files
whose responses never say ``stop_reason``, a compaction that keeps its last messages
(``preservedSegment``), 2.0.x subagent files beside the session, a prompt queued while
the model was busy (``queued_command`` attachment), a slash command as the title.
Every test reads the file both ways (msgspec's typed lines and orjson's dicts).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_writer import CCWriter, text, tool_use, usage
from test_claude_code_decode import by_dict, everything

from session_core.formats.claude_code import ClaudeCodeFormat
from session_core.model import Transcript

FMT = ClaudeCodeFormat()


def both(path: Path, monkeypatch: pytest.MonkeyPatch, writer_alive: bool = False) -> Transcript:
    """The file read typed, after checking the dict path reads it the same."""
    typed = FMT.open(path, writer_alive=writer_alive)
    if writer_alive is False:
        assert everything(typed) == everything(by_dict(path, monkeypatch))
    return typed


def test_runs_without_stop_reason_end_with_a_text_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.0.x (and 2.1.39) write ``stop_reason: null`` on every line and no turn_duration:
    a turn whose last response only talks has ended, once the writer is gone."""
    w = CCWriter(version="1.0.98")
    w.user("first prompt")
    w.assistant("m1", [text("looking"), tool_use("t1", "Bash", command="ls")], usage=usage(3, 9))
    w.result("t1", "a.py")
    w.assistant("m2", [text("there is a.py")], usage=usage(4, 5))
    w.user("second prompt")
    w.assistant("m3", [text("on it"), tool_use("t2", "Read", file_path="a.py")])
    w.result("t2", "print(1)")
    w.assistant("m4", [text("it prints 1")], usage=usage(5, 6))
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [r.state for r in t.runs] == ["finished", "finished"]
    assert t.runs[-1].end_line == len(w.lines)
    # while the writer may still be at it, the next block of the response may follow
    assert FMT.open(path, writer_alive=True).runs[-1].state == "running"


@pytest.mark.parametrize("cut", ["call", "result"])
def test_runs_without_stop_reason_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: str
) -> None:
    """A turn that stopped at a call, or after its result, was not finished."""
    w = CCWriter(version="1.0.17")
    w.user("a prompt")
    w.assistant("m1", [text("running"), tool_use("t1", "Bash", command="make")])
    if cut == "result":
        w.result("t1", "ok")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [r.state for r in t.runs] == ["interrupted"]
