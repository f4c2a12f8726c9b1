"""What many test modules share: proving a file was not touched, and watching the app."""

from __future__ import annotations

import asyncio
import hashlib
import html
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the core's tests use fingerprint without loading the app
    from textual.pilot import Pilot

    from viewer.app import TailscopeApp
    from viewer.screens.following import FollowingScreen


def fingerprint(path: Path) -> tuple[str, int, int]:
    """A file's bytes, inode and mtime: equal before and after a read path, or it wrote."""
    st = path.stat()
    return hashlib.sha256(path.read_bytes()).hexdigest(), st.st_ino, st.st_mtime_ns


async def wait_for(
    pilot: Pilot[None], predicate: Callable[[], object], timeout: float = 5.0
) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)
    await pilot.pause(0.05)


def screen_text(app: TailscopeApp) -> str:
    """The screen's SVG with its entities decoded (spaces are &#160; there)."""
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


async def file_loaded(pilot: Pilot[None], kind: type[FollowingScreen]) -> None:
    """Wait until the topmost ``kind`` screen has the file, and let its panes lay it out
    (a loaded machine renders slowly)."""
    for _ in range(250):
        screens = [s for s in pilot.app.screen_stack if isinstance(s, kind)]
        if screens and screens[-1]._loaded:
            break
        await pilot.pause(0.02)
    for _ in range(3):
        await pilot.pause(0.1)
        await pilot.wait_for_scheduled_animations()
