"""The ``codex`` format's detection and messages: meta, the events that repeat a
message, unknown lines kept raw, compactions, ``item_completed`` and pre-payload rollouts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import (
    HOSTILE,
    SESSION,
    RolloutWriter,
    completed_story,
    legacy_story,
    message_payload,
)

from session_core.formats import detect_format, detect_record
from session_core.formats.codex import CodexFormat

# -- detection -----------------------------------------------------------------------


def test_detected_and_claims_only_codex(rollout: Path) -> None:
    assert detect_format(rollout) == "codex"
    assert isinstance(CODEX, CodexFormat)
    fmt = CodexFormat()
    assert fmt.claims({"timestamp": "t", "type": "event_msg", "payload": {"type": "x"}})
    assert fmt.claims({"timestamp": "t", "type": "compacted", "payload": {}})
    # a line with no timestamp (an edited or exported copy) is still a rollout's
    assert fmt.claims({"type": "session_meta", "payload": {"id": "s"}})
    for other in (
        {"v": 1, "type": "session-meta", "id": "x", "ts": "t", "meta": {}},
        {"type": "session_start", "seq": 0, "session_id": "s", "time": "t", "data": {}},
        {"type": "user", "uuid": "u", "sessionId": "s", "message": {"role": "user"}},
        {"type": "summary", "summary": "s", "leafUuid": "u"},
        {"timestamp": "t", "type": "session_meta", "payload": "not a dict"},
        {"timestamp": "t", "type": "something_else", "payload": {}},
        {"timestamp": 5, "type": "session_meta", "payload": {}},
    ):
        assert not fmt.claims(other), other
    assert detect_record({"timestamp": "t", "type": "turn_context", "payload": {}}) == "codex"


# -- messages, duplicates, unknown lines ---------------------------------------------


def test_messages_and_meta(rollout: Path) -> None:
    t = opened(rollout)
    assert t.format == "codex"
    assert t.warnings == []
    assert t.meta["id"] == SESSION
    assert t.meta["cli_version"] == "0.104.0"
    assert t.meta["originator"] == "codex_cli_rs"
    assert t.meta["git"]["branch"] == "main"
    assert t.meta["model"] == "gpt-5-codex"  # the first turn_context's
    assert t.lines == len(rollout.read_bytes().splitlines()) == len(t.raw)
    developer = next(i for i in t.raw if i.role == "developer")
    assert developer.sticky and developer.kind == "message"
    reasoning = next(i for i in t.raw if i.kind == "message" and i.parts[0].kind == "reasoning")
    assert reasoning.parts[0].text == "Looking at the code"


def test_event_duplicates_shown_once(rollout: Path) -> None:
    t = opened(rollout)
    raw_texts = [(i.kind, i.role, i.text) for i in t.raw]
    assert raw_texts.count(("message", "user", "fix the bug")) == 1
    assert raw_texts.count(("event", "user", "fix the bug")) == 1  # kept, as an event
    finals = [i for i in t.raw if i.kind == "message" and i.text == "Done: " + HOSTILE]
    assert len(finals) == 1
    events = [i for i in t.raw if i.kind == "event" and "Done: " in i.text]
    assert len(events) == 1
    assert not any(i.kind == "event" for i in t.messages)


def test_hostile_text_verbatim(rollout: Path) -> None:
    t = opened(rollout)
    final = next(i for i in t.raw if i.kind == "message" and i.text.startswith("Done: "))
    assert final.text == "Done: " + HOSTILE
    record = next(i for i in t.raw if i.kind == "record" and "brand_new_item" in i.parts[0].text)
    assert orjson.loads(record.parts[0].text)["v"] == HOSTILE


def test_unknown_kept_raw_never_dropped(rollout: Path) -> None:
    t = opened(rollout)
    kinds = Counter(i.kind for i in t.raw)
    assert set(kinds) <= {"meta", "message", "event", "context", "compaction", "record"}
    future = next(i for i in t.raw if i.parts and i.parts[0].name == "future_line")
    assert future.kind == "record"
    assert orjson.loads(future.parts[0].text)["payload"] == {"x": 1}
    ghost = next(i for i in t.raw if i.parts and i.parts[0].name == "ghost_snapshot")
    assert ghost.kind == "record" and ghost not in t.messages  # never sent to the model
    new_event = next(i for i in t.raw if i.parts and i.parts[0].name == "brand_new_event")
    assert new_event.kind == "event" and HOSTILE in orjson.loads(new_event.parts[0].text)["detail"]
    assert len({i.id for i in t.raw}) == len(t.raw)  # ids are unique ...
    assert [i.id for i in opened(rollout).raw] == [i.id for i in t.raw]  # ... and stable


# -- compaction ---------------------------------------------------------------------------


def test_compaction_replays_from_replacement_history(rollout: Path) -> None:
    t = opened(rollout)
    (c,) = t.compactions
    line = next(i.line for i in t.raw if i.kind == "compaction")
    assert c.id == f"L{line}" and c.line == line
    texts = [(m.role, m.kind, m.text) for m in t.messages]
    assert texts[:4] == [
        ("developer", "message", "<permissions>sandboxed</permissions>"),
        ("user", "message", "fix the bug"),
        ("user", "message", "now deploy"),
        ("system", "compaction", ""),
    ]
    assert [m.text for m in t.messages[4:] if m.kind == "message" and m.role == "user"] == [
        "status?"
    ]
    raw_ids = {i.id for i in t.raw}
    assert set(c.kept) == {m.id for m in t.messages[:3]} and set(c.kept) <= raw_ids
    assert t.messages[3].id == f"L{line}.4"  # a replacement item of its own
    assert c.folded and not set(c.folded) & set(c.kept)
    folded = {i.id for i in t.raw if "folded" in i.marks}
    assert folded == set(c.folded)
    assert all(i.line < line for i in t.raw if "folded" in i.marks)
    agents = next(i for i in t.raw if i.text == "# AGENTS.md\nbe nice")
    assert agents.id in c.folded
    assert c.tokens_before == 1500 and c.tokens_after == 1000  # last request sizes


def test_compaction_without_replacement_history(tmp_path: Path) -> None:
    # Older writers wrote no history: Codex kept the user messages, then the summary.
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "a")
    w.message("assistant", "b")
    w.compacted("summary of a and b", None)
    w.message("user", "c")
    t = opened(Path(w.path))
    assert [m.text for m in t.messages] == ["a", "summary of a and b", "c"]
    assert [t.raw[i].text for i in range(len(t.raw)) if t.raw[i].id in t.compactions[0].folded] == [
        "b"
    ]


# -- newer writers: item_completed ---------------------------------------------------------


def test_item_completed_when_no_response_items(tmp_path: Path) -> None:
    completed_story(tmp_path / "r.jsonl")
    t = opened(tmp_path / "r.jsonl")
    assert [(m.role, m.text) for m in t.messages if m.parts[0].kind == "text"] == [
        ("user", "hello"),
        ("assistant", "hi there"),
    ]
    assert [p.text for m in t.messages for p in m.parts if p.kind == "reasoning"] == ["thinking"]
    states = {op.tool: op.state for op in t.tool_operations}
    assert states == {"command_execution": "failed", "apply_patch": "completed"}
    cmd = next(op for op in t.tool_operations if op.tool == "command_execution")
    assert cmd.result == "boom" and cmd.arguments == {"command": ["bash", "-lc", "exit 3"]}
    assert any(i.kind == "event" and "SomethingNew" in i.parts[0].text for i in t.raw)
    # the raw view (and the diff) says whose each completed item is, as the replay does
    said = {i.text: i.role for i in t.raw if i.kind == "event" and i.text}
    assert (said["hello"], said["hi there"]) == ("user", "assistant")


def test_item_completed_tools_are_a_call_and_its_answer(tmp_path: Path) -> None:
    """A completed tool item is sent as a call and its answer (as the response items
    saying the same are): the replay and the peek list the assistant's call, then the
    tool's answer naming it, never the output as what the assistant said."""
    from session_core import peek
    from session_core.formats import by_name

    completed_story(tmp_path / "r.jsonl")
    rows = by_name("codex").replay_json(tmp_path / "r.jsonl")["messages"]
    calls = [r for r in rows if "tool-calls" in r]
    assert calls and all(r["role"] == "assistant" and r["content"] == "" for r in calls)
    answers = {r["tool-call-id"]: r for r in rows if "tool-call-id" in r}
    assert {c["tool-calls"][0]["id"] for c in calls} == set(answers)
    assert all(r["role"] == "tool" for r in answers.values())
    assert "boom" in [r["content"] for r in answers.values()]
    said = peek(tmp_path / "r.jsonl").messages
    assert [(m.role, m.content) for m in said][:2] == [("user", "hello"), ("assistant", "")]
    assert [m.tool_call_id for m in said if m.role == "tool"] == list(answers)
    assert [c["id"] for m in said for c in m.tool_calls] == list(answers)


def test_item_completed_ignored_beside_response_items(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "hello")
    w.item_completed(
        {"type": "UserMessage", "id": "u", "content": [{"type": "text", "text": "hello"}]}
    )
    t = opened(tmp_path / "r.jsonl")
    assert [m.text for m in t.messages] == ["hello"]
    assert [i.kind for i in t.raw] == ["meta", "message", "event"]


def test_another_logs_line_of_an_id_and_a_time_is_no_rollouts_header() -> None:
    """A header of an id and a time alone is taken for a rollout's where the id is a
    uuid, as a rollout's is; any JSONL log's ``{"id": "42", "timestamp": …}`` is not."""
    from session_core.formats.codex.builder import is_legacy_header

    stamp = "2025-05-07T17:24:21.123Z"
    assert is_legacy_header({"id": SESSION, "timestamp": stamp})
    assert not is_legacy_header({"id": "42", "timestamp": stamp})


@pytest.mark.parametrize(
    "header",
    [None, {}],  # (``{}``: the earliest writers left out instructions a user had none of)
    ids=["instructions-and-git", "id-and-timestamp-alone"],
)
def test_a_rollout_from_before_the_payload_lines(
    tmp_path: Path, header: dict[str, Any] | None
) -> None:
    """Codex CLI of mid 2025 wrote a bare header and bare response items (no ``payload``):
    such a file is a Codex rollout, read as the response items it holds."""
    path = tmp_path / "rollout-2025-08-20T13-20-47-old.jsonl"
    legacy_story(path, header)
    assert detect_format(path) == "codex"
    t = opened(path)
    assert t.meta["id"] == SESSION and t.meta["timestamp"] == "2025-08-20T13:20:47.060Z"
    assert [(m.role, m.kind) for m in t.messages] == [
        ("user", "message"),
        ("assistant", "message"),
        ("assistant", "message"),
        ("tool", "message"),
        ("assistant", "message"),
    ]
    assert t.messages[0].text == "list the files" and t.messages[-1].text == "one file: a.txt"
    [op] = t.tool_operations
    assert (op.call_id, op.tool, op.state, op.result) == ("c1", "shell", "completed", "a.txt\n")
    assert [i.kind for i in t.raw] == ["meta", "record"] + ["message"] * 4 + ["record", "message"]
    assert t.raw[1].parts[0].name == "state"
    assert CODEX.check(path).startswith("codex, 5 messages sent next,")


def test_each_compaction_s_tokens_are_its_own(tmp_path: Path) -> None:
    """Two compactions with no request between: the first's before is the context it
    compacted and its after unknown (the next request follows the second); the second's
    before unknown (no request saw what the first left) and its after the next request's
    context: never the other's, which read as if compacting grew the context. A rollback
    between a compaction and the next request leaves that compaction no after either."""
    from viewer.widgets.model_diff import ModelDiff

    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "a")
    w.token_count((200, 0, 20, 0))
    one = w.compacted("S1", [message_payload("user", "a"), message_payload("user", "S1")])
    two = w.compacted("S2", [message_payload("user", "a"), message_payload("user", "S2")])
    w.message("user", "b")
    w.token_count((500, 0, 30, 0))
    t = opened(tmp_path / "r.jsonl")
    assert [(c.line, c.tokens_before, c.tokens_after) for c in t.compactions] == [
        (one, 200, None),
        (two, None, 300),
    ]
    rows = [text for _style, text in ModelDiff(t)]
    assert f"◆ compaction at line {one} · 200 tok before" in rows
    assert f"◆ compaction at line {two} · ? → 300 tok" in rows
    w.compacted("S3", [message_payload("user", "S3")])
    w.event("thread_rolled_back", num_turns=1)
    w.message("user", "c")
    w.token_count((600, 0, 40, 0))
    three, back = opened(tmp_path / "r.jsonl").compactions[2:]
    assert (three.tokens_before, three.tokens_after) == (300, None)
    assert (back.tokens_before, back.tokens_after) == (None, None)
