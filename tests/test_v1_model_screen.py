"""transcript-v1 on the model screen (``ModelScreen.for_format``, with v1's own panes:
``viewer/formats/v1.py``), driven as a person would: follow, navigation, search, copy,
hostile text; the diff, run contexts, artifacts, an operation's detail; an empty or
missing file waited for, and its swap to the format its first line names."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import (
    file_loaded,
    fingerprint,
    notes_kept,
    said,
    screen_lines,
    screen_text,
    wait_for,
)
from panes_helpers import ARTIFACT_TEXT, CALLS, fixed_ids, write_transcript
from textual.pilot import Pilot
from textual.widgets import TabbedContent
from v1_screen_helpers import SIZE, shown, story, story_open

from session_core import Message, Session
from story import HOSTILE, OLD_MTIME, write_story
from story import call as story_call
from viewer.app import TailscopeApp
from viewer.formats.v1 import V1Panes
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import OpDetailScreen
from viewer.widgets.items_view import ItemsView
from viewer.widgets.model_status import ModelStatus

__all__ = ["fixed_ids", "story"]  # fixtures of panes_helpers and v1_screen_helpers, used here


@asynccontextmanager
async def operations_of(path: Path) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen]]:
    """The app on the crashes file, its tool operations tab shown with every call."""
    app = TailscopeApp(path)
    async with app.run_test(size=(160, 50)) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = shown(app)
        await pilot.press("3")
        await wait_for(pilot, lambda: screen.ops.table.row_count == len(CALLS))
        yield app, pilot, screen


def ids_of(view: ItemsView) -> list[str]:
    return [item.id for item in view.items]


def at_cursor(view: ItemsView) -> str:
    item = view.selected
    assert item is not None
    return item.id


async def test_appended_line_appears_and_view_sticks_to_bottom(story) -> None:
    path, _ = story
    async with story_open(path) as (app, pilot, view):
        with Session.load(path) as s:
            new = s.append_message(Message(role="user", content="and now the docs please"))
        await wait_for(pilot, lambda: view.items[-1].id == new)
        await wait_for(pilot, lambda: view.cursor == len(view.items) - 1 and view.is_at_end)
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
        await wait_for(pilot, lambda: len(view.items) == 9)
        assert view.scroll_y == top
        assert view.cursor == 0
        assert view.new_count == 3
        await wait_for(pilot, lambda: "3 new" in str(app.query_one(ModelStatus).render()))
        await pilot.press("G")
        await wait_for(pilot, lambda: view.new_count == 0)


async def test_the_new_count_is_never_more_than_what_is_below(story) -> None:
    """Scrolled up while lines come, then a compaction folds most of them: the header's
    "↓ N new" counts no more items than the view has below the cursor (an audit: "433
    new" over a replayed view of 128)."""
    path, _ = story
    async with story_open(path, size=(120, 20)) as (_app, pilot, view):
        await pilot.press("g")
        await wait_for(pilot, lambda: view.cursor == 0)
        with Session.load(path) as s:
            ids = [s.append_message(Message(role="assistant", content=f"s{n}")) for n in range(8)]
        await wait_for(pilot, lambda: view.new_count == 8)
        with Session.load(path) as s:
            s.append_compaction(summary="all of it", replaces_through_id=ids[-2])
        await wait_for(pilot, lambda: any(i.text == "all of it" for i in view.items))
        assert 0 < view.new_count <= len(view.items) - 1 - view.cursor


async def test_the_new_count_shrinks_as_the_cursor_moves_down(story) -> None:
    """Scrolled up while lines come, then walked down: "↓ N new" is never more than the
    items below the cursor, at each move, not only when the file changes (an audit:
    "↓ 18 new" with 4 items below)."""
    path, _ = story
    async with story_open(path, size=(120, 20)) as (app, pilot, view):
        header = lambda: str(app.screen.query_one(ModelStatus).render())  # noqa: E731
        await pilot.press("G", "k", "k", "k")
        await wait_for(pilot, lambda: view.cursor == len(view.items) - 4)
        with Session.load(path) as s:
            for n in range(6):
                s.append_message(Message(role="assistant", content=f"s{n}"))
        await wait_for(pilot, lambda: view.new_count == 6 and "↓ 6 new" in header())
        await pilot.press("j", "j", "j")  # 6 below
        assert view.new_count == 6
        await pilot.press("j")  # 5 below
        await wait_for(pilot, lambda: "↓ 5 new" in header())
        assert view.new_count == 5 == len(view.items) - 1 - view.cursor


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
        assert view.cursor == len(view.items) - 1
        await pilot.press("g", "t")
        assert at_cursor(view) == ids["a2"]  # the first tool call still sent
        await pilot.press("e")
        assert at_cursor(view) == ids["t2"]  # is-error
        await pilot.press("x", "X")
        assert at_cursor(view) == ids["compaction"]  # the summary
        await pilot.press("r")  # raw: every line, the folded ones too
        await wait_for(pilot, lambda: view.mode == "raw" and len(view.items) == 10)
        assert at_cursor(view) == ids["compaction"]
        assert len(view.items) == 10  # 8 messages, the elision and the compaction
        await pilot.press("g", "t")
        assert at_cursor(view) == ids["a1"]
        before = view.heights.total
        await pilot.press("enter")
        assert view.heights.total > before
        await pilot.press("enter")
        assert view.heights.total == before


async def test_search_and_next_match(story) -> None:
    path, _ = story
    async with story_open(path) as (_app, pilot, view):
        await pilot.press("g", "slash", *"divide", "enter")
        await wait_for(pilot, lambda: view.search_term == "divide" and len(view.matches) == 3)
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
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 6)
        await pilot.press("g", "c")
        assert copied == ["You are a coding agent.\nRead before you write."]


async def test_elided_original_toggle(story) -> None:
    """The raw view shows an elided message as written (the file as it is), its stub one
    key away (the replayed view shows its stub, what is sent); each says which of the two
    is on screen."""
    path, ids = story
    async with story_open(path) as (app, pilot, view):
        await pilot.press("r")
        await wait_for(pilot, lambda: view.mode == "raw" and len(view.items) == 10)
        assert view.move_to_id(ids["t1"])
        await wait_for(pilot, lambda: "line 1 of tests/test_ops.py" in screen_text(app))
        assert "[elided, folded" in view.rendered_text(view.cursor)
        await pilot.press("o")
        await wait_for(pilot, lambda: "line 1 of tests/test_ops.py" not in screen_text(app))
        assert "[elided: 30 lines" in screen_text(app)
        # which of the two is on screen, said (the tag was the same: a v1/agentgo audit)
        assert "elided: stub shown" in view.rendered_text(view.cursor)
        await pilot.press("o")
        await wait_for(pilot, lambda: "line 1 of tests/test_ops.py" in screen_text(app))
        assert "[elided, folded" in view.rendered_text(view.cursor)


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
        await pilot.press("r", "2", "3", "4", "5", "1", "slash", "x", "enter", "G")
        await wait_for(
            pilot,
            lambda: (
                view.mode == "raw"
                and view.search_term == "x"
                and bool(view.matches)
                and view.cursor == len(view.items) - 1
            ),
        )
    assert fingerprint(path) == before
    assert not os.path.exists(str(path) + ".repair")


async def test_a_search_that_found_nothing_moves_nothing_at_a_later_compaction(
    story, monkeypatch
) -> None:
    """Only a search made over a big file's end lands when the whole file is in: one that
    found nothing in the whole file neither moves the cursor nor says its count again at
    a later snapshot that is no append (a review: a compaction moved the cursor to a match
    appended since and toasted "1 match")."""
    path, _ = story
    async with story_open(path, size=(200, 40)) as (app, pilot, view):
        await pilot.press("slash", *"zqxmark", "enter")
        await wait_for(pilot, lambda: view.searching is None and view.search_term == "zqxmark")
        assert view.matches == []
        with Session.load(path) as s:
            ids = s.message_ids()
            s.append_message(Message(role="user", content="here is zqxmark now"))
        await wait_for(pilot, lambda: view.matches == [len(view.items) - 1])
        await pilot.press("home")
        await wait_for(pilot, lambda: view.cursor == 0)
        # (kept: the "1 match" toast just made expires in 2 s, and counting those showing
        # went down by it under load)
        told = notes_kept(app, monkeypatch)
        with Session.load(path) as s:
            s.append_compaction(summary="all of it", replaces_through_id=ids[-1])
        await wait_for(pilot, lambda: any(i.text == "all of it" for i in view.items))
        # the new snapshot searched through, whatever it then did
        await wait_for(
            pilot,
            lambda: (
                view._search_items is view.items
                and view.searching is None
                and view._searched_through == len(view.items)
            ),
        )
        await pilot.pause()
        assert view.cursor == 0 and told == []


async def test_a_search_looks_only_at_appended_rows(story, monkeypatch) -> None:
    import session_core.search as search_module

    path, _ = story
    async with story_open(path) as (_app, pilot, view):
        view.search("docs")
        await wait_for(pilot, lambda: view._searched_through == len(view.items))
        assert view.matches == []
        looked: list[list[str]] = []
        search_text = search_module.search_text

        def counted(role, kind, stub, parts, said=None):  # type: ignore[no-untyped-def]
            looked.append([part.text for part in parts])
            return search_text(role, kind, stub, parts, said)

        # (every item searched has its text made here, whether built or read from its line)
        monkeypatch.setattr(search_module, "search_text", counted)
        with Session.load(path) as s:
            new = s.append_message(Message(role="user", content="and now the docs please"))
        await wait_for(pilot, lambda: view.items[-1].id == new and bool(view.matches))
        # The new item was searched, and found; the items before it were not read again.
        assert looked == [["and now the docs please"]]
        assert view.matches == [len(view.items) - 1]


# The story's raw view, line by line (tests/story.py writes it): 8 messages, the elision
# and the compaction. What each jump should land on follows from what the story wrote:
# a call is an assistant message with tool calls or a tool result (a1, t1, a2, t2, a3,
# t4); an error is a result marked is-error (t2) or a message whose call failed (a2: its
# run_tests settled "failed"; a3's calls never settled, which is no failure); the only
# compaction is the compaction. The model screen counts a call the crash left open as an
# error too (a3: apply_patch interrupted, git_diff's settle never landed, fs_read never
# dispatched), as it does for every format.
STORY_RAW = ["system", "user", "a1", "t1", "a2", "t2", "elision", "compaction", "a3", "t4"]
JUMP_TARGETS = {
    "call": ["a1", "t1", "a2", "t2", "a3", "t4"],
    "error": ["a2", "t2", "a3"],
    "compaction": ["compaction"],
}


@pytest.mark.parametrize(("key", "what"), [("t", "call"), ("e", "error"), ("x", "compaction")])
async def test_jumps_land_on_what_they_name(story, key: str, what: str) -> None:
    path, ids = story
    async with story_open(path) as (_app, pilot, view):
        await pilot.press("r")  # the raw view: every line, so every kind of row
        await wait_for(pilot, lambda: len(view.items) == len(STORY_RAW))
        assert ids_of(view) == [ids[name] for name in STORY_RAW]
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


async def test_a_search_runs_in_a_worker_and_the_header_says_where(story) -> None:
    path, _ = story
    async with story_open(path) as (app, pilot, view):
        await pilot.press("r")  # the raw view: more items
        await wait_for(pilot, lambda: len(view.items) > 6)
        bar = app.query_one(ModelStatus)
        for term, expected in (("test", 7), ("zzz", 0)):
            await pilot.press("g", "slash", *term, "enter")
            await wait_for(
                pilot,
                lambda: view.search_term == term and view._searched_through == len(view.items),  # noqa: B023
            )
            assert len(view.matches) == expected
            # The header says where the cursor is among the matches.
            place = f"/{len(view.matches)}" if view.matches else f"/{term}: none"
            await wait_for(pilot, lambda: place in str(bar.render()))  # noqa: B023
        # Clearing the search stops one under way; nothing it finds is shown after.
        view.search("test")
        view.search("")
        await pilot.pause(0.2)
        assert view.matches == [] and view.search_term == ""


# -- v1's own panes and what only v1 operations carry --------------------------------


@pytest.fixture
def crashes(tmp_path: Path, fixed_ids: None) -> Path:
    """Every operation state, three artifacts, three runs (panes_helpers' transcript)."""
    path = tmp_path / "run.jsonl"
    write_transcript(path)
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # its writer is long gone
    return path


async def test_the_tabs_keep_v1s_keys_and_the_diff_steps(story) -> None:
    path, _ = story
    async with story_open(path) as (app, pilot, _view):
        screen = shown(app)
        assert [tab.id for tab in screen.TABS] == list(V1Panes.ORDER)
        await pilot.press("d")  # the diff, as 2 is
        await wait_for(pilot, lambda: "sent as written" in screen_text(app))
        assert screen.query_one(TabbedContent).active == "changes"
        for key, line in [("n", "line 4 user"), ("n", "line 5 assistant"), ("p", "line 4 user")]:
            await pilot.press(key)
            await wait_for(pilot, lambda line=line: line in cursor_row(app))
        await pilot.press("a")  # changed rows only
        await wait_for(pilot, lambda: "sent as written" not in screen_text(app))
        await pilot.press("4")  # run contexts: each run, and what changed
        await wait_for(pilot, lambda: "vs previous" in screen_text(app))
        text = screen_text(app)
        assert "run-1" in text and "run-2" in text and "first run" in text
        assert "rendered-in" in text  # a body carried by an earlier line


async def test_the_diff_says_where_a_step_lands_and_enter_shows_its_line(story) -> None:
    """``n`` past the last difference says so; enter on a row shows its line in the raw
    view."""
    path, _ = story
    async with story_open(path) as (app, pilot, view):
        await pilot.press("d")
        await wait_for(pilot, lambda: "sent as written" in screen_text(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: "line 4 user" in cursor_row(app))
        await wait_for(pilot, lambda: said(app, "difference 1 of 4: line 4, folded"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.mode == "raw" and view.has_focus)
        assert view.selected is not None and view.selected.line == 4
        await pilot.press("d", "G", "n")
        await wait_for(pilot, lambda: said(app, "no more differences in that direction"))


async def test_every_operation_state_and_its_v1_detail(crashes: Path) -> None:
    async with operations_of(crashes) as (app, pilot, screen):
        states = {op.call_id: op.label for op in screen.ops.ops}
        assert states["call_never"] == "never dispatched"
        assert states["call_ok"] == "completed" and states["call_fail"] == "failed"
        assert states["call_unk"] == "outcome unknown"
        assert "interrupted" in states["call_run"]  # no settle, the writer gone
        row = next(i for i, op in enumerate(screen.ops.ops) if op.call_id == "call_fail")
        screen.ops.table.move_cursor(row)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        text = screen_text(app)
        assert "transcript-v1" in text and "make: *** [all] Error 2" in text
        assert "destructive" in text  # its idempotency, from its record
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, OpDetailScreen))


async def test_a_opens_an_operations_artifact_and_refuses_elsewhere(crashes: Path) -> None:
    from viewer.screens.artifact import ArtifactScreen

    app = TailscopeApp(crashes)
    async with app.run_test(size=(160, 50)) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = shown(app)
        await pilot.press("a")  # not in the tool operations tab: it says where
        await wait_for(pilot, lambda: said(app, "Select an operation"))
        await pilot.press("3")
        await wait_for(pilot, lambda: screen.ops.table.row_count == len(CALLS))
        row = next(i for i, op in enumerate(screen.ops.ops) if op.call_id == "call_art")
        screen.ops.table.move_cursor(row)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ArtifactScreen))
        artifact = app.screen
        assert isinstance(artifact, ArtifactScreen)
        await wait_for(pilot, lambda: artifact.state == "here" and artifact.text == ARTIFACT_TEXT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ArtifactScreen))
        screen.ops.table.move_cursor(0)  # call_ok: none
        await pilot.press("a")
        await wait_for(pilot, lambda: said(app, "has no artifact"))


async def test_m_shows_the_call_in_the_conversation(crashes: Path) -> None:
    async with operations_of(crashes) as (_app, pilot, screen):
        await pilot.press("m")
        await wait_for(pilot, lambda: screen.query_one(TabbedContent).active == "conversation")
        selected = screen.conversation.selected
        assert selected is not None and selected.role == "assistant"
        assert any(p.call_id == "call_ok" for p in selected.parts)


async def test_the_help_lists_v1s_keys(story) -> None:
    from viewer.screens.help import BindingsHelpScreen, binding_rows
    from viewer.widgets.diff_view import DiffView
    from viewer.widgets.run_context import SectionView

    path, _ = story
    async with story_open(path, size=(120, 200)) as (app, pilot, _view):
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, BindingsHelpScreen))
        text = screen_text(app)
        screen = ModelScreen.for_format("transcript-v1")
        for bindings in (screen.BINDINGS, ItemsView.BINDINGS, DiffView.BINDINGS):
            for _keys, what in binding_rows(bindings):
                if what != "Open the session the writer went on in":  # (not v1's: O)
                    assert what in text, what
        for _keys, what in binding_rows(SectionView.BINDINGS):
            assert what in text, what
        assert "Original/stub" in text and "Artifact" in text and "In the conversation" in text


async def test_the_header_counts_one_and_two(tmp_path: Path) -> None:
    for n, want, own in (
        (1, "3 lines · 1 sent next · 1 tool op", "in flight: 1 tool operation pending (1 run"),
        (2, "5 lines · 2 sent next · 2 tool ops", "in flight: 2 tool operations pending (2 run"),
    ):
        path = tmp_path / f"v{n}.jsonl"
        with Session.create(path, meta={"agent": "a"}) as s:
            for i in range(n):
                calls = (story_call(f"c{i}", "ls", "{}"),)
                s.append_message(Message(role="assistant", content="on", tool_calls=calls))
                s.append_tool_dispatched(call_id=f"c{i}", tool="ls", arguments="{}", run_id="r")
        app = TailscopeApp(path)
        async with app.run_test(size=(140, 30)) as pilot:
            await file_loaded(pilot, ModelScreen)
            text = "\n".join(screen_lines(app))
            assert want in text and own in text and "agent=a · " in text, text


def cursor_row(app: TailscopeApp) -> str:
    """The row under the cursor (drawn with a left bar), as text."""
    rows = [row for row in screen_lines(app) if row.startswith("▌")]
    assert rows, screen_lines(app)
    return rows[0]


async def test_enter_on_a_v1_run_shows_its_prompt(tmp_path: Path) -> None:
    """A v1 run starts at its run-context line, which is no item: enter on the run shows
    the first item after it (its prompt), not the item before nor a "not shown" toast."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "runs"}) as s:
        for n in (1, 2):
            s.append_run_context(f"run-{n}", f"{n}" * 64)
            s.append_message(Message(role="user", content=f"prompt {n}"))
            s.append_message(Message(role="assistant", content=f"answer {n}"))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.file_screen
        for row in (1, 0):
            await pilot.press("5")  # the runs tab
            screen.runs.table.move_cursor(row=row)
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda row=row: (  # type: ignore[misc]
                    screen.query_one(TabbedContent).active == "conversation"
                    and screen.conversation.selected is not None
                    and screen.conversation.selected.text == f"prompt {row + 1}"
                ),
            )
        assert screen.conversation.mode == "replayed"
        assert not any("not shown" in str(n.message) for n in app._notifications)


async def test_changed_only_on_a_diff_of_none_says_so(tmp_path: Path) -> None:
    """``a`` on a v1 diff without differences left the tab blank (the keys audit)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="user", content="hello"))
        s.append_message(Message(role="assistant", content="hi"))
    note = "No differences: 2 message lines, each sent as written. a shows them."
    async with TailscopeApp(path).run_test(size=(120, 30)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("d")
        await pilot.pause(0.5)
        shown = "\n".join(screen_lines(pilot.app))
        assert "hello" in shown and note not in shown
        await pilot.press("a")
        await wait_for(pilot, lambda: note in "\n".join(screen_lines(pilot.app)))
        await pilot.press("a")
        await wait_for(pilot, lambda: note not in "\n".join(screen_lines(pilot.app)))
