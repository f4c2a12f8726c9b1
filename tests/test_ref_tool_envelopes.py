"""The two envelopes that make a tool call durable (``tool-dispatched`` and
``tool-settled``), and the three states a kill can leave a call in: never
dispatched, still running, and finished with the settle never landing.

Ported scenario by scenario from the reference module's
``t/17-tool-envelopes.rakutest`` (m-doughty/LLM-Agent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from ref_helpers import assert_refused, call, file_lines, written_last

from session_core import Message, TranscriptError

# --- helpers ------------------------------------------------------------------------


def fixed_ts(index: int) -> str:
    # A fixed clock: nothing here reads a timestamp except to see that it is there.
    return f"2026-08-10T00:00:{index % 60:02d}.000000Z"


def write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    """A transcript by hand, line by line: how a crash is simulated."""
    out = []
    for index, line in enumerate(lines):
        env = {
            "v": 1,
            "type": line["type"],
            "id": line.get("id", f"id-{index}"),
            "ts": fixed_ts(index),
            "payload": line["payload"],
        }
        out.append(orjson.dumps(env, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE))
    path.write_bytes(b"".join(out))


META = {"type": "session-meta", "payload": {}}


def op_dispatched(tool: str = "fs_read", **more: str) -> dict[str, Any]:
    """The dispatch line of operation op-1 (call c1, no arguments)."""
    payload = {"call-id": "c1", "tool": tool, "arguments": "{}", **more}
    return {"type": "tool-dispatched", "id": "op-1", "payload": payload}


def op_settled(outcome: str) -> dict[str, Any]:
    """The settle line of operation op-1."""
    return {"type": "tool-settled", "payload": {"op-id": "op-1", "outcome": outcome}}


def go_and_assistant(tool: str, content: str) -> list[dict[str, Any]]:
    return [
        META,
        {"type": "message", "payload": {"role": "user", "content": "go"}},
        {
            "type": "message",
            "payload": {"role": "assistant", "content": content, "tool-calls": [call("c1", tool)]},
        },
    ]


# --- scenarios ----------------------------------------------------------------------


def test_a_dispatch_line_is_a_whole_operation_record(create) -> None:
    s, path = create()

    op_id = s.append_tool_dispatched(
        call_id="call_1",
        tool="fs_write",
        arguments='{"path":"b.txt"}',
        arguments_digest="deadbeef",
        idempotency="destructive",
        run_id="run-1",
        round=2,
    )

    line = orjson.loads(file_lines(path)[-1])
    assert line["type"] == "tool-dispatched"
    # Its envelope id IS the operation id: what a settle names and a UI joins on.
    assert line["id"] == op_id
    payload = line["payload"]
    assert payload["call-id"] == "call_1"
    assert payload["tool"] == "fs_write"
    assert payload["arguments"] == '{"path":"b.txt"}'
    assert payload["idempotency"] == "destructive"
    assert payload["round"] == 2
    assert payload == {
        "call-id": "call_1",
        "tool": "fs_write",
        "arguments": '{"path":"b.txt"}',
        "arguments-digest": "deadbeef",
        "idempotency": "destructive",
        "run-id": "run-1",
        "round": 2,
    }

    # An operation is not a message.
    assert s.messages() == []

    record = s.pending_tool_operations()[0]
    assert record["op-id"] == op_id
    assert record["dispatched-at"] == line["ts"]
    assert record["settled"] is False


def test_optional_dispatch_keys_are_left_out_when_not_given(create) -> None:
    s, path = create()
    s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments="{}")
    payload = orjson.loads(file_lines(path)[-1])["payload"]
    assert payload == {"call-id": "c1", "tool": "fs_read", "arguments": "{}"}


def test_pending_is_exactly_what_has_not_been_settled(create) -> None:
    s, path = create()

    assert list(s.pending_tool_operations()) == []

    one = s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments="{}")
    two = s.append_tool_dispatched(call_id="c2", tool="fs_write", arguments="{}")

    pending = s.pending_tool_operations()
    assert len(pending) == 2
    assert [op["call-id"] for op in pending] == ["c1", "c2"]

    settle_id = s.append_tool_settled(
        op_id=one, outcome="completed", duration=1.5, result_digest="abc"
    )
    settle_line = written_last(path, settle_id, "tool-settled")
    assert settle_line["payload"] == {
        "op-id": one,
        "outcome": "completed",
        "duration": 1.5,
        "result-digest": "abc",
    }

    assert [op["call-id"] for op in s.pending_tool_operations()] == ["c2"]
    assert s.pending_tool_operations()[0]["dispatched-at"]

    s.append_tool_settled(op_id=two, outcome="outcome-unknown", reason="deadline")
    assert list(s.pending_tool_operations()) == []

    # None of which was ever a conversation message.
    assert s.messages() == []

    # The operation records keep the whole story.
    ops = s.tool_operations()
    assert [op["op-id"] for op in ops] == [one, two]
    assert ops[0]["settled"] is True
    assert ops[0]["outcome"] == "completed"
    assert ops[0]["settle-id"] == settle_id
    assert ops[0]["settled-at"] == settle_line["ts"]
    assert ops[0]["duration"] == 1.5
    assert ops[0]["result-digest"] == "abc"
    assert ops[1]["outcome"] == "outcome-unknown"
    assert ops[1]["reason"] == "deadline"


def test_an_operation_is_settled_once_and_only_if_it_exists(create, load) -> None:
    s, path = create()
    op_id = s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments="{}")
    s.append_tool_settled(op_id=op_id, outcome="completed")
    before = path.read_bytes()

    # One operation, one account of it.
    with pytest.raises(TranscriptError):
        s.append_tool_settled(op_id=op_id, outcome="failed")
    # Nothing dispatched it.
    with pytest.raises(TranscriptError):
        s.append_tool_settled(op_id="never-happened", outcome="failed")
    # `abandoned` is not an outcome: a dispatched call cannot be declared never to have run.
    with pytest.raises(TranscriptError):
        s.append_tool_settled(op_id=op_id, outcome="abandoned")

    # Every refusal came before the write.
    assert len(file_lines(path)) == 3
    assert path.read_bytes() == before
    assert len(s) == 3
    s.close()

    replayed = load(path)
    assert sum(1 for e in replayed.events() if e["type"] == "tool-settled") == 1


def test_a_settle_line_carries_its_optional_keys(create) -> None:
    s, path = create()
    op_id = s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments="{}")
    artifact = {"file": "x.txt", "digest": "ff", "bytes": 10, "chars": 10, "elided-chars": 4}
    s.append_tool_settled(
        op_id=op_id, outcome="failed", duration=0.1234567, error="boom", artifact=artifact
    )
    payload = orjson.loads(file_lines(path)[-1])["payload"]
    # The duration is rounded to the microsecond.
    assert payload == {
        "op-id": op_id,
        "outcome": "failed",
        "duration": 0.123457,
        "error": "boom",
        "artifact": artifact,
    }
    record = s.tool_operations()[0]
    assert record["error"] == "boom"
    assert record["artifact"] == artifact
    assert record["duration"] == 0.123457


def test_an_unknown_outcome_is_refused_even_for_a_pending_operation(create) -> None:
    s, path = create()
    op_id = s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments="{}")
    before = path.read_bytes()
    with pytest.raises(TranscriptError):
        s.append_tool_settled(op_id=op_id, outcome="abandoned")
    assert path.read_bytes() == before
    assert [op["op-id"] for op in s.pending_tool_operations()] == [op_id]


def test_resolve_tool_operation_is_the_repair_paths_way_in(create) -> None:
    s, path = create()
    op_id = s.append_tool_dispatched(call_id="c1", tool="sh_run", arguments="{}")

    settle_id = s.resolve_tool_operation(op_id, outcome="outcome-unknown", reason="crash-repair")
    line = written_last(path, settle_id, "tool-settled")
    assert line["payload"]["reason"] == "crash-repair"
    assert line["payload"] == {
        "op-id": op_id,
        "outcome": "outcome-unknown",
        "reason": "crash-repair",
    }
    assert list(s.pending_tool_operations()) == []


def test_both_envelopes_survive_a_reload_in_order_and_with_their_state(create, load) -> None:
    s, path = create()
    s.append_message(Message(role="user", content="write b.txt"))
    done = s.append_tool_dispatched(
        call_id="c1", tool="fs_write", arguments='{"path":"b"}', idempotency="destructive"
    )
    s.append_message(Message(role="tool", content="written", tool_call_id="c1"))
    s.append_tool_settled(op_id=done, outcome="completed")
    running = s.append_tool_dispatched(call_id="c2", tool="sh_run", arguments="{}")
    s.close()

    replayed = load(path)
    assert len(replayed.messages()) == 2
    pending = replayed.pending_tool_operations()
    assert len(pending) == 1
    assert pending[0]["op-id"] == running
    assert pending[0]["tool"] == "sh_run"
    assert pending[0]["call-id"] == "c2"

    # Settled is history, not a work queue item: still in the transcript.
    assert sum(1 for e in replayed.events() if e["type"] == "tool-settled") == 1
    ops = replayed.tool_operations()
    assert [op["op-id"] for op in ops] == [done, running]
    assert ops[0]["settled"] is True
    assert ops[0]["outcome"] == "completed"
    assert ops[0]["idempotency"] == "destructive"
    assert ops[1]["settled"] is False


def test_sigkill_taxonomy_never_dispatched(fresh, load) -> None:
    # Died between committing an assistant turn with tool calls and dispatching any.
    path = fresh()
    write_lines(path, go_and_assistant("fs_read", "reading"))

    s = load(path)
    # Nothing pending, because nothing was ever dispatched...
    assert list(s.pending_tool_operations()) == []
    assert list(s.tool_operations()) == []
    # ...but the conversation holds an unanswered tool call, and no tool message.
    assert len(s.messages()[-1].tool_calls) == 1
    assert not any(m.role == "tool" for m in s.messages())


def test_sigkill_taxonomy_dispatched_still_running(fresh, load) -> None:
    path = fresh()
    write_lines(
        path,
        [
            *go_and_assistant("fs_write", "writing"),
            op_dispatched("fs_write", idempotency="destructive"),
        ],
    )

    s = load(path)
    pending = s.pending_tool_operations()
    assert len(pending) == 1
    assert pending[0]["op-id"] == "op-1"
    assert pending[0]["idempotency"] == "destructive"
    assert pending[0]["dispatched-at"] == fixed_ts(3)
    assert pending[0]["settled"] is False
    # In flight when the lights went out: no answer in the conversation.
    assert not any(m.role == "tool" for m in s.messages())


def test_sigkill_taxonomy_completed_but_unpersisted(fresh, load) -> None:
    # The tool message is written before the settle, so a kill between the two leaves
    # a pending operation whose call already has its answer.
    path = fresh()
    write_lines(
        path,
        [
            *go_and_assistant("fs_write", "writing"),
            op_dispatched("fs_write"),
            {
                "type": "message",
                "payload": {"role": "tool", "content": "written", "tool-call-id": "c1"},
            },
        ],
    )

    s = load(path)
    pending = s.pending_tool_operations()
    assert len(pending) == 1

    answered = [
        m for m in s.messages() if m.role == "tool" and m.tool_call_id == pending[0]["call-id"]
    ]
    assert len(answered) == 1
    assert answered[0].content == "written"


def test_a_settle_for_an_operation_that_is_not_there_fails_the_load(fresh, load) -> None:
    orphan = fresh()
    write_lines(
        orphan,
        [
            META,
            {"type": "tool-settled", "payload": {"op-id": "never-written", "outcome": "completed"}},
        ],
    )
    assert_refused(load, orphan, 2)

    twice = fresh()
    write_lines(twice, [META, op_dispatched(), op_settled("completed"), op_settled("failed")])
    assert_refused(load, twice, 4)


def test_a_settle_before_its_dispatch_or_with_a_bad_outcome_fails_the_load(fresh, load) -> None:
    early = fresh()
    write_lines(early, [META, op_settled("completed"), op_dispatched()])
    assert_refused(load, early, 2)

    abandoned = fresh()
    write_lines(abandoned, [META, op_dispatched(), op_settled("abandoned")])
    assert_refused(load, abandoned, 3)


def test_a_compaction_does_not_disturb_the_operations_beside_it(create) -> None:
    # Operations live outside the conversation, so a compaction cannot summarise a
    # side effect away.
    s, _ = create()
    s.append_message(Message(role="system", content="BE GOOD", sysprompt=True, sticky=True))
    s.append_message(Message(role="user", content="go"))
    op = s.append_tool_dispatched(call_id="c1", tool="fs_write", arguments="{}")
    through = s.append_message(Message(role="tool", content="written", tool_call_id="c1"))

    s.append_compaction(summary="we wrote b.txt", replaces_through_id=through)

    pending = s.pending_tool_operations()
    assert len(pending) == 1
    assert pending[0]["op-id"] == op
    # The conversation really was compacted: the sticky system prompt, then the summary.
    assert [m.role for m in s.messages()] == ["system", "user"]
    assert [m.content for m in s.messages()] == ["BE GOOD", "we wrote b.txt"]

    # ...and it can still be settled afterwards: a compaction never orphans one.
    s.resolve_tool_operation(op, outcome="outcome-unknown", reason="crash-repair")
    assert list(s.pending_tool_operations()) == []


@pytest.mark.parametrize("type_", ["tool-dispatched", "tool-settled", "run-context"])
def test_the_built_in_types_all_refuse_the_escape_hatch(create, type_: str) -> None:
    s, path = create()
    before = path.read_bytes()
    with pytest.raises(TranscriptError):
        s.append_event(type=type_, payload={})
    assert path.read_bytes() == before


def test_an_older_transcript_still_loads_and_has_nothing_pending(fresh, load) -> None:
    # Backwards: a file from before operations existed.
    path = fresh()
    write_lines(
        path,
        [
            {"type": "session-meta", "payload": {"agent": "sadna"}},
            {"type": "message", "payload": {"role": "user", "content": "hello"}},
            {"type": "message", "payload": {"role": "assistant", "content": "hi"}},
        ],
    )
    old = load(path)
    assert len(old.messages()) == 2
    assert list(old.pending_tool_operations()) == []

    # Forwards: the new lines did not move the envelope version, so an older reader
    # skips them as an unknown type instead of dying.
    new = fresh()
    write_lines(
        new,
        [
            META,
            {"type": "message", "payload": {"role": "user", "content": "go"}},
            op_dispatched(),
        ],
    )
    forward = load(new)
    dispatched = [e for e in forward.events() if e["type"] == "tool-dispatched"]
    assert dispatched[0]["v"] == 1
    assert dispatched[0]["id"] == "op-1"


def test_returned_operation_records_are_copies(create) -> None:
    s, path = create()
    s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments={"path": "a"})
    # An object is kept as an object, exactly as the reference writes it.
    assert orjson.loads(file_lines(path)[-1])["payload"]["arguments"] == {"path": "a"}
    handed = s.pending_tool_operations()
    handed[0]["call-id"] = "tampered"
    handed[0]["arguments"]["path"] = "tampered"
    again = s.pending_tool_operations()[0]
    assert again["call-id"] == "c1"
    assert again["arguments"] == {"path": "a"}
