"""A writer seen holding its file's lock, and gone, is gone for every read path of the
process: the viewer's export said "running" of a call its own screen said was
interrupted (the lock it saw gone), since the export asked afresh and a fresh file of a
format whose writers may not lock has "maybe" a writer (a v1/agentgo audit)."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import app_loaded, wait_for

from session_core import Session
from session_core.export import export
from session_core.formats import V1, by_name
from session_core.writers import lock_seen, writer_holds_lock
from viewer.screens.model_screen import ModelScreen


def test_a_lock_seen_and_gone_is_no_writer(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    s = Session.create(path, meta={"agent": "x"})
    s.append_tool_dispatched("call_1", "bash", {"command": "sleep 600"})
    assert not lock_seen(path)
    assert writer_holds_lock(path) is True  # (what the viewer's dot asks, twice a second)
    assert lock_seen(path)
    s.close()  # (the writer gone, the file fresh: a v1 reader cannot tell by its age)
    assert by_name(V1).writer_alive(path) is False
    assert "running when the writer died" in export(path, "md")  # (v1's interrupted)
    other = tmp_path / "other.jsonl"
    Session.create(other, meta={"agent": "y"}).close()
    os.utime(other)
    assert by_name(V1).writer_alive(other) is None  # (never seen locked: maybe a writer)


def test_a_file_written_after_its_lock_was_let_go_has_a_writer_again(tmp_path: Path) -> None:
    """A lock seen and let go said "gone" for the process's life: a resumed run whose
    writer does not lock (the reference's, a plain appender) read as dead while it
    wrote. The file written since the lock went is forgotten, and judged by its age."""
    path = tmp_path / "t.jsonl"
    s = Session.create(path, meta={"agent": "x"})
    s.append_tool_dispatched("call_1", "bash", {"command": "sleep 600"})
    assert writer_holds_lock(path) is True
    s.close()
    v1 = by_name(V1)
    assert v1.writer_alive(path) is False  # (gone at once: the lock let go)
    assert v1.writer_alive(path) is False  # (and again, the file as it was)
    with open(path, "ab") as fh:  # (another writer, one that takes no lock)
        fh.write(b"\n")
    assert v1.writer_alive(path) is None  # (fresh: maybe a writer, as any such file)
    assert not lock_seen(path)
    os.utime(path, (1, 1))
    assert v1.writer_alive(path) is False  # (and once idle, none, by its age)


async def test_the_viewer_sees_a_writer_again_after_the_lock_it_saw_went(tmp_path: Path) -> None:
    """The screen kept its own memory of the lock it saw ("the writer is gone, however
    fresh the file"): a call read interrupted while another writer went on appending."""
    path = tmp_path / "t.jsonl"
    s = Session.create(path, meta={"agent": "x"})
    s.append_tool_dispatched("call_1", "bash", {"command": "sleep 600"})
    async with app_loaded(path, ModelScreen, (120, 24)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        state = lambda: screen.transcript.op_for_call("call_1").state  # noqa: E731
        await wait_for(pilot, lambda: screen.live_label() == "live" and state() == "running")
        s.close()
        screen._live_at = -1.0
        # (ended, not idle: the writer this view saw went, a file quiet as any)
        await wait_for(pilot, lambda: screen.live_label() == "ended" and state() == "interrupted")
        with open(path, "ab") as fh:  # (a writer that takes no lock goes on)
            fh.write(b"\n")
        screen._live_at = -1.0
        await wait_for(pilot, lambda: screen.live_label() == "live" and state() == "running")
        os.utime(path, (1, 1))  # (that writer quiet since: idle, as any file, not ended)
        screen._live_at = -1.0
        await wait_for(pilot, lambda: screen.live_label() == "idle")
