"""The model screen over the real claude-code and codex samples (copied to a temporary
directory; skipped where ../shared/samples is not here, or the format not registered)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from codex_writer import message_line
from helpers import SAMPLES, fingerprint, screen_text, wait_for
from model_screen_helpers import IDLE, opened, until

from session_core.formats import names
from viewer.screens.model_screen import ModelScreen

CLAUDE = "claude-code/projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CODEX = (
    "codex/sessions/2026/02/23/"
    "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
)


def sample(tmp_path: Path, fmt: str, rel: str) -> Path:
    if fmt not in names():
        pytest.skip(f"the {fmt} format is not registered yet")
    source = SAMPLES / rel
    if not source.is_file():
        pytest.skip("../shared/samples is not here")
    target = tmp_path / source.name
    shutil.copyfile(source, target)
    os.utime(target, (IDLE, IDLE))
    return target


LIVE_LINES = {
    "claude-code": {
        "type": "user",
        "uuid": "live-append-1",
        "parentUuid": None,
        "isSidechain": False,
        "timestamp": "2030-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": "LIVE-APPEND-MARKER"},
    },
    "codex": message_line("2030-01-01T00:00:00.000Z", "user", "LIVE-APPEND-MARKER"),
}


@pytest.mark.parametrize(("fmt", "rel"), [("claude-code", CLAUDE), ("codex", CODEX)])
async def test_a_real_sample(tmp_path: Path, fmt: str, rel: str) -> None:
    path = sample(tmp_path, fmt, rel)
    before = fingerprint(path)
    async with opened(path) as (app, pilot, screen):
        view = screen.conversation
        assert view.cursor == len(view.items) - 1 and view.items
        # Raw: every line, the records that are not messages among them.
        await pilot.press("r")
        await until(pilot, lambda: view.mode == "raw", "the raw view")
        assert len(view.items) >= len(screen.transcript.messages)
        assert any(item.kind != "message" for item in view.items)
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count > 0, "tool operations")
        states = set(table.column_cells("state"))
        assert states and states <= {op.label for op in screen.transcript.tool_operations}
        assert fingerprint(path) == before
        # A line written while the file is shown appears (in the raw view at least).
        with path.open("a") as fh:
            fh.write(json.dumps(LIVE_LINES[fmt]) + "\n")
        await pilot.press("1")
        await until(
            pilot,
            lambda: any("LIVE-APPEND-MARKER" in p.text for p in view.items[-1].parts),
            "the appended line",
        )
        assert "LIVE-APPEND-MARKER" in screen_text(app)


@pytest.mark.parametrize(("fmt", "rel"), [("claude-code", CLAUDE), ("codex", CODEX)])
async def test_the_screen_reads_the_snapshot_only_under_the_state_lock(
    tmp_path: Path, fmt: str, rel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot shares the live model's columns, which the follow worker extends under
    the state lock: the header's once-a-second refresh read them without it, and a codex
    run followed at 10,000 lines/s died of "dictionary changed size during iteration".
    Each time the header counts the operations, a replay (another thread) must be shut
    out."""
    import threading

    import viewer.widgets.model_status as model_status

    path = sample(tmp_path, fmt, rel)
    shut_out: list[bool] = []
    counted = model_status.unsettled_ops
    screens: list[ModelScreen] = []

    def unsettled(ops: object) -> object:
        if screens:
            got: list[bool] = []
            lock = screens[0].state_lock
            other = threading.Thread(target=lambda: got.append(lock.acquire(blocking=False)))
            other.start()
            other.join()
            if got[0]:
                lock.release()
            shut_out.append(not got[0])
        return counted(ops)  # type: ignore[arg-type]

    monkeypatch.setattr(model_status, "unsettled_ops", unsettled)
    async with opened(path) as (_app, pilot, screen):
        screens.append(screen)
        shut_out.clear()
        screen._tick()  # the header's timer
        screen.action_show_tab("tools")
        with path.open("a") as fh:
            fh.write(json.dumps(LIVE_LINES[fmt]) + "\n")
        await until(pilot, lambda: len(shut_out) >= 3, "the header drawn after the append")
        assert shut_out and all(shut_out), shut_out


async def test_a_response_over_lines_apart_says_how_many(tmp_path: Path) -> None:
    """A Claude Code response split over lines 18, 19, 20, 23, 26, 29, 32 and 35 read
    "lines 18-25" (its first line and its count as a range: the viewer audit); it is
    "8 lines from line 18"."""
    path = sample(tmp_path, "claude-code", CLAUDE)
    async with opened(path) as (_app, _pilot, screen):
        view = screen.conversation
        index = next(i for i, item in enumerate(view.items) if item.line == 18)
        assert view.items[index].lines == 8
        header = view.rendered_text(index).splitlines()[0]
        assert "8 lines from line 18" in header and "18-25" not in header, header


async def test_the_diff_tab_counts_the_browsers_messages(tmp_path: Path) -> None:
    """The browser's "msgs" (59) was no number the viewer showed (it said 61 sent next,
    135 raw items: the viewer audit); the diff tab gives it, by the same name."""
    from session_core.scan import scan_file

    path = sample(tmp_path, "claude-code", CLAUDE)
    listed = scan_file(path).messages
    async with opened(path) as (app, pilot, _screen):
        await pilot.press("4")
        await wait_for(pilot, lambda: f"({listed} messages)" in screen_text(app))
