"""The model screen's search, filter and jumps (``/``, ``n`` / ``N``, ``f``, ``g`` and a
kind), driven as a person would, over the toy format and Claude Code files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import notes_kept, said, screen_lines, screen_text
from model_screen_helpers import IDLE, opened, toy, until

__all__ = ["toy"]  # (the fixture, used by name)


async def test_a_filter_is_said_and_the_search_count_stays_true(tmp_path: Path) -> None:
    """A filter that hides lines is said in the header, how many of how many are shown;
    a search's "k/n" counts the filtered view's matches, k never past n."""
    from claude_code_writer import CCWriter, text

    w = CCWriter()
    for k in range(6):
        w.user(f"needle from the user {k}")
        w.assistant(f"m{k}", [text(f"needle from the assistant {k}")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (app, pilot, screen):
        view = screen.conversation
        await pilot.press("slash", *"needle", "enter")
        await until(pilot, lambda: len(view.matches) == 12 and not view.searching, "12 matches")
        await pilot.press("G")
        view.match_pos = 11  # (the last match: where n and N leave it)
        view.set_filter(frozenset({"assistant"}), None)
        await until(pilot, lambda: len(view.matches) == 6 and not view.searching, "6 matches")
        status = view.search_status()
        shown, total = map(int, status.rsplit(" ", 1)[1].split("/"))
        assert total == 6 and 0 <= shown <= total, status
        screen._refresh_status()
        assert "filter: 6 of 12 shown (f)" in screen_text(app)
        view.set_filter(None, None)
        screen._refresh_status()
        assert "filter:" not in screen_text(app)


async def test_a_search_from_the_end_shows_its_match(tmp_path: Path) -> None:
    """The view at its end, a search lands on a match far above: it is on screen. The
    bar's closing grows the view, and the resize sent it back to the end afterwards,
    the match off screen (the header said "1/1", the screen showed the end)."""
    from claude_code_writer import CCWriter, text

    w = CCWriter()
    w.user("the needle is here")
    for k in range(60):
        w.assistant(f"m{k}", [text(f"filler {k}\nmore\nand more")], stop="end_turn")
        w.user(f"go on {k}")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path, size=(100, 30)) as (_app, pilot, screen):
        view = screen.conversation
        await until(pilot, lambda: view.is_at_end, "the end shown")
        await pilot.press("slash", *"needle", "enter")
        await until(pilot, lambda: view.matches and not view.searching, "the match")
        for _ in range(5):  # (the resize comes after a refresh or two)
            await pilot.pause(0.05)
        top = view.heights.prefix(view.cursor)
        assert view.cursor == view.matches[0] == 0
        assert view.scroll_y <= top < view.scroll_y + view.page_height, (view.scroll_y, top)


async def test_a_jump_that_finds_nothing_says_so_of_the_cursor(toy: Path) -> None:
    """``x`` with no compaction at or after the cursor: "after the cursor", not "after
    this one" (it read as a compaction at the cursor, one that is not there)."""
    async with opened(toy) as (app, pilot, screen):
        await pilot.press("G")
        view = screen.conversation
        await until(pilot, lambda: view.cursor == len(view.items) - 1, "the last item")
        assert "summary" not in view.items[view.cursor].kind
        await pilot.press("x")
        await until(pilot, lambda: said(app, "No compaction after the cursor."), "the toast")


async def test_stepping_through_matches_stacks_no_toasts(
    toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n / N say the matches once while that toast shows (the header counts them)."""
    async with opened(toy) as (app, pilot, screen):
        # (it shows on through the presses however slow they come, and every toast is
        # counted, shown or expired: the 2 s one expired under load and none was left)
        monkeypatch.setattr(type(screen), "MATCHES_TIMEOUT", 600)
        told = notes_kept(app, monkeypatch)
        view = screen.conversation
        await pilot.press("slash", *"pytest", "enter")
        await until(pilot, lambda: view.matches and not view.searching, "the matches")
        await until(pilot, lambda: any("for 'pytest'" in note for note in told), "the toast")
        await pilot.press("n", "n", "N", "n")
        await pilot.pause(0.1)
        assert len([note for note in told if "for 'pytest'" in note]) == 1, told


async def test_search_and_jumps(toy: Path) -> None:
    async with opened(toy) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("slash")
        await pilot.press(*"pytest")
        await pilot.press("enter")
        await until(pilot, lambda: view.matches, "a match")
        assert view.selected is not None and view.selected.id == "a2"
        await pilot.press("g", "t")
        await until(pilot, lambda: view.selected and view.selected.id == "a2", "next tool call")
        await pilot.press("e")
        await until(pilot, lambda: view.selected and view.selected.id == "t2", "next error")


async def test_a_long_jump_leaves_the_screen_live_and_lands(
    toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A jump asks its items a stretch at a time, the screen drawn between (one with
    nothing ahead in a 1 GB raw view held the UI thread 5.8 s); a move of the user's
    meanwhile ends it; one that finds nothing says so at the end."""
    import viewer.widgets.item_jumps as item_jumps

    monkeypatch.setattr(item_jumps, "JUMP_STEP", 1)  # (the toy's few items: a step each)
    async with opened(toy) as (app, pilot, screen):
        view = screen.conversation
        await pilot.press("r", "g")
        await until(pilot, lambda: view.mode == "raw" and view.cursor == 0, "the raw view's top")
        target = next(i for i, item in enumerate(view.items) if view._is("error", item))
        assert target > 2
        asked: list[int] = []
        real = view._is
        monkeypatch.setattr(view, "_is", lambda what, item: asked.append(1) or real(what, item))
        view.action_jump("error", 1)
        assert view.cursor == 0 and len(asked) == 1  # (one asked now, the rest later)
        await until(pilot, lambda: view.cursor == target, "the error, reached step by step")
        assert len(asked) == target and any(
            "Looking for the next error" in str(n.message) for n in app._notifications
        )
        view.move_to(0)
        view.action_jump("error", 1)
        view.move_to(1)  # the user moves: the jump ends where it is
        await pilot.pause(0.2)
        assert view.cursor == 1 and view._jump is None
        view.move_to(len(view.items) - 1)
        view.action_jump("compaction", 1)
        await until(pilot, lambda: view._jump is None, "the end, reached")
        assert view.cursor == len(view.items) - 1


@pytest.mark.parametrize("fmt", ["claude-code", "agentgo-v1"])
async def test_a_jump_from_a_compaction_says_after_this_one(tmp_path: Path, fmt: str) -> None:
    """``x`` with the cursor on the last compaction's summary (``g``: the first replayed
    item is it): "after this one" ("after the cursor" read there as if the cursor were
    on none: the usability audit)."""
    from viewer.demo import DEMO_FILES, simulate_run

    path = tmp_path / DEMO_FILES[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    simulate_run(str(path), speed=0, format=fmt)
    async with opened(path) as (app, pilot, screen):
        view = screen.conversation
        await pilot.press("g")
        await until(pilot, lambda: view.cursor == 0, "the first item")
        assert view.items[0].kind in ("compact-summary", "summary")
        await pilot.press("x")
        await until(pilot, lambda: said(app, "No compaction after this one."), "the toast")
        assert not said(app, "No compaction after the cursor.")


async def test_slash_on_the_runs_says_the_conversation_is_searched(toy: Path) -> None:
    """``/`` on the Runs (no search of its own) searched the conversation and showed it,
    the border's words unread (a first-time-user audit): it is said aloud, on a line of
    the bar's own above its input (a toast said it over the bar's right half, the words
    being typed: a person's look), and not on a tab that searches itself (the tool
    operations, the diff) or on the conversation. The footer says enter and escape."""
    from textual.widgets import Input, Static

    async with opened(toy, (100, 30)) as (app, pilot, screen):
        await pilot.press("3", "slash")
        told = "The Runs tab has no search of its own: enter searches the conversation"
        note = screen.query_one("#search-note", Static)
        await until(pilot, lambda: note.display and told in screen_text(app), "the note")
        assert not app._notifications  # (nothing drawn over the bar)
        bar = screen.query_one("#search", Input).region
        assert note.region.bottom <= bar.y and bar.height == 3
        footer = screen_lines(app)[-1]
        assert "⏎ Find" in footer and "esc Close" in footer, footer
        await pilot.press("escape", "2", "slash")
        await pilot.pause(0.1)
        assert not note.display
        await pilot.press("escape", "4", "slash", "escape", "1", "slash")
        await pilot.pause(0.1)
        assert not note.display and not said(app, "no search of its own")
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert not screen.search_open


async def test_f_on_the_runs_says_the_conversation_is_filtered_and_shows_it(toy: Path) -> None:
    """``f`` on the Runs (no filter of its own) opened the conversation's dialog over the
    runs, and what it hid did not show (the audit on the real samples): it is said, as
    ``/`` says it, and a filter chosen shows the conversation; escape leaves the tab as
    it was. Not said on the conversation, nor on the tool operations (their own)."""
    from textual.widgets import TabbedContent

    from viewer.screens.filter import FilterScreen

    async with opened(toy) as (app, pilot, screen):
        tabs = screen.query_one(TabbedContent)
        await pilot.press("3", "f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        assert said(app, "The Runs tab has no filter of its own: this filters the conversation")
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert tabs.active == "runs"
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog again")
        app.screen.dismiss((frozenset({"assistant"}), None))
        await until(pilot, lambda: tabs.active == "conversation", "the conversation shown")
        assert screen.conversation.filtered
        app.clear_notifications()
        for tab in ("1", "2"):
            await pilot.press(tab, "f")
            await pilot.pause(0.1)
            await pilot.press("escape")
        assert not said(app, "no filter of its own")


async def test_n_before_any_search_says_how_to_search(toy: Path) -> None:
    """``n`` / ``N`` before a search did nothing at all (the lists' keys are off until
    they are searched, and nothing else took them): they say that ``/`` searches, on the
    conversation, on a tab with a search of its own, and on one without."""
    async with opened(toy) as (app, pilot, screen):
        assert not screen.conversation.search_term
        await pilot.press("n")
        await until(pilot, lambda: said(app, "No search yet: / searches."), "n's toast")
        app.clear_notifications()
        await pilot.press("N")
        await until(pilot, lambda: said(app, "No search yet: / searches."), "N's toast")
        app.clear_notifications()
        await pilot.press("2")  # the tool operations: a search of their own, not made yet
        await pilot.pause(0.1)
        assert screen.search_term_in_tab() == ""
        await pilot.press("n")
        await until(pilot, lambda: said(app, "No search yet: / searches."), "its toast")
        app.clear_notifications()
        await pilot.press("3")  # the runs: no search of their own
        await pilot.pause(0.1)
        assert screen.search_term_in_tab() is None
        await pilot.press("n")
        note = "The Runs tab has no search of its own: / searches the conversation."
        await until(pilot, lambda: said(app, note), "the runs tab's toast")
