"""The end of a file, read backwards: whole lines only, nothing written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from session_core import Message, Session
from session_core.tailwindow import preview_state, read_tail_window


def make(path: Path, count: int) -> list[str]:
    with Session.create(path, meta={"agent": "t"}) as s:
        return [
            s.append_message(Message(role="user", content=f"message {n:04d}")) for n in range(count)
        ]


def test_the_window_starts_on_a_line_and_ends_before_a_partial_one(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    ids = make(path, 200)
    with open(path, "ab") as fh:
        fh.write(b'{"id":"half a line')  # the writer is mid-append
    before = hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns
    tail = read_tail_window(path, window=2000)
    assert 0 < tail.start < tail.size
    assert path.read_bytes()[tail.start - 1 : tail.start] == b"\n"
    got = [e["id"] for e in tail.envelopes]
    assert got == ids[-len(got) :] and len(got) > 5
    assert tail.skipped == 0
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns) == before


def test_a_small_file_is_read_whole_and_previewed_as_replayed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    ids = make(path, 3)
    with Session.load(path) as s:
        s.append_compaction(summary="three messages", replaces_through_id=ids[1])
    tail = read_tail_window(path)
    assert tail.start == 0
    state = preview_state(tail, str(path))
    assert [m.content for m in state.messages()] == ["three messages", "message 0002"]


def test_a_window_that_cuts_a_compaction_from_its_messages_still_previews(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    ids = make(path, 50)
    with Session.load(path) as s:
        s.append_compaction(summary="folded", replaces_through_id=ids[0])
        s.append_message(Message(role="user", content="after"))
    tail = read_tail_window(path, window=600)
    state = preview_state(tail, str(path))  # the compaction names a line before the window
    assert state.messages()[-1].content == "after"
