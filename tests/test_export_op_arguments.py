"""The operations tables of the exports: each call's arguments, its main argument first and
cut to a cell, inert in the Markdown table (a ``|``, a backtick or a newline of its own
breaks no row); a v1 call answered and never settled says how long it ran at least."""

from __future__ import annotations

from html import unescape
from pathlib import Path

from markdown_it import MarkdownIt
from panes_helpers import fixed_ids

from session_core import Message, Session
from session_core.export import export

__all__ = ["fixed_ids"]  # (a fixture of panes_helpers', used here)

WILD = {"path": "a|b`c`\nd.txt", "text": "one\ntwo | `three`\r\n" + "x" * 200}


def v1_file(path: Path) -> Path:
    """Two calls settled and one never dispatched, each with a ``|``, backticks and a
    newline in its arguments; one answered whose settle never landed."""
    import json

    wild = json.dumps(WILD)
    calls = [
        {"id": cid, "type": "function", "function": {"name": "fs_write", "arguments": wild}}
        for cid in ("c1", "c2", "c3")
    ]
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="", tool_calls=tuple(calls)))
        op = s.append_tool_dispatched(call_id="c1", tool="fs_write", arguments=wild, run_id="r")
        s.append_message(Message(role="tool", content="ok", tool_call_id="c1"))
        s.append_tool_settled(op_id=op, outcome="completed", duration=0.5)
        s.append_tool_dispatched(call_id="c2", tool="fs_write", arguments=wild, run_id="r")
        s.append_message(Message(role="tool", content="ok", tool_call_id="c2"))
        s.append_message(Message(role="user", content="and then?"))  # (its writer wrote on)
    return path


def ops_table(md: str) -> list[list[str]]:
    """The tool operations table's rows (its header first), each cell's text as a
    Markdown renderer reads it (GFM tables)."""
    section = md[md.index("## Tool operations") :]
    tokens = MarkdownIt("commonmark").enable("table").parse(section)
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        if token.type == "inline" and rows:
            rows[-1].append(token.content)
        if token.type == "table_close":
            break
    renderer = MarkdownIt("commonmark")
    return [[unescape(renderer.renderInline(cell)).strip() for cell in row] for row in rows]


def test_v1s_markdown_table_says_each_calls_arguments_inert(tmp_path: Path) -> None:
    from session_core.exportdoc import ARGUMENTS_CELL

    md = export(v1_file(tmp_path / "v1.jsonl"), "md")
    header, *rows = ops_table(md)
    assert header[-1] == "arguments"
    assert len(rows) == 3 and all(len(row) == len(header) for row in rows)  # (none broken)
    for row in rows:
        cell = row[-1]
        # (a backtick stays one, not code; a newline stays the JSON's \n)
        assert cell.startswith('a|b`c` d.txt {"text":"one\\ntwo | `three`\\r\\nxxx')
        assert len(cell) == ARGUMENTS_CELL and cell.endswith("…")
    assert [row[0] for row in rows][-1] == "never dispatched"


def test_v1s_html_table_says_them_too(tmp_path: Path) -> None:
    html = export(v1_file(tmp_path / "v1.jsonl"), "html")
    table = html[html.index('id="tool-operations"') :]
    table = table[: table.index("</table>")]
    assert "<th>arguments</th>" in table
    assert table.count("<td>a|b`c` d.txt {&quot;text&quot;:&quot;one\\ntwo | `three`") == 3


def test_an_answered_call_never_settled_says_how_long_at_least(
    tmp_path: Path, fixed_ids: None
) -> None:
    """Its duration was blank (its settle, which times it, never written): it ran at
    least till its answer, a tick (1.5 s) after its dispatch."""
    md = export(v1_file(tmp_path / "v1.jsonl"), "md")
    rows = {row[2]: row for row in ops_table(md)[1:]}
    assert rows["c2"][0] == "completed, settle never landed"
    assert rows["c2"][8] == "≥1.5s (till its answer)"
    assert rows["c1"][8] == "0.50s" and rows["c3"][8] == ""


def test_a_models_table_says_the_main_argument_first(tmp_path: Path) -> None:
    """A Claude Code call's row said its arguments as JSON in their order (``{"limit": 5,
    "file_path": …``): its file first, as the viewer's row."""
    from claude_code_writer import CCWriter, tool_use

    w = CCWriter()
    w.user("read it")
    w.assistant("m1", [tool_use("t1", "Read", limit=5, file_path="src/a|b.py")])
    w.result("t1", "text")
    md = export(w.write(tmp_path / "cc.jsonl"), "md")
    header, row = ops_table(md)
    assert header[-1] == "arguments" and len(row) == len(header)
    assert row[-1] == 'src/a|b.py {"limit":5}'


def agentgo_file(path: Path) -> Path:
    """An agentgo run: a model call that asks for a tool call, and that call."""
    import orjson

    records: list[dict[str, object]] = []

    def rec(kind: str, data: dict[str, object], **extra: object) -> None:
        n = len(records)
        time = f"2026-08-09T10:00:{n:02d}Z"
        records.append({"seq": n, "session_id": "s", "type": kind, "time": time, "data": data})
        records[-1].update(extra, run_id="r1")

    args = {"timeout": 5, "command": "ls | wc\n`x`"}
    call = {"type": "tool_call", "id": "tc1", "name": "shell", "arguments": args}
    model = {"execution": {"id": "m1", "kind": "model", "attempt": 1, "turn_index": 0}}
    tool = {"execution": {"id": "t1", "kind": "tool", "attempt": 1, "parent_id": "m1"}}
    rec("session_start", {"version": 1})
    rec("run_start", {})
    rec("turn_start", {"turn_index": 0})
    rec("model_request", {"messages": [], "tools": [], "config": {"model": "k2"}}, **model)
    assistant = {"kind": "assistant", "content": [call]}
    rec("model_exec_end", {"message": assistant}, **model)
    rec("message_end", {"message": assistant})
    rec("tool_exec_start", {"tool": "shell", "tool_call_id": "tc1", "args": args}, **tool)
    rec("tool_exec_end", {"is_error": False}, **tool)
    rec("run_close", {})
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def test_agentgos_calls_table_says_a_tool_calls_arguments(tmp_path: Path) -> None:
    """Its calls table had no arguments: a tool call's, main argument first, inert; a
    model call has none."""
    md = export(agentgo_file(tmp_path / "ag.jsonl"), "md")
    section = md[md.index("## Calls") :]
    tokens = MarkdownIt("commonmark").enable("table").parse(section)
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows:
            rows[-1].append(unescape(MarkdownIt("commonmark").renderInline(token.content)))
        elif token.type == "table_close":
            break
    header, *calls = rows
    assert header[-1] == "arguments" and all(len(row) == len(header) for row in calls)
    assert {row[1]: row[-1].strip() for row in calls} == {
        "m1 (k2)": "",
        "shell": 'ls | wc `x` {"timeout":5}',
    }
