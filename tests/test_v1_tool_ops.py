"""A v1 file's tool operations on the model screen: every state told apart, live and
after a reset, an operation's detail, hostile text, and the artifact viewer."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import file_loaded, said, screen_text, wait_for
from panes_helpers import ARTIFACT_TEXT, CALLS, column, fixed_ids, plain_rows, transcript
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Static, TextArea

from story import OLD_MTIME
from viewer.app import TailscopeApp
from viewer.screens.artifact import MISSING, REFUSED, ArtifactScreen
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import OpDetailScreen
from viewer.widgets.virtual_table import VirtualTable

__all__ = ["fixed_ids", "transcript"]  # fixtures of panes_helpers', used here


@pytest.fixture
def crashed(transcript: Path) -> Path:
    """The transcript, its writer long gone (an old mtime, no lock)."""
    os.utime(transcript, (OLD_MTIME, OLD_MTIME))
    return transcript


@asynccontextmanager
async def operations(
    path: Path, size: tuple[int, int] = (160, 40)
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen]]:
    """The app on ``path``, its tool operations tab shown with every call."""
    app = TailscopeApp(path)
    async with app.run_test(size=size) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.file_screen
        await pilot.press("3")
        await wait_for(pilot, lambda: screen.ops.table.row_count == len(CALLS))
        yield app, pilot, screen


async def goto_call(pilot: Pilot[None], call_id: str) -> None:
    """The tool operations table's cursor on the call's row."""
    table = pilot.app.screen.query_one("#ops-table", VirtualTable)
    ops = pilot.app.file_screen.ops.ops  # type: ignore[attr-defined]
    # (by the operations: a narrow table leaves its call id column out)
    table.move_cursor([op.call_id for op in ops].index(call_id))
    await pilot.pause()


async def press_on(pilot: Pilot[None], call_id: str, key: str) -> None:
    """The cursor to the call's row, then ``key`` pressed."""
    await goto_call(pilot, call_id)
    await pilot.press(key)
    await pilot.pause()


async def settled(pilot: Pilot[None]) -> None:
    """An artifact's screen (if one is shown) done reading, and the screen refreshed."""
    screen = pilot.app.screen
    if isinstance(screen, ArtifactScreen):
        await wait_for(pilot, lambda: screen.state != "loading")
    await pilot.pause()


async def artifact_of(pilot: Pilot[None], call_id: str) -> ArtifactScreen:
    """``a`` on the call's operation: its artifact's screen, once read."""
    await press_on(pilot, call_id, "a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ArtifactScreen))
    await settled(pilot)
    return artifact_screen(pilot.app)


def artifact_screen(app: App[None]) -> ArtifactScreen:
    screen = app.screen
    assert isinstance(screen, ArtifactScreen)
    return screen


def by_call(table: DataTable[Any] | VirtualTable, key: str) -> dict[str, str]:
    """The column ``key`` of each row, by the row's call id."""
    return dict(zip(column(table, "call"), column(table, key), strict=True))


def static_text(widget: Widget) -> str:
    assert isinstance(widget, Static)
    return str(widget.render())


# -- tool operations ----------------------------------------------------------------

STATES = {
    "call_ok": "completed",
    "call_fail": "failed",
    "call_unk": "outcome unknown",
    "call_run": "interrupted",
    "call_unsettled": "completed, settle never landed",
    "call_art": "completed",
    "call_gone": "completed",
    "call_evil": "completed",
    "call_esc": "failed",
    "call_never": "never dispatched",
}


async def test_every_state_is_told_apart(crashed: Path) -> None:
    async with operations(crashed) as (_app, _pilot, screen):
        assert by_call(screen.ops.table, "state") == STATES
        # the column as wide as its longest label (v1's crash states among them), whole
        assert screen.ops.table.columns[0][2] == len("completed, settle never landed")
        assert column(screen.ops.table, "call")[-1] == "call_never"


async def test_crash_states_leave_the_arguments_room_at_80_columns(crashed: Path) -> None:
    """At 80 columns "completed, settle never landed" took the arguments to 27 cells: the
    column says the short labels there (each state still told apart), the detail the
    long one; a wide terminal keeps the long ones."""
    async with operations(crashed, size=(80, 24)) as (app, pilot, screen):
        table = screen.ops.table
        widths = {key: width for key, _label, width in table.columns}
        assert widths["state"] == len("completed, unsettled")
        assert widths["args"] >= 32  # (the long labels left it 22)
        ids = [op.call_id for op in screen.ops.ops]
        states = dict(zip(ids, column(table, "state"), strict=True))
        assert states["call_unsettled"] == "completed, unsettled"
        assert len(set(states.values())) == len(set(STATES.values()))
        await press_on(pilot, "call_unsettled", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        assert "state: completed, settle never landed" in screen_text(app)


async def test_an_answered_call_never_settled_says_how_long_at_least(crashed: Path) -> None:
    """Its ``took`` was blank (its settle, which times it, never written), read as a
    column not filled: it ran at least till its answer, 1.5 s after its dispatch."""
    async with operations(crashed) as (app, pilot, screen):
        assert by_call(screen.ops.table, "duration")["call_unsettled"] == "≥1.5s"
        await press_on(pilot, "call_unsettled", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        assert "took: ≥1.5s: answered at line " in screen_text(app)


async def test_running_while_the_writer_is_at_work(transcript: Path) -> None:
    async with operations(transcript) as (app, pilot, screen):
        assert screen.writer_is_alive()  # written a moment ago, by a writer that does not lock
        assert by_call(screen.ops.table, "state")["call_run"] == "running"
        # The file goes quiet: the same row now says the call was cut off.
        os.utime(transcript, (OLD_MTIME, OLD_MTIME))
        await wait_for(
            pilot,
            lambda: by_call(screen.ops.table, "state")["call_run"] == STATES["call_run"],
            5,
        )
        await wait_for(pilot, lambda: "idle" in screen_text(app))


async def test_followed_a_line_at_a_time_the_rows_are_the_whole_files(
    crashed: Path, tmp_path: Path
) -> None:
    whole = crashed.read_bytes().splitlines(keepends=True)
    async with operations(crashed) as (_app, _pilot, screen):
        expected = plain_rows(screen.ops.table)
    grown = tmp_path / "grown.jsonl"
    grown.write_bytes(b"".join(whole[:3]))  # the meta, the system prompt, the calls
    app = TailscopeApp(grown)
    async with app.run_test(size=(160, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.file_screen
        await pilot.press("3")
        for line in whole[3:]:
            with grown.open("ab") as fh:
                fh.write(line)
            await pilot.pause(0.02)
        os.utime(grown, (OLD_MTIME, OLD_MTIME))  # the writer gone, as in the whole file
        await wait_for(pilot, lambda: plain_rows(screen.ops.table) == expected, 10)


async def test_a_reset_rebuilds(crashed: Path, tmp_path: Path) -> None:
    lines = crashed.read_bytes().splitlines(keepends=True)
    async with operations(crashed) as (_app, pilot, screen):
        shorter = tmp_path / "shorter.jsonl"
        shorter.write_bytes(b"".join(lines[:6]))  # the calls, the first two settled
        os.utime(shorter, (OLD_MTIME, OLD_MTIME))
        os.replace(shorter, crashed)  # a new inode, as a repair's rename leaves
        await wait_for(pilot, lambda: by_call(screen.ops.table, "state")["call_fail"] == "failed")
        states = by_call(screen.ops.table, "state")
        assert states["call_ok"] == "completed"
        assert {states[c] for c in CALLS if c not in ("call_ok", "call_fail")} == {
            "never dispatched"
        }


async def test_detail_shows_the_whole_operation(crashed: Path) -> None:
    async with operations(crashed) as (app, pilot, _screen):
        await press_on(pilot, "call_fail", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        detail = screen_text(app)
        assert "make: *** [all] Error 2" in detail
        assert '"cmd": "make"' in detail  # arguments pretty-printed
        assert "idempotency: destructive" in detail and "round: 1" in detail
        await pilot.press("escape")
        await press_on(pilot, "call_art", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        detail = screen_text(app)
        assert "artifact: here (a opens it)" in detail
        assert "op-art.txt" in detail and "elided-chars: 900" in detail
        await pilot.press("a")  # (from the detail itself: it did nothing there)
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ArtifactScreen")


async def test_artifact_opens_and_shows_its_text(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (app, pilot, _screen):
        screen = await artifact_of(pilot, "call_art")
        assert screen.state == "here"
        body = screen.query_one("#text-body", TextArea)
        assert body.display
        assert body.text == ARTIFACT_TEXT
        assert not screen.cut
        status = static_text(screen.query_one("#text-status"))
        assert "digest differs" in status  # the record's digest is made up
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ArtifactScreen)
        # "q" closes it too, even with the (read-only) text focused.
        await pilot.press("a")
        await settled(pilot)
        assert artifact_screen(app).focused is app.screen.query_one("#text-body")
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, ArtifactScreen)
        assert app.is_running


async def test_the_artifacts_text_moves_by_the_keys_every_view_has(crashed: Path) -> None:
    """(page up and down alone moved it: j, g and G did nothing)"""
    async with operations(crashed, size=(140, 40)) as (app, pilot, _screen):
        await app.push_screen(
            ArtifactScreen(crashed, "op-art.txt", {}, limit=10_000_000), wait_for_dismiss=False
        )
        await settled(pilot)
        body = artifact_screen(app).query_one("#text-body", TextArea)
        body.load_text("\n".join(f"line {n}" for n in range(200)))
        await pilot.press("j", "j")
        assert body.cursor_location == (2, 0)
        await pilot.press("k")
        assert body.cursor_location == (1, 0)
        await pilot.press("G")
        await pilot.pause()
        assert body.cursor_location[0] == 199 and body.scroll_y > 0
        await pilot.press("g")
        await pilot.pause()
        assert body.cursor_location == (0, 0) and body.scroll_y == 0
        assert body.text.startswith("line 0")  # (read only: nothing was typed into it)


async def test_artifact_is_cut_when_large(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (app, pilot, _screen):
        await app.push_screen(ArtifactScreen(crashed, "op-art.txt", {}, limit=100))
        await settled(pilot)
        screen = artifact_screen(app)
        assert screen.cut
        assert len(screen.text) == 100
        assert "the rest is cut" in static_text(screen.query_one("#text-status"))


async def test_missing_artifact_is_not_here_any_more(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (_app, pilot, _screen):
        screen = await artifact_of(pilot, "call_gone")
        assert screen.state == "missing"
        assert static_text(screen.query_one("#text-status")) == MISSING
        assert not screen.query_one("#text-body", TextArea).display


async def test_hostile_artifact_name_is_refused(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (_app, pilot, _screen):
        screen = await artifact_of(pilot, "call_evil")
        assert screen.state == "refused"  # decided before any worker could read
        assert static_text(screen.query_one("#text-status")) == REFUSED
        assert screen.query_one("#text-body", TextArea).text == ""
        title = static_text(screen.query_one("#text-title"))
        assert "../../etc/passwd" in title


async def test_m_shows_the_calling_message(crashed: Path) -> None:
    async with operations(crashed) as (_app, pilot, screen):
        await press_on(pilot, "call_unsettled", "m")
        await wait_for(pilot, lambda: screen.query_one("#tabs").active == "conversation")
        selected = screen.conversation.selected
        assert selected is not None and selected.role == "assistant"
        assert any(p.call_id == "call_unsettled" for p in selected.parts)


async def test_escapes_in_a_tool_name_are_visible_text(crashed: Path) -> None:
    async with operations(crashed, size=(200, 50)) as (app, pilot, screen):
        await goto_call(pilot, "call_esc")
        tools = by_call(screen.ops.table, "tool")
        assert tools["call_esc"].startswith("␛[2J␛]0;pwn")  # cut to its column
        svg = app.export_screenshot()
        assert "␛" in svg and "pwn" in svg  # (the name cut to its column)
        assert "\x1b" not in svg and "\x07" not in svg
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        detail = screen_text(app)
        assert "␛[2J␛]0;pwned␇[bold red]boom[/]" in detail
        assert "␛[31mred error␛[0m" in detail
        assert '"q": "\\u001b[31mred"' in detail  # pretty JSON keeps the escape escaped
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg


# -- snapshots ------------------------------------------------------------------------


def on_operations(call_id: str, *press: str) -> Any:
    """A snapshot's ``run_before``: the file loaded, its tool operations shown, the cursor
    on the call and ``press`` pressed."""

    async def run_before(pilot: Pilot[None]) -> None:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("3")
        await wait_for(pilot, lambda: pilot.app.screen.ops.table.row_count == len(CALLS))
        await goto_call(pilot, call_id)
        for key in press:
            await pilot.press(key)
        await settled(pilot)

    return run_before


# What each snapshot of the tool operations shows: the call under the cursor, the keys
# pressed there, the terminal's size.
OPERATION_SNAPSHOTS = {
    # every state in its colour; the writer is gone, so the running call was cut off
    "tool_ops": ("call_fail", (), (140, 40)),
    # the hostile tool's detail: ␛ and its markup shown as text, the v1 record's fields
    "tool_op_detail_hostile": ("call_esc", ("enter",), (140, 40)),
    "artifact": ("call_art", ("a",), (140, 40)),
    "artifact_refused": ("call_evil", ("a",), (100, 24)),
    # at 80 columns: the crash states' short labels, the arguments left their room
    "crash_states_80": ("call_unsettled", (), (80, 24)),
}


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
@pytest.mark.parametrize("shot", list(OPERATION_SNAPSHOTS))
def test_snapshot_operations(crashed: Path, snap_compare: Any, shot: str) -> None:
    call_id, press, size = OPERATION_SNAPSHOTS[shot]
    run_before = on_operations(call_id, *press)
    assert snap_compare(TailscopeApp(crashed), terminal_size=size, run_before=run_before)


async def test_e_steps_through_the_operations_that_did_not_complete(crashed: Path) -> None:
    """In a table of 100,000s of rows, the few that failed, were cut off, are running or
    were left in a crash state: ``e`` / ``E`` (asked without making every operation)."""
    async with operations(crashed) as (app, pilot, screen):
        table = screen.ops.table
        calls = column(table, "call")
        seen = []
        for _ in range(7):
            await pilot.press("e")
            seen.append(calls[table.cursor_row])
        assert [STATES[c] for c in seen] == [
            "failed",
            "outcome unknown",
            "interrupted",
            "completed, settle never landed",
            "failed",
            "never dispatched",
            "never dispatched",  # (the last: it stays, and says so)
        ]
        last = "No operation that did not complete after this one."
        await wait_for(pilot, lambda: said(app, last))
        await pilot.press("E")
        assert calls[table.cursor_row] == "call_esc"


def test_a_state_of_another_word_has_one_tone_everywhere() -> None:
    """A hand-written settle's outcome of another word is one to notice, to the viewer's
    tables, its jumps and the exports alike (the viewer said "info", the exports "warn")."""
    from session_core.tool_ops import STATE_TONES, state_tone

    assert state_tone("cancelled") == "warn"
    assert all(state_tone(state) == tone for state, tone in STATE_TONES.items())


async def test_an_answered_call_with_no_start_says_its_time_is_not_known(tmp_path: Path) -> None:
    """A call answered with no dispatch line (an older writer's) has no start to count
    from: its ``took`` says ``?``, where it was blank, read as a column not filled."""
    from session_core import Message, Session

    path = tmp_path / "old.jsonl"
    asked = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="", tool_calls=(asked,)))
        s.append_message(Message(role="tool", content="a.txt", tool_call_id="c1"))
        s.append_message(Message(role="assistant", content="done"))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    app = TailscopeApp(path)
    async with app.run_test(size=(120, 24)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("3")
        table = app.file_screen.ops.table
        await wait_for(pilot, lambda: table.row_count == 1)
        assert column(table, "state") == ["answered, no dispatch record"]
        assert column(table, "duration") == ["?"]


def test_the_arguments_keep_what_the_readme_says_at_80_columns() -> None:
    """The README's figures, measured: 43 cells beside settled states and a 12-cell tool
    column; beside v1's crash states' short labels, 30 to 36 (it said 43 of those too)."""
    from session_core.tool_ops import STATE_SHORT_LABELS
    from viewer.widgets.model_panes import op_widths

    short = sorted({len(label) for label in STATE_SHORT_LABELS.values()})
    assert short == [19, 20, 22]
    assert op_widths(80, len("completed"), 12)["args"] == 43
    assert op_widths(80, 22, 12)["args"] == 30 and op_widths(80, 20, 8)["args"] == 36
