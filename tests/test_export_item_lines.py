"""A message that took several of the file's lines (a Claude Code response written a
block a line) says so in the export as the viewer's row does (``2 lines from line 3``).
The audit on the real fixtures: the export said ``line 12`` where the operations table
placed its call at ``line 13``, a line no message in the export named."""

from __future__ import annotations

from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use

from session_core.export import document
from session_core.exportdoc import MessageItem


def test_a_message_of_several_lines_says_how_many(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("read a")
    w.assistant("m1", [text("Reading it."), tool_use("t1", "Read", file_path="a")])
    w.result("t1", "ALPHA")
    w.assistant("m2", [text("done")], stop="end_turn")
    path = w.write(tmp_path / "cc.jsonl")
    for view in ("replayed", "raw"):
        items = [i for i in document(path, view).sections[0].items if isinstance(i, MessageItem)]  # type: ignore[arg-type]
        wheres = [i.facts[0] for i in items if i.role != "system"]
        assert wheres == ["line 1", "2 lines from line 2", "line 4", "line 5"], (view, wheres)
