"""The command palette (``ctrl+p``): every action of the screen it is opened on, by name,
each doing what its key does there; none that the screen lacks, none that writes a file."""

from __future__ import annotations

from inspect import isawaitable
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import app_loaded, file_loaded, wait_for
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from story import write_story
from viewer.app import TailscopeApp
from viewer.screens.browser import BrowserScreen
from viewer.screens.following import Command
from viewer.screens.help import binding_rows
from viewer.screens.model_screen import ModelScreen

SIZE = (120, 35)


async def _run(app: TailscopeApp, pilot: Pilot[None], screen: object, command: Command) -> None:
    """Run a palette command as the palette does (awaited where it is a coroutine), then
    close what it opened over the screen: the app must still be running."""
    title, _help, callback = command
    result = callback()
    if isawaitable(result):
        await result
    await pilot.pause(0.05)
    # (a screen it opened is closed at once, mounting or not: closed mid-mount, Textual's
    # tabs raised "No Tab with id" in CI, the next command finding the app gone, until a
    # file screen's removal waited for its mount: ``RemovedOnceMounted``)
    while app.screen is not screen and len(app.screen_stack) > 1:
        app.pop_screen()
        await pilot.pause(0.02)
    assert app.is_running, title


async def _palette_picks(app: TailscopeApp, pilot: Pilot[None], title: str) -> None:
    """Open the palette, type ``title`` and pick its highlighted command (that one)."""

    def highlights() -> bool:
        palette = app.screen
        if not isinstance(palette, CommandPalette):
            return False
        commands = palette.query_one(CommandList)
        if commands.highlighted is None:
            return False
        hit = commands.get_option_at_index(commands.highlighted).hit
        return str(hit.text or hit.prompt) == title

    await app.run_action("command_palette")
    await pilot.press(*title)
    await wait_for(pilot, highlights)
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
async def test_every_command_of_every_tab_runs(fmt: str, tmp_path: Path) -> None:
    # A v1 file listed "Show the diff" twice: the shared one named a tab v1 lacks, and
    # picking it killed the viewer (ValueError: No Tab with id '--content-tab-diff').
    path = BUILT_IN[fmt](tmp_path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        titles = [title for title, _, _ in screen._palette()]
        assert len(titles) == len(set(titles)), titles
        shows = [title for title in titles if title.startswith("Show ")]
        assert len(shows) == len(screen.TABS), shows  # one for each tab it has, no more
        ran: set[tuple[str, str]] = set()
        for tab in screen.TABS:  # (what it offers on each tab, once: some open another tab)
            screen.action_show_tab(tab.id)
            await pilot.pause(0.05)
            for command in screen._palette():
                if command[:2] not in ran:
                    ran.add(command[:2])
                    screen.action_show_tab(tab.id)
                    await _run(app, pilot, screen, command)


async def test_the_palette_does_what_the_key_does_on_the_tab_shown(tmp_path: Path) -> None:
    # "Copy item" on the runs tab copied the hidden conversation's item; "Next error"
    # moved the conversation's cursor while the tool operations were shown.
    path = tmp_path / "t.jsonl"
    write_story(path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        conversation = screen.conversation
        await pilot.press("5")  # v1's runs
        await wait_for(pilot, lambda: screen.query_one(TabbedContent).active == "runs")
        titles = {title: about for title, about, _ in screen._palette()}
        assert "Next error" not in titles and "Next tool call" not in titles
        assert titles["Copy the row"] == "key c on the Runs tab"
        assert "Next run not finished" in titles
        cursor = conversation.cursor
        await pilot.press("c")  # the key, then its command: the same row
        await wait_for(pilot, lambda: app.clipboard.startswith("#\t"))
        by_key = app.clipboard
        app.copy_to_clipboard("")
        await _palette_picks(app, pilot, "Copy the row")
        await wait_for(pilot, lambda: app.clipboard)
        assert app.clipboard == by_key
        assert conversation.cursor == cursor
        await pilot.press("3")  # the tool operations: e steps through what did not complete
        await wait_for(pilot, lambda: screen.query_one(TabbedContent).active == "tools")
        table = screen.ops.table
        table.cursor = 0
        await _palette_picks(app, pilot, "Next operation not completed")
        await wait_for(pilot, lambda: table.cursor > 0)
        by_palette = table.cursor
        table.cursor = 0
        await pilot.press("e")
        await wait_for(pilot, lambda: table.cursor > 0)
        assert table.cursor == by_palette
        assert conversation.cursor == cursor
        assert screen.focused is table
        await pilot.press("1")
        titles = {title: about for title, about, _ in screen._palette()}
        assert titles["Next error"] == "key e on the Conversation tab"
        assert "Copy the row" not in titles


async def test_the_browsers_palette_has_its_keys(tmp_path: Path) -> None:
    write_story(tmp_path / "t.jsonl")
    app = TailscopeApp(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.rows)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        commands = {c.title: c.help for c in app.get_system_commands(browser)}
        for keys, what in binding_rows(BrowserScreen.BINDINGS):
            assert commands[what] == f"key {keys}", what
        await _palette_picks(app, pilot, "Only the crashed files")
        await wait_for(pilot, lambda: browser.status_filter == "crashed")
        await _palette_picks(app, pilot, "Every file (the text filter cleared too)")
        await wait_for(pilot, lambda: browser.status_filter is None)
        await _palette_picks(app, pilot, "Open the selected file")
        await file_loaded(pilot, ModelScreen)
        file_commands = {c.title for c in app.get_system_commands(app.screen)}
        assert "Only the crashed files" not in file_commands and "Show runs" in file_commands


async def test_the_palette_offers_no_screenshot_and_no_maximize(tmp_path: Path) -> None:
    """Of Textual's own commands, on a transcript and on a folder's browser: no
    "Screenshot" (it wrote an SVG to ~/Downloads: only demo and export write files), no
    "Maximize" / "Minimize" (Maximize hid the header, tabs and footer: nothing said
    escape leaves it); its others stay."""
    path = tmp_path / "t.jsonl"
    write_story(path)
    for where in (path, tmp_path):
        app = TailscopeApp(where)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.3)
            said = {c.title: c.help for c in app.get_system_commands(app.screen)}
            titles = set(said)
            assert not titles & {"Screenshot", "Maximize", "Minimize"}, where
            assert {"Quit", "Keys"} <= titles, where
            # (by its key, as the others are: Textual's "Quit the application as soon as
            # possible" read unlike them, a person's look)
            assert said["Quit"] == "key q", where


async def test_a_key_refused_by_its_actions_name_is_the_next_bindings(tmp_path: Path) -> None:
    """A pane's ``check_action`` is asked as Textual asks it for the key: the action's
    name and parameters (``step_match``, ``(1,)``), not the binding's whole string
    (``step_match(1)``, which a check keyed on the name never refused: the review). The
    diff's ``n`` is its next difference until ``/`` searches it, then its next match."""
    from viewer.screens.key_commands import key_chain, key_commands
    from viewer.widgets.diff_view import DiffView

    path = tmp_path / "t.jsonl"
    write_story(path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("d")
        diff = app.query_one(DiffView)
        await wait_for(pilot, lambda: app.screen.focused is diff)
        assert diff.check_action("step_match", (1,)) is False  # (refused by its name)
        [(title, about, _run_it)] = key_commands(key_chain(diff), ["n"])
        assert title.startswith("Next difference") and about == "key n"
        diff.search_term = "divide"
        [(title, _about, _run_it)] = key_commands(key_chain(diff), ["n"])
        assert title.startswith("Next match")


async def test_the_palette_offers_top_and_a_searchs_matches(tmp_path: Path) -> None:
    """It offered *Bottom* (``G``) but not *Top* (``g``), nor *Next match* / *Previous
    match* while a search was set, which the footer and ``?`` list (audit E)."""
    path = tmp_path / "t.jsonl"
    write_story(path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        titles = {title: about for title, about, _ in screen._palette()}
        assert titles["Top"] == "key g on the Conversation tab"
        assert "Bottom" in titles and "Next match" not in titles  # (no search yet)
        screen.conversation.search("assistant")
        await wait_for(pilot, lambda: screen.conversation.searching is None)
        titles = {title: about for title, about, _ in screen._palette()}
        assert titles["Next match"] == "key n on the Conversation tab"
        assert titles["Previous match"] == "key N on the Conversation tab"
        await pilot.press("G")
        at = screen.conversation.cursor
        await _palette_picks(app, pilot, "Top")
        await wait_for(pilot, lambda: screen.conversation.cursor < at)
