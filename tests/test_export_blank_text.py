"""A text of only whitespace (a Claude Code response's ``"\\n\\n"`` text block, a command's
empty result) is said in the exports as the viewer's row says it, ``(blank text: '\\n\\n')``
or ``(empty text)``: the audit on the real sample found empty code blocks that said
nothing, where the viewer said what they were."""

from __future__ import annotations

from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use

from session_core.export import export


def test_a_blank_text_is_said_not_drawn_as_an_empty_box(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("run it")
    w.assistant("m1", [text("\n\n"), tool_use("t1", "Bash", command="true")])
    w.result("t1", "")
    w.assistant("m2", [text("done")], stop="end_turn")
    path = w.write(tmp_path / "cc.jsonl")
    for view in ("replayed", "raw"):
        md = export(path, "md", view)  # type: ignore[arg-type]
        lines = md.splitlines()
        assert "*\\(blank text: '\\\\n\\\\n'\\)*" in lines, view
        assert "*\\(empty text\\)*" in lines, view
        # (no box left empty: a fence opened is closed on a line that is not its next)
        empty = [
            i
            for i, line in enumerate(lines[:-1])
            if line == "```text" and lines[i + 1] in ("", "```")
        ]
        assert not empty, [lines[i : i + 4] for i in empty]
        html = export(path, "html", view)  # type: ignore[arg-type]
        assert '<p class="blank">(blank text: &#x27;\\n\\n&#x27;)</p>' in html, view
        assert '<p class="blank">(empty text)</p>' in html, view
