"""The read-only ``codex`` format: Codex CLI rollouts into the neutral model."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import orjson
import pytest
from codex_writer import (
    HOSTILE,
    SESSION,
    RolloutWriter,
    completed_story,
    legacy_story,
    story,
    subagent,
    turnless_story,
    usage,
    zst_copy,
)
from helpers import SAMPLES, fingerprint, follow_into
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from json_strategies import ITEM_FIELDS, json_values

from session_core import TranscriptError
from session_core.compressed import open_maybe_compressed
from session_core.file_lines import read_records
from session_core.formats import by_name, detect_format, detect_record
from session_core.formats.codex import CodexFormat
from session_core.model import Transcript

CODEX = by_name("codex")
DAY = ("sessions", "2026", "02", "23")


def day_dir(root: Path) -> Path:
    return root.joinpath(*DAY)


@pytest.fixture
def rollout(tmp_path: Path) -> Path:
    path = day_dir(tmp_path) / f"rollout-2026-02-23T12-00-00-{SESSION}.jsonl"
    story(path)
    return path


def opened(path: Path, alive: bool | None = None) -> Transcript:
    return CODEX.open(path, writer_alive=alive)


def ops_by_call(t: Transcript) -> dict[str, str]:
    return {op.call_id: op.state for op in t.tool_operations}


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


# -- tool operations -------------------------------------------------------------------


def test_op_states_live_and_dead(rollout: Path) -> None:
    alive = ops_by_call(opened(rollout, alive=None))
    assert alive["c1"] == "completed"  # 0.5x JSON-string output, exit 0
    assert alive["c2"] == "failed"  # "Process exited with code 2"
    assert alive["c3"] == "completed"
    assert alive["c4"] == "failed"  # 0.5x exit_code 1
    assert alive["c5"] == "completed"  # local_shell_call answered
    assert alive["c6"] == "interrupted"  # its turn was aborted
    assert alive["c7"] == "running"  # open turn, writer may be at work
    dead = ops_by_call(opened(rollout, alive=False))
    assert dead["c7"] == "interrupted"
    assert {k: v for k, v in dead.items() if k != "c7"} == {
        k: v for k, v in alive.items() if k != "c7"
    }
    searches = [op for op in opened(rollout).tool_operations if op.tool == "web_search"]
    assert [op.state for op in searches] == ["completed", "interrupted"]
    assert searches[0].arguments["query"] == "codex rollout format"


def test_op_arguments_and_results(rollout: Path) -> None:
    t = opened(rollout)
    op = {o.call_id: o for o in t.tool_operations}
    c1 = t.op_for_call("c1")
    assert c1 is not None and c1.result == "a\nb" and c1.detail["exit_code"] == 0
    assert c1.duration == 0.5
    assert op["c2"].detail == {"exit_code": 2} and op["c2"].duration == 0.25
    assert op["c3"].tool == "apply_patch" and op["c3"].arguments.startswith("*** Begin Patch")
    calls = {p.call_id: p for i in t.raw for p in i.parts if p.kind == "tool-call"}
    assert calls["c1"].text == "ls -la"  # bash -lc SCRIPT shows the script
    assert calls["c2"].text == "make test"
    assert calls["c3"].text == "*** Begin Patch\n*** End Patch\n"
    assert calls["c5"].text == "python -c 'print(1)'"
    assert op["c1"].arguments == {"command": ["bash", "-lc", "ls -la"]}
    results = {p.call_id: p for i in t.raw for p in i.parts if p.kind == "tool-result"}
    assert results["c2"].is_error and not results["c1"].is_error
    assert op["c1"].run_id == "t1" and op["c7"].run_id == "t3"


def test_exec_command_end_fails_an_output_without_exit_code(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.function_call("exec_command", {"cmd": "x"}, "a")
    w.event("exec_command_end", call_id="a", exit_code=7)
    w.function_output("a", "plain output, no status lines")
    w.function_call("exec_command", {"cmd": "y"}, "b")
    w.function_output("b", "aborted")
    w.function_call("exec_command", {"cmd": "z"}, "c")
    w.function_output("c", "Exit code: 0\nWall time: 1.5 seconds\nOutput:\nok")
    states = ops_by_call(opened(Path(w.path)))
    assert states == {"a": "failed", "b": "interrupted", "c": "completed"}


# -- runs and contexts ----------------------------------------------------------------


def test_runs_and_contexts(rollout: Path) -> None:
    t = opened(rollout)
    assert [(r.id, r.state) for r in t.runs] == [
        ("t1", "finished"),
        ("t2", "aborted"),
        ("t3", "running"),
    ]
    assert opened(rollout, alive=False).runs[2].state == "interrupted"
    assert t.runs[0].prompt == "fix the bug"
    context = t.runs[0].context
    assert context is not None
    assert ("model", "gpt-5-codex") in context.facts
    assert dict(context.sections) == {
        "developer_instructions": "Use the tools.",
        "user_instructions": "Be brief.",
    }
    changes = {c["run-id"]: c["changed"] for c in t.extra["run-contexts"]}
    assert sorted(changes["t2"]) == ["effort", "model"]
    assert changes["t3"] == []
    assert t.extra["rate-limits"]["primary"]["used_percent"] == 12.0


# -- usage -------------------------------------------------------------------------------


def test_usage_is_the_last_total_and_turns_are_deltas(rollout: Path) -> None:
    t = opened(rollout)
    u = t.usage
    # last total_token_usage: 5000 in (2500 cached), 200 out; the repeat not counted
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (2500, 2500, 200)
    assert u.cache_write_tokens is None
    assert u.reported == 4 and u.responses == 4
    assert t.extra["token-count-events"] == 6 and t.extra["token-count-reports"] == 5
    per_turn = [
        (r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.output_tokens) for r in t.runs
    ]
    assert per_turn == [(1300, 1200, 120), (700, 800, 30), (500, 500, 50)]
    assert sum(r.usage.reported for r in t.runs) == u.reported
    # priced by each turn's model (both in the table): uncached as input, cached as reads
    expected = (2500 * 1.25 + 200 * 10.0 + 2500 * 0.125) / 1_000_000
    assert u.cost == pytest.approx(expected)
    assert t.to_json()["usage"]["input-tokens"] == 2500


def _counts(inputs: int, cached: int, written: int, output: int) -> dict[str, int]:
    """A newer writer's token usage: its cache writes said, within the whole prompt."""
    return {
        "input_tokens": inputs,
        "cached_input_tokens": cached,
        "cache_write_input_tokens": written,
        "output_tokens": output,
        "reasoning_output_tokens": 0,
        "total_tokens": inputs + output,  # the prompt once: the writes are in it
    }


def test_cache_writes_are_part_of_the_input_counted_once(tmp_path: Path) -> None:
    """``input_tokens`` is the whole prompt (``total_tokens`` = input + output), the
    cached and the written parts within it: the input counted is what is left after
    both, each part counted once, a write priced as input (OpenAI bills it so)."""
    path = day_dir(tmp_path) / f"rollout-2026-02-23T12-00-00-{SESSION}.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    w.turn_context("t1")
    w.task_started("t1")
    w.message("user", "cache this")
    w.message("assistant", "done")
    first = _counts(1000, 0, 800, 40)
    w.event("token_count", info={"total_token_usage": first, "last_token_usage": first})
    w.event("token_count", info={"total_token_usage": first, "last_token_usage": first})
    w.message("assistant", "again")
    total = _counts(2100, 800, 900, 90)
    last = _counts(1100, 800, 100, 50)
    w.event("token_count", info={"total_token_usage": total, "last_token_usage": last})
    w.task_complete("t1")
    for t in (opened(path), _live(path)):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) == (400, 800, 900)
        assert u.output_tokens == 90 and u.reported == 2
        assert u.input_tokens + u.cache_read_tokens + u.cache_write_tokens == 2100
        run = t.runs[0].usage
        assert (run.input_tokens, run.cache_read_tokens, run.cache_write_tokens) == (
            400,
            800,
            900,
        )
        responses = [i.usage for i in t.messages if i.usage is not None]
        assert [(r.input_tokens, r.cache_read_tokens, r.cache_write_tokens) for r in responses] == [
            (200, 0, 800),
            (200, 800, 100),
        ]
        expected = ((400 + 900) * 1.25 + 800 * 0.125 + 90 * 10.0) / 1_000_000
        assert u.cost == pytest.approx(expected)
        assert t.extra["total-token-usage"]["cache_write_input_tokens"] == 900


def _live(path: Path) -> Transcript:
    """The file as the viewer reads it: raw batches with their spans, fed live."""
    live = CODEX.live(os.fspath(path))
    follow_into(live.apply, path, 1 << 20, parse=False)
    return live.transcript(writer_alive=False)


def test_a_writer_that_says_no_cache_writes_has_none_counted(rollout: Path) -> None:
    t = opened(rollout)
    assert t.usage.cache_write_tokens is None
    assert all(r.usage.cache_write_tokens is None for r in t.runs)
    assert "cache_write_input_tokens" not in t.extra["total-token-usage"]


def test_a_total_that_starts_again_starts_the_session_total_again(tmp_path: Path) -> None:
    """A total that goes back (a fork's copied history, then its own count from 0): the
    session total is the last total, and its cost and responses are that total's."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.turn_context("t", model="gpt-5-codex")
    w.message("assistant", "copied")
    w.token_count((10000, 0, 1000, 0))
    w.message("assistant", "own")
    w.token_count((300, 0, 20, 0))
    w.message("assistant", "own again")
    w.token_count((500, 100, 30, 0), (200, 100, 10, 0))
    u = opened(Path(w.path)).usage
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (400, 100, 30)
    assert u.reported == u.responses == 2
    assert u.cost == pytest.approx((400 * 1.25 + 30 * 10.0 + 100 * 0.125) / 1_000_000)


def test_unknown_model_cost_is_none(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.turn_context("t", model="gpt-99-unknown")
    w.message("assistant", "hi")
    w.token_count((10, 0, 5, 0))
    t = opened(Path(w.path))
    assert t.usage.input_tokens == 10 and t.usage.cost is None
    assert t.raw[-2].usage is not None and t.raw[-2].usage.output_tokens == 5


def test_no_usage_reported_is_null(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.token_count(None)
    usage = opened(Path(w.path)).to_json()["usage"]
    assert usage["input-tokens"] is None and usage["cost"] is None and usage["reported"] == 0


def test_a_token_count_of_its_fields_alone(tmp_path: Path) -> None:
    """Writers of 2025 before ``info`` wrote each response's usage flat on the event."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.31.0")
    w.task_started("t1")
    w.message("user", "hi")
    w.message("assistant", "hello")
    w.event("token_count", **usage((1000, 200, 50, 10)))
    w.message("assistant", "more")
    w.event("token_count", **usage((1500, 1000, 20, 0)))
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [i.usage.input_tokens for i in t.raw if i.usage is not None] == [800, 500]
    u = t.to_json()["usage"]
    assert (u["input-tokens"], u["cache-read-tokens"], u["output-tokens"]) == (1300, 1200, 70)
    assert u["reported"] == 2 and t.runs[0].usage.output_tokens == 70
    assert "token_count: 2,570 tokens so far" in t.raw[-2].parts[0].text


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
    assert c.tokens_before == 4000 and c.tokens_after == 1000  # last request sizes


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
    assert cmd.result == "boom" and cmd.arguments == ["bash", "-lc", "exit 3"]
    assert any(i.kind == "event" and "SomethingNew" in i.parts[0].text for i in t.raw)


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


# -- damaged files ----------------------------------------------------------------------


def test_torn_tail_is_a_warning(rollout: Path) -> None:
    before = len(opened(rollout).raw)
    with open(rollout, "ab") as fh:
        fh.write(b'{"timestamp":"x","type":"response_item","payload":{"type":"mess')
    t = opened(rollout)
    assert len(t.raw) == before + 1 and t.raw[-1].kind == "record"
    assert len(t.warnings) == 1 and "is not valid JSON" in t.warnings[0]
    assert CODEX.check(rollout).startswith("codex, ")


def test_damage_mid_file_is_refused_by_check(rollout: Path) -> None:
    lines = rollout.read_bytes().split(b"\n")
    lines[5] = b"{not json"
    rollout.write_bytes(b"\n".join(lines))
    assert len(opened(rollout).warnings) == 1  # open is tolerant
    with pytest.raises(TranscriptError) as err:
        CODEX.check(rollout)
    assert err.value.line == 6


def test_crlf_reads_the_same(tmp_path: Path, rollout: Path) -> None:
    crlf = tmp_path / "crlf.jsonl"
    story(crlf, crlf=True)
    assert b"\r\n" in crlf.read_bytes()
    a, b = opened(rollout).to_json(), opened(crlf).to_json()
    assert a["messages"] == b["messages"] and a["usage"] == b["usage"]
    assert a["tool-operations"] == b["tool-operations"] and b["warnings"] == []


def test_read_only(rollout: Path) -> None:
    os.utime(rollout, ns=(1_000_000_000, 1_000_000_000))
    before = fingerprint(rollout)
    detect_format(rollout)
    opened(rollout)
    CODEX.replay_json(rollout)
    CODEX.check(rollout)
    list(read_records(str(rollout)))
    assert fingerprint(rollout) == before


# -- compressed rollouts --------------------------------------------------------------------


def test_zst_reads_like_the_plain_file(rollout: Path, tmp_path: Path) -> None:
    packed = Path(zst_copy(str(rollout), str(tmp_path / "r.jsonl.zst")))
    os.utime(packed, ns=(1_000_000_000, 1_000_000_000))
    before = fingerprint(packed)
    assert detect_format(packed) is None or detect_format(packed) == "codex"  # until wired
    with open_maybe_compressed(packed) as fh:
        assert fh.read() == rollout.read_bytes()
    plain, unpacked = opened(rollout, alive=False).to_json(), CODEX.open(packed).to_json()
    plain.pop("subagents", None)
    assert unpacked["messages"] == plain["messages"] and unpacked["usage"] == plain["usage"]
    assert unpacked["tool-operations"] == plain["tool-operations"]  # a .zst's writer is gone
    assert fingerprint(packed) == before


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "header"])
def test_damaged_zst_is_a_transcript_error(rollout: Path, tmp_path: Path, damage: str) -> None:
    packed = tmp_path / "r.jsonl.zst"
    zst_copy(str(rollout), str(packed))
    data = packed.read_bytes()
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    elif damage == "corrupt":
        data = data[:40] + bytes(b ^ 0x5A for b in data[40:80]) + data[80:]
    else:
        data = data[:4] + b"\xff" * 16
    packed.write_bytes(data)
    with pytest.raises(TranscriptError) as err:
        CODEX.open(packed)
    assert str(packed) in str(err.value) and "zstd" in str(err.value)


def test_discover_prefers_the_plain_file(tmp_path: Path, rollout: Path) -> None:
    day = day_dir(tmp_path)
    zst_copy(str(rollout), str(rollout) + ".zst")
    other = day / "rollout-2026-02-23T13-00-00-019c0000-0000-7000-8000-00000000000f.jsonl"
    zst_copy(str(rollout), str(other) + ".zst")
    (day / "notes.jsonl").write_text("{}\n")
    archived = tmp_path / "archived_sessions"
    archived.mkdir()
    old = archived / "rollout-2025-01-01T00-00-00-019c0000-0000-7000-8000-0000000000aa.jsonl"
    old.write_bytes(rollout.read_bytes())
    found = CODEX.discover(str(tmp_path))
    assert found == sorted([str(old), str(rollout), str(other) + ".zst"])
    assert CODEX.discover(str(tmp_path / "sessions")) == [str(rollout), str(other) + ".zst"]
    assert CODEX.discover(str(day)) == [str(rollout), str(other) + ".zst"]
    assert CODEX.discover(str(tmp_path / "elsewhere")) is None


# -- subagents ---------------------------------------------------------------------------


def test_subagent_found_among_siblings(tmp_path: Path, rollout: Path) -> None:
    child = "019c0000-0000-7000-8000-0000000000c1"
    w = RolloutWriter(rollout)  # a parent whose spawn call names the child
    w.session_meta()
    w.function_call("spawn_agent", {"message": "look around"}, "sp1")
    w.function_output("sp1", orjson.dumps({"agent_id": child}).decode())
    name = f"rollout-2026-02-23T12-00-05-{child}.jsonl"
    subagent(str(day_dir(tmp_path)), SESSION, child, name)
    unrelated = RolloutWriter(day_dir(tmp_path) / "rollout-2026-02-23T12-00-09-x.jsonl")
    unrelated.session_meta("019c0000-0000-7000-8000-0000000000ff")
    t = opened(rollout)
    (sub,) = t.subagents
    assert sub.id == child and sub.path == str(day_dir(tmp_path) / name)
    assert sub.description == "scout explorer" and sub.call_id == "sp1"
    assert sub.usage.input_tokens == 200 and sub.messages == 2
    assert t.usage.input_tokens is None  # the parent's own usage is not folded in
    both = t.to_json()["usage-with-subagents"]
    assert both["input-tokens"] == 200
    assert t.op_for_call("sp1") is not None and t.op_for_call("sp1").subagent == sub.path  # type: ignore[union-attr]
    child_t = opened(day_dir(tmp_path) / name)
    assert child_t.meta["parent-thread-id"] == SESSION and child_t.meta["agent-nickname"] == "scout"


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


# -- the real rollout ----------------------------------------------------------------------


def sample() -> Path:
    found = sorted((SAMPLES / "codex").glob("sessions/*/*/*/rollout-*.jsonl"))
    if not found:
        pytest.skip("shared/samples/codex is not here")
    return found[0]


def test_sample_readme_facts() -> None:
    path = sample()
    before = fingerprint(path)
    assert detect_format(path) == "codex"
    t = CODEX.open(path, writer_alive=False)
    assert t.lines == len(t.raw) == 2722 and t.warnings == []
    paired = [op for op in t.tool_operations if op.tool != "web_search"]
    assert len(paired) == 365 and all(op.result_line is not None for op in paired)
    assert Counter(op.state for op in t.tool_operations) == {"completed": 372}
    assert t.extra["token-count-events"] == 573
    (c,) = t.compactions
    line = path.read_bytes().split(b"\n")[c.line - 1]
    assert len(orjson.loads(line)["payload"]["replacement_history"]) == 40
    assert len(c.kept) + sum(1 for m in t.messages if m.id.startswith(f"{c.id}.")) == 40
    assert t.messages[0].id in c.kept
    # the session total is the last total_token_usage, priced only when the model is known
    assert t.extra["total-token-usage"]["input_tokens"] == 33_810_485
    assert t.usage.input_tokens == 33_810_485 - 31_621_504
    assert t.usage.cache_read_tokens == 31_621_504 and t.usage.output_tokens == 133_999
    assert t.usage.reported == 286  # each response's total is reported twice
    assert len(t.runs) == 33 and {r.state for r in t.runs} == {"finished"}
    assert sum(r.usage.output_tokens or 0 for r in t.runs) == 133_999
    assert CODEX.check(path).startswith("codex, ")
    assert fingerprint(path) == before


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


def test_a_file_that_starts_inside_a_turn(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("assistant", "finishing up")
    w.task_complete("t0")
    w.task_started("t1")
    w.task_started("t2")  # t1 never ended
    t = opened(Path(w.path))
    assert [(r.id, r.state) for r in t.runs] == [
        ("t0", "finished"),
        ("t1", "interrupted"),
        ("t2", "running"),
    ]


def test_a_rollout_from_before_the_payload_lines(tmp_path: Path) -> None:
    """Codex CLI of mid 2025 wrote a bare header and bare response items (no ``payload``):
    such a file is a Codex rollout, read as the response items it holds."""
    path = tmp_path / "rollout-2025-08-20T13-20-47-old.jsonl"
    legacy_story(path)
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
    assert CODEX.check(path).startswith("codex, 5 messages")


def test_the_prompts_of_a_rollout_of_bare_items_start_its_turns(tmp_path: Path) -> None:
    """Such a file has no task or prompt events: each prompt (a user message that is
    not context Codex injected) starts a turn, ended by the next, finished when its
    last item is the assistant's answer."""
    path = tmp_path / "rollout-2025-08-20T13-20-47-old.jsonl"
    w = legacy_story(path)
    w.raw(orjson.dumps({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}
    ]}) + b"\n")  # fmt: skip
    w.raw(orjson.dumps({"type": "message", "role": "user", "content": "and now?"}) + b"\n")
    arguments = orjson.dumps({"command": ["ls", "-a"]}).decode()
    w.raw(orjson.dumps({"type": "function_call", "name": "shell", "arguments": arguments,
                        "call_id": "c2"}) + b"\n")  # fmt: skip
    t = opened(path, alive=False)
    assert [(r.id, r.state, r.line, r.end_line, r.prompt) for r in t.runs] == [
        ("L3", "finished", 3, 8, "list the files"),
        ("L10", "interrupted", 10, None, "and now?"),  # cut off: it never ended
    ]
    assert [(op.call_id, op.run_id, op.state) for op in t.tool_operations] == [
        ("c1", "L3", "completed"),
        ("c2", "L10", "interrupted"),
    ]
    assert [r.state for r in opened(path, alive=None).runs] == ["finished", "running"]


def test_turns_of_a_writer_that_wrote_no_task_events(tmp_path: Path) -> None:
    """0.5x/0.6x rollouts have no task_started / task_complete: each prompt (its
    ``user_message``) starts a turn, the next prompt or a ``turn_aborted`` ends it."""
    w = turnless_story(tmp_path / "r.jsonl")
    t = opened(Path(w.path), alive=False)
    assert [(r.id, r.state, r.line, r.end_line, r.prompt) for r in t.runs] == [
        ("L4", "finished", 4, 10, "list the files"),
        ("L12", "aborted", 12, 15, "now delete it"),
        ("L17", "finished", 17, 20, "thanks"),
    ]
    assert [r.usage.input_tokens for r in t.runs] == [1100, None, 200]
    assert all(r.context is not None for r in t.runs)
    assert [op.run_id for op in t.tool_operations] == ["L4", "L12"]
    assert [op.state for op in t.tool_operations] == ["completed", "interrupted"]
    # while a writer may be at it, its last turn is not known to have ended
    assert opened(Path(w.path), alive=None).runs[-1].state == "running"


def test_a_prompt_just_before_its_task_started_is_that_turn(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.event("user_message", message="hello")
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "hello")
    w.message("assistant", "hi")
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [(r.id, r.state, r.line, r.prompt) for r in t.runs] == [("t1", "finished", 2, "hello")]
    assert [c["run-id"] for c in t.extra["run-contexts"]] == ["t1"]


def test_tool_search_and_image_generation_are_tool_operations(tmp_path: Path) -> None:
    """Newer writers' ``tool_search_call`` / ``tool_search_output`` pair by call id like
    any call; an ``image_generation_call`` settles by its status (its image not shown)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.146.0")
    w.task_started("t1")
    search = {"type": "tool_search_call", "id": "ts-1", "call_id": "s1", "status": "completed"}
    w.write("response_item", {**search, "execution": "local", "arguments": {"query": "calendar"}})
    tools = [
        {"type": "function", "name": "create_event", "description": "Create an event"},
        {"type": "function_group", "name": "cal", "tools": [{"type": "function", "name": "list"}]},
    ]
    found = {"type": "tool_search_output", "call_id": "s1", "status": "completed"}
    w.write("response_item", {**found, "execution": "local", "tools": tools})
    image = {"type": "image_generation_call", "id": "ig_1", "status": "completed"}
    w.write("response_item", {**image, "revised_prompt": "a red fox", "result": "iVBOR" * 1000})
    w.write(
        "response_item",
        {
            "type": "function_call_output",
            "call_id": "s9",
            "output": {"type": "input_text", "text": "a.txt\n", "image_url": None},
        },
    )
    w.function_call("shell", {"command": ["ls"]}, "s9")  # its output came first: not paired
    t = opened(Path(w.path), alive=False)
    ops = {op.call_id: op for op in t.tool_operations}
    assert (ops["s1"].tool, ops["s1"].state) == ("tool_search", "completed")
    assert ops["s1"].arguments == {"query": "calendar"}
    assert ops["s1"].result == "create_event\ncal/list"
    assert (ops["ig_1"].tool, ops["ig_1"].state) == ("image_generation", "completed")
    call = next(m for m in t.messages if m.parts[0].call_id == "ig_1")
    assert (
        call.parts[0].text == "a red fox"
        and "iVBOR" not in orjson.dumps(call.parts[0].data).decode()
    )
    [output] = [m for m in t.messages if m.role == "tool" and m.parts[0].call_id == "s9"]
    assert output.parts[0].text == "a.txt\n"


@pytest.mark.parametrize(
    ("output", "text", "failed"),
    [
        # Codex of 2025 wrote an MCP tool's content list as a JSON string
        ('[{"text":"found 2","type":"text"},{"type":"text","text":"ok"}]', "found 2\nok", False),
        ('[{"a": 1}]', '[{"a": 1}]', False),  # a JSON list that is no content: as it is
        ("tool call error: tool call failed for `memory/add`", None, True),
        ("failed in sandbox LinuxSeccomp with execution error: exit code: 1", None, True),
        ('error: Failed to find expected lines ["x"] in /w/a.py', None, True),
        ("Plan updated", None, False),
    ],
)
def test_outputs_codex_wrote_itself(
    tmp_path: Path, output: str, text: str | None, failed: bool
) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.34.0")
    w.function_call("memory__add", {"x": 1}, "m1")
    w.function_output("m1", output)
    [op] = opened(Path(w.path)).tool_operations
    assert op.result == (output if text is None else text)
    assert op.state == ("failed" if failed else "completed")


def test_a_prompted_turn_takes_the_id_its_context_names(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.turn_context("t2")  # the file ends before this turn's task_started
    w.event("user_message", message="second prompt")
    w.message("assistant", "second answer")
    w.task_started("t2")  # ... or it comes late: the same turn
    t = opened(Path(w.path), alive=False)
    assert [(r.id, r.line, r.prompt) for r in t.runs] == [("t2", 3, "second prompt")]
    assert t.runs[0].context is not None


def test_a_response_whose_usage_came_before_its_items(tmp_path: Path) -> None:
    """0.4x-0.6x wrote a response's token_count before its response items (each model
    request opened by a turn_context): the usage is that response's, not the one before."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.58.0")
    w.event("user_message", message="go")
    w.turn_context("")
    w.token_count(None)
    w.event("agent_reasoning", text="plan")
    w.token_count((1000, 0, 50, 0))
    first = w.reasoning("plan")
    w.function_call("shell", {"command": ["ls"]}, "c1")
    w.function_output("c1", "a", exit_code=0, old=True)
    w.turn_context("")
    w.token_count((1000, 0, 50, 0))  # the last request's total again
    w.token_count((2100, 1000, 80, 0), (1100, 1000, 30, 0))
    second = w.message("assistant", "done")
    t = opened(Path(w.path), alive=False)
    used = {i.line: i.usage.input_tokens for i in t.raw if i.usage is not None}
    assert used == {first: 1000, second: 100}


def test_web_searches_read_as_what_they_did(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.write("response_item", {"type": "web_search_call", "status": "completed"})  # 0.104
    action = {"type": "open_page", "url": "https://example.com/a"}
    w.write("response_item", {"type": "web_search_call", "status": "completed", "action": action})
    find = {"type": "find_in_page", "url": "https://example.com/a", "pattern": "codex"}
    w.write("response_item", {"type": "web_search_call", "status": "completed", "action": find})
    t = opened(Path(w.path))
    shown = [m.parts[0].text for m in t.messages]
    assert shown == ["", "https://example.com/a", "codex in https://example.com/a"]
    assert [op.state for op in t.tool_operations] == ["completed"] * 3


def test_a_namespaced_call_is_named_with_its_namespace(tmp_path: Path) -> None:
    """Newer writers name an MCP tool's call by its namespace and its own name (older
    ones wrote ``mcp__server__tool`` as the name); its result object says its error."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    for call_id, namespace, name in (
        ("n1", "mcp__so_agents", "so_cli"),
        ("n2", "mcp__demo__", "get_weather"),
        ("n3", "mcp__docfork__", "mcp__docfork__search_docs"),
        ("n4", None, "shell"),
    ):
        payload = {"type": "function_call", "name": name, "namespace": namespace}
        w.write("response_item", {**payload, "arguments": "{}", "call_id": call_id})
    content = {"content": [{"type": "text", "text": "no such doc"}], "is_error": True}
    w.write("response_item", {"type": "mcp_tool_call_output", "call_id": "n3", "output": content})
    t = opened(Path(w.path))
    assert [op.tool for op in t.tool_operations] == [
        "mcp__so_agents__so_cli",
        "mcp__demo__get_weather",
        "mcp__docfork__search_docs",
        "shell",
    ]
    op = t.op_for_call("n3")
    assert op is not None and (op.state, op.result) == ("failed", "no such doc")


def test_a_turns_prompt_from_its_user_message_item(tmp_path: Path) -> None:
    """0.149+ write the person's prompt as an item_completed UserMessage (no user_message
    event); the turn's first user response item is injected context, not the prompt."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.154.0")
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>x</INSTRUCTIONS>")
    w.message("user", "$retro review my draft")
    skill = {"type": "skill", "name": "retro", "path": "/h/.codex/skills/retro/SKILL.md"}
    text = {"type": "text", "text": "$retro review my draft", "text_elements": []}
    w.item_completed({"type": "UserMessage", "id": "u1", "content": [text, skill]}, turn="t1")
    w.message("assistant", "done")
    w.item_completed({"type": "CommandExecution", "id": "x1", "command": ["pwd"],
                      "status": "completed", "stdout": "/home/u"})  # fmt: skip
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [r.prompt for r in t.runs] == ["$retro review my draft"]
    # an events-only file's command shows its stdout
    w2 = RolloutWriter(tmp_path / "e.jsonl")
    w2.session_meta(cli_version="0.154.0")
    w2.item_completed({"type": "CommandExecution", "id": "x1", "command": ["pwd"],
                       "status": "completed", "stdout": "/home/u"})  # fmt: skip
    [op] = opened(Path(w2.path)).tool_operations
    assert (op.state, op.result) == ("completed", "/home/u")


def test_a_turns_prompt_is_not_the_context_codex_injected(tmp_path: Path) -> None:
    """Where no event says what the person typed (0.149+ mirror only some prompts), the
    prompt is the turn's first user text Codex did not inject (its tags, AGENTS.md)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.159.3")
    w.task_started("t1")
    w.message("user", "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>", "<environment_context>")
    image = {"type": "input_image", "image_url": "data:image/png;base64,iVBOR", "detail": "high"}
    blocks = [
        {"type": "input_text", "text": '<image name=[Image #1] path="/tmp/c.png">'},
        image,
        {"type": "input_text", "text": "</image>"},
        {"type": "input_text", "text": "[Image #1] an example in the screenshot"},
    ]
    w.write("response_item", {"type": "message", "role": "user", "content": blocks})
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [r.prompt for r in t.runs] == ["[Image #1] an example in the screenshot"]
