"""The v1 story opened on the model screen in a test, and what the screen follows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import app_on, wait_for
from textual.pilot import Pilot

from session_core.formats.v1 import V1Live
from session_core.live import LiveTranscript
from story import write_story
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.items_view import ItemsView

SIZE = (120, 40)


def shown(app: TailscopeApp) -> ModelScreen:
    """The model screen of the v1 file (the one under any modal)."""
    return app.topmost(ModelScreen, "transcript-v1 file")


def replay(app: TailscopeApp) -> LiveTranscript:
    """The v1 replay that screen follows."""
    live = shown(app).live
    assert isinstance(live, V1Live)
    return live.replay


@asynccontextmanager
async def story_open(
    path: Path, size: tuple[int, int] = SIZE
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ItemsView]]:
    """The app on ``path`` (the story), once its six replayed items are shown."""
    async with app_on(path, size) as (app, pilot):
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 6)
        yield app, pilot, view


@pytest.fixture
def story(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "story.jsonl"
    return path, write_story(path)
