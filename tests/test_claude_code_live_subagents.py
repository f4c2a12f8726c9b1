"""A followed Claude Code session with its subagents: linked once the file has caught up
(the session's total in the header, as a whole read gives it), their files read again
only when they change, and at most every ``REFRESH`` seconds."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from claude_code_writer import (
    SESSION,
    STORY_USAGE,
    SUBAGENT_USAGE,
    CCWriter,
    story,
    text,
    tool_use,
    usage,
)
from helpers import app_on, follow_into, screen_lines, screen_text, wait_for

from session_core.following import FollowUpdate
from session_core.formats import CLAUDE_CODE, by_name
from session_core.formats.claude_code import subagents
from session_core.model import Transcript

FMT = by_name(CLAUDE_CODE)


def _sum(table: dict[str, tuple[int, int, int, int]], at: int) -> int:
    return sum(v[at] for v in table.values())


def followed(path: Path, block: int = 512) -> tuple[subagents.SubagentsLive, list[Transcript]]:
    live = FMT.live(str(path))
    assert isinstance(live, subagents.SubagentsLive)
    seen: list[Transcript] = []

    def apply(update: FollowUpdate) -> None:
        live.apply(update)
        seen.append(live.transcript(writer_alive=False))

    follow_into(apply, path, block, FMT.parsed_updates)
    return live, seen


def _aged(*folders: str) -> None:
    """``folders`` with an mtime of an hour ago (a folder changed a moment ago is looked
    at as changed by a live session's next look: its mtime is coarse)."""
    past = time.time() - 3600
    for folder in folders:
        os.utime(folder, (past, past))


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[Any, ...]]:
    """The calls of ``subagents.<name>`` from now on (each one's arguments)."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(subagents, name)

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(subagents, name, counted)
    return calls


def test_linked_once_caught_up_as_a_whole_read_links_them(tmp_path: Path) -> None:
    path = story(tmp_path, torn=False)
    _, seen = followed(path)
    assert len(seen) > 3
    assert all(not t.subagents for t in seen[:-1])  # while loading: the file's alone
    last = seen[-1]
    whole = FMT.open(path, writer_alive=False)
    assert [(s.id, s.call_id, s.usage) for s in last.subagents] == [
        (s.id, s.call_id, s.usage) for s in whole.subagents
    ]
    both = last.usage_with_subagents
    assert both is not None and both == whole.usage_with_subagents
    assert both.output_tokens == _sum(STORY_USAGE, 1) + _sum(SUBAGENT_USAGE, 1)


@pytest.fixture
def live(tmp_path: Path) -> subagents.SubagentsLive:
    """The story session, followed to its end."""
    return followed(story(tmp_path, torn=False))[0]


def test_a_subagent_file_is_read_again_only_when_it_changed(
    live: subagents.SubagentsLive, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = counting(monkeypatch, "read_builder")
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 0.0)
    first = live.transcript(writer_alive=True)
    assert reads == []  # unchanged since it was read: its usage is the one kept
    sub_path = first.subagents[0].path
    assert sub_path is not None
    more = CCWriter(agent_id="a1")
    more._n = 100  # uuids of its own, after the file's
    more.assistant("s3", [text("and more")], usage=usage(0, 1000, 0, 0), stop="end_turn")
    with open(sub_path, "ab") as fh:
        fh.write(more.write(tmp_path / "more.jsonl").read_bytes())
    grown = live.transcript(writer_alive=True)
    assert reads == [(sub_path,)]
    assert grown.subagents[0].usage.output_tokens == _sum(SUBAGENT_USAGE, 1) + 1000
    live.transcript(writer_alive=True)
    assert reads == [(sub_path,)]


def test_linked_again_without_reading_a_linked_call_again(
    live: subagents.SubagentsLive, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each link (every ``REFRESH`` seconds) takes a linked call's id and description as
    the first one took them: its line is not read and parsed again (1,854 of them took
    50-75 ms of the UI thread every 2 s)."""
    first = live.transcript(writer_alive=True)
    described = counting(monkeypatch, "_description")
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 0.0)
    again = live.transcript(writer_alive=True)
    assert described == []
    assert [(s.id, s.call_id, s.description, s.usage) for s in again.subagents] == [
        (s.id, s.call_id, s.description, s.usage) for s in first.subagents
    ]
    assert again.subagents and again.subagents[0].description


def test_not_linked_again_within_the_refresh(
    live: subagents.SubagentsLive, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = counting(monkeypatch, "attach")
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 3600.0)
    for _ in range(5):
        t = live.transcript(writer_alive=True)
        assert [s.id for s in t.subagents] == ["a1"]
    assert calls == []


async def test_the_header_shows_the_session_total(tmp_path: Path) -> None:
    path = story(tmp_path, torn=False)
    whole = FMT.open(path, writer_alive=False)
    both = whole.usage_with_subagents
    assert both is not None and both.tokens is not None
    async with app_on(path, (200, 40)) as (app, pilot):
        for _ in range(100):
            await pilot.pause(0.05)
            if "with 1 subagent" in screen_text(app):
                break
        text_now = screen_text(app)
    # (each style a span of its own: the total is the bold one after the words)
    assert "with 1 subagent" in text_now and f"{both.tokens:,} tok" in text_now


def test_read_ahead_reads_the_files_outside_the_lock_and_the_link_reads_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    path = story(tmp_path, torn=False)
    live = FMT.live(str(path))
    assert isinstance(live, subagents.SubagentsLive)
    lock = threading.RLock()
    held_while_reading: list[bool] = []
    real_read = subagents.read_builder

    def read(sub: str) -> Any:
        held_while_reading.append(lock._is_owned())  # type: ignore[attr-defined]
        return real_read(sub)

    monkeypatch.setattr(subagents, "read_builder", read)

    def apply(update: FollowUpdate) -> None:
        with lock:
            live.apply(update)
        caught_up = live.caught_up
        live.read_ahead(update, lock)
        assert bool(held_while_reading) == caught_up  # nothing read before it caught up

    follow_into(apply, path, 512, FMT.parsed_updates)
    assert held_while_reading == [False]  # the one subagent file, read without the lock
    live.read_ahead(FollowUpdate(caught_up=True), lock)  # once only
    assert len(held_while_reading) == 1
    linked = live.transcript(writer_alive=False)
    assert len(held_while_reading) == 1  # the link found it read
    whole = FMT.open(path, writer_alive=False)
    assert [(s.id, s.usage, s.messages) for s in linked.subagents] == [
        (s.id, s.usage, s.messages) for s in whole.subagents
    ]


async def test_a_link_made_before_its_call_came_is_made_again_once_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first link of a followed session came before the line of the Task call that
    names its subagent (the subagent's file was there, its call not yet); the snapshots
    within ``REFRESH`` put that link on as it was. A file gone quiet then would keep it
    for good (the audits: a followed session's subagent without its call, where a whole
    read names it): ``snapshot_due`` says so, and the next snapshot links it."""
    import asyncio

    from session_core.following import follow

    whole_path = story(tmp_path / "whole", torn=False)
    lines = whole_path.read_bytes().splitlines(keepends=True)
    path = tmp_path / "growing" / whole_path.name
    path.parent.mkdir()
    shutil.copytree(whole_path.with_suffix(""), path.with_suffix(""))
    path.write_bytes(b"".join(lines[:3]))  # (before any Task call)
    _aged(*subagents.agent_folders(str(path)))  # (no folder changes from here on)
    live = FMT.live(str(path))
    assert isinstance(live, subagents.SubagentsLive)
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 3600.0)
    updates = follow(path, force_polling=True, poll_interval=0.02)
    try:
        async for update in updates:
            live.apply(update)
            if update.caught_up:
                break
        early = live.transcript(writer_alive=False)
        assert [(s.id, s.call_id) for s in early.subagents] == [("a1", None)]
        with path.open("ab") as fh:
            fh.write(b"".join(lines[3:]))
        async for update in updates:
            live.apply(update)
            if update.caught_up and update.offset == path.stat().st_size:
                break
    finally:
        await asyncio.wait_for(updates.aclose(), 5)
    late = live.transcript(writer_alive=False)
    assert [(s.id, s.call_id) for s in late.subagents] == [("a1", None)]  # as it was
    assert not live.snapshot_due()  # (within REFRESH)
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 0.0)
    assert live.snapshot_due()
    now = live.transcript(writer_alive=False)
    assert not live.snapshot_due()  # (this one linked afresh)
    whole = FMT.open(whole_path, writer_alive=False)
    assert [(s.id, s.call_id, s.description) for s in now.subagents] == [
        (s.id, s.call_id, s.description) for s in whole.subagents
    ]
    assert whole.subagents[0].call_id is not None


async def test_the_screen_links_again_once_the_file_went_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer asks ``snapshot_due`` on its once-a-second tick: a session followed
    while its Task call came, then quiet, ends with the subagent linked to its call, as a
    whole read has it (no new line needed)."""
    from viewer.screens.model_screen import ModelScreen

    whole_path = story(tmp_path / "whole", torn=False)
    lines = whole_path.read_bytes().splitlines(keepends=True)
    path = tmp_path / "growing" / whole_path.name
    path.parent.mkdir()
    shutil.copytree(whole_path.with_suffix(""), path.with_suffix(""))
    path.write_bytes(b"".join(lines[:3]))
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 3600.0)
    async with app_on(path, (160, 40)) as (app, pilot):
        screen = app.screen
        for _ in range(200):
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, ModelScreen) and screen._loaded and screen.transcript.subagents:
                break
        assert isinstance(screen, ModelScreen)
        assert [s.call_id for s in screen.transcript.subagents] == [None]
        with path.open("ab") as fh:
            fh.write(b"".join(lines[3:]))
        for _ in range(200):
            await pilot.pause(0.05)
            if screen.transcript.lines == len(lines):
                break
        assert [s.call_id for s in screen.transcript.subagents] == [None]  # (linked as before)
        monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 0.0)
        for _ in range(60):
            await pilot.pause(0.05)
            if screen.transcript.subagents[0].call_id is not None:
                break
        whole = FMT.open(whole_path, writer_alive=False)
        assert [s.call_id for s in screen.transcript.subagents] == [
            s.call_id for s in whole.subagents
        ]


def _in_flight(folder: Path) -> Path:
    """A 2.1.x session whose last line is a teammate ``Agent`` call not answered yet (its
    session writes nothing while its subagent works), no subagent file yet."""
    w = CCWriter()
    w.user("start")
    w.assistant(
        "m1",
        [tool_use("t1", "Agent", description="Scout", prompt="scout the repo")],
        usage=usage(10, 20, 0, 0),
        stop="tool_use",
    )
    return w.write(folder / f"{SESSION}.jsonl")


def _grow(path: Path, sub: CCWriter) -> None:
    """The subagent's file as its writer has it now (its lines appended as they come)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = b"".join(orjson.dumps(line) + b"\n" for line in sub.lines)
    with path.open("ab") as fh:
        fh.write(body[path.stat().st_size if path.exists() else 0 :])


async def test_a_subagent_file_that_comes_and_grows_while_its_session_is_quiet(
    tmp_path: Path,
) -> None:
    """The audit: a teammate ``Agent`` call in flight, its session's file quiet, its
    subagent's file written: the tab said "its file is not known" for 30 s, then kept
    the count of its first link. Its file's coming and growing make a snapshot that
    links it again (on the screen's tick, at most every ``REFRESH``), no new line of the
    session's needed."""
    from viewer.screens.model_screen import ModelScreen
    from viewer.widgets.subagents_pane import SubagentsPane

    path = _in_flight(tmp_path)
    sub_path = tmp_path / SESSION / "subagents" / "agent-b7.jsonl"
    sub = CCWriter(agent_id="b7")
    sub.user("scout the repo", parent=None)

    def row() -> str:
        return next((line for line in screen_lines(app) if "Scout" in line), "")

    async with app_on(path, (160, 40)) as (app, pilot):
        await wait_for(pilot, lambda: isinstance(app.screen, ModelScreen) and app.screen._loaded)
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: "its file is not known" in row())
        for n in range(1, 4):
            sub.assistant(f"s{n}", [text(f"step {n}")], usage=usage(1, 1000, 0, 0), stop="end_turn")
            sub.user(f"go on {n}")
            _grow(sub_path, sub)
            messages, tokens = 1 + 2 * n, f"{1001 * n:,} tok"

            def shown(said: str = tokens) -> bool:
                return said in row()

            await wait_for(pilot, shown, timeout=8.0)
            assert "agent-b7" in row() and f" {messages} " in row(), row()
            # (the session's total with it; its work in flight may take a counts line)
            header = " ".join(screen_lines(app)[:5])
            assert f"with 1 subagent {30 + 1001 * n:,} tok" in header, header
        assert pane.table.row_count == 1
