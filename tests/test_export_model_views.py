"""The export of a model format (Claude Code, Codex) says what the model is sent: an
elided result's stub in the replayed view, the original beside its stub in the raw view;
every message an anchor of its own; an HTML text keeps its leading newline; a subagent
not read is "not read" in the usage table, not "0 of 0"."""

from __future__ import annotations

import collections
import html
import json
import re
from pathlib import Path

from claude_code_writer import SESSION, CCWriter, story, tool_use
from codex_writer import RolloutWriter, message_payload

from session_core.export import export
from session_core.formats.claude_code.blocks import CLEARED


def test_an_elided_result_is_exported_as_the_model_is_sent_it(tmp_path: Path) -> None:
    path = story(tmp_path, torn=False)
    sent = [m["content"] for m in json.loads(export(path, "json"))["messages"]]
    assert CLEARED in sent  # (what replay says the model is sent)
    replayed, raw = export(path, "md"), export(path, "md", view="raw")
    assert CLEARED in replayed and "the model is sent this stub" in replayed
    assert CLEARED in raw and "\nstub:\n" in raw  # (the original, its stub beside it)
    assert "the stub:" not in raw  # (its label says "stub:": said once, not twice)
    assert CLEARED in html.unescape(export(path, "html"))
    # the call's answer previewed as it is sent too (it read "contents of c")
    called = [line for line in replayed.splitlines() if "result: line 37" in line]
    assert called and "contents of c" not in called[0]
    assert any("result: line 37: contents of c" in line for line in raw.splitlines())


def test_every_message_has_an_anchor_of_its_own(tmp_path: Path) -> None:
    """A Codex compaction's replacement history is several messages from one line: they
    shared one ``id`` in the HTML (six in a real rollout)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "first")
    w.message("assistant", "answer")
    history = [message_payload("user", f"kept {n}") for n in range(3)]
    w.compacted("summary", history)
    w.message("user", "after")
    page = export(tmp_path / "r.jsonl", "html")
    ids = collections.Counter(re.findall(r' id="([^"]+)"', page))
    assert ids and max(ids.values()) == 1, [k for k, v in ids.items() if v > 1]


def test_html_keeps_a_texts_leading_newline(tmp_path: Path) -> None:
    """An HTML parser drops one newline right after ``<pre>``: the export gives it one."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "\n\nTwo leading newlines")
    page = export(tmp_path / "r.jsonl", "html")
    assert "<pre" in page and "\n\n\nTwo leading newlines" in page


def test_a_subagent_not_read_is_not_read_in_the_usage_table(tmp_path: Path) -> None:
    path = story(tmp_path, torn=False)
    (tmp_path / SESSION / "subagents" / "agent-a1.jsonl").unlink()
    usage = export(path, "md").split("## Usage", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in usage.splitlines() if "subagent a1" in line)
    assert "not read" in row and "0 of 0" not in row


def test_the_header_gives_a_rollouts_git_and_its_last_time(tmp_path: Path) -> None:
    """A Codex rollout's ``git`` (commit, branch, remote) was left out as not a plain
    value; no header said when the session last wrote."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(git={"commit_hash": "abc123", "branch": "main", "nested": {"x": 1}})
    w.message("user", "hello")
    page = export(tmp_path / "r.jsonl", "md")
    head = page.split("\n## ", 1)[0]
    assert "git.commit\\_hash | abc123" in head and "git.branch | main" in head
    assert "nested" not in head
    assert "last line's time" in head


def test_a_users_words_beside_a_result_are_not_the_tools(tmp_path: Path) -> None:
    """A Claude Code user line holding a tool's result and the user's own words (typed
    while it ran): the export ran them into the result, as if the tool had said them."""
    from claude_code_writer import CCWriter, text, tool_use

    w = CCWriter()
    w.user("list it")
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")], stop="tool_use")
    w.user(
        [
            {"tool_use_id": "t1", "type": "tool_result", "content": "a.txt"},
            {"type": "text", "text": "and sort it too"},
        ]
    )
    w.assistant("m2", [text("done")], stop="end_turn")
    page = export(w.write(tmp_path / "s.jsonl"), "md")
    answer = page.split("### 3 · user", 1)[1].split("\n### ", 1)[0]
    fences = answer.split("```text\n")[1:]
    assert [f.split("\n```", 1)[0] for f in fences] == ["a.txt", "and sort it too"]
    assert "**text beside the result**" in answer


def test_an_elided_answer_sends_its_stub_alone(tmp_path: Path) -> None:
    """An elided result whose line has words of its own beside it: the model is sent the
    stub alone (``replay``'s content, no ``text``), so the replayed export shows no words
    beside it as if they were still sent."""
    from claude_code_writer import CCWriter, text, tool_use

    w = CCWriter()
    w.user("read it")
    w.assistant("m1", [tool_use("t1", "Read", file_path="a")], stop="tool_use")
    answer = w.user(
        [
            {"tool_use_id": "t1", "type": "tool_result", "content": "old contents"},
            {"type": "text", "text": "my own words"},
        ]
    )
    w.assistant("m2", [text("ok")], stop="end_turn")
    w.system(
        "microcompact_boundary",
        content="Context microcompacted",
        microcompactMetadata={"trigger": "auto", "preTokens": 9, "compactedToolIds": ["t1"]},
    )
    w.user("next")
    path = w.write(tmp_path / "s.jsonl")
    sent = {m["id"]: m for m in json.loads(export(path, "json"))["messages"]}
    assert sent[answer]["content"] == CLEARED and "text" not in sent[answer]
    replayed = export(path, "md")
    assert CLEARED in replayed and "text beside the result" not in replayed


def test_a_stubbed_then_folded_item_is_not_said_to_be_sent_its_stub(tmp_path: Path) -> None:
    """The raw export of an item an elision stubbed and a compaction then folded says the
    stub was sent before that, and that it is no longer sent (it said both "no longer
    sent" and "the model is sent a stub"); v1's as well as the model formats'. The
    compactions section says what each overlay did (an elision "stubbed", not "folds")."""
    from session_core import Message, Session
    from session_core.export import export

    path = tmp_path / "v1.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="go"))
        result = s.append_message(Message(role="tool", content="BIG RESULT", tool_call_id="c1"))
        s.append_elision([{"id": result, "stub": "[stub]"}])
        last = s.append_message(Message(role="assistant", content="done"))
        s.append_compaction("SUMMARY", last)
    raw = export(path, "md", "raw")
    assert "the model was sent the stub before that" in raw and "is sent the stub" not in raw
    w = CCWriter(version="1.0.80")
    w.user("read a")
    w.assistant("m1", [tool_use("t1", "Read", file_path="a")])
    w.result("t1", "ALPHA")
    w.microcompact(["t1"])
    w.user("go on")
    w.compact()
    cc = w.write(tmp_path / "cc.jsonl")
    raw = export(cc, "md", "raw")
    assert "elided before that: the model was sent a stub" in raw
    assert "the model is sent a stub" not in raw
    assert "elision at line 4: stubbed 1 item" in raw
    # each folded message names its compaction's line, as v1's and agentgo's do (it
    # said "folded by a compaction")
    from session_core import open_transcript

    (line,) = [c.line for c in open_transcript(cc).compactions if c.kind == "compaction"]
    said = f"folded by the compaction at line {line}: the model is no longer sent this"
    assert raw.count(said) >= 4, raw
