"""A number JSON allows that no double holds, in every line of a file of each format: an
integer longer than Python converts from text (4,300 digits, ``sys.get_int_max_str_digits``)
and ``1e400``. Each is JSON: every command reads the file as it reads the same file
without it. The long integer passed ``check`` (its typed first read skips the field)
and then made ``replay``, ``diff`` and ``export`` of v1 and Codex end "changed on disk
while it was being read", the file untouched, and ``peek`` skip the line (v1) or fail
(Codex); agentgo called ``1e400`` "not valid JSON"."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import bench_generators, run_cli

GENERATORS: dict[str, Any] = bench_generators()

LONG_INTEGER = "9" * (sys.get_int_max_str_digits() + 1)
NUMBERS = {"long-integer": LONG_INTEGER, "1e400": "1e400", "minus-long": "-" + LONG_INTEGER}

# What every command is asked, beside ``check`` and ``peek``.
COMMANDS = [
    ["replay"],
    ["diff"],
    ["export", "--format", "md"],
    ["export", "--format", "html"],
    ["export", "--format", "json"],
    ["export", "--format", "md", "--view", "raw"],
]


def _pair(tmp_path: Path, name: str, number: str, first: bool) -> tuple[Path, Path]:
    """A small file of format ``name``, and a copy with a field holding ``number`` first in
    each of its lines (``first``: its first line too, which says the format), a field no
    reader uses (the reads must be the same); in folders of their own."""
    plain, odd = (tmp_path / folder / f"{name}.jsonl" for folder in ("plain", "odd"))
    for path in (plain, odd):  # (a Claude Code file's subagents beside each)
        path.parent.mkdir()
        GENERATORS[name].generate(path, 40_000, seed=3)
    field = b'{"zz_number":' + number.encode() + b","
    lines = plain.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(line.startswith(b"{") for line in lines[:-1])
    odd.write_bytes(
        b"\n".join(
            field + line[1:] if line and (at or first) else line for at, line in enumerate(lines)
        )
    )
    return plain, odd


def _out(capsys: pytest.CaptureFixture[str], path: Path, *command: str) -> str:
    code, out, err = run_cli(capsys, *command, str(path))
    assert (code, err) == (0, ""), (command, err)
    folder = str(path.parent)  # (as written, and as Markdown escapes it)
    return out.replace(folder, "FOLDER").replace(folder.replace("_", "\\_"), "FOLDER")


@pytest.mark.parametrize("first", [True, False], ids=["every-line", "past-the-first"])
@pytest.mark.parametrize("number", list(NUMBERS))
@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_number_no_double_holds_is_read_by_every_command(
    name: str, number: str, first: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(In a first line, ``1e400`` made the format unknown: "is not a transcript".)"""
    plain, odd = _pair(tmp_path, name, NUMBERS[number], first)
    before = odd.read_bytes()
    for command in COMMANDS[:3]:  # (the same output as the file without the field)
        assert _out(capsys, odd, *command) == _out(capsys, plain, *command), command
    for command in COMMANDS[3:]:  # (a raw view or the JSON shows the field: read, is all)
        _out(capsys, odd, *command)
    assert _out(capsys, odd, "check") == _out(capsys, plain, "check")
    peeked = orjson.loads(_out(capsys, odd, "peek"))
    assert peeked.get("error") is None and peeked["warnings"] == []
    assert len(peeked["messages"]) == len(orjson.loads(_out(capsys, plain, "peek"))["messages"])
    assert odd.read_bytes() == before


@pytest.mark.parametrize("budget", [1 << 30, 4096], ids=["whole", "windowed"])
@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_number_no_double_holds_is_read_by_the_browser_row(
    name: str, budget: int, tmp_path: Path
) -> None:
    """The browser's row of each file, read whole or by its head and a tail window (one
    as big as the file: the same lines read)."""
    from session_core.scan import scan_file

    plain, odd = _pair(tmp_path, name, LONG_INTEGER, True)
    (tmp_path / "e").mkdir()
    _, odd_1e400 = _pair(tmp_path / "e", name, "1e400", True)
    rows = [scan_file(p, budget=budget, window=1 << 22) for p in (plain, odd, odd_1e400)]
    said = [(r.format, r.reason, r.messages, r.tokens, r.crash_tail) for r in rows]
    assert said[0][2] and said[1] == said[0] and said[2] == said[0]
