"""Export…'s path read as a shell reads it: relative to the working directory (a file
opened by a path with a folder, or from the browser), a trailing ``/``, a folder named
``~``, and ``..`` after a symlinked folder (the reviews)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import file_loaded, said, wait_for
from test_export import _palette_highlights

from session_core.export import export
from story import write_story
from viewer.cli import main


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path`` as the working directory, ``$HOME`` a folder of its own in it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


async def test_a_path_ending_in_a_slash_is_a_folder_not_a_file(here: Path) -> None:
    """``newdir/`` in the box wrote a file named ``newdir`` (``abspath`` dropped the
    ``/``, so the folder check never fired). It is refused, saying what to type."""
    from textual.widgets import Input

    from viewer.app import TailscopeApp
    from viewer.screens.export import ExportScreen
    from viewer.screens.model_screen import ModelScreen

    write_story(here / "run.jsonl")
    app = TailscopeApp("run.jsonl", force_polling=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        app.push_screen(ExportScreen("run.jsonl"))
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        box = app.screen.query_one("#export-path", Input)
        box.value = "newdir/"
        box.focus()
        await pilot.press("enter")
        status = app.screen.query_one("#export-status")
        await wait_for(pilot, lambda: "folder" in str(status.render()))
        assert str(status.render()) == (  # (not "is a folder": there is no newdir)
            "newdir/ names a folder, and there is none: name a file to export to"
        )
        (here / "newdir").mkdir()
        await pilot.press("enter")
        await wait_for(pilot, lambda: "is a folder" in str(status.render()))
        assert str(status.render()) == (
            "newdir/ is a folder: name a file in it, such as newdir/run.html"
        )
        await pilot.pause(0.3)
        assert isinstance(app.screen, ExportScreen)
    assert list((here / "newdir").iterdir()) == []


def test_export_o_ending_in_a_slash_is_refused(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tailscope export -o newdir/`` wrote a file ``newdir`` too (``realpath`` drops
    the ``/``), where ``> newdir/`` fails in a shell."""
    write_story(here / "run.jsonl")
    assert main(["export", "run.jsonl", "--format", "html", "-o", "newdir/"]) != 0
    # (not "is a directory": there is no newdir)
    said = "newdir/: ends in /, so it names a folder, and there is none"
    assert said in capsys.readouterr().err
    assert not (here / "newdir").exists()


@pytest.mark.skipif(not os.path.isfile("/proc/version"), reason="needs Linux's /proc")
def test_export_o_where_no_temporary_file_can_be_made_says_so(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-o /proc/version`` said "No such file or directory" of a file that is there: the
    temporary file an export is written to beside it could not be made."""
    write_story(here / "run.jsonl")
    assert main(["export", "run.jsonl", "--format", "md", "-o", "/proc/version"]) == 1
    err = capsys.readouterr().err
    assert "/proc/version: cannot make the export's temporary file beside it, in /proc" in err


async def test_a_folder_named_tilde_exports_beside_the_file(here: Path) -> None:
    """``tailscope '~/run.jsonl'`` (a folder named ``~``) offered ``~/run.html``, and
    enter wrote it into ``$HOME``: the path offered is ``./~/run.html`` now."""
    from viewer.app import TailscopeApp
    from viewer.screens.model_screen import ModelScreen

    (here / "~").mkdir()
    write_story(here / "~" / "run.jsonl")
    app = TailscopeApp("~/run.jsonl", force_polling=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        offered = await _export_through_the_palette(app, pilot)
    assert offered == os.path.join(".", "~", "run.html")
    assert (here / "~" / "run.html").read_text() == export("~/run.jsonl", "html", "replayed")
    assert list((here / "home").iterdir()) == []


async def test_dot_dot_after_a_symlinked_folder_is_read_as_a_shell_reads_it(here: Path) -> None:
    """``tailscope sym/../run.jsonl`` (``sym`` a link to ``real/sub``) opens
    ``real/run.jsonl``; its export went to ``./run.html`` (``abspath`` removes ``..``
    before the link is followed). It is written beside the file now."""
    from viewer.app import TailscopeApp
    from viewer.screens.model_screen import ModelScreen

    (here / "real" / "sub").mkdir(parents=True)
    (here / "sym").symlink_to(Path("real") / "sub")
    write_story(here / "real" / "run.jsonl")
    app = TailscopeApp("sym/../run.jsonl", force_polling=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        offered = await _export_through_the_palette(app, pilot)
    assert offered == os.path.join("sym", "..", "run.html")
    assert said(app, "Exported HTML to")
    assert (here / "real" / "run.html").read_text() == export(
        "sym/../run.jsonl", "html", "replayed"
    )
    assert not (here / "run.html").exists()


@pytest.fixture
def story(tmp_path: Path) -> Path:
    path = tmp_path / "story.jsonl"
    write_story(path, hostile=True)
    return path


async def _export_through_the_palette(app: Any, pilot: Any) -> str:
    """Export… from the palette, enter on the path offered: the path offered."""
    from textual.widgets import Input

    from viewer.screens.export import ExportScreen

    await app.run_action("command_palette")
    await pilot.press(*"Export")
    await wait_for(pilot, lambda: _palette_highlights(app, "Export"))
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
    offered = app.screen.query_one("#export-path", Input).value
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen), 10)
    return str(offered)


async def test_a_relative_path_with_a_folder_exports_beside_the_file(
    story: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cd parent && tailscope live/run.jsonl``: the dialog offered ``live/run.html`` and
    read it against the transcript's folder, so enter wrote ``live/live/run.html`` or
    failed (the UX audit's B1). The path offered and the path typed are both read
    against the working directory, as a shell reads them."""
    from viewer.app import TailscopeApp
    from viewer.screens.model_screen import ModelScreen

    (tmp_path / "live").mkdir()
    shutil.copy2(story, tmp_path / "live" / "run.jsonl")
    monkeypatch.chdir(tmp_path)
    app = TailscopeApp("live/run.jsonl", force_polling=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        offered = await _export_through_the_palette(app, pilot)
    assert offered == os.path.join("live", "run.html")
    assert said(app, f"Exported HTML to {tmp_path / 'live' / 'run.html'}")
    assert (tmp_path / "live" / "run.html").read_text() == export(
        "live/run.jsonl", "html", "replayed"
    )
    assert not (tmp_path / "live" / "live").exists()


async def test_a_file_opened_from_the_browser_exports_beside_it(
    story: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tailscope d`` (a relative folder), enter on a row, Export…: written beside the
    file, as from the file opened alone."""
    from viewer.app import TailscopeApp
    from viewer.screens.browser import BrowserScreen
    from viewer.screens.model_screen import ModelScreen

    (tmp_path / "d").mkdir()
    shutil.copy2(story, tmp_path / "d" / "run.jsonl")
    monkeypatch.chdir(tmp_path)
    app = TailscopeApp("d", force_polling=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, BrowserScreen) and bool(app.screen.order), 15
        )
        await pilot.press("enter")
        await file_loaded(pilot, ModelScreen)
        offered = await _export_through_the_palette(app, pilot)
    assert os.path.abspath(offered) == str(tmp_path / "d" / "run.html")
    assert (tmp_path / "d" / "run.html").read_text() == export(
        tmp_path / "d" / "run.jsonl", "html", "replayed"
    )
