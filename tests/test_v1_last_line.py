"""A v1 file's last line's time is its last line's, where that line is no message (a
``tool-dispatched`` or ``tool-settled`` line after the last one): ``Transcript.last_time``,
so ``written_at`` (read from the file's end), the lower bound of how long a call not
answered ran (``≥3s``) and a run's end agree, read whole or followed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import follow_into, neutral

from session_core.events import Events
from session_core.formats import V1, by_name
from session_core.op_running import ran_by_call
from session_core.scan import FileSummary, scan_file
from session_core.scan_live import V1Fold
from session_core.times import epoch

FMT = by_name(V1)


def _at(second: int) -> str:
    return f"2026-11-30T10:00:{second:02d}.000000Z"


def _line(kind: str, payload: dict[str, Any], ident: str, second: int) -> bytes:
    record = {"id": ident, "payload": payload, "ts": _at(second), "type": kind, "v": 1}
    return orjson.dumps(record, option=orjson.OPT_SORT_KEYS) + b"\n"


def _call(call: str) -> dict[str, Any]:
    return {"function": {"arguments": "{}", "name": "read_file"}, "id": call, "type": "function"}


def _dispatched(op: str, call: str, second: int) -> bytes:
    payload = {"arguments": "{}", "call-id": call, "idempotency": "read-only", "tool": "read_file"}
    return _line("tool-dispatched", payload | {"round": 1, "run-id": "run-1"}, op, second)


LINES = [
    _line("session-meta", {"agent": "a"}, "m0", 0),
    _line("run-context", {"digest": "d", "facts": [], "run-id": "run-1", "sections": []}, "c", 0),
    _line("message", {"content": "go", "role": "user"}, "u1", 1),
    _line(
        "message",
        {"content": "", "role": "assistant", "tool-calls": [_call("call_1"), _call("call_2")]},
        "a1",
        2,
    ),
    _dispatched("op1", "call_1", 3),
    _dispatched("op2", "call_2", 4),
    _line("tool-settled", {"op-id": "op2", "outcome": "completed"}, "s2", 6),
]


@pytest.fixture
def ends_in_a_settle(tmp_path: Path) -> Path:
    """A call running (dispatched at 3 s, never settled) beside one settled at 6 s, the
    last message (its assistant turn) written at 2 s."""
    path = tmp_path / "settle-last.jsonl"
    path.write_bytes(b"".join(LINES))
    return path


@pytest.mark.parametrize("alive", [True, False])
def test_the_last_line_is_a_settle_after_the_last_message(
    ends_in_a_settle: Path, alive: bool
) -> None:
    t = FMT.open(ends_in_a_settle, writer_alive=alive)
    assert t.raw[-1].ts == _at(2)  # (the last item: the assistant's turn)
    assert t.last_time() == _at(6)
    (run,) = t.runs
    if not alive:  # (cut off in its call: it ended at the file's last line)
        assert (run.state, run.end_line, run.ended) == ("interrupted", 7, _at(6))
    # The call not answered ran from its dispatch (3 s) to the file's last line at least
    # (its run's end, or the file's last line's time while the run goes on): to the last
    # message's time, it would have "run" -1 s (no bound at all).
    ((key, ran),) = ran_by_call(t).items()
    assert key[0] == "call_1" and (ran.seconds, ran.ts, ran.text) == (3.0, _at(6), "≥3.0s")


def test_written_at_is_the_last_lines_time(ends_in_a_settle: Path) -> None:
    assert FMT.tail(ends_in_a_settle) is not None
    assert FMT.written_at(ends_in_a_settle) == epoch(_at(6))


def test_a_dispatch_last_is_the_last_time(tmp_path: Path) -> None:
    path = tmp_path / "dispatch-last.jsonl"
    path.write_bytes(b"".join(LINES[:5]))
    assert FMT.open(path).last_time() == _at(3)


@pytest.mark.parametrize("batch", [1, 64, 1 << 16])
def test_followed_the_last_time_is_the_whole_reads(ends_in_a_settle: Path, batch: int) -> None:
    """Each snapshot of a follow (``neutral`` compares ``last_time`` too) as the whole."""
    live = FMT.live(str(ends_in_a_settle))
    follow_into(live.apply, ends_in_a_settle, batch, FMT.parsed_updates)
    followed = live.transcript(writer_alive=False)
    assert followed.last_time() == _at(6)
    assert neutral(followed) == neutral(FMT.open(ends_in_a_settle, writer_alive=False))


def _unstamped(kind: str, payload: dict[str, Any], ident: str, ts: object = None) -> bytes:
    """A line with no ``ts`` (or this one, not a time)."""
    record = {"id": ident, "payload": payload, "type": kind, "v": 1}
    if ts is not None:
        record["ts"] = ts
    return orjson.dumps(record, option=orjson.OPT_SORT_KEYS) + b"\n"


@pytest.mark.parametrize("followed", [False, True])
def test_a_snapshots_last_time_reads_its_lines_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, followed: bool
) -> None:
    """The last line has no time (the one before it has): the status asks ``last_time``
    at every draw, and the two lines are read back once for the snapshot, not at each
    draw (a one-line cache took them in turn: a last line of MBs read again each time)."""
    path = tmp_path / "unstamped-last.jsonl"
    answer = _unstamped("message", {"content": "x" * 1000, "role": "assistant"}, "a1")
    path.write_bytes(b"".join([*LINES[:3], answer]))
    if followed:
        live = FMT.live(str(path))
        follow_into(live.apply, path, 1 << 16, FMT.parsed_updates)
        t = live.transcript(writer_alive=False)
    else:
        t = FMT.open(path, writer_alive=False)
    reads: list[int] = []
    read = Events.read
    monkeypatch.setattr(Events, "read", lambda self, i: reads.append(i) or read(self, i))
    assert [t.last_time() for _ in range(3)] == [_at(1)] * 3
    assert reads == [3, 2]


@pytest.mark.parametrize("ts", [None, 1767225600, ""], ids=["none", "int", "empty"])
def test_a_browser_row_says_the_last_time_the_viewer_says(tmp_path: Path, ts: object) -> None:
    """The last line's time missing, or not a string: a browser row's last time (so its
    duration) is the last line's with one, as ``last_time`` says it, whether the file is
    replayed whole (a small one, or one the browser follows) or read by its window (a
    big one). (A small one's row had none, or the int as a string; a big one's too.)"""
    path = tmp_path / "odd-last.jsonl"
    answer = {"content": "done", "role": "assistant"}
    last = _unstamped("message", answer, "a1", ts)
    path.write_bytes(b"".join([*LINES[:3], last]))
    assert FMT.open(path, writer_alive=False).last_time() == _at(1)
    assert scan_file(str(path)).last_ts == _at(1)
    assert scan_file(str(path), budget=0).last_ts == _at(1)  # (its window's)
    fold = V1Fold(str(path))
    follow_into(fold.apply, path, 1 << 16, FMT.parsed_updates)
    row = FileSummary(path=str(path), rel=path.name)
    fold.fill(row)
    assert row.last_ts == _at(1)


def test_a_big_rows_last_time_looks_back_as_far_as_last_time(tmp_path: Path) -> None:
    """A time further back than ``LAST_LOOK`` lines is none, in a row read by its window
    as in ``last_time``."""
    path = tmp_path / "unstamped-tail.jsonl"
    tail = [_unstamped("message", {"content": f"{n}", "role": "user"}, f"u{n}") for n in range(20)]
    path.write_bytes(b"".join([*LINES[:3], *tail]))
    assert FMT.open(path, writer_alive=False).last_time() is None
    assert scan_file(str(path)).last_ts is None
    assert scan_file(str(path), budget=0).last_ts is None
    path.write_bytes(b"".join([*LINES[:3], *tail[1:]]))
    assert FMT.open(path, writer_alive=False).last_time() == _at(1)
    assert scan_file(str(path), budget=0).last_ts == _at(1)
