"""The browser's footer and detail at 80 and 60 columns, over a listing of every kind
(states, a lower bound, resumed copies): each fact on screen, whole; where the footer
has not the lines for them all, whole facts dropped for a last ``…`` (its lines past its
height were clipped unseen, a comma dangling: ``cost in part in 1 (≥),``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import screen_lines
from rich.cells import cell_len
from test_browser import QuickApp, browser, scanned

from session_core.scan import scan_dir
from viewer.browser_cells import TOTALS_LINES, detail, session_cell, totals

A, B, C = (f"{c * 8}-1111-4111-8111-111111111111" for c in "abc")
P = "b0b0b0b0-1111-4111-8111-111111111111"
USAGE = {"input_tokens": 10, "cache_creation_input_tokens": 100,
         "cache_read_input_tokens": 1000, "output_tokens": 50}  # fmt: skip


def _uid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-000000000000"


class ChainFile:
    """Claude Code 2.0 lines, each with the session id in force when written."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.sid = A

    def line(self, n: int, kind: str, message: dict[str, Any], **more: Any) -> None:
        self.lines.append({
            "parentUuid": _uid(n - 1) if n > 1 else None, "isSidechain": False,
            "userType": "external", "cwd": "/tmp/x", "sessionId": self.sid,
            "version": "2.0.1", "type": kind, "uuid": _uid(n),
            "timestamp": f"2025-07-01T10:00:{n:02d}.000Z", "message": message, **more,
        })  # fmt: skip

    def turn(self, n: int, content: list[dict[str, Any]] | None = None) -> None:
        self.line(n, "user", {"role": "user", "content": f"prompt {n}"})
        said = content or [{"type": "text", "text": f"answer {n}"}]
        message = {"id": f"msg_{n:04d}", "type": "message", "role": "assistant",
                   "model": "claude-sonnet-4-20250514", "content": said,
                   "stop_reason": "end_turn", "usage": dict(USAGE)}  # fmt: skip
        self.line(n + 1, "assistant", message, requestId=f"req_{n:04d}")

    def write(self, path: Path) -> None:
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))


def mix(folder: Path) -> Path:
    """The review's ``mix/``: B resumed from A (not listed), C from B (listed) and A; a
    session whose subagent's file is missing (its usage a lower bound); a damaged file,
    a finished one, a file that is not JSON."""
    folder.mkdir()
    for name, sids in ((B, [A, B]), (C, [A, B, C])):
        f = ChainFile()
        for at, sid in enumerate(sids):
            f.sid = sid
            f.turn(1 + 2 * at)
        f.write(folder / f"{name}.jsonl")
    f = ChainFile()
    f.sid = P
    call = {"type": "tool_use", "id": "toolu_t", "name": "Task",
            "input": {"description": "scout", "prompt": "go"}}  # fmt: skip
    f.turn(1, [call])
    result = {"type": "tool_result", "tool_use_id": "toolu_t", "content": "done"}
    f.line(3, "user", {"role": "user", "content": [result]}, toolUseResult={"agentId": "zz1"})
    f.turn(4)
    f.write(folder / f"{P}.jsonl")
    damaged = folder / "dddddddd-1111-4111-8111-111111111111.jsonl"
    f = ChainFile()
    f.sid = damaged.stem
    f.turn(1)
    f.turn(3)
    text = f.lines
    damaged.write_text(json.dumps(text[0]) + "\n{not json\n" + json.dumps(text[1]) + "\n")
    f = ChainFile()
    f.sid = "eeeeeeee-1111-4111-8111-111111111111"
    f.turn(1)
    f.write(folder / f"{f.sid}.jsonl")
    (folder / "notes.jsonl").write_text("not json\n")
    return folder


FACTS = ("6 files", "tokens ", "cost $", "usage ≥ in 1", "resumed: ", "copies of 1 unlisted")


@pytest.mark.parametrize("width", [78, 58])
def test_the_footer_says_every_fact_within_its_lines(tmp_path: Path, width: int) -> None:
    rows = list(scan_dir(mix(tmp_path / "mix")))
    lines = totals(rows, len(rows), width).plain.split("\n")
    assert len(lines) <= TOTALS_LINES, lines
    assert all(cell_len(line) <= width for line in lines), lines
    for fact in FACTS:
        assert any(fact in line for line in lines), (fact, lines)
    assert lines[-1].endswith(")"), lines


def test_a_footer_past_its_lines_drops_whole_facts_for_an_ellipsis(tmp_path: Path) -> None:
    rows = list(scan_dir(mix(tmp_path / "mix")))
    lines = totals(rows, len(rows), 24).plain.split("\n")
    assert len(lines) == TOTALS_LINES and lines[-1].endswith("…"), lines
    assert not lines[-1].rstrip("…").rstrip().endswith("(") and "…" not in "".join(lines[:-1])


@pytest.mark.parametrize("width", [80, 60])
async def test_the_footer_and_detail_on_screen_lose_nothing(tmp_path: Path, width: int) -> None:
    folder = mix(tmp_path / "mix")
    app = QuickApp(str(folder))
    async with app.run_test(size=(width, 30)) as pilot:
        await scanned(pilot)
        await pilot.pause()
        screen = browser(app)
        rows = list(screen.rows.values())
        said = totals(rows, len(rows), width - 2).plain.split("\n")
        for _ in range(50):  # (the keys' bar under it: drawn a moment after the rows)
            lines = screen_lines(app)
            keys = next((at for at, line in enumerate(lines) if "? Help" in line), None)
            if keys is not None:
                break
            await pilot.pause(0.05)
        assert keys is not None, lines
        # (the SVG's text drops the blanks of a dim separator: compared without them)
        footer = ["".join(line.split()) for line in lines[keys - len(said) : keys]]
        assert footer == ["".join(line.split()) for line in said], (footer, said)
        assert footer[-1].endswith(")"), footer
        # the detail of the row with the most to say: its last line on screen
        widget = screen.query_one("#browser-detail")
        for _ in range(len(rows)):
            shown = "".join(" ".join(screen_lines(app)).split())
            last = str(widget.render()).split("\n")[-1]
            assert "".join(last.split())[-12:] in shown, (last, shown)
            await pilot.press("down")
            await pilot.pause()


def test_a_summaries_only_file_says_why_it_has_no_title(tmp_path: Path) -> None:
    """Its row at 80 columns keeps why, cut after a word; its detail says it whole."""
    path = tmp_path / "12121212-3333-4333-8333-333333333333.jsonl"
    said = [{"type": "summary", "summary": f"Fixed bug {n}", "leafUuid": _uid(n)} for n in (1, 2)]
    path.write_text("".join(json.dumps(line) + "\n" for line in said))
    (row,) = scan_dir(tmp_path)
    assert row.untitled == "summaries of other sessions"
    cell = session_cell(row, 35).plain
    assert cell.startswith("summaries of… · "), cell
    assert cell_len(cell) <= 35
    assert session_cell(row, 100).plain.startswith("summaries of other sessions · ")
    assert "no title of its own: summaries of other sessions" in detail(row, path.name, 78).plain
