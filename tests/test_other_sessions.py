"""Where a quiet writer went on: the other sessions of a followed file's project written
to since its last write (``TranscriptFormat.written_since``), told under the header once
the writer has been quiet a while, and ``O`` opens the latest over the file."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from claude_code_writer import CCWriter
from codex_helpers import CHILD, day_dir
from codex_writer import SESSION, RolloutWriter, subagent
from helpers import app_loaded, screen_text, wait_for

from session_core.formats import by_name
from viewer.screens import other_sessions
from viewer.screens.model_screen import ModelScreen
from viewer.widgets import model_status

OLD = time.time() - 7200  # two hours ago
SIZE = (120, 24)


def cc_session(folder: Path, name: str, session: str, when: float | None = None) -> Path:
    w = CCWriter(session)
    w.user("hello")
    w.assistant("m1", [{"type": "text", "text": "hi"}])
    path = w.write(folder / name)
    if when is not None:
        os.utime(path, (when, when))
    return path


def test_claude_code_the_project_folders_sessions_written_since(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-work-proj"
    this = cc_session(project, "aaaa.jsonl", "aaaa", OLD)
    later = cc_session(project, "bbbb.jsonl", "bbbb")
    cc_session(project, "cccc.jsonl", "cccc", OLD)  # not written since
    cc_session(project, "agent-a1.jsonl", "aaaa")  # a 2.0.x subagent's file
    (project / "notes.jsonl").write_text('{"not": "a session"}\n')
    mine = cc_session(project / "aaaa" / "subagents", "agent-a2.jsonl", "aaaa")
    fmt = by_name("claude-code")
    assert fmt.written_since(str(this), OLD + 1) == [str(later)]
    assert fmt.written_since(str(this), time.time() + 1) == []
    assert fmt.written_since(str(mine), OLD + 1) == []  # a subagent goes on in its session


def rollout(day: Path, start: str, session: str, cwd: str, when: float | None = None) -> Path:
    w = RolloutWriter(day / f"rollout-{start}-{session}.jsonl")
    w.session_meta(session, cwd=cwd)
    w.message("user", "go")
    if when is not None:
        os.utime(w.path, (when, when))
    return Path(w.path)


def test_codex_the_projects_rollouts_started_since_and_written_since(tmp_path: Path) -> None:
    day = day_dir(tmp_path)
    this = rollout(day, "2026-02-23T12-00-00", SESSION, "/work/p", OLD)
    later = rollout(day, "2026-02-23T12-30-00", "019c0000-0000-7000-8000-0000000000a2", "/work/p")
    rollout(
        day, "2026-02-23T11-00-00", "019c0000-0000-7000-8000-0000000000a1", "/work/p"
    )  # before it
    rollout(day, "2026-02-23T12-40-00", "019c0000-0000-7000-8000-0000000000a3", "/work/other")
    subagent(str(day), SESSION, CHILD, f"rollout-2026-02-23T12-50-00-{CHILD}.jsonl")
    next_day = tmp_path / "sessions" / "2026" / "02" / "24"
    next_day.mkdir(parents=True)
    newest = rollout(
        next_day, "2026-02-24T09-00-00", "019c0000-0000-7000-8000-0000000000a4", "/work/p"
    )
    os.utime(newest, (time.time() + 5, time.time() + 5))  # (the latest written)
    fmt = by_name("codex")
    assert fmt.written_since(str(this), OLD + 1) == [str(newest), str(later)]
    child = day / f"rollout-2026-02-23T12-50-00-{CHILD}.jsonl"
    assert fmt.written_since(str(child), OLD + 1) == []  # a subagent's own: none


def test_the_formats_that_write_a_file_per_session_alone_say_none(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("")
    for name in ("transcript-v1", "agentgo-v1"):
        assert by_name(name).written_since(str(path), 0.0) == []
        assert not by_name(name).finds_other_sessions
    assert by_name("claude-code").finds_other_sessions and by_name("codex").finds_other_sessions


async def test_o_is_offered_only_where_the_format_can_name_another_session(
    tmp_path: Path,
) -> None:
    from story import write_story

    path = tmp_path / "t.jsonl"
    write_story(path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert screen.check_action("open_other", ()) is False
        await pilot.press("O")  # not offered: nothing happens, nothing is said
        await pilot.pause(0.1)
        assert app.screen is screen and not app._notifications
    project = tmp_path / "projects" / "-work-proj"
    async with app_loaded(cc_session(project, "a.jsonl", "a"), ModelScreen, SIZE) as (app, _):
        assert app.screen.check_action("open_other", ()) is True


async def test_a_quiet_writer_that_went_on_in_another_file_is_told_and_o_opens_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_status, "QUIET_AFTER", 0.5)
    monkeypatch.setattr(other_sessions, "LOOK_EVERY", 0.2)
    project = tmp_path / "projects" / "-work-proj"
    this = cc_session(project, "aaaa.jsonl", "aaaa")  # written now: live
    async with app_loaded(this, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        await wait_for(pilot, lambda: "quiet for" in screen_text(app), timeout=6)
        assert "Another session" not in screen_text(app)
        assert not any("went on" in title for title, _, _ in screen._palette())
        later = cc_session(project, "bbbb.jsonl", "bbbb")  # /clear: a new session file
        await wait_for(pilot, lambda: "Another session of this project" in screen_text(app))
        assert "bbbb.jsonl" in screen_text(app)
        titles = [(title, text) for title, text, _ in screen._palette()]
        assert ("Open the session the writer went on in", "bbbb.jsonl") in titles
        await pilot.press("O")
        await wait_for(pilot, lambda: app.screen is not screen)
        assert isinstance(app.screen, ModelScreen) and app.screen.path == str(later)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
