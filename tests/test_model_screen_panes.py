"""A format's own panes on the model screen, hosted through the ``viewer.formats``
registry (a plugin's pane set over the tests' toy format), and the screen naming no
format."""

from __future__ import annotations

import ast
import inspect
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import ClassVar

import pytest
from helpers import screen_text
from model_screen_helpers import opened, until
from model_toy import NAME, ToyFormat, toy_registered, write_toy
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Static

from session_core.formats import FORMATS
from viewer.app import TailscopeApp
from viewer.format_screens import screen_for
from viewer.formats import PANE_SETS, ExtraPane, PaneSet, pane_set_for, panes_missing
from viewer.screens.model_screen import ModelScreen


class ToyPanes(PaneSet):
    """A plugin's pane set: one pane, one key, told of every batch."""

    PANES = (
        ExtraPane(
            "notes",
            "Notes",
            lambda: Static("the toy's own notes", id="toy-notes"),
            "Show the notes",
            "The toy's own notes",
        ),
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("z", "count", "Count")]

    def __init__(self, screen: object) -> None:
        super().__init__(screen)
        self.batches = 0
        self.counted = 0
        self.shown: list[str] = []

    def followed(self, reset: bool) -> None:
        self.batches += 1

    def tab_shown(self, tab: str) -> None:
        self.shown.append(tab)

    def status(self) -> list[str]:
        return [f"toy panes: {self.batches} batches"]

    def action_count(self) -> None:
        self.counted += 1


@asynccontextmanager
async def toy_with_panes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen, ToyPanes, Path]]:
    """The toy format with a plugin's pane set (``ToyPanes``), its file opened."""
    monkeypatch.setattr(ToyFormat, "extra_panes", ("notes",))
    monkeypatch.setitem(PANE_SETS, NAME, ToyPanes)
    with toy_registered():
        path = write_toy(tmp_path / "toy.jsonl")
        async with opened(path) as (app, pilot, screen):
            panes = screen.panes
            assert isinstance(panes, ToyPanes)
            yield app, pilot, screen, panes, path


async def test_a_formats_own_pane_is_hosted_through_the_seam(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with toy_with_panes(tmp_path, monkeypatch) as (app, pilot, screen, panes, _path):
        assert panes.batches >= 1
        assert [tab.id for tab in screen.TABS] == [*(t.id for t in ModelScreen.TABS), "notes"]
        assert "toy panes:" in screen_text(app)  # its line of the header
        await pilot.press("5")
        assert screen.query_one("#tabs").active == "notes"  # type: ignore[attr-defined]
        assert panes.shown[-1] == "notes" and "the toy's own notes" in screen_text(app)
        await pilot.press("z")  # its key, an action of the pane set
        assert panes.counted == 1
        await pilot.press("1")
        assert screen.query_one("#tabs").active == "conversation"  # type: ignore[attr-defined]
        # the palette shows it, by the command its pane names
        (show,) = [c for c in screen._palette() if c[0] == "Show the notes"]
        assert show[1] == "The toy's own notes"
        show[2]()
        await pilot.pause()
        assert screen.query_one("#tabs").active == "notes"  # type: ignore[attr-defined]


async def test_a_pane_set_follows_at_the_draws_pace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fast writer's appends, held back by the draw throttle, reach a format's panes
    together with the draw that shows them, not one call each (agentgo's call tree,
    told of every append of a 1 GB session, lagged by seconds)."""
    import viewer.screens.model_screen_following as drawing

    async with toy_with_panes(tmp_path, monkeypatch) as (_app, pilot, screen, panes, path):
        await until(pilot, lambda: screen.panes_ready, "the panes")
        monkeypatch.setattr(drawing, "DRAW_SHARE_FOLLOWING", 0.5)
        screen._draw_cost = 0.4  # the next draw may come 0.8 s after the last
        screen._drawn_at = __import__("time").monotonic()
        before = panes.batches
        for n in range(3):
            with path.open("a") as fh:
                line = {"id": f"p{n}", "type": "msg", "role": "user", "text": "x"}
                fh.write(json.dumps(line) + "\n")
            await until(pilot, lambda n=n: screen.live.transcript().raw[-1].id == f"p{n}", "read")
        assert screen._pending and panes.batches == before  # held back with the draw
        await until(pilot, lambda: not screen._pending, "the held appends, drawn", 3)
        assert panes.batches == before + 1
        assert screen.conversation.items[-1].id == "p2"


PLUGIN_PANES = """
from textual.widgets import Static

from viewer.formats import ExtraPane, PaneSet, register_panes


class PluginPanes(PaneSet):
    PANES = (ExtraPane("notes", "Notes", lambda: Static("a plugin's notes"), "Notes", "Notes"),)


register_panes("toy-model", PluginPanes)
"""


async def test_a_plugins_panes_come_from_the_module_its_format_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A format's pane set is found as the built-ins' are: its format names the module
    that registers it (a string: the core imports no viewer), imported when first shown."""
    module = "toy_plugin_panes"
    (tmp_path / f"{module}.py").write_text(PLUGIN_PANES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(ToyFormat, "extra_panes", ("notes",))
    monkeypatch.setattr(ToyFormat, "viewer_module", module)
    try:
        with toy_registered():
            path = write_toy(tmp_path / "toy.jsonl")
            async with opened(path) as (app, pilot, screen):
                assert type(screen.panes).__name__ == "PluginPanes"
                assert [tab.id for tab in screen.TABS][-1] == "notes"
                await pilot.press("5")
                assert "a plugin's notes" in screen_text(app)
    finally:
        PANE_SETS.pop(NAME, None)
        sys.modules.pop(module, None)


@pytest.mark.parametrize(
    ("viewer_module", "said"),
    [(None, "no pane set gives nowhere"), ("no_such_viewer_module", "no_such_viewer_module")],
)
async def test_a_format_whose_panes_are_not_there_gets_the_shared_tabs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, viewer_module: str | None, said: str
) -> None:
    """No viewer module (or one that is not installed): the shared tabs and a warning
    that says why, never a traceback."""
    monkeypatch.setattr(ToyFormat, "extra_panes", ("nowhere",))
    monkeypatch.setattr(ToyFormat, "viewer_module", viewer_module)
    with toy_registered():
        assert type(screen_for(NAME, str(tmp_path / "x.jsonl"))) is ModelScreen
        async with opened(write_toy(tmp_path / "toy.jsonl")) as (app, pilot, screen):
            assert screen.panes is None and screen.TABS == ModelScreen.TABS
            await until(pilot, lambda: app._notifications, "the warning")
            notes = {str(n.message) for n in app._notifications if said in str(n.message)}
            (note,) = notes  # (once said; the suite once saw it twice, not seen since)
            assert "toy-model's own panes are not shown" in note
            assert app.is_running


def test_every_registered_format_has_the_panes_it_names() -> None:
    """Built-ins find their pane sets as a plugin does (``viewer_module``): a name that
    is wrong would show their files without their own tabs."""
    for fmt in FORMATS:
        assert panes_missing(fmt) == "", fmt.name
        assert (pane_set_for(fmt) is None) == (not fmt.extra_panes), fmt.name


def test_the_model_screen_names_no_format() -> None:
    """The screen hosts a format's panes through the registry, never by its name."""
    from viewer.screens import model_screen, model_screen_following

    for module in (model_screen, model_screen_following):
        assert_names_no_format(ast.parse(inspect.getsource(module)))


def assert_names_no_format(tree: ast.Module) -> None:
    """No name, attribute or string of ``tree`` but its docstrings names a format."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        words = [getattr(node, "id", ""), getattr(node, "attr", "")]
        if isinstance(node, ast.Constant) and id(node) not in docstrings:
            words.append(str(node.value))
        for word in words:
            assert not any(f in word.lower() for f in ("agentgo", "claude", "codex")), word
