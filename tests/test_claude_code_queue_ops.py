"""Claude Code's ``queue-operation`` lines: an ``enqueue`` is input the user typed while
the model was busy; ``remove``, ``dequeue`` and ``popAll`` take input out of the queue
(shapes: 2.0.x and later, ``dequeue`` without content). Read both ways (msgspec's typed
lines and orjson's dicts)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import both
from claude_code_writer import SESSION, CCWriter, text

from session_core.column_items import messages_written
from session_core.diff_model import model_diff
from session_core.export import export


def _queue(w: CCWriter, op: str, content: str | None = None) -> None:
    line = {"type": "queue-operation", "operation": op, "sessionId": SESSION}
    line["timestamp"] = "2026-03-01T10:00:30.000Z"
    if content is not None:
        line["content"] = content
    w.bare(line)


def test_only_an_enqueue_is_input_the_others_say_what_they_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``remove`` read as queued input showed its operation's name as typed text
    ("remove"), a ``popAll`` the prompt queued a second time: each now says what it did,
    a system line of kind ``queue``, and neither ``diff`` nor the message count takes it
    for the user's."""
    w = CCWriter(version="2.0.76")
    w.user("find the TODOs")
    w.assistant("m1", [text("looking")])
    _queue(w, "enqueue", "and fix them")
    _queue(w, "remove")
    _queue(w, "enqueue", "fix them please")
    _queue(w, "dequeue")
    _queue(w, "enqueue", "then test")
    _queue(w, "popAll", "then test")
    _queue(w, "remove", "then test")
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    rows = [(i.role, i.kind, i.text) for i in t.raw if i.line > 2]
    assert rows == [
        ("user", "queued", "and fix them"),
        ("system", "queue", "removed from the queue"),
        ("user", "queued", "fix them please"),
        ("system", "queue", "dequeued"),
        ("user", "queued", "then test"),
        ("system", "queue", "queue taken back to the prompt: then test"),
        ("system", "queue", "removed from the queue: then test"),
    ]
    assert messages_written(t.raw, t.format) == 2  # the prompt and the answer
    diffed = "".join(model_diff(t)).splitlines()
    assert [r for r in diffed if r.startswith("- ")] == [
        r for r in diffed if r.startswith("- ") and r.endswith(" [queued]")
    ]
    assert sum(r.endswith(" [queued]") for r in diffed) == 3  # the three enqueued
    raw_md = export(path, "md", "raw")
    assert "\nremove\n" not in raw_md and "removed from the queue" in raw_md


def test_no_compaction_folds_a_queue_operation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a queued prompt, a line that took one out of the queue is on no chain and is
    not marked folded by a compaction after it (a snapshot line there is)."""
    w = CCWriter(version="2.0.76")
    w.user("question 0")
    w.assistant("m0", [text("answer 0")])
    _queue(w, "enqueue", "QUEUED")
    _queue(w, "remove", "QUEUED")
    w.bare({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}})
    w.compact()
    w.user("question 1")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    marks = [(i.kind, i.marks) for i in t.raw if i.kind in ("queued", "queue", "record")]
    assert marks == [("queued", []), ("queue", []), ("record", ["folded"])]


def test_an_enqueue_of_no_text_says_what_it_queued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``enqueue`` whose content is missing or not text was an empty row
    (``- line 4 user  [queued]``): it says what it is."""
    w = CCWriter(version="2.0.76")
    w.user("find the TODOs")
    w.assistant("m1", [text("looking")])
    w.bare(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "sessionId": SESSION,
            "timestamp": "2026-03-01T10:00:30.000Z",
            "content": 7,
        }
    )
    _queue(w, "enqueue")
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [i.text for i in t.raw if i.kind == "queued"] == [
        "enqueue (not text: 7)",
        "enqueue (no text)",
    ]
    diffed = "".join(model_diff(t)).splitlines()
    assert [r.split("user", 1)[1].strip() for r in diffed if r.endswith(" [queued]")] == [
        "enqueue (not text: 7) [queued]",
        "enqueue (no text) [queued]",
    ]
