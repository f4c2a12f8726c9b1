"""Make the README's screenshot of the directory browser (screenshots/browser.svg).

Run: .venv/bin/python screenshots/make_browser.py
The directory is the browser tests' corpus (fixed ids and timestamps, old
mtimes), a Codex rollout and the subagent it spawned (listed under it), plus
one transcript whose writer is still running, so every status shows; that live
row's "last active" is the time the picture was taken.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The pictures in full colour, whatever terminal makes them (in 16 colours the app
# keeps text readable in its own way: ``viewer.readable_colours``).
os.environ["COLORTERM"] = "truecolor"
sys.path.insert(0, str(HERE.parent / "tests"))

from codex_helpers import family  # noqa: E402

from corpus import write_corpus  # noqa: E402
from session_core import Message, Session  # noqa: E402
from story import OLD_MTIME, fixed_ids  # noqa: E402
from viewer.app import TailscopeApp  # noqa: E402
from viewer.screens.browser import BrowserScreen  # noqa: E402

SIZE = (132, 42)


async def shoot(root: str) -> None:
    app = TailscopeApp(root)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            screen = app.screen
            if isinstance(screen, BrowserScreen) and screen.scanned_at:
                break
            await pilot.pause(0.02)
        await pilot.pause(0.3)
        await pilot.press("down", "down")  # a crashed file: the detail line says why
        await pilot.pause(0.3)
        app.save_screenshot(str(HERE / "browser.svg"))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        write_corpus(Path(tmp) / "runs")
        for rollout in family(Path(tmp) / "runs" / "codex"):
            os.utime(rollout, (OLD_MTIME, OLD_MTIME))
        live = Path(tmp) / "runs" / "live" / "nightly-refactor.jsonl"
        with (
            fixed_ids(seed=5),
            Session.create(live, meta={"agent": "sadna", "model": "kimi-k2"}) as s,
        ):
            s.append_message(Message(role="user", content="Refactor the parser."))
            s.append_message(Message(role="assistant", content="Reading it first."))
            asyncio.run(shoot("runs"))
    print("screenshots/browser.svg: the directory browser")
    return 0


if __name__ == "__main__":
    sys.exit(main())
