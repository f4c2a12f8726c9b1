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
# The pictures in full colour, whatever terminal makes them (in 16 colours the app
# keeps text readable in its own way: ``viewer.readable_colours``).
os.environ["COLORTERM"] = "truecolor"
sys.path.insert(0, str(HERE.parent / "tests"))

from agentgo_story import fixed_agentgo_ids  # noqa: E402
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
AGENTGO_SHOTS: list[tuple[str, Sequence[str], str]] = [
    ("agentgo-runs.svg", ("1",), "an agentgo session: its runs"),
    ("agentgo-calls.svg", ("2", "e"), "an agentgo session: the call tree and a call's detail"),
    ("agentgo-timeline.svg", ("5", "G"), "an agentgo session: the timeline"),
]

# The two read-only formats, written by the demo's recorders of them.
MODEL_SHOTS: list[tuple[str, str, Sequence[str], str]] = [
    ("claude-code", "claude-code.svg", (), "a Claude Code session: the conversation's end"),
    ("claude-code", "claude-code-tools.svg", ("2",), "a Claude Code session: tool operations"),
    ("claude-code", "claude-code-subagents.svg", ("5",), "a Claude Code session: its subagents"),
    ("codex", "codex.svg", (), "a Codex rollout: the conversation's end"),
    ("codex", "codex-runs.svg", ("3",), "a Codex rollout: turns and their contexts"),
]


async def shoot(path: Path, name: str, keys: Sequence[str]) -> None:
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            if getattr(app.screen, "_loaded", False):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.3)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        app.save_screenshot(str(HERE / name))


def write_crashed(path: Path, fmt: str) -> None:
    """The demo run, written by a child process that then dies as the demo's writer does
    (its session never closed), so the picture shows a crashed run, not a live one."""
    pid = os.fork()
    if pid == 0:
        with fixed_ids(seed=11), fixed_agentgo_ids(seed=11):
            simulate_run(str(path), speed=0, crash=True, format=fmt)
        os._exit(0)
    os.waitpid(pid, 0)
    os.utime(path, (OLD_MTIME, OLD_MTIME))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "agent-run.jsonl"
        write_crashed(path, "transcript-v1")
        for name, keys, caption in SHOTS:
            asyncio.run(shoot(path, name, keys))
            print(f"screenshots/{name}: {caption}")
        session = Path(tmp) / "agentgo-run.jsonl"
        write_crashed(session, "agentgo-v1")
        for name, keys, caption in AGENTGO_SHOTS:
            asyncio.run(shoot(session, name, keys))
            print(f"screenshots/{name}: {caption}")
        for fmt in ("claude-code", "codex"):
            written = Path(tmp) / f"{fmt}.jsonl"
            write_crashed(written, fmt)
            for shot_fmt, name, keys, caption in MODEL_SHOTS:
                if shot_fmt == fmt:
                    asyncio.run(shoot(written, name, keys))
                    print(f"screenshots/{name}: {caption}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
