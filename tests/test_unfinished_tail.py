"""A last line without its newline: a writer still at it, or a crash tail. Once the
writer is gone the viewer says so among its warnings (as ``replay`` does); while it may
be writing, nothing is said, and a line finished later is read."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text
from helpers import app_loaded, wait_for

from session_core.following import FollowUpdate
from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen

SIZE = (120, 24)
SAID = "has no newline: the writer left it unfinished"


def _torn(path: Path) -> Path:
    w = CCWriter()
    w.user("fix it")
    w.assistant("m1", [text("Fixed.")], stop="end_turn")
    return w.write(path, torn=b'{"type":"user","message":{"role":"us')


async def test_a_crash_tail_is_a_warning_once_the_writer_is_gone(tmp_path: Path) -> None:
    path = _torn(tmp_path / "s.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, SIZE) as (app, _pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        assert screen.held_line == 3
        (said,) = [w for w in screen.transcript.warnings if SAID in w]
        assert said.startswith("line 3 ")
        # what was in flight, as replay says it: its size and first bytes
        assert said.endswith('its 36 bytes begin {"type":"user","message":{"role":"us')


async def test_a_line_being_written_is_no_warning_and_is_read_once_ended(
    tmp_path: Path,
) -> None:
    w = CCWriter()
    w.user("fix it")
    w.assistant("m1", [text("Fixed.")], stop="end_turn")
    w.user("thanks")
    body = w.write(tmp_path / "whole.jsonl").read_bytes()
    cut = len(body) - 40  # the last line, being written (its writer may be at work)
    path = tmp_path / "s.jsonl"
    path.write_bytes(body[:cut])
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        assert screen.held_line == 3
        assert not any(SAID in w for w in screen.transcript.warnings)
        with path.open("ab") as fh:  # the writer ends it
            fh.write(body[cut:])
        await wait_for(pilot, lambda: "thanks" in [m.text for m in screen.transcript.messages])
        assert screen.held_line == 0
        assert not any(SAID in w for w in screen.transcript.warnings)


def test_follow_says_what_it_holds_back() -> None:
    assert FollowUpdate().held == FollowUpdate().held_line == 0


async def test_a_line_torn_while_followed_is_said_once_the_writer_is_gone(
    tmp_path: Path,
) -> None:
    """The torn line comes after the load (a writer killed mid-line while watched): the
    follower says it holds it back, and the viewer warns of it once the writer is gone."""
    w = CCWriter()
    w.user("fix it")
    w.assistant("m1", [text("Fixed.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        assert screen.held_line == 0
        with path.open("ab") as fh:  # killed mid-line
            fh.write(b'{"type":"user","message":{"role":"us')
        os.utime(path, (OLD_MTIME, OLD_MTIME))  # (and long gone since)
        await wait_for(pilot, lambda: screen.held_line == 3)
        await wait_for(
            pilot,
            lambda: any(SAID in w and w.startswith("line 3 ") for w in screen.transcript.warnings),
        )
