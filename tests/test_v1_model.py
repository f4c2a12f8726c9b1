"""A v1 file in the neutral model (``open_transcript``) keeps its message lines' spans,
not their parts: an item's parts are read again from the file when it is asked for."""

from __future__ import annotations

from pathlib import Path

import orjson

from session_core import open_transcript
from session_core.column_items import Items
from session_core.formats.v1.items import message_parts as _parts
from story import write_story


def test_the_raw_items_are_read_again_by_span_and_equal_what_the_lines_say(
    tmp_path: Path,
) -> None:
    path = tmp_path / "story.jsonl"
    write_story(path)
    transcript = open_transcript(path)
    raw = transcript.raw
    assert isinstance(raw, Items)
    column = raw._column
    messages = [i for i in range(len(raw)) if column.kind_of(i) == "message"]
    assert messages and all(column.parts[i] is None for i in messages)  # spans only
    lines = path.read_bytes().splitlines()
    for item in raw:
        envelope = orjson.loads(lines[item.line - 1])
        assert item.id == envelope["id"]
        assert item.ts == envelope["ts"]
        if item.kind == "message":
            assert item.parts == _parts(envelope["payload"])
        else:  # a compaction or elision line: what it did
            assert item.kind == envelope["type"] in ("compaction", "elision")
    shown = {item.id: item for item in raw}
    for message in transcript.messages:  # the replayed view: the raw items (with a stub)
        if message.id in shown:
            assert message.parts == shown[message.id].parts
            assert (message.stub is not None) == ("elided" in message.marks)


def test_a_call_no_dispatch_line_names_has_its_arguments_and_its_answer(
    tmp_path: Path,
) -> None:
    """A call only its message names (``undispatched-answered``, ``never-dispatched``):
    its arguments as that message gives them, its answer's text and line, read from
    their lines (its detail said "(none)" and "(no result)"; an audit)."""
    from session_core import Message, Session, open_transcript

    path = tmp_path / "calls.jsonl"
    asked = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": '{"a":1}'}}
    other = {"id": "c2", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    odd = {"id": 7, "type": "function", "function": {"name": "sh", "arguments": {"b": 2}}}
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="assistant", content="", tool_calls=(asked, other)))
        s.append_message(Message(role="user", content="meanwhile"))
        s.append_message(Message(role="tool", content="the answer", tool_call_id="c1"))
    # a call of no spec shape, as a hand-written file has it (the writer refuses it)
    odd_line = {"id": "m-odd", "type": "message", "v": 1, "ts": "2026-12-06T00:00:00Z"}
    odd_line["payload"] = {"role": "assistant", "content": "", "tool-calls": [odd]}
    with path.open("ab") as fh:
        fh.write(orjson.dumps(odd_line) + b"\n")
    ops = {op.call_id: op for op in open_transcript(path).tool_operations}
    answered, never = ops["c1"], ops["c2"]
    assert (answered.state, never.state) == ("undispatched-answered", "never-dispatched")
    assert (answered.arguments, answered.result, answered.result_line) == (
        '{"a":1}',
        "the answer",
        4,
    )
    assert (never.arguments, never.result, never.result_line) == ("{}", None, None)
    assert (answered.line, never.line, answered.tool) == (2, 2, "sh")
    assert answered.to_json()["arguments"] == '{"a":1}'
    assert ops["7"].arguments == {"b": 2}  # (an id that is no string: as the facts name it)


def test_a_run_says_when_it_ended_how_long_it_took_and_its_prompt(tmp_path: Path) -> None:
    """A v1 run ends with the line before the next run's context (the file's last, for
    the last run): its time, its duration once finished, and its first user message as
    its prompt (the runs tab's "took" and "prompt" were empty for v1; an audit)."""
    from session_core import Message, Session, open_transcript

    path = tmp_path / "runs.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        for n in (1, 2):
            s.append_run_context(run_id=f"r{n}", digest=f"d{n}", facts=[], sections=[])
            s.append_message(Message(role="system", content="sys"))
            s.append_message(Message(role="user", content=f"do task {n}"))
            s.append_message(Message(role="assistant", content="done"))
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    runs = open_transcript(path).runs
    assert [r.prompt for r in runs] == ["do task 1", "do task 2"]
    assert runs[0].started == lines[1]["ts"] and runs[0].ended == lines[4]["ts"]
    assert runs[1].ended == lines[-1]["ts"]
    first = runs[0]
    assert first.state == "finished" and first.duration is not None and first.duration >= 0
