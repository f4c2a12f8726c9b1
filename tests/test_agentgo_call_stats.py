"""The agentgo header's counts of runs and gaps (``viewer.agentgo_model.CallStats``) are
kept as records come, a run looked at again only when its records came: at every line
of a followed file they equal a walk over every run, and a header walks none."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import orjson
import pytest
from test_agentgo_live_runs import written

from session_core.agentgo.view import AgentGoView
from session_core.formats.agentgo import AgentGoFormat
from session_core.tail_reader import TailReader
from viewer.agentgo_model import CallStats, touched_calls


def walked(stats: CallStats, view: AgentGoView) -> tuple[dict[str, int], int, int]:
    """Every run walked: its status, failed or not, and the gaps as the header says them
    (each run's ``run_gaps``, and the calls' outside a run)."""
    states = Counter(view.run_status(r) for r in view.run_order)
    failed = sum(view.runs[r].failed for r in view.run_order)
    outside = stats.gaps() - sum(stats.gaps(r) for r in view.run_order)
    gaps = outside + sum(stats.run_gaps(view, r) for r in view.run_order)
    return {s: states[s] for s in ("open", "closed", "interrupted")}, failed, gaps


def damaged(lines: list[bytes]) -> list[bytes]:
    """Runs 3 and 7 never closed (interrupted), run 5's model call never ended (a gap),
    run 9's loop ended in an error (failed)."""
    out, run = [], -1
    for line in lines:
        record = orjson.loads(line)
        kind = record.get("type")
        run += kind == "run_start"
        if (kind == "run_close" and run in (3, 7)) or (kind == "model_exec_end" and run == 5):
            continue
        if kind == "agent_end" and run == 9:
            record["data"] = {"error": "the model gave up"}
            line = orjson.dumps(record) + b"\n"
        out.append(line)
    return out


def test_the_header_counts_equal_a_walk_at_every_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = damaged(written(tmp_path / "whole.jsonl"))
    path = tmp_path / "followed.jsonl"
    path.write_bytes(b"")
    live = AgentGoFormat().live(os.fspath(path))
    tail = TailReader(os.fspath(path), parse=False)
    stats, seen, checked = CallStats(), 0, 0
    walks: list[str] = []
    real_status = AgentGoView.run_status
    try:
        for n, line in enumerate(lines):
            with path.open("ab") as fh:
                fh.write(line)
            while (update := tail.step(1 << 20)) is not None:
                live.apply(update)
                if update.caught_up:
                    break
            view = live.view
            stats.update(view, touched_calls(view, seen))
            seen = len(view.records)
            stats.update_runs(view)
            for alive in (True, None, False):
                view.writer_alive = alive
                states, failed, gaps = walked(stats, view)
                monkeypatch.setattr(
                    AgentGoView, "run_status", lambda v, r: walks.append(r) or real_status(v, r)
                )
                assert (stats.run_states(view), stats.failed) == (states, failed), n
                assert stats.shown_gaps(view) == gaps, n
                assert walks == [], n  # (no run's status asked: none walked)
                monkeypatch.undo()
                checked += 1
    finally:
        tail.close()
    view.writer_alive = True
    states, failed, gaps = walked(stats, view)
    assert states == {"open": 0, "closed": 29, "interrupted": 2} and failed == 1
    assert gaps == 3 and checked == 3 * len(lines)
