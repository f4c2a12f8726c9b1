"""The TypeScript Codex CLI's sessions (spring 2025: ``~/.codex/sessions/rollout-*.json``,
one JSON document each) are rows of the browser that say what they are, as every other
command says it (an audit: the browser left them out, "No session's file below …" where
they were all there was). Only names a format gives such documents are opened."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from helpers import screen_lines
from test_browser import browser, scanned, until

from session_core.scan import list_transcript_paths, scan_dir
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen

REAL = Path(__file__).parent / "fixtures" / "codex-real"
TS_NAME = "rollout-2025-04-20-1e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b.json"
SAID = (
    "a rollout of the TypeScript Codex CLI (2025: one JSON document, {session, items}, "
    "not JSON lines), which tailscope does not read"
)


def sessions(tmp_path: Path, *, with_rust: bool = False) -> Path:
    """A Codex home's sessions folder, flat as the TypeScript CLI wrote it: its rollout,
    a JSON file of another program beside it, and (``with_rust``) a Rust CLI's rollout
    in its dated folder."""
    root = tmp_path / ".codex" / "sessions"
    root.mkdir(parents=True)
    shutil.copy(REAL / "typescript-cli-2025.json", root / TS_NAME)
    (root / "settings.json").write_text('{"session": {"id": "x"}, "items": []}\n')
    if with_rust:
        day = root / "2025" / "08" / "05"
        day.mkdir(parents=True)
        shutil.copy(REAL / "bare-0.34.jsonl", day / "rollout-2025-08-05T12-00-00-0198a3c2.jsonl")
    return root


def test_the_walk_lists_the_document_by_its_name_alone(tmp_path: Path) -> None:
    root = sessions(tmp_path, with_rust=True)
    paths, problems = list_transcript_paths(root)
    names = [os.path.basename(p) for p in paths]
    # (``settings.json`` holds the same shape: a name no format gives is never opened)
    assert names == ["rollout-2025-08-05T12-00-00-0198a3c2.jsonl", TS_NAME] and not problems
    rows = {s.rel: s for s in scan_dir(root)}
    row = rows[TS_NAME]
    assert (row.status, row.reason, row.format) == ("not-a-transcript", SAID, None)
    assert row.messages is None and row.tokens is None  # (nothing counted, none said 0)
    assert rows["2025/08/05/rollout-2025-08-05T12-00-00-0198a3c2.jsonl"].format == "codex"


def test_a_rollout_name_holding_no_such_document_is_said_as_any_other(tmp_path: Path) -> None:
    (tmp_path / "rollout-2025-04-21-0000.json").write_text('{"note": 1}\n')
    (row,) = scan_dir(tmp_path)
    assert row.status == "not-a-transcript" and "its first line is neither" in (row.reason or "")


async def test_the_browser_shows_it_and_opening_it_says_what_it_is(tmp_path: Path) -> None:
    root = sessions(tmp_path)
    os.utime(root / TS_NAME, (1745100000, 1745100000))  # (its writer long gone)
    app = TailscopeApp(root)
    async with app.run_test(size=(120, 24)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        path = str(root / TS_NAME)
        assert screen.order == [path]
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "No session's file below" not in text
        assert f"other: {SAID}" in text, text
        assert "1 file" in text and "1 other" in text
        assert screen.cell_text(path, "status") == "other"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ModelScreen), 20.0)
        await until(
            pilot,
            lambda: f"This file is {SAID}" in " ".join(" ".join(screen_lines(app)).split()),
            20.0,
        )
        await pilot.pause()
        # (its error alone, as every command gives it: no rows of its lines, no warning
        # of its last line's "crash tail", no promise it is shown once it is one)
        model = app.screen
        assert isinstance(model, ModelScreen)
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "not a transcript: is" not in text and "followed" not in text, text
        assert "(not applied)" not in text and "55 lines" not in text, text
        assert "nothing of it is counted" in text and "1 warning" in text, text
        assert not model.transcript.raw and model.transcript.warnings == [f"This file is {SAID}"]


async def test_mixed_with_rust_rollouts_it_is_counted(tmp_path: Path) -> None:
    root = sessions(tmp_path, with_rust=True)
    app = TailscopeApp(root)
    async with app.run_test(size=(120, 24)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        assert screen.table.row_count == 2
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "2 files" in text and "1 other" in text, text
        # one written later (a copy brought back, say) comes as a row, as a .jsonl does
        later = root / "rollout-2025-04-22-2e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b.json"
        shutil.copy(REAL / "typescript-cli-2025.json", later)
        await until(pilot, lambda: str(later) in screen.rows, 20.0)  # (a loaded machine)
        assert screen.rows[str(later)].reason == SAID


def test_its_row_starts_when_its_document_says(tmp_path: Path) -> None:
    """Its row showed no start: the document's own ``session.timestamp`` is it (read from
    the document parsed to say what it is); one that says none shows its file's day,
    said so (``file 04-20``: when it was written, not begun), and its detail says why."""
    from viewer.browser_cells import detail, started_cell

    root = sessions(tmp_path)
    os.utime(root / TS_NAME, (1745200000, 1745200000))  # (2025-04-21, after its start)
    rows = {s.rel: s for s in scan_dir(root)}
    row = rows[TS_NAME]
    assert row.started == "2025-04-20T10:00:00.000Z" and not row.started_by_file
    assert started_cell(row).plain == "04-20 10:00"
    assert "started 2025-04-20 10:00:00 UTC" in detail(row, TS_NAME).plain
    unsaid = root / "rollout-2025-04-23-3e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b.json"
    unsaid.write_text('{"session": {"id": "x"}, "items": []}\n')
    os.utime(unsaid, (1745400000, 1745400000))  # (2025-04-23 09:20 UTC)
    (other,) = (s for s in scan_dir(root) if s.path == str(unsaid))
    assert other.reason == SAID and other.started is None and other.started_by_file
    assert started_cell(other).plain == "file 04-23"
    said = detail(other, unsaid.name).plain
    assert "no start said: file written 2025-04-23 09:20:00 UTC" in said, said


async def test_the_filter_finds_a_row_by_its_reason(tmp_path: Path) -> None:
    """``/typescript`` found nothing: the filter looked at a row's name, agent, model and
    status, not what the line under the table says of it."""
    root = sessions(tmp_path, with_rust=True)
    app = TailscopeApp(root)
    async with app.run_test(size=(120, 24)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        await pilot.press("slash", *"typescript", "enter")
        await until(pilot, lambda: screen.order == [str(root / TS_NAME)], 5.0)
        assert screen.cell_text(str(root / TS_NAME), "started") == "04-20 10:00"
