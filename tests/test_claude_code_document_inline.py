"""A Claude Code ``document`` block (a PDF attached to a prompt, its base64 in the line) is
said inline as an image is, on every surface: ``replay`` said ``read this\\n[document
application/pdf]``, while the viewer and the Markdown and HTML exports drew a separate
``document`` block (the rule Codex's audio clip follows: ``test_codex_audio_inline``)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from claude_code_helpers import both
from claude_code_writer import CCWriter, text
from helpers import screen_lines, screen_text, wait_for
from test_claude_code_decode import FMT

from session_core.export import export
from viewer.app import TailscopeApp
from viewer.widgets.item_text import image_placeholder, media_word

PDF = "JVBERi0xLjQKJcfsj6IK" * 40  # (its base64: never shown)


def _file(tmp_path: Path) -> Path:
    pdf = {"type": "base64", "media_type": "application/pdf", "data": PDF}
    note = {"type": "text", "media_type": "text/plain", "data": "the notes"}
    w = CCWriter()
    w.user(
        [
            text("read this"),
            {"type": "document", "source": pdf},
            {"type": "document", "source": note, "title": "notes.txt"},
        ]
    )
    w.assistant("m1", [text("It is a PDF.")], usage={"input_tokens": 10, "output_tokens": 5})
    return w.write(tmp_path / "s.jsonl")


SAID = "read this\n[document application/pdf]\n[document text/plain: notes.txt]\nthe notes"


def test_replay_and_the_parts_say_it_inline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(tmp_path)
    t = both(path, monkeypatch)  # (the typed path's parts are the dict path's)
    assert [p.kind for p in t.messages[0].parts] == ["text", "image", "image"]
    assert FMT.replay_json(path)["messages"][0]["content"] == SAID


def test_the_markdown_export_says_it_in_the_text(tmp_path: Path) -> None:
    path = _file(tmp_path)
    for view in ("replayed", "raw"):
        md = export(path, "md", view=view)
        assert SAID in md, (view, md)
        assert "**document**" not in md and PDF[:16] not in md, view


def test_the_html_export_says_it_in_the_text(tmp_path: Path) -> None:
    page = export(_file(tmp_path), "html")
    assert html.escape(SAID, quote=False) in page, page
    assert ">document<" not in page and PDF[:16] not in page


async def test_the_viewer_says_it_as_an_image_is_said(tmp_path: Path) -> None:
    app = TailscopeApp(str(_file(tmp_path)))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: "[document application/pdf]" in screen_text(app))
        shown = screen_text(app)
        assert "document:" not in shown and PDF[:16] not in shown, shown
        assert "[document text/plain: notes.txt]" in shown, shown
        await pilot.press("home", "enter")  # (expanded: a text document's text under it)
        await wait_for(pilot, lambda: any(r.endswith("   the notes") for r in screen_lines(app)))
        rows = screen_lines(app)
        at = next(i for i, r in enumerate(rows) if r.endswith("[document text/plain: notes.txt]"))
        assert rows[at + 1].endswith("     the notes"), rows


def test_a_document_is_not_called_an_image() -> None:
    assert media_word("document") == "document"
    assert image_placeholder("", 40, media_word("document")) == "[document]"
