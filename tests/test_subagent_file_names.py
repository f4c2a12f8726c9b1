"""A Claude Code subagent's file is found whatever its id holds that a file name can
(``agent-dot.x.jsonl``, a space, ``é``): it was said "its file is not there" when its id
was not ``[A-Za-z0-9_-]``. An id with a path separator, ``.`` or ``..`` names no file of
its own (``subagents.names_a_file``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from claude_code_writer import SESSION, story

from session_core import open_transcript


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
