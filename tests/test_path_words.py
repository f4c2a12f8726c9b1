"""What every entry point says of a path that names no file to read by name (an audit):
a pipe (``/dev/stdin``, ``<(…)``, a FIFO) was "not a transcript", with no word of ``-``,
which reads one; an empty path was "there is no such file" to ``check``, "Is a
directory" to ``export -o``, the working folder to ``follow``, and "empty" to the
writers alone."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import run_cli

from session_core import Session, TranscriptError, follow, open_transcript, peek
from session_core.agentgo import AgentGoSession

PIPE = "is a pipe, not a regular file: `-` reads one, as standard input"
EMPTY = "the path is empty: a file's path is needed"


def test_a_fifo_named_as_a_path_is_said_to_be_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, out, _err = run_cli(capsys, "check", str(fifo))
    assert code == 1 and out.startswith(f"{fifo}: bad: {PIPE} (`tailscope check - < PIPE`)")
    for command in ("replay", "diff"):
        code, _out, err = run_cli(capsys, command, str(fifo))
        assert code == 1 and err.startswith(f"tailscope: {fifo}: {PIPE}"), err
    assert peek(fifo).error is not None and PIPE in str(peek(fifo).error)


def test_a_pipe_named_by_its_descriptor_is_said_to_be_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``<(…)`` and ``/dev/stdin`` given a pipe: a path to one end of a pipe."""
    read, write = os.pipe()
    try:
        os.write(write, BUILT_IN["transcript-v1"](tmp_path).read_bytes()[:100])
        where = f"/dev/fd/{read}"
        code, out, _err = run_cli(capsys, "check", where)
        assert code == 1 and out.startswith(f"{where}: bad: {PIPE}"), out
        with pytest.raises(TranscriptError, match="is a pipe"):
            open_transcript(where)
    finally:
        os.close(read)
        os.close(write)


def test_the_viewer_given_a_pipe_by_name_says_so_and_what_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tailscope <(zstdcat x.zst)``, or a FIFO: the viewer waited for ever, "● live",
    for the pipe to be a regular file. It says what the other commands say, and ends."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    read, write = os.pipe()
    try:
        for where in (str(fifo), f"/dev/fd/{read}"):
            code, out, err = run_cli(capsys, where)
            assert (code, out) == (1, "")
            assert err == f"tailscope: {where}: {PIPE} (`tailscope - < PIPE`)\n", err
    finally:
        os.close(read)
        os.close(write)


def test_a_regular_non_file_is_still_not_a_transcript(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _err = run_cli(capsys, "check", "/dev/null")
    assert code == 1 and out == "/dev/null: bad: is not a regular file, so not a transcript\n"


def test_an_empty_path_is_said_to_be_empty_at_every_entry_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # (the working folder: what "" was taken for)
    code, out, _err = run_cli(capsys, "check", "")
    assert code == 1 and out == f": bad: {EMPTY}\n"
    for args in (["replay", ""], ["diff", ""], ["export", "", "--format", "md"]):
        code, _out, err = run_cli(capsys, *args)
        assert code == 1 and err == f"tailscope: {EMPTY}\n", (args, err)
    story = BUILT_IN["transcript-v1"](tmp_path)
    code, _out, err = run_cli(capsys, "export", str(story), "--format", "md", "-o", "")
    assert code == 1 and err == f"tailscope: {EMPTY}\n", err
    assert peek("").error == f": {EMPTY}"
    entries = [
        lambda: open_transcript(""),
        lambda: Session.create("", meta={}),
        lambda: Session.load(""),
        lambda: AgentGoSession.create(""),
        lambda: AgentGoSession.open(""),
    ]
    for entry in entries:
        with pytest.raises(TranscriptError) as refused:
            entry()
        assert str(refused.value) == EMPTY

    async def first() -> None:
        async for _update in follow(""):
            break

    with pytest.raises(TranscriptError) as refused:
        asyncio.run(first())
    assert str(refused.value) == EMPTY
    assert os.listdir(tmp_path) == [story.name]  # (nothing made by any of them)
