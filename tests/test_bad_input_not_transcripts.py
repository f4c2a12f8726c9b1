"""Bad input by hand, what is no transcript at all: an empty file, blank lines, a
directory, a missing file, a FIFO, one 20 MB line, a meta line that is not JSON.
``Session.load``, ``peek`` and ``tailscope replay`` each refuse it, and change nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bad_input_helpers import check_replay_cli, load_error

from session_core import TranscriptError, peek
from session_core.reader import replay_file


def test_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    err = load_error(path)
    assert "empty" in str(err)
    assert peek(path).error is not None
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes() == b""


@pytest.mark.parametrize("blank", [b"\n", b"\n\n\n", b"   \n\t\n", b"\r\n\r\n", b"  "])
def test_a_file_of_blank_lines(tmp_path: Path, blank: bytes, capsys) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(blank)
    load_error(path)
    assert peek(path).error is not None
    assert peek(path).warnings == []
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes().rstrip(b"\r\n") == blank.rstrip(b"\r\n")


def test_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    load_error(folder)
    result = peek(folder)
    assert result.error is not None
    assert check_replay_cli(capsys, folder) is None
    with pytest.raises(TranscriptError) as info:
        replay_file(folder, tolerate_tail=True)
    assert str(folder) in str(info.value)


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nope.jsonl"
    load_error(path)
    assert peek(path).error is not None
    assert check_replay_cli(capsys, path) is None
    assert not path.exists()


def test_a_fifo_is_not_read_and_does_not_hang(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    load_error(fifo)
    assert peek(fifo).error is not None
    assert check_replay_cli(capsys, fifo) is None
    with pytest.raises(TranscriptError):
        replay_file(fifo, tolerate_tail=True)


def test_a_20_mb_single_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.jsonl"
    data = b"x" * (20 << 20) + b"\n"
    path.write_bytes(data)
    result = peek(path)
    assert result.error is not None
    assert result.warnings == ["line 1 could not be read, and was skipped"]
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes() == data
    # load: the one malformed line is a crash tail, cut before replay (as the reference
    # documents: "the repair runs before replay"), and what is left is no transcript.
    err = load_error(path)
    assert len(str(err)) < 1000
    assert path.read_bytes() == b""


def test_a_meta_line_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    data = b"hello\nworld\n"
    path.write_bytes(data)
    err = load_error(path)
    assert err.line == 1 and "line 1" in str(err) and "line 2" in str(err)
    assert path.read_bytes() == data
