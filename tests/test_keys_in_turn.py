"""Keys typed in one burst (quickly, or pasted) reach what the key before them opened: a
dialog (``f``), the search bar (``/``). Textual handed each key on to the widget focused
when it came, before the one before it was handled: the dialog, not yet mounted, and the
bar, focused later, never saw them (a first-time-user audit). ``keys_in_turn``."""

from __future__ import annotations

from pathlib import Path

from helpers import screen_text
from model_screen_helpers import opened, until
from test_ops_filter import _session
from textual import events
from textual.widgets import Input

from viewer.app import TailscopeApp
from viewer.screens.filter import FilterScreen
from viewer.screens.help import BindingsHelpScreen
from viewer.screens.op_detail import OpDetailScreen


def _burst(app: TailscopeApp, *keys: str) -> None:
    """The keys as a terminal sends a burst: every one queued before the first is handled
    (``pilot.press`` waits for the app to be idle after each)."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        char = {"space": " ", "slash": "/", "question_mark": "?"}.get(key, key)
        driver.send_message(events.Key(key, char if len(char) == 1 else None))


async def test_keys_after_slash_go_into_the_search_bar(tmp_path: Path) -> None:
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        _burst(app, "slash", *"divide")
        search = screen.query_one("#search", Input)
        await until(pilot, lambda: search.value == "divide", f"the term typed: {search.value!r}")


async def test_keys_after_f_go_into_the_filter_dialog(tmp_path: Path) -> None:
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        await pilot.press("2")
        await until(pilot, lambda: screen.ops.table.row_count == 5, "five operations")
        _burst(app, "f", "space", "down", "space")  # (Bash and Grep unticked)
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        await until(
            pilot, lambda: "tools: hiding Bash, Grep" in screen_text(app), "both unticked", 3
        )
        assert screen.ops.table.cursor_row == 0  # (down was the dialog's, not the table's)


async def test_a_dialog_opened_and_closed_in_one_burst(tmp_path: Path) -> None:
    """``?`` then escape: the help, mounted, is closed by the escape, not left open."""
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        _burst(app, "question_mark", "escape", "2")
        await until(pilot, lambda: screen.query_one("#tabs").active == "tools", "the tab")
        assert app.screen is screen and not isinstance(app.screen, BindingsHelpScreen)


async def test_a_key_behind_one_whose_messages_open_a_screen_reaches_that_screen(
    tmp_path: Path,
) -> None:
    """enter on the operations' table opens the detail by a message its handler posts
    (RowSelected, then the pane's Opened): the escape behind it closed the table's screen
    half way through the detail's mount (a traceback, exit code 1)."""
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        await pilot.press("2")
        await until(pilot, lambda: screen.ops.table.row_count == 5, "five operations")
        _burst(app, "enter", "escape", "enter")
        await until(pilot, lambda: isinstance(app.screen, OpDetailScreen), "the detail again")
        await pilot.pause(0.2)
        assert isinstance(app.screen, OpDetailScreen) and len(app.screen_stack) == 2


async def test_a_paste_keeps_its_place_among_the_keys(tmp_path: Path) -> None:
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        _burst(app, "slash", "a", "b")
        driver = app._driver
        assert driver is not None
        driver.send_message(events.Paste("XY"))
        _burst(app, "c")
        search = screen.query_one("#search", Input)
        await until(pilot, lambda: search.value == "abXYc", f"in order: {search.value!r}")
