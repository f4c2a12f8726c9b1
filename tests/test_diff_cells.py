"""``tailscope diff``'s columns are padded and cut by terminal cells, in every format
(by characters, a wide role moved the columns after it two cells a character, a
combining mark one back, and a wide text ran past its 72 columns): ``session_core.cells``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter, tool_use
from codex_writer import zst_copy

from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from session_core.cells import clip_cells, cut_cells, pad_cells
from viewer.cli import main

ROLES = ["user", "助手助手", "e\u0301e\u0301", "assistant"]  # (8 cells; 2 cells, 4 chars)
WIDE = "你好" * 50  # (200 cells, 100 characters)


def _diff(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["diff", str(path)]) == 0
    return capsys.readouterr().out.splitlines()


def _text_columns(rows: list[str]) -> set[int]:
    """The cell each row's text (``MARK``) starts at."""
    return {cell_len(row[: row.index("MARK")]) for row in rows if "MARK" in row}


def test_cells() -> None:
    assert pad_cells("助手", 6) == "助手  " and pad_cells("e\u0301", 3) == "e\u0301  "
    assert pad_cells("assistant", 4) == "assistant"  # (wider: as it is)
    assert cut_cells("助手ab", 3) == "助" and cut_cells("ab", 0) == ""
    assert clip_cells("助手助手", 5) == "助手…" and clip_cells("助手", 4) == "助手"
    assert cell_len(clip_cells(WIDE * 1000, 72)) <= 72  # (a big one: its head measured)


def test_v1_columns_are_cells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v1.jsonl"
    with Session.create(path) as s:
        for n, role in enumerate(ROLES):
            s.append_message(Message(role=role, content=f"MARK-{n} {WIDE}"))
    rows = [row for row in _diff(path, capsys) if row.startswith("= line")]
    assert len(rows) == len(ROLES)
    assert len(_text_columns(rows)) == 1, rows
    assert {cell_len(row) for row in rows} == {cell_len(rows[0])}  # (clipped by cells)


def test_agentgo_columns_are_cells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ag.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    for n, kind in enumerate(ROLES):
        message: dict[str, Any] = {"kind": kind, "content": [{"type": "text", "text": f"MARK-{n}"}]}
        run.record("message_end", {"message": message})
    run.close()
    session.close()
    rows = [row for row in _diff(path, capsys) if "MARK" in row]
    assert len(rows) == len(ROLES)
    assert len(_text_columns(rows)) == 1, rows


def test_model_formats_text_is_cut_by_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = CCWriter()
    w.user(f"MARK-0 {WIDE}")
    w.user("MARK-1 short")
    rows = [row for row in _diff(w.write(tmp_path / "cc.jsonl"), capsys) if "MARK" in row]
    assert len(rows) == 2 and len(_text_columns(rows)) == 1
    text = rows[0][rows[0].index("MARK") :]
    assert cell_len(text) == 72 and text.endswith("…"), text


def test_a_text_led_by_much_blank_space_shows_its_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a bounded head of a text is made inert and measured, but its words after
    400 blank characters are what a row shows (it showed "…" alone)."""
    from session_core.cells import words_for

    assert words_for(" " * 400 + "src/main.py\n\nsrc/util.py", 72) == "src/main.py src/util.py"
    assert words_for("a " * 100, 5) == "a a a a a …"
    w = CCWriter()
    w.user("MARK " + " " * 400 + "\n" * 50 + "src/main.py")
    rows = [row for row in _diff(w.write(tmp_path / "cc.jsonl"), capsys) if "MARK" in row]
    assert rows and rows[0].endswith("MARK src/main.py"), rows


def test_a_big_text_is_bounded_before_it_is_looked_at() -> None:
    """A row's cut looks at the head of a text that can show, never the whole (a 50 MB
    result): ``str`` methods run on the bounded head, a plain ``str`` slice."""
    seen: list[int] = []

    class Watched(str):
        def isascii(self) -> bool:
            seen.append(len(self))
            return super().isascii()

    assert cut_cells(Watched("a" * 1_000_000), 10) == "a" * 10
    assert seen == []  # (only its bounded head, a plain str, was asked)


def test_a_long_result_cut_to_its_first_lines_says_so_and_its_zst_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A result of many short lines (its text stays in a plain file: its head is its first
    lines) read as if those were all, with no ``…``; its ``.zst`` (held whole) showed more
    of it: the two rows of the same lines differed."""
    w = CCWriter()
    w.user("read it")
    w.assistant("m1", [tool_use("c1", "Read", file_path="a.py")])
    w.result("c1", "\n".join(f"{n:>6}→x{n}" for n in range(1, 80)))
    w.result("c2", "one\ntwo\nthree\n")  # (three lines: nothing more to say)
    plain = w.write(tmp_path / "cc.jsonl")
    packed = Path(zst_copy(str(plain), str(tmp_path / "cc.jsonl.zst")))
    rows = [row for row in _diff(plain, capsys)[1:] if "← result" in row]
    assert rows[0].endswith("← result 1→x1 2→x2 3→x3 …"), rows
    assert rows[1].endswith("← result one two three"), rows
    assert _diff(packed, capsys)[1:] == _diff(plain, capsys)[1:]
