"""``f`` on the tool operations tab: which tools and states the table shows (a user
audit: it opened the conversation's role filter). The dialog lists the file's tools and
states with counts and says in words what it hides; the table, its search, ``e`` and
the header keep to what it shows; its rows are found without making every operation."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from claude_code_writer import CCWriter, text, tool_use
from helpers import said, screen_lines, screen_text
from model_screen_helpers import IDLE, opened, until
from test_model_diff import files
from textual.app import App, ComposeResult
from textual.widgets import Button, SelectionList, Static

from session_core.formats import by_name
from session_core.tool_ops import STATE_LABELS, OpsSequence
from viewer.screens.filter import FilterList, FilterScreen
from viewer.widgets.ops_filter import OpsFilter

CALLS = [  # tool, argument, result, failed
    ("Bash", "make all", "built: ok", False),
    ("Bash", "pytest -q", "1 FAILED: test_divide", True),
    ("Read", "calc.py", "def divide(a, b): return a / b", False),
    ("Bash", "pytest -q -x", "1 FAILED again: test_divide", True),
    ("Grep", "divide", "calc.py:1: def divide", False),
]


def _writer(more: bool = False) -> CCWriter:
    """The session's writer: its calls, and with ``more`` two more (a failed Bash, a
    completed one) after its answer."""
    w = CCWriter()
    w.user("build and test")
    for n, (tool, argument, result, failed) in enumerate(CALLS, 1):
        key = "command" if tool == "Bash" else "file_path" if tool == "Read" else "pattern"
        w.assistant(f"m{n}", [tool_use(f"t{n}", tool, **{key: argument})])
        w.result(f"t{n}", result, is_error=failed)
    w.assistant("m9", [text("The divide test fails.")], stop="end_turn")
    if more:
        w.user("again")
        w.assistant("m10", [tool_use("t10", "Bash", command="pytest -q -k again")])
        w.result("t10", "1 FAILED", is_error=True)
        w.assistant("m11", [tool_use("t11", "Bash", command="pytest --lf")])
        w.result("t11", "ok")
    return w


def _session(tmp_path: Path) -> Path:
    path = _writer().write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    return path


async def _failed_only(app: Any, pilot: Any, shown: Callable[[], bool]) -> None:
    """``f``, the completed unticked, applied: the failed operations alone, once ``shown``."""
    await pilot.press("f")
    await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
    app.screen.query_one("#filter-states", SelectionList).deselect("completed")
    app.screen.query_one("#filter-apply", Button).press()
    await until(pilot, shown, "the failed operations alone")


def _prompts(dialog: FilterScreen, key: str) -> list[str]:
    choices = dialog.query_one(f"#filter-{key}", SelectionList)
    return [str(choices.get_option_at_index(i).prompt) for i in range(choices.option_count)]


async def test_f_on_the_operations_filters_them_by_tool_and_state(tmp_path: Path) -> None:
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 5, "five operations")
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        dialog = app.screen
        assert isinstance(dialog, FilterScreen)
        assert _prompts(dialog, "tools") == ["3  Bash", "1  Grep", "1  Read"]
        assert _prompts(dialog, "states") == ["3  completed", "2  failed"]
        words = dialog.query_one("#filter-said", Static)
        assert "tools: all shown · states: all shown" in str(words.render())
        assert dialog.focused is dialog.query_one("#filter-tools", SelectionList)
        await pilot.press("down", "space")  # (Grep unticked)
        assert "tools: hiding Grep · states: all shown" in str(words.render())
        dialog.query_one("#filter-states", SelectionList).deselect("completed")
        await pilot.pause(0.05)
        assert "states: hiding completed" in str(words.render())
        dialog.query_one("#filter-apply", Button).press()
        await until(pilot, lambda: app.screen is screen, "the dialog gone")
        assert table.row_count == 2
        assert table.column_cells("state") == ["failed", "failed"]
        assert table.column_cells("args") == ["pytest -q", "pytest -q -x"]
        assert "filter: 2 of 5 operations shown (f)" in screen_text(app)
        assert screen.ops.selected is not None and screen.ops.selected.call_id == "t2"
        # ``/`` counts what is shown, ``n`` and ``e`` step through it
        await pilot.press("slash", *"divide", "enter")
        await until(pilot, lambda: said(app, "2 matches for 'divide'"), "the count")
        assert table.matches == [0, 1]
        await pilot.press("g", "e")
        assert table.cursor_row == 1 and screen.ops.selected.call_id == "t4"
        await pilot.press("e")
        await until(pilot, lambda: said(app, "No operation that did not complete"), "none")
        # a view left empty says so, and the key that shows the rest
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        app.screen.query_one("#filter-tools", SelectionList).deselect_all()
        app.screen.query_one("#filter-apply", Button).press()
        await until(pilot, lambda: app.screen is screen, "the dialog gone")
        assert table.row_count == 0
        assert "The filter lets none of the 5 operations through: f changes it." in (
            screen_text(app)
        )
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        words = app.screen.query_one("#filter-said", Static)
        assert "tools: hiding Bash, Grep, Read" in str(words.render())  # (as it was left)
        app.screen.query_one("#filter-all", Button).press()
        await until(pilot, lambda: table.row_count == 5, "every operation again")
        assert "filter:" not in screen_text(app)
        # the conversation's own ``f`` is the conversation's still
        await pilot.press("1", "f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        assert app.screen.query("#filter-roles") and not app.screen.query("#filter-tools")


async def test_a_filter_keeps_to_its_operations_as_the_file_grows(tmp_path: Path) -> None:
    """A snapshot's operations filtered again: a failed call appended is shown, a
    completed one not; the search looks at it."""
    path = _session(tmp_path)
    async with opened(path) as (app, pilot, screen):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 5, "five operations")
        await _failed_only(app, pilot, lambda: table.row_count == 2)
        await pilot.press("slash", *"pytest", "enter")
        await until(pilot, lambda: said(app, "2 matches for 'pytest'"), "the count")
        whole = _writer(more=True).write(tmp_path / "more.jsonl").read_bytes()
        before = path.read_bytes()
        assert whole.startswith(before)
        with path.open("ab") as out:
            out.write(whole[len(before) :])
        await until(pilot, lambda: len(screen.ops.ops) == 7, "the calls appended", 20)
        await until(pilot, lambda: table.row_count == 3, "the failed one appended")
        assert table.column_cells("args")[-1] == "pytest -q -k again"
        await until(pilot, lambda: table.matches == [0, 1, 2], "its match")


def _grown(path: Path, writer: CCWriter, tmp_path: Path) -> None:
    """``path`` grown to what ``writer`` writes (it starts with what ``path`` holds)."""
    whole = writer.write(tmp_path / "more.jsonl").read_bytes()
    before = path.read_bytes()
    assert whole.startswith(before)
    with path.open("ab") as out:
        out.write(whole[len(before) :])


async def test_the_dialogs_counts_follow_the_file_while_it_is_open(tmp_path: Path) -> None:
    """The dialog opened while the file grows (as a big one loads in steps): its counts
    follow, a tool come since is listed, ticked, and a choice unticked stays so; applied,
    the filter is of what the dialog lists then. (It kept what it had when opened: a
    tool further on was missing and every count low.)"""
    path = _session(tmp_path)
    async with opened(path) as (app, pilot, screen):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 5, "five operations")
        await pilot.press("f")  # (one closed: the file's growth is no business of it)
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        closed = app.screen
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the dialog gone")
        assert closed not in app.screen_stack  # (what the pane asks before it follows)
        _grown(path, _writer(more=True), tmp_path)
        await until(pilot, lambda: table.row_count == 7, "two operations more")
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        dialog = app.screen
        assert isinstance(dialog, FilterScreen)
        dialog.query_one("#filter-tools", SelectionList).deselect("Grep")
        w = _writer(more=True)
        w.assistant("m12", [tool_use("t12", "Write", file_path="notes.md")])
        w.result("t12", "written")
        _grown(path, w, tmp_path)
        await until(pilot, lambda: "1  Write" in _prompts(dialog, "tools"), "the new tool", 20)
        assert app.screen is dialog  # (still open)
        assert _prompts(dialog, "tools") == ["5  Bash", "1  Grep", "1  Read", "1  Write"]
        assert _prompts(dialog, "states") == ["5  completed", "3  failed"]
        tools = dialog.query_one("#filter-tools", SelectionList)
        assert set(tools.selected) == {"Bash", "Read", "Write"}  # (Grep unticked still)
        words = dialog.query_one("#filter-said", Static)
        assert "tools: hiding Grep · states: all shown" in str(words.render())
        tools.deselect("Write")
        dialog.query_one("#filter-apply", Button).press()
        await until(pilot, lambda: app.screen is screen, "the dialog gone")
        assert table.column_cells("tool") == ["Bash", "Bash", "Read", "Bash", "Bash", "Bash"]
        assert "filter: 6 of 8 operations shown (f)" in screen_text(app)


async def test_a_snapshot_before_the_dialog_is_composed_is_counted_not_a_crash(
    tmp_path: Path,
) -> None:
    """A snapshot shown after ``f`` pushed the dialog but before its lists are composed,
    and one shown as it is dismissed: the viewer goes on (it stopped on ``NoMatches``),
    and the counts the dialog draws once composed are the snapshot's, none lost."""
    path = _session(tmp_path)
    async with opened(path) as (app, pilot, screen):
        await pilot.press("2")
        pane, table = screen.ops, screen.ops.table
        await until(pilot, lambda: table.row_count == 5, "five operations")
        with screen.state_lock:
            dialog = pane.filter_dialog()  # (of the five, not pushed yet: not followed)
        _grown(path, _writer(more=True), tmp_path)
        await until(pilot, lambda: table.row_count == 7, "two operations more")
        assert dialog.lists[0].counts == {"Bash": 3, "Grep": 1, "Read": 1}
        app.push_screen(dialog)
        assert not dialog.query(SelectionList)  # (not composed yet)
        with screen.state_lock:
            pane.show(screen.transcript)
        await until(pilot, lambda: app.screen is dialog and dialog.is_mounted, "the dialog")
        assert _prompts(dialog, "tools") == ["5  Bash", "1  Grep", "1  Read"]
        assert _prompts(dialog, "states") == ["4  completed", "3  failed"]
        dialog.dismiss(None)
        with screen.state_lock:
            pane.show(screen.transcript)
        await until(pilot, lambda: app.screen is screen, "the dialog gone")
        await pilot.pause(0.1)
        assert app.is_running and app.return_code is None


async def test_a_snapshot_as_the_dialogs_lists_are_mounted_is_drawn() -> None:
    """A snapshot after the dialog composed its lists (of the counts it had) but before
    they are all mounted: once mounted they show its counts, and a tool come since,
    ticked (it stopped on ``NoMatches``, the lists not in place). A file reset to no
    operations since: each choice counts 0 (the counts were dropped)."""
    tools = ("Bash", "Read")
    opened_with = [
        FilterList("tools", "tools", tools, frozenset({"Bash"}), {"Bash": 2, "Read": 1}),
        FilterList("states", "states", ("completed",), None, {"completed": 3}),
    ]
    later = [
        FilterList(
            "tools", "tools", ("Bash", "Write"), frozenset({"Bash"}), {"Bash": 3, "Write": 1}
        ),
        FilterList("states", "states", ("completed",), None, {"completed": 4}),
    ]

    class Late(FilterScreen):
        def compose(self) -> ComposeResult:
            yield from super().compose()
            self.follow(later)  # (composed, none of it mounted yet)

    dialog = Late("", opened_with)
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.push_screen(dialog)
        await until(pilot, lambda: dialog.is_mounted, "the dialog")
        assert _prompts(dialog, "tools") == ["3  Bash", "0  Read", "1  Write"]
        assert _prompts(dialog, "states") == ["4  completed"]
        assert set(dialog.query_one("#filter-tools", SelectionList).selected) == {"Bash", "Write"}
        words = dialog.query_one("#filter-said", Static)
        assert "tools: hiding Read · states: all shown" in str(words.render())
        dialog.follow(
            [
                FilterList("tools", "tools", (), frozenset({"Bash"}), {}),
                FilterList("states", "states", (), None, {}),
            ]
        )
        assert _prompts(dialog, "tools") == ["0  Bash", "0  Read", "0  Write"]
        assert _prompts(dialog, "states") == ["0  completed"]


def _never(_self: object, index: int) -> Any:
    raise AssertionError(f"operation {index} made to be filtered")


def test_the_filter_reads_tools_and_states_without_making_operations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1 GB file has 100,000 operations: the dialog's counts and the rows shown come
    from what the sequence keeps (Claude Code's and Codex's), every format alike."""
    checked = set()
    for name, path in files(tmp_path):
        every = list(by_name(name).open(str(path)).tool_operations)
        if not every:
            continue
        ops = by_name(name).open(str(path)).tool_operations  # (none made yet)
        tool, state = every[0].tool, every[0].state
        with monkeypatch.context() as m:
            if name in ("claude-code", "codex"):
                assert isinstance(ops, OpsSequence)
                m.setattr(type(ops), "_one", _never)
                checked.add(name)
            chosen = OpsFilter()
            dialog = chosen.dialog(ops)
            tools, states = dialog.lists
            assert tools.counts[tool] == sum(op.tool == tool for op in every)
            assert states.counts[state] == sum(op.state == state for op in every)
            chosen.set(frozenset({tool}), frozenset({state}), dialog)
            rows = chosen.rows(ops)
        assert rows == [i for i, op in enumerate(every) if (op.tool, op.state) == (tool, state)]
    assert checked == {"claude-code", "codex"}


@pytest.mark.parametrize("fmt", ["transcript-v1", "agentgo-v1", "codex"])
async def test_every_formats_operations_tab_has_its_filter(tmp_path: Path, fmt: str) -> None:
    """v1's tab (``3``) and agentgo's (``6``) are the same table: ``f`` there filters it."""
    from format_fixtures import FACTORIES

    path = FACTORIES[fmt](tmp_path)
    async with opened(path) as (app, pilot, screen):
        screen.action_show_tab("tools")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count > 0, "the operations")
        every = list(screen.ops.ops)
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        tools = app.screen.query_one("#filter-tools", SelectionList)
        tool = tools.get_option_at_index(0).value
        tools.deselect_all()
        tools.select(tool)
        app.screen.query_one("#filter-apply", Button).press()
        await until(pilot, lambda: app.screen is screen, "the dialog gone")
        assert table.column_cells("tool") == [op.tool for op in every if op.tool == tool]
        many = sum(op.tool == tool for op in every)
        assert f"filter: {many} of {len(every)} operations shown (f)" in screen_text(app)


@asynccontextmanager
async def _sixty_failed_only(tmp_path: Path) -> AsyncIterator[tuple[Any, Any, Any]]:
    """A session of 60 operations (the last 5 failed) on the Tools tab, filtered to the
    failed ones: the app, its pilot and the operations' table."""
    w = CCWriter()
    w.user("go")
    for n in range(1, 61):
        w.assistant(f"m{n}", [tool_use(f"t{n}", "Bash", command=f"step {n}")])
        w.result(f"t{n}", "no" if n > 55 else "ok", is_error=n > 55)
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path, (100, 24)) as (app, pilot, screen):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 60, "every operation")
        await _failed_only(app, pilot, lambda: table.row_count == 5)
        yield app, pilot, table


async def test_the_cursor_is_on_screen_when_the_filter_shows_more(tmp_path: Path) -> None:
    """Failed only (the cursor on the last of them, far down the file), then every
    operation: the cursor's row is on screen (it sat off it, where enter acted unseen)."""
    async with _sixty_failed_only(tmp_path) as (app, pilot, table):
        await pilot.press("G")  # the last failed: operation 60
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        app.screen.query_one("#filter-all", Button).press()
        await until(pilot, lambda: table.row_count == 60, "every operation again")
        assert table.cursor_row == 59

        def on_screen() -> bool:
            top = round(table.scroll_offset.y)
            return top <= table.cursor_row < top + table.size.height - 1

        # (waited for, not a fixed pause: the scroll comes after a refresh, which a
        # loaded machine delays past 0.2 s)
        await until(pilot, on_screen, "the cursor's row on screen")


async def test_every_state_label_is_whole_in_the_dialog_at_120_columns(tmp_path: Path) -> None:
    """v1's crash states were cut ("completed, settle never …") in the dialog's two
    equal halves at 120 columns (a first-time-user audit): each list takes the room its
    choices need, every one of the states' labels whole."""
    from viewer.screens.filter import FilterList

    # (each a tool operation's state may be: the exports' word for an interrupted v1
    # call, "running-dead", is never one)
    states = tuple(s for s in STATE_LABELS if s != "running-dead")
    lists = [
        FilterList("tools", "tools", ("Bash", "Read"), None, {"Bash": 3, "Read": 1}),
        FilterList("states", "states", states, None, dict.fromkeys(states, 12), STATE_LABELS),
    ]
    async with opened(_session(tmp_path), size=(120, 35)) as (app, pilot, _screen):
        app.push_screen(FilterScreen("Show these", lists))
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        shown = screen_text(app)
        for state in states:
            assert f"12  {STATE_LABELS[state]}" in shown, state


@pytest.mark.parametrize("width", [80, 120, 140])
async def test_every_count_is_shown_however_narrow_the_dialog(tmp_path: Path, width: int) -> None:
    """A long tool name beside v1's crash states at 80 columns cut a state's label and
    the count after it ("completed, settle never l…"): each choice's count comes first,
    so a cut takes the end of its words alone, at every width."""
    import re

    from viewer.screens.filter import FilterList

    # (each a tool operation's state may be: the exports' word for an interrupted v1
    # call, "running-dead", is never one)
    states = tuple(s for s in STATE_LABELS if s != "running-dead")
    tools = ("mcp__filesystem_server__read_multiple_files", "sh")
    lists = [
        FilterList("tools", "tools", tools, None, dict(zip(tools, (7, 1_234), strict=True))),
        FilterList("states", "states", states, None, dict.fromkeys(states, 11), STATE_LABELS),
    ]
    async with opened(_session(tmp_path), size=(width, 35)) as (app, pilot, _screen):
        app.push_screen(FilterScreen("Show these", lists))
        await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the dialog")
        shown = "\n".join(screen_lines(app))
        assert len(re.findall(r"▌ *11  [a-z]", shown)) == len(states), shown
        assert re.search(r"▌ *7  mcp__", shown) and re.search(r"▌ *1,234  sh", shown), shown
        for state in states:  # (the narrower list whole: the tool's cut)
            assert f"11  {STATE_LABELS[state]}" in shown, (state, shown)


async def test_the_dialog_pushed_as_the_app_exits_is_no_crash(tmp_path: Path) -> None:
    """``f`` on the operations and the app told to exit in the same tick (a script):
    the dialog is mounted with its lists already removed, and drew none (it stopped on
    ``NoMatches`` in ``on_mount``, the app's exit an exception)."""
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        await pilot.press("2")
        await until(pilot, lambda: screen.ops.table.row_count == 5, "five operations")
        screen.action_filter()
        assert isinstance(app.screen, FilterScreen)
        app.exit()
    assert app.return_code == 0  # (an exception in a handler: 1, and raised above)


async def test_the_cursor_is_scrolled_to_before_the_scrollbar_is_laid_out(
    tmp_path: Path,
) -> None:
    """The rows a filter shows again need a scrollbar the table has not laid out yet: the
    scroll to the cursor, made before that layout (a loaded machine's order: the CI of
    2026-12-07 waited 10 s for it), scrolls all the same, where Textual ignores a scroll
    of a widget showing no scrollbar unless forced."""
    async with _sixty_failed_only(tmp_path) as (_app, pilot, table):
        await pilot.pause(0.2)
        assert not table.show_vertical_scrollbar  # (five rows fit)
        table.set_row_count(60)
        table.move_to(59)
        table.scroll_to_cursor()  # (at once: no layout between)
        assert table.scroll_y > 0
