"""The export's Subagents section: each linked subagent with the call that started it,
what it used and where its lines are; one whose file is gone says so, its usage "not
read", never 0."""

from __future__ import annotations

from pathlib import Path

from claude_code_writer import SESSION, SUBAGENT_USAGE, story

from session_core import Message, Session
from session_core.export import export

TOKENS = sum(sum(v) for v in SUBAGENT_USAGE.values())


def subagent_rows(markdown: str) -> list[str]:
    section = markdown.split("## Subagents", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]


def test_the_export_lists_a_sessions_subagents(tmp_path: Path) -> None:
    path = story(tmp_path, torn=False)
    header, row = subagent_rows(export(path, "md"))
    assert "subagent" in header and "where" in header
    assert row.startswith("| a1 | explore | Task t4: completed |")
    assert f"{TOKENS:,} tok" in row and "agent-a1.jsonl" in row
    html = export(path, "html")
    assert "Subagents" in html and "agent-a1.jsonl" in html


def test_a_subagent_whose_file_is_gone_is_not_read_nor_0(tmp_path: Path) -> None:
    path = story(tmp_path, torn=False)
    (tmp_path / SESSION / "subagents" / "agent-a1.jsonl").unlink()
    _header, row = subagent_rows(export(path, "md"))
    assert row.count("not read") == 2 and "its file is not there" in row
    assert " 0 tok" not in row


def test_a_subagent_whose_file_holds_no_transcript_is_not_read_nor_0(tmp_path: Path) -> None:
    """A subagent's file written over (Markdown, say) read as "0 messages", no warning."""
    from session_core import open_transcript

    path = story(tmp_path, torn=False)
    (tmp_path / SESSION / "subagents" / "agent-a1.jsonl").write_text("# not jsonl\n")
    _header, row = subagent_rows(export(path, "md"))
    assert row.count("not read") == 2 and " 0 tok" not in row
    t = open_transcript(path)
    (sub,) = t.subagents
    assert not sub.read  # (its row: "not read", never 0)
    assert any("subagent a1:" in w and "no transcript" in w for w in t.warnings), t.warnings
    empty = tmp_path / SESSION / "subagents" / "agent-a1.jsonl"
    empty.write_bytes(b"")  # (a subagent about to write: read, nothing in it yet)
    (sub,) = open_transcript(path).subagents
    assert sub.read and sub.messages == 0


def test_a_session_without_subagents_has_no_such_section(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="hello"))
    assert "## Subagents" not in export(path, "md") and "## Usage" in export(path, "md")
