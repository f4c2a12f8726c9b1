"""A last line that cannot be read though its newline was written (audit a2, finding 7:
4,096 NUL bytes and a newline). Each format's read of it is its spec's, and its words say
that read: Claude Code and Codex keep it, taken for a crash tail (not damage: ``check``
passes, the browser's row is ``crashed``), said so, no longer in the words of damage
earlier in the file; v1's spec makes a malformed final line a crash tail, not read;
agentgo's has every complete line parse, so the file is refused, naming the line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import run_cli

from session_core.formats import by_name
from session_core.line_warnings import KEPT, KEPT_LAST
from session_core.scan import scan_file

NULS = b"\0" * 4096 + b"\n"
KEPT_WORDS = f"is not valid JSON{KEPT_LAST}"
SAID = {
    "claude-code": KEPT_WORDS,
    "codex": KEPT_WORDS,
    "transcript-v1": "is not whole JSON: the writer left it unfinished, and it is not read "
    "(a crash tail); its 4,096 bytes begin ",
}


def _with_bad_last_line(name: str, tmp_path: Path) -> tuple[Path, int]:
    """The format's story, its writer long gone, and a last line of NULs with its newline."""
    path = BUILT_IN[name](tmp_path)
    whole = path.read_bytes()
    whole = whole[: whole.rindex(b"\n") + 1]  # (its story's own torn line, if any, off)
    path.write_bytes(whole + NULS)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    return path, whole.count(b"\n") + 1


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_a_bad_last_line_with_its_newline_is_said_as_its_format_reads_it(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, last = _with_bad_last_line(name, tmp_path)
    code, out, err = run_cli(capsys, "check", str(path))
    if name == "agentgo-v1":  # (its spec: every complete line must parse)
        assert code == 1 and f"bad: line {last}: is not valid JSON" in out + err
        return
    assert code == 0, out
    assert f"warning: line {last} {SAID[name]}" in out
    assert out.count("warning") == 1
    row = scan_file(path, live_window=0)
    assert (row.status, row.crash_tail) == ("crashed", True)


@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_a_kept_line_is_damage_again_once_a_line_follows_it(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Taken for a crash tail as the last line alone: with a line after it, or its writer
    still at work (more may come), it is said in damage's words."""
    path, last = _with_bad_last_line(name, tmp_path)
    fmt = by_name(name)
    alive = fmt.open(path, writer_alive=True).warnings
    assert f"line {last} is not valid JSON{KEPT}" in alive
    story = BUILT_IN[name](tmp_path / "again")
    first = story.read_bytes().split(b"\n", 1)[0] + b"\n"  # (a line the format reads)
    path.write_bytes(path.read_bytes() + first)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    read = fmt.open(path).warnings
    assert f"line {last} is not valid JSON{KEPT}" in read
    assert not any(KEPT_LAST in w for w in read)
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 1 and f"line {last}" in out


@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_a_kept_last_line_is_no_crash_tail_while_its_writer_may_be_at_work(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh file, its writer taking no lock (``writer_alive`` None: it may be at work, by
    the one rule): its bad last line is said in damage's words, never a crash tail beside
    its run running (the review's r1 #1: ``check`` said both at once)."""
    path, last = _with_bad_last_line(name, tmp_path)
    os.utime(path)  # (written now)
    fmt = by_name(name)
    maybe = fmt.open(path, writer_alive=None).warnings
    assert f"line {last} is not valid JSON{KEPT}" in maybe
    assert not any(KEPT_LAST in w for w in maybe)
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 0 and KEPT_LAST not in out, out
