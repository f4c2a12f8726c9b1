"""The model screen's filter (``f``) and its export (the command palette), over a Claude
Code session written by the tests' own writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_code_writer import story
from helpers import fingerprint, wait_for
from test_model_diff import files
from textual.pilot import Pilot
from textual.widgets import Button, SelectionList, Static

from session_core.column_items import Items
from session_core.formats import by_name
from viewer.app import TailscopeApp
from viewer.screens.export import ExportScreen
from viewer.screens.filter import FilterScreen
from viewer.screens.model_screen import ModelScreen

SIZE = (140, 40)


async def _loaded(app: TailscopeApp, pilot: Pilot[None]) -> ModelScreen:
    """The app's model screen, once its file is read."""
    await wait_for(pilot, lambda: isinstance(app.screen, ModelScreen), 30)
    screen = app.screen
    assert isinstance(screen, ModelScreen)
    await wait_for(pilot, lambda: screen._loaded, 30)
    return screen


async def test_the_filter_hides_a_role_and_everything_brings_it_back(tmp_path: Path) -> None:
    path = story(tmp_path, torn=False)
    before = fingerprint(path)
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _loaded(app, pilot)
        view = screen.conversation
        roles = {item.role for item in view.items}
        assert {"user", "assistant"} <= roles
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        chooser = app.screen.query_one("#filter-roles", SelectionList)
        chooser.deselect("assistant")
        await pilot.pause(0.05)
        app.screen.query_one("#filter-apply", Button).press()
        await wait_for(pilot, lambda: app.screen is screen and view.filtered)
        assert view.items and all(item.role != "assistant" for item in view.items)
        assert len(view.items) < len(screen.transcript.messages)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        app.screen.query_one("#filter-all", Button).press()
        await wait_for(pilot, lambda: app.screen is screen and not view.filtered)
        assert len(view.items) == len(screen.transcript.messages)
        screen.action_export()
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
    assert fingerprint(path) == before


async def test_the_filter_is_worked_by_keys_alone(tmp_path: Path) -> None:
    """``f`` opens with the roles list focused on its first role: a space unticks it,
    tab moves to the line types, tab again to Apply, and enter applies (a space did
    nothing at first: no choice was highlighted)."""
    path = story(tmp_path, torn=False)
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _loaded(app, pilot)
        view = screen.conversation
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        chooser = app.screen.query_one("#filter-roles", SelectionList)
        assert app.screen.focused is chooser
        first = chooser.get_option_at_index(0).value
        said = app.screen.query_one("#filter-said", Static)
        assert "roles: all shown" in str(said.render())
        await pilot.press("space")
        assert f"roles: hiding {first}" in str(said.render())  # (a tick's colour, in words)
        await pilot.press("tab", "tab")
        assert app.screen.focused is app.screen.query_one("#filter-apply", Button)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen and view.filtered)
        assert view.items and all(item.role != first for item in view.items)


async def test_a_role_that_looks_like_markup_is_offered_as_text(tmp_path: Path) -> None:
    """A role (a file's own word) of markup is a choice shown as written: "[/oops]" raised
    a MarkupError in the dialog's list and froze the app; "[bold red]R[/]" was styled."""
    from session_core import Message, Session

    path = tmp_path / "v1.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="[/oops]", content="hi"))
        s.append_message(Message(role="[bold red]R[/]", content="hello"))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _loaded(app, pilot)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        roles = app.screen.query_one("#filter-roles", SelectionList)
        prompts = {str(roles.get_option_at_index(i).prompt) for i in range(roles.option_count)}
        assert {"[/oops]", "[bold red]R[/]"} <= prompts
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)


KEEPS = {
    "users": lambda role, kind: role == "user",
    "no-assistant": lambda role, kind: role != "assistant",
    "messages": lambda role, kind: kind == "message",
    "records": lambda role, kind: kind not in ("message", "summary"),
    "none": lambda role, kind: False,
}


def test_a_filtered_view_is_what_filtering_every_item_gives_none_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Items.having``: a filtered raw view of a 1 GB session built its 184,000 items
    at every draw (6 s); it reads the column's roles and kinds."""
    checked = set()
    for name, path in files(tmp_path):
        t = by_name(name).open(str(path))
        for view in (t.raw, t.messages):
            if not isinstance(view, Items):
                continue
            checked.add(name)
            every = list(view)
            for what, keep in KEEPS.items():
                with monkeypatch.context() as m:
                    m.setattr(type(view._column), "item", _never)
                    kept = view.having(keep)
                want = [item for item in every if keep(item.role, item.kind)]
                assert list(kept) == want, (name, what)
    assert checked == {"claude-code", "codex", "transcript-v1", "agentgo-v1"}


def _never(_column: object, index: int) -> Any:
    raise AssertionError(f"item {index} built to be filtered")


async def test_the_filter_offers_what_the_file_has(tmp_path: Path) -> None:
    """A v1 file's filter offers its own line kinds (elision, a custom event) and the roles
    its messages have, not Claude Code's kinds nor a role no line has (an audit: it
    offered ``hook``, ``queued``... and unticking ``developer`` said "filter: 128 of 128
    shown", hiding nothing)."""
    from session_core import Message, Session

    path = tmp_path / "v1.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        first = s.append_message(Message(role="user", content="hi"))
        s.append_message(Message(role="assistant", content="hello"))
        s.append_elision([{"id": first, "stub": "[elided]"}])
        s.append_event(type="x-note", payload={"n": 1})
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _loaded(app, pilot)
        roles, kinds = screen.conversation.filter_choices()
        raw = {item.kind for item in screen.transcript.raw}
        lines = [*screen.transcript.raw, *screen.transcript.messages]
        assert set(roles) == {item.role for item in lines} - {""} and set(kinds) == raw
        assert "developer" not in roles and "tool" not in roles
        assert kinds[0] == "message" and "elision" in kinds and "hook" not in kinds
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        types = app.screen.query_one("#filter-types", SelectionList)
        assert [types.get_option_at_index(i).value for i in range(types.option_count)] == list(
            kinds
        )
        app.screen.query_one("#filter-apply", Button).press()  # (everything ticked)
        await wait_for(pilot, lambda: app.screen is screen)
        assert not screen.conversation.filtered
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        app.screen.query_one("#filter-types", SelectionList).deselect("elision")
        await pilot.pause(0.05)
        app.screen.query_one("#filter-apply", Button).press()
        await wait_for(pilot, lambda: app.screen is screen and screen.conversation.filtered)
        screen.conversation.set_mode("raw")
        assert "elision" not in {item.kind for item in screen.conversation.items}


async def test_an_unticked_box_is_empty_not_a_dim_tick(tmp_path: Path) -> None:
    """Textual's SelectionList drew ``▐X▌`` ticked or not, only its colour differing: in
    text, on a dim screen or without colour, an unticked box read as ticked. It is
    ``▐ ▌`` now (the tools' and states' dialog is the same list)."""
    app = TailscopeApp(story(tmp_path, torn=False))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        chooser = app.screen.query_one("#filter-roles", SelectionList)
        chooser.deselect("user")
        await pilot.pause(0.05)

        def box(role: str) -> str:
            """The box drawn before ``role``, as the list draws its row (the screen's SVG
            text leaves out a space drawn alone)."""
            rows = [chooser.render_line(y).text for y in range(chooser.option_count)]
            row = next(row for row in rows if row.rstrip().endswith(f" {role}"))
            return row[: row.index(f" {role}")].strip()

        await wait_for(pilot, lambda: box("user") == "▐ ▌")
        assert box("assistant") == "▐X▌"
        chooser.select("user")  # (ticked again: the tick back)
        await wait_for(pilot, lambda: box("user") == "▐X▌")
