"""An ``apply_patch`` call (a ``custom_tool_call`` whose input is the patch, or a
``function_call`` whose arguments hold it) reads by the files it touches at a glance (the
tool operations tab, the conversation's row) and as its lines where it is shown whole,
inert: its function form read as a JSON string of ``\\n`` escapes everywhere."""

from __future__ import annotations

from pathlib import Path

from codex_helpers import opened
from codex_writer import RolloutWriter

from session_core.search import call_arguments, op_arguments

PATCH = (
    "*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    print('hi')\n"
    "+    print('[bold]hello\x1b[31m')\n*** Add File: docs/NEW.md\n+# New\n"
    "*** Delete File: old.txt\n*** Update File: a.py\n*** Move to: b.py\n*** End Patch\n"
)
FILES = "src/app.py, docs/NEW.md, old.txt (+2 more)"


def _patched(path: Path) -> Path:
    w = RolloutWriter(path)
    w.session_meta()
    w.task_started("t1")
    w.message("user", "fix the build")
    w.custom_call("apply_patch", PATCH, "cp")
    w.custom_output("cp", "Success.")
    w.function_call("apply_patch", {"input": PATCH}, "fp")
    w.function_output("fp", "Success.")
    w.function_call("shell", {"command": ["ls"]}, "sh")  # (no patch: as it was)
    w.function_output("sh", "a.py")
    w.task_complete("t1")
    return path


def test_a_patch_call_reads_by_its_files_and_shows_its_lines(tmp_path: Path) -> None:
    from session_core.tool_ops import ops_by_call
    from viewer.screens.op_detail import arguments_text
    from viewer.widgets.items_view import ItemsView
    from viewer.widgets.model_panes import fit_op_arguments

    t = opened(_patched(tmp_path / "r.jsonl"), False)
    ops = {op.call_id: op for op in t.tool_operations}
    calls = {p.call_id: (item, p) for item in t.raw for p in item.parts if p.kind == "tool-call"}
    view = ItemsView()
    view._s = lambda _name: ""  # type: ignore[method-assign]
    view.transcript, view.ops = t, ops_by_call(t.tool_operations)
    for call_id in ("cp", "fp"):
        op = ops[call_id]
        assert op_arguments(op.arguments) == FILES
        assert fit_op_arguments(op.arguments, 60) == FILES
        item, part = calls[call_id]
        assert call_arguments(part) == FILES
        (folded,) = view._part_folded(part, 200, item)
        assert folded.plain.endswith(f"[completed]  {FILES}")
        # Shown whole: its lines, as written (no JSON string, no escapes read)
        shown = [line.plain.strip() for line in view._part_full(part, 200, item)][1:]
        assert shown[:3] == ["*** Begin Patch", "*** Update File: src/app.py", "@@ def main():"]
        assert "+    print('[bold]hello␛[31m')" in shown  # (inert: markup and ESC as text)
        assert not any("\\n" in line for line in shown)
        detail = arguments_text(op.arguments)
        assert detail == PATCH  # (made inert where it is drawn, as every text)
    assert op_arguments(ops["sh"].arguments) == "ls"


def test_an_export_shows_a_patch_as_its_lines(tmp_path: Path) -> None:
    """md and html exports wrote a patch call's arguments as JSON (``{"input": "*** Begin
    Patch\\n…"}``, fenced as ``json``): both forms are the patch's lines, inert, the md
    fenced as a ``diff``; a call that is no patch is JSON as before."""
    from session_core.export import export

    path = _patched(tmp_path / "r.jsonl")
    md = export(path, "md")
    assert "\\n*** Update File" not in md and '"input"' not in md
    blocks = md.split("arguments:\n\n")[1:]
    patches = [b for b in blocks if b.startswith("```diff\n*** Begin Patch\n")]
    assert len(patches) == 2, blocks
    assert all("\n*** Update File: src/app.py\n" in b for b in patches)
    assert any(b.startswith("```json\n") and '"command"' in b for b in blocks)
    page = export(path, "html")
    assert "\\n*** Update File" not in page
    assert page.count("*** Update File: src/app.py\n") == 2
    assert "[bold]hello" in page and "\x1b" not in page  # (inert: shown, not read)
