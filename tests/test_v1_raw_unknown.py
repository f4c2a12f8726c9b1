"""A v1 line of a type the reader does not know is kept and shown raw: an item of the raw
view (as it is), never one of the replayed view, read whole and followed alike."""

from __future__ import annotations

from pathlib import Path

from helpers import follow_into

from session_core import Message, Session
from session_core.formats import V1, by_name

FMT = by_name(V1)


def written(path: Path) -> Path:
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hello"))
        s.append_event(type="x-note", payload={"text": "[bold]a note[/] \x1b[31m"})
        s.append_message(Message(role="assistant", content="hi"))
        s.append_event(type="x-heartbeat", payload={"n": 1})
    return path


def test_unknown_lines_are_raw_items(tmp_path: Path) -> None:
    path = written(tmp_path / "t.jsonl")
    t = FMT.open(path, writer_alive=False)
    kinds = [(i.kind, i.parts[0].name) for i in t.raw]
    assert kinds == [
        ("message", None),
        ("record", "x-note"),
        ("message", None),
        ("record", "x-heartbeat"),
    ]
    note = t.raw[1]
    assert note.line == 3 and '"x-note"' in note.parts[0].text and "a note" in note.parts[0].text
    assert [i.role for i in t.messages] == ["user", "assistant"]


def test_followed_in_small_batches_the_same(tmp_path: Path) -> None:
    path = written(tmp_path / "t.jsonl")
    live = FMT.live(str(path))
    follow_into(live.apply, path, 64, parse=False)
    t = live.transcript(writer_alive=False)
    whole = FMT.open(path, writer_alive=False)
    assert [(i.id, i.kind, i.line) for i in t.raw] == [(i.id, i.kind, i.line) for i in whole.raw]


def test_an_operation_carries_the_answer_it_got(tmp_path: Path) -> None:
    """A v1 operation's result is the tool message that answered its call (its line too);
    one not answered has none."""
    path = tmp_path / "ops.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="list"))
        call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        s.append_message(Message(role="assistant", content="", tool_calls=(call,)))
        op = s.append_tool_dispatched(call_id="c1", tool="ls", arguments={})
        s.append_tool_settled(op_id=op, outcome="completed", duration=0.1)
        s.append_message(Message(role="tool", content="a.txt\nb.txt", tool_call_id="c1"))
        s.append_tool_dispatched(call_id="c2", tool="ls", arguments={})
    t = FMT.open(path, writer_alive=False)
    answered = t.op_for_call("c1")
    assert answered is not None and answered.result == "a.txt\nb.txt"
    assert answered.result_line == 6
    waiting = t.op_for_call("c2")
    assert waiting is not None and waiting.result is None and waiting.result_line is None
