"""A v1 run whose writer died before the model's answer (a call asked for and never
dispatched, a prompt never answered) read "finished" in the runs tab and the browser,
where its calls read "never dispatched": its last message is none a run can end on."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import session_core
import session_core.formats
from session_core import Message, Session
from session_core.scan import scan_file, settle_status

CALL = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}


GONE = 1_700_000_000  # (an mtime long past: its writer, which took no lock, is gone)


def _run(path: Path, *last: Message, gone: bool = True, writes: Any = None) -> Path:
    """A run's prompt, then ``last`` (or what ``writes`` writes); its writer long gone."""
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_run_context("run-1", "d1")
        s.append_message(Message(role="user", content="go"))
        for message in last:
            s.append_message(message)
        if writes is not None:
            writes(s)
    if gone:
        os.utime(path, (GONE, GONE))
    return path


def _pending_and_undispatched(path: Path) -> Path:
    """A run whose model asked for two calls: the first dispatched and never settled,
    the second never dispatched; its writer long gone."""
    second = {"id": "c2", "type": "function", "function": {"name": "w", "arguments": "{}"}}
    return _run(
        path,
        Message(role="assistant", content="", tool_calls=[CALL, second]),
        writes=lambda s: s.append_tool_dispatched("c1", "sh", {}, run_id="run-1"),
    )


@pytest.mark.parametrize(
    ("last", "state"),
    [
        ((Message(role="assistant", content="", tool_calls=[CALL]),), "interrupted"),
        ((), "interrupted"),  # (the prompt never answered)
        ((Message(role="assistant", content="done"),), "finished"),
    ],
    ids=["call-never-dispatched", "prompt-unanswered", "answered"],
)
def test_the_last_run_ends_on_the_models_answer(
    tmp_path: Path, last: tuple[Message, ...], state: str
) -> None:
    path = _run(tmp_path / "t.jsonl", *last)
    (run,) = session_core.open_transcript(path).runs
    assert run.state == state
    row = scan_file(path, live_window=0)
    assert row.status == ("finished" if state == "finished" else "crashed"), row.reason
    if state != "finished":
        assert "no answer of the model's" in (row.reason or "")
    # check says it as the runs and the browser do (one rule: formats.v1.ops.cut_off)
    said = session_core.formats.by_name("transcript-v1").check(path)
    assert ("cut off: its last message is no answer" in said) is (state != "finished"), said


def test_a_file_of_no_run_context_is_cut_off_alike(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="go"))
    os.utime(path, (GONE, GONE))
    assert scan_file(path, live_window=0).status == "crashed"
    assert "cut off" in session_core.formats.by_name("transcript-v1").check(path)


def _asked(s: Session) -> None:  # (its dispatch to come)
    s.append_message(Message(role="assistant", content="", tool_calls=[CALL]))


def _answered(s: Session) -> None:  # (c1 answered: its settle and c2's dispatch to come)
    calls = [CALL, {**CALL, "id": "c2"}]
    s.append_message(Message(role="assistant", content="", tool_calls=calls))
    s.append_tool_dispatched("c1", "sh", {}, run_id="run-1")
    s.append_message(Message(role="tool", content="out", tool_call_id="c1"))


@pytest.mark.parametrize(
    "writes", [_asked, lambda _s: None, _answered], ids=["call-asked", "prompt", "call-answered"]
)
def test_a_file_its_writer_may_still_write_is_not_cut_off_yet(
    tmp_path: Path, writes: Callable[[Session], None]
) -> None:
    """Written a moment ago by a writer that takes no lock (the reference module's), a
    reader cannot tell that writer from a dead one for two minutes (``writer_alive``
    None): its calls read running, not dispatched yet, settle not written yet, while
    ``check`` said "cut off" beside them and its last run read interrupted. The writer may
    be at work: the run is running, and ``check`` says so; once the file is old, cut off."""
    path = _run(tmp_path / "t.jsonl", gone=False, writes=writes)
    v1 = session_core.formats.by_name("transcript-v1")
    assert v1.writer_alive(path) is None  # (no lock, written just now: maybe)
    (run,) = session_core.open_transcript(path).runs
    assert (run.state, run.duration) == ("running", None)
    said = v1.check(path)
    assert "cut off" not in said and "never" not in said, said
    assert "ends on no answer of the model's: its writer may still be at work" in said, said
    states = {op["state"] for op in v1.replay_json(path)["tool-operations"]}
    assert states <= {"running", "not-dispatched-yet", "not-settled-yet"}, states
    os.utime(path, (GONE, GONE))  # (its writer gone: cut off, as before)
    (run,) = session_core.open_transcript(path).runs
    assert run.state == "interrupted"
    said = v1.check(path)
    assert "cut off: its last message is no answer of the model's" in said, said
    assert "may still be at work" not in said, said


@pytest.mark.parametrize(
    "writes", [_asked, lambda _s: None, _answered], ids=["call-asked", "prompt", "call-answered"]
)
def test_the_browser_row_tells_an_unanswered_end_as_check_does(
    tmp_path: Path, writes: Callable[[Session], None]
) -> None:
    """The browser's row judged the end by ``cut_off`` alone and its own 30 seconds: a
    file written a moment ago, whose writer may still be at work (``check``: "its writer
    may still be at work", its run running), read "(so far: … cut off)", and crashed, cut
    off, once 30 seconds old. It tells it by ``ops.cut_off_state`` and the format's
    ``writer_alive``, as of its status: the same row settled once the file is old is cut
    off (a row is not read again while its file is unchanged)."""
    path = _run(tmp_path / "t.jsonl", gone=False, writes=writes)
    v1 = session_core.formats.by_name("transcript-v1")
    pending = writes is _answered  # (its pending operation says it)
    said = v1.check(path)
    assert "its writer may still be at work" in said, said
    for age in (0.0, 60.0):  # (quiet a minute: two minutes yet, the one rule)
        then = time.time() - age
        os.utime(path, (then, then))
        row = scan_file(path)
        assert row.status == "live", (age, row)
        assert "cut off" not in (row.reason or ""), row.reason
        if not pending:
            assert row.reason == "ends on no answer of the model's: " + (
                "its writer may still be at work"
            )
    old = time.time() - 3600  # (its writer, which took no lock, gone)
    os.utime(path, (old, old))
    said = v1.check(path)
    assert "cut off: its last message is no answer of the model's" in said, said
    read_old = scan_file(path)
    row.mtime = old  # (the row read fresh, settled again: its file unchanged since)
    for settled in (read_old, settle_status(row)):
        assert settled.status == "crashed", settled
        # (what was left open in check's words, the one list: B6 of the v1/agentgo audit)
        assert settled.reason is not None and all(
            part in said for part in settled.reason.split("; ")
        ), (settled.reason, said)
        assert "cut off: its last message is no answer of the model's" in settled.reason
        assert ("1 tool operation pending" in settled.reason) == pending, settled.reason


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
def test_check_names_a_run_left_open(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check`` said nothing of a turn left open (the runs tab: interrupted; the browser:
    crashed, "1 run not finished": ``open_work``'s words, every surface's)."""
    import os
    import time

    from demo_helpers import run_write_command

    from viewer.cli import main

    path = tmp_path / "demo.jsonl"
    run_write_command(path, "--format", fmt)  # (killed: SIGKILL)
    old = time.time() - 3600  # (its writer long gone: interrupted, not running)
    os.utime(path, (old, old))
    runs = session_core.open_transcript(path).runs
    cut = sum(1 for run in runs if run.state == "interrupted")
    assert cut >= 1
    assert main(["check", str(path)]) == 0
    assert f"{cut} run{'s' if cut > 1 else ''} not finished" in capsys.readouterr().out


def test_a_run_that_never_ended_took_to_its_last_line(tmp_path: Path) -> None:
    """A run another began after (its call dispatched, never settled) and the last, cut
    off: each ended at its last line (the one before the next run's context; the file's
    last), at that line's time, and took from its start to then (the runs tab's "took"
    was empty for them, given in Claude Code's), whether read whole or followed."""
    import orjson
    from helpers import follow_into, neutral

    from session_core.times import seconds_between

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_run_context("run-1", "d1")
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="", tool_calls=[CALL]))
        s.append_tool_dispatched("c1", "sh", {}, run_id="run-1")
        s.append_run_context("run-2", "d2")
        s.append_message(Message(role="user", content="again"))
        s.append_message(Message(role="assistant", content="", tool_calls=[CALL]))
    ts = [orjson.loads(line).get("ts") for line in path.read_bytes().splitlines()]
    v1 = session_core.formats.by_name("transcript-v1")
    runs = v1.open(path, writer_alive=False).runs
    got = [(r.id, r.state, r.line, r.end_line, r.ended, r.duration) for r in runs]
    assert got == [
        ("run-1", "interrupted", 2, 5, ts[4], seconds_between(ts[1], ts[4])),
        ("run-2", "interrupted", 6, 8, ts[7], seconds_between(ts[5], ts[7])),
    ]
    assert all(r.duration is not None for r in runs)
    assert v1.open(path, writer_alive=True).runs[-1].duration is None  # (running)
    live = v1.live(str(path))
    follow_into(live.apply, path, 1 << 16, v1.parsed_updates)
    for alive in (False, None, True):
        assert neutral(live.transcript(writer_alive=alive)) == neutral(
            v1.open(path, writer_alive=alive)
        )


def test_check_says_both_a_pending_operation_and_the_cut(tmp_path: Path) -> None:
    """With an operation left pending, ``check`` said neither that the file was cut off nor
    that a call was never dispatched (its "cut off" only where nothing was pending): it
    says each that holds, as replay lists them (README's check row)."""
    path = _pending_and_undispatched(tmp_path / "t.jsonl")
    said = session_core.formats.by_name("transcript-v1").check(path)
    left = "1 tool operation pending (1 interrupted), 1 call never dispatched, cut off: its last"
    assert left in said, said
    states = [
        op["state"]
        for op in session_core.formats.by_name("transcript-v1").replay_json(path)["tool-operations"]
    ]
    assert states == ["interrupted", "never-dispatched"]


def test_the_row_says_what_check_says_was_left_open(tmp_path: Path) -> None:
    """The browser's "crashed:" said "1 tool operation never settled", where ``check``
    said as well that a call was never dispatched and the file cut off (B6 of the
    v1/agentgo audit): the row says ``check``'s list of what was left open (and the
    header's ``in flight``: test_v1_in_flight)."""
    path = _pending_and_undispatched(tmp_path / "t.jsonl")
    left = [
        "1 tool operation pending (1 interrupted)",
        "1 call never dispatched",
        "cut off: its last message is no answer of the model's",
    ]
    assert ", ".join(left) in session_core.formats.by_name("transcript-v1").check(path)
    row = scan_file(path)
    assert (row.status, row.reason) == ("crashed", "; ".join(left))


def test_a_held_files_row_says_what_check_says_while_it_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a writer holds a v1 file that ends on no answer of the model's, ``check``
    says nothing of its end (its last run runs, whatever it ends on); the row said "ends
    on no answer of the model's: its writer may still be at work" (the last review)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_run_context("run-1", "d1")
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="", tool_calls=[CALL]))
        s.append_tool_dispatched("c1", "sh", {}, run_id="run-1")  # (answered next)
        s.append_message(Message(role="tool", content="ok", tool_call_id="c1"))
    v1 = type(session_core.formats.by_name("transcript-v1"))
    monkeypatch.setattr(v1, "writer_alive", lambda self, path, **_: True)
    said = session_core.formats.by_name("transcript-v1").check(path)
    row = settle_status(scan_file(path))
    assert row.status == "live" and "no answer" not in (row.reason or "")
    assert row.reason is not None and row.reason in said
