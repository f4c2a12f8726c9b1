"""The model screen (every format without a screen of its own), driven as a person would,
over the tests' own toy format (and a few files written for one test). Its search, filter
and jumps: ``test_model_screen_search``; over the real claude-code and codex samples:
``test_model_screen_samples``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import fingerprint, screen_text
from model_screen_helpers import IDLE, model_screen, opened, toy, until
from model_toy import HOSTILE, NAME, toy_registered, write_toy
from textual.pilot import Pilot

from session_core.formats import AGENTGO, V1
from viewer.app import TailscopeApp
from viewer.format_screens import screen_for
from viewer.screens.help import BindingsHelpScreen, binding_rows
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import OpDetailScreen

__all__ = ["toy"]  # (the fixture, used by name)


# -- the toy format: every part of the model -------------------------------------------


async def test_opens_at_the_end_of_the_conversation(toy: Path) -> None:
    async with opened(toy, size=(100, 14)) as (_app, _pilot, screen):
        view = screen.conversation
        assert view.cursor == len(view.items) - 1
        assert view.selected is not None and view.selected.id == "u2"
        assert view.max_scroll_y > 0 and view.is_at_end


async def test_raw_toggle_shows_every_line_with_its_kind_and_marks(toy: Path) -> None:
    async with opened(toy) as (app, pilot, screen):
        view = screen.conversation
        assert "file-history-snapshot" not in screen_text(app)
        await pilot.press("r")
        await until(pilot, lambda: view.mode == "raw", "the raw view")
        assert len(view.items) == len(screen.transcript.raw)
        text = screen_text(app)
        assert "file-history-snapshot" in text and "[sidechain]" in text
        assert "[folded by the compaction at line " in text  # which one folded it
        assert view.cursor == len(view.items) - 1  # it was at the end: it stays there
        await pilot.press("r")
        await until(pilot, lambda: view.mode == "replayed", "the replayed view")


async def test_enter_on_a_run_shows_its_first_line(toy: Path) -> None:
    """The runs tab's enter (as its help says): the run's first item (the one holding its
    first line, else the first after it) in the conversation, in the raw view where a
    compaction folded it from the replayed one."""
    async with opened(toy) as (_app, pilot, screen):
        runs = screen.transcript.runs
        assert runs and all(r.line for r in runs)
        for row in reversed(range(len(runs))):
            await pilot.press("3")  # the runs tab
            screen.runs.table.move_cursor(row)
            await pilot.press("enter")
            await until(
                pilot,
                lambda row=row: (
                    screen.query_one("#tabs").active == "conversation"  # type: ignore[attr-defined]
                    and screen.conversation.selected is not None
                    and screen.conversation.selected.id
                    == next(
                        i.id
                        for i in screen.transcript.raw
                        if i.line + max(i.lines, 1) > runs[row].line
                    )
                ),
                f"run {row}'s first line",
            )


async def test_tool_operations_show_their_states_and_detail(toy: Path) -> None:
    async with opened(toy) as (app, pilot, screen):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 3, "three operations")
        assert table.column_cells("state") == [
            "completed",
            "failed",
            "interrupted",
        ]
        assert table.columns[0][2] == len("interrupted")  # (its longest label: no wider)
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, OpDetailScreen), "the detail")
        text = screen_text(app)
        assert "stdout" in text and "stderr" in text and "warning: slow" in text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the screen")


async def test_an_open_detail_keeps_the_tables_cursor_on_its_row(toy: Path) -> None:
    # A row appended while an operation's detail is open does not take the cursor (it
    # followed the end underneath: escape came back to another row, a live-watch audit).
    async with opened(toy) as (app, pilot, screen):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 3, "three operations")
        await pilot.press("G")
        await until(pilot, lambda: table.cursor_row == 2, "the last operation")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, OpDetailScreen), "the detail")
        call = {"id": "call-4", "name": "Read", "args": {"path": "more.py"}}
        line = {"id": "a3", "type": "msg", "role": "assistant", "text": "x", "calls": [call]}
        with toy.open("a") as fh:
            fh.write(json.dumps(line) + "\n")
        await until(pilot, lambda: table.row_count == 4, "the appended operation")
        assert table.cursor_row == 2
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the screen")
        selected = screen.ops.selected
        assert selected is not None and selected.call_id == "call-3"
        # The cursor left the end: a row appended now does not take it either.
        more = {**line, "id": "a4", "calls": [{**call, "id": "call-5"}]}
        with toy.open("a") as fh:
            fh.write(json.dumps(more) + "\n")
        await until(pilot, lambda: table.row_count == 5, "another operation")
        assert table.cursor_row == 2


async def test_a_call_without_result_is_running_while_the_writer_lives(
    toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with opened(toy) as (_app, pilot, screen):
        op = lambda: screen.transcript.op_for_call("call-3")  # noqa: E731
        assert op().state == "interrupted"
        monkeypatch.setattr(screen, "_writer_alive", lambda held: True)
        screen._live_at = -1.0
        await until(pilot, lambda: op().state == "running", "running once alive", 5)
        assert op().progress == "still working…"
        monkeypatch.setattr(screen, "_writer_alive", lambda held: False)
        screen._live_at = -1.0
        await until(pilot, lambda: op().state == "interrupted", "interrupted once gone", 5)
        # Cut off, it keeps the last output it gave, folded and expanded: it was gone
        # from the screen once the call was interrupted (the viewer audit).
        view = screen.conversation
        index = next(
            i
            for i, item in enumerate(view.items)
            if any(p.call_id == "call-3" and p.kind == "tool-call" for p in item.parts)
        )
        view.cursor = index
        assert "still working…" in view.rendered_text(index)
        await pilot.press("enter")
        await pilot.pause(0.1)
        shown = view.rendered_text(index)
        assert "its last output, before it was cut off:" in shown and "still working…" in shown


async def test_a_line_appended_live_appears_and_the_view_sticks_to_the_end(toy: Path) -> None:
    async with opened(toy) as (app, pilot, screen):
        view = screen.conversation
        with toy.open("a") as fh:
            fh.write(
                json.dumps({"id": "u3", "type": "msg", "role": "user", "text": "LIVE ONE"}) + "\n"
            )
        await until(pilot, lambda: view.items[-1].id == "u3", "the appended message")
        assert view.cursor == len(view.items) - 1
        assert "LIVE ONE" in screen_text(app)


async def test_a_slow_snapshot_holds_appends_back_to_its_share_of_the_time(
    toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A snapshot of a big file takes a while: a fast writer's appends are drawn together,
    # after its share of the time (DRAW_SHARE_FOLLOWING), never one snapshot per append.
    import viewer.screens.model_screen_following as drawing

    async with opened(toy) as (_app, pilot, screen):
        view = screen.conversation
        monkeypatch.setattr(drawing, "DRAW_SHARE_FOLLOWING", 0.5)
        screen._draw_cost = 0.4  # the next draw may come 0.8 s after the last
        screen._drawn_at = __import__("time").monotonic()
        with toy.open("a") as fh:
            fh.write(json.dumps({"id": "u5", "type": "msg", "role": "user", "text": "x"}) + "\n")
        await until(pilot, lambda: screen._pending, "the append, held back")
        assert view.items[-1].id != "u5"
        await until(pilot, lambda: view.items[-1].id == "u5", "the held append, drawn", 3)
        assert not screen._pending


async def test_the_headers_size_is_the_drawn_snapshots_beside_its_counts(
    toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An append held back for the next draw: the header said the file's new size beside
    # the last snapshot's line count ("472 B ● live | 0 lines", a live-watch audit).
    import viewer.screens.model_screen_following as drawing
    from session_core.text import size_text

    async with opened(toy) as (app, pilot, screen):
        before = size_text(toy.stat().st_size)
        lines = f"{screen.transcript.lines} lines"
        assert before in screen_text(app) and lines in screen_text(app)
        monkeypatch.setattr(drawing, "DRAW_SHARE_FOLLOWING", 0.5)
        # The next draw held back 60 s (1.2 s was drawn before the check under load):
        # the held draw is then made by hand, as its timer would make it.
        screen._draw_cost = 30.0
        screen._drawn_at = __import__("time").monotonic()
        with toy.open("a") as fh:
            fh.write(json.dumps({"id": "u5", "type": "msg", "role": "user", "text": "x"}) + "\n")
        after = size_text(toy.stat().st_size)
        assert after != before
        await until(pilot, lambda: screen._pending, "the append, held back")
        screen._refresh_status()
        await pilot.pause(0.05)
        text = screen_text(app)
        assert before in text and after not in text and lines in text
        assert screen._pending  # (still held: the check above saw the held state)
        screen._flush()
        await pilot.pause(0.05)
        text = screen_text(app)
        assert after in text and f"{screen.transcript.lines} lines" in text


async def test_a_one_off_slow_snapshot_does_not_hold_the_next_draw_back(
    toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A compaction arriving in a followed 1 GB Claude Code session makes one snapshot
    # cost 0.18 s; the draw after it is held back by the lesser of the last two costs,
    # not three times that one (a steady cost still holds draws back).
    import time

    async with opened(toy) as (_app, _pilot, screen):
        with screen.state_lock:
            screen._draw()
        cheap = screen._last_cost
        assert cheap < 0.2
        real = screen.live.transcript

        def slow(*args: Any, **kwargs: Any) -> Any:
            time.sleep(0.3)
            return real(*args, **kwargs)

        monkeypatch.setattr(screen.live, "transcript", slow)
        with screen.state_lock:
            screen._draw()
        assert screen._last_cost >= 0.3 and screen._draw_cost == cheap
        with screen.state_lock:
            screen._draw()
        assert screen._draw_cost >= 0.3  # slow twice: steady, so it counts


async def test_the_cursor_stays_on_its_item_when_lines_arrive(toy: Path) -> None:
    async with opened(toy) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("g")
        await until(pilot, lambda: view.cursor == 0, "the top")
        first = view.selected
        with toy.open("a") as fh:
            fh.write(json.dumps({"id": "u4", "type": "msg", "role": "user", "text": "x"}) + "\n")
        await until(pilot, lambda: view.items[-1].id == "u4", "the appended message")
        assert view.cursor == 0 and view.selected is not None and first is not None
        assert view.selected.id == first.id


async def test_hostile_text_is_shown_never_obeyed(tmp_path: Path) -> None:
    with toy_registered():
        path = write_toy(tmp_path / "hostile.jsonl", hostile=True)
        async with opened(path) as (app, _pilot, screen):
            text = screen_text(app)
            assert "␛[31mRED␛[0m [bold]not bold[/bold]" in text
            assert "\x1b" not in screen.query_one("#items").render_line(0).text
            assert HOSTILE not in text


async def test_the_viewer_never_writes(toy: Path) -> None:
    before = fingerprint(toy)
    async with opened(toy) as (_app, pilot, _screen):
        await pilot.press("r", "2", "enter", "escape", "3", "4", "1")
        await pilot.pause(0.2)
    assert fingerprint(toy) == before


async def test_help_is_built_from_the_bindings(toy: Path) -> None:
    async with opened(toy) as (app, pilot, _screen):
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, BindingsHelpScreen), "the help")
        assert "Raw/replayed" in screen_text(app)
        help_screen = app.screen
        assert isinstance(help_screen, BindingsHelpScreen)
        shown = {what for _name, keys in help_screen.sections for _k, what in binding_rows(keys)}
        assert {"Previous tool call", "Copy result", "Quit"} <= shown
        assert "Open subagent" not in shown  # (the toy has no subagents: ``s`` does nothing)
        assert "Expand a section" not in shown  # (v1's run contexts' own)


async def test_help_offers_a_subagent_where_the_format_has_them(tmp_path: Path) -> None:
    from claude_code_writer import CCWriter, text

    w = CCWriter()
    w.user("hello")
    w.assistant("m1", [text("hi")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (app, pilot, _screen):
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, BindingsHelpScreen), "the help")
        assert isinstance(app.screen, BindingsHelpScreen)
        shown = {what for _name, keys in app.screen.sections for _k, what in binding_rows(keys)}
        assert "Open subagent" in shown


def test_screens_are_routed_through_the_registry(tmp_path: Path) -> None:
    from viewer.formats.agentgo import AgentGoPanes
    from viewer.formats.v1 import V1Panes

    path = str(tmp_path / "x.jsonl")
    v1 = screen_for(V1, path)  # the model screen, with v1's own panes
    assert isinstance(v1, ModelScreen) and isinstance(v1.panes, V1Panes)
    assert v1.FORMAT == V1 and v1._detected == V1
    agentgo = screen_for(AGENTGO, path)  # the model screen, with agentgo's own panes
    assert isinstance(agentgo, ModelScreen) and isinstance(agentgo.panes, AgentGoPanes)
    assert [tab.id for tab in agentgo.TABS] == list(AgentGoPanes.ORDER)
    waiting = screen_for(None, path)  # read as v1's while it waits, then swaps
    assert isinstance(waiting, ModelScreen) and waiting.FORMAT == V1
    assert waiting._detected is None  # the header says "unknown format"
    with toy_registered():
        screen = screen_for(NAME, path)
        assert isinstance(screen, ModelScreen) and screen.FORMAT == NAME


# -- snapshots of the toy file (looked at: tests/__snapshots__/test_model_screen/) ------


async def _loaded(pilot: Pilot[None]) -> None:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, ModelScreen), "the model screen")
    screen = model_screen(app)  # type: ignore[arg-type]
    await until(pilot, lambda: screen._loaded and screen.conversation.items, "the file loaded")
    await pilot.pause(0.2)
    await pilot.wait_for_scheduled_animations()


@pytest.mark.flaky(reruns=2)
@pytest.mark.parametrize(
    "keys",
    [
        pytest.param([], id="conversation"),
        pytest.param(["r", "g"], id="raw"),
        pytest.param(["2"], id="tools"),
    ],
)
def test_snapshot(snap_compare, toy: Path, keys: list[str]) -> None:
    assert snap_compare(TailscopeApp(toy), press=keys, terminal_size=(120, 32), run_before=_loaded)


async def test_export_from_the_palette_opens_the_export_screen(toy: Path) -> None:
    """Export… (imported only when asked for) opens on the shown view's file."""
    from textual.widgets import Input

    from viewer.screens.export import ExportScreen

    async with opened(toy) as (app, pilot, screen):
        await app.run_action("command_palette")
        await pilot.press(*"Export")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen), "the export screen")
        path = app.screen.query_one("#export-path", Input)
        assert path.value == str(toy.parent / "toy.html")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back on the model screen")


async def test_a_double_click_expands_an_item_and_another_folds_it(toy: Path) -> None:
    """The README's "double-click expands" (a click selected, and that was all)."""
    from viewer.widgets.items_view import ItemsView

    async with opened(toy) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.click(ItemsView, offset=(10, 2))
        await pilot.pause(0.1)
        chosen = view.cursor
        assert view.selected is not None and not view.expanded  # (one click: selected)
        await pilot.click(ItemsView, offset=(10, 2), times=2)
        await until(pilot, lambda: bool(view.expanded), "expanded")
        assert view.cursor == chosen and view.expanded == {view.items[chosen].id}
        await pilot.click(ItemsView, offset=(10, 2), times=2)
        await until(pilot, lambda: not view.expanded, "folded again")


async def test_an_empty_tool_result_is_said_to_be_empty(tmp_path: Path) -> None:
    """A result of no text showed "← result" and nothing after it, as if cut off (an
    audit): folded and expanded, it says "(empty text)"."""
    from session_core import Message, Session
    from viewer.widgets.items_view import ItemsView

    path = tmp_path / "empty.jsonl"
    call = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="assistant", content="", tool_calls=(call,)))
        s.append_message(Message(role="tool", content="", tool_call_id="c1"))
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (_app, _pilot, screen):
        view = screen.conversation
        assert isinstance(view, ItemsView)
        rows = [line.plain for line in view.block_lines(len(view.items) - 1, 100)]
        assert any("← result  (empty text)" in row for row in rows), rows
        view.move_to(len(view.items) - 1)
        view.action_toggle_fold()
        rows = [line.plain for line in view.block_lines(len(view.items) - 1, 100)]
        assert any(row.strip() == "(empty text)" for row in rows), rows


async def test_an_80_column_header_keeps_the_files_state(tmp_path: Path) -> None:
    path = tmp_path / ("a-long-name-" * 8 + ".jsonl")
    write_toy(path)
    with path.open("ab") as fh:
        fh.write(b'{"broken\n{"toy": 1}\n')  # (a warning)
    with toy_registered():
        async with opened(path, (80, 24)) as (app, pilot, _screen):
            await pilot.pause(0.1)
            first = screen_text(app).split("a-long-name-", 1)[1].split("\n", 1)[0]
            assert "●" in first and "warning" in first, first
