"""The Runs tab's prompt takes what the other columns leave, at every width, and fits
again as the terminal is resized (a person's look: cut to 60 characters whatever the
width, 25 columns left blank at 160)."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text, usage
from helpers import app_loaded, screen_lines, wait_for
from textual.app import App

from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.model_panes import RunsPane

PROMPT = "OK, we're going to make a little experiment here. " + "Pretend we are " * 20


def long_prompt(folder: Path) -> Path:
    w = CCWriter()
    w.user(PROMPT)
    w.assistant("m1", [text("Sure.")], usage=usage(100, 10), stop="end_turn")
    path = w.write(folder / "s.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


def prompt_shown(app: App[None]) -> str:
    """The prompt as the row shows it."""
    row = next(line for line in screen_lines(app) if "OK, we're" in line)
    return row[row.index("OK, we're") :].split("▐")[0].rstrip()


async def test_the_prompt_takes_the_width_the_other_columns_leave(tmp_path: Path) -> None:
    path = long_prompt(tmp_path)
    async with app_loaded(path, ModelScreen, (160, 45)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        screen.action_show_tab("runs")
        await wait_for(pilot, lambda: bool(app.query(RunsPane)))
        pane = app.query_one(RunsPane)
        await wait_for(pilot, lambda: pane.table.row_count >= 1)
        table = pane.table

        def fills() -> bool:  # (the row reaches the table's edge, the scroll bar's 2 left)
            widths = sum(width + 2 for _key, _label, width in table.columns)
            return widths == table.size.width - 2

        await wait_for(pilot, fills)
        wide = prompt_shown(app)
        assert len(wide) > 80 and wide.endswith("…") and PROMPT.startswith(wide[:-1])
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: fills() and len(prompt_shown(app)) < len(wide))
        narrow = prompt_shown(app)
        assert len(narrow) == len(wide) - 40, (len(narrow), len(wide))
        assert not table.show_horizontal_scrollbar
