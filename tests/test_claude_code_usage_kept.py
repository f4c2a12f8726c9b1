"""A Claude Code read leaves no cycle holding its response tables: the raw column's
usage facts (``ResponseUsage``) test whether an item is a response from the responses'
raw items alone, not through the ``UsageBook`` (whose bound method made the book, its
``Responses`` and their 16 KB list arrays a cycle: each subagent file read while a file
loads, the collector paused, stayed until it ran: the viewer's peak grew by 6 MB at
100 MB). What the test answers is unchanged: a response that reported nothing has an
unknown usage, one Claude Code made up has none."""

from __future__ import annotations

import gc
from pathlib import Path

from claude_code_writer import CCWriter, text, usage

from session_core.formats.claude_code.responses import Responses
from session_core.formats.claude_code.subagents import read_builder, read_file
from session_core.formats.claude_code.usage import UsageBook
from session_core.model import Usage


def _file(path: Path) -> Path:
    """A response that reported usage, one that did not, one Claude Code made up."""
    w = CCWriter()
    w.user("first")
    w.assistant("m1", [text("reported")], usage=usage(100, 20), stop="end_turn")
    w.assistant("m2", [text("not reported")], stop="end_turn")
    w.assistant("m3", [text("made up")], model="<synthetic>", stop="end_turn")
    for line in w.lines:
        message = line.get("message")
        if isinstance(message, dict) and message.get("id") in ("m2", "m3"):
            del message["usage"]
    w.write(path)
    return path


def _alive(kind: type) -> int:
    return sum(1 for o in gc.get_objects() if type(o) is kind)


def test_a_read_keeps_no_response_tables(tmp_path: Path, gc_off: None) -> None:
    path = str(_file(tmp_path / "agent-a1.jsonl"))
    before = (_alive(Responses), _alive(UsageBook))
    for _ in range(3):
        transcript = read_file(path)
        assert transcript.usage.responses == 2  # (made up: no response)
        del transcript
    assert (_alive(Responses), _alive(UsageBook)) == before


def test_the_test_answers_as_before(tmp_path: Path) -> None:
    b = read_builder(str(_file(tmp_path / "agent-a1.jsonl")))
    b.transcript(None)  # (each response's usage settled)
    facts, raw = b.usage.items, b.responses.raw
    assert len(raw) == 3
    reported, unreported, made_up = (facts.usage(index) for index in raw)
    assert reported is not None and reported.known
    assert unreported == Usage(responses=1)
    assert made_up is None
    assert facts.usage(raw[-1] + 1) is None  # (no response's item)
