"""A Codex audio clip (``input_audio``, a ``data:`` URL) is said inline as an image is, on
every surface (the s44 audit a4, finding 3: ``replay`` said ``look\\n[image image/png]\\n
[audio audio/wav]``, the viewer and the Markdown export a separate ``input_audio:`` block
of an unknown type, named by its raw type)."""

from __future__ import annotations

from pathlib import Path

from codex_writer import RolloutWriter
from helpers import screen_text, wait_for

from session_core.export import export
from viewer.app import TailscopeApp
from viewer.widgets.item_text import image_placeholder

CLIP = "data:audio/wav;base64,UklGRg=="


def _clip(tmp_path: Path) -> Path:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.200.0")
    w.task_started("t1")
    content = [
        {"type": "input_text", "text": "look"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
        {"type": "input_audio", "audio_url": CLIP},
    ]
    w.write("response_item", {"type": "message", "role": "user", "content": content})
    w.message("assistant", "heard")
    w.task_complete("t1")
    return Path(w.path)


def test_the_markdown_export_says_it_in_the_text_beside_the_image(tmp_path: Path) -> None:
    path = _clip(tmp_path)
    for view in ("replayed", "raw"):
        md = export(path, "md", view=view)
        assert "look\n[image image/png]\n[audio audio/wav]" in md, (view, md)
        assert "input\\_audio" not in md and "input_audio" not in md, view


async def test_the_viewer_says_it_as_an_image_is_said(tmp_path: Path) -> None:
    app = TailscopeApp(str(_clip(tmp_path)))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: "[audio audio/wav]" in screen_text(app))
        text = screen_text(app)
        assert "[image image/png]" in text and "input_audio" not in text, text


def test_an_audio_address_is_not_called_an_image() -> None:
    assert image_placeholder("[audio audio/wav]", 40, "audio") == "[audio audio/wav]"
    assert image_placeholder("clip.wav", 40, "audio") == "[audio: clip.wav]"
    assert image_placeholder("", 40, "audio") == "[audio]"
