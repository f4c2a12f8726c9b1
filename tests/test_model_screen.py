"""The model screen (every format without a screen of its own), driven as a person would.

Over the tests' own toy format (always), and over the real claude-code and codex samples
(copied to a temporary directory) once those formats are registered.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from codex_writer import message_line
from helpers import SAMPLES, fingerprint, said, screen_text
from model_screen_helpers import IDLE, model_screen, opened, until
from model_toy import HOSTILE, NAME, toy_registered, write_toy
from textual.pilot import Pilot

from session_core.formats import AGENTGO, V1, names
from viewer.app import TailscopeApp
from viewer.format_screens import screen_for
from viewer.screens.help import BindingsHelpScreen, binding_rows
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import OpDetailScreen

CLAUDE = "claude-code/projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CODEX = (
    "codex/sessions/2026/02/23/"
    "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
)


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[Path]:
    with toy_registered():
        path = write_toy(tmp_path / "toy.jsonl")
        os.utime(path, (IDLE, IDLE))
        yield path


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
        assert table.columns[0][2] == len("outcome unknown") + 2  # (no wider than need be)
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, OpDetailScreen), "the detail")
        text = screen_text(app)
        assert "stdout" in text and "stderr" in text and "warning: slow" in text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the screen")


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
    """``x`` in a file with no compaction: "after the cursor", not "after this one" (it
    read as a compaction at the cursor, one that is not there)."""
    async with opened(toy) as (app, pilot, _screen):
        await pilot.press("g", "x")
        await until(pilot, lambda: said(app, "No compaction after the cursor."), "the toast")


async def test_stepping_through_matches_stacks_no_toasts(toy: Path) -> None:
    """n / N say the matches once while that toast shows (the header counts them)."""
    async with opened(toy) as (app, pilot, screen):
        view = screen.conversation
        await pilot.press("slash", *"pytest", "enter")
        await until(pilot, lambda: view.matches and not view.searching, "the matches")
        await pilot.press("n", "n", "N", "n")
        await pilot.pause(0.1)
        toasts = [n for n in app._notifications if "for 'pytest'" in str(n.message)]
        assert len(toasts) == 1


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


# -- the real samples ---------------------------------------------------------------


def sample(tmp_path: Path, fmt: str, rel: str) -> Path:
    if fmt not in names():
        pytest.skip(f"the {fmt} format is not registered yet")
    source = SAMPLES / rel
    if not source.is_file():
        pytest.skip("../shared/samples is not here")
    target = tmp_path / source.name
    shutil.copyfile(source, target)
    os.utime(target, (IDLE, IDLE))
    return target


LIVE_LINES = {
    "claude-code": {
        "type": "user",
        "uuid": "live-append-1",
        "parentUuid": None,
        "isSidechain": False,
        "timestamp": "2030-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": "LIVE-APPEND-MARKER"},
    },
    "codex": message_line("2030-01-01T00:00:00.000Z", "user", "LIVE-APPEND-MARKER"),
}


@pytest.mark.parametrize(("fmt", "rel"), [("claude-code", CLAUDE), ("codex", CODEX)])
async def test_a_real_sample(tmp_path: Path, fmt: str, rel: str) -> None:
    path = sample(tmp_path, fmt, rel)
    before = fingerprint(path)
    async with opened(path) as (app, pilot, screen):
        view = screen.conversation
        assert view.cursor == len(view.items) - 1 and view.items
        # Raw: every line, the records that are not messages among them.
        await pilot.press("r")
        await until(pilot, lambda: view.mode == "raw", "the raw view")
        assert len(view.items) >= len(screen.transcript.messages)
        assert any(item.kind != "message" for item in view.items)
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count > 0, "tool operations")
        states = set(table.column_cells("state"))
        assert states and states <= {op.label for op in screen.transcript.tool_operations}
        assert fingerprint(path) == before
        # A line written while the file is shown appears (in the raw view at least).
        with path.open("a") as fh:
            fh.write(json.dumps(LIVE_LINES[fmt]) + "\n")
        await pilot.press("1")
        await until(
            pilot,
            lambda: any("LIVE-APPEND-MARKER" in p.text for p in view.items[-1].parts),
            "the appended line",
        )
        assert "LIVE-APPEND-MARKER" in screen_text(app)


@pytest.mark.parametrize(("fmt", "rel"), [("claude-code", CLAUDE), ("codex", CODEX)])
async def test_the_screen_reads_the_snapshot_only_under_the_state_lock(
    tmp_path: Path, fmt: str, rel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot shares the live model's columns, which the follow worker extends under
    the state lock: the header's once-a-second refresh read them without it, and a codex
    run followed at 10,000 lines/s died of "dictionary changed size during iteration".
    Each time the header counts the operations, a replay (another thread) must be shut
    out."""
    import threading

    import viewer.widgets.model_status as model_status

    path = sample(tmp_path, fmt, rel)
    shut_out: list[bool] = []
    counted = model_status.unsettled_ops
    screens: list[ModelScreen] = []

    def unsettled(ops: object) -> object:
        if screens:
            got: list[bool] = []
            lock = screens[0].state_lock
            other = threading.Thread(target=lambda: got.append(lock.acquire(blocking=False)))
            other.start()
            other.join()
            if got[0]:
                lock.release()
            shut_out.append(not got[0])
        return counted(ops)  # type: ignore[arg-type]

    monkeypatch.setattr(model_status, "unsettled_ops", unsettled)
    async with opened(path) as (_app, pilot, screen):
        screens.append(screen)
        shut_out.clear()
        screen._tick()  # the header's timer
        screen.action_show_tab("tools")
        with path.open("a") as fh:
            fh.write(json.dumps(LIVE_LINES[fmt]) + "\n")
        await until(pilot, lambda: len(shut_out) >= 3, "the header drawn after the append")
        assert shut_out and all(shut_out), shut_out


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


async def test_a_response_over_lines_apart_says_how_many(tmp_path: Path) -> None:
    """A Claude Code response split over lines 18, 19, 20, 23, 26, 29, 32 and 35 read
    "lines 18-25" (its first line and its count as a range: the viewer audit); it is
    "8 lines from line 18"."""
    path = sample(tmp_path, "claude-code", CLAUDE)
    async with opened(path) as (_app, _pilot, screen):
        view = screen.conversation
        index = next(i for i, item in enumerate(view.items) if item.line == 18)
        assert view.items[index].lines == 8
        header = view.rendered_text(index).splitlines()[0]
        assert "8 lines from line 18" in header and "18-25" not in header, header


async def test_the_diff_tab_counts_the_browsers_messages(tmp_path: Path) -> None:
    """The browser's "msgs" (59) was no number the viewer showed (it said 61 sent next,
    135 raw items: the viewer audit); the diff tab gives it, by the same name."""
    from session_core.scan import scan_file

    path = sample(tmp_path, "claude-code", CLAUDE)
    listed = scan_file(path).messages
    async with opened(path) as (app, pilot, _screen):
        await pilot.press("4")
        await pilot.pause(0.2)
        assert f"({listed} messages)" in screen_text(app)
