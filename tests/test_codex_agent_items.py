"""The item types upstream Codex persists and sends that the reader took for unknown
(the s44 audit, a1 F1–F3): another agent's message (``agent_message``, and the
``inter_agent_communication`` line it is delivered as: a v2 subagent's task arrives
only so), a turn's added tools (``additional_tools``) and the newer compaction marker
(``context_compaction``), at the top level and in a compaction's replacement history."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, message_payload

from session_core import scan as scan_module
from session_core.diff_model import model_diff
from session_core.export import export
from session_core.model import Transcript
from session_core.scan import scan_file

WORKER_SAYS: dict[str, Any] = {
    "type": "agent_message",
    "author": "/root/worker",
    "recipient": "/root",
    "content": [{"type": "input_text", "text": "worker says hi"}],
}
TOOLS: dict[str, Any] = {
    "type": "additional_tools",
    "role": "developer",
    "tools": [{"type": "function", "name": "lookup"}, {"type": "function", "name": "fetch"}],
}
MARKER: dict[str, Any] = {
    "type": "context_compaction",
    "encrypted_content": "ENC-24-CHARS-OF-SUMMARY!",
}


SEALED_SAID = "[agent message, encrypted, 3 chars]"


def _both_ways(path: Path) -> list[Transcript]:
    """The file read whole (typed lines first), and fed a parsed record at a time (the
    dict path a follow's parsed updates take)."""
    builder = CODEX.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        builder.feed(orjson.loads(raw), number)
    return [opened(path, alive=False), builder.transcript(writer_alive=False)]


def _sent(t: Transcript) -> list[tuple[str, str, str]]:
    return [(m.id, m.role, "\n".join(p.text for p in m.parts)) for m in t.messages]


def test_a_replacement_history_keeps_and_shows_every_item_it_sends(tmp_path: Path) -> None:
    """(F1) A history of a developer message, a tools list, the user's message (an
    earlier item kept), another agent's message, the new compaction marker and an
    encrypted reasoning: all six are sent next, each in its place ("of 6"; only two
    were), and the compaction's raw row says the five it made, not only those with text
    (one with none by its kind). An item of a type no one names stays out of the view,
    shown in that row as written."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "old question")
    w.message("assistant", "old answer")
    odd = {"type": "brand_new_item", "x": 1}
    history = [
        message_payload("developer", "dev instructions"),
        TOOLS,
        message_payload("user", "old question"),
        WORKER_SAYS,
        odd,
        MARKER,
        {"type": "reasoning", "summary": [], "encrypted_content": "SEALED"},
    ]
    compacted = w.compacted("", history)
    w.task_complete("t1")
    path = Path(w.path)
    for t in _both_ways(path):
        assert _sent(t) == [
            (f"L{compacted}.1", "developer", "dev instructions"),
            (f"L{compacted}.2", "developer", "tools added: lookup, fetch"),
            ("L3", "user", "old question"),
            (f"L{compacted}.4", "user", "from /root/worker to /root\nworker says hi"),
            (f"L{compacted}.6", "system", "[compaction summary, encrypted, 24 chars]"),
            (f"L{compacted}.7", "assistant", ""),
        ]
        row = next(item for item in t.raw if item.line == compacted)
        said = {p.name: p.text for p in row.parts}
        assert said["compacted"] == "replacement history: 7 items, 1 kept"
        assert said["replacement item 2 (developer)"] == "tools added: lookup, fetch"
        assert said["replacement item 4 (user)"].endswith("worker says hi")
        assert said["replacement item 5 (not sent)"] == orjson.dumps(odd).decode()
        assert said["replacement item 6 (system)"].startswith("[compaction summary")
        assert said["replacement item 7 (assistant)"] == "(reasoning, no text)"
        places = [r.split("[")[-1] for r in "".join(model_diff(t)).splitlines() if "place]" in r]
        assert places == [f"{k} of 6 in its place]" for k in (1, 2, 4, 5, 6)]


def test_the_newest_response_items_are_sent_not_records(tmp_path: Path) -> None:
    """(F2) At the top level: an agent message (its text; an encrypted one said as
    encrypted, its size), a tools list and the compaction marker are what the model is
    sent next, none a record of a type the spec does not name."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    tools = w.write("response_item", TOOLS)
    plain = w.write("response_item", WORKER_SAYS)
    sealed = w.write(
        "response_item",
        {
            "type": "agent_message",
            "author": "/root/worker2",
            "recipient": "/root",
            "content": [{"type": "encrypted_content", "encrypted_content": "XYZ"}],
        },
    )
    marker = w.write("response_item", {"type": "context_compaction"})  # (content optional)
    w.message("assistant", "done")
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        assert not t.other_records
        assert _sent(t)[1:5] == [
            (f"L{tools}", "developer", "tools added: lookup, fetch"),
            (f"L{plain}", "user", "from /root/worker to /root\nworker says hi"),
            (f"L{sealed}", "user", f"from /root/worker2 to /root\n{SEALED_SAID}"),
            (f"L{marker}", "system", "[compaction marker, no content]"),
        ]
        by_id = {m.id: m for m in t.messages}
        assert by_id[f"L{tools}"].sticky  # (a developer's, as its instructions are)
        assert by_id[f"L{marker}"].kind == "compaction"
        assert by_id[f"L{plain}"].text == "worker says hi"  # (its text: what is searched)


def _subagent(tmp_path: Path) -> RolloutWriter:
    w = RolloutWriter(tmp_path / "rollout-2026-01-01T00-00-00-child.jsonl")
    spawn = {"parent_thread_id": "parent", "depth": 1, "agent_path": "/root/worker"}
    w.session_meta("child", source={"subagent": {"thread_spawn": spawn}})
    w.turn_context("s1")
    w.task_started("s1")
    w.write(
        "inter_agent_communication",
        {
            "author": "/root",
            "recipient": "/root/worker",
            "other_recipients": [],
            "content": "please review a.py",
            "trigger_turn": True,
        },
    )
    w.message("assistant", "reviewed")
    w.task_complete("s1", "reviewed")
    return w


def test_a_v2_subagents_task_is_its_prompt_and_title(tmp_path: Path) -> None:
    """(F3) A v2 subagent's task arrives only as an ``inter_agent_communication`` line:
    it is the message its replayed view starts with, its turn's prompt and its browser
    row's title, not a record of an unknown type (the row said its file name)."""
    path = Path(_subagent(tmp_path).path)
    for t in _both_ways(path):
        assert not t.other_records
        assert _sent(t) == [
            ("L4", "user", "from /root to /root/worker\nplease review a.py"),
            ("L5", "assistant", "reviewed"),
        ]
        assert [run.prompt for run in t.runs] == ["please review a.py"]
    row = scan_file(path)
    assert row.title == "please review a.py"
    assert row.messages == 2


def test_a_delivered_message_is_kept_by_a_compaction_that_carries_it(tmp_path: Path) -> None:
    """A compaction's history holds an ``inter_agent_communication`` line as the agent
    message the model was given (upstream's ``to_model_input_item``): that copy is the
    line's item kept, not folded and sent again as one of its own; an encrypted one is
    given with its heading."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    communication = {
        "author": "/root/worker",
        "recipient": "/root",
        "other_recipients": [],
        "content": "done: 3 files",
        "trigger_turn": False,
    }
    delivered = w.write("inter_agent_communication", communication)
    sealed = w.write(
        "inter_agent_communication",
        {**communication, "content": "", "encrypted_content": "SEALED", "trigger_turn": True},
    )
    as_given = {
        "type": "agent_message",
        "content": [{"type": "input_text", "text": "done: 3 files"}],
        "recipient": "/root",  # (its keys in another order: the same message)
        "author": "/root/worker",
    }
    compacted = w.compacted("", [message_payload("user", "go"), as_given])
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        assert [m.id for m in t.messages] == ["L3", f"L{delivered}"]
        (compaction,) = t.compactions
        assert list(compaction.kept) == ["L3", f"L{delivered}"]
        assert f"L{sealed}" in list(compaction.folded)
        row = next(item for item in t.raw if item.line == sealed)
        assert [p.text for p in row.parts] == [
            "from /root/worker to /root",
            "Message Type: NEW_TASK\nTask name: /root\nSender: /root/worker\nPayload:\n",
            "[agent message, encrypted, 6 chars]",
        ]
    assert compacted


def test_a_big_subagents_row_finds_its_task_past_the_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row read in part looks past its head for the first prompt by its bytes: the task
    line is among them, so the row's title is the task a whole read gives, not a later
    prompt."""
    w = _subagent(tmp_path)
    path = Path(w.path)
    w.message("assistant", "y" * 5000)
    for turn in range(2, 12):
        w.task_started(f"s{turn}")
        w.message("user", f"later prompt {turn}")
        w.message("assistant", "ok")
        w.task_complete(f"s{turn}")
    os.utime(path, (1e9, 1e9))
    whole = scan_file(path, live_window=0).title
    monkeypatch.setattr(scan_module, "HEAD", 1)  # (the head: its first line alone)
    windowed = scan_file(path, live_window=0, budget=1, window=1000)
    assert windowed.title == whole == "please review a.py"


def _sealed_subagent(tmp_path: Path, name: str, task: bool, later: bool) -> RolloutWriter:
    """A v2 subagent's rollout: its context, its first turn's task given encrypted (where
    ``task``), and (where ``later``) a second turn a person prompted."""
    w = RolloutWriter(tmp_path / name)
    spawn = {"parent_thread_id": "parent", "depth": 1, "agent_path": "/root/worker"}
    w.session_meta("child", source={"subagent": {"thread_spawn": spawn}})
    w.message("user", "<environment_context>\n<cwd>/w</cwd>\n</environment_context>")
    w.turn_context("s1")
    w.task_started("s1")
    if task:
        sealed = {"author": "/root", "recipient": "/root/worker", "content": ""}
        w.write(
            "inter_agent_communication",
            {**sealed, "encrypted_content": "SEALED", "trigger_turn": True},
        )
    w.message("assistant", "reviewed " + "y" * 5000)
    w.task_complete("s1", "reviewed")
    if later:
        w.task_started("s2")
        w.message("user", "and now b.py")
        w.message("assistant", "ok")
        w.task_complete("s2", "ok")
    return w


def test_a_task_given_encrypted_is_said_so_and_titles_nothing(tmp_path: Path) -> None:
    """A v2 subagent's task given encrypted: its turn's prompt says so, no words of it
    (not the heading the model is given before the encrypted block, which the row and
    the replay JSON still say), and the browser's title is what the file would have
    without it (its context's words, or a later prompt: read whole or in part alike)."""
    for later in (False, True):
        path = Path(_sealed_subagent(tmp_path, f"sealed-{later}.jsonl", True, later).path)
        bare = Path(_sealed_subagent(tmp_path, f"bare-{later}.jsonl", False, later).path)
        for t in _both_ways(path):
            assert t.runs[0].prompt == "[agent message, encrypted, 6 chars]"
            assert t.runs[0].sealed
            task = t.messages[1].to_json()
            assert task["role"] == "user"
            assert task["content"].startswith("from /root to /root/worker\nMessage Type: NEW_TASK")
        title = scan_file(bare).title
        assert scan_file(path).title == title
        context = "<environment_context> <cwd>/w</cwd> </environment_context>"
        assert title == ("and now b.py" if later else context)


def test_a_person_s_words_after_an_encrypted_task_are_its_turn_s_prompt(tmp_path: Path) -> None:
    """Where the turn's ``user_message`` event says what a person typed after the task
    came encrypted, that is its prompt, and the title: it was given words."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    sealed = {"author": "/root", "recipient": "/root/worker", "content": "", "trigger_turn": True}
    w.write("inter_agent_communication", {**sealed, "encrypted_content": "SEALED"})
    w.message("user", "look at c.py")
    w.event("user_message", message="look at c.py")
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        assert (t.runs[0].prompt, t.runs[0].sealed) == ("look at c.py", False)
    assert scan_file(Path(w.path)).title == "look at c.py"


def test_a_later_prompt_found_past_the_head_after_an_encrypted_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row read in part looks on past an encrypted task for the first prompt with
    words, as a whole read does."""
    w = _sealed_subagent(tmp_path, "sealed.jsonl", True, True)
    for turn in range(3, 12):
        w.task_started(f"s{turn}")
        w.message("user", f"later prompt {turn}")
        w.message("assistant", "ok")
        w.task_complete(f"s{turn}")
    path = Path(w.path)
    os.utime(path, (1e9, 1e9))
    whole = scan_file(path, live_window=0).title
    monkeypatch.setattr(scan_module, "HEAD", 1)
    windowed = scan_file(path, live_window=0, budget=1, window=1000)
    assert windowed.title == whole == "and now b.py"


def test_the_others_a_message_went_to_are_shown(tmp_path: Path) -> None:
    """An ``inter_agent_communication``'s ``other_recipients`` (the others the same
    message went to, upstream's ``Vec<AgentPath>``) are said where it is shown: its row,
    the replay JSON and the exports; none (``[]``, upstream's default) says nothing."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    note = {"author": "/root/worker", "recipient": "/root", "content": "done"}
    note["trigger_turn"] = False
    cc = w.write("inter_agent_communication", {**note, "other_recipients": ["/root/a", "/root/b"]})
    alone = w.write("inter_agent_communication", {**note, "other_recipients": []})
    w.task_complete("t1")
    path = Path(w.path)
    for t in _both_ways(path):
        said = {m.line: m.to_json()["content"] for m in t.messages}
        assert said[cc] == "from /root/worker to /root (also to /root/a, /root/b)\ndone"
        assert said[alone] == "from /root/worker to /root\ndone"
    for fmt in ("md", "html"):
        for view in ("replayed", "raw"):
            assert "also to /root/a, /root/b" in export(path, fmt, view=view)
