"""The Subagents tab of a Claude Code session and of a Codex rollout: a row a subagent
(its call's state, messages, usage, where its lines are), its detail below; ``enter``
opens its file over the session, ``m`` shows the call that started it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from claude_code_writer import SESSION, SUBAGENT_USAGE, story
from codex_helpers import CHILD, family
from codex_writer import SESSION as CODEX_SESSION
from helpers import app_loaded, said, screen_lines, screen_text, wait_for
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from session_core.formats import CLAUDE_CODE, by_name
from session_core.model import Usage
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.subagents_pane import COLUMNS, SubagentsPane, cost_text

SIZE = (150, 40)
TOKENS = sum(sum(v) for v in SUBAGENT_USAGE.values())  # every count of its two responses


async def test_a_claude_code_sessions_subagent_is_listed_opened_and_its_call_shown(
    tmp_path: Path,
) -> None:
    path = story(tmp_path, torn=False)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        text = screen_text(app)
        for cell in ("completed", "explore", f"{TOKENS:,} tok", "agent-a1"):
            assert cell in text
        detail = "\n".join(screen_lines(app))
        assert "call t4 · Task · completed" in detail and "its file: " in detail, detail
        # enter: the subagent's own file, over the session; escape: back to it
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not screen)
        opened = app.screen
        assert isinstance(opened, ModelScreen) and opened.path.endswith("agent-a1.jsonl")
        assert opened.transcript.parent == SESSION
        await wait_for(pilot, lambda: f"a subagent of {SESSION}" in screen_text(app))
        # said in the footer and the help (nothing said escape went back)
        back = opened.active_bindings["escape"]
        assert (back.binding.action, back.binding.description, back.enabled) == (
            "back",
            "Back",
            True,
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        # m: the message whose call started it; a compaction folded it, so the raw view
        view = screen.conversation
        await pilot.press("m")
        await wait_for(pilot, lambda: screen.query_one(TabbedContent).active == "conversation")
        assert view.mode == "raw"
        assert any(part.call_id == "t4" for part in view.items[view.cursor].parts)


async def test_a_subagent_whose_file_is_gone_is_listed_with_its_usage_unknown(
    tmp_path: Path,
) -> None:
    path = story(tmp_path, torn=False)
    (tmp_path / SESSION / "subagents" / "agent-a1.jsonl").unlink()
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        text = screen_text(app)
        assert "not read" in text and "its file is not there" in text
        assert "usage: unknown (its file is not there)" in text
        assert " 0 tok" not in text  # unknown is never shown as 0
        # The header: the file's usage, and that its subagent's was not read (it said
        # "with 0 of 1 subagent" and the same total again).
        assert "1 subagent, its file not read" in text and "0 of 1" not in text
        await pilot.press("enter")
        await wait_for(pilot, lambda: said(app, "The subagent's file is not there."))


async def test_a_codex_rollouts_spawned_child_is_listed_and_opened(tmp_path: Path) -> None:
    parent, child = family(tmp_path)
    async with app_loaded(parent, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        row = next(line for line in screen_lines(app) if "scout explorer" in line)
        assert CHILD[-12:] in row  # (its name cut from the left: the end is its id)
        assert child.name[:40] in screen_text(app)
        assert "spawn_agent" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not screen)
        assert isinstance(app.screen, ModelScreen) and app.screen.path == str(child)
        opened = app.screen
        await wait_for(pilot, lambda: opened.transcript.parent == CODEX_SESSION)
        assert "a subagent of 019c" in screen_text(app)  # (the header cuts the id)


def test_the_formats_that_link_subagents_name_the_tab() -> None:
    assert "subagents" in by_name(CLAUDE_CODE).extra_panes
    assert "subagents" in by_name("codex").extra_panes
    assert "subagents" not in by_name("transcript-v1").extra_panes


async def test_a_subagent_at_work_is_listed_by_its_progress_before_its_result(
    tmp_path: Path,
) -> None:
    from claude_code_writer import CCWriter, text, tool_use, usage

    w = CCWriter()
    w.user("Explore the code")
    m1 = w.assistant("m1", [tool_use("t1", "Task", description="scout", prompt="go")])
    w.progress(
        "t1",
        {
            "type": "agent_progress",
            "agentId": "a1",
            "prompt": "go",
            "message": {
                "type": "assistant",
                "message": {
                    "id": "s1",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [text("looking")],
                    "usage": usage(1, 2),
                },
            },
        },
    )
    path = w.write(tmp_path / f"{SESSION}.jsonl")
    sub = CCWriter(agent_id="a1")
    sub.user("go", parent=None)
    sub.assistant("s1", [text("looking")], usage=usage(1, 2))
    sub.write(tmp_path / SESSION / "subagents" / "agent-a1.jsonl")
    del m1
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        op = pane.op_of(pane.subagents[0])
        assert op is not None and op.state in ("running", "interrupted")  # (no result yet)
        assert op.label in screen_text(app) and "scout" in screen_text(app)


def three_scouts(
    folder: Path, failed: int | None = None, outputs: tuple[int | None, ...] = (None,) * 3
) -> Path:
    """A session whose one response calls three Task subagents, scout 0 to 2, each with
    its file (``outputs``: the output tokens each one's response reports, None: none);
    the call of scout ``failed`` failed."""
    from claude_code_writer import CCWriter, text, tool_use, usage

    w = CCWriter()
    w.user("Send three scouts")
    calls = [tool_use(f"t{n}", "Task", description=f"scout {n}", prompt="go") for n in range(3)]
    m1 = w.assistant("m1", calls)
    for n in range(3):
        w.result(
            f"t{n}",
            [text(f"agentId: a{n}")],
            parent=m1[0],
            is_error=n == failed,
            tool_use_result={"status": "completed", "agentId": f"a{n}"},
        )
    path = w.write(folder / f"{SESSION}.jsonl")
    for n, out in enumerate(outputs):
        sub = CCWriter(agent_id=f"a{n}")
        sub.user("go", parent=None)
        sub.assistant(f"s{n}", [text("ok")], usage=None if out is None else usage(1, out))
        sub.write(folder / SESSION / "subagents" / f"agent-a{n}.jsonl")
    return path


@asynccontextmanager
async def subagents_of(
    path: Path, rows: int
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], SubagentsPane]]:
    """The app on ``path``, its Subagents tab shown with ``rows`` rows, the first selected."""
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == rows)
        pane.table.move_cursor(0)
        yield app, pilot, pane


async def test_e_steps_to_the_subagents_whose_call_did_not_complete(tmp_path: Path) -> None:
    async with subagents_of(three_scouts(tmp_path, failed=1), 3) as (app, pilot, pane):
        await pilot.press("e")
        assert pane.table.cursor_row == 1  # scout 1's call failed
        await pilot.press("e")
        await wait_for(
            pilot, lambda: said(app, "No subagent whose call did not complete after this one")
        )
        assert pane.table.cursor_row == 1


async def test_a_codex_child_past_the_readers_bound_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import session_core.formats.codex as codex

    monkeypatch.setattr(codex, "SUBAGENT_LIMIT", 10)  # every child is over it
    parent, _child = family(tmp_path)
    async with app_loaded(parent, ModelScreen, SIZE) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        assert not pane.subagents[0].counted
        text = "\n".join(screen_lines(app))
        assert "not read" in text and "usage: not read (past what the reader reads" in text
        assert " 0 tok" not in text


def test_a_total_with_subagents_never_takes_the_files_unknown_usage_for_0(
    tmp_path: Path,
) -> None:
    from session_core import open_transcript

    parent, _child = family(tmp_path)  # (the parent's rollout reports no token counts)
    t = open_transcript(parent)
    assert t.usage.tokens is None and t.usage_with_subagents is not None
    assert t.with_subagents_text() == "1 subagent alone (this file's unknown)"
    story_path = story(tmp_path / "cc", torn=False)
    assert open_transcript(story_path).with_subagents_text() == "with 1 subagent"
    # its tokens told and its model without a price: the total's cost is the child's
    priceless, _ = family(tmp_path / "priceless", usage=(900, 0, 100, 0))
    priceless.write_text(priceless.read_text().replace('"gpt-5-codex"', '"nobody-prices-it"'))
    said = open_transcript(priceless).with_subagents_text()
    assert said == "with 1 subagent (the cost theirs alone: this file's unknown)"


async def test_the_help_lists_the_subagents_keys(tmp_path: Path) -> None:
    from viewer.screens.help import BindingsHelpScreen

    path = story(tmp_path, torn=False)
    async with app_loaded(path, ModelScreen, (150, 200)) as (app, pilot):
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, BindingsHelpScreen))
        text = "\n".join(screen_lines(app))
        section = text.split("Subagents", 1)[1]
        for words in ("The call in the conversation", "Next subagent not completed", "Open"):
            assert words in section, section[:800]
        assert "Open the session the writer went on in" in text  # Claude Code can name one


async def test_s_sorts_them_by_usage_and_back_the_cursor_on_its_subagent(tmp_path: Path) -> None:
    path = three_scouts(tmp_path, outputs=(10, 300, None))  # scout 2 reports no usage
    async with subagents_of(path, 3) as (app, pilot, pane):
        await pilot.press("s")
        assert [s.description for s in pane.subagents] == ["scout 1", "scout 0", "scout 2"]
        assert pane.table.cursor_row == 1 and pane.selected.description == "scout 0"
        rows = [line for line in screen_lines(app) if "scout" in line and "tok" in line]
        assert rows[0].split()[0] == "2"  # (its number is its place in the file)
        await pilot.press("s")
        assert [s.description for s in pane.subagents] == ["scout 0", "scout 1", "scout 2"]
        assert pane.table.cursor_row == 0


@given(
    cost=st.one_of(
        st.none(),
        st.floats(min_value=0, max_value=1e12, allow_nan=False),
        st.floats(min_value=99, max_value=1001, allow_nan=False),
    ),
    priced=st.integers(0, 3),
)
def test_every_cost_fits_its_column(cost: float | None, priced: int) -> None:
    """A subagent's cost, with its ``≥`` where some responses were not priced, is never
    cut: ``≥$123.4567`` was 10 characters in the column's 9 cells (the browser's rule)."""
    usage = Usage(cost=cost, responses=3, cost_reported=priced)
    shown = cost_text(usage)
    width = next(w for key, _, w in COLUMNS if key == "cost")
    assert width is not None and cell_len(shown) <= width, shown
    if cost is None:
        assert shown == "unknown"
    else:
        assert shown.lstrip("≥<").startswith("$") and shown.startswith("≥") == (priced < 3)


@pytest.mark.parametrize("size", [(120, 35), (80, 24)])
async def test_the_subagents_and_runs_tables_fit_the_terminal(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """No scrolling across at 120 or 80 columns (a lone thumb mid-screen, the "where"
    column cut at the edge: a live-watch audit): the description takes what the others
    leave, cut with ``…``; at 80 columns the columns the detail says go first."""
    from viewer.widgets.model_panes import RunsPane

    path = story(tmp_path, torn=False)
    async with app_loaded(path, ModelScreen, size) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        for tab, kind in (("subagents", SubagentsPane), ("runs", RunsPane)):
            screen.action_show_tab(tab)
            await wait_for(pilot, lambda kind=kind: bool(app.query(kind)))
            pane = app.query_one(kind)
            await wait_for(pilot, lambda pane=pane: pane.table.row_count >= 1)
            table = pane.table
            await pilot.pause(0.1)
            assert not table.show_horizontal_scrollbar, (tab, table.columns)
            assert table.virtual_width() <= table.scrollable_content_region.width
        keys = [key for key, _, _ in app.query_one(SubagentsPane).table.columns]
        assert keys[:2] == ["n", "state"] and "description" in keys
        assert ("where" in keys) == (size[0] >= 120)


def test_the_columns_are_as_wide_as_what_they_hold() -> None:
    """At 120 columns the description was held to 20 cells ("Research Claude Cod…" on
    two rows that differ in their last word) while ``where`` kept 28 for a 13-character
    name: each column is as wide as its label or its widest cell, the description given
    what the others leave; one wider than its column's most is cut there."""
    from session_core.model import Subagent
    from viewer.widgets.subagents_pane import subagent_columns
    from viewer.widgets.virtual_table import fitted_columns

    pane = SubagentsPane()
    pane.subagents = [
        Subagent("a2898e3", "/s/agent-a2898e3.jsonl", description=f"Research Claude Code {d}")
        for d in ("plan mode", "teammates")
    ]
    pane._numbers = range(2)
    columns = subagent_columns(map(pane.cells, range(2)))
    widths = {key: width for key, _, width in columns}
    assert widths["where"] == len("agent-a2898e3") and widths["n"] == len("#")
    assert widths["description"] == len("Research Claude Code plan mode")
    shown = {key: width for key, _, width in fitted_columns(columns, 120, "description", 20)}
    assert shown["description"] == widths["description"] and shown["where"] == widths["where"]
    pane.subagents[0].description = "x" * 100  # (cut at its most, 60, with its "…")
    assert (
        dict((k, w) for k, _, w in subagent_columns(map(pane.cells, range(2))))["description"]
        == dict((k, w) for k, _, w in COLUMNS)["description"]
    )


async def test_an_empty_subagents_tab_says_why_in_its_first_row(tmp_path: Path) -> None:
    """A file with no subagents (a Codex child, a subagent's own file) showed the header
    row alone: its first row says why, as other empty tables do."""
    _parent, child = family(tmp_path)
    async with app_loaded(child, ModelScreen, (80, 24)) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: SubagentsPane.NONE in screen_text(app))
        assert pane.table.row_count == 0
        assert screen_text(app).count("No subagents") == 1  # (not again below)
