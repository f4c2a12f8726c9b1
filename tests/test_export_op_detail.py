"""A tool operation's own detail (``ToolOp.detail``, replay's ``detail``: Claude Code's
``toolUseResult``, a Codex call's exit code) is in the Markdown and HTML exports, with
its call, folded away and inert, as the viewer's detail screen shows it."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use
from codex_writer import RolloutWriter
from markdown_it import MarkdownIt

from session_core.export import export

PATCH_LINE = "+    return a % b  # patched-line-only-in-the-detail"
HOSTILE = "</details><script>alert(1)</script> `````````` </pre>"
VIEWS = ("replayed", "raw")


def _claude_code(tmp_path: Path, stdout: str = "ok") -> Path:
    w = CCWriter()
    w.user("fix modulo")
    edit = tool_use("e1", "Edit", file_path="calc.py", old_string="a", new_string="b")
    w.assistant("m1", [text("editing"), edit], stop="tool_use")
    patch = {
        "filePath": "calc.py",
        "oldString": "a",
        "newString": "b",
        "originalFile": "def modulo(a, b):\n    return a / b\n",
        "structuredPatch": [
            {
                "oldStart": 1,
                "oldLines": 2,
                "newStart": 1,
                "newLines": 2,
                "lines": [" def modulo(a, b):", "-    return a / b", PATCH_LINE],
            }
        ],
    }
    w.result("e1", "The file calc.py has been updated.", tool_use_result=patch)
    w.assistant("m2", [tool_use("b1", "Bash", command="make")], stop="tool_use")
    w.result("b1", "done", tool_use_result={"stdout": stdout, "stderr": "", "interrupted": False})
    w.assistant("m3", [text("done")], stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


def _codex(tmp_path: Path) -> Path:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "run it")
    w.function_call("shell", {"command": ["make"]}, "c1")
    w.function_output("c1", "made it", exit_code=7, old=True)
    w.task_complete("t1")
    return tmp_path / "r.jsonl"


@pytest.mark.parametrize("view", VIEWS)
def test_an_edits_patch_and_a_codex_exit_code_are_in_both_exports(
    tmp_path: Path, view: str
) -> None:
    cc, cx = _claude_code(tmp_path), _codex(tmp_path)
    for fmt, said in (("md", str), ("html", html.escape)):
        page = export(cc, fmt, view)  # type: ignore[arg-type]
        assert said(f'"{PATCH_LINE}"') in page, fmt
        assert said('"newStart": 1') in page  # (the file it had is no detail: replay's)
        page = export(cx, fmt, view)  # type: ignore[arg-type]
        assert said('"exit_code": 7') in page, fmt
    # HTML: folded in the call's box, after its result, until asked for
    page = export(cc, "html", view)  # type: ignore[arg-type]
    call = page.split("<b>Edit</b>", 1)[1].split('<div class="call ', 1)[0]
    folded = call.split("<details><summary>detail (", 1)
    assert len(folded) == 2 and "result: line" in folded[0]
    assert html.escape(PATCH_LINE) in folded[1].split("</details>", 1)[0]
    # Markdown: a fenced JSON block after the call's arguments
    md = export(cc, "md", view)  # type: ignore[arg-type]
    after = md.split("- **Edit** (e1)", 1)[1].split("\ndetail:\n\n```json\n", 1)
    assert len(after) == 2 and "arguments:" in after[0] and PATCH_LINE in after[1]


@pytest.mark.parametrize("view", VIEWS)
def test_a_hostile_detail_stays_inert(tmp_path: Path, view: str) -> None:
    path = _claude_code(tmp_path, stdout=HOSTILE)
    page = export(path, "html", view)  # type: ignore[arg-type]
    assert "<script" not in page and "</pre> " not in page
    assert page.count("<details>") == page.count("</details>")
    assert html.escape(HOSTILE) in page  # (its JSON string, escaped)
    text = export(path, "md", view)  # type: ignore[arg-type]
    tokens = MarkdownIt("commonmark").parse(text)
    fences = [t for t in tokens if t.type == "fence" and HOSTILE in t.content]
    # the whole detail one fence's body (its fence longer than the run of ten), no HTML
    assert len(fences) == 1 and fences[0].info == "json"
    assert fences[0].markup == "`" * 11 and fences[0].content.rstrip().endswith("}")
    assert not {t.type for t in tokens} & {"html_block", "html_inline"}
    assert "<script" not in MarkdownIt("commonmark").render(text)
