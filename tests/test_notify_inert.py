"""Notifications name untrusted text (a search term, a file name): it shows as typed,
never read as markup (``[/bold]`` searched for closed no tag, and the app died of it)."""

from __future__ import annotations

from pathlib import Path

from format_fixtures import FACTORIES
from helpers import app_loaded, wait_for

from viewer.screens.model_screen import ModelScreen


async def test_a_search_for_markup_is_told_as_typed(tmp_path: Path) -> None:
    path = FACTORIES["transcript-v1"](tmp_path)
    async with app_loaded(path, ModelScreen, (120, 30)) as (app, pilot):
        for term in ("[/bold]", "[bold red]x"):
            await pilot.press("/", *term, "enter")
            await wait_for(
                pilot,
                lambda term=term: any(  # type: ignore[misc]
                    repr(term) in str(note.message) for note in app._notifications
                ),
            )
            await pilot.press("escape")
        # (a headless app draws no toast: what the terminal would parse is the flag)
        assert app._notifications and not any(note.markup for note in app._notifications)
        app.screen.notify("a widget's [/x]")  # (a widget's notify asks for markup)
        assert not any(note.markup for note in app._notifications)
        assert app.is_running
