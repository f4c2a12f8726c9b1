"""A big file whose last line is longer than the tail window the browser reads (a huge
tool result the writer was writing when it died): the window held no line start, so the
row read "finished" with ~0 messages though the file was cut and its work left open."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

import session_core.scan_window as scan_window
from session_core import Message, Session
from session_core.scan import scan_file

OLD = time.time() - 3600  # (no writer at work: not live)


def _v1_ending_in_a_long_answer(path: Path, prompts: int, answer: int) -> Path:
    """A v1 file of ``prompts`` prompts and an answer of ``answer`` characters, whole,
    its writer long gone."""
    with Session.create(path, meta={"agent": "t"}) as s:
        for n in range(prompts):
            s.append_message(Message(role="user", content=f"prompt {n} " + "x" * 200))
        s.append_message(Message(role="assistant", content="y" * answer))
    os.utime(path, (OLD, OLD))
    return path


def _v1_cut_in_a_long_line(path: Path) -> Path:
    with Session.create(path, meta={"agent": "t"}) as s:
        for n in range(40):
            s.append_message(Message(role="user", content=f"prompt {n} " + "x" * 200))
        call = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}
        s.append_message(Message(role="assistant", content="", tool_calls=[call]))
        s.append_tool_dispatched("c1", "sh", {})
    big = {"id": "m", "type": "message", "v": 1, "payload": {"content": "y" * 50_000}}
    with open(path, "ab") as fh:
        fh.write(orjson.dumps(big)[:40_000])  # (killed in the middle of it)
    os.utime(path, (OLD, OLD))
    return path


def test_the_last_line_is_found_however_long(tmp_path: Path) -> None:
    path = _v1_cut_in_a_long_line(tmp_path / "t.jsonl")
    row = scan_file(path, budget=1_000, window=4_000)  # (the last line: 40,000 bytes)
    assert row.estimated and row.crash_tail and row.status == "crashed", (row.status, row.reason)
    assert row.pending == 1 and "crash tail" in (row.reason or "")


def test_a_last_line_past_the_bound_is_said_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _v1_cut_in_a_long_line(tmp_path / "t.jsonl")
    monkeypatch.setattr(scan_window, "LAST_LINE_MAX", 10_000)
    row = scan_file(path, budget=1_000, window=4_000)
    assert row.status == "crashed" and "the end was not read" in (row.reason or "")
    assert row.crash_tail and "crash tail" in (row.reason or "")  # (no newline ends it)
    assert row.messages is None and row.tool_calls is None  # (unknown: not ~0)


def test_a_cut_last_line_past_the_bound_is_no_crash_tail_while_its_writer_may_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Quiet a minute, no lock: the row is live (its writer may be at work), and its cut
    last line is unfinished yet, not "a crash tail" beside "live" (the one rule)."""
    path = _v1_cut_in_a_long_line(tmp_path / "t.jsonl")
    then = time.time() - 60
    os.utime(path, (then, then))
    monkeypatch.setattr(scan_window, "LAST_LINE_MAX", 10_000)
    row = scan_file(path, budget=1_000, window=4_000)
    assert row.status == "live" and "crash tail" not in (row.reason or ""), row.reason
    assert (row.reason or "").endswith("the end was not read; unfinished yet"), row.reason


def _codex_with_a_long_last_line(path: Path) -> Path:
    from codex_writer import story

    w = story(path)
    for n in range(30):
        w.message("user", f"more {n} " + "q" * 3000)
    w.message("assistant", "z" * 30_000)
    return path


@pytest.mark.parametrize("fmt", ["transcript-v1", "codex"])
def test_a_whole_last_line_past_the_bound_is_no_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """A last line a newline ends, over ``LAST_LINE_MAX``: the end was not read and the
    counts are unknown, and the row is not "crashed" (it read as a crash tail)."""
    name = "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    if fmt == "codex":
        path = _codex_with_a_long_last_line(tmp_path / name)
    else:
        path = _v1_ending_in_a_long_answer(tmp_path / "t.jsonl", 40, 30_000)
    os.utime(path, (OLD, OLD))
    assert path.read_bytes().endswith(b"\n")
    monkeypatch.setattr(scan_window, "LAST_LINE_MAX", 10_000)
    row = scan_file(path, budget=1_000, window=4_000)
    assert row.format == fmt and row.estimated
    assert row.status == "finished", (row.status, row.reason)
    assert not row.crash_tail and "the end was not read" in (row.reason or "")
    assert row.messages is None and row.tool_calls is None and row.tokens is None


def test_counts_are_scaled_by_the_lines_before_a_long_last_one(tmp_path: Path) -> None:
    """The huge last line is one line, not a measure of how many the file holds (the
    scale over it made ~158 messages of 402)."""
    path = _v1_ending_in_a_long_answer(tmp_path / "t.jsonl", 400, 60_000)
    row = scan_file(path, budget=1_000, window=20_000)
    assert row.estimated and row.messages is not None
    assert 0.8 * 401 <= row.messages <= 1.25 * 401, row.messages


def test_a_model_formats_tail_never_reads_its_head_again(tmp_path: Path) -> None:
    """A last line starting inside the head read: the window began before the head's end,
    and the head's lines were counted twice (Codex: 99 messages of 71)."""
    from codex_writer import story

    path = tmp_path / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    w = story(path)
    for n in range(30):
        w.message("user", f"more {n} " + "q" * 3000)
    w.message("assistant", "z" * 300_000)  # (a last line longer than the window)
    os.utime(path, (OLD, OLD))
    whole = scan_file(path)  # (read whole)
    row = scan_file(path, budget=1_000, window=60_000)  # (its head: the whole file)
    assert row.estimated and (row.messages, row.tool_calls) == (whole.messages, whole.tool_calls)


def test_a_model_formats_counts_are_scaled_by_the_lines_before_a_long_last_one(
    tmp_path: Path,
) -> None:
    """(the second review) Codex read ~326 messages of 1,303: its scale was over the huge
    last line too."""
    from codex_writer import story

    path = tmp_path / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    w = story(path)
    for n in range(600):
        w.message("user", f"more {n} " + "q" * 3000)
    w.message("assistant", "z" * 2_000_000)  # (past the head and the window)
    os.utime(path, (OLD, OLD))
    whole = scan_file(path)
    row = scan_file(path, budget=1_000, window=200_000)
    assert row.estimated and whole.messages and row.messages is not None
    assert 0.8 * whole.messages <= row.messages <= 1.25 * whole.messages, (
        row.messages,
        whole.messages,
    )


def _v1_with_a_long_line_near_its_end(path: Path) -> Path:
    """400 prompts and answers, a 500 KB prompt, then 3 short answers."""
    with Session.create(path, meta={"agent": "t"}) as s:
        for n in range(400):
            s.append_message(Message(role="user", content=f"prompt {n} " + "x" * 200))
            s.append_message(Message(role="assistant", content=f"answer {n}"))
        s.append_message(Message(role="user", content="y" * 500_000))
        for n in range(3):
            s.append_message(Message(role="assistant", content=f"short {n}"))
    os.utime(path, (OLD, OLD))
    return path


def _codex_with_a_long_line_near_its_end(path: Path) -> Path:
    from codex_writer import story

    w = story(path)
    for n in range(600):
        w.message("user", f"more {n} " + "q" * 300)
    w.message("assistant", "z" * 500_000)
    for n in range(3):
        w.message("user", f"short {n}")
    os.utime(path, (OLD, OLD))
    return path


@pytest.mark.parametrize("fmt", ["transcript-v1", "codex"])
def test_a_window_begun_inside_a_long_line_reaches_back_over_it(
    tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tail window that began inside a long line held the few short lines after it,
    and scaled them by the file's size (v1: ~6,800 messages of 804; Codex ~1,700 of
    625): it reaches back over that line to the lines before it, the line set aside from
    the measure."""
    import session_core.scan as scan

    monkeypatch.setattr(scan, "HEAD", 20_000)  # (a model format's head: not the file)
    name = "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    if fmt == "codex":
        path = _codex_with_a_long_line_near_its_end(tmp_path / name)
    else:
        path = _v1_with_a_long_line_near_its_end(tmp_path / "t.jsonl")
    whole = scan_file(path)
    row = scan_file(path, budget=1_000, window=200_000)  # (it begins in the long line)
    assert row.format == fmt and row.estimated and not whole.estimated
    assert whole.messages and row.messages is not None
    assert 0.8 * whole.messages <= row.messages <= 1.25 * whole.messages, (
        row.messages,
        whole.messages,
    )
    assert row.status == whole.status, (row.reason, whole.reason)
