"""An elision line written twice (the same record id): each of its two items says what
its own line stubbed. A whole read gave both lines' records to the first ("line 3" twice)
and "stubbed: nothing" to the second, where a follow gave each its own (the fuzzer)."""

from __future__ import annotations

from pathlib import Path

from helpers import follow_into

from session_core import Message, Session, open_transcript
from session_core.formats import V1, by_name


def _elided_twice(path: Path) -> Path:
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
        tool = s.append_message(Message(role="tool", content="big result", tool_call_id="c1"))
        s.append_elision([{"id": tool, "stub": "[elided]"}])
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + lines[-1])  # (the elision line again, byte for byte)
    return path


def _stubbed(items: object) -> list[list[str]]:
    return [[p.text for p in i.parts] for i in items if i.kind == "elision"]  # type: ignore[attr-defined]


def test_each_elision_line_says_what_it_stubbed(tmp_path: Path) -> None:
    path = _elided_twice(tmp_path / "t.jsonl")
    whole = _stubbed(open_transcript(path).raw)
    assert whole == [["line 3 → [elided]"], ["line 3 → [elided]"]]
    fmt = by_name(V1)
    live = fmt.live(str(path))
    follow_into(live.apply, path, 200, fmt.parsed_updates)  # (a line or so an update)
    assert _stubbed(live.transcript(writer_alive=False).raw) == whole
