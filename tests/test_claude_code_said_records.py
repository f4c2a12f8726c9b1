"""Claude Code lines shown in words rather than as raw JSON, in shapes real versions
write (claude-code-types' ``ServerToolUseBlock``, ``WebSearchToolResultBlock``,
``AgentNameEntry``, ``PrLinkEntry``): a server-side web search as a tool operation with
its result, an ``agent-name`` and a ``pr-link`` record; and a file of other sessions'
summaries alone, untitled."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import orjson
from claude_code_helpers import both
from claude_code_writer import CCWriter, text, usage
from helpers import run_cli

from session_core.export import export
from session_core.scan import scan_file
from viewer.browser_cells import session_cell

SEARCH = {
    "type": "server_tool_use",
    "id": "srvtoolu_01",
    "name": "web_search",
    "input": {"query": "python 3.13 \x1b[31mred"},
}
FOUND = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [
        {
            "type": "web_search_result",
            "title": "Python 3.13 [bold]released[/bold]",
            "url": "https://python.org/3.13",
            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1j",
            "page_age": "2 days ago",
        },
        {"type": "web_search_result", "title": "What's new", "url": "https://docs.python.org"},
    ],
}


def _searched(tmp_path: Path, found: dict[str, Any], searches: int = 1) -> Path:
    """A response that searched the web: 2.x writes a line per block, one message id."""
    w = CCWriter(version="2.0.50")
    w.user("what is new in python?")
    spent = {**usage(10, 30), "server_tool_use": {"web_search_requests": searches}}
    w.assistant("m1", [SEARCH, found, text("Python 3.13 is out.")], usage=spent, stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


def test_a_web_search_is_a_completed_tool_operation_with_its_results_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The blocks were shown as raw JSON and made no operation: the call and its result
    (in the same response, paired by id) are one, completed, its results by title and
    address (their encrypted text left out); the turn finished."""
    path = _searched(tmp_path, FOUND)
    t = both(path, monkeypatch)
    (op,) = t.tool_operations
    assert (op.call_id, op.tool, op.state) == ("srvtoolu_01", "web_search", "completed")
    assert op.arguments == {"query": "python 3.13 \x1b[31mred"}
    assert op.result == (
        "Python 3.13 [bold]released[/bold] — https://python.org/3.13\n"
        "What's new — https://docs.python.org"
    )
    assert [r.state for r in t.runs] == ["finished"]
    # (in its place among the response's blocks: the search, its hits, the text on them)
    md = export(path, "md")
    assert "server\\_tool\\_use" not in md and "EqgfCioI" not in md
    at = [md.find(w) for w in ("**web\\_search**", "released", "What's new", "3.13 is out")]
    assert -1 not in at and at == sorted(at), at
    assert "1 tool operation" in run_cli(capsys, "check", str(path))[1]


def test_a_failed_web_search_is_a_failed_operation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
    }
    (op,) = both(_searched(tmp_path, failed), monkeypatch).tool_operations
    assert (op.state, op.result) == ("failed", "error: max_uses_exceeded")


def test_a_response_that_searched_the_web_is_not_priced_as_if_its_tokens_were_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Web searches are billed per search, which the price table has not: the cost of a
    response that made some is unknown (the file's a lower bound, "0 of 1 priced"),
    never its tokens' alone said as exact. One that made none is priced."""
    t = both(_searched(tmp_path, FOUND), monkeypatch)
    assert t.usage.tokens == 40 and t.usage.cost is None
    none = both(_searched(tmp_path, FOUND, searches=0), monkeypatch)
    assert none.usage.cost is not None and not none.usage.cost_partial


def test_agent_name_and_pr_link_records_are_said_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They were raw JSON records: each is its words (the line as written is ``t``'s);
    one without what its type says stays a record as written."""
    w = CCWriter(version="2.1.39")
    w.user("refactor the module")
    w.assistant("m1", [text("done")], usage=usage(1, 2), stop="end_turn")
    w.bare({"type": "agent-name", "agentName": "refactorer", "sessionId": w.session})
    w.bare(
        {
            "type": "pr-link",
            "prNumber": 42,
            "prUrl": "https://github.com/o/r/pull/42",
            "prRepository": "o/r",
            "sessionId": w.session,
            "timestamp": "2026-03-01T10:05:00.000Z",
        }
    )
    w.bare({"type": "pr-link", "sessionId": w.session})
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    said = [(i.kind, i.text) for i in t.raw[2:]]
    assert said[:2] == [
        ("agent-name", "agent name: refactorer"),
        ("pr-link", "PR #42 in o/r: https://github.com/o/r/pull/42"),
    ]
    assert said[2][0] == "record" and t.raw[-1].parts[0].name == "pr-link"
    raw = export(path, "md", "raw")
    assert "agent name: refactorer" in raw and '"agentName"' not in raw


def test_a_file_of_other_sessions_summaries_alone_is_untitled_in_the_browser(
    tmp_path: Path,
) -> None:
    """Its row read as a session titled with another session's summary: it is named by
    its path, saying why it has no title."""
    w = CCWriter(version="1.0.51")
    w.bare({"type": "summary", "summary": "Fix login tests", "leafUuid": "elsewhere-1"})
    w.bare({"type": "summary", "summary": "Add CI", "leafUuid": "elsewhere-2"})
    path = w.write(tmp_path / "a.jsonl")
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)
    row = scan_file(path)
    row.rel = "a.jsonl"
    assert row.title is None
    assert session_cell(row, 60).plain == "summaries of other sessions · a.jsonl"


def _searched_split(tmp_path: Path) -> Path:
    """A response that says something, searches and answers, a line per block (lines
    2-5: the call on line 3, its result on line 4, a second later)."""
    w = CCWriter(version="2.0.50")
    w.user("what is new in python?")
    spent = {**usage(10, 30), "server_tool_use": {"web_search_requests": 1}}
    blocks = [text("Let me search."), SEARCH, FOUND, text("Python 3.13 is out.")]
    w.assistant("m1", blocks, usage=spent, stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


def test_a_split_web_search_is_timed_from_its_call_line_to_its_result_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The result was said to be on the response's first line (before its call's), its
    end that line's time, no duration: it is on its own block's line, timed from the
    call's line to it; replay says the same."""
    path = _searched_split(tmp_path)
    (op,) = both(path, monkeypatch).tool_operations
    assert (op.line, op.result_line) == (3, 4)
    assert (op.ended, op.duration) == ("2026-03-01T10:00:04.000Z", 1.0)
    replayed = orjson.loads(run_cli(capsys, "replay", str(path))[1])
    (said,) = replayed["tool-operations"]
    assert (said["line"], said["result-line"], said["duration"]) == (3, 4, 1.0)


def test_a_web_search_on_one_line_has_no_duration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A response written on one line, call and result in it: both on that line, and
    no time between them is known (said 0s would be a figure the file does not give)."""
    w = CCWriter(version="2.0.50")
    w.user("what is new in python?")
    message = {
        "model": "claude-sonnet-4-5-20250929",
        "id": "m1",
        "type": "message",
        "role": "assistant",
        "content": [SEARCH, FOUND, text("Python 3.13 is out.")],
        "stop_reason": "end_turn",
        "usage": usage(10, 30),
    }
    w.env("assistant", message=message)
    (op,) = both(w.write(tmp_path / "s.jsonl"), monkeypatch).tool_operations
    assert (op.line, op.result_line, op.state, op.duration) == (2, 2, "completed", None)


def test_an_export_counts_a_web_search_shown_in_its_place(tmp_path: Path) -> None:
    """The search, shown in the conversation as its blocks (the call's arguments whole,
    its results), was given again whole under the calls the conversation does not hold
    (only tool_use calls were counted shown), in Markdown and HTML; its table row says
    its line and duration."""
    path = _searched_split(tmp_path)
    md = export(path, "md")
    assert "does not hold" not in md
    assert "python 3.13 \\u001b[31mred" in md.split("## Tool operations")[0]
    assert "| completed | web\\_search | srvtoolu\\_01 | line 3 | 1.0s |" in md
    html = export(path, "html")
    assert "does not hold" not in html and "srvtoolu_01" in html


def test_a_response_that_only_searched_the_web_reads_as_its_call_in_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A response of a web search alone (its call and its result, no text) was said on
    ``diff``'s row (and the Diff tab's) as its input's JSON, ``{"query":…}``: it reads as
    its call, as a ``tool_use`` call does (``→ web_search python 3.13 …``, inert)."""
    w = CCWriter(version="2.0.50")
    w.user("what is new in python?")
    w.assistant("m1", [SEARCH, FOUND], usage=usage(10, 30), stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    rows = run_cli(capsys, "diff", str(path))[1].splitlines()
    said = {row[7:13].strip(): row[24:] for row in rows if row.startswith("= line")}
    assert said["2"] == "→ web_search python 3.13 ␛[31mred", rows
    assert not any('{"query"' in row for row in rows)


def _searched_without_input(tmp_path: Path, name: str, odd: bool) -> Path:
    """A response of a web search alone whose call was written without ``input``; ``odd``:
    its call's line has a field of a type the typed decoder refuses (read as a dict)."""
    w = CCWriter(version="2.0.50")
    w.user("what is new in python?")
    call = {k: v for k, v in SEARCH.items() if k != "input"}
    w.assistant("m1", [call, FOUND], usage=usage(10, 30), stop="end_turn")
    if odd:
        w.lines[-2]["gitBranch"] = 5
    return w.write(tmp_path / name)


def test_a_server_call_without_input_is_a_call_in_the_diff_and_the_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``server_tool_use`` block written without ``input`` was told from its result by
    its data (none) in the diff rows, by its type in the reader: it is a call to both,
    its operation as one with input (no arguments), the typed and dict paths alike."""
    for name, odd in (("typed.jsonl", False), ("dict.jsonl", True)):
        path = _searched_without_input(tmp_path, name, odd)
        t = both(path, monkeypatch)
        (op,) = t.tool_operations
        assert (op.call_id, op.tool, op.state, op.arguments) == (
            "srvtoolu_01",
            "web_search",
            "completed",
            None,
        )
        assert op.result.startswith("Python 3.13 [bold]released[/bold]")
        said = [(p.name, p.is_call) for i in t.raw for p in i.parts if p.call_id]
        assert said == [("web_search", True), ("web_search_tool_result", False)], name
        rows = run_cli(capsys, "diff", str(path))[1].splitlines()
        row = {r[7:13].strip(): r[24:] for r in rows if r.startswith("= line")}
        assert row["2"].startswith("→ web_search"), rows


def test_a_server_call_without_input_shows_no_argument_it_never_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No ``input`` written, no arguments shown: the diff row, the conversation's part
    and the md export said ``null``, which the file never wrote (one written ``null`` is
    shown as written)."""
    for name, odd in (("typed.jsonl", False), ("dict.jsonl", True)):
        path = _searched_without_input(tmp_path, name, odd)
        rows = run_cli(capsys, "diff", str(path))[1].splitlines()
        row = {r[7:13].strip(): r[24:] for r in rows if r.startswith("= line")}
        assert row["2"].rstrip() == "→ web_search", rows
        from session_core import open_transcript

        (call,) = [p for i in open_transcript(path).raw for p in i.parts if p.is_call]
        assert call.text == "" and call.data is None
        md = export(path, "md").split("## Tool operations")[0]
        assert "null" not in md, md
