"""A followed Claude Code session's calls not answered at a snapshot are made when asked
for (``calls.OpenCalls``), as they were at the snapshot: a response of N parallel calls,
all open while it is written, made each at every snapshot (O(N) a line: 118, 272 and
469 µs a line at 500, 1,000 and 2,000 lines). Counted, not timed: the operations made."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter, tool_use
from helpers import neutral
from test_claude_code_split_response import split_response

from session_core.formats.claude_code import ClaudeCodeFormat
from session_core.formats.claude_code.calls import CallColumn
from session_core.model import Transcript

FMT = ClaudeCodeFormat()
CALLS = 300
STATES = ("running", "interrupted", "completed", "failed")


def varied(path: Path) -> Path:
    """Open calls of every kind: one of a turn a later prompt ended, parallel ones with
    progress, answered ones (one failed, one cut off by its result), a turn cut by the
    user with a call open, and ones open when the file ends."""
    w = CCWriter()
    w.user("first")
    w.assistant("msg_0", [tool_use("e0", "Bash", command="sleep 9")])
    w.user("second")  # (e0 never answered: its turn interrupted)
    lines = w.assistant("msg_1", [tool_use(f"t{i}", "Bash", command=f"echo {i}") for i in range(6)])
    w.progress("t1", {"type": "bash_progress", "output": "half way"})
    w.progress("t2", {"type": "bash_progress", "output": "a line"})
    w.result("t0", "out 0", parent=lines[0])
    w.result("t1", "boom", parent=lines[1], is_error=True)
    w.result("t3", "[Request interrupted by user for tool use]", parent=lines[3], is_error=True)
    w.progress("t2", {"type": "bash_progress", "output": "two lines"})
    w.user("[Request interrupted by user]")
    w.user("third")
    w.assistant("msg_2", [tool_use(f"u{i}", "Bash", command=f"ls {i}") for i in range(3)])
    w.progress("u0", {"type": "bash_progress", "output": "listing"})
    w.result("u1", "done 1")
    return w.write(path)


def fed(path: Path, upto: int | None = None) -> Any:
    b: Any = FMT.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines()[:upto], 1):
        b.feed(orjson.loads(raw), number)
    return b


def ops_said(t: Transcript) -> dict[str, Any]:
    """What a snapshot says of its operations and turns, each made."""
    ops = t.tool_operations
    said = neutral(t)
    return {
        "ops": said["ops"],
        "runs": said["run-objects"],
        "states": [ops.state_of(i) for i in range(len(ops))],  # type: ignore[attr-defined]
        "counts": [ops.count_state(s) for s in STATES],  # type: ignore[attr-defined]
        "unsettled": [op.call_id for op in ops.unsettled()],  # type: ignore[attr-defined]
    }


def test_a_followed_response_of_parallel_calls_makes_no_operation_not_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = split_response(tmp_path / "p.jsonl", CALLS)  # (parallel calls, a line each)
    made = 0
    op = CallColumn.op

    def counted(self: CallColumn, *args: Any, **kwargs: Any) -> Any:
        nonlocal made
        made += 1
        return op(self, *args, **kwargs)

    monkeypatch.setattr(CallColumn, "op", counted)
    b: Any = FMT.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        b.feed(orjson.loads(raw), number)
        if number % 5 == 0:
            t = b.transcript(True)
            ops = t.tool_operations
            # (asked without making them: the header's counts and a turn's state)
            assert ops.count_state("running") == len(b.calls.open)
            assert t.runs[-1].state == ("running" if b.calls.open else t.runs[-1].state)
    assert made == 0  # (each snapshot made them all: CALLS * CALLS / 10 or so)
    followed = b.transcript(False)
    assert neutral(followed) == neutral(FMT.open(path, writer_alive=False))
    assert made == 2 * CALLS  # (made once each, by each snapshot asked: itself and the whole read)


@pytest.mark.parametrize("alive", [True, False, None])
def test_a_snapshot_s_open_calls_are_made_as_they_were_at_it(tmp_path: Path, alive: bool) -> None:
    """Each snapshot of a followed file, its operations made only after the rest of the
    file was fed, says what a whole read of the lines before it says; its states, counts,
    unsettled operations and turns agree with its operations."""
    path = varied(tmp_path / "v.jsonl")
    lines = len(path.read_bytes().splitlines())
    b: Any = FMT.builder(str(path))
    snapshots = []
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        b.feed(orjson.loads(raw), number)
        snapshots.append(b.transcript(alive))
    assert len(snapshots) == lines
    for upto, snapshot in enumerate(snapshots, 1):
        said = ops_said(snapshot)  # (made now, the whole file fed)
        assert said == ops_said(fed(path, upto).transcript(alive)), upto
        ops = snapshot.tool_operations
        states = [op.state for op in ops]
        assert said["states"] == states
        assert said["counts"] == [states.count(s) for s in STATES]
        busy = [op.call_id for op in ops if op.state in ("running", "interrupted")]
        assert set(busy) <= set(said["unsettled"])
    last = ops_said(snapshots[-1])
    # (every kind seen: the earlier turn's call and the cut turn's interrupted, the last
    # turn's running while its writer may be at work, a result's error and cut)
    assert last["states"][0] == "interrupted" and last["states"].count("failed") == 1
    assert ("running" in last["states"]) is (alive is not False)
    assert [op.progress for op in snapshots[-1].tool_operations if op.progress] == [
        "two lines",
        "listing",
    ]
