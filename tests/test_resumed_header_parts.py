"""A resumed file's header at 80 columns: the copies said in parts broken between them,
never cut inside a fact (one part was cut ``copied from sessions aaaaaaaa…, bbbbbbbb…:
resum…``)."""

from __future__ import annotations

from pathlib import Path

from helpers import app_loaded, screen_lines
from test_browser_footer_fitted import A, B, C, ChainFile

from session_core.resumed import Resumed
from session_core.usage_totals import Usage
from viewer.screens.model_screen import ModelScreen


def test_the_parts_are_the_words_said() -> None:
    copied = {A: Usage(input_tokens=10, output_tokens=5, responses=2), B: Usage(responses=0)}
    for resumed in (
        Resumed(C, copied),
        Resumed(C, {A: Usage()}),
        Resumed(C, {B: Usage(responses=1)}),
    ):
        for as_own in (False, True):
            said = resumed.said(as_own)
            assert " ".join(resumed.said_parts(as_own)) == said
    assert Resumed(C, copied).said(True) == (
        "15 tok of it, 2 responses, copied from sessions aaaaaaaa…, bbbbbbbb…: resumed as cccccccc…"
    )


async def test_the_header_breaks_between_the_copies_parts(tmp_path: Path) -> None:
    f = ChainFile()
    for at, sid in enumerate((A, B, C)):
        f.sid = sid
        f.turn(1 + 2 * at)
    path = tmp_path / f"{C}.jsonl"
    f.write(path)
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, _pilot):
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert "resum…" not in text, text
        # (the SVG's text drops some blanks between styled parts: compared without them)
        said = "".join(text.split())
        assert "copiedfromsessionsaaaaaaaa…,bbbbbbbb…:resumedascccccccc…" in said, text
