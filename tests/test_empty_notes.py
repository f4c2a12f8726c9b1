"""Every tab's empty view says why in its first row, one cell in, where a row's text and a
table's header begin: the runs said it in the detail below a blank table, the run
contexts beside a blank list, the tool operations of a file with none said nothing, and
agentgo's checkpoints said it in the snapshot's place; some notes began at column 0."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import file_loaded, screen_lines, wait_for

from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from story import OLD_MTIME
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.line_list import LineList

SIZE = (100, 30)


def first_row(app: TailscopeApp) -> str:
    """What the focused list draws in its first row, under its header if it has one (the
    screen's SVG leaves a row's leading blanks out)."""
    view = app.focused
    assert isinstance(view, LineList), view
    return "".join(segment.text for segment in view.render_line(view.HEADER)).rstrip()


async def test_a_v1_file_of_one_message_says_so_on_each_tab(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    with Session.create(path, meta={"agent": "sadna"}) as s:
        s.append_message(Message(role="user", content="hello"))
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (its writer long gone)
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, ModelScreen)
        for keys, note in (
            ("3", " No tool operations in this file."),
            ("4", " No run context in this transcript yet."),
            ("5", " No runs in this file."),
            # (the diff's changed rows alone: none)
            ("2a", " No differences: 1 message line, each sent as written. a shows them."),
        ):
            await pilot.press(*keys)
            await wait_for(pilot, lambda note=note: first_row(app) == note)
            # (said once: not again in a detail beside or below)
            assert "\n".join(screen_lines(app)).count(note.strip()) == 1, keys


async def test_agentgo_checkpoints_none_in_the_tables_first_row(tmp_path: Path) -> None:
    path = tmp_path / "none.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": {"kind": "user", "content": "hi there"}})
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("4")
        said = " No checkpoint in this session. Checkpoints are optional: a run saves one"
        await wait_for(pilot, lambda: first_row(app).startswith(said))
