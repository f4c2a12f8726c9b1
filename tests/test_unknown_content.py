"""Content no spec names, in a message, is said as written in the replay's and peek's
``content``, never dropped; a Codex response item of an unknown type is no message.

An audit (session 42, E: F1) found a Claude Code block of an unknown type beside a text
block gone from ``replay`` and ``peek`` (the diff and the md export showed it), a text
block with no ``text`` said as the string ``null``, and a Codex response item of an
unknown type made a message with the role ``system`` (which the item never said) and no
content. The contract suite holds every format to the rule (test_contract_unnamed);
these are the cases of each reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from claude_code_helpers import FMT, both
from codex_writer import RolloutWriter, message_payload

from session_core import open_transcript, peek
from session_core.formats import by_name

TS = "2026-02-12T16:02:20.000Z"


def _assistant(uuid: str, content: list[Any], parent: str | None = None) -> dict[str, Any]:
    message = {"model": "claude-opus-4-6", "id": f"m-{uuid}", "role": "assistant"}
    usage = {"input_tokens": 1, "output_tokens": 1}
    return {
        **{"parentUuid": parent, "isSidechain": False, "type": "assistant", "uuid": uuid},
        **{"sessionId": "s1", "timestamp": TS},
        "message": {**message, "content": content, "usage": usage},
    }


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            [{"type": "text", "text": "ok"}, {"type": "zzz", "data": "hello"}],
            'ok\n{"type":"zzz","data":"hello"}',
        ),
        ([{"type": "text"}], '{"type":"text"}'),  # (was the string "null")
        ([{"type": "text", "text": None}], '{"type":"text","text":null}'),
        (
            [{"type": "zzz", "n": [1, 2]}, {"type": "text", "text": "after"}],
            '{"type":"zzz","n":[1,2]}\nafter',
        ),
    ],
)
def test_a_claude_code_block_no_spec_names_is_said_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: list[Any], said: str
) -> None:
    path = _write(tmp_path / "s.jsonl", [_assistant("a1", content)])
    both(path, monkeypatch)  # (read typed and as dicts alike)
    assert [m["content"] for m in FMT.replay_json(path)["messages"]] == [said]
    assert [m.content for m in peek(path).messages] == [said]


def test_a_block_beside_a_claude_code_tool_result_is_said_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "done"}
    user = {
        **{"parentUuid": "a1", "isSidechain": False, "type": "user", "uuid": "u1"},
        **{"sessionId": "s1", "timestamp": TS},
        "message": {"role": "user", "content": [result, {"type": "zzz", "k": 1}]},
    }
    path = _write(tmp_path / "s.jsonl", [_assistant("a1", [call]), user])
    both(path, monkeypatch)
    answer = FMT.replay_json(path)["messages"][1]
    assert (answer["content"], answer["text"]) == ("done", '{"type":"zzz","k":1}')
    # peek says it alike (it kept the results' text alone: the block was dropped)
    peeked = peek(path).to_json()["messages"][1]
    assert (peeked["content"], peeked["text"]) == ("done", '{"type":"zzz","k":1}')
    assert peeked["tool-call-id"] == "t1"


def _codex(tmp_path: Path, *items: dict[str, Any]) -> Path:
    head = [
        {"type": "session_meta", "payload": {"id": "019c8a59-0000-7000-8000-000000000001"}},
        {"type": "turn_context", "payload": {"turn_id": "t1", "model": "gpt-5.3-codex"}},
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}},
    ]
    lines = [*head, *({"type": "response_item", "payload": item} for item in items)]
    lines.append({"type": "brand_new", "payload": {"x": 1}})  # (a line type not named)
    lines.append({"type": "event_msg", "payload": {"type": "task_complete", "turn_id": "t1"}})
    return _write(tmp_path / "rollout.jsonl", [{"timestamp": TS, **line} for line in lines])


def test_a_codex_item_of_an_unknown_type_is_no_message(tmp_path: Path) -> None:
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
    unknown = {"type": "brand_new_item", "role": "assistant", "x": 1}
    path = _codex(tmp_path, prompt, {"type": "brand_new_item", "x": 1}, unknown)
    fmt = by_name("codex")
    replay = fmt.replay_json(path)
    # No message claims a role its item never said, nor what is sent next (upstream reads
    # such an item as ``Other``, which no request holds).
    assert [(m["role"], m["content"]) for m in replay["messages"]] == [("user", "go")]
    assert replay["other-records"] == [
        {"line": 5, "type": "brand_new_item", "record": {"type": "brand_new_item", "x": 1}},
        {"line": 6, "type": "brand_new_item", "record": unknown},
        {
            "line": 7,
            "type": "brand_new",
            "record": {"timestamp": TS, "type": "brand_new", "payload": {"x": 1}},
        },
    ]
    note = fmt.check(path)
    assert "1 message sent next" in note
    assert "3 records of a type the spec does not name (kept raw)" in note
    # Kept raw: each is a row of the raw view, as written.
    rows = {item.line: item for item in open_transcript(path).raw}
    assert rows[5].kind == rows[6].kind == rows[7].kind == "record"
    assert '"x":1' in rows[6].parts[0].text


def test_a_codex_block_no_spec_names_is_said_as_written(tmp_path: Path) -> None:
    blocks = [{"type": "output_text", "text": "hi"}, {"type": "zzz", "x": 1}]
    answer = {"type": "message", "role": "assistant", "content": blocks}
    path = _codex(tmp_path, answer)
    said = 'hi\n{"type":"zzz","x":1}'
    assert [m["content"] for m in by_name("codex").replay_json(path)["messages"]] == [said]
    assert [m.content for m in peek(path).messages] == [said]


def test_a_codex_compaction_item_says_its_words_in_its_content(tmp_path: Path) -> None:
    """The encrypted compaction item that is sent (no text of its own) says in the replay's
    ``content`` what every view shows of it, as an image's words are said there."""
    path = _codex(tmp_path, {"type": "compaction", "encrypted_content": "abc"})
    sent = by_name("codex").replay_json(path)["messages"]
    assert [(m["kind"], m["content"]) for m in sent] == [
        ("compaction", "[compaction summary, encrypted, 3 chars]")
    ]


def test_a_codex_item_of_an_unknown_type_in_a_compactions_history_is_not_sent(
    tmp_path: Path,
) -> None:
    """As at the top level: upstream reads it as ``Other`` and sends none (the copy a
    compaction's history carries of one was a message sent next, with no content)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "hello")
    w.write("response_item", {"type": "brand_new_item", "x": 1})
    w.task_complete("t1")
    summary = {"type": "compaction", "encrypted_content": "A" * 10}
    history = [message_payload("user", "hello"), {"type": "brand_new_item", "x": 1}, summary]
    w.compacted("", history)
    sent = by_name("codex").replay_json(Path(w.path))["messages"]
    assert [m["role"] for m in sent] == ["user", "system"]  # (the summary item's own)
    assert all("brand_new_item" not in m["content"] for m in sent)
