"""The Export… dialog's radio buttons tell the choice by their glyph: Textual's drew the
same ``●`` chosen or not, told apart by colour alone (in our theme a dark dot against a
green one; in a terminal without colour, not at all)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import file_loaded, screen_lines, snapshot_rerun, wait_for, written
from textual.pilot import Pilot

from story import write_story
from viewer.app import TailscopeApp
from viewer.screens.export import ExportScreen
from viewer.screens.model_screen import ModelScreen


@pytest.fixture
def story(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The story, named relative to the working directory (the path the dialog offers is
    then the same on every run: a snapshot's)."""
    written(tmp_path / "story.jsonl", write_story)
    monkeypatch.chdir(tmp_path)
    return Path("story.jsonl")


async def open_dialog(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, TailscopeApp)
    await file_loaded(pilot, ModelScreen)
    app.push_screen(ExportScreen("story.jsonl"))
    await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
    await pilot.pause()


def row_of(app: TailscopeApp, label: str) -> str:
    """The screen's row showing the radio button ``label``, from its button on."""
    rows = [row for row in screen_lines(app) if f" {label}" in row]
    assert rows, screen_lines(app)
    row = rows[0]
    return row[row.index(label) - 4 : row.index(label) + len(label)]


async def test_the_chosen_button_is_drawn_apart(story: Path) -> None:
    app = TailscopeApp(story)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot)
        assert row_of(app, "HTML") == "▐●▌ HTML"
        assert row_of(app, "Markdown") == "▐○▌ Markdown"
        assert row_of(app, "Replayed (sent next)") == "▐●▌ Replayed (sent next)"
        assert row_of(app, "Raw (as written)") == "▐○▌ Raw (as written)"
        markdown = app.screen.query_one("#export-format").children[0]
        await pilot.click(markdown)
        await wait_for(pilot, lambda: row_of(app, "Markdown") == "▐●▌ Markdown")
        assert row_of(app, "HTML") == "▐○▌ HTML"


@snapshot_rerun
def test_snapshot_the_export_dialog(story: Path, snap_compare: Any) -> None:
    assert snap_compare(TailscopeApp(story), terminal_size=(80, 24), run_before=open_dialog)
