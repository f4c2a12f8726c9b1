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
