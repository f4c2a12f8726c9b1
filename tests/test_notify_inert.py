"""Notifications name untrusted text (a search term, a file name): it shows as typed,
never read as markup (``[/bold]`` searched for closed no tag, and the app died of it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from format_fixtures import FACTORIES
from helpers import app_loaded, notes_kept, wait_for

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


async def test_a_search_told_while_loading_says_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Matches counted before the load is over are the loaded part's: the toast says so
    (it read as final), and the header marks a cursor that is on no match ("–/n", where
    it read "1/1" with the cursor at the file's end)."""
    path = FACTORIES["transcript-v1"](tmp_path)
    async with app_loaded(path, ModelScreen, (120, 30)) as (app, pilot):
        screen = app.file_screen
        told = notes_kept(app, monkeypatch)  # (the toast shows 2 s: gone after a slow pause)
        screen._loaded = False  # (as while a big file loads)
        screen._notify_matches("careful", 0)
        screen._loaded = True
        assert any("so far: the file is still loading" in note for note in told)
        view = screen.conversation
        view.search("user")
        await wait_for(pilot, lambda: view.searching is None and bool(view.matches))
        view.move_to(view.matches[0])
        view.match_pos = 0
        assert view.search_status().endswith(f": 1/{len(view.matches)}")
        off = next(i for i in range(len(view.items)) if i not in view.matches)
        view.move_to(off)
        assert view.search_status().endswith(f": –/{len(view.matches)}")


async def test_matches_told_for_the_apps_time_when_a_screen_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``MATCHES_TIMEOUT = None`` is the app's notification time: the same count told
    again is told once while it shows (it compared a time with None and raised)."""
    path = FACTORIES["transcript-v1"](tmp_path)
    async with app_loaded(path, ModelScreen, (120, 30)) as (app, pilot):
        screen = app.file_screen
        monkeypatch.setattr(type(screen), "MATCHES_TIMEOUT", None)
        screen._notify_matches("careful", 1)
        screen._notify_matches("careful", 1)  # (n pressed again: the toast still shows)
        await pilot.pause()
        told = [n for n in app._notifications if "match for 'careful'" in str(n.message)]
        assert len(told) == 1 and told[0].timeout == app.NOTIFICATION_TIMEOUT
