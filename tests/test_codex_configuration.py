"""Codex's newest response-item envelope: the harness's metadata written beside a
``response_item`` line's payload (``{type, payload, metadata}``: upstream's
``RolloutItemWire::ResponseItem``; a compaction's history's in
``replacement_history_metadata``), and the ``configuration_update`` item it decides the
fate of (sent only where ``harness_authored_configuration`` is true:
``context_manager/history.rs``'s ``is_api_message``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, message_payload
from helpers import run_cli

from session_core.diff_model import model_diff
from session_core.model import Transcript

HIGH: dict[str, Any] = {"type": "configuration_update", "reasoning": {"effort": "high"}}
LOW: dict[str, Any] = {"type": "configuration_update", "reasoning": {"effort": "low"}}
# (as upstream's ``response_item_envelope_preserves_harness_authored_configuration_provenance``
# asserts it serialized)
AUTHORED = {"client_authored": False, "harness_authored_configuration": True}
SAID_HIGH = "[configuration: reasoning effort high]"
SAID_LOW_UNSENT = (
    "[configuration: reasoning effort low] (not sent: not written by the Codex harness)"
)
TOOLS: dict[str, Any] = {
    "type": "additional_tools",
    "role": "developer",
    "tools": [{"type": "function", "name": "lookup"}],
}


def _line(w: RolloutWriter, payload: dict[str, Any], metadata: Any = None, **more: Any) -> int:
    """A ``response_item`` line as upstream writes it: its metadata beside its payload."""
    record: dict[str, Any] = {"timestamp": w.ts(), **more, "type": "response_item"}
    record["payload"] = payload
    if metadata is not None:
        record["metadata"] = metadata
    return w.raw(orjson.dumps(record) + b"\n")


def _both_ways(path: Path) -> list[Transcript]:
    """Read whole (typed lines first), and fed a parsed record at a time (the dict path)."""
    builder = CODEX.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        builder.feed(orjson.loads(raw), number)
    return [opened(path, alive=False), builder.transcript(writer_alive=False)]


def _sent(t: Transcript) -> list[tuple[str, str, str, bool]]:
    return [(m.id, m.role, "\n".join(p.text for p in m.parts), m.sticky) for m in t.messages]


def test_a_harness_authored_update_is_sent_and_another_kept_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line upstream writes for an effort change (with ``ordinal``, as a paginated
    rollout has) is a sticky developer item the model is sent; one no harness metadata
    marks (a client's) is not sent, its raw row says so, and neither is a record of a
    type the spec does not name."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    high = _line(w, HIGH, AUTHORED, ordinal=4)
    low = _line(w, LOW, {"client_authored": True})
    bare = _line(w, LOW)  # (no metadata at all: not the harness's either)
    w.message("assistant", "done")
    w.task_complete("t1")
    path = Path(w.path)
    for t in _both_ways(path):
        assert not t.other_records
        assert _sent(t)[1:3] == [
            (f"L{high}", "developer", SAID_HIGH, True),
            ("L7", "assistant", "done", False),
        ]
        rows = {item.line: item for item in t.raw}
        for unsent in (low, bare):
            assert rows[unsent].kind == "record"
            assert [p.text for p in rows[unsent].parts] == [SAID_LOW_UNSENT]
        assert [p.text for p in rows[high].parts] == [SAID_HIGH]  # (read again by span)
    code, said, _err = run_cli(capsys, "check", str(path))
    assert code == 0 and said.endswith("(codex, 3 messages sent next, usage unknown)\n"), said


def _every_kind(w: RolloutWriter, metadata: Any, inside: bool) -> None:
    """One line of every response item kind the reader reads (typed or not), each with
    ``metadata`` beside its payload, or (``inside``) in it."""
    items: list[dict[str, Any]] = [
        message_payload("developer", "rules"),
        message_payload("user", "go"),
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hm"}]},
        {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command":["ls"]}',
            "call_id": "f1",
        },
        {"type": "function_call_output", "call_id": "f1", "output": "a.txt"},
        {"type": "custom_tool_call", "name": "apply_patch", "input": "*** x", "call_id": "c1"},
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
        {"type": "local_shell_call", "call_id": "s1", "status": "completed", "action": {}},
        {"type": "web_search_call", "id": "w1", "status": "completed", "action": {"query": "q"}},
        {
            "type": "image_generation_call",
            "id": "i1",
            "status": "completed",
            "revised_prompt": "a cat",
        },
        {"type": "tool_search_call", "call_id": "t1", "arguments": {"query": "find"}},
        {"type": "tool_search_output", "call_id": "t1", "tools": [{"name": "lookup"}]},
        TOOLS,
        {"type": "agent_message", "author": "/root/w", "recipient": "/root", "content": "hi"},
        HIGH,
        {"type": "context_compaction", "encrypted_content": "ENC"},
        message_payload("assistant", "done"),
    ]
    for payload in items:
        if inside:
            _line(w, {**payload, "metadata": metadata})
        else:
            _line(w, payload, metadata)


def _reading(t: Transcript) -> Any:
    """What a replay says of a file (its times aside: the files' clocks agree anyway)."""
    ops = [(op.call_id, op.tool, op.state) for op in t.tool_operations]
    return [m.to_json() for m in t.messages], ops, t.warnings, len(t.raw)


def test_metadata_never_changes_how_an_item_reads(tmp_path: Path) -> None:
    """Every kind of item reads as it does with no metadata: beside its payload (where
    upstream writes it) and in it (where upstream's serde reads past it), typed and
    parsed alike. (The harness's mark in the payload is no harness's: the update is
    sent only where the plain file's would be.)"""
    files = {}
    for name, metadata, inside in (
        ("plain", None, False),
        ("beside", AUTHORED, False),
        ("inside", {"fallback_token_limit_override": 5, "client_authored": True}, True),
    ):
        w = RolloutWriter(tmp_path / f"{name}.jsonl")
        w.session_meta()
        w.task_started("t1")
        _every_kind(w, metadata, inside)
        w.task_complete("t1")
        files[name] = [_reading(t) for t in _both_ways(Path(w.path))]
    plain, beside, inside_read = files["plain"], files["beside"], files["inside"]
    assert inside_read == plain
    # beside: the same, but for the harness's update, which is now sent
    messages, ops, warnings, rows = beside[0]
    assert (ops, warnings, rows) == plain[0][1:]
    update = [m for m in messages if m["content"] == SAID_HIGH]
    assert update and update[0]["sticky"] is True
    assert [m for m in messages if m is not update[0]] == plain[0][0]
    assert beside[0] == beside[1]


def test_a_compaction_keeps_an_item_whose_payload_held_metadata(tmp_path: Path) -> None:
    """A compaction's history copies an item as upstream reads it: a tools list whose
    line held metadata in its payload is that item kept (its id), not folded and sent
    again as one of the compaction's own."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    tools = _line(w, {**TOOLS, "metadata": {"client_authored": False}})
    w.compacted("", [message_payload("user", "go"), TOOLS])
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        assert [m.id for m in t.messages] == ["L3", f"L{tools}"]


def _compaction(tmp_path: Path, metadata: Any) -> tuple[Path, int, int]:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    high = _line(w, HIGH, AUTHORED)
    payload: dict[str, Any] = {
        "message": "",
        "replacement_history": [message_payload("user", "go"), HIGH, LOW],
    }
    if metadata is not None:
        payload["replacement_history_metadata"] = metadata
    compacted = w.write("compacted", payload)
    w.task_complete("t1")
    return Path(w.path), high, compacted


def test_a_replacement_historys_updates_are_sent_as_its_metadata_says(tmp_path: Path) -> None:
    """A compaction's history's metadata is beside it, one entry each (upstream's
    ``replacement_history_metadata``): the harness's update there is the one kept (the
    earlier line's item), the client's is not sent and its compaction's row says so."""
    path, high, compacted = _compaction(tmp_path, [{}, AUTHORED, {"client_authored": True}])
    for t in _both_ways(path):
        assert _sent(t) == [("L3", "user", "go", False), (f"L{high}", "developer", SAID_HIGH, True)]
        row = next(item for item in t.raw if item.line == compacted)
        said = {p.name: p.text for p in row.parts}
        assert said["replacement item 3 (not sent)"] == SAID_LOW_UNSENT
        assert not t.other_records
    assert "in its place" not in "".join(model_diff(opened(path, alive=False)))


def test_a_history_without_aligned_metadata_sends_no_update(tmp_path: Path) -> None:
    """Metadata that is not one entry per item (upstream refuses such a line) or none at
    all: the history's updates are read as no harness's, never an error; metadata that
    does not line up is said, a warning naming its line (none is no fault: not said)."""
    shapes: list[tuple[Any, str | None]] = [
        (None, None),
        ([AUTHORED], "of 1 entries for 3 history items"),
        ("odd", "that is no list, for 3 history items"),
    ]
    for metadata, said_of in shapes:
        path, _high, compacted = _compaction(tmp_path, metadata)
        for t in _both_ways(path):
            assert _sent(t) == [("L3", "user", "go", False)]
            if said_of is None:
                assert not t.warnings
            else:
                (warning,) = t.warnings
                assert warning.startswith(f"line {compacted}: a compaction has a ")
                assert said_of in warning and "configuration update" in warning
            row = next(item for item in t.raw if item.line == compacted)
            said = {p.name: p.text for p in row.parts}
            assert said["replacement item 2 (not sent)"].endswith(
                "(not sent: not written by the Codex harness)"
            )


def test_metadata_with_no_history_is_said_and_the_file_read_on(tmp_path: Path) -> None:
    """A compaction with ``replacement_history_metadata`` but no history (upstream
    refuses it too) is said, a warning naming its line; the lines after it are read."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    compacted = w.write("compacted", {"message": "summary", "replacement_history_metadata": []})
    w.message("assistant", "after")
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        assert t.warnings == [
            f"line {compacted}: a compaction has a replacement_history_metadata with no "
            "replacement_history (upstream refuses such a line): the line is read without it"
        ]
        assert _sent(t)[-1] == (f"L{compacted + 1}", "assistant", "after", False)


def test_an_update_a_compaction_made_reads_the_same_once_folded(tmp_path: Path) -> None:
    """An update only a compaction's history holds (the harness's, by its metadata
    there) is that compaction's own item; a later compaction that folds it reads it
    again from its line, the harness's still (not said unsent)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    first = w.write(
        "compacted",
        {
            "message": "",
            "replacement_history": [message_payload("user", "go"), HIGH],
            "replacement_history_metadata": [{}, AUTHORED],
        },
    )
    w.compacted("", [message_payload("user", "go")])
    w.task_complete("t1")
    t = opened(Path(w.path), alive=False)
    folded = t.compactions[1].folded
    items = [folded.item_at(k) for k in range(len(folded))]
    said = [(i.id, i.role, i.parts[0].text) for i in items if i is not None]
    assert said == [(f"L{first}.2", "developer", SAID_HIGH)]
