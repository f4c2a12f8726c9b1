"""What was in flight, whole: a last line the writer left without its newline is read in
full from the warnings (``w``, then ``t``), as text, inert, in every format's file, a
compressed one too; the warning itself shows only its first bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text
from helpers import app_loaded, wait_for
from textual.widgets import TextArea

from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen
from viewer.screens.text_file import TextFileScreen
from viewer.screens.unfinished_line import MOVED
from viewer.screens.unfinished_line_screen import UnfinishedLineScreen
from viewer.screens.warnings import WarningsScreen

SIZE = (120, 30)


def _torn(path: Path, torn: bytes) -> Path:
    w = CCWriter()
    w.user("fix it")
    w.assistant("m1", [text("Fixed.")], stop="end_turn")
    w.write(path, torn=torn)
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (its writer is gone)
    return path


async def _opened(pilot, app) -> UnfinishedLineScreen:  # type: ignore[no-untyped-def]
    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(app.screen, WarningsScreen))
    await pilot.press("t")
    await wait_for(pilot, lambda: isinstance(app.screen, UnfinishedLineScreen))
    screen = app.screen
    assert isinstance(screen, UnfinishedLineScreen)
    await wait_for(pilot, lambda: screen.state != "loading")
    return screen


async def test_the_crash_tail_is_read_whole_from_the_warnings(tmp_path: Path) -> None:
    tail = b'{"type":"user","message":{"role":"user","content":"' + b"x" * 5000
    tail += "…\x1b[2J[bold]end".encode()
    path = _torn(tmp_path / "s.jsonl", tail)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WarningsScreen))
        said = app.screen.query("Static").results()
        hints = [str(s.render()) for s in said]
        assert any(f"t reads line 3 whole ({len(tail):,} bytes)" in h for h in hints)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, UnfinishedLineScreen))
        screen = app.screen
        assert isinstance(screen, UnfinishedLineScreen)
        await wait_for(pilot, lambda: screen.state == "here")
        body = screen.query_one("#text-body", TextArea).text
        assert body.startswith('{"type":"user"') and len(body) == len(tail.decode())
        assert body.endswith("…␛[2J[bold]end")  # inert: the escape is shown, not obeyed
        assert not screen.cut
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, WarningsScreen))


async def test_a_huge_crash_tail_is_cut_and_says_so(tmp_path: Path) -> None:
    tail = b'{"type":"assistant","message":{"content":"' + b"y" * 1_500_000
    path = _torn(tmp_path / "s.jsonl", tail)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = await _opened(pilot, app)
        assert screen.state == "here" and screen.cut
        assert len(screen.text) == screen.limit
        status = str(screen.query_one("#text-status").render())
        assert "the rest is cut" in status and f"{len(tail):,} bytes" in status


async def test_a_compressed_file_s_crash_tail_is_read_from_its_unpacked_bytes(
    tmp_path: Path,
) -> None:
    from codex_writer import zst_copy

    tail = b'{"type":"user","message":{"role":"user","content":"in flight'
    plain = _torn(tmp_path / "plain.jsonl", tail)
    path = Path(zst_copy(str(plain), str(tmp_path / "s.jsonl.zst")))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = await _opened(pilot, app)
        assert screen.text == tail.decode()


async def test_a_file_changed_since_says_the_line_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line named by a dialog opened before the file changed: ``t`` says it is not
    there any more. (The reset the cut brings renews an open dialog, the line it names
    with it: held back here, as in the moment before the follower looks again.)"""
    from viewer.screens.model_screen_following import ModelFollowingScreen

    monkeypatch.setattr(ModelFollowingScreen, "_renew_warnings", lambda self, why: None)
    tail = b'{"type":"user","message":{"role":"user","content":"in flight'
    path = _torn(tmp_path / "s.jsonl", tail)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        with path.open("r+b") as fh:  # (cut back under the viewer, before it looks again)
            fh.truncate(path.stat().st_size - len(tail) + 5)
        os.utime(path, (OLD_MTIME, OLD_MTIME))
        screen = await _opened(pilot, app)
        assert screen.state == "missing"
        assert MOVED in str(screen.query_one("#text-status").render())


async def test_without_an_unfinished_line_there_is_no_t(tmp_path: Path) -> None:
    path = _torn(tmp_path / "s.jsonl", b"")
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WarningsScreen))
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, WarningsScreen)
        assert not isinstance(app.screen, TextFileScreen)
