"""A v1 snapshot's operations are made when asked for and not all kept: a search over a
big file's Tool operations tab made every one (each with its result read back from the
file) on the UI thread, to name its worker, and kept them all (235 MB at 100 MB)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from session_core import Message, Session, open_transcript
from session_core.formats.v1.ops import SETTLED_KEPT, V1Op, V1Ops
from session_core.indexed import SHOWN
from session_core.model import op_tools, packed_tools

REPO = Path(__file__).resolve().parent.parent


def _many_settled(path: Path, calls: int) -> Path:
    with Session.create(path, meta={}) as s:
        for n in range(calls):
            call = {
                "id": f"c{n}",
                "type": "function",
                "function": {"name": "ls", "arguments": "{}"},
            }
            s.append_message(Message(role="assistant", content="", tool_calls=(call,)))
            op = s.append_tool_dispatched(f"c{n}", "ls", {})
            s.append_tool_settled(op, "completed")
            s.append_message(Message(role="tool", content=f"result {n}", tool_call_id=f"c{n}"))
    return path


def test_a_settled_operation_is_made_when_asked_for_and_few_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("session_core.formats.v1.ops.SETTLED_KEPT", 8)
    ops = open_transcript(_many_settled(tmp_path / "t.jsonl", 40)).tool_operations
    assert isinstance(ops, V1Ops) and SETTLED_KEPT > 8
    assert [op.result for op in ops] == [f"result {n}" for n in range(40)]  # all made
    assert ops._settled.cache_info().currsize <= 8  # ... the latest few kept
    assert ops[3].result == "result 3"  # (made again)


def test_its_repr_makes_no_more_than_it_shows(tmp_path: Path) -> None:
    ops = open_transcript(_many_settled(tmp_path / "t.jsonl", 40)).tool_operations
    assert isinstance(ops, V1Ops)
    said = repr(ops)
    assert said.endswith(f"... {40 - SHOWN:,} more])")
    assert ops._settled.cache_info().currsize == SHOWN


def test_every_worker_is_named_without_its_arguments() -> None:
    """Textual names a worker with no ``description`` by the ``repr`` of its arguments,
    on the UI thread: a big file's operations, made to be named."""
    found = 0
    for source in sorted((REPO / "viewer").rglob("*.py")):
        for decorator in re.findall(r"@work\((.*?)\)\n", source.read_text()):
            found += 1
            assert "description=" in decorator, f"{source}: @work({decorator})"
    assert found >= 8


def test_a_dropped_snapshots_operations_are_freed_at_once(tmp_path: Path) -> None:
    """The cache of made operations holds no reference back to its snapshot: one dropped
    while a load has the collector paused (``gc_pause``) was kept in a cycle, its
    operations and their results with it."""
    import gc

    path = _many_settled(tmp_path / "t.jsonl", 5)

    def alive() -> int:
        return sum(1 for o in gc.get_objects() if isinstance(o, V1Ops))

    gc.collect()
    gc.disable()
    try:
        before = alive()
        ops = open_transcript(path).tool_operations
        assert ops[0].result is not None and alive() == before + 1
        del ops
        assert alive() == before
    finally:
        gc.enable()


def test_the_tools_are_told_without_making_or_reading_an_operation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tool operations' filter and tool column ask every operation's tool
    (``model.op_tools``): a v1 replay keeps them as it reads the dispatch lines, so a big
    file's lines are not read again to say them; a tool that is no string, or none, is
    told as its operation says it, and a call no dispatch line names by its message."""
    path = _many_settled(tmp_path / "t.jsonl", 3)
    odd = [{"tool": 7}, {"tool": None}, {}, {"tool": ["a"]}, {"tool": "grep"}]
    with path.open("a") as fh:
        for n, fields in enumerate(odd):
            line = {
                "v": 1,
                "type": "tool-dispatched",
                "id": f"op-odd{n}",
                "ts": "2026-01-01T00:00:00Z",
            }
            fh.write(
                json.dumps({**line, "payload": {"call-id": f"x{n}", "arguments": {}, **fields}})
                + "\n"
            )
    with Session.load(path) as s:  # (a call asked for and never dispatched)
        call = {"id": "never", "type": "function", "function": {"name": "rm", "arguments": "{}"}}
        s.append_message(Message(role="assistant", content="", tool_calls=(call,)))
    made = [op.tool for op in open_transcript(path).tool_operations]
    assert made == ["ls"] * 3 + ["7", "", "", "['a']", "grep", "rm"]
    ops = open_transcript(path).tool_operations
    monkeypatch.setattr(V1Op, "_fill", lambda self: pytest.fail("an operation was read"))
    tools = op_tools(ops)
    assert [tools(i) for i in range(len(ops))] == made
    assert packed_tools(ops, 2) == made[2:]
