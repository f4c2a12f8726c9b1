"""A Claude Code subagent's file is found whatever its id holds that a file name can
(``agent-dot.x.jsonl``, a space, ``é``): it was said "its file is not there" when its id
was not ``[A-Za-z0-9_-]``. An id with a path separator, ``.`` or ``..`` names no file of
its own (``subagents.names_a_file``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from claude_code_writer import SESSION, story
from helpers import app_loaded, said, wait_for

from session_core import open_transcript
from session_core.export import export
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.subagents_pane import SubagentsPane, subagent_entries


@pytest.mark.parametrize("agent", ["dot.x", "with space", "café", "a\u202eb"])
def test_a_listed_subagent_file_is_read(tmp_path: Path, agent: str) -> None:
    path = story(tmp_path, torn=False)
    folder = tmp_path / SESSION / "subagents"
    shutil.copy(folder / "agent-a1.jsonl", folder / f"agent-{agent}.jsonl")
    subs = {sub.id: sub for sub in open_transcript(path).subagents}
    sub = subs[agent]
    assert sub.path == str(folder / f"agent-{agent}.jsonl"), sub.path
    assert sub.read and sub.messages == subs["a1"].messages


def test_an_id_that_reaches_out_names_no_file() -> None:
    from session_core.formats.claude_code.subagents import names_a_file

    assert names_a_file("dot.x") and names_a_file("a1") and names_a_file("...")
    for agent in ("", ".", "..", "../x", "a/b", "/etc", "a\x00b"):
        assert not names_a_file(agent), agent


def _named(tmp_path: Path, agent: str) -> Path:
    """The story's session with its Task call's agent id ``agent`` (its file's as was)."""
    path = story(tmp_path, torn=False)
    ids = (b'"agentId": "a1"', b"agentId: a1")
    said = path.read_bytes().replace(ids[0], orjson.dumps({"agentId": agent})[1:-1])
    path.write_bytes(said.replace(ids[1], b"agentId: " + agent.encode()))
    return path


@pytest.mark.parametrize("agent", ["x/y", "a/../../b"])
def test_an_id_that_is_no_file_name_says_so_not_that_its_file_is_missing(
    tmp_path: Path, agent: str
) -> None:
    """Its file is none (no file looked for: a file its path would reach, out of the
    session's folder, is not it), said as its id not being a file name."""
    path = _named(tmp_path, agent)
    (tmp_path / SESSION / "subagents" / "agent-a").mkdir()
    (tmp_path / SESSION / "b.jsonl").write_bytes(
        (tmp_path / SESSION / "subagents" / "agent-a1.jsonl").read_bytes()
    )
    sub = {s.id: s for s in open_transcript(path).subagents}[agent]
    assert sub.path is None and not sub.read
    assert sub.where == "its id is not a file name, so no file was looked for"
    row = next(line for line in export(path, "md").splitlines() if line.startswith(f"| {agent} |"))
    assert "not there" not in row and "its id is not a file name" in row, row
    entries = [text for _style, text in subagent_entries(sub, 0, None, str(path))]
    assert "its file: none, its id is not a file name" in entries, entries
    assert "usage: unknown (its id is not a file name, so no file was looked for)" in entries


async def test_enter_on_an_id_that_is_no_file_name_says_so(tmp_path: Path) -> None:
    path = _named(tmp_path, "x/y")
    async with app_loaded(path, ModelScreen, (140, 40)) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 2)
        pane.table.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: said(app, "The subagent has no file: its id is not a file"))
        assert not said(app, "not there")
