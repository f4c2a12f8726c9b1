"""Make the README's screenshots: the app on a simulated run, as SVG, one per view.

Run: .venv/bin/python screenshots/make.py  (writes screenshots/*.svg)
The demo run is written with fixed ids and timestamps, so the pictures are
reproducible; its file is given an old mtime so it shows as idle (crashed).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from story import OLD_MTIME, fixed_ids  # noqa: E402
from viewer.app import TailscopeApp  # noqa: E402
from viewer.demo import simulate_run  # noqa: E402

SIZE = (132, 42)
# (file name, keys pressed after the file is loaded, a caption for the log)
SHOTS: list[tuple[str, Sequence[str], str]] = [
    ("conversation.svg", (), "the replayed view: what the model is sent next"),
    ("raw-overlays.svg", ("r", "g", "j", "j", "j", "j", "j", "j"), "the raw view with overlays"),
    ("diff.svg", ("2", "n", "n"), "raw versus replayed, side by side"),
    ("tool-operations.svg", ("3", "G"), "tool operations and their crash states"),
    ("run-contexts.svg", ("4",), "run contexts and what changed between runs"),
    ("help.svg", ("question_mark",), "every key"),
]


async def shoot(path: Path, name: str, keys: Sequence[str]) -> None:
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            if app.live.state.events:
                break
            await pilot.pause(0.02)
        await pilot.pause(0.3)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        app.save_screenshot(str(HERE / name))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "agent-run.jsonl"
        with fixed_ids(seed=11):
            simulate_run(str(path), speed=0, crash=True)
        os.utime(path, (OLD_MTIME, OLD_MTIME))
        for name, keys, caption in SHOTS:
            asyncio.run(shoot(path, name, keys))
            print(f"screenshots/{name}: {caption}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
