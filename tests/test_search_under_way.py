"""A search of the conversation goes to its first match as soon as that is found, says
how far it has looked meanwhile, and only then counts every match (a 1 GB session's raw
view takes seconds to search through)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import app_loaded, said, screen_lines, screen_text, wait_for
from textual.pilot import Pilot

import viewer.widgets.item_search as item_search
from session_core import Message, Session
from session_core.search import find
from session_core.vocabulary import as_written
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.items_view import ItemsView

SIZE = (120, 30)


@pytest.fixture
def thread_file(tmp_path: Path) -> Path:
    """60 messages; every seventh says "needle"."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        for n in range(60):
            role = "user" if n % 2 else "assistant"
            s.append_message(
                Message(role=role, content=f"message {n}" + (" needle" * (n % 7 == 0)))
            )
    return path


class HeldSearch:
    """The search in steps of 5 items, each step's ``(items, start)`` kept, and the step
    that ``holds`` says yes to waiting until ``release``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, holds: Callable[[int, int], bool]):
        self.looked: list[tuple[int, int | None]] = []
        self._held = threading.Event()
        monkeypatch.setattr(item_search, "SEARCH_STEP", 5)

        def held_find(items, term, start=0, cancelled=None, stop=None, readable=as_written):  # type: ignore[no-untyped-def]
            self.looked.append((start, stop))
            if holds(len(items), start):
                self._held.wait(5)
            return find(items, term, start, cancelled, stop, readable)

        monkeypatch.setattr(item_search, "find", held_find)

    @property
    def starts(self) -> list[int]:
        return [start for start, _stop in self.looked]

    def release(self) -> None:
        self._held.set()


@asynccontextmanager
async def searching_in(path: Path) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ItemsView]]:
    """The app on the 60 messages, all shown."""
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 60)
        yield app, pilot, view


async def test_the_first_match_at_or_after_the_cursor_is_gone_to_before_the_count(
    thread_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (the step before the cursor, the last the search looks at, waits)
    held = HeldSearch(monkeypatch, lambda _n, start: start == 20 - 5)
    async with searching_in(thread_file) as (app, pilot, view):
        view.move_to(20)
        await pilot.pause()
        view.search("NEEDLE")
        # From the cursor on first: message 21 is the first that holds it.
        await wait_for(pilot, lambda: view.cursor == 21)
        # (all but the items 15-19 looked through: those found so far, in order)
        await wait_for(pilot, lambda: view.searching == (55, 9))
        assert view.matches == [0, 7, 14, 21, 28, 35, 42, 49, 56]
        await wait_for(pilot, lambda: "searching" in screen_text(app))
        assert "/NEEDLE: searching" in screen_text(app)
        held.release()
        await wait_for(pilot, lambda: view.searching is None)
        assert view.matches == [n for n in range(60) if n % 7 == 0]
        assert view.cursor == 21 and view.match_pos == view.matches.index(21)
        assert f"/NEEDLE: {view.matches.index(21) + 1}/9" in screen_text(app)
        # Every item was looked at once: the cursor's end of the view, then its start.
        steps = held.looked
        assert steps[0] == (20, 25) and steps[-1] == (15, 20)
        covered = sorted(n for start, stop in steps for n in range(start, stop))
        assert covered == list(range(60))


async def test_with_none_after_the_cursor_it_goes_to_the_first_of_all(
    thread_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    HeldSearch(monkeypatch, lambda _n, _start: False)
    async with searching_in(thread_file) as (app, pilot, view):
        assert view.cursor == 59  # (the view opens at its end)
        view.search("needle")
        await wait_for(pilot, lambda: view.searching is None)
        assert view.cursor == 0 and view.match_pos == 0
        assert "/needle: 1/9" in screen_text(app)
        view.search("not there at all")
        await wait_for(pilot, lambda: view.searching is None)
        assert view.matches == [] and view.cursor == 0
        assert "/not there at all: none" in screen_text(app)


async def test_a_file_growing_under_a_search_neither_restarts_it_nor_loses_what_came(
    thread_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (the first search's second step waits)
    held = HeldSearch(monkeypatch, lambda n, start: n == 60 and start == 5)
    async with searching_in(thread_file) as (app, pilot, view):
        view.move_to(0)
        view.search("needle")
        await wait_for(pilot, lambda: 5 in held.starts)
        with Session.load(thread_file) as s:
            for n in range(60, 66):
                s.append_message(Message(role="user", content=f"message {n} needle"))
        await wait_for(pilot, lambda: len(view.items) == 66)
        assert view.searching is not None  # still the first search, not one begun again
        held.release()
        await wait_for(pilot, lambda: view.searching is None and 65 in view.matches)
        assert view.matches == [n for n in range(60) if n % 7 == 0] + list(range(60, 66))
        assert held.starts.count(0) == 1  # the first 60 items were looked through once
        assert "/needle: 1/15" in screen_text(app)
        assert said(app, "15 matches for 'needle'")  # told once, of the whole
        assert not said(app, "9 matches")


async def test_n_steps_through_the_matches_found_so_far_while_it_looks(
    thread_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldSearch(monkeypatch, lambda _n, start: start == 40)  # (0-39 looked through)
    async with searching_in(thread_file) as (app, pilot, view):
        view.move_to(0)
        view.search("needle")
        await wait_for(pilot, lambda: view.matches == [0, 7, 14, 21, 28, 35])
        assert view.cursor == 0 and view.searching == (40, 6)
        await pilot.press("n")
        assert view.cursor == 7
        await wait_for(pilot, lambda: "searching 66% · 6 so far" in screen_text(app))
        held.release()
        await wait_for(pilot, lambda: view.searching is None)
        assert view.matches == [n for n in range(60) if n % 7 == 0] and view.cursor == 7


async def test_a_match_in_what_is_folded_is_said_on_its_item(tmp_path: Path) -> None:
    """The cursor on an item whose match its folded lines do not show: its first line says
    so (the cursor went there and nothing was highlighted), until it is expanded."""
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="user", content="go"))
        deep = "\n".join(f"line {n}" for n in range(40)) + "\nNEEDLE here"
        session.append_message(Message(role="assistant", content=deep))
        session.append_message(Message(role="user", content="a needle in plain sight"))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        view = app.screen.query_one(ItemsView)
        await pilot.press("g", "slash", *"needle", "enter")
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) == 2)
        hint = "the match is in what is folded: enter shows it"
        assert view.cursor == view.matches[0]
        assert hint in screen_text(app)
        assert screen_text(app).count(hint) == 1  # (not on the item that shows its match)
        await pilot.press("enter")  # expanded: the match on screen, the hint gone
        await pilot.pause(0.1)
        assert hint not in screen_text(app)
        # a match in what no key draws (the kind every message has) is not said so
        await pilot.press("g", "slash", *["backspace"] * 6, *"message", "enter")
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) == 3)
        await pilot.pause(0.2)
        assert view.is_match(view.cursor)
        assert not any("the match is" in line for line in screen_lines(app))


async def test_a_match_across_lines_both_on_screen_is_not_said_folded(tmp_path: Path) -> None:
    """``/␍⏎`` (a CRLF, as drawn) matches across two drawn lines of a folded item: both
    on screen, no line alone holds it, and the item said the match was folded."""
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="user", content="go"))
        session.append_message(Message(role="assistant", content="first\r\nsecond"))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        view = app.screen.query_one(ItemsView)
        await pilot.press("g")
        view.search("␍⏎")  # (as ``/`` and a paste of the term give it)
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) == 1)
        await pilot.pause(0.1)
        assert view.cursor == view.matches[0] and view.is_match(view.cursor)
        shown = screen_lines(app)
        assert any(line.rstrip().endswith("first␍") for line in shown), shown
        assert not any("the match is" in line for line in shown), shown


@pytest.mark.parametrize(
    "term",
    [
        "first␍⏎sec",  # (on past the CRLF as drawn, into the next line)
        "t⏎s",  # (a CRLF as a row draws it: one ``⏎``)
        "a␉b",  # (a tab, drawn as spaces in the conversation: shown all the same)
        "a␉b c⏎fir",  # (a tab and a line's end: CRLF one ``⏎``, as one_line draws it)
    ],
)
async def test_a_match_running_on_across_shown_lines_is_not_said_folded(
    tmp_path: Path, term: str
) -> None:
    """A term over a line's end (its CRLF ``␍⏎``, or one ``⏎``) into the next line, both
    lines on screen, is no match hidden in what is folded; nor is a tab's ``␉``, drawn
    as spaces there. A match in a line not shown still is."""
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="user", content="go"))
        text = "a\tb c\r\nfirst\r\nsecond"
        session.append_message(Message(role="assistant", content=text))
        session.append_message(Message(role="user", content="x\ny\nz\n" + text))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        view = app.screen.query_one(ItemsView)
        await pilot.press("g")
        view.search(term)  # (as ``/`` and a paste of the term give it)
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) == 2)
        await pilot.pause(0.1)
        assert view.cursor == view.matches[0] == 1
        shown = screen_lines(app)
        (first,) = (line for line in shown if "▸ assistant" in line)
        assert "the match is" not in first, shown
        # (the other's match past the three lines it shows: said so)
        (other,) = (line for line in shown if "▸ user" in line and "line 4" in line)
        assert "the match is in what is folded" in other, shown


async def test_a_narrow_screen_says_it_short_beside_the_line_number(tmp_path: Path) -> None:
    """At 60 columns the note in full pushed the item's line number (and time) off its
    first row: said in short there, the number right after it; in full where it fits."""
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="user", content="go"))
        deep = "\n".join(f"line {n}" for n in range(40)) + "\nNEEDLE here"
        session.append_message(Message(role="assistant", content=deep))
    async with app_loaded(path, ModelScreen, (60, 20)) as (app, pilot):
        view = app.screen.query_one(ItemsView)
        await pilot.press("g", "slash", *"needle", "enter")
        await wait_for(pilot, lambda: view.searching is None and len(view.matches) == 1)
        line = view.items[view.cursor].line
        first = next(row for row in screen_lines(app) if "▸ assistant" in row)
        assert "‹match folded: enter›" in first and f"line {line}" in first, first
        await pilot.resize_terminal(120, 20)
        await pilot.pause(0.2)
        first = next(row for row in screen_lines(app) if "▸ assistant" in row)
        assert "‹the match is in what is folded: enter shows it›" in first
        assert f"line {line}" in first


async def test_the_search_bar_stays_when_the_terminal_loses_the_focus(tmp_path: Path) -> None:
    """Textual takes the focus from the bar then, and gives it back: the bar closed on
    the first, and took every key unseen after the second."""
    from textual import events

    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="user", content="go"))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("slash", *"li")
        bar = app.screen.query_one("#search-bar")
        app.post_message(events.AppBlur())
        await pilot.pause(0.1)
        app.post_message(events.AppFocus())
        await pilot.pause(0.1)
        assert bar.display and app.focused is app.screen.query_one("#search")
        await pilot.press("tab")  # (leaving it is closing it)
        await pilot.pause(0.1)
        assert not bar.display
