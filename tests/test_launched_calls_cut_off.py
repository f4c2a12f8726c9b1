"""A call whose result only launched it in the background (a background ``Agent``:
``async_launched``; a teammate's spawn: ``teammate_spawned``), its subagent still at work
when the session's writer went (a background agent runs in its process): cut off, in
flight, on every surface in one wording. Its launch result is no user's stop (only a
result that says it was interrupted is), and its time is no end (never ``0s``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import app_loaded, screen_lines
from test_claude_code_background_agents import background_session, op_of, opened
from test_claude_code_teammates import team_session

from session_core.export_md import render_markdown
from session_core.exportdoc_model import model_document
from session_core.formats.base import check_note
from session_core.open_work import stopped_by_user
from session_core.scan import scan_file
from viewer.screens.model_screen import ModelScreen

IN_FLIGHT = "1 background tool call not finished"


def _background(folder: Path) -> tuple[Path, str]:
    return background_session(folder, finished=False), "toolu_bg"


def _teammate(folder: Path) -> tuple[Path, str]:
    return team_session(folder, finished=False), "toolu_tm"


MADE: dict[str, Callable[[Path], tuple[Path, str]]] = {
    "async_launched": _background,
    "teammate_spawned": _teammate,
}


def _gone(folder: Path) -> None:
    """Every file of the session last written long ago: its writer is gone."""
    for path in folder.rglob("*.jsonl"):
        os.utime(path, (1_000_000_000, 1_000_000_000))


@pytest.mark.parametrize("how", sorted(MADE))
def test_a_launched_call_cut_off_is_in_flight_not_stopped_by_the_user(
    how: str, tmp_path: Path
) -> None:
    session, call = MADE[how](tmp_path)
    t = opened(session, writer_alive=False)
    op = op_of(t, call)
    assert op.state == "interrupted" and op.launched
    assert op.ended is None  # (the launch result's time is no end)
    assert stopped_by_user(t) == 0
    assert IN_FLIGHT in check_note(t)
    md = render_markdown(model_document(t))
    assert f"| in flight | {IN_FLIGHT} |" in md
    row = next(
        line for line in md.splitlines() if f"| {call.replace('_', chr(92) + '_')} |" in line
    )
    assert "| ≥" in row and "| 0s |" not in row, row  # (at least how long, as the Tools tab)
    _gone(tmp_path)
    summary = scan_file(session)
    assert summary.status == "crashed" and summary.pending == 1


@pytest.mark.parametrize("how", sorted(MADE))
async def test_the_header_says_no_user_stopped_it(how: str, tmp_path: Path) -> None:
    session, _call = MADE[how](tmp_path)
    _gone(tmp_path)
    async with app_loaded(session, ModelScreen, (200, 30)) as (app, _pilot):
        header = " ".join(screen_lines(app)[1:6])
        assert "by the user" not in header, header
        assert "1 interrupted" in header and f"in flight: {IN_FLIGHT}" in header, header
