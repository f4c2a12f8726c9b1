"""The ``codex`` builder fed a line at a time, and fed what it never expected: mutated
bytes and odd but valid shapes."""

from __future__ import annotations

from pathlib import Path

import orjson
from codex_helpers import CODEX, opened, ops_by_call
from codex_writer import story
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from json_strategies import ITEM_FIELDS, json_values

from session_core import TranscriptError
from session_core.file_lines import read_records

# -- the live path -----------------------------------------------------------------------


def test_builder_fed_in_batches(rollout: Path) -> None:
    records = [(n, v) for n, v, _ in read_records(str(rollout))]
    builder = CODEX.builder(str(rollout))
    cut = next(
        n
        for n, v in records
        if v["type"] == "response_item" and v["payload"].get("call_id") == "c2"
    )
    for n, v in records:
        builder.lines = n
        builder.feed(v, n)
        if n == cut:
            assert ops_by_call(builder.transcript(None))["c2"] == "running"
    whole, once = builder.transcript(None).to_json(), opened(rollout).to_json()
    assert whole == once
    assert ops_by_call(builder.transcript(None))["c2"] == "failed"


# -- hostile bytes -----------------------------------------------------------------------


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_mutated_bytes_open_or_transcript_error(tmp_path: Path, data: st.DataObject) -> None:
    path = tmp_path / "m.jsonl"
    if not path.exists():
        story(tmp_path / "base.jsonl")
    base = (tmp_path / "base.jsonl").read_bytes()
    compressed = data.draw(st.booleans())
    if compressed:
        import zstandard

        base = zstandard.ZstdCompressor().compress(base)
    blob = bytearray(base)
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(blob) - 1))
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        if op == "flip":
            blob[at] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del blob[at:]
            if not blob:
                blob.extend(b"{")
        elif op == "insert":
            blob[at:at] = data.draw(st.binary(min_size=1, max_size=12))
        else:
            del blob[at : at + data.draw(st.integers(1, 40))]
            if not blob:
                blob.extend(b"{")
    path.write_bytes(bytes(blob))
    try:
        t = CODEX.open(path)
    except TranscriptError:
        return
    t.to_json()
    orjson.dumps(t.to_json(), default=str)


# -- odd but valid shapes ----------------------------------------------------------------

_json = json_values(ints=5, infinity=None, width=4, key_size=6, leaves=12)
_keys = st.sampled_from(
    [
        *ITEM_FIELDS,
        "input",
        "status",
        "action",
        "summary",
        "info",
        "total_token_usage",
        "last_token_usage",
        "turn_id",
        "item",
        "message",
        "replacement_history",
        "model",
        "source",
        "exit_code",
        "rate_limits",
    ]
)
_payload = st.dictionaries(_keys | st.text(max_size=4), _json, max_size=6)
_types = st.sampled_from(
    [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "token_count",
        "task_started",
        "task_complete",
        "turn_aborted",
        "item_completed",
        "user_message",
        "agent_message",
        "agent_reasoning",
        "exec_command_end",
        "patch_apply_end",
        "compaction",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                ["session_meta", "response_item", "event_msg", "turn_context", "compacted"]
            ),
            _types,
            _payload,
        ),
        max_size=12,
    )
)
def test_odd_shapes_never_break_the_builder(lines: list[tuple[str, str, dict]]) -> None:
    builder = CODEX.builder("odd.jsonl")
    for number, (kind, inner, payload) in enumerate(lines, start=1):
        payload.setdefault("type", inner)
        builder.lines = number
        builder.feed(
            {"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload}, number
        )
    t = builder.transcript(False)
    assert not [w for w in t.warnings if "could not be read" in w]
    assert len(t.raw) == len(lines)
    orjson.dumps(t.to_json(), default=str)
