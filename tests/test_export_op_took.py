"""The exports time a tool operation by the viewer's one rule (``op_running.took_said``):
its writer's timing, else its lines' times apart (a v1 settle with no ``duration``), else
``?`` for one ended that its file does not time (a Codex web search, one line); they
went by the writer's timing alone, and left the cell blank (review 1, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

from codex_writer import searched_once_done

from session_core import Session, open_transcript
from session_core.export import export
from session_core.op_running import not_timed, op_took, took_said

T0 = "2026-01-01T00:00:00Z"


def _took_cells(path: Path, tool: str) -> list[str]:
    """The duration cell of each ``tool`` row of the md export's operations table."""
    text = export(path, "md")
    lines = text.split("## Tool operations", 1)[1].splitlines()
    header = next(line for line in lines if line.startswith("| state |"))
    at = [cell.strip() for cell in header.split(" | ")].index("duration")
    rows = [line for line in lines if line.startswith(f"| completed | {tool} |")]
    return [row.split(" | ")[at].strip() for row in rows]


def _v1_settled(path: Path, settled_at: str) -> Path:
    """A v1 file: a shell call dispatched and settled with no ``duration``, every line
    at ``T0`` but the settle's, at ``settled_at``."""
    with Session.create(path, meta={"agent": "a"}) as session:
        op = session.append_tool_dispatched("c1", "shell", {"cmd": "ls"})
        session.append_tool_settled(op, "completed")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        record["ts"] = settled_at if record is records[-1] else T0
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_a_v1_settle_without_duration_is_timed_by_its_lines(tmp_path: Path) -> None:
    path = _v1_settled(tmp_path / "t.jsonl", "2026-01-01T00:00:02.500Z")  # (2.5 s on)
    (viewed,) = open_transcript(path).tool_operations
    said = took_said(viewed)
    assert said == "2.5s"  # (its dispatch and settle times apart)
    assert _took_cells(path, "shell") == [said]
    assert f"<td>{said}</td>" in export(path, "html")


def test_a_v1_dispatch_and_settle_at_one_time_took_0s_not_question_mark(
    tmp_path: Path,
) -> None:
    """Its dispatch and settle are two lines at one time (a fast tool, a one-second
    clock): it took 0 s, not ``?`` with "its start is not in the file" (review 2: the
    one-line rule of a Codex web search was told by equal times alone)."""
    path = _v1_settled(tmp_path / "t.jsonl", T0)
    (viewed,) = open_transcript(path).tool_operations
    assert (op_took(viewed), not_timed(viewed), took_said(viewed)) == (0.0, None, "0s")
    assert _took_cells(path, "shell") == ["0s"]
    assert "<td>0s</td>" in export(path, "html")


def test_a_web_search_written_once_done_says_question_mark(tmp_path: Path) -> None:
    path = tmp_path / "search.jsonl"
    searched_once_done(path)
    assert _took_cells(path, "web\\_search") == ["?"]
