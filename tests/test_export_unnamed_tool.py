"""A tool call whose name is empty (a v1 file another writer wrote: ``Session`` refuses
one) is drawn ``?`` by the viewer; the exports wrote it ``****`` (Markdown) and ``<b></b>``
(HTML), and its result's flag ``answers  (c1)``. One rule now (``text.tool_name``) for
the viewer, its search and both exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_core import Message, Session
from session_core.export import export
from session_core.parts import Part
from session_core.search import call_said


def _unnamed_call(path: Path, name: str) -> Path:
    s = Session.create(path, meta={"agent": "a", "model": "m"})
    s.append_message(Message(role="user", content="go"))
    call = {"id": "c1", "type": "function", "function": {"name": "NAMED", "arguments": "{}"}}
    s.append_message(
        Message(role="assistant", content="", tool_calls=(call,)),
        extra={"finish-reason": "tool_calls"},
    )
    s.append_message(Message(role="tool", content="ok", tool_call_id="c1"))
    s.close()
    path.write_text(path.read_text().replace('"NAMED"', f'"{name}"'))
    return path


@pytest.mark.parametrize("name", ["", "  "])
def test_an_unnamed_tool_call_is_exported_as_the_viewer_draws_it(tmp_path: Path, name: str) -> None:
    path = _unnamed_call(tmp_path / "run.jsonl", name)
    for view in ("replayed", "raw"):
        md = export(path, "md", view)  # type: ignore[arg-type]
        assert "- **?** (c1): " in md, view
        assert "**answers ? \\(c1\\)**" in md, view
        assert "****" not in md and "** **" not in md, view
        html = export(path, "html", view)  # type: ignore[arg-type]
        assert "<div><b>?</b> <code>c1</code>" in html, view
        assert "answers ? (c1)" in html, view
        assert "<b></b>" not in html, view
    assert call_said(Part("tool-call", call_id="c1", name=name)) == "→ ? "
