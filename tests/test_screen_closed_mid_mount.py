"""A file screen closed while it is still mounting its panes (a subagent's screen opened
from the command palette and popped at once) is harmless: Textual's tabs met their own
mount with their tabs pruned and raised "No Tab with id", or the screen's ``on_mount``
looked up a pane already gone; either ended the app."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import app_loaded

from viewer.format_screens import open_file_screen
from viewer.screens.model_screen import ModelScreen

YIELDS = 40  # the pop after 0, 1, … turns of the event loop: every step of the mount


@pytest.mark.parametrize("fmt", ["claude-code", "agentgo-v1"])
async def test_a_screen_popped_while_it_mounts_leaves_the_app_running(
    fmt: str, tmp_path: Path
) -> None:
    path = BUILT_IN[fmt](tmp_path)
    async with app_loaded(path, ModelScreen, (100, 30)) as (app, pilot):
        first = app.screen
        for turns in range(YIELDS):
            app.push_screen(open_file_screen(str(path)))
            for _ in range(turns):
                await asyncio.sleep(0)
            app.pop_screen()
            await pilot.pause(0.02)
            assert app.is_running, f"ended, popped after {turns} turns"
        await pilot.pause(0.6)  # (past PANES_AFTER: nothing left to raise later)
        assert app.is_running and app.screen is first
        assert app.screen_stack[-1] is first
