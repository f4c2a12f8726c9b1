"""Newer Codex writers' ``item_completed`` tool items read as the response items saying
the same do (a command line, a patch by its files, content blocks as their text, a web
search with no result), with their turn's model, in the diff beside their calls; and a
``compaction_summary`` / a ``web_search_call`` without status as upstream writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_helpers import opened
from codex_writer import RolloutWriter

from session_core.diff_model import model_diff
from session_core.search import call_said, op_arguments

TURN = "t1"


def _paginated(path: Path) -> RolloutWriter:
    """A paginated-mode rollout (0.150's shapes): its turn only in ``item_completed``."""
    w = RolloutWriter(path)
    w.session_meta(cli_version="0.150.0", history_mode="paginated")
    w.task_started(TURN)
    w.item_completed(
        {"type": "UserMessage", "id": "u1", "content": [{"type": "text", "text": "build it"}]},
        TURN,
    )
    w.turn_context(TURN, model="gpt-5.5")
    items: list[dict[str, Any]] = [
        {
            "type": "CommandExecution",
            "id": "c1",
            "command": ["bash", "-lc", "make"],
            "cwd": "/p",
            "status": "failed",
            "aggregatedOutput": "make: *** No rule\n",
            "exitCode": 2,
        },
        {
            "type": "FileChange",
            "id": "f1",
            "changes": {
                "/p/Makefile": {"type": "add", "content": "all:\n\techo hi\n"},
                "/p/old.txt": {"type": "delete", "content": "x\n"},
                "/p/a.py": {
                    "type": "update",
                    "unified_diff": "@@ -1 +1 @@\n-a = 1\n+a = 2\n",
                    "move_path": "/p/b.py",
                },
            },
            "status": "completed",
            "stdout": "Success. Updated the following files:\nA Makefile\n",
            "stderr": "",
        },
        {
            "type": "McpToolCall",
            "id": "m1",
            "server": "docs",
            "tool": "search",
            "arguments": {"q": "x"},
            "status": "completed",
            "result": {"content": [{"type": "text", "text": "three hits"}], "isError": False},
        },
        {
            "type": "McpToolCall",
            "id": "m2",
            "server": "docs",
            "tool": "search",
            "arguments": {"q": "y"},
            "status": "failed",
            "error": {"message": "timeout"},
        },
        {
            "type": "DynamicToolCall",
            "id": "d1",
            "tool": "lookup",
            "arguments": {},
            "status": "completed",
            "contentItems": [{"type": "inputText", "text": "found it"}],
            "success": True,
        },
        {
            "type": "WebSearch",
            "id": "w1",
            "query": "make rules",
            "action": {"type": "search", "query": "make rules"},
        },
        {"type": "AgentMessage", "id": "a1", "content": [{"type": "Text", "text": "Built."}]},
    ]
    for item in items:
        w.item_completed(item, TURN)
    w.token_count((900, 100, 60, 5))
    w.task_complete(TURN, "Built.")
    return w


def test_completed_tools_read_as_their_response_items_do(tmp_path: Path) -> None:
    _paginated(tmp_path / "r.jsonl")
    t = opened(tmp_path / "r.jsonl", alive=False)
    ops = {op.call_id: op for op in t.tool_operations}
    # a command as its command line (a shell call's arguments), not its argv's JSON
    assert op_arguments(ops["c1"].arguments) == 'make  {"cwd":"/p"}'
    # a file change as the patch that makes it: read by the files it touches
    said_files = "/p/Makefile, /p/old.txt, /p/a.py (+1 more)"  # (and where a.py moved)
    assert op_arguments(ops["f1"].arguments) == said_files
    assert ops["f1"].arguments.splitlines() == [
        "*** Begin Patch",
        "*** Add File: /p/Makefile",
        "+all:",
        "+\techo hi",
        "*** Delete File: /p/old.txt",
        "*** Update File: /p/a.py",
        "*** Move to: /p/b.py",
        "@@ -1 +1 @@",
        "-a = 1",
        "+a = 2",
        "*** End Patch",
    ]
    # results as the text the model read (content blocks, an error's message)
    said = {op.call_id: (op.state, op.result) for op in t.tool_operations}
    assert said == {
        "c1": ("failed", "make: *** No rule\n"),
        "f1": ("completed", "Success. Updated the following files:\nA Makefile\n"),
        "m1": ("completed", "three hits"),
        "m2": ("failed", "timeout"),
        "d1": ("completed", "found it"),
        "w1": ("completed", None),  # (a web search has no result)
    }
    results = {p.call_id: p.text for m in t.messages for p in m.parts if p.kind == "tool-result"}
    assert results == {k: v for k, (_, v) in said.items() if v is not None}
    calls = {p.call_id: call_said(p) for m in t.messages for p in m.parts if p.kind == "tool-call"}
    assert calls["c1"] == '→ command_execution make  {"cwd":"/p"}'
    assert calls["w1"].startswith("→ web_search make rules")
    # each assistant item says its turn's model, as a response item does
    assistant = [m for m in t.messages if m.role == "assistant"]
    assert assistant and {m.model for m in assistant} == {"gpt-5.5"}
    assert {i.model for i in t.raw if i.role == "assistant"} == {"gpt-5.5"}


def test_a_dynamic_tools_image_is_said_as_an_image(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.150.0")
    w.task_started(TURN)
    image = {"type": "inputImage", "imageUrl": "data:image/png;base64,AAAA"}
    w.item_completed(
        {"type": "DynamicToolCall", "id": "d1", "tool": "shot", "arguments": {},
         "status": "completed", "contentItems": [image], "success": True},
        TURN,
    )  # fmt: skip
    w.task_complete(TURN)
    (op,) = opened(tmp_path / "r.jsonl", alive=False).tool_operations
    assert op.result == "[image image/png]"


def test_diff_lists_a_completed_tools_result_under_its_call(tmp_path: Path) -> None:
    """A completed tool item's result is sent as a message of its own, written on its
    call's line: the diff lists it as sent, after its call (not as a compaction's)."""
    _paginated(tmp_path / "r.jsonl")
    t = opened(tmp_path / "r.jsonl", alive=False)
    at = {op.call_id: op.line for op in t.tool_operations}
    rows = "".join(model_diff(t)).splitlines()
    assert not any("listed under the compaction" in row for row in rows)
    assert not any(row.startswith("+") for row in rows)
    command = [row for row in rows if row.startswith(f"= line {at['c1']:>6} ")]
    assert [row.split()[3] for row in command] == ["assistant", "tool"]
    assert "→ command_execution make" in command[0] and "← error make: ***" in command[1]
    # the web search (no result) is one row, its call
    assert len([row for row in rows if f"line {at['w1']:>6} " in row]) == 1


def test_a_compaction_summary_is_the_compaction_item(tmp_path: Path) -> None:
    """``compaction_summary`` is upstream's older name of the encrypted compaction item
    (``#[serde(alias)]``): read as it, not as a raw record."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started(TURN)
    w.message("user", "go")
    w.message("assistant", "ok")
    w.compacted(
        "",
        [
            w.message_payload("user", "go"),
            {"type": "compaction_summary", "encrypted_content": "ENCRYPTED"},
        ],
    )
    w.task_complete(TURN)
    t = opened(tmp_path / "r.jsonl", alive=False)
    last = t.messages[-1]
    assert (last.kind, last.text) == ("compaction", "")
    assert last.parts[0].text == "[compaction summary, encrypted, 9 chars]"


def _search_without_status(path: Path, end: str | None) -> None:
    w = RolloutWriter(path)
    w.session_meta(cli_version="0.120.0")
    w.task_started(TURN)
    w.message("user", "look it up")
    search = {"type": "web_search_call", "action": {"type": "search", "query": "q"}}
    w.write("response_item", search)  # (no status)
    w.message("assistant", "found")
    if end == "complete":
        w.task_complete(TURN)
    elif end == "aborted":
        w.turn_aborted(TURN)


def test_a_web_search_without_status_ended_as_its_turn_did(tmp_path: Path) -> None:
    """A ``web_search_call``'s status is optional (written once the search is done):
    missing, it is completed once its turn finished, interrupted where the turn was cut
    off, running while the turn is."""
    said = {}
    for end in ("complete", "aborted", None):
        path = tmp_path / f"{end}.jsonl"
        _search_without_status(path, end)
        (op,) = opened(path, alive=end is None).tool_operations
        said[end] = op.state
    assert said == {"complete": "completed", "aborted": "interrupted", None: "running"}


def test_a_turnless_web_search_without_status_in_an_answered_turn(tmp_path: Path) -> None:
    """A writer of no task events (0.4x): its turn ends with its answer, the status-less
    search in it completed (in one ended by the next prompt, and in the last one)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.46.0")
    for prompt in ("one", "two"):
        w.event("user_message", message=prompt)
        w.message("user", prompt)
        w.write("response_item", {"type": "web_search_call", "action": {"type": "search"}})
        w.message("assistant", "done")
    t = opened(tmp_path / "r.jsonl", alive=False)
    assert [r.state for r in t.runs] == ["finished", "finished"]
    assert [op.state for op in t.tool_operations] == ["completed", "completed"]


def test_the_app_servers_string_command_and_list_of_changes_read_as_the_others(
    tmp_path: Path,
) -> None:
    """(review 1, finding 7) The app server's item shapes: a ``CommandExecution`` whose
    ``command`` is the argv shell-joined, a ``FileChange`` whose ``changes`` are a list
    of ``{path, kind, diff}`` (a move's diff followed by ``Moved to:``), read as the
    argv and the ``{path: change}`` forms are (they read as the string and as JSON)."""
    argv, listed = RolloutWriter(tmp_path / "argv.jsonl"), RolloutWriter(tmp_path / "list.jsonl")
    moved = "@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    shapes = [
        (
            argv,
            ["/bin/bash", "-lc", "make 'a b'"],
            {
                "/p/Makefile": {"type": "add", "content": "all:\n"},
                "/p/old.txt": {"type": "delete", "content": "x\n"},
                "/p/a.py": {"type": "update", "unified_diff": moved, "move_path": "/p/b.py"},
            },
        ),
        (
            listed,
            "/bin/bash -lc 'make '\"'\"'a b'\"'\"''",
            [
                {"path": "/p/Makefile", "kind": {"type": "add"}, "diff": "all:\n"},
                {"path": "/p/old.txt", "kind": {"type": "delete"}, "diff": "x\n"},
                {
                    "path": "/p/a.py",
                    "kind": {"type": "update", "move_path": "/p/b.py"},
                    "diff": moved + "\n\nMoved to: /p/b.py",
                },
            ],
        ),
    ]
    for w, command, changes in shapes:
        w.session_meta(cli_version="0.150.0")
        w.task_started(TURN)
        w.item_completed(
            {
                "type": "CommandExecution",
                "id": "c1",
                "command": command,
                "cwd": "/p",
                "status": "completed",
                "aggregatedOutput": "ok",
                "exitCode": 0,
            },
            TURN,
        )
        w.item_completed(
            {"type": "FileChange", "id": "f1", "changes": changes, "status": "completed"}, TURN
        )
        w.task_complete(TURN)
    read = [
        [
            (op.tool, op_arguments(op.arguments), op.arguments)
            for op in opened(Path(w.path), alive=False).tool_operations
        ]
        for w, _, _ in shapes
    ]
    assert read[1] == read[0], read
    assert [said for _tool, said, _ in read[0]] == [
        'make \'a b\'  {"cwd":"/p"}',
        "/p/Makefile, /p/old.txt, /p/a.py (+1 more)",
    ]
