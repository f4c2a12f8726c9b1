"""A search made while a big file shows its end first and the rest loads: its keys, and
where the cursor is once the whole file is in (a search audit: every key was dead after
the load, and the cursor left its match for the file's last line, "1/10" → "–/11")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import wait_for
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

import session_core.formats.v1 as v1
from session_core import Message, Session
from viewer.app import TailscopeApp
from viewer.screens import following
from viewer.screens.following import FIRST_TAB, FollowingScreen
from viewer.screens.model_screen import ModelScreen
from viewer.widgets import items_view
from viewer.widgets.model_status import ModelStatus

MESSAGES = 40  # every fourth holds "needle"


def needles(path: Path) -> Path:
    with Session.create(path, meta={}) as s:
        for i in range(MESSAGES):
            needle = " needle" if i % 4 == 1 else ""
            s.append_message(Message(role="user", content=f"message {i}{needle} " + "x" * 80))
    return path


@asynccontextmanager
async def big_file_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen]]:
    """The app on a file over the size that shows its end first, its end shown; the full
    load and the hidden tabs' panes held until the test lets them come
    (``FollowingScreen.follow_file`` / ``_mount_panes``)."""
    path = needles(tmp_path / "big.jsonl")
    monkeypatch.setattr(following, "PREVIEW_FROM", path.stat().st_size - 1)
    monkeypatch.setattr(v1, "TAIL", 2600)  # the end: its last few messages
    held: list[ModelScreen] = []
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: held.append(self))
    monkeypatch.setattr(ModelScreen, "_mount_panes", lambda self: None)
    app = TailscopeApp(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: bool(held))
        screen = held[0]
        assert screen._previewing and 0 < len(screen.conversation.items) < MESSAGES
        assert not screen.panes_ready
        yield app, pilot, screen


async def test_a_search_submitted_before_the_panes_come_keeps_its_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with big_file_held(tmp_path, monkeypatch) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("slash", *"needle", "enter")
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) > 1)
        assert screen.focused is view  # (nothing was: the bar's input, hidden, had it)
        FollowingScreen._mount_panes(screen)
        await wait_for(pilot, lambda: screen.panes_ready)
        FollowingScreen.follow_file(screen)
        await wait_for(pilot, lambda: screen._loaded and len(view.items) == MESSAGES)
        await wait_for(pilot, lambda: view.searching is None)
        assert screen.focused is view
        at = view.cursor
        await pilot.press("n")
        assert view.cursor != at and view.cursor in view.matches


async def test_the_panes_coming_leave_an_open_search_bar_its_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tab asked for before its pane came, then ``/``: the pane's coming focused the
    tab's table, which closed the bar under the user's typing."""
    async with big_file_held(tmp_path, monkeypatch) as (_app, pilot, screen):
        await pilot.press("2", "slash")  # the second tab, then the search bar
        tab = screen.query_one(TabbedContent).active
        assert tab != FIRST_TAB
        bar = screen.query_one("#search", Input)
        assert screen.focused is bar
        FollowingScreen._mount_panes(screen)
        await wait_for(pilot, lambda: screen.panes_ready)
        assert screen.query_one("#search-bar").display and screen.focused is bar
        await pilot.press(*"needle")
        assert bar.value == "needle"
        await pilot.press("escape")
        assert not screen.query_one("#search-bar").display
        assert screen.focused is screen._tab_target(tab)


def append(path: Path, contents: list[str]) -> None:
    with Session.load(path) as s:
        for content in contents:
            s.append_message(Message(role="user", content=content))


@pytest.mark.parametrize("grown", [0, 3])
async def test_the_cursor_keeps_its_match_when_the_whole_file_comes_in(
    grown: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grown meanwhile, too: its match is further from the end then."""
    async with big_file_held(tmp_path, monkeypatch) as (app, pilot, screen):
        view = screen.conversation
        await pilot.press("slash", *"needle", "enter")
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) > 1)
        await pilot.press("n")  # the second match of the end's
        assert view.cursor == view.matches[1]
        ident = view.items[view.cursor].id
        append(screen.path, ["a needle appended", *(["appended"] * (grown - 1))][:grown])
        FollowingScreen._mount_panes(screen)
        FollowingScreen.follow_file(screen)
        await wait_for(pilot, lambda: screen._loaded and len(view.items) == MESSAGES + grown)
        await wait_for(pilot, lambda: view.searching is None)
        assert view.items[view.cursor].id == ident  # the same message, a match
        assert len(view.matches) == MESSAGES // 4 + (grown > 0)
        at = view.matches.index(view.cursor)
        assert at > 1 and view.match_pos == at  # (its place among the whole file's)
        header = str(app.query_one(ModelStatus).render())
        assert f"/needle: {at + 1}/{len(view.matches)}" in header, header


async def test_a_match_lost_in_the_whole_file_lands_on_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grown past where it is looked for: the search lands as the README says of one
    made over the end, on its first match (not on the last item, on none)."""
    monkeypatch.setattr(items_view, "GROWN_WHILE_LOADING", 1)
    async with big_file_held(tmp_path, monkeypatch) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("slash", *"needle", "enter")
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) > 1)
        append(screen.path, ["appended"] * 3)
        FollowingScreen._mount_panes(screen)
        FollowingScreen.follow_file(screen)
        await wait_for(pilot, lambda: screen._loaded and len(view.items) == MESSAGES + 3)
        await wait_for(pilot, lambda: view.searching is None and view.cursor == 1)
        assert view.matches[0] == 1 and view.match_pos == 0
