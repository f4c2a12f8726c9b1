"""A replayed export holds every call whole: the conversation the calls it shows, and
after the operations those a compaction folded from what is sent next (they were a table
row alone, arguments cut to 80 characters, no result: most of a long run's tool I/O)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from demo_helpers import run_write_command

import session_core
from session_core.export import export_into
from session_core.exportdoc import UNSHOWN_CALLS

FORMATS = ["transcript-v1", "agentgo-v1", "claude-code", "codex"]


def _exported(path: Path, view: str) -> str:
    out = io.BytesIO()
    export_into(path, "md", view, out)  # type: ignore[arg-type]
    return out.getvalue().decode()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_replayed_export_holds_every_call_whole(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "demo.jsonl"
    run_write_command(path, "--format", fmt)  # (killed at its end: SIGKILL)
    transcript = session_core.open_transcript(path)
    assert transcript.compactions, "the demo compacts (else there is nothing to test)"
    replayed = _exported(path, "replayed")
    assert UNSHOWN_CALLS.split(" (")[0] in replayed.replace("\\", "")
    missing = []
    plain = replayed.replace("\\", "")
    # (the calls given whole after the operations: a shown call's result may be a stub,
    # what is sent, its original in the raw view)
    after = plain.split(UNSHOWN_CALLS.split(" (")[0], 1)[1]
    # (the review) every call no message sent next holds is listed there, whole
    sent = {p.call_id for m in transcript.messages for p in m.parts if p.kind == "tool-call"}
    folded = [op.call_id for op in transcript.tool_operations if op.call_id not in sent]
    assert folded, "the demo folds calls (else there is nothing to test)"
    assert [cid for cid in folded if f"{cid} · " not in after] == []
    for op in transcript.tool_operations:
        wanted = [v[:40] for v in _strings(op.arguments)]  # (each argument's text)
        if f"{op.call_id} · " in after and op.result and op.result.strip():
            wanted.append(op.result.strip().splitlines()[0][:40])
        if f"{op.call_id} · " in after and op.detail is not None:  # (its tool's own, too)
            wanted.append(f"{op.call_id}: detail:")
        # (outside a fence Markdown escapes: "\\# Changelog")
        missing += [(op.call_id, w) for w in wanted if w.replace("\\", "") not in plain]
    assert not missing, missing


def _strings(value: object) -> list[str]:
    """The first lines of the strings an argument holds (a JSON text: what it decodes to)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [value.splitlines()[0]] if value.strip() else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, str):
        return _strings(json.dumps(value)[1:-1]) if "\n" in json.dumps(value) else [value]
    return []


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_call_id_used_again_later_hides_no_folded_call(tmp_path: Path, fmt: str) -> None:
    """A call id a later message uses again (a writer that numbers its calls again after
    a compaction) is another call: the later one, shown, does not hide the folded one
    from the calls given whole (the shown calls were noted by their bare id)."""
    path = tmp_path / "demo.jsonl"
    run_write_command(path, "--format", fmt)
    transcript = session_core.open_transcript(path)
    sent = {p.call_id for m in transcript.messages for p in m.parts if p.kind == "tool-call"}
    ops = transcript.tool_operations
    folded = next(op for op in ops if op.call_id not in sent)
    later = next(op for op in reversed(ops) if op.call_id in sent and op.tool != folded.tool)
    # (the later call takes the folded one's id, everywhere it is written)
    path.write_text(path.read_text().replace(later.call_id, folded.call_id))
    replayed = _exported(path, "replayed").replace("\\", "")
    after = replayed.split(UNSHOWN_CALLS.split(" (")[0], 1)[1]
    assert f"{folded.call_id} · {folded.tool} · " in after
    # (and the later one, which the conversation shows, is not given again)
    assert f"{folded.call_id} · {later.tool} · " not in after


def _v1_reusing(path: Path, turns: int) -> Path:
    """A v1 file of ``turns`` turns, each asking for a call, running it and answering it,
    every call named ``call_1`` (a writer that numbers its calls again every run)."""
    from session_core import Message, Session

    with Session.create(path) as session:
        for turn in range(turns):
            call = {"id": "call_1", "type": "function", "function": {"name": "ls"}}
            call["function"]["arguments"] = json.dumps({"turn": turn})  # type: ignore[index]
            session.append_message(Message(role="user", content=f"prompt {turn}"))
            session.append_message(Message(role="assistant", content="", tool_calls=(call,)))
            op = session.append_tool_dispatched("call_1", "ls", {"turn": turn})
            session.append_tool_settled(op, "completed", duration=0.5)
            session.append_message(Message(role="tool", content=f"R{turn}", tool_call_id="call_1"))
    return path


def test_a_v1_export_of_a_reused_call_id_is_linear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each call of a reused id finds its answers and operation in what was grouped once
    per id: twice the turns is twice the lookups (each call scanned every earlier asker,
    answer and operation of its id: 4,000 turns took 25 s)."""
    from session_core.exportdoc_v1 import _V1
    from session_core.packed_ids import PackedIds

    lookups = [0]
    ids_type = PackedIds  # (the events' ids: ``state.events.ids[at]``)
    item = ids_type.__getitem__
    asker, dispatch = _V1.asker, _V1.dispatch

    def counted(method: Any) -> Any:
        def count(*args: Any) -> Any:
            lookups[0] += 1
            return method(*args)

        return count

    monkeypatch.setattr(ids_type, "__getitem__", counted(item))
    monkeypatch.setattr(_V1, "asker", counted(asker))
    monkeypatch.setattr(_V1, "dispatch", counted(dispatch))
    counts = []
    for turns in (200, 400):  # (both past the events' cache: each line parsed again alike)
        path = _v1_reusing(tmp_path / f"reuse-{turns}.jsonl", turns)
        lookups[0] = 0
        replayed = _exported(path, "replayed")
        assert replayed.count("R1") and f"R{turns - 1}" in replayed
        counts.append(lookups[0])
    assert counts[1] <= 2.2 * counts[0], counts


def test_an_agentgo_execution_written_before_its_asking_message_is_not_listed_again(
    tmp_path: Path,
) -> None:
    """seq is append order: a ``tool_exec_start`` may come before the ``message_end`` asking
    for its call. The conversation shows that call with its execution; it is not given
    again among the calls a compaction folded (it was keyed as asked by no message)."""
    from agentgo_helpers import tool
    from agentgo_story import model_asks_ls, text
    from session_core.agentgo import AgentGoSession

    path = tmp_path / "order.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    answer = model_asks_ls(run, "tc9", "turn-0")
    start = {"tool": "ls", "tool_call_id": "tc9", "args": {"p": "."}}
    run.record("tool_exec_start", start, execution=tool("tool-0"))
    run.record("tool_exec_end", {"result": "a.py", "is_error": False}, execution=tool("tool-0"))
    run.record("message_end", {"message": answer})  # (after its execution)
    run.record("message_end", {"message": {**text("tool_result", "a.py"), "tool_call_id": "tc9"}})
    compacted = {"summary": "earlier", "replaced": 1, "tokens_before": 100, "tokens_after": 10}
    run.record("context_compacted", compacted)
    run.record("message_end", {"message": text("user", "next")})
    run.close()
    session.close()
    replayed = _exported(path, "replayed").replace("\\", "")
    assert "**ls** (tc9): ok · execution tool-0" in replayed
    assert UNSHOWN_CALLS.split(" (")[0] not in replayed
    assert "tc9 · ls · " not in replayed


REUSED_ANSWER = "RESULT-OF-THE-LATER-CALL"


def _agentgo_reusing(path: Path) -> Path:
    """Two runs, each asking for a call ``tc1``: the first fails with no committed result,
    the second is answered."""
    from agentgo_helpers import tool
    from agentgo_story import ask_model, model, text
    from session_core.agentgo import AgentGoSession

    session = AgentGoSession.create(path)
    for n, (name, result) in enumerate([("ls", None), ("cat", REUSED_ANSWER)]):
        run = session.begin_run()
        user = text("user", f"prompt {n}")
        run.record("message_end", {"message": user})
        ask_model(run, [user], model(f"turn-{n}"))
        call = {"type": "tool_call", "id": "tc1", "name": name, "arguments": {"n": n}}
        answer = {"kind": "assistant", "content": [call]}
        run.record("model_exec_end", {"message": answer}, execution=model(f"turn-{n}"))
        run.record("message_end", {"message": answer})
        start = {"tool": name, "tool_call_id": "tc1", "args": {"n": n}}
        run.record("tool_exec_start", start, execution=tool(f"tool-{n}"))
        end = {"result": result or "boom", "is_error": result is None}
        run.record("tool_exec_end", end, execution=tool(f"tool-{n}"))
        if result:
            said = {**text("tool_result", result), "tool_call_id": "tc1"}
            run.record("message_end", {"message": said})
        run.close()
    session.close()
    return path


def _claude_code_reusing(path: Path) -> Path:
    """A Bash call ``toolu_1`` never answered, then a Read call of the same id answered."""
    from claude_code_writer import CCWriter, text, tool_use, usage

    writer = CCWriter()
    writer.user("first prompt")
    bash = tool_use("toolu_1", "Bash", command="echo A")
    writer.assistant("msg_A", [text("asking A"), bash], usage=usage(10, 5))
    writer.user("second prompt (A never answered)")
    read = tool_use("toolu_1", "Read", file_path="/b")
    writer.assistant("msg_B", [text("asking B"), read], usage=usage(10, 5))
    writer.result("toolu_1", REUSED_ANSWER)
    writer.assistant("msg_C", [text("done")], usage=usage(10, 5))
    return writer.write(path)


def _codex_reusing(path: Path) -> Path:
    """A turn's ``ls`` call ``call_1``, aborted unanswered; the next turn's ``cat`` call
    of the same id, answered."""
    from codex_writer import RolloutWriter

    writer = RolloutWriter(path)
    writer.session_meta()
    for n, (name, result) in enumerate([("ls", None), ("cat", REUSED_ANSWER)]):
        writer.turn_context(f"turn-{n}")
        writer.task_started(f"turn-{n}")
        writer.message("user", f"prompt {n}")
        writer.function_call(name, {"n": n}, "call_1")
        if result is None:
            writer.turn_aborted(f"turn-{n}")
        else:
            writer.function_output("call_1", result)
            writer.task_complete(f"turn-{n}")
    return path


def _call_lines(exported: str, name: str) -> list[str]:
    """The lines of the conversation's call ``name`` (its status, then its result)."""
    lines = exported.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"- **{name}** "))
    return lines[at : at + 2]


@pytest.mark.parametrize(
    ("make", "earlier", "later"),
    [
        (_agentgo_reusing, "ls", "cat"),
        (_claude_code_reusing, "Bash", "Read"),
        (_codex_reusing, "ls", "cat"),
    ],
)
def test_a_reused_ids_earlier_call_does_not_take_the_later_calls_answer(
    tmp_path: Path, make: Any, earlier: str, later: str
) -> None:
    """An answer is of the last call of its id asked before it: the earlier call, never
    answered, is not shown with the later call's result (nor its state)."""
    path = make(tmp_path / "reuse.jsonl")
    for view in ("replayed", "raw"):
        exported = _exported(path, view).replace("\\", "")
        first = _call_lines(exported, earlier)
        second = _call_lines(exported, later)
        assert REUSED_ANSWER not in "\n".join(first), first
        assert "completed" not in first[0] and ": ok" not in first[0], first
        assert REUSED_ANSWER in second[1], second


def test_a_reused_id_of_items_holding_their_call_and_result_keeps_each_result(
    tmp_path: Path,
) -> None:
    """A newer Codex writer's ``item_completed`` holds a command and its output on one
    line: an answer on its call's own line is that call's (it was the first call's, and
    the second said "state not known", "no result answers this call")."""
    from codex_writer import RolloutWriter

    path = tmp_path / "r.jsonl"
    writer = RolloutWriter(path)
    writer.session_meta()
    for n, (command, output, status, code) in enumerate(
        [("ls /nope", "FIRST-OUTPUT", "failed", 2), ("echo hi", "SECOND-OUTPUT", "completed", 0)]
    ):
        writer.task_started(f"t{n}")
        writer.event("user_message", message=f"prompt {n}")
        item = {"type": "CommandExecution", "id": "x1", "command": ["bash", "-lc", command]}
        item |= {"status": status, "aggregatedOutput": output, "exitCode": code}
        writer.item_completed(item, turn=f"t{n}")
        writer.task_complete(f"t{n}")
    exported = _exported(path, "replayed").replace("\\", "")
    assert "state not known" not in exported and "no result answers" not in exported
    first, second = exported.index("FIRST-OUTPUT"), exported.index("SECOND-OUTPUT")
    assert first < second
