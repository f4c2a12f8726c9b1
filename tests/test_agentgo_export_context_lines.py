"""agentgo's export names each context event's line, as v1's export names its
compaction's (``line 15``): its table of them gave a seq alone, which no editor opens."""

from __future__ import annotations

from pathlib import Path

from helpers import written

from agentgo_helpers import write_story
from session_core.export import export


def _story(path: Path) -> None:
    write_story(path).close()


def test_the_context_events_table_names_each_events_line(tmp_path: Path) -> None:
    path = written(tmp_path / "go.jsonl", _story)
    lines = path.read_bytes().splitlines()
    at = {
        kind: number
        for number, raw in enumerate(lines, 1)
        for kind in ("context_projected", "context_compacted")
        if f'"type":"{kind}"'.encode() in raw
    }
    assert len(at) == 2
    md = export(path, "md")
    table = md[md.index("## Context events") :]
    assert "| line | seq | run | type |" in table
    for kind, number in at.items():
        row = next(r for r in table.splitlines() if kind.replace("_", "\\_") in r)
        assert row.startswith(f"| {number} | {number - 1} |"), row  # (its line, then its seq)
    html = export(path, "html")
    assert f"<td>{at['context_compacted']}</td>" in html
