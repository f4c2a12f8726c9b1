"""The app driven as a person would: follow, navigation, search, copy, hostile text."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import app_on, fingerprint, screen_text, wait_for
from textual.pilot import Pilot

from session_core import Message, Session
from story import HOSTILE, write_story
from viewer.app import TailscopeApp
from viewer.widgets.conversation import ConversationView
from viewer.widgets.status import StatusBar

SIZE = (120, 40)


@asynccontextmanager
async def story_open(
    path: Path, size: tuple[int, int] = SIZE
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ConversationView]]:
    """The app on ``path`` (the story), once its six replayed rows are shown."""
    async with app_on(path, size) as (app, pilot):
        view = app.query_one(ConversationView)
        await wait_for(pilot, lambda: len(view.rows) == 6)
        yield app, pilot, view


@pytest.fixture
def story(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "story.jsonl"
    return path, write_story(path)


async def test_appended_line_appears_and_view_sticks_to_bottom(story) -> None:
    path, _ = story
    async with story_open(path) as (app, pilot, view):
        with Session.load(path) as s:
            new = s.append_message(Message(role="user", content="and now the docs please"))
        await wait_for(pilot, lambda: view.rows[-1].id == new)
        await wait_for(pilot, lambda: view.cursor == len(view.rows) - 1 and view.is_at_end)
        assert view.new_count == 0
        assert "and now the docs please" in screen_text(app)


async def test_scrolled_up_shows_new_count_without_jumping(story) -> None:
    path, _ = story
    async with story_open(path, size=(120, 20)) as (app, pilot, view):
        await pilot.press("g")
        await wait_for(pilot, lambda: view.cursor == 0 and view.scroll_y == 0)
        top = view.scroll_y
        with Session.load(path) as s:
            for n in range(3):
                s.append_message(Message(role="assistant", content=f"step {n}"))
        await wait_for(pilot, lambda: len(view.rows) == 9)
        assert view.scroll_y == top
        assert view.cursor == 0
        assert view.new_count == 3
        assert "3 new" in str(app.query_one(StatusBar).render())
        await pilot.press("G")
        await wait_for(pilot, lambda: view.new_count == 0)


async def test_a_replaced_file_rebuilds_the_view(story, tmp_path: Path) -> None:
    path, _ = story
    async with story_open(path) as (app, pilot, view):
        other = tmp_path / "other.jsonl"
        with Session.create(other, meta={"agent": "second"}) as s:
            s.append_message(Message(role="user", content="a different run"))
        os.replace(other, path)  # a new inode, as a repair's rename leaves
        await wait_for(pilot, lambda: len(view.rows) == 1)
        assert app.live.state.meta == {"agent": "second"}
        assert app.live.resets == 1


async def test_navigation_keys(story) -> None:
    path, ids = story
    async with story_open(path) as (_app, pilot, view):
        await pilot.press("g")
        assert view.cursor == 0
        await pilot.press("j", "j")
        assert view.cursor == 2
        await pilot.press("k")
        assert view.cursor == 1
        await pilot.press("G")
        assert view.cursor == len(view.rows) - 1
        await pilot.press("g", "t")
        assert view.rows[view.cursor].id == ids["a2"]  # the first tool call still sent
        await pilot.press("e")
        assert view.rows[view.cursor].id == ids["t2"]  # is-error
        await pilot.press("x", "X")
        assert view.rows[view.cursor].id == ids["compaction"]  # the summary
        await pilot.press("r")  # raw: every line, the folded ones too
        await wait_for(pilot, lambda: view.mode == "raw" and len(view.rows) == 10)
        assert view.rows[view.cursor].id == ids["compaction"]
        assert len(view.rows) == 10  # 8 messages, the elision and the compaction
        await pilot.press("g", "t")
        assert view.rows[view.cursor].id == ids["a1"]
        before = view.heights.total
        await pilot.press("enter")
        assert view.heights.total > before
        await pilot.press("enter")
        assert view.heights.total == before


async def test_search_and_next_match(story) -> None:
    path, _ = story
    async with story_open(path) as (_app, pilot, view):
        await pilot.press("g", "slash", *"divide", "enter")
        await wait_for(pilot, lambda: view.search_term == "divide" and view.searching is None)
        assert len(view.matches) == 3
        first = view.cursor
        await pilot.press("n")
        assert view.cursor > first
        await pilot.press("N")
        assert view.cursor == first


async def test_copy_message(story, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = story
    app = TailscopeApp(path)
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await wait_for(pilot, lambda: len(view.rows) == 6)
        await pilot.press("g", "c")
        assert copied == ["You are a coding agent.\nRead before you write."]


async def test_elided_original_toggle(story) -> None:
    path, ids = story
    async with story_open(path) as (app, pilot, view):
        await pilot.press("r")
        await wait_for(pilot, lambda: view.mode == "raw" and len(view.rows) == 10)
        assert view.move_to_id(ids["t1"])
        await wait_for(pilot, lambda: "[elided: 30 lines" in screen_text(app))
        assert "line 1 of tests/test_ops.py" not in screen_text(app)
        await pilot.press("o")
        await wait_for(pilot, lambda: "line 1 of tests/test_ops.py" in screen_text(app))


async def test_hostile_text_is_shown_never_obeyed(tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    write_story(path, hostile=True)
    async with story_open(path) as (app, pilot, view):
        await pilot.press("r", "g", "j")
        await wait_for(pilot, lambda: view.mode == "raw" and view.cursor == 1)
        await wait_for(pilot, lambda: "␛[2J" in screen_text(app))
        svg = screen_text(app)
        assert "\x1b" not in svg and "\x07" not in svg
        assert "␛[2J" in svg
        assert "[bold red]markup[/]" in svg
        # What is rendered for the terminal holds no escape from the file.
        strips = view.item_strips(view.cursor)
        rendered = "".join(segment.text for strip in strips for segment in strip)
        assert "\x1b" not in rendered and "\x07" not in rendered
        assert HOSTILE.replace("\x1b", "␛").replace("\x07", "␇") in rendered


async def test_viewer_never_writes(story) -> None:
    path, _ = story
    before = fingerprint(path)
    async with story_open(path) as (_app, pilot, view):
        await pilot.press("r", "2", "3", "4", "1", "slash", "x", "enter", "G")
        await wait_for(
            pilot,
            lambda: (
                view.mode == "raw"
                and view.search_term == "x"
                and view.searching is None
                and view.cursor == len(view.rows) - 1
            ),
        )
    assert fingerprint(path) == before
    assert not os.path.exists(str(path) + ".repair")


async def test_missing_file_waits_then_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await wait_for(pilot, lambda: not app.live.exists)
        assert "does not exist" in screen_text(app)
        with Session.create(path, meta={}) as s:
            s.append_message(Message(role="user", content="here now"))
        await wait_for(pilot, lambda: len(view.rows) == 1)
        assert app.live.exists


async def test_a_big_file_shows_its_end_before_the_whole_replay(story, monkeypatch) -> None:
    import functools

    import viewer.screens.transcript as transcript_module
    from session_core.tailwindow import read_tail_window
    from viewer.screens.following import FollowingScreen
    from viewer.screens.transcript import TranscriptScreen

    path, ids = story
    monkeypatch.setattr(transcript_module, "PREVIEW_FROM", 0)  # every file counts as big
    monkeypatch.setattr(
        transcript_module, "read_tail_window", functools.partial(read_tail_window, window=700)
    )
    held: list[TranscriptScreen] = []
    monkeypatch.setattr(TranscriptScreen, "follow_file", lambda self: held.append(self))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await wait_for(pilot, lambda: len(view.rows) > 0)
        # Only the end was read: its last message, no line numbers yet, a loading note.
        assert view.rows[-1].id == ids["t4"]
        assert len(view.rows) < 6
        text = screen_text(app)
        assert "line …" in text and "loading" in text
        await wait_for(pilot, lambda: bool(held))  # the full load starts after the end shows
        screen = held[0]
        FollowingScreen.follow_file(screen)  # now the real follower reads the whole file
        await wait_for(pilot, lambda: not screen._previewing and len(view.rows) == 6)
        assert view.rows[-1].id == ids["t4"]
        assert view.cursor == len(view.rows) - 1
        assert "loading" not in screen_text(app)


async def test_a_big_file_whose_end_cannot_be_read_still_loads(story, monkeypatch) -> None:
    import viewer.screens.transcript as transcript_module
    from session_core import TranscriptError

    path, ids = story
    monkeypatch.setattr(transcript_module, "PREVIEW_FROM", 0)

    def unreadable(where: str) -> None:
        raise TranscriptError("cannot be read: Input/output error", path=where)

    monkeypatch.setattr(transcript_module, "read_tail_window", unreadable)
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        # No end to show first: the full load starts anyway, and replaces the note.
        await wait_for(pilot, lambda: len(view.rows) == 6)
        assert view.rows[-1].id == ids["t4"]
        await wait_for(pilot, lambda: "loading" not in screen_text(app))


async def test_a_search_looks_only_at_appended_rows(story) -> None:
    path, _ = story
    async with story_open(path) as (_app, pilot, view):
        assert view.search("docs") == 0
        looked: list[str] = []
        search_text = view.renderer.search_text

        def counted(row):  # type: ignore[no-untyped-def]
            looked.append(row.id)
            return search_text(row)

        view.renderer.search_text = counted  # type: ignore[method-assign]
        with Session.load(path) as s:
            new = s.append_message(Message(role="user", content="and now the docs please"))
        await wait_for(pilot, lambda: view.rows[-1].id == new)
        # The new row was searched, and found; the rows before it were not read again.
        assert looked == [new]
        assert view.matches == [len(view.rows) - 1]


# The story's raw view, line by line (tests/story.py writes it): 8 messages, the elision
# and the compaction. What each jump should land on follows from what the story wrote:
# a call is an assistant message with tool calls or a tool result (a1, t1, a2, t2, a3,
# t4); an error is a result marked is-error (t2) or a message whose call failed (a2: its
# run_tests settled "failed"; a3's calls never settled, which is no failure); the only
# compaction is the compaction.
STORY_RAW = ["system", "user", "a1", "t1", "a2", "t2", "elision", "compaction", "a3", "t4"]
JUMP_TARGETS = {
    "call": ["a1", "t1", "a2", "t2", "a3", "t4"],
    "error": ["a2", "t2"],
    "compaction": ["compaction"],
}


@pytest.mark.parametrize(("key", "what"), [("t", "call"), ("e", "error"), ("x", "compaction")])
async def test_jumps_land_on_what_they_name(story, key: str, what: str) -> None:
    path, ids = story
    async with story_open(path) as (_app, pilot, view):
        await pilot.press("r")  # the raw view: every line, so every kind of row
        await wait_for(pilot, lambda: len(view.rows) == len(STORY_RAW))
        assert [row.id for row in view.rows] == [ids[name] for name in STORY_RAW]
        expected = [STORY_RAW.index(name) for name in JUMP_TARGETS[what]]
        await pilot.press("g")
        assert view.cursor == 0 and 0 not in expected
        landed = []
        for _ in expected:
            await pilot.press(key)
            landed.append(view.cursor)
        assert landed == expected  # each in turn, in order, none skipped
        await pilot.press(key)  # past the last: it stays there
        assert view.cursor == expected[-1]
        back = []
        for _ in expected[1:]:
            await pilot.press(key.upper())  # the other way
            back.append(view.cursor)
        assert back == expected[-2::-1]


async def test_a_search_over_many_rows_runs_in_a_worker(story, monkeypatch) -> None:
    import viewer.widgets.conversation as conversation_module

    path, _ = story
    async with story_open(path) as (app, pilot, view):
        await pilot.press("r")  # the raw view: more rows
        await wait_for(pilot, lambda: len(view.rows) > 6)
        bar = app.query_one(StatusBar)
        in_place = {term: (view.search(term), list(view.matches)) for term in ("test", "zzz")}
        monkeypatch.setattr(conversation_module, "SEARCH_IN_PLACE", 2)
        for term, (count, matches) in in_place.items():
            await pilot.press("g")
            assert view.search(term) is None  # under way
            await wait_for(pilot, lambda: view.searching is None)
            assert view.matches == matches and len(matches) == count
            # The header says when it ends: searching, then where the cursor is.
            await wait_for(pilot, lambda: f"/{len(matches)}" in str(bar.render()))  # noqa: B023
            assert "searching" not in str(bar.render())
        # Clearing the search stops one under way; nothing it finds is shown after.
        view.search("test")
        started = [w for w in app.workers if w.group == "search" and not w.is_finished]
        assert started  # one is under way
        view.search("")
        await wait_for(pilot, lambda: all(w.is_finished for w in started))
        assert view.matches == [] and view.searching is None
