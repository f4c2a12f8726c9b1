"""The ``?`` screen is built from the bindings: every key a screen or its widgets bind
is listed with its description, and nothing else needs editing when a key is added."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import file_loaded, screen_lines, screen_text, wait_for

from agentgo_story import write_agentgo_story
from story import write_story
from viewer.app import TailscopeApp
from viewer.screens.browser import BrowserScreen
from viewer.screens.help import BindingsHelpScreen, binding_rows
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.agentgo_calls import CallsPane
from viewer.widgets.diff_view import DiffView
from viewer.widgets.items_view import ItemsView
from viewer.widgets.line_tree import LineTree
from viewer.widgets.model_status import LIVE_STATES

SIZE = (120, 200)  # tall enough for the whole list
OPEN_OTHER = "Open the session the writer went on in"  # where the format can name one


async def _help_text(app: TailscopeApp, kind: type | None) -> str:
    async with app.run_test(size=SIZE) as pilot:
        if kind is not None:
            await file_loaded(pilot, kind)
        else:
            await pilot.pause(0.3)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, BindingsHelpScreen))
        return screen_text(app)


def _flat(svg: str) -> str:
    """The screen's words, one space between each."""
    return " ".join(html.unescape(re.sub("<[^>]+>", " ", svg)).replace("\xa0", " ").split())


def _descriptions(bindings: object) -> list[str]:
    return [what for _keys, what in binding_rows(bindings)]  # type: ignore[arg-type]


async def test_the_v1_screen_lists_its_own_and_its_widgets_keys(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write_story(path)
    text = await _help_text(TailscopeApp(path), ModelScreen)
    for what in [
        *_descriptions(ModelScreen.for_format("transcript-v1").BINDINGS),
        *_descriptions(ItemsView.BINDINGS),
        *_descriptions(DiffView.BINDINGS),
    ]:
        if what != OPEN_OTHER:
            assert what in text, what
    assert OPEN_OTHER not in text  # v1 never names another session of its project
    assert "Next compaction" in text and "Changed only / all" in text
    assert "Next run not finished" in text  # (the runs tab's own keys: it listed ``enter``)
    assert "ctrl+p: the command palette" in text and "ctrl+p, then Export…" in text
    assert "[sticky] on a message: context a compaction keeps" in text  # (a tag, said)
    assert "Back to the list" not in text  # opened alone: there is no list to go back to
    assert "Open artifact" in text and "Open subagent" not in text  # (a detail's keys)
    for state in LIVE_STATES:  # (the header's dot, each word said: "ended" is not "idle")
        assert f"● {state}" in text, state
    # (as the README's table says them: the compressed file's case was left out)
    shown = html.unescape(re.sub("<[^>]+>", " ", text)).replace("\xa0", " ")
    flat = " ".join(re.sub("[│┃▎▊]", " ", shown).split())  # (the table's borders between)
    assert "(not an agentgo file, whose writers all lock; not a compressed file)" in flat
    assert "(an agentgo or compressed file: none holds it)" in flat


async def test_the_agentgo_screen_and_the_browser_list_theirs(tmp_path: Path) -> None:
    session = tmp_path / "a.jsonl"
    write_agentgo_story(session)
    text = await _help_text(TailscopeApp(session), ModelScreen)
    screen = ModelScreen.for_format("agentgo-v1")
    calls = [*_descriptions(LineTree.BINDINGS), *_descriptions(CallsPane.BINDINGS)]
    for what in [*_descriptions(screen.BINDINGS), *calls]:
        if what != OPEN_OTHER:
            assert what in text, what  # agentgo's own keys among them, the call tree's too
    assert OPEN_OTHER not in text
    assert "All runs" in text and "Failed/gap call" in text and "Open call" in text
    assert "Open artifact" not in text  # (v1's operations alone have artifacts)
    (tmp_path / "dir").mkdir()
    write_story(tmp_path / "dir" / "t.jsonl")
    text = await _help_text(TailscopeApp(tmp_path / "dir"), None)
    for what in _descriptions(BrowserScreen.BINDINGS):
        assert what in text, what
    assert "Virtual table" not in text and "Tables" in text  # a section named for a user
    assert "Export…" not in text  # (the browser's palette has none: its help said it had)
    assert "[sticky]" not in text  # (nor a conversation's tags)
    assert "The header's dot" not in text  # (a file's: the browser's rows have statuses)


async def test_the_palettes_keys_is_this_help_which_escape_closes(tmp_path: Path) -> None:
    # Textual's own "Keys" was a docked panel that escape did not close: escape then
    # left the file for the list, the panel still open
    path = tmp_path / "t.jsonl"
    write_story(path)
    app = TailscopeApp(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await file_loaded(pilot, ModelScreen)
        keys = [c for c in app.get_system_commands(app.screen) if c.title == "Keys"]
        assert len(keys) == 1
        keys[0].callback()
        await wait_for(pilot, lambda: isinstance(app.screen, BindingsHelpScreen))
        assert not app.screen.query("HelpPanel")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelScreen))
        assert not app.screen.query("HelpPanel")


async def test_help_and_quit_stay_in_the_footer_at_80_columns(tmp_path: Path) -> None:
    """Textual's footer lists the focused widget's keys first and the app's last, and a
    narrow screen cuts the row at its end: at 80 columns the conversation and the tool
    operations lost ``? Help`` and ``q Quit`` first (the usability audit). They come
    first, on the file screens' tabs and the browser."""
    from helpers import screen_lines

    path = tmp_path / "dir" / "t.jsonl"
    path.parent.mkdir()
    write_story(path)
    async with TailscopeApp(path).run_test(size=(80, 24)) as pilot:
        await file_loaded(pilot, ModelScreen)
        for tab in ("1", "3"):  # (the conversation, the tool operations)
            await pilot.press(tab)
            await pilot.pause(0.2)
            footer = screen_lines(pilot.app)[-1]
            assert footer.lstrip().startswith("? Help  q Quit  "), footer
    async with TailscopeApp(path.parent).run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, BrowserScreen))
        await pilot.pause(0.3)
        assert screen_lines(pilot.app)[-1].lstrip().startswith("? Help  q Quit  ")


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
async def test_every_key_of_every_tab_is_in_the_help(tmp_path: Path, fmt: str) -> None:
    """Each key bound by a widget of ours in a tab's pane (its table's ``c``, the tool
    operations' ``n`` / ``N``: the audit found them missing, the help's sections being
    lists of classes) is in ``?``, under that tab or the keys most tabs share."""
    from textual.widgets import TabPane

    from viewer.screens.help import ACROSS_TITLE, SHARED_TITLE, TEXTUAL_SCROLLING, key_name

    app = TailscopeApp(BUILT_IN[fmt](tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        if "contexts" in screen._tab_ids:  # (v1: a run's sections come when it is shown)
            await pilot.press(str(1 + [t.id for t in screen.TABS].index("contexts")))
            await wait_for(pilot, lambda: bool(screen.query("SectionView")))
        bound: set[tuple[str, str, str]] = set()  # (tab, key, what it does)
        for tab in screen.TABS:
            for widget in screen.query_one(f"TabPane#{tab.id}", TabPane).query("*"):
                if not type(widget).__module__.startswith("viewer."):
                    continue  # (Textual's containers: theirs scroll what ours move through)
                for bindings in widget._bindings.key_to_bindings.values():
                    for b in bindings:
                        what = b.tooltip or b.description
                        if (b.key, b.action, what) not in TEXTUAL_SCROLLING:  # (said: below)
                            bound.add((tab.title, key_name(b.key), what))
        assert any(what == "Copy the row" for _t, _k, what in bound)  # (the walk found them)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, BindingsHelpScreen))
        help_screen = app.screen
        assert isinstance(help_screen, BindingsHelpScreen)
        listed = {
            (section, key, what)
            for section, bindings in help_screen.sections
            for keys, what in binding_rows(bindings)
            for key in keys.split(" / ")
        }
        missing = [
            (title, key, what)
            for title, key, what in sorted(bound)
            if not any(
                (where, key, what) in listed for where in (title, SHARED_TITLE, ACROSS_TITLE)
            )
        ]
        assert not missing, missing


async def test_textuals_scroll_keys_are_listed_where_they_scroll_in_our_words(
    tmp_path: Path,
) -> None:
    """Every list had Textual's ``left`` "Scroll Left", ``ctrl+pagedown`` "Page Right"
    (and the browser's footer its ``up`` "Scroll Up" …), listed under most tabs, though in
    a list cut to its width they do nothing. A table's columns do scroll across a narrow
    window: its keys are listed once, in our words, in a section saying where they act."""
    from viewer.screens.help import ACROSS_TITLE

    textuals = ("Scroll Left", "Scroll Right", "Page Left", "Page Right", "Scroll Up", "Page Up")
    path = tmp_path / "dir" / "t.jsonl"
    path.parent.mkdir()
    write_story(path)
    for where, kind in ((path, ModelScreen), (path.parent, None)):
        app = TailscopeApp(where)
        async with app.run_test(size=SIZE) as pilot:
            if kind is not None:
                await file_loaded(pilot, kind)
            await pilot.pause(0.3)
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, BindingsHelpScreen))
            text = screen_text(app)
            sections = app.screen.sections  # type: ignore[attr-defined]
        for words in textuals:
            assert words not in text, (where, words)
        rows = [
            (section, keys, what)
            for section, bindings in sections
            for keys, what in binding_rows(bindings)
        ]
        assert [(keys, what) for section, keys, what in rows if section == ACROSS_TITLE] == [
            ("left", "Scroll the columns left"),
            ("right", "Scroll the columns right"),
            ("ctrl+PgUp", "A page of columns left"),
            ("ctrl+PgDn", "A page of columns right"),
        ], where
        assert [k for _s, k, _w in rows].count("left") == 1, where  # (once, not a tab each)


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_the_footer_shows_whole_keys_only(tmp_path: Path, size: tuple[int, int]) -> None:
    """A key that does not fit is left out, not cut: the footer ended in ``w War▏`` at 120
    columns and a bare ``r`` at 80 (the keys audit)."""
    from helpers import screen_lines
    from textual.widgets._footer import FooterKey

    path = tmp_path / "t.jsonl"
    write_story(path)
    left_out = 0
    async with TailscopeApp(path).run_test(size=size) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = pilot.app.screen
        assert isinstance(screen, ModelScreen)
        for number in range(1, len(screen.TABS) + 1):
            await pilot.press(str(number))
            await pilot.pause(0.3)
            keys = list(screen.query(FooterKey))
            palette = next(k for k in keys if k.has_class("-command-palette"))
            footer = screen_lines(pilot.app)[-1]
            for key in keys:
                if key is palette:
                    continue
                if not key.display:
                    left_out += 1
                    continue
                assert key.region.right <= palette.region.x, (number, key.description, footer)
                assert f"{key.key_display} {key.description}" in footer, (number, footer)
    assert left_out or size[0] > 80  # (at 80 columns some are left out: the case is met)


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_the_footer_says_c_on_a_table_and_n_once_searched(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """``?`` listed a table's ``c`` and every list's ``n`` / ``N``, the footer never, room
    or not (the review). A table's footer says ``c Copy the row``; a list's says
    ``n Next match`` once it is searched (before, ``n`` steps through nothing), ahead of
    the conversation's ``t`` / ``e``, so that 80 columns keep it."""
    from helpers import screen_lines

    path = tmp_path / "t.jsonl"
    write_story(path)
    async with TailscopeApp(path).run_test(size=size) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = pilot.app.screen
        assert isinstance(screen, ModelScreen)

        async def footer(tab: str) -> str:
            await pilot.press(tab)
            await pilot.pause(0.3)
            return screen_lines(pilot.app)[-1]

        assert "c Copy the row" in await footer("5")  # (v1's runs)
        assert "c Copy the row" in await footer("4")  # (its run contexts' runs)
        assert "n Next match" not in await footer("1")
        await pilot.press("slash", *"divide", "enter")
        await wait_for(pilot, lambda: bool(screen.conversation.matches))
        assert "n Next match" in await footer("1")
        tools = await footer("3")
        assert "n Next match" not in tools and "⏎ Open" in tools  # (not searched there)
        await pilot.press("slash", *"read", "enter")
        await wait_for(pilot, lambda: screen.ops.table.search_term == "read")
        assert "n Next match" in await footer("3")


async def test_escape_back_is_first_in_the_footer_of_a_pushed_screen(tmp_path: Path) -> None:
    """A file opened from the browser, and a run context's sections, said ``esc Back``
    nowhere in the footer at 80 or 100 columns (it came last and was cut, or was not
    shown), and ``q`` there quits the app (audit E): escape's key comes first."""
    from helpers import screen_lines

    from viewer.widgets.run_context import SectionView

    path = tmp_path / "dir" / "t.jsonl"
    path.parent.mkdir()
    write_story(path)
    async with TailscopeApp(path.parent).run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, BrowserScreen))
        await pilot.pause(0.3)
        assert "esc" not in screen_lines(pilot.app)[-1]  # (escape there leaves nothing)
        await pilot.press("enter")
        await file_loaded(pilot, ModelScreen)
        await pilot.pause(0.2)
        footer = screen_lines(pilot.app)[-1]
        assert footer.lstrip().startswith("esc Back to the list  ? Help  q Quit  "), footer
        await pilot.press("4", "enter")  # (a run's sections)
        await wait_for(pilot, lambda: isinstance(pilot.app.focused, SectionView))
        await pilot.pause(0.2)
        footer = screen_lines(pilot.app)[-1]
        assert footer.lstrip().startswith("esc Back to the runs  ? Help  q Quit  "), footer


async def test_the_help_scrolls_by_the_list_keys_and_its_footer_says_them(tmp_path: Path) -> None:
    """j / k / g / G scroll the help as every view's list (an audit: only the arrows and
    pages did, the footer naming ``esc Close`` alone)."""
    path = tmp_path / "t.jsonl"
    write_story(path)
    app = TailscopeApp(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, BindingsHelpScreen))
        await pilot.pause()
        body = app.screen.query_one("#help-body")
        assert body.max_scroll_y > 2
        await pilot.press("j", "j")
        await pilot.pause()
        assert body.scroll_y == 2
        await pilot.press("k")
        await pilot.pause()
        assert body.scroll_y == 1
        await pilot.press("G")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert body.scroll_y == 0
        footer = " ".join(screen_lines(app)[-1].split())
        assert all(f"{key} {what}" in footer for key, what in [("j", "Down"), ("G", "Bottom")])


async def test_the_browsers_help_says_its_own_escape_and_mouse(tmp_path: Path) -> None:
    """The browser's help said the file screen's mouse ("double-click folds or expands":
    there a double click opens the file) and left out escape, which clears its filter:
    both come from the browser now (its bindings, its ``HELP_MOUSE``)."""
    (tmp_path / "dir").mkdir()
    write_story(tmp_path / "dir" / "t.jsonl")
    flat = _flat(await _help_text(TailscopeApp(tmp_path / "dir"), None))
    assert "esc Clear the text filter (a status filter stays)" in flat
    assert "double-click opens the file" in flat and "folds or expands" not in flat
    write_story(tmp_path / "t.jsonl")
    flat = _flat(await _help_text(TailscopeApp(tmp_path / "t.jsonl"), ModelScreen))
    assert "double-click folds or expands" in flat  # (a file's screen: as it was)
    assert "Clear the text filter" not in flat
