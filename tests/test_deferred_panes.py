"""A file screen's hidden tabs' panes come after its first screen (``DEFER_PANES``): the
conversation is drawn first, then the diff, tool operations and run contexts are mounted
and show what they missed, whether their tab was asked for early or late."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers import app_on, panes_came, screen_text
from textual.widgets import TabbedContent

from session_core import Message, Session
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.diff_view import DiffView
from viewer.widgets.model_panes import OpsPane

SIZE = (120, 30)


def _write(path: Path) -> None:
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="DEFERRED ONE"))
        s.append_message(Message(role="assistant", content="DEFERRED TWO"))


async def test_only_the_conversation_is_mounted_until_the_first_draw(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path)
    seen: list[tuple[int, int]] = []
    original = ModelScreen.on_mount

    def on_mount(self: ModelScreen) -> None:
        seen.append((len(self.query(DiffView)), len(self.query(OpsPane))))
        original(self)

    ModelScreen.on_mount = on_mount  # type: ignore[method-assign]
    try:
        async with app_on(path, SIZE) as (app, pilot):
            screen = app.screen
            assert isinstance(screen, ModelScreen)
            for _ in range(200):
                if screen.panes_ready and screen._loaded:
                    break
                await pilot.pause(0.02)
            assert screen.panes_ready
            assert seen == [(0, 0)]  # neither was there when the screen mounted
            await pilot.press("2")  # the diff: drawn from the state it missed
            await pilot.pause(0.2)
            assert screen.query_one(TabbedContent).active == "changes"
            assert "DEFERRED TWO" in screen_text(app)
    finally:
        ModelScreen.on_mount = original  # type: ignore[method-assign]


async def test_a_tab_asked_for_before_its_pane_came_is_drawn_when_it_comes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    _write(path)
    original = ModelScreen._mount_panes
    ModelScreen._mount_panes = lambda self: None  # type: ignore[method-assign]
    try:
        async with app_on(path, SIZE) as (app, pilot):
            screen = app.screen
            assert isinstance(screen, ModelScreen)
            for _ in range(200):
                if screen._loaded:
                    break
                await pilot.pause(0.02)
            await pilot.press("3")  # tool operations, while its pane is not there yet
            await pilot.pause(0.1)
            assert not screen.panes_ready and not screen.query(OpsPane)
            ModelScreen._mount_panes = original  # type: ignore[method-assign]
            await panes_came(pilot, screen)
            assert screen.query_one(TabbedContent).active == "tools"
            assert "tools" not in screen._stale  # drawn once it came
            assert screen.ops.table.row_count == 0  # (the file has no tool calls)
    finally:
        ModelScreen._mount_panes = original  # type: ignore[method-assign]


async def test_the_model_screen_defers_its_panes_too(tmp_path: Path) -> None:
    from model_toy import toy_registered, write_toy

    from viewer.screens.model_screen import ModelScreen
    from viewer.widgets.model_panes import OpsPane

    with toy_registered():
        path = write_toy(tmp_path / "toy.jsonl")
        original = ModelScreen._mount_panes
        ModelScreen._mount_panes = lambda self: None  # type: ignore[method-assign]
        try:
            async with app_on(path, SIZE) as (app, pilot):
                for _ in range(200):
                    screen = app.screen
                    if isinstance(screen, ModelScreen) and screen._loaded:
                        break
                    await pilot.pause(0.02)
                assert isinstance(screen, ModelScreen)
                assert not screen.query(OpsPane)  # drawn: the conversation alone so far
                await pilot.press("2")  # tool operations, before their pane came
                await pilot.pause(0.1)
                ModelScreen._mount_panes = original  # type: ignore[method-assign]
                await panes_came(pilot, screen)
                assert screen.query_one(TabbedContent).active == "tools"
                assert screen.ops.table.row_count == 3  # drawn once it came
                assert app.focused is screen.ops.table
        finally:
            ModelScreen._mount_panes = original  # type: ignore[method-assign]


async def test_closing_while_the_hidden_panes_mount_is_no_error(tmp_path: Path) -> None:
    """The app closing as the hidden panes are mounted (a bench leaving ``run_test`` once
    the file is loaded, a quick quit): what went with the screen is not drawn."""
    path = tmp_path / "t.jsonl"
    _write(path)
    original = ModelScreen._mount_hidden_panes
    started = asyncio.Event()

    async def mount_while_closing(self: ModelScreen) -> None:
        started.set()
        for _ in range(500):  # until the app's shutdown has begun
            if not self.app.is_running:
                break
            await asyncio.sleep(0.002)
        await original(self)

    ModelScreen._mount_hidden_panes = mount_while_closing  # type: ignore[method-assign]
    try:
        async with app_on(path, SIZE) as (_app, _pilot):
            await asyncio.wait_for(started.wait(), 10)
        # run_test re-raises what a callback raised while the app closed
    finally:
        ModelScreen._mount_hidden_panes = original  # type: ignore[method-assign]
