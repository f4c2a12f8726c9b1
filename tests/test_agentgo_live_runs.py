"""A followed agentgo file's snapshot makes again only the runs its new lines touched
(``formats.agentgo.runs_made.RunsMade``): one line appended makes its run (and the last)
again, with only their usage totalled and no message counted again; each snapshot still
equals the model made afresh from the same view."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import neutral

from agentgo_helpers import ASSISTANT, USAGE, at, model, text, tool
from session_core.agentgo import AgentGoSession
from session_core.formats.agentgo import AgentGoFormat, AgentGoLive, AgentGoModel
from session_core.model import Transcript
from session_core.runs import Run
from session_core.tail_reader import TailReader
from session_core.tool_ops import ops_by_call
from session_core.usage import GrowingTally, UsageTally

RUNS = 30


def written(path: Path) -> list[bytes]:
    """A session of ``RUNS`` closed runs (a model call with usage and a message each, a
    tool call of the same id each), then a run left open: its lines."""
    session = AgentGoSession.create(path)
    for n in range(RUNS):
        run = session.begin_run()
        run.record("agent_start", {}, time=at(1))
        call = model(f"m{n}", turn_index=0)
        run.record("model_request", {"messages": [], "tools": [], "config": {}}, execution=call)
        answer = text("assistant", f"answer {n}")
        run.record("model_exec_end", {"message": answer, "usage": USAGE}, execution=call)
        run.record("message_end", {"message": answer})
        run.record("message_end", {"message": ASSISTANT})  # (asks for ``tc1``, each run)
        if n != 2:  # (run 2's never started: the last operation of the id)
            call = tool(f"t{n}", turn_index=0)
            run.record("tool_exec_start", {"tool": "ls", "tool_call_id": "tc1"}, execution=call)
            run.record("tool_exec_end", {"result": "a.py", "is_error": False}, execution=call)
        run.record("agent_end", {"stop_reason": "end"})
        run.close()
    last = session.begin_run()
    last.record("message_end", {"message": text("user", "one more")})
    call = model("late", turn_index=0)
    last.record("model_request", {"messages": [], "tools": [], "config": {}}, execution=call)
    last.record(
        "model_exec_end", {"message": text("assistant", "ok"), "usage": USAGE}, execution=call
    )
    last.close()
    session.close()
    return path.read_bytes().splitlines(keepends=True)


class Counting(list[Any]):
    """The view's messages, counting every walk over them all."""

    walks = 0

    def __iter__(self) -> Any:
        Counting.walks += 1
        return super().__iter__()


def caught_up(tail: TailReader, live: AgentGoLive, alive: bool | None) -> Transcript:
    while (update := tail.step(1 << 20)) is not None:
        live.apply(update)
        if update.caught_up:
            break
    return live.transcript(writer_alive=alive)


def test_a_line_appended_makes_its_run_again_not_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = written(tmp_path / "whole.jsonl")
    path = tmp_path / "followed.jsonl"
    start = len(lines) - 4  # (the last run begun, its message not yet)
    path.write_bytes(b"".join(lines[:start]))
    live = AgentGoFormat().live(os.fspath(path))
    tail = TailReader(os.fspath(path), parse=False)
    made: list[str] = []
    real_init = Run.__init__

    def init(self: Run, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        made.append(self.id)

    totalled: list[int] = []
    real_tally = GrowingTally.tally

    def tally(self: GrowingTally, *args: Any, **kwargs: Any) -> UsageTally:
        out = real_tally(self, *args, **kwargs)
        totalled.append(len(out.runs))
        return out

    try:
        first = caught_up(tail, live, True)
        assert len(first.runs) == RUNS + 1
        live.view.messages = Counting(live.view.messages)
        monkeypatch.setattr(Run, "__init__", init)
        monkeypatch.setattr(GrowingTally, "tally", tally)
        for n, line in enumerate(lines[start:]):
            made.clear()
            totalled.clear()
            Counting.walks = 0
            with path.open("ab") as fh:
                fh.write(line)
            alive = (True, None, False)[n % 3]
            snapshot = caught_up(tail, live, alive)
            assert len(snapshot.runs) == RUNS + 1
            # Its run (the last) made again, not the 30 closed before it; their usage
            # not totalled again, the messages not counted again.
            assert made == [live.view.run_order[-1]], n
            assert totalled == [1], n
            assert Counting.walks == 0, n
            monkeypatch.undo()
            fresh = AgentGoModel(live.view).transcript(os.fspath(path), alive)
            assert neutral(snapshot) == neutral(fresh)
            monkeypatch.setattr(Run, "__init__", init)
            monkeypatch.setattr(GrowingTally, "tally", tally)
    finally:
        tail.close()
    assert [r.state for r in snapshot.runs][-2:] == ["finished", "finished"]
    assert snapshot.runs[-1].items == 1 and snapshot.runs[-1].usage.responses == 1


def test_a_new_run_makes_the_one_before_it_again(tmp_path: Path) -> None:
    """A run begun after one left open interrupts it: both are made again, the rest kept."""
    lines = written(tmp_path / "whole.jsonl")
    # (the first run's lines up to its run_close, then the second's run_start: the first
    # left open, then interrupted)
    closes = [i for i, line in enumerate(lines) if b'"run_close"' in line]
    cut = [*lines[: closes[2]], *lines[closes[2] + 1 : closes[3]]]
    path = tmp_path / "followed.jsonl"
    path.write_bytes(b"".join(cut[: closes[2]]))
    live = AgentGoFormat().live(os.fspath(path))
    tail = TailReader(os.fspath(path), parse=False)
    try:
        before = caught_up(tail, live, True)
        assert before.runs[-1].state == "running"
        kept = before.runs[:-1]
        with path.open("ab") as fh:
            fh.write(cut[closes[2]])  # the next run's run_start
        after = caught_up(tail, live, True)
    finally:
        tail.close()
    assert [r.state for r in after.runs][-2:] == ["interrupted", "running"]
    assert all(a is b for a, b in zip(after.runs, kept, strict=False))  # (kept, not made)
    assert neutral(after) == neutral(AgentGoModel(live.view).transcript(os.fspath(path), True))


def odd_lines(lines: list[bytes]) -> list[bytes]:
    """Runs 4 and 9 fail (an error in their agent_end), run 9 then ends again without
    one (no longer failed: its row goes); a record of a type no reader knows and one
    not in its type's shape, in runs 6 and 20, and one whose run_id is no str (a run
    of its own, named by its str(), met again later)."""
    out, run = [], -1
    for line in lines:
        record = orjson.loads(line)
        kind = record.get("type")
        run += kind == "run_start"
        if kind == "agent_end" and run in (4, 9):
            record["data"] = {"error": f"run {run} gave up"}
            out.append(orjson.dumps(record) + b"\n")
            if run == 9:
                out.append(orjson.dumps({**record, "data": {"stop_reason": "end"}}) + b"\n")
            continue
        if kind == "message_end" and run in (6, 20):
            out.append(orjson.dumps({**record, "type": "mystery_event"}) + b"\n")
            out.append(orjson.dumps({**record, "data": {"no": "message"}}) + b"\n")
            odd = {**record, "type": "mystery_event", "run_id": 7000}  # (no str: one run)
            out.append(orjson.dumps(odd) + b"\n")
        out.append(line)
    return out


def laid_out(snapshot: Transcript) -> dict[str, Any]:
    """What a snapshot's raw view and runs hold. (Not its operations: a running one's
    result is read from its call when asked for, an earlier snapshot's too.)"""
    said = neutral(snapshot)
    return {key: said[key] for key in ("items", "runs", "run-objects")}


def test_each_snapshot_of_rows_of_their_own_is_made_afresh(tmp_path: Path) -> None:
    """The raw view's failed runs and records kept raw, laid out as the lines come (a
    failed run that ends again without an error laid out again): every snapshot equals
    the model made afresh, and an earlier snapshot stays as it was."""
    lines = odd_lines(written(tmp_path / "whole.jsonl"))
    path = tmp_path / "followed.jsonl"
    path.write_bytes(b"")
    live = AgentGoFormat().live(os.fspath(path))
    tail = TailReader(os.fspath(path), parse=False)
    earlier: list[tuple[Transcript, dict[str, Any]]] = []
    try:
        for n, line in enumerate(lines):
            with path.open("ab") as fh:
                fh.write(line)
            alive = (True, None, False)[n % 3]
            snapshot = caught_up(tail, live, alive)
            fresh = AgentGoModel(live.view).transcript(os.fspath(path), alive)
            assert neutral(snapshot) == neutral(fresh), n
            ops = snapshot.tool_operations
            by_call = ops_by_call(ops)  # (the model's: none made per draw)
            assert by_call is ops_by_call(ops) and by_call == {op.call_id: op for op in ops}
            earlier.append((snapshot, laid_out(snapshot)))
            if len(earlier) > 3:
                before, said = earlier.pop(0)
                assert laid_out(before) == said, n  # (nothing of it changed since)
    finally:
        tail.close()
    raw = [item.kind for item in snapshot.raw]
    assert raw.count("error") == 1 and len(raw) > len(snapshot.messages)


def test_the_odd_run_mark_is_the_records_own() -> None:
    """``runs_made`` keeps ``agentgo.records.ODD_RUN`` as a literal (importing it would
    load ``session_core.agentgo`` at every format's registration): the two must agree."""
    from session_core.agentgo.records import ODD_RUN
    from session_core.formats.agentgo import runs_made

    assert runs_made._ODD_RUN == ODD_RUN
