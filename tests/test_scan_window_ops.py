"""A big v1 file's row read from a tail window: the window cannot tell whether operations
dispatched before it are still open, so the lines before it that name an operation are
read (the row said "finished" where ``check`` said 1 pending; an audit's
``big/win_v1.jsonl``; and where no settle in the window named one, 2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from session_core import Message, Session, tallies
from session_core.formats import V1, by_name
from session_core.scan import scan_file
from session_core.tallies import open_before, open_ops_before
from viewer.cli import main

WINDOW = 64 << 10
GONE = 1_700_000_000  # (an mtime long past: its writer, which took no lock, is gone)


def _written(path: Path, *, settled: tuple[bool, bool]) -> tuple[str, str]:
    """Two operations dispatched, then more than a window of messages, then those
    ``settled`` says settled, and answered."""
    call = {"type": "function", "function": {"name": "fs_read", "arguments": "{}"}}
    with Session.create(path, meta={"agent": "w"}) as s:
        s.append_message(Message(role="user", content="go"))
        calls = ({**call, "id": "c1"}, {**call, "id": "c2"})
        s.append_message(Message(role="assistant", content="", tool_calls=calls))
        ops = [
            s.append_tool_dispatched(
                call_id=c,
                tool="fs_read",
                arguments="{}",
                arguments_digest=None,
                idempotency="read-only",
                run_id="r1",
                round=1,
            )
            for c in ("c1", "c2")
        ]
        for _ in range(2 * WINDOW // 1000):
            s.append_message(Message(role="user", content="filler " + "x" * 1000))
        for op, settles in zip(ops, settled, strict=True):
            if settles:
                s.append_tool_settled(
                    op_id=op,
                    outcome="completed",
                    reason=None,
                    duration=0.1,
                    result_digest=None,
                    artifact=None,
                    error=None,
                )
        s.append_message(Message(role="tool", content="read", tool_call_id="c2"))
        s.append_message(Message(role="assistant", content="done"))
    os.utime(path, (GONE, GONE))
    return ops[0], ops[1]


def test_an_operation_dispatched_before_the_window_and_left_open_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "win_v1.jsonl"
    _written(path, settled=(False, True))
    assert path.stat().st_size > 2 * WINDOW
    assert main(["check", str(path)]) == 0
    assert "1 tool operation pending" in capsys.readouterr().out
    row = scan_file(path, live_window=0, budget=WINDOW, window=WINDOW)
    assert row.estimated and row.status == "crashed" and row.pending == 1
    assert row.reason == "1 tool operation pending"
    whole = scan_file(path, live_window=0)
    assert (whole.status, whole.pending) == (row.status, 1)
    # (a whole read says its state, as check does; a window cannot tell)
    assert whole.reason == "1 tool operation pending (1 interrupted)"


def test_an_operation_left_open_runs_while_its_writer_may_be_at_work(tmp_path: Path) -> None:
    """Fresh (its writer, which took no lock, may be at work: two minutes), an operation
    not settled is running, as ``check`` and the viewer's header say it ("1 tool
    operation pending (1 running)"): the row is live, its window's and its whole read's
    alike (a whole read said it crashed, "1 tool operation pending", while ``check``
    said it ran)."""
    path = tmp_path / "win_v1.jsonl"
    _written(path, settled=(False, True))
    os.utime(path)  # (written now)
    assert "1 tool operation pending (1 running)" in by_name(V1).check(path)
    row = scan_file(path, budget=WINDOW, window=WINDOW)
    assert row.estimated and (row.status, row.pending) == ("live", 1), row.reason
    whole = scan_file(path)
    assert (whole.status, whole.reason) == ("live", "1 tool operation pending (1 running)")


def test_operations_open_before_the_window_with_no_settle_in_it_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No settle in the window names an operation before it: the lines before are read
    all the same (the row said "finished", 0 pending, where ``check`` said 2)."""
    path = tmp_path / "win_v1.jsonl"
    _written(path, settled=(False, False))
    assert main(["check", str(path)]) == 0
    assert "2 tool operations pending" in capsys.readouterr().out
    row = scan_file(path, live_window=0, budget=WINDOW, window=WINDOW)
    assert row.estimated and row.status == "crashed" and row.pending == 2
    assert row.reason == "2 tool operations pending"
    whole = scan_file(path, live_window=0)
    assert (whole.status, whole.pending) == (row.status, 2)
    # (a whole read says which were answered, as check does; a window cannot tell)
    assert whole.reason == (
        "2 tool operations pending (1 interrupted and 1 completed, settle never landed)"
    )


def test_both_settled_the_row_is_finished(tmp_path: Path) -> None:
    path = tmp_path / "win_v1.jsonl"
    _written(path, settled=(True, True))
    row = scan_file(path, live_window=0, budget=WINDOW, window=WINDOW)
    assert row.estimated and (row.status, row.pending, row.reason) == ("finished", 0, None)


def test_the_lines_before_are_read_a_block_at_a_time(tmp_path: Path) -> None:
    """Blocks shorter than a line (a long one is joined once): the same operations."""
    path = tmp_path / "win_v1.jsonl"
    first, _second = _written(path, settled=(False, True))
    size = path.stat().st_size
    with path.open("rb") as fh:
        assert open_ops_before(fh, 0, size, set()) == {first}
        assert open_ops_before(fh, 0, size, set(), block=100) == {first}


def test_a_row_read_again_reads_on_from_where_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live big file's row is read at every change: the lines before its window are
    read on from where the last read ended (a file only grows), and from the start where
    the bytes there changed (rewritten in place, or the inode another file's)."""
    path = tmp_path / "win_v1.jsonl"
    first, _second = _written(path, settled=(False, True))
    reads: list[int] = []
    real = tallies.open_ops_before
    monkeypatch.setattr(
        tallies, "open_ops_before", lambda fh, s, *a, **k: reads.append(s) or real(fh, s, *a, **k)
    )
    lines = path.read_bytes().splitlines(keepends=True)
    half = sum(map(len, lines[: len(lines) // 2]))
    with path.open("rb") as fh:
        assert open_before(fh, half) == open_ops_before(fh, 0, half, set())
        assert open_before(fh, path.stat().st_size) == {first}
    assert reads == [0, half]
    with path.open("r+b") as fh:
        fh.seek(path.stat().st_size - 10)
        fh.write(b"?")  # (a byte just before where the last read ended: not as it was)
    with path.open("rb") as fh:
        open_before(fh, path.stat().st_size)
    assert reads[-1] == 0


@pytest.mark.parametrize(
    "line",
    [
        b'{"id":"d","payload":{},"ts":"t","type":"tool-dispatched","v":1.0}',  # (1.0 == 1)
        b'{"id":7,"payload":{},"ts":"t","type":"tool-dispatched","v":1}',  # (an id not text)
        b'{"id":"d","payload":{"call-id":"c","tool":"t","arguments":"{}","n":1e400},'
        b'"ts":"t","type":"tool-dispatched","v":1}',  # (a number past a double's range)
    ],
)
def test_an_operation_line_the_typed_read_refuses_is_read_whole(
    tmp_path: Path, line: bytes
) -> None:
    """Lines the replay's typed decode does not take are read as the window reads them."""
    path = tmp_path / "ops.jsonl"
    settle = b'{"id":"s","payload":{"op-id":"x"},"ts":"t","type":"tool-settled","v":1}'
    path.write_bytes(line + b"\n" + settle + b"\n")
    with path.open("rb") as fh:
        assert len(open_before(fh, path.stat().st_size)) == 1
