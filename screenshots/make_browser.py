"""Make the README's screenshot of the directory browser (screenshots/browser.svg).

Run: .venv/bin/python screenshots/make_browser.py
The directory is the browser tests' corpus (fixed ids and timestamps, old
mtimes), a Codex rollout and the subagent it spawned (listed under it), plus
one transcript whose writer is still running, so every status shows. That live
row's "last active" is the later of its last record's time and its file's mtime (its
writer is at work now): the mtime is set to a fixed time (``LIVE_MTIME``), so that the
picture is the same at every run, not the time it was taken.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from datetime import UTC, datetime
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
# The live file's mtime, whenever the picture is taken (its lock, not its mtime, makes
# it live): after every other file's last activity (the corpus's latest, 08-09 14:00),
# so that its row is first, "sorted by last active", as it is while a writer works.
LIVE_MTIME = datetime(2026, 8, 9, 14, 2, tzinfo=UTC).timestamp()


async def shoot(root: str, out: Path) -> None:
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
        app.save_screenshot(str(out))


def main(out: Path = HERE / "browser.svg") -> int:
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
            os.utime(live, (LIVE_MTIME, LIVE_MTIME))
            asyncio.run(shoot("runs", out))
    print("screenshots/browser.svg: the directory browser")
    return 0


if __name__ == "__main__":
    sys.exit(main())
