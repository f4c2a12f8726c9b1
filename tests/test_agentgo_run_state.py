"""agentgo's runs in ``replay``'s JSON say ``state`` in every format's words (finished,
failed, running, interrupted: the neutral model's ``Run.state``), as the other formats'
runs do, beside the spec's ``status`` (closed, open, interrupted), which stays: they said
``status`` alone, and a failed loop's closed run read as a finished one's."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from helpers import run_cli

from agentgo_helpers import REQUEST, dump_records, model, records_of, text
from session_core import open_transcript
from session_core.agentgo import AgentGoSession

ANSWER = {**text("assistant", "Done."), "stop_reason": "end_turn"}


def _run(session: AgentGoSession, end: dict[str, str] | None) -> None:
    """A run of one model call, its loop ended with ``agent_end`` of ``end`` and closed;
    None: left open."""
    run = session.begin_run()
    run.record("agent_start")
    run.record("model_request", REQUEST, execution=model("m1"))
    run.record("model_exec_end", {"message": ANSWER}, execution=model("m1"))
    run.record("message_end", {"message": ANSWER})
    if end is not None:
        run.record("agent_end", end)
        run.close()


def _replayed(capsys: pytest.CaptureFixture[str], path: Path) -> list[tuple[str, str]]:
    code, out, err = run_cli(capsys, "replay", str(path))
    assert code == 0 and not err, err
    return [(run["status"], run["state"]) for run in orjson.loads(out)["runs"]]


def test_each_run_says_its_state_beside_its_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finished, failed, cut off by a crash (its scope never closed, a run after it) and
    left open by a writer now gone."""
    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        for end in ({"stop_reason": "end_turn"}, {"error": "budget exceeded"}, {}, {}):
            _run(s, end)
    # (the third run's agent_end and run_close gone: a crash; the last's run_close too)
    records = records_of(path)
    runs = [r["run_id"] for r in records if r["type"] == "run_start"]
    kept = [
        r
        for r in records
        if not (r.get("run_id") == runs[2] and r["type"] in ("agent_end", "run_close"))
        and not (r.get("run_id") == runs[3] and r["type"] == "run_close")
    ]
    for seq, record in enumerate(kept):
        record["seq"] = seq
    path.write_bytes(dump_records(kept))
    said = _replayed(capsys, path)
    assert said == [
        ("closed", "finished"),
        ("closed", "failed"),
        ("interrupted", "interrupted"),
        ("interrupted", "interrupted"),
    ]
    # (the neutral model's states, which the Runs tab and the other formats' runs say)
    assert [state for _, state in said] == [run.state for run in open_transcript(path).runs]


def test_a_run_its_writer_is_still_writing_is_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        _run(s, {})
        _run(s, None)
        assert _replayed(capsys, path) == [("closed", "finished"), ("open", "running")]
