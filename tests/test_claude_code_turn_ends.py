"""Where a Claude Code turn ends, in shapes of versions other than our samples: a turn
Claude Code gave up on (its own message that an API call failed for good), and a turn
followed by bookkeeping lines (a ``pr-link``, a ``file-history-snapshot``) that are no
part of it. Every test reads the file both ways (msgspec's typed lines and orjson's
dicts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, text, usage
from helpers import run_cli

from session_core import peek
from session_core.column_items import messages_written
from session_core.export import export
from session_core.scan import scan_file
from session_core.vocabulary import kinds_of
from viewer.widgets.item_jumps import is_what
from viewer.widgets.model_diff import ModelDiff

API_ERROR = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}'


def _gave_up(w: CCWriter, *, stop: str | None = "stop_sequence", **extra: Any) -> None:
    """The line Claude Code writes when an API call failed for good (after its retries):
    a made-up assistant message, model ``<synthetic>``, zero usage."""
    message: dict[str, Any] = {
        "id": "c1a2b3c4-0000-4000-8000-000000000000",
        "type": "message",
        "role": "assistant",
        "model": "<synthetic>",
        "content": [text(API_ERROR)],
        "stop_reason": stop,
        "stop_sequence": "",
        "usage": usage(0, 0),
    }
    w.env("assistant", message=message, isApiErrorMessage=True, **extra)


def test_a_turn_claude_code_gave_up_on_ended_and_its_message_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.0.x: ``stop_reason: "stop_sequence"`` on the made-up message. The turn ended
    on an error (failed: nothing cut it off; it read as interrupted, the session as
    crashed, then as finished with no sign of the error), the message is an error line
    (``e`` stops at it, the export flags it), and its zero usage is no response of a
    model's."""
    w = CCWriter(version="1.0.51")
    w.user("first prompt")
    w.assistant("m1", [text("done")], usage=usage(10, 20), stop="end_turn")
    w.user("try again")
    _gave_up(w)
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [r.state for r in t.runs] == ["finished", "failed"]
    assert (t.runs[-1].end_line, t.runs[-1].duration) == (len(w.lines), 1.0)
    # its writer still there: it is not waiting on the model either
    assert FMT.open(path, writer_alive=True).runs[-1].state == "failed"
    said = t.raw[-1]
    assert (said.role, said.kind, said.text) == ("assistant", "error", API_ERROR)
    assert is_what("error", said, {}, kinds_of(t.format))
    assert not is_what("error", t.raw[1], {}, kinds_of(t.format))  # (an answer is not)
    # its usage (zeros Claude Code made up) counted nowhere: one response, m1
    assert (t.usage.responses, t.usage.input_tokens, t.usage.output_tokens) == (1, 10, 20)
    assert (t.runs[-1].usage.responses, t.runs[-1].usage.known) == (0, False)
    # (sent to no model: the raw view's, not the replayed view's)
    assert "**error**" in export(path, "md", "raw")
    assert API_ERROR not in export(path, "md")


def test_a_newer_give_up_without_stop_reason_ends_its_turn_while_the_writer_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Later versions say why (``error``, ``apiErrorStatus``) and may write no stop
    reason: the message ends its turn all the same, the writer still at work or not
    (a response without a stop reason is otherwise *running* while it may be)."""
    w = CCWriter(version="2.1.39")
    w.user("hello")
    _gave_up(w, stop=None, error="rate_limit", apiErrorStatus=429)
    path = w.write(tmp_path / "s.jsonl")
    for alive in (True, False):
        t = both(path, monkeypatch, writer_alive=alive)
        assert [r.state for r in t.runs] == ["failed"]
        assert t.raw[-1].kind == "error"
        assert not t.usage.known


def test_the_api_error_message_is_no_message_and_not_sent_next_on_every_surface(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code sends its own API-error message to no model (``normalizeMessagesForAPI``
    drops an ``isApiErrorMessage`` line of model ``<synthetic>``): an error line, not a
    message line. ``check``, ``replay``, ``diff``, ``peek``, the browser's row and the
    Diff tab's head all count 3 (the row and peek said 3 while the others sent 4: what
    is sent next was more than what was written)."""
    w = CCWriter(version="2.1.39")
    w.user("a prompt")
    w.assistant("m1", [text("looking"), {"type": "tool_use", "id": "t1", "name": "Bash"}])
    w.result("t1", "a.py")
    _gave_up(w)
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [i.kind for i in t.raw] == ["message", "message", "message", "error"]
    assert API_ERROR not in [m.text for m in t.messages]
    assert len(t.messages) == messages_written(t.raw, t.format) == 3
    assert scan_file(path).messages == 3
    assert [m.content for m in peek(path).messages][-1] == "a.py"
    assert len(peek(path).messages) == 3
    assert "3 messages sent next" in run_cli(capsys, "check", str(path))[1]
    replayed = json.loads(run_cli(capsys, "replay", str(path))[1])["messages"]
    assert len(replayed) == 3
    assert "4 items as written, 3 items sent next" in run_cli(capsys, "diff", str(path))[1]
    head = ModelDiff(t)[0][1]
    assert head.startswith("raw: 4 items as written (3 messages) · replayed: 3 messages")
    # a prompt after it hangs from it: the rest is sent, it is not
    w.user("again")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [m.line for m in t.messages] == [1, 2, 4, 6]


def test_an_api_error_flag_on_a_models_message_leaves_it_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code drops the flagged line only when it made it up (model ``<synthetic>``):
    a model's answer so flagged is sent, a message as written."""
    w = CCWriter(version="2.1.39")
    w.user("hello")
    w.env(
        "assistant",
        message={
            "id": "m1",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [text("hi")],
            "stop_reason": "end_turn",
            "usage": usage(1, 2),
        },
        isApiErrorMessage=True,
    )
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [(i.kind, i.text) for i in t.messages] == [("message", "hello"), ("message", "hi")]


def _bookkeeping(w: CCWriter, at: str) -> None:
    """Lines Claude Code appends beside the conversation, on no chain: a ``pr-link`` (its
    own time), a title's tag, a file-history snapshot."""
    w.bare({"type": "pr-link", "url": "https://x/pull/1", "sessionId": w.session, "timestamp": at})
    w.bare({"type": "tag", "tag": "chore", "sessionId": w.session})
    w.bare({"type": "file-history-snapshot", "messageId": "x", "snapshot": {"timestamp": at}})


def test_bookkeeping_after_a_turn_does_not_stretch_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2.0.76 wrote no ``turn_duration`` after some turns: such a turn ends at its last
    conversation line, not at a ``pr-link`` written an hour later (it took an hour and
    ended at the snapshot line); a turn before the last, and one cut off, likewise."""
    w = CCWriter(version="2.0.76")
    w.user("first")  # 10:00:01
    w.assistant("m1", [text("one")], usage=usage(1, 2), stop="end_turn")  # :02
    _bookkeeping(w, "2026-03-01T11:00:00.000Z")
    w.user("second")  # :03
    w.assistant("m2", [text("two")], usage=usage(1, 2), stop="end_turn")  # :04
    answered = len(w.lines)
    _bookkeeping(w, "2026-03-01T11:30:00.000Z")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [r.state for r in t.runs] == ["finished", "finished"]
    assert [(r.ended, r.duration) for r in t.runs] == [
        ("2026-03-01T10:00:02.000Z", 1.0),
        ("2026-03-01T10:00:04.000Z", 1.0),
    ]
    assert t.runs[-1].end_line == answered
    # cut off in a call, its writer gone: interrupted, at its last conversation line
    w.user("third")  # :05
    w.assistant("m3", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}])  # :06
    called = len(w.lines)
    _bookkeeping(w, "2026-03-01T12:00:00.000Z")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    last = t.runs[-1]
    assert (last.state, last.end_line, last.ended, last.duration) == (
        "interrupted",
        called,
        "2026-03-01T10:00:06.000Z",
        1.0,
    )
