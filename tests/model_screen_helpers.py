"""Opening a file on the model screen in a test, and waiting for what it shows; the toy
format's file (``toy``, a fixture: imported by the modules that take it)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import app_on
from model_toy import toy_registered, write_toy
from textual.pilot import Pilot

from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen

SIZE = (140, 40)
IDLE = 1_000_000_000  # an mtime long past: the file's writer reads as gone


async def until(
    pilot: Pilot[None], predicate: Callable[[], object], what: str, timeout: float = 10.0
) -> None:
    """Wait for ``predicate``; a timeout fails the test (never a silent pass)."""
    loop = __import__("asyncio").get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for: {what}")
        await pilot.pause(0.02)
    await pilot.pause(0.05)


def model_screen(app: TailscopeApp) -> ModelScreen:
    for screen in reversed(app.screen_stack):
        if isinstance(screen, ModelScreen):
            return screen
    raise AssertionError(f"no model screen open: {app.screen_stack}")


@asynccontextmanager
async def opened(
    path: Path, size: tuple[int, int] = SIZE
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen]]:
    async with app_on(path, size) as (app, pilot):
        await until(pilot, lambda: isinstance(app.screen, ModelScreen), "the model screen")
        screen = model_screen(app)
        await until(
            pilot, lambda: screen._loaded and screen.conversation.items, "the file loaded", 30
        )
        yield app, pilot, screen


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[Path]:
    """A toy-format file of every part of the model, its writer long gone (the format
    registered while the test runs)."""
    with toy_registered():
        path = write_toy(tmp_path / "toy.jsonl")
        os.utime(path, (IDLE, IDLE))
        yield path
