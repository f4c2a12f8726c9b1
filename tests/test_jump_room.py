"""A jump (``e``, ``n``) that lands low on screen keeps ``JUMP_ROOM`` lines below the
row it moved to: the toast that the next jump brings ("No operation that did not
complete after the cursor", bottom right) hid that row's arguments, took and line (a
user audit)."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use
from helpers import said
from model_screen_helpers import IDLE, opened, until

from viewer.widgets.line_list import JUMP_ROOM

FAILED = (30, 33)  # the calls that fail, of 60


def _session(tmp_path: Path) -> Path:
    w = CCWriter()
    w.user("run them")
    for n in range(60):
        w.assistant(f"m{n}", [tool_use(f"t{n}", "Bash", command=f"step {n}")])
        w.result(f"t{n}", "FAILED" if n in FAILED else "ok", is_error=n in FAILED)
    w.assistant("end", [text("Done.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    return path


def _below(table: object) -> int:
    """Rows on screen below the cursor's."""
    from viewer.widgets.virtual_table import VirtualTable

    assert isinstance(table, VirtualTable)
    return int(table.scroll_y) + table.page_height - table.cursor_row - 1


async def test_a_jump_leaves_room_below_for_the_toast(tmp_path: Path) -> None:
    async with opened(_session(tmp_path), (120, 30)) as (app, pilot, screen):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 60, "the operations")
        await pilot.press("g", "e")
        assert table.cursor_row == FAILED[0]
        assert _below(table) >= JUMP_ROOM
        await pilot.press("e")
        assert table.cursor_row == FAILED[1]
        assert _below(table) >= JUMP_ROOM  # (on screen already, but low)
        await pilot.press("e")
        await until(pilot, lambda: said(app, "No operation that did not complete"), "the toast")
        assert table.cursor_row == FAILED[1] and _below(table) >= JUMP_ROOM
        # ``n`` likewise
        await pilot.press("g", "slash", *"FAILED", "enter")
        await until(pilot, lambda: said(app, "2 matches for 'FAILED'"), "the count")
        assert table.cursor_row == FAILED[0] and _below(table) >= JUMP_ROOM
        await pilot.press("g", "n")
        assert table.cursor_row == FAILED[0] and _below(table) >= JUMP_ROOM
