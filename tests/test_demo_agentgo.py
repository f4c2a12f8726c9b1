"""``tailscope demo``'s story in the agentgo session format: read strictly, its runs, calls,
retries, compaction and checkpoints, and the crash's gaps."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from demo_helpers import assert_still_held_at_crash, run_write_command

from session_core import agentgo, peek
from viewer.demo import simulate_run

# --- the same story in the agentgo session format ---------------------------------------


def write_agentgo(tmp_path: Path, **kwargs: Any) -> Path:
    path = tmp_path / "agentgo-run.jsonl"
    simulate_run(str(path), speed=0, format="agentgo-v1", **kwargs)
    return path


@pytest.fixture
def agentgo_crashed(tmp_path: Path) -> Path:
    return write_agentgo(tmp_path / "agentgo", crash=True)


def test_agentgo_run_reads_strictly(agentgo_crashed: Path) -> None:
    records = list(agentgo.read(agentgo_crashed))  # raises on any broken rule
    assert agentgo_crashed.read_bytes().endswith(b"\n")  # the crash fell between records
    assert len(records) == len(agentgo_crashed.read_bytes().splitlines())
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert [r["type"] for r in records].count("session_start") == 1  # reopened, not recreated
    result = peek(agentgo_crashed)
    assert result.format == "agentgo-v1" and result.warnings == [] and result.error is None
    types = {r["type"] for r in records}
    assert types >= {
        "run_start", "agent_start", "turn_start", "model_request", "model_exec_end",
        "message_end", "tool_exec_start", "tool_invoke_start", "tool_exec_end", "retry",
        "context_projected", "context_compacted", "checkpoint", "turn_end", "agent_end",
        "run_close",
    }  # fmt: skip
    assert not types & {"message_update", "model_stream", "model_response"}  # never transient


def test_agentgo_runs_and_the_crash_gaps(agentgo_crashed: Path) -> None:
    view = agentgo.read_view(agentgo_crashed)
    first, second = view.run_order
    assert view.run_status(first) == "closed"
    assert view.runs[first].outcome() == "ended: end_turn"
    assert view.run_status(second) == "open"  # no run_close: the process died
    assert view.runs[second].outcome() == "no agent_end (gap)"
    gaps = [view.calls[k] for k in view.call_order if view.calls[k].status == "gap"]
    assert sorted(c.name for c in gaps) == ["git_diff", "run_tests"]
    for call in gaps:
        assert call.run_id == second and call.tool_end is None
        assert call.tool_start is not None and call.tool_invoke is not None
    assert len(view.gaps()) == 3  # the open run and its two tools
    # The last turn asked for three tools; the third was never started.
    last = [c.message for c in view.messages if c.message["kind"] == "assistant"][-1]
    asked = [p["name"] for p in last["content"] if p["type"] == "tool_call"]
    assert asked == ["run_tests", "git_diff", "fs_read"]
    started = {c.id for c in view.calls.values() if c.tool_start is not None}
    never = [p for p in last["content"] if p["type"] == "tool_call" and p["id"] not in started]
    assert [p["name"] for p in never] == ["fs_read"]


def test_agentgo_model_calls_retry_and_tools(agentgo_crashed: Path) -> None:
    view = agentgo.read_view(agentgo_crashed)
    models = [c for c in view.calls.values() if c.kind == "model"]
    assert len(models) >= 14
    for call in models:
        assert call.request is not None
        assert set(call.request) == {"messages", "tools", "config"}
        assert call.request["config"]["model"] == "demo-model-1"
        assert {t["name"] for t in call.request["tools"]} >= {"fs_read", "apply_patch"}
        assert call.result is not None and call.result["usage"]["input_tokens"] > 0
    (failed,) = [c for c in models if c.status == "failed"]
    assert failed.attempt == 1 and failed.result is not None
    assert "message" not in failed.result
    assert failed.result["error"] and failed.result["partial_message"]["content"]
    assert failed.retries[0]["attempt"] == 2
    retried = view.calls[(failed.run_id, failed.id, 2)]
    assert retried.status == "ok" and retried.result is not None
    assert retried.result["message"]["kind"] == "assistant"
    assert [c.attempt for c in view.attempts_of(failed)] == [1, 2]

    tools = [c for c in view.calls.values() if c.kind == "tool"]
    assert len(tools) == 16
    for call in tools:
        assert call.parent_id is not None and call.parent_id.startswith("turn-")
        # nested under its turn's model call (the latest attempt, after a retry)
        parent = view.attempts_of(view.calls[(call.run_id, call.parent_id, 1)])[-1]
        assert call.key in parent.children
        assert call.tool_start is not None and call.tool_invoke is not None
        assert call.tool_invoke["args"]["timeout_s"] > 0  # middleware's actual arguments
        assert "timeout_s" not in call.tool_start["args"]  # what the model asked for
    ended = [c for c in tools if c.tool_end is not None]
    by_disposition: dict[str, list[Any]] = {}
    for call in ended:
        assert call.tool_end is not None and isinstance(call.tool_end["is_error"], bool)
        by_disposition.setdefault(call.tool_end["disposition"], []).append(call)
    (abandoned,) = by_disposition["abandoned"]
    assert abandoned.name == "web_fetch" and abandoned.status == "failed"
    assert [c.name for c in ended if c.status == "failed"] == ["web_fetch", "apply_patch"]
    verbose = [c for c in ended if c.tool_start and c.tool_start["args"].get("verbose")]
    assert len(verbose[0].tool_end["result"]) > 8000  # the complete result is in the file


def test_agentgo_compaction_projection_and_checkpoints(agentgo_crashed: Path) -> None:
    view = agentgo.read_view(agentgo_crashed)
    first, second = view.run_order
    kinds = [(run, kind) for _, run, kind, _ in view.context_events]
    assert (first, "context_projected") in kinds and (second, "context_projected") in kinds
    ((_, run, _, compacted),) = [e for e in view.context_events if e[2] == "context_compacted"]
    assert run == second  # the next run prepares its context
    assert compacted["tokens_before"] > compacted["tokens_after"] > 0
    summary_call = view.calls[(second, "compact-1", 1)]
    assert summary_call.kind == "compact" and summary_call.status == "ok"
    # run 2's first model request starts from the summary
    first_request = next(
        view.calls[k] for k in view.runs[second].calls if view.calls[k].kind == "model"
    )
    assert first_request.request is not None
    opening = first_request.request["messages"][0]
    assert agentgo.view.message_text(opening) == compacted["summary"]

    assert len(view.checkpoints) >= 3
    assert {c.run_id for c in view.checkpoints} == {first, second}
    latest = view.latest_checkpoint()
    assert latest is not None and latest.run_id == second
    seqs = [c.seq for c in view.checkpoints]
    assert seqs == sorted(seqs)


def test_agentgo_clean_finish(tmp_path: Path) -> None:
    path = write_agentgo(tmp_path / "clean", crash=False)
    view = agentgo.read_view(path)
    assert [view.run_status(r) for r in view.run_order] == ["closed", "closed"]
    assert view.gaps() == []
    assert view.messages[-1].message["kind"] == "assistant"
    with agentgo.AgentGoSession.open(path) as again:
        checkpoint = again.load_checkpoint()
    assert checkpoint["run"] == 2  # the end of run 2


def test_agentgo_at_crash_the_writer_still_holds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "agentgo-run.jsonl"
    assert_still_held_at_crash(path, agentgo.AgentGoSession.open, format="agentgo-v1")


def test_agentgo_pacing_is_the_same_story(tmp_path: Path) -> None:
    v1: list[float] = []
    ag: list[float] = []
    simulate_run(str(tmp_path / "a.jsonl"), speed=1.0, sleep=v1.append)
    simulate_run(str(tmp_path / "b.jsonl"), speed=1.0, sleep=ag.append, format="agentgo-v1")
    assert v1 == ag


def test_agentgo_write_command_dies_by_sigkill_then_open_continues(tmp_path: Path) -> None:
    path = tmp_path / "agentgo-run.jsonl"
    run_write_command(path, "--format", "agentgo-v1")
    records = list(agentgo.read(path))
    view = agentgo.read_view(path)
    killed = view.run_order[-1]
    assert view.run_status(killed) == "open" and len(view.gaps()) == 3
    with agentgo.AgentGoSession.open(path) as again:  # the lock died with the writer
        run = again.begin_run()
        assert run.record("agent_start") == len(records) + 1
    after = agentgo.read_view(path)
    assert after.run_status(killed) == "interrupted"
    assert after.run_status(after.run_order[-1]) == "closed"


def test_agentgo_diff_is_the_conversation_beside_the_last_request(agentgo_crashed: Path) -> None:
    """What the last model request was sent, row by row against what was committed: the
    compacted turns not sent, the aged tool results sent as stubs, the summary sent as
    no committed message, each context event where it stands."""
    from session_core.formats import by_name

    view = agentgo.read_view(agentgo_crashed)
    text = by_name("agentgo-v1").diff(agentgo_crashed)
    rows = text.splitlines()[4:]
    signs = Counter(row[0] for row in rows)
    assert signs["-"] > 0 and signs["~"] > 0 and signs["+"] == 1 and signs["="] > 0
    assert signs["="] + signs["-"] + signs["~"] == len(view.messages)  # each message once
    summary = next(row for row in rows if row.startswith("+"))
    ((*_, compacted),) = [e for e in view.context_events if e[2] == "context_compacted"]
    assert " ".join(compacted["summary"].split())[:40] in summary
    context = [row for row in rows if row.startswith("# ") and "the last model request" not in row]
    assert len(context) == len(view.context_events)
    assert f"replaced {compacted['replaced']}" in next(r for r in context if "compacted" in r)
    # every message before the compaction's line was folded, or aged and then folded
    compacted_line = int(next(r for r in context if "compacted" in r).split()[2].rstrip(":"))
    before = [r for r in rows if r[0] in "=-~" and int(r.split()[2]) < compacted_line]
    assert {r[0] for r in before[:-1]} == {"-"}


def test_agentgo_context_events_are_compactions_and_elisions(agentgo_crashed: Path) -> None:
    """Each ``context_compacted`` a compaction, each ``context_projected`` an elision:
    what each folded or stubbed is what the next model request no longer holds as
    written, as many as the event says it replaced, each message once."""
    from session_core import open_transcript
    from session_core.formats.agentgo import AgentGoFormat

    view = agentgo.read_view(agentgo_crashed)
    t = open_transcript(agentgo_crashed)
    kinds = {"context_compacted": "compaction", "context_projected": "elision"}
    assert [c.kind for c in t.compactions] == [kinds[e[2]] for e in view.context_events]
    for compaction, (*_, data) in zip(t.compactions, view.context_events, strict=True):
        assert len(compaction.folded) == data["replaced"]
        assert compaction.tokens_before == data["tokens_before"]
    ids = {m.id for m in t.raw}
    folded = [i for c in t.compactions if c.kind == "compaction" for i in c.folded]
    assert set(folded) <= ids and len(set(folded)) == len(folded)
    replayed = AgentGoFormat().replay_json(agentgo_crashed)["compactions"]
    assert replayed == [c.to_json() for c in t.compactions]


def test_agentgo_diff_and_folds_take_a_call_id_of_any_value(agentgo_crashed: Path) -> None:
    """A message whose ``tool_call_id`` is not a string (a list, an object) answers no
    call: the diff and the folds read it as such, never as a key."""
    import orjson

    from session_core.formats.agentgo import AgentGoFormat

    lines = agentgo_crashed.read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    odd = next(
        r for r in records if r["type"] == "message_end" and "tool_call_id" in r["data"]["message"]
    )
    odd["data"]["message"]["tool_call_id"] = ["not", "a", "string"]
    for r in records:  # and in what the requests were sent
        for m in r["data"].get("messages", []) if r["type"] == "model_request" else []:
            if isinstance(m, dict) and "tool_call_id" in m:
                m["tool_call_id"] = {"odd": True}
    path = agentgo_crashed.with_name("odd.jsonl")
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    fmt = AgentGoFormat()
    assert fmt.diff(path).startswith(f"{path}: agentgo-v1, ")
    assert all(isinstance(c["folded"], list) for c in fmt.replay_json(path)["compactions"])


def test_agentgo_messages_are_what_the_model_is_sent_next(agentgo_crashed: Path) -> None:
    """The replayed view is what the diff says is sent next, in the order the requests
    hold it: the compacted messages gone, the aged results sent as their stubs, the
    summary (sent, never committed) an item of its own; the raw view keeps every
    committed message."""
    import re

    from session_core import open_transcript
    from session_core.formats import by_name

    t = open_transcript(agentgo_crashed)
    view = agentgo.read_view(agentgo_crashed)
    rows = by_name("agentgo-v1").diff(agentgo_crashed).splitlines()[4:]
    sent_lines = [int(m.group(1)) for r in rows if (m := re.match(r"[=~] line +(\d+)", r))]
    committed = [i for i in t.raw if i.kind != "record"]  # (its own records kept raw too)
    assert len(committed) == len(view.messages) > len(t.messages)
    assert [i.line for i in t.raw if i.kind == "record"] == [
        view.records.lines[at] for at in view.unknown
    ]
    assert sorted(m.line for m in t.messages if m.line) == sent_lines
    (summary,) = [m for m in t.messages if not m.line]
    ((*_, compacted),) = [e for e in view.context_events if e[2] == "context_compacted"]
    assert summary.role == "user" and summary.text.startswith(compacted["summary"][:40])
    assert t.messages[0] is summary  # where the request after the compaction holds it
    folded = {i for c in t.compactions if c.kind == "compaction" for i in c.folded}
    assert folded and not folded & {m.id for m in t.messages}
    stubbed = [m for m in t.messages if "elided" in m.marks]
    stub_rows = [r for r in rows if r.startswith("~ ")]
    assert len(stubbed) == len(stub_rows) > 0
    assert all(m.stub and m.stub.startswith("[elided") for m in stubbed)


def test_agentgo_sent_next_followed_is_as_read_whole(agentgo_crashed: Path) -> None:
    """Followed in small batches, each snapshot's replayed view (its compactions' folds,
    stubs and summary found as the requests after them come) is the model made afresh."""
    from helpers import each_snapshot_afresh

    from session_core.formats.agentgo import AgentGoFormat, AgentGoModel

    fmt = AgentGoFormat()
    live = fmt.live(str(agentgo_crashed))

    def afresh(alive: bool | None) -> Any:
        return AgentGoModel(live.view).transcript(str(agentgo_crashed), alive)

    assert each_snapshot_afresh(live, agentgo_crashed, afresh, 1 << 12) > 20
    whole = fmt.open(agentgo_crashed)
    assert [(m.id, m.stub) for m in live.transcript().messages] == [
        (m.id, m.stub) for m in whole.messages
    ]


def test_agentgo_tool_operations_have_their_duration_and_result_line(
    agentgo_crashed: Path,
) -> None:
    """From a call's tool_exec_start to its tool_exec_end: how long it took, and the
    line of its end (the Tool operations tab's "took"); a call with no end has neither."""
    from session_core import open_transcript
    from session_core.times import seconds_between

    view = agentgo.read_view(agentgo_crashed)
    ops = open_transcript(agentgo_crashed).tool_operations
    ended = [op for op in ops if op.result_line is not None]
    assert ended and all(op.duration is not None and op.duration >= 0 for op in ended)
    for op in ended:
        assert op.started is not None and op.ended is not None
        assert op.duration == seconds_between(op.started, op.ended)
        end = view.records.lines.index(op.result_line)
        assert view.records.kind(end) == "tool_exec_end"
    assert all(op.duration is None for op in ops if op.result_line is None)
    assert any(op.result_line is None for op in ops)  # the crash's
