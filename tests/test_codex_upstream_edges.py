"""What the newest upstream Codex writes that the reader said wrongly (the s44 audit a1,
findings 4-8): a server's tool search with no call id read as a call in flight and its
output as damage; an image generation's result said by every surface but the Markdown
export; an audio clip's base64 dumped whole; persisted events shown as raw JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter

from session_core.export import export
from session_core.formats.codex.event_words import event_words
from session_core.model import Transcript

SEARCH = {"type": "tool_search_call", "call_id": None, "execution": "server"}
FOUND = {"type": "tool_search_output", "call_id": None, "execution": "server"}
TOOLS = [{"type": "function", "name": "create_event"}, {"type": "function", "name": "list"}]


def _both_ways(path: Path) -> list[Transcript]:
    """The file read whole, and fed a parsed record at a time (a follow's dict path)."""
    builder = CODEX.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        builder.feed(orjson.loads(raw), number)
    return [opened(path, alive=False), builder.transcript(writer_alive=False)]


def _searched(tmp_path: Path, *items: dict[str, Any]) -> Path:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.200.0")
    w.task_started("t1")
    w.message("user", "find the calendar tools")
    for item in items:
        w.write("response_item", item)
    w.message("assistant", "done")
    w.task_complete("t1")
    return Path(w.path)


# -- F4: a server's tool search, no call id ----------------------------------------------


def test_a_server_tool_search_with_no_call_id_is_settled_and_answered(tmp_path: Path) -> None:
    """Upstream's ``ToolSearchCall`` / ``ToolSearchOutput`` have ``call_id: Option``; the
    server writes its search and then its output, neither naming the other. The call
    said ``completed`` yet read as interrupted, "1 tool call without a result", and its
    output warned of as answering no operation."""
    path = _searched(
        tmp_path,
        {**SEARCH, "status": "completed", "arguments": {"query": "calendar"}},
        {**FOUND, "status": "completed", "tools": TOOLS},
    )
    for t in _both_ways(path):
        (op,) = t.tool_operations
        assert (op.tool, op.state, op.line) == ("tool_search", "completed", 4)
        assert (op.result, op.result_line) == ("create_event\nlist", 5)
        assert t.warnings == []
    md = export(path, "md", view="raw")
    assert "- result: line 5: create\\_event list" in md and "no result answers" not in md


def test_a_hosted_search_keeps_its_own_failed_status_and_a_lone_output_is_no_damage(
    tmp_path: Path,
) -> None:
    """A search that says it failed stays failed, its output its result; an output the
    server wrote with no search before it is kept unpaired, no warning (upstream never
    drops it as an orphan); a second output does not take the first one's search."""
    path = _searched(
        tmp_path,
        {**FOUND, "status": "completed", "tools": []},
        {**SEARCH, "status": "failed", "arguments": {"query": "x"}},
        {**FOUND, "status": "completed", "tools": TOOLS[:1]},
        {**FOUND, "status": "completed", "tools": TOOLS[1:]},
    )
    for t in _both_ways(path):
        (op,) = t.tool_operations
        assert (op.state, op.result, op.result_line) == ("failed", "create_event", 6)
        assert t.warnings == []


def test_a_client_tool_search_still_pairs_by_its_call_id(tmp_path: Path) -> None:
    """The other side: a client search with a call id waits for its output, and an
    output naming no search is still said to answer none."""
    path = _searched(
        tmp_path,
        {"type": "tool_search_call", "call_id": "s1", "execution": "client", "status": "completed"},
    )
    for t in _both_ways(path):
        (op,) = t.tool_operations
        assert op.state == "interrupted" and op.result_line is None


# -- F5: an image generation's result, one answer everywhere -------------------------------


def test_an_image_generations_result_is_said_by_the_markdown_export_too(tmp_path: Path) -> None:
    """``replay`` and the viewer said "result at line 4 [image image/png]", the Markdown
    export "no result answers this call"; the end event's ``saved_path`` is the
    operation's detail."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    image = {"type": "image_generation_call", "id": "ig_1", "status": "completed"}
    w.write("response_item", {**image, "revised_prompt": "a cat", "result": "iVBORw0KGgo="})
    saved = "/repo/.codex/images/ig_1.png"
    end = {"call_id": "ig_1", "status": "completed", "result": "iVBORw0KGgo="}
    w.event("image_generation_end", **end, saved_path=saved)
    w.task_complete("t1")
    path = Path(w.path)
    for t in _both_ways(path):
        (op,) = t.tool_operations
        assert (op.result, op.result_line) == ("[image image/png]", 3)
        assert op.detail == {"saved_path": saved}
    for view in ("raw", "replayed"):
        md = export(path, "md", view=view)
        assert "- result: line 3: \\[image image/png\\]" in md, view
        assert "no result answers" not in md


# -- F6: an audio clip ---------------------------------------------------------------------


def test_an_audio_clip_reads_as_its_media_type_never_its_base64(tmp_path: Path) -> None:
    clip = "data:audio/wav;base64," + "UklGRg" * 500
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    content = [
        {"type": "input_text", "text": "listen"},
        {"type": "input_audio", "audio_url": clip},
    ]
    w.write("response_item", {"type": "message", "role": "user", "content": content})
    w.function_call("shell", {"command": ["play"]}, "c1")
    output = [{"type": "input_text", "text": "played"}, {"type": "inputAudio", "audioUrl": clip}]
    w.write("response_item", {"type": "function_call_output", "call_id": "c1", "output": output})
    w.task_complete("t1")
    path = Path(w.path)
    for t in _both_ways(path):
        replay = t.to_json()
        assert "UklGRg" not in orjson.dumps(replay).decode()
        prompt = next(m for m in replay["messages"] if m["role"] == "user")
        assert prompt["content"] == "listen\n[audio audio/wav]"
        (op,) = t.tool_operations
        assert op.result == "played\n[audio audio/wav]"
    assert "UklGRg" not in export(path, "md", view="raw")


# -- F7: the events upstream persists, in words ------------------------------------------

GOAL = {
    "objective": "fix all bugs",
    "status": "active",
    "tokenBudget": 100000,
    "tokensUsed": 5000,
    "timeUsedSeconds": 12,
}
REVIEW = {"findings": [{"title": "x"}], "overall_correctness": "patch is incorrect"}


@pytest.mark.parametrize(
    ("kind", "payload", "words"),
    [
        (
            "image_generation_end",
            {"call_id": "ig_1", "status": "completed", "result": "iVBOR", "saved_path": "/a.png"},
            "image generation completed: saved /a.png",
        ),
        (
            "sub_agent_activity",
            {
                "event_id": "e",
                "agent_thread_id": "019d",
                "agent_path": "/root/w",
                "kind": "started",
            },
            "subagent /root/w started",
        ),
        (
            "thread_goal_updated",
            {"threadId": "019d", "turnId": "t1", "goal": GOAL},
            "goal active: fix all bugs (5,000 of 100,000 tokens, 12.0s)",
        ),
        (
            "thread_goal_updated",
            {"threadId": "019d", "goal": {"objective": "ship", "status": "complete"}},
            "goal complete: ship",
        ),
        (
            "item_completed",
            {"item": {"type": "Sleep", "id": "s", "durationMs": 5000}},
            "slept 5.0s",
        ),
        (
            "item_completed",
            {
                "item": {
                    "type": "Sleep",
                    "durationMs": 60000,
                    "outcome": "interrupted",
                    "elapsedMs": 2500,
                }
            },
            "sleep of 1m00s interrupted after 2.5s",
        ),
        (
            "entered_review_mode",
            {"target": {"type": "uncommittedChanges"}, "user_facing_hint": "current changes"},
            "review started: current changes",
        ),
        (
            "entered_review_mode",
            {"target": {"type": "baseBranch", "branch": "main"}},
            "review started: changes against main",
        ),
        (
            "exited_review_mode",
            {"review_output": REVIEW},
            "review ended: patch is incorrect, 1 finding",
        ),
        ("exited_review_mode", {"review_output": None}, "review ended without a result"),
    ],
)
def test_persisted_events_read_in_words(kind: str, payload: dict[str, Any], words: str) -> None:
    assert event_words(kind, {"type": kind, **payload}) == words


def test_a_sleep_reads_in_words_in_the_raw_view(tmp_path: Path) -> None:
    """An ``item_completed`` no conversation item says was kept as its JSON alone."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    sleep = {"type": "Sleep", "id": "sl1", "durationMs": 5000}
    at = w.event("item_completed", thread_id="x", turn_id="t1", item=sleep)
    w.event("item_completed", thread_id="x", turn_id="t1", item={"type": "Other", "id": "o"})
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        rows = {i.line: i.parts[0].row_head()[0] for i in t.raw}
        assert rows[at] == "slept 5.0s"
        assert rows[at + 1].startswith('{"type":"item_completed"')  # (no words known: JSON)
