"""What is made between the browser scan's listing and its watch's start sent no event
the watch heard: once the watch is on, the browser lists again (after its scan) and
the rows of what came meanwhile join the others, with no ``r``."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import watchfiles
from test_browser import QuickApp, browser, scanned, until

import viewer.screens.browser as browser_module
from session_core import Message, Session

SIZE = (120, 30)


def _session(path: Path, agent: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with Session.create(path, {"agent": agent, "model": "m"}) as session:
        session.append_message(Message(role="user", content=f"prompt of {agent}"))
    stamp = time.time() - 3600  # (its writer long gone)
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture
def window(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A folder (a session in it) made just after the scan's listing, before its watch
    is begun: the watch waits for it (the seam that places it there every time). The
    session's path is yielded."""
    made = threading.Event()
    late = tmp_path / "runs" / "late" / "s-late.jsonl"
    listing = browser_module.list_transcript_paths
    real_watch = watchfiles.watch

    def listed(*args: Any, **kwargs: Any) -> Any:
        found = listing(*args, **kwargs)
        if not made.is_set():
            _session(late, "late")
            made.set()
        return found

    def watch(*args: Any, **kwargs: Any) -> Any:
        made.wait(10.0)
        return real_watch(*args, **kwargs)

    monkeypatch.setattr(browser_module, "list_transcript_paths", listed)
    monkeypatch.setattr(watchfiles, "watch", watch)
    yield late


async def test_a_folder_made_before_the_watch_began_is_found(window: Path) -> None:
    root = window.parent.parent
    early = _session(root / "early" / "s-early.jsonl", "early")
    app = QuickApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        screen = browser(app)
        assert str(early) in screen.rows
        await until(pilot, lambda: str(window) in screen.rows, seconds=5.0)
        assert screen.rows[str(window)].agent == "late"
        assert str(window) in screen.order  # (shown, not only kept)
