"""A search made while a big file shows its end first and the rest loads: its keys, and
where the cursor is once the whole file is in (a search audit: every key was dead after
the load, and the cursor left its match for the file's last line, "1/10" → "–/11")."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text
from codex_writer import RolloutWriter
from helpers import wait_for
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

import session_core.formats.base as base
import session_core.formats.v1 as v1
from session_core import Message, Session
from session_core.column_items import item_key
from session_core.model import Item
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
async def preview_held(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen]]:
    """The app on ``path``, a file over the size that shows its end first (its format's
    end made a few items by the caller), its end shown; the full load and the hidden
    tabs' panes held until the test lets them come (``load_whole``)."""
    monkeypatch.setattr(following, "PREVIEW_FROM", path.stat().st_size - 1)
    held: list[ModelScreen] = []
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: held.append(self))
    monkeypatch.setattr(ModelScreen, "_mount_panes", lambda self: None)
    app = TailscopeApp(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: bool(held))
        screen = held[0]
        assert screen._previewing and not screen.panes_ready
        yield app, pilot, screen


@asynccontextmanager
async def big_file_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen]]:
    """``preview_held`` of a v1 file of ``MESSAGES``, its end its last few."""
    path = needles(tmp_path / "big.jsonl")
    monkeypatch.setattr(v1, "TAIL", 2600)
    async with preview_held(path, monkeypatch) as (app, pilot, screen):
        assert 0 < len(screen.conversation.items) < MESSAGES
        yield app, pilot, screen


async def load_whole(pilot: Pilot[None], screen: ModelScreen, items: int) -> None:
    """The held panes and full load let come, until the view holds ``items`` and a
    search is done."""
    view = screen.conversation
    FollowingScreen._mount_panes(screen)
    FollowingScreen.follow_file(screen)
    await wait_for(pilot, lambda: screen._loaded and len(view.items) == items)
    await wait_for(pilot, lambda: view.searching is None)


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
        await load_whole(pilot, screen, MESSAGES + grown)
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
        await load_whole(pilot, screen, MESSAGES + 3)
        await wait_for(pilot, lambda: view.cursor == 1)
        assert view.matches[0] == 1 and view.match_pos == 0


# Codex ids are "L{line}", and Claude Code's for a line with no uuid "line-{line}": in the
# end read alone the lines count from where it began, so in the whole file such an id is
# another item's (the cursor went to one near the file's start, often no match: "–/10").

TURNS = 40  # Codex: a prompt and an answer each; from the ninth, every fourth prompt
NEEDLED = [i for i in range(TURNS) if i % 4 == 1 and i > 8]  # holds "needle"


def codex_turns(writer: RolloutWriter, turns: range) -> None:
    for i in turns:
        writer.task_started(f"t{i}")
        needle = " needle" if i in NEEDLED else ""
        writer.message("user", f"prompt {i}{needle} " + "x" * 80)
        writer.message("assistant", f"answer {i}")
        writer.task_complete(f"t{i}")


@asynccontextmanager
async def codex_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen, RolloutWriter]]:
    """``preview_held`` of a Codex rollout of ``TURNS``, its end its last ``window`` bytes."""
    writer = RolloutWriter(tmp_path / "rollout-big.jsonl")
    writer.session_meta()
    codex_turns(writer, range(TURNS))
    monkeypatch.setattr(base, "FIRST_WINDOW", window)
    monkeypatch.setattr(base, "FIRST_LINES", 10)
    async with preview_held(Path(writer.path), monkeypatch) as (app, pilot, screen):
        assert 0 < len(screen.conversation.items) < 2 * TURNS
        yield app, pilot, screen, writer


def said(item: Item) -> tuple[str, str, str | None, str]:
    return item.role, item.kind, item.ts, item.text


@pytest.mark.parametrize("window", [2400, 2900])
async def test_a_codex_match_is_kept_by_what_it_is_not_its_lines_id(
    window: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with codex_held(tmp_path, monkeypatch, window) as (app, pilot, screen, _writer):
        view = screen.conversation
        await pilot.press("slash", *"needle", "enter")
        await wait_for(pilot, lambda: view.searching is None and bool(view.matches))
        was = said(view.items[view.cursor])
        assert "needle" in was[3]
        await load_whole(pilot, screen, 2 * TURNS)
        assert said(view.items[view.cursor]) == was
        at = view.matches.index(view.cursor)
        assert len(view.matches) == len(NEEDLED) and at > 0 and view.match_pos == at
        header = str(app.query_one(ModelStatus).render())
        assert f"/needle: {at + 1}/{len(NEEDLED)}" in header, header


async def test_a_codex_match_not_found_again_lands_on_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grown meanwhile: not at its place from the end, and its id names another item."""
    async with codex_held(tmp_path, monkeypatch, 2400) as (_app, pilot, screen, writer):
        view = screen.conversation
        await pilot.press("slash", *"needle", "enter")
        await wait_for(pilot, lambda: view.searching is None and bool(view.matches))
        codex_turns(writer, range(TURNS, TURNS + 2))
        await load_whole(pilot, screen, 2 * TURNS + 4)
        await wait_for(pilot, lambda: view.cursor == view.matches[0])
        assert view.match_pos == 0 and "prompt 9 needle" in view.items[view.cursor].text


def queued_session(path: Path) -> Path:
    """A Claude Code session whose every turn queued a prompt: a line with no uuid."""
    writer = CCWriter()
    for i in range(30):
        writer.user(f"prompt {i} " + "x" * 80)
        line = {"type": "queue-operation", "operation": "enqueue", "content": f"queued {i}"}
        writer.bare({**line, "sessionId": writer.session, "timestamp": f"2026-03-01T11:{i:02d}Z"})
        writer.assistant(f"msg_{i}", [text(f"answer {i}")])
    return writer.write(path)


@pytest.mark.parametrize("grown", [False, True])
async def test_a_claude_code_line_without_a_uuid_keeps_the_cursor(
    grown: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The raw view's cursor on a queued prompt of the end: on it in the whole file, or,
    the file grown (its place from the end another's), at the end."""
    path = queued_session(tmp_path / "5e55e55e-0000-4000-8000-000000000001.jsonl")
    monkeypatch.setattr(base, "FIRST_WINDOW", 2600)  # (its first line is the 2nd: "line-2"
    monkeypatch.setattr(base, "FIRST_LINES", 5)  # is the whole file's "queued 0")
    async with preview_held(path, monkeypatch) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("r")
        await wait_for(pilot, lambda: view.mode == "raw")
        await pilot.press("up", "up", "up", "up")  # (its items: the end's last turns')
        was = view.items[view.cursor]
        assert was.id.startswith("line-") and was.text == "queued 28"
        if grown:
            with path.open("a") as fh:
                fh.write(json.dumps({"type": "summary", "summary": "s", "leafUuid": "x"}) + "\n")
        await load_whole(pilot, screen, 90 + grown)
        named = [i for i in range(len(view.items)) if item_key(view.items, i)[0] == was.id]
        assert [view.items[i].text for i in named] == ["queued 0"]  # (another item)
        if grown:  # (lost: as with no search, at the end)
            assert view.cursor == len(view.items) - 1
        else:
            assert view.cursor == len(view.items) - 1 - 4
            assert said(view.items[view.cursor]) == said(was)
