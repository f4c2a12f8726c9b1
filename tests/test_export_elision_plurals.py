"""A v1 elision line's note in the raw export counts what it stubbed in words, "elision
of 1 message" / "elision of 4 messages", not "4 message(s)"."""

from __future__ import annotations

from pathlib import Path

from session_core import Message, Session
from session_core.export import export


def test_an_elisions_note_counts_its_messages_in_words(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
        ids = [
            s.append_message(Message(role="tool", content=f"result {i}", tool_call_id=f"c{i}"))
            for i in range(4)
        ]
        s.append_elision([{"id": ids[0], "stub": "[one]"}])
        s.append_elision([{"id": i, "stub": "[all]"} for i in ids])
    md = export(path, "md", "raw")
    assert "> ⚠ line 7: elision of 1 message\n" in md
    assert "> ⚠ line 8: elision of 4 messages\n" in md
    assert "(s)" not in md
    html = export(path, "html", "raw")
    assert "line 7: elision of 1 message<" in html and "line 8: elision of 4 messages<" in html
