"""Export…'s path read as a shell reads it: a trailing ``/``, a folder named ``~``, and
``..`` after a symlinked folder (the review's B1–B3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import file_loaded, said, wait_for
from test_export import _export_through_the_palette

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
        assert str(status.render()) == (
            "newdir/ is a folder: name a file in it, such as newdir/run.html"
        )
        await pilot.pause(0.3)
        assert isinstance(app.screen, ExportScreen)
    assert not (here / "newdir").exists()


def test_export_o_ending_in_a_slash_is_refused(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tailscope export -o newdir/`` wrote a file ``newdir`` too (``realpath`` drops
    the ``/``), where ``> newdir/`` fails in a shell."""
    write_story(here / "run.jsonl")
    assert main(["export", "run.jsonl", "--format", "html", "-o", "newdir/"]) != 0
    assert "newdir/: is a directory" in capsys.readouterr().err
    assert not (here / "newdir").exists()


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
