"""Snapshot tests of the app on a transcript-v1 file (the model screen, with v1's own
panes), grouped by feature: one deterministic story file each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import app_on, for_screen, screen_lines, screen_text, snapshot_rerun, wait_for, written

from session_core.formats import not_a_transcript
from story import OLD_MTIME, write_story
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen

# Only snapshot classes rerun (snapshot_rerun); what a snapshot shows is pinned once more
# in TestText, which fails on its first failure.
SIZE = (120, 40)
opened, shows = for_screen(ModelScreen, SIZE)


@pytest.fixture
def story(tmp_path: Path) -> Path:
    return written(tmp_path / "story.jsonl", write_story)


@snapshot_rerun
class TestConversation:
    def test_replayed(self, snap_compare, story: Path) -> None:
        assert shows(snap_compare, story)

    def test_raw_with_overlays(self, snap_compare, story: Path) -> None:
        assert shows(snap_compare, story, "r", "g")

    def test_raw_elided_stub_one_key_away(self, snap_compare, story: Path) -> None:
        # g: top; j j j: the elided tool result (as written); o: its stub; enter: expanded.
        keys = ["r", "g", "j", "j", "j", "o", "enter"]
        assert shows(snap_compare, story, *keys)

    def test_expanded_message(self, snap_compare, story: Path) -> None:
        keys = ["g", "j", "enter"]
        assert shows(snap_compare, story, *keys)

    def test_escape_sequences_are_inert(self, snap_compare, hostile: Path) -> None:
        assert shows(snap_compare, hostile, "r", "g")


@snapshot_rerun
class TestPanes:
    def test_diff(self, snap_compare, story: Path) -> None:
        assert shows(snap_compare, story, "2", "n")

    def test_diff_searched(self, snap_compare, story: Path) -> None:
        # its own search: the header's count, the term highlighted, a match further on
        # than the row shows said on its row, n the matches' in the footer, ] the steps'
        assert shows(snap_compare, story, "2", "slash", *"divide", "enter")

    def test_tool_operations_crash_states(self, snap_compare, story: Path) -> None:
        assert shows(snap_compare, story, "3")

    def test_run_contexts(self, snap_compare, story: Path) -> None:
        assert shows(snap_compare, story, "4")


@snapshot_rerun
class TestScreens:
    def test_help(self, snap_compare, story: Path) -> None:
        assert shows(snap_compare, story, "question_mark")

    def test_search_results(self, snap_compare, story: Path) -> None:
        keys = ["slash", *"divide", "enter"]
        assert shows(snap_compare, story, *keys)

    def test_damaged_file(self, snap_compare, damaged: Path) -> None:
        assert shows(snap_compare, damaged, "w")

    def test_not_a_transcript(self, snap_compare, notes: Path) -> None:
        assert shows(snap_compare, notes)


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    path = tmp_path / "damaged.jsonl"
    write_story(path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(5, b'{"id": "torn", "payl\n')  # a malformed line mid-file
    lines.append(
        b'{"id":"x","payload":{"replaces-through-id":"nope","summary":"s"},'
        b'"ts":"2026-08-09T13:20:00.000000Z","type":"compaction","v":1}\n'
    )
    path.write_bytes(b"".join(lines))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b'{"hello": "world"}\nnot json at all\n')
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return written(tmp_path / "hostile.jsonl", write_story, hostile=True)


def cursor_row(app: TailscopeApp) -> str:
    """The row under the cursor (drawn with a left bar), as text."""
    rows = [row for row in screen_lines(app) if row.startswith("▌")]
    assert rows, screen_lines(app)
    return rows[0]


class TestText:
    """What the snapshots above show, pinned as text (a snapshot rerun cannot hide it)."""

    async def test_the_warnings_screen(self, damaged: Path) -> None:
        async with opened(damaged) as (app, pilot):
            assert "⚠ 2 warnings (w)" in screen_text(app)
            await pilot.press("w")
            await wait_for(pilot, lambda: "line 6 could not be read" in screen_text(app))
            text = " ".join(screen_lines(app))
            assert "2 warnings" in text
            assert "line 6 could not be read (not valid JSON), and was skipped" in text
            assert 'line 22: the compaction replaces through "nope"' in text

    async def test_the_not_a_transcript_screen(self, notes: Path) -> None:
        """A file no format claims is not a transcript, in ``check``'s words: no format's
        tabs, rules or counts (an audit: v1's tabs, v1's "has no "v"" said of it, and
        "0 tool ops · 0 runs · usage none" asserted)."""
        async with app_on(notes, SIZE) as (app, pilot):
            await wait_for(pilot, lambda: "is not a transcript" in screen_text(app))
            text = " ".join(screen_lines(app))
            assert "notes.jsonl  not a transcript" in text and "unknown format" not in text
            said = "is not a transcript: its first line is neither a session-meta line"
            assert f"This file {said}" in text
            assert "2 lines · not a transcript: nothing of it is counted" in text
            for counted in ("sent next", "tool op", "usage", "message lines", "Diff", "Runs"):
                assert counted not in text.split("Conversation")[0], counted
            why = f"This file is not a transcript: {not_a_transcript()}"  # (check's words)
            assert app.file_screen.transcript.warnings == [why]
            await pilot.press("w")
            await wait_for(pilot, lambda: "1 warning" in screen_text(app))
            assert 'has no "v"' not in " ".join(screen_lines(app))  # (no v1 rule applied)

    async def test_a_file_truncated_to_nothing_is_no_unreadable_file(
        self, story: Path, tmp_path: Path
    ) -> None:
        """Truncated under the viewer, the file is read again from line 1 (a warning):
        an empty file is no problem to show as one, until it holds what is no transcript."""
        path = tmp_path / "s.jsonl"
        path.write_bytes(story.read_bytes())
        async with opened(path) as (app, pilot):
            path.write_bytes(b"")
            await wait_for(
                pilot, lambda: "reading it again" in " ".join(app.file_screen.transcript.warnings)
            )
            await pilot.pause(0.3)
            assert "could not be read" not in screen_text(app)
            path.write_bytes(b"just some notes\n")
            await wait_for(pilot, lambda: "is not a transcript" in screen_text(app))
            assert "line 1: is not valid JSON" in screen_text(app)

    async def test_the_header_counts_reported_turns(self, story: Path) -> None:
        async with opened(story) as (app, _pilot):
            # the story's three assistant turns: two report usage (2,100 + 490 tokens)
            text = screen_text(app)
            assert "usage 2,590 tok (2,400 in + 190 out) · $0.0046 (2 of 3 priced)" in text
            # one compaction and one elision, each called what it is
            assert "2 runs · 1 compaction · 1 elision" in text
            assert "grants fs_read:always" in text

    async def test_the_diff_keys(self, story: Path) -> None:
        async with opened(story) as (app, pilot):
            await pilot.press("2")
            await wait_for(pilot, lambda: "sent as written" in screen_text(app))
            assert "line 3 system sent as written" in cursor_row(app)
            # n / p: the story's differences are lines 4, 5 and 7 (folded) and 15 (summary)
            for key, line in [
                ("n", "line 4 user"),
                ("n", "line 5 assistant"),
                ("n", "line 7 tool"),
                ("n", "line 15 user"),
                ("p", "line 7 tool"),
                ("p", "line 5 assistant"),
            ]:
                await pilot.press(key)
                await wait_for(pilot, lambda line=line: line in cursor_row(app))
            # a: changed rows only (no "sent as written"), and again: every row
            await pilot.press("a")
            await wait_for(pilot, lambda: "sent as written" not in screen_text(app))
            text = "\n".join(screen_lines(app))
            assert "line 4 user folded into the summary of the compaction at line 15" in text
            assert "line 15 user compaction summary: folded 3" in text
            assert "line 5 assistant" in cursor_row(app)  # the cursor's row kept
            await pilot.press("a")
            await wait_for(
                pilot, lambda: "line 9 assistant sent as written" in "\n".join(screen_lines(app))
            )
            assert "line 5 assistant" in cursor_row(app)
            await pilot.press("down", "a")  # a row the changed ones lack: the next one shown
            await wait_for(pilot, lambda: "sent as written" not in screen_text(app))
            assert "line 7 tool" in cursor_row(app)
