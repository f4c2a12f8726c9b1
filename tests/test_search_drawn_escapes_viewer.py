"""In the viewer, a C1 control or a hidden character is drawn as its escape (``\\x9b``,
``\\u202e``), and typing what the screen shows finds it: the conversation's search
(its cursor on the match) and the tool operations' (``test_search_drawn_escapes``:
every search, every mark, in the library). It said "0 matches" (README admitted it)."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use
from helpers import said, screen_text
from model_screen_helpers import IDLE, opened, until
from textual import events
from textual.app import App
from textual.pilot import Pilot


async def typed(app: App[None], pilot: Pilot[None], term: str) -> None:
    """``term`` into the search bar: typed, a picture (``␡``, which the pilot cannot
    press) pasted, as a copy (``c``) of its row is."""
    await pilot.press("slash")
    for char in term:
        if char.isascii():
            await pilot.press(char)
        else:
            assert app.focused is not None
            app.focused.post_message(events.Paste(char))
            await pilot.pause()
    assert app.screen.query_one("#search").value == term  # type: ignore[attr-defined]
    await pilot.press("enter")


async def test_typing_an_escape_as_drawn_finds_it(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("colour it \x9b32m and \u202ereversed")
    w.assistant("m1", [text("plain words")], stop="end_turn")
    w.user("run it")
    w.assistant("m2", [tool_use("t1", "Bash", command="printf 'x'")])
    w.result("t1", "out: \x9b31mred \x85nel del\x7fx \x1b[0m \u2066iso")
    w.assistant("m3", [text("Done.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path, size=(110, 30)) as (app, pilot, screen):
        shown = screen_text(app)
        assert "\\x9b32m" in shown and "\\u202ereversed" in shown  # (drawn so)
        view = screen.conversation
        for term, holder in (
            ("\\u202ereversed", 0),
            ("\\x85nel", None),
            ("del␡x", None),
            ("␛[0m", None),
        ):
            await typed(app, pilot, term)
            await until(pilot, lambda t=term: said(app, f"1 match for '{t}'"), term)
            assert len(view.matches) == 1 and view.cursor == view.matches[0], term
            found = view.items[view.cursor]
            if holder is not None:
                assert view.cursor == holder
            else:
                assert found.parts[0].kind == "tool-result", term
            assert f"/{term}: 1/1" in screen_text(app)
        await typed(app, pilot, "x9b3")  # (a piece of an escape: a plain term, as written)
        await until(pilot, lambda: said(app, "0 matches for 'x9b3'"), "none")
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 1, "the operation")
        await typed(app, pilot, "\\X9B31MRED")  # (any case)
        await until(pilot, lambda: said(app, "1 match for '\\X9B31MRED'"), "the operation")
        assert table.matches == [0] and table.cursor_row == 0
