"""What the Codex builder keeps packed and makes when asked for: a snapshot's tool
operations (``CodexOps``), a compaction's ids (``EntryIds``) and each response's usage
(``ResponseUsage``). Each reads as the plain lists and objects it stands for."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, story

from session_core import TranscriptError
from session_core.file_lines import feed_file
from session_core.formats.base import check_note
from session_core.formats.codex.builder import CodexBuilder
from session_core.formats.codex.compaction import EntryIds
from session_core.formats.codex.ops import CodexOps
from session_core.model import Item, Usage, ops_by_call, rows_json, unsettled_ops


def calls(tmp_path: Path) -> RolloutWriter:
    """Four calls: answered, failed by a late exit code, cut off (turn aborted), open;
    then one call id used twice."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.function_call("exec_command", {"cmd": "ok"}, "a")
    w.function_output("a", "done", exit_code=0)
    w.function_call("exec_command", {"cmd": "late"}, "b")
    w.function_output("b", "plain output")
    w.event("exec_command_end", call_id="b", exit_code=3)
    w.function_call("exec_command", {"cmd": "cut"}, "c")
    w.turn_aborted("t1")
    w.task_started("t2")
    w.function_call("exec_command", {"cmd": "first"}, "d")
    w.function_output("d", "one", exit_code=0)
    w.function_call("exec_command", {"cmd": "again"}, "d")
    w.function_call("exec_command", {"cmd": "open"}, "e")
    return w


def test_ops_read_as_the_list_they_stand_for(tmp_path: Path) -> None:
    t = opened(Path(calls(tmp_path).path))
    ops = t.tool_operations
    assert isinstance(ops, CodexOps)
    listed = list(ops)
    assert len(ops) == 6 and ops == listed and ops[-1] is listed[-1] and ops[0] is ops[0]
    assert ops[1:3] == listed[1:3] and ops[::-1] == listed[::-1]
    with pytest.raises(IndexError):
        ops[6]
    states = [(op.call_id, op.state) for op in ops]
    assert states == [
        ("a", "completed"),
        ("b", "failed"),  # the exec_command_end's exit code, after its output
        ("c", "interrupted"),  # its turn was aborted
        ("d", "completed"),
        ("d", "running"),
        ("e", "running"),
    ]
    assert ops[1].detail == {"exit_code": 3}
    assert ops[0].arguments == {"cmd": "ok"} and ops[0].result is not None
    assert ops[0].run_id == "t1" and ops[5].run_id == "t2"
    assert ops[0].line == 3 and ops[0].result_line == 4


def test_unsettled_and_by_call_give_what_a_scan_of_every_op_gives(tmp_path: Path) -> None:
    path = Path(calls(tmp_path).path)
    for alive in (None, False):
        t = opened(path, alive)
        every = list(t.tool_operations)
        busy = [op for op in every if op.state in ("running", "interrupted")]
        assert unsettled_ops(t.tool_operations) == busy
        unsettled_ops(t.tool_operations).clear()  # (found once a snapshot: a copy each time)
        assert unsettled_ops(t.tool_operations) == busy
        assert dict(ops_by_call(t.tool_operations)) == {op.call_id: op for op in every}
        assert ops_by_call(t.tool_operations)["d"].arguments == {"cmd": "again"}
        assert ops_by_call(t.tool_operations).get("zz") is None
    dead = [op.state for op in opened(path, False).tool_operations]
    assert dead[-2:] == ["interrupted", "interrupted"]  # the writer is gone
    note = check_note(opened(path))
    assert "6 tool operations, 2 tool calls running, 1 run running" in note


def test_web_searches_done_are_not_unsettled(tmp_path: Path) -> None:
    """A web search is kept whole, its column code the running one it started with: a
    1 GB rollout's 6,250 finished searches were made and counted at every draw."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    for n in range(5):
        w.web_search("completed", f"query {n}")
    w.web_search("in_progress", "still looking")
    w.function_call("exec_command", {"cmd": "open"}, "e")
    for alive in (None, False):
        ops = opened(Path(w.path), alive).tool_operations
        busy = [op for op in ops if op.state in ("running", "interrupted")]
        assert [op.tool for op in busy] == ["web_search", "exec_command"]
        assert unsettled_ops(ops) == busy


def test_a_snapshot_keeps_its_ops_while_the_builder_reads_on(tmp_path: Path) -> None:
    w = calls(tmp_path)
    builder = CODEX.builder(w.path)
    assert isinstance(builder, CodexBuilder)
    data = Path(w.path).read_bytes().split(b"\n")[:-1]
    for number, raw in enumerate(data, 1):
        builder.take_line(raw, number)
    before = builder.transcript(None)
    w.function_output("e", "answered", exit_code=0)
    w.function_call("exec_command", {"cmd": "later"}, "d")
    for number, raw in enumerate(Path(w.path).read_bytes().split(b"\n")[len(data) : -1]):
        builder.take_line(raw, len(data) + 1 + number)
    after = builder.transcript(None)
    assert len(before.tool_operations) == 6 and len(after.tool_operations) == 7
    assert before.tool_operations[5].state == "running"  # pending at that snapshot
    assert after.tool_operations[5].state == "completed"
    # a call id used again after the snapshot: the snapshot's own last one
    assert ops_by_call(before.tool_operations)["d"].arguments == {"cmd": "again"}
    assert ops_by_call(after.tool_operations)["d"].arguments == {"cmd": "later"}


def test_a_set_field_sticks_to_the_snapshots_op(tmp_path: Path) -> None:
    t = opened(Path(calls(tmp_path).path))
    t.tool_operations[0].subagent = "child.jsonl"  # as attach_subagents links a child
    assert t.tool_operations[0].subagent == "child.jsonl"
    assert next(iter(t.tool_operations)).subagent == "child.jsonl"


def test_json_rows_are_what_each_made_op_and_item_writes(tmp_path: Path) -> None:
    """The replay JSON's rows, written from the columns (``rows_json``), are each made
    operation's and item's ``to_json()``: pending states at the snapshot, a field set on
    a made op, a late exit code kept on its own op, a compaction's items of its own."""
    w = calls(tmp_path)
    w.function_output("c", "x" * 3000, exit_code=0)  # a long result: a lazy part when made
    story(tmp_path / "s.jsonl")
    for path in (Path(w.path), tmp_path / "s.jsonl"):
        for alive in (None, False):
            t = opened(path, alive)
            ops = t.tool_operations
            assert isinstance(ops, CodexOps) and len(ops) > 1
            if path == Path(w.path):
                ops[0].subagent = "child.jsonl"  # made, and changed: its own to_json
            rows = list(map(orjson.dumps, rows_json(ops, True)))  # (before the others are made)
            assert list(rows_json(ops)) == [op.to_json() for op in ops]  # no fragments
            assert rows == [orjson.dumps(op.to_json()) for op in ops]
            assert len(rows) == len(ops) and any(b'"result"' in row for row in rows)
            messages = list(rows_json(t.messages))
            assert messages == [item.to_json() for item in t.messages] and messages


def test_compaction_ids_read_as_lists(tmp_path: Path) -> None:
    story(tmp_path / "r.jsonl")
    (c,) = opened(tmp_path / "r.jsonl").compactions
    assert isinstance(c.folded, EntryIds) and isinstance(c.kept, EntryIds)
    folded, kept = list(c.folded), list(c.kept)
    assert folded and kept and c.folded == folded and c.kept == kept
    assert c.folded[0] == folded[0] and c.folded[-1] == folded[-1]
    assert c.folded[1:] == folded[1:] and repr(c.folded) == repr(folded)
    assert c.to_json()["folded"] == folded and c.to_json()["kept"] == kept
    plain = dataclasses.replace(c, folded=folded, kept=kept)
    assert plain == dataclasses.replace(c, folded=list(c.folded), kept=list(c.kept))


def test_entry_ids_name_indexes_and_items() -> None:
    item = Item("L9.1", "user")
    ids = EntryIds([3, item, 5], lambda index: f"L{index * 10}")
    assert list(ids) == ["L30", "L9.1", "L50"] and ids[1] == "L9.1" and len(ids) == 3
    assert ids == ["L30", "L9.1", "L50"] and ids != ["L30"]


def test_each_response_usage_is_its_items_once(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")  # a known model: each response priced
    w.message("user", "hi")
    w.message("assistant", "one")
    w.token_count((100, 40, 10, 2))
    w.token_count((100, 40, 10, 2))  # the same total again: no second response
    w.message("assistant", "two")
    w.token_count((250, 90, 30, 5), (150, 50, 20, 3))
    t = opened(Path(w.path))
    items = [m for m in t.messages if m.role == "assistant"]
    got = [m.usage for m in items]
    assert all(u is not None and u.cost is not None for u in got)
    costs = [u.cost if u is not None else None for u in got]
    assert got == [
        Usage(60, 10, 40, None, costs[0], 1, 1, 1),
        Usage(100, 20, 50, None, costs[1], 1, 1, 1),
    ]
    summed = Usage.total([u for u in got if u is not None])
    assert (summed.input_tokens, summed.output_tokens) == (160, 30)
    assert (t.usage.input_tokens, t.usage.output_tokens) == (160, 30)  # counted once
    assert t.usage.cost == pytest.approx(summed.cost) and t.usage.responses == 2
    assert t.runs[0].usage.input_tokens == 160


def test_a_count_past_an_int64_is_unknown_and_kept_apart_from_the_columns(
    tmp_path: Path,
) -> None:
    """A count past an int64 (orjson reads it; the typed path leaves it to it) is no
    count (``int64_or_none``, as every format's): that response's usage is unknown, kept
    as it is (``fallback``), never priced; the next, whose counts are known, a column's."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("assistant", "big")
    huge = 1 << 63
    w.token_count((huge, 0, 5, 0))
    w.message("assistant", "small")
    w.token_count((10, 0, 7, 0))
    t = opened(Path(w.path))
    usages = [m.usage for m in t.messages if m.role == "assistant"]
    assert usages[0] is not None and usages[0].input_tokens is None
    assert not usages[0].reported and usages[0].cost is None
    assert usages[1] is not None and usages[1].input_tokens == 10
    builder = CODEX.builder(w.path)
    assert isinstance(builder, CodexBuilder)
    feed_file(builder, w.path)
    assert len(builder.response_usage.fallback) == 1 and len(builder.response_usage.at) == 1


def test_check_refuses_damage_but_keeps_unknown_lines(tmp_path: Path) -> None:
    w = calls(tmp_path)
    w.raw(b'{"timestamp":"x","type":"future_line","payload":{"a":1}}\n')
    t = opened(Path(w.path))
    assert t.raw[-1].kind == "record" and "future_line" in (t.raw[-1].parts[0].name or "")
    assert CODEX.check(w.path).startswith("codex, ")
    w.raw(b'{"timestamp":"x","type":"response_item","payl')  # torn last line: a warning
    assert "warning: line" in CODEX.check(w.path)
    w.raw(b"\n")
    w.message("user", "after the damage")
    with pytest.raises(TranscriptError) as err:
        CODEX.check(w.path)
    assert err.value.line == w.line - 1


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_read_lines_over_blocks_long_lines_and_a_torn_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Lines longer than a block (many blocks, none with a newline) come whole, with
    their numbers and spans, as do CRLF and blank lines and an unended last line."""
    from session_core import file_lines
    from session_core.file_lines import read_lines

    monkeypatch.setattr(file_lines, "_BLOCK", block)
    long = b'{"x":"' + b"y" * 300 + b'"}'
    data = b'{"a":1}\r\n\n' + long + b"\n" + b"  \n" + long + b"\r\n" + b'{"b":2}\n' + long[:-3]
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    got = [(n, raw, span) for n, raw, span in read_lines(str(path))]
    expected = []
    at = 0
    pieces = data.split(b"\n")
    for number, piece in enumerate(pieces[:-1], 1):
        raw = piece[:-1] if piece.endswith(b"\r") else piece
        if raw.strip():
            expected.append((number, raw, at << 32 | len(raw)))
        at += len(piece) + 1
    expected.append((len(pieces), pieces[-1], 0))
    assert got == expected


def test_a_replayed_op_copies_its_output_string_only_where_orjson_writes_it_so(
    tmp_path: Path,
) -> None:
    """An operation's row reads its call's arguments and copies its output string from
    the lines (``rows``) where it can: the bytes written are what its made op dumps, for
    outputs with escapes orjson writes otherwise, JSON-shaped ones, and lines that no
    longer fit."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    outputs = {
        "plain": 'ok:日本語 "quoted" back\\slash\ttab',
        "exit": None,  # written with its status lines: an exit code
        "slash": None,
        "uni": None,
        "json": None,
        "custom": None,
        "dict": None,
    }
    w.function_call("exec_command", {"cmd": "a"}, "plain")
    w.function_output("plain", outputs["plain"])
    w.function_call("exec_command", {"cmd": "b"}, "exit")
    w.function_output("exit", "failed", exit_code=2)
    w.function_call("exec_command", {"cmd": "c"}, "slash")
    w.raw(
        b'{"timestamp":"2026-01-01T00:00:09Z","type":"response_item","payload":{"type":'
        b'"function_call_output","call_id":"slash","output":"a\\/b"}}\n'
    )
    w.function_call("exec_command", {"cmd": "d"}, "uni")
    w.raw(
        b'{"timestamp":"2026-01-01T00:00:10Z","type":"response_item","payload":{"type":'
        b'"function_call_output","call_id":"uni","output":"caf\\u00e9 \\u0001"}}\n'
    )
    w.function_call("exec_command", {"cmd": "e"}, "json")
    w.function_output("json", "old style", exit_code=1, old=True)
    w.custom_call("apply_patch", "*** Begin Patch", "custom")
    w.custom_output("custom", "Success")
    w.write(
        "response_item",
        {"type": "function_call", "name": "x", "arguments": {"not": "a string"}, "call_id": "dict"},
    )
    w.function_output("dict", "fine")
    w.message("assistant", "done: 日本語")
    w.write(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "look"}, {"type": "input_image"}],
        },
    )
    w.reasoning("thought one", "thought two")
    t = opened(Path(w.path), False)
    # the messages' rows read their lines typed (``rows.shown_parts``) where they fit
    assert list(rows_json(t.messages, True)) == [item.to_json() for item in t.messages]
    assert len(t.messages) == 2 * len(outputs) + 3
    rows = [orjson.dumps(row) for row in rows_json(t.tool_operations, True)]
    made = [orjson.dumps(op.to_json()) for op in t.tool_operations]
    assert rows == made and len(rows) == len(outputs)
    assert [op.call_id for op in t.tool_operations] == list(outputs)
    assert t.tool_operations[1].detail == {"exit_code": 2}
    assert t.tool_operations[3].result == "café \x01"
