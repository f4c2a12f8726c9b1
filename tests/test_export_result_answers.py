"""A Claude Code or Codex result message in an export names the call it answers, as v1's
and agentgo's do (``answers Read (t1)``) and the viewer's ``← result`` row says it. The
audit on the real fixtures: Claude Code's result was a bare ``### 3 · user`` message,
read as a prompt the user typed."""

from __future__ import annotations

from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use

from session_core.export import document, export
from session_core.exportdoc import MessageItem


def _flags(path: Path, view: str) -> dict[int, list[str]]:
    doc = document(path, view)  # type: ignore[arg-type]
    items = doc.sections[0].items
    return {
        int(i.anchor.split("-")[1]): i.flags
        for i in items
        if isinstance(i, MessageItem) and i.anchor.startswith("line-")
    }


def test_a_result_says_which_call_it_answers(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("read a, then b")
    w.assistant("m1", [tool_use("t1", "Read", file_path="a")])
    w.result("t1", "ALPHA")
    w.assistant("m2", [tool_use("t2", "Grep", pattern="b")])
    w.result("t2", "no match", is_error=True)
    w.result("t9", "an answer no call asks for")
    w.assistant("m3", [text("done")], stop="end_turn")
    path = w.write(tmp_path / "cc.jsonl")
    for view in ("replayed", "raw"):
        flags = _flags(path, view)
        answers = {line: [f for f in fs if f.startswith("answers ")] for line, fs in flags.items()}
        said = sorted(a for each in answers.values() for a in each)
        assert said == ["answers ? (t9)", "answers Grep (t2)", "answers Read (t1)"], view
        # (the messages asking say no "answers"; the prompt, none)
        assert sum(bool(a) for a in answers.values()) == 3, answers
    md = export(path, "md")
    assert "**answers Read \\(t1\\)**" in md
    html = export(path, "html")
    assert '<span class="flag">answers Grep (t2)</span>' in html


def test_a_codex_output_says_which_call_it_answers(tmp_path: Path) -> None:
    from codex_writer import RolloutWriter

    path = tmp_path / "rollout-2026-01-01T00-00-00-a.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    w.turn_context("t")
    w.message("user", "list it")
    w.function_call("shell", {"command": ["ls"]}, "c1")
    w.function_output("c1", "a.txt", exit_code=0)
    w.custom_call("apply_patch", "*** Begin Patch\n*** End Patch\n", "c2")
    w.custom_output("c2", "Done")
    w.message("assistant", "listed")
    for view in ("replayed", "raw"):
        said = [f for fs in _flags(path, view).values() for f in fs if f.startswith("answers ")]
        assert said == ["answers shell (c1)", "answers apply_patch (c2)"], (view, said)


def test_an_agentgo_result_names_its_calls_tool(tmp_path: Path) -> None:
    """agentgo's said only ``answers call_1``: the tool is named as in every format."""
    from format_fixtures import FACTORIES

    path = FACTORIES["agentgo-v1"](tmp_path)
    said = [f for fs in _flags(path, "raw").values() for f in fs if f.startswith("answers ")]
    assert said, said
    for flag in said:
        tool, _, call = flag.removeprefix("answers ").partition(" (")
        assert tool not in ("", "?") and call.endswith(")"), flag
