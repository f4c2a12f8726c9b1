"""What one row of an item says, on every surface that shows one: a call by its main
argument (the tool operations tab's rule), a response whose text is blank by its call."""

from __future__ import annotations

from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use

from session_core.diff_model import model_diff
from session_core.formats import by_name
from session_core.model import Part
from session_core.search import call_arguments, call_said
from viewer.widgets.model_diff import _item_row


def _blank_then_calls(tmp_path: Path) -> Path:
    """A response whose first text is blank, then thinking and two calls (line 2)."""
    w = CCWriter()
    w.user("Work on the bead")
    w.assistant(
        "m1",
        [
            text("\n\n"),
            {"type": "thinking", "thinking": "Let me look at the bead first.", "signature": "s"},
            tool_use("c1", "Bash", command="bd show x", description="Show the bead"),
            tool_use("c2", "Bash", command="bd ready", description="Find ready work"),
        ],
    )
    w.result("c1", "the bead")
    w.result("c2", "ready work")
    w.assistant("m2", [text("Done.")], stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


def test_a_row_of_a_blank_text_says_its_first_call(tmp_path: Path) -> None:
    path = _blank_then_calls(tmp_path)
    t = by_name("claude-code").open(str(path), writer_alive=False)
    rows = "".join(model_diff(t)).splitlines()
    response = next(row for row in rows if "line      2 assistant" in row)
    # (the tool named: a command, not something the assistant said)
    assert 'assistant → Bash bd show x {"description":"Show the bead"}' in response
    result = next(row for row in rows if "line      6 user" in row)
    assert "user      ← result the bead" in result
    # The Diff tab's row says the same.
    item = next(i for i in t.raw if i.line == 2)
    assert _item_row("-", item).endswith(
        'assistant: → Bash bd show x  {"description":"Show the bead"}'
    )


def test_a_call_reads_by_its_main_argument_first() -> None:
    edit = {"replace_all": False, "file_path": "/p/a.py", "old_string": "x", "new_string": "y"}
    part = Part("tool-call", text='{"replace_all":false,…', name="Edit", data=edit)
    assert call_arguments(part).startswith("/p/a.py  {")
    assert call_said(part).startswith("→ Edit /p/a.py  {")
    # v1's arguments as written (a JSON string), Codex's argv alike
    v1 = Part("tool-call", '{"n":1,"path":"a.py"}', name="fs_read", data='{"n":1,"path":"a.py"}')
    assert call_said(v1) == '→ fs_read a.py  {"n":1}'
    argv = {"command": ["bash", "-lc", "ls -la"], "workdir": "/p"}
    assert call_arguments(Part("tool-call", "", name="shell", data=argv)).startswith("ls -la")
    # no arguments known: its text
    assert call_arguments(Part("tool-call", "raw text", name="x")) == "raw text"
