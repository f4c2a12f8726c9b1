"""A v1 file on the model screen as the file itself changes state: missing, deleted,
replaced (by one that cannot be read, too), big (its end shown first, searched while the
rest loads), or read as no transcript (its first bad line in the banner)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from helpers import file_permissions_apply, screen_lines, screen_text, wait_for
from textual.pilot import Pilot
from v1_screen_helpers import SIZE, replay, story, story_open

from session_core import Message, Session
from session_core.text import size_text as SIZE_TEXT
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.items_view import ItemsView
from viewer.widgets.model_status import ModelStatus

__all__ = ["story"]  # a fixture of v1_screen_helpers', used here


async def test_a_replaced_file_rebuilds_the_view(story, tmp_path: Path) -> None:
    path, _ = story
    async with story_open(path) as (app, pilot, view):
        other = tmp_path / "other.jsonl"
        with Session.create(other, meta={"agent": "second"}) as s:
            s.append_message(Message(role="user", content="a different run"))
        os.replace(other, path)  # a new inode, as a repair's rename leaves
        await wait_for(pilot, lambda: len(view.items) == 1)
        assert replay(app).state.meta == {"agent": "second"}
        assert replay(app).resets == 1


async def test_missing_file_waits_then_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: app.file_screen.gone)
        await wait_for(pilot, lambda: "does not exist" in screen_text(app))
        with Session.create(path, meta={}) as s:
            s.append_message(Message(role="user", content="here now"))
        await wait_for(pilot, lambda: len(view.items) == 1)
        assert replay(app).exists and not app.file_screen.gone


async def test_a_deleted_file_stays_shown_until_another_is_there(tmp_path: Path) -> None:
    """Deleted (or moved away, compressed to another name) under the view: what was read
    stays, the header says "gone" and the banner why; a file there again is read anew."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="read before"))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 1)
        path.unlink()
        await wait_for(pilot, lambda: app.file_screen.gone)
        await wait_for(pilot, lambda: "does not exist" in screen_text(app))
        text = screen_text(app)
        assert "read before" in text and "● gone" in text
        assert "transcript-v1" in text and "unknown format" not in text  # (as it was read)
        assert any("is gone" in str(note.message) for note in app._notifications)
        assert not any("truncated or replaced" in str(n.message) for n in app._notifications)
        with Session.create(path, meta={}) as s:
            s.append_message(Message(role="user", content="a new one"))
        await wait_for(pilot, lambda: "a new one" in screen_text(app))
        assert "read before" not in screen_text(app) and not app.file_screen.gone
        notes = [str(n.message) for n in app._notifications]  # (no file was replaced)
        assert any("The file is there" in n for n in notes), notes
        assert not any("truncated or replaced" in n for n in notes), notes


async def test_a_file_replaced_by_one_that_cannot_be_read_says_so(story, tmp_path: Path) -> None:
    """Replaced under the view by a file it may not read (mode 000): what was read stays
    shown, its counts with it, the banner and a toast say the file was replaced by one
    that cannot be read, and nothing is said to be rebuilt (an audit: the view was
    emptied, "0 lines", and the toast said "rebuilt from line 1"); once it can be read it
    is, and a toast says it can be read now."""
    path, _ = story
    other = tmp_path / "other.jsonl"
    with Session.create(other, meta={"agent": "second"}) as s:
        s.append_message(Message(role="user", content="the new file's words"))
    other.chmod(0)
    try:
        with file_permissions_apply():  # (and the app's threads, made inside it)
            app = TailscopeApp(path)
            async with app.run_test(size=(200, 30)) as pilot:
                view = app.query_one(ItemsView)
                await wait_for(pilot, lambda: len(view.items) == 6)
                size = path.stat().st_size
                os.replace(other, path)
                await wait_for(pilot, lambda: "Permission denied" in screen_text(app))
                await pilot.pause(0.3)
                text = " ".join(screen_lines(app))
                assert "cannot be read" in text and "the file was replaced" in text
                assert len(view.items) == 6 and "20 lines" in text
                assert "transcript-v1" in text and "unknown format" not in text
                assert "6 sent next" in text and SIZE_TEXT(size) in text
                notes = [str(n.message) for n in app._notifications]
                assert not any("rebuilt" in n for n in notes), notes
                assert any("What was read stays shown" in n for n in notes), notes
                path.chmod(0o644)
                await wait_for(pilot, lambda: len(view.items) == 1)
                await wait_for(pilot, lambda: "Permission denied" not in screen_text(app))
                assert "the new file's words" in screen_text(app)
                # (said as such: it said "truncated or replaced", an audit found)
                notes = [str(n.message) for n in app._notifications]
                said = "The file can be read now: the view was rebuilt from line 1."
                assert said in notes, notes
                assert not any("truncated or replaced" in n for n in notes), notes
    finally:
        if path.exists():
            path.chmod(0o644)


async def test_a_big_file_shows_its_end_before_the_whole_replay(story, monkeypatch) -> None:
    import session_core.formats.v1 as v1
    import viewer.screens.following as following
    from viewer.screens.following import FollowingScreen

    path, ids = story
    monkeypatch.setattr(following, "PREVIEW_FROM", 0)  # every file counts as big
    monkeypatch.setattr(v1, "TAIL", 700)  # the end: its last few lines
    held: list[ModelScreen] = []
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: held.append(self))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) > 0)
        # Only the end was read: its last message, no line numbers yet, a loading note.
        assert view.items[-1].id == ids["t4"]
        assert len(view.items) < 6
        text = screen_text(app)
        assert "line " not in text.split("Conversation", 1)[1] and "loading" in text
        await wait_for(pilot, lambda: bool(held))  # the full load starts after the end shows
        screen = held[0]
        FollowingScreen.follow_file(screen)  # now the real follower reads the whole file
        await wait_for(pilot, lambda: not screen._previewing and len(view.items) == 6)
        assert view.items[-1].id == ids["t4"]
        assert view.cursor == len(view.items) - 1
        await wait_for(pilot, lambda: "loading" not in screen_text(app))


async def test_a_search_made_while_the_end_shows_lands_once_the_whole_is_in(
    story, monkeypatch
) -> None:
    """A search typed while a big file's end shows and the rest loads: the header counts
    what is loaded so far, and once the whole file is in, the cursor goes to the first
    match (an audit: it stayed on the last item, not a match, "–/15")."""
    import session_core.formats.v1 as v1
    import viewer.screens.following as following
    from viewer.screens.following import FollowingScreen

    path, ids = story
    monkeypatch.setattr(following, "PREVIEW_FROM", 0)
    monkeypatch.setattr(v1, "TAIL", 700)
    held: list[ModelScreen] = []
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: held.append(self))
    app = TailscopeApp(path)
    async with app.run_test(size=(240, 40)) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) > 0 and bool(held))
        screen = held[0]
        await pilot.press("slash", *"coding agent", "enter")
        await wait_for(pilot, lambda: view.searching is None and view.search_term)
        assert not view.matches  # (not in the end shown)
        header = lambda: str(app.query_one(ModelStatus).render())  # noqa: E731
        assert view.search_status() == "/coding agent: none"  # (of the end alone, so far)
        await wait_for(pilot, lambda: "/coding agent" in header())
        assert "showing the file's end" in header()
        FollowingScreen.follow_file(screen)
        await wait_for(pilot, lambda: not screen._previewing and view.matches == [0])
        await wait_for(pilot, lambda: view.cursor == 0)
        assert view.items[0].id == ids["system"]
        await wait_for(pilot, lambda: "/coding agent: 1/1" in header())
        assert "showing the file's end" not in header()


async def test_a_big_file_whose_end_cannot_be_read_still_loads(story, monkeypatch) -> None:
    import session_core.tailwindow as tailwindow
    import viewer.screens.following as following
    from session_core import TranscriptError

    path, ids = story
    monkeypatch.setattr(following, "PREVIEW_FROM", 0)

    def unreadable(where: str, window: int = 0) -> None:
        raise TranscriptError("cannot be read: Input/output error", path=where)

    monkeypatch.setattr(tailwindow, "read_tail_window", unreadable)
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        # No end to show first: the full load starts anyway, and replaces the note.
        await wait_for(pilot, lambda: len(view.items) == 6)
        assert view.items[-1].id == ids["t4"]
        await wait_for(pilot, lambda: "loading" not in screen_text(app))


async def test_a_file_led_by_a_byte_order_mark_is_shown(story, tmp_path: Path) -> None:
    """v1's reference reads past a byte order mark at the file's start: so does the view
    (the banner said line 1 could not be read), its meta and every item there."""
    path, _ = story
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    async with story_open(bom) as (app, pilot, view):
        await wait_for(pilot, lambda: len(view.items) == 6)
        assert replay(app).state.meta == {"agent": "sadna", "model": "kimi-k2"}
        assert "byte order mark" not in screen_text(app)


async def test_the_banner_names_the_first_bad_line(story, tmp_path: Path) -> None:
    """A file led by two byte order marks (the second is no JSON): the banner says line 1
    and why (it named line 2, the first warning said, "not the start of a known
    transcript format"; an audit), as ``check`` does: it is not a transcript."""
    path, _ = story
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" * 2 + path.read_bytes())
    app = TailscopeApp(bom)
    async with app.run_test(size=(200, 30)) as pilot:
        await wait_for(pilot, lambda: "is not a transcript" in screen_text(app))
        text = screen_text(app)
        assert "is not a transcript: line 1: " in text and "byte order mark" in text


async def test_a_reset_says_why_the_view_was_rebuilt(tmp_path: Path) -> None:
    """The toast of a reset gives the follower's reason (truncated, replaced, compressed:
    it said "truncated or replaced" of each, the reason only under ``w``)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="first words"))
        s.append_message(Message(role="user", content="more words"))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 2)
        os.truncate(path, path.stat().st_size // 3)
        await wait_for(
            pilot,
            lambda: any(
                "The file was truncated: the view was rebuilt from line 1" in str(n.message)
                for n in app._notifications
            ),
        )


async def test_a_file_not_there_yet_is_not_said_gone(tmp_path: Path) -> None:
    """``tailscope PATH`` before its writer has started said "● gone" and "does not
    exist (any more)" (the usability audit): a file never seen is waited for, not gone;
    once one that was there goes away, it is gone."""
    path = tmp_path / "later.jsonl"
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "does not exist" in screen_text(app))
        text = " ".join(screen_lines(app))  # (the banner wraps)
        assert "● waiting" in text and "does not exist yet; waiting for it to appear" in text
        assert "● gone" not in text and "any more" not in text
        with Session.create(path, meta={}) as s:
            s.append_message(Message(role="user", content="here now"))
        await wait_for(pilot, lambda: "here now" in screen_text(app))
        path.unlink()
        await wait_for(pilot, lambda: "does not exist any more" in " ".join(screen_lines(app)))
        assert "● gone" in screen_text(app)


async def test_an_open_warnings_dialog_is_renewed_by_a_reset(tmp_path: Path) -> None:
    """``w`` open while the file is truncated: the dialog lists the warnings after the
    reset, and says why its list changed (an audit: it kept the old file's two, the
    header saying one)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="first words"))
    with path.open("ab") as fh:
        fh.write(b"not json at all\n")
    app = TailscopeApp(path)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for(pilot, lambda: "first words" in screen_text(app))
        await pilot.press("w")
        await wait_for(pilot, lambda: "line 3 could not be read" in screen_text(app))
        os.truncate(path, 0)
        await wait_for(pilot, lambda: "read again from line 1" in screen_text(app))
        text = " ".join(screen_lines(app))
        assert "line 3 could not be read" not in text
        assert "1 warning" in text and "the file was truncated" in text


def _twelve_messages(tmp_path: Path) -> Path:
    """A v1 file of twelve user messages, "message 0" to "message 11"."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        for n in range(12):
            s.append_message(Message(role="user", content=f"message {n}"))
    return path


async def _replaced_by_its_first_lines(
    pilot: Pilot[None], view: ItemsView, path: Path, lines: list[bytes]
) -> None:
    """``path`` replaced by its first five ``lines`` (a new inode: a reset): four items."""
    short = path.with_suffix(".tmp")
    short.write_bytes(b"".join(lines[:5]))
    short.replace(path)
    await wait_for(pilot, lambda: len(view.items) == 4)
    await pilot.pause(0.3)


@asynccontextmanager
async def _on_the_tenth_of_twelve(
    tmp_path: Path,
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ItemsView, Path, list[bytes]]]:
    """The app on twelve messages, scrolled up to the tenth: the app, its pilot, the view,
    the file and its lines."""
    path = _twelve_messages(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 12)
        await pilot.press("g", *["j"] * 9)
        await wait_for(pilot, lambda: view.cursor == 9)
        yield app, pilot, view, path, lines


async def test_a_rebuild_keeps_the_cursor_at_its_line_and_counts_nothing_re_read(
    tmp_path: Path,
) -> None:
    """Scrolled up, the file truncated and written again: the cursor goes back to its
    line once that is read again, and nothing read again is "new" (an audit: "↓ 312 new"
    of 312 items, no cursor); an item appended after that is."""
    path = _twelve_messages(tmp_path)
    body = path.read_bytes()
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 12)
        await pilot.press("g", "j", "j")
        await wait_for(pilot, lambda: view.cursor == 2)
        line = view.items[2].line
        os.truncate(path, 0)
        await wait_for(pilot, lambda: not view.items)
        await pilot.pause(0.3)
        path.write_bytes(body)
        await wait_for(pilot, lambda: len(view.items) == 12)
        await pilot.pause(0.3)
        assert view.cursor == 2 and view.items[2].line == line
        assert view.new_count == 0 and "↓" not in screen_text(app)
        with Session.load(path) as s:
            s.append_message(Message(role="user", content="a new one"))
        await wait_for(pilot, lambda: len(view.items) == 13)
        await wait_for(pilot, lambda: "↓ 1 new" in screen_text(app))
        assert view.cursor == 2


async def test_a_cursor_moved_after_a_rebuild_stays_where_the_user_put_it(
    tmp_path: Path,
) -> None:
    """Scrolled up, the file replaced by a shorter one: the end is followed while nothing
    is done, but once the user moves the cursor it stays there, appended items count in
    "↓ N new", and the old line, read again later, does not take the cursor back."""
    async with _on_the_tenth_of_twelve(tmp_path) as (app, pilot, view, path, lines):
        await _replaced_by_its_first_lines(pilot, view, path, lines)
        assert view.cursor == 3  # (the end followed: its line not read again yet)
        await pilot.press("g")
        await wait_for(pilot, lambda: view.cursor == 0)
        with path.open("ab") as f:
            f.write(b"".join(lines[5:7]))
        await wait_for(pilot, lambda: len(view.items) == 6)
        await wait_for(pilot, lambda: "↓ 2 new" in screen_text(app))
        assert view.cursor == 0
        with path.open("ab") as f:  # (past the line the cursor was on before the reset)
            f.write(b"".join(lines[7:]))
        await wait_for(pilot, lambda: len(view.items) == 12)
        await pilot.pause(0.3)
        assert view.cursor == 0 and view.items[0].parts[0].text == "message 0"


async def test_a_rebuild_takes_the_cursor_back_to_its_own_line_past_a_summary(
    tmp_path: Path,
) -> None:
    """The replayed view is not in line order: a compaction's summary (a later line)
    comes before the messages it kept. A cursor on a kept message goes back to that
    message after a rebuild, not to the summary (the first item at or after its line)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        ids = [s.append_message(Message(role="user", content=f"message {n}")) for n in range(10)]
        s.append_compaction("the summary", ids[4])
    body = path.read_bytes()
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 6)
        kept = next(i for i, item in enumerate(view.items) if item.parts[0].text == "message 7")
        summary_line = view.items[0].line
        assert kept > 0 and view.items[kept].line < summary_line  # (not in line order)
        await pilot.press("g", *["j"] * kept)
        await wait_for(pilot, lambda: view.cursor == kept)
        line = view.items[kept].line
        os.truncate(path, 0)
        await wait_for(pilot, lambda: not view.items)
        await pilot.pause(0.3)
        path.write_bytes(body)
        await wait_for(pilot, lambda: len(view.items) == 6)
        await pilot.pause(0.3)
        assert view.items[view.cursor].line == line


async def test_a_file_replaced_by_no_transcript_keeps_the_resets_warning(
    tmp_path: Path,
) -> None:
    """Replaced by lines no format claims: ``w`` says the replacement (as a replacement by
    another format's file does), then why it is not a transcript; no format's rule."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="first words"))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 1)
        junk = tmp_path / "t.tmp"
        junk.write_text("just a log line\nanother\n")
        junk.replace(path)
        await wait_for(pilot, lambda: "not a transcript" in screen_text(app))
        warnings = app.file_screen.transcript.warnings
        assert len(warnings) == 2, warnings
        assert "the file was replaced" in warnings[0] and "not a transcript" in warnings[1]


async def test_a_resize_after_a_rebuild_is_no_move_of_the_cursor(tmp_path: Path) -> None:
    """A terminal resized while the end is followed after a rebuild moves no cursor of
    the user's: its line, read again, still takes the cursor back."""
    async with _on_the_tenth_of_twelve(tmp_path) as (_app, pilot, view, path, lines):
        line = view.items[9].line
        await _replaced_by_its_first_lines(pilot, view, path, lines)
        await pilot.resize_terminal(SIZE[0] - 30, SIZE[1])
        await pilot.pause(0.3)
        with path.open("ab") as f:
            f.write(b"".join(lines[5:]))
        await wait_for(pilot, lambda: len(view.items) == 12)
        await pilot.pause(0.3)
        assert view.items[view.cursor].line == line
