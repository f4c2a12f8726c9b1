"""The claude-code reader on shapes of other Claude Code versions than our samples.

Each test writes the shape with our own writer (``claude_code_writer``): 1.0.x files
whose responses never say ``stop_reason``, a compaction that keeps its last messages
(``preservedSegment``), 2.0.x subagent files beside the session, a prompt queued while
the model was busy (``queued_command`` attachment), a slash command as the title.
Every test reads the file both ways (msgspec's typed lines and orjson's dicts).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, text, tool_use, usage
from helpers import SAMPLES

from session_core.vocabulary import kinds_of
from viewer.widgets.item_jumps import is_what

SPOTTER = "claude-code/projects/-home-u-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def test_runs_without_stop_reason_end_with_a_text_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.0.x (and 2.1.39) write ``stop_reason: null`` on every line and no turn_duration:
    a turn whose last response only talks has ended, once the writer is gone."""
    w = CCWriter(version="1.0.98")
    w.user("first prompt")
    w.assistant("m1", [text("looking"), tool_use("t1", "Bash", command="ls")], usage=usage(3, 9))
    w.result("t1", "a.py")
    w.assistant("m2", [text("there is a.py")], usage=usage(4, 5))
    w.user("second prompt")
    w.assistant("m3", [text("on it"), tool_use("t2", "Read", file_path="a.py")])
    w.result("t2", "print(1)")
    w.assistant("m4", [text("it prints 1")], usage=usage(5, 6))
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [r.state for r in t.runs] == ["finished", "finished"]
    assert t.runs[-1].end_line == len(w.lines)
    # no turn_duration: a finished turn took from its prompt to its last line
    assert [r.duration for r in t.runs] == [4.0, 4.0]
    # while the writer may still be at it, the next block of the response may follow
    assert FMT.open(path, writer_alive=True).runs[-1].state == "running"


def test_a_real_turn_without_stop_reason_that_talked_last_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 2.1.39 sample says ``stop_reason: null`` on every line; the turn its writer
    ended (Stop hooks, ``turn_duration``) ends on a response that talks and calls
    nothing. Cut before those lines, its writer gone, the turn is finished, as the README
    says (it said *aborted*: no one stopped it); cut at a call, interrupted."""
    source = SAMPLES / SPOTTER
    if not source.is_file():
        pytest.skip("the samples are not here")
    lines = source.read_bytes().splitlines(keepends=True)
    ends = {}
    for cut in (1495, 1501, 802):  # talked last; its turn_duration; a Read call
        path = tmp_path / f"cut-{cut}.jsonl"
        path.write_bytes(b"".join(lines[:cut]))
        ends[cut] = both(path, monkeypatch).runs[-1].state
        assert FMT.open(path, writer_alive=True).runs[-1].state == (
            "finished" if cut == 1501 else "running"
        )
    assert ends == {1495: "finished", 1501: "finished", 802: "interrupted"}
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    assert (
        "a last turn with no `turn_duration` after it is *finished* where its last response"
        " calls no tool" in readme
    )
    assert "where a last response calls no tool once the writer is gone" not in readme


@pytest.mark.parametrize("cut", ["call", "result"])
def test_runs_without_stop_reason_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: str
) -> None:
    """A turn that stopped at a call, or after its result, was not finished."""
    w = CCWriter(version="1.0.17")
    w.user("a prompt")
    w.assistant("m1", [text("running"), tool_use("t1", "Bash", command="make")])
    if cut == "result":
        w.result("t1", "ok")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [r.state for r in t.runs] == ["interrupted"]


def _preserved(w: CCWriter, *, anchor: str) -> dict[str, str]:
    """A session compacted while keeping its last exchange (late 2.1.x, ``messagesToKeep``):
    the kept lines stay where they were written, before the boundary, and the boundary's
    ``preservedSegment`` says to hang its head on the anchor (the summary, or the
    boundary itself); later lines continue from its tail."""
    ids: dict[str, str] = {}
    ids["u1"] = w.user("old prompt")
    ids["a1"] = w.assistant("m1", [text("old answer")], usage=usage(100, 10), stop="end_turn")[0]
    ids["u2"] = w.user("kept prompt")
    ids["a2"] = w.assistant("m2", [text("kept answer")], usage=usage(200, 20), stop="end_turn")[0]
    boundary = w.env("system", None, subtype="compact_boundary", content="Conversation compacted")
    ids["b"] = str(boundary["uuid"])
    ids["s"] = w.user(
        "This session is being continued from a previous conversation. Summary: old stuff.",
        isCompactSummary=True,
    )
    head_on = ids["s"] if anchor == "summary" else ids["b"]
    boundary["logicalParentUuid"] = ids["a2"]
    boundary["compactMetadata"] = {
        "trigger": "auto",
        "preTokens": 5000,
        "preservedSegment": {"headUuid": ids["u2"], "anchorUuid": head_on, "tailUuid": ids["a2"]},
    }
    ids["u3"] = w.user("new prompt", parent=ids["a2"])
    ids["a3"] = w.assistant("m3", [text("new answer")], usage=usage(30, 3), stop="end_turn")[0]
    return ids


@pytest.mark.parametrize("anchor", ["summary", "boundary"])
def test_compaction_keeps_its_preserved_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, anchor: str
) -> None:
    w = CCWriter(version="2.1.200")
    ids = _preserved(w, anchor=anchor)
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    sent = [m.text for m in t.messages]
    assert sent == [
        "This session is being continued from a previous conversation. Summary: old stuff.",
        "kept prompt",
        "kept answer",
        "new prompt",
        "new answer",
    ]
    (c,) = t.compactions
    assert c.folded == [ids["u1"], ids["a1"]]
    assert c.kept == [ids["s"], ids["u2"], ids["a2"]]
    marks = {i.id: i.marks for i in t.raw}
    assert "folded" in marks[ids["u1"]] and "folded" not in marks[ids["u2"]]
    assert t.usage.output_tokens == 33  # every response once, the kept ones too
    assert [r.state for r in t.runs][-1] == "finished"
    # followed live, a line at a time, it ends the same
    builder = FMT.builder(str(tmp_path / "s.jsonl"))
    for number, line in enumerate(w.lines, 1):
        builder.feed(line, number)
        builder.transcript(None)
    live = builder.transcript(False)
    assert [m.to_json() for m in live.messages] == [m.to_json() for m in t.messages]
    assert [c.to_json() for c in live.compactions] == [c.to_json() for c in t.compactions]


def test_preserved_segment_whose_head_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A head the file does not have: the compaction reads as one without a kept segment."""
    w = CCWriter(version="2.1.200")
    ids = _preserved(w, anchor="summary")
    w.lines[[line.get("uuid") for line in w.lines].index(ids["b"])]["compactMetadata"][
        "preservedSegment"
    ]["headUuid"] = "not-in-this-file"
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert t.compactions[0].kept == [ids["s"]]
    assert [m.text for m in t.messages][-2:] == ["new prompt", "new answer"]


@pytest.mark.parametrize("where", ["projects", "copied-out"])
def test_subagent_files_beside_the_session(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2.0.x wrote a subagent's file beside its session's, ``<project>/agent-<id>.jsonl``
    (every line a sidechain line naming the parent's sessionId), not in ``subagents/``;
    a project folder copied out of ``~/.claude/projects`` (``copied-out``) is read alike."""
    from session_core import scan

    folder = tmp_path / where / "-work-proj"
    session = "5e55e55e-0000-4000-8000-00000000000a"
    w = CCWriter(session, version="2.0.28")
    w.user("find the bug")
    w.assistant("m1", [tool_use("t1", "Task", description="Hunt the bug", prompt="hunt")])
    w.result(
        "t1",
        [text("found it in a.py")],
        tool_use_result={"status": "completed", "agentId": "1f2e3d4c", "totalTokens": 55},
    )
    w.assistant("m2", [text("it is in a.py")], stop="end_turn")
    path = w.write(folder / f"{session}.jsonl")
    for agent, owner in (("1f2e3d4c", session), ("0a0b0c0d", session), ("99999999", "other")):
        sub = CCWriter(owner, version="2.0.28", agent_id=agent)
        sub.user("hunt", parent=None)
        sub.assistant("s-" + agent, [text("done")], usage=usage(1, 40), stop="end_turn")
        sub.write(folder / f"agent-{agent}.jsonl")
    t = both(path, monkeypatch)
    (op,) = t.tool_operations
    assert op.subagent == str(folder / "agent-1f2e3d4c.jsonl")
    # the linked one with its call, then the session's own agent named nowhere; the
    # other session's agent file beside it is not this session's
    assert [(s.id, s.call_id, s.messages) for s in t.subagents] == [
        ("1f2e3d4c", "t1", 2),
        ("0a0b0c0d", None, 2),
    ]
    assert t.usage_with_subagents is not None
    assert t.usage_with_subagents.output_tokens == 80
    # they are not sessions of their own (in ``~/.claude/projects``: elsewhere, told by
    # name alone, an agent file is a row of its own)
    if where == "projects":
        assert FMT.discover(str(folder.parent)) == [str(path)]
        assert scan.part_of_another(str(folder / "agent-1f2e3d4c.jsonl"))
    assert not scan.part_of_another(str(path))
    workflow = folder / session / "subagents" / "workflows" / "wf_1" / "agent-a9.jsonl"
    assert scan.part_of_another(str(workflow))  # later 2.1.x nest a workflow's agents
    # a subagent file opened by itself lists no siblings as its own
    alone = FMT.open(folder / "agent-1f2e3d4c.jsonl", writer_alive=False)
    assert alone.subagents == [] and len(alone.messages) == 2
    assert alone.usage_with_subagents is None  # (its siblings' usage is not its own)


def test_prompt_queued_while_busy_is_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Later 2.1.x deliver a prompt typed while the model works as a ``queued_command``
    attachment on the chain (no user line): the model answers it, so it is sent."""
    w = CCWriter(version="2.1.221")
    w.user("build it")
    w.assistant("m1", [tool_use("t1", "Bash", command="make")], usage=usage(5, 5))
    w.result("t1", "built")
    w.bare({"type": "queue-operation", "operation": "enqueue", "content": "and test it"})
    queued = w.env(
        "attachment",
        attachment={
            "type": "queued_command",
            "prompt": "and test it",
            "commandMode": "prompt",
            "origin": {"kind": "human"},
        },
    )
    w.assistant("m2", [tool_use("t2", "Bash", command="make test")], usage=usage(6, 6))
    w.result("t2", "ok")
    w.assistant("m3", [text("built and tested")], usage=usage(7, 7), stop="end_turn")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    sent = [(m.role, m.kind, m.text) for m in t.messages if m.text]
    assert ("user", "queued", "and test it") in sent
    item = next(i for i in t.raw if i.id == queued["uuid"])
    assert (item.role, item.kind, item.marks) == ("user", "queued", [])
    assert [r.state for r in t.runs] == ["finished"]  # it joined the turn, not a new one
    assert len(t.raw) == len(w.lines)  # every line kept


def test_an_id_used_again_after_a_prompt_is_another_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A response's lines come within its turn, so the same ``message.id`` after a new
    prompt is another response: a redacted file gives every response one placeholder
    id. The second answer was glued into the first, before the second prompt, its
    turn read as interrupted and the two's usage mixed (1 response reported)."""
    w = CCWriter(version="2.1.152")
    w.user("first prompt")
    w.assistant("[REDACTED]", [text("first answer")], usage=usage(5, 16), stop="end_turn")
    w.user("second prompt")
    w.assistant(
        "[REDACTED]",
        [text("looking"), text("second answer")],
        usage=usage(7, 9),
        stop="end_turn",
    )
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    said = [(m.role, m.text) for m in t.messages]
    assert [role for role, _ in said] == ["user", "assistant", "user", "assistant"]
    assert said[1][1] == "first answer" and "second answer" in said[3][1]
    assert [r.state for r in t.runs] == ["finished", "finished"]
    assert (t.usage.reported, t.usage.input_tokens, t.usage.output_tokens) == (2, 12, 25)
    # Each turn its own response's usage; within a turn the split lines are still one
    # response (the early line's partial output is not added).
    assert [(r.usage.input_tokens, r.usage.output_tokens) for r in t.runs] == [(5, 16), (7, 9)]


COMMAND_1_0 = (
    "<command-message>init is analyzing your codebase…</command-message>\n"
    "<command-name>/init</command-name>"
)
COMMAND_2_1 = (
    "<command-name>/review</command-name>\n<command-message>review</command-message>\n"
    "<command-args>the auth module</command-args>"
)


@pytest.mark.parametrize(
    ("first", "then", "title"),
    [
        (COMMAND_1_0, "now write the program", "/init"),
        (COMMAND_1_0, None, "/init"),
        (
            "<command-message>init is…</command-message>\n<command-name>init</command-name>",
            None,
            "/init",
        ),
        (COMMAND_2_1, None, "/review the auth module"),
        ("<bash-input>ls</bash-input>", None, "! ls"),
    ],
)
def test_title_of_a_session_started_by_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str, then: str | None, title: str
) -> None:
    """With no summary or custom title, a session is named by its first prompt, a slash
    command or a bash-mode line as it was typed (not its XML wrapper)."""
    w = CCWriter(version="1.0.17")
    w.user(first)
    w.assistant("m1", [text("done")], stop="end_turn")
    if then is not None:
        w.user(then)
        w.assistant("m2", [text("written")], stop="end_turn")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert t.meta["title"] == title
    # Its run's prompt too, in the Runs table and the replay's JSON.
    assert t.runs[0].prompt == title


def test_a_command_run_prompt_keeps_its_arguments_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The title is a first line, cut; the run's prompt is the command as typed, whole."""
    args = "line one\nline two " + "x" * 200
    w = CCWriter(version="2.1.39")
    w.user(f"<command-name>/review</command-name>\n<command-args>{args}</command-args>")
    w.assistant("m1", [text("done")], stop="end_turn")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert t.runs[0].prompt == f"/review {args}"
    assert t.meta["title"] == "/review line one"


@pytest.mark.parametrize("leaf", ["here", "elsewhere", "none"])
def test_summary_titles_the_session_whose_leaf_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, leaf: str
) -> None:
    """1.0.x wrote, at a new session's start, the summary of the previous session (its
    ``leafUuid`` a line of the other file): that is the other session's title."""
    w = CCWriter(version="1.0.17")
    w.bare({"type": "summary", "summary": "The previous session", "leafUuid": "not-here"})
    w.user("push to github")
    last = w.assistant("m1", [text("pushed")], stop="end_turn")[-1]
    line: dict[str, str] = {"type": "summary", "summary": "This session"}
    if leaf != "none":
        line["leafUuid"] = last if leaf == "here" else "not-here-either"
    w.bare(line)
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert t.meta["title"] == ("push to github" if leaf == "elsewhere" else "This session")
    # kept as title lines, not as compaction summaries (the neutral model's "summary")
    assert [i.text for i in t.raw if i.kind == "title"] == [
        "The previous session",
        "This session",
    ]
    # a file of summaries alone (1.0.x wrote some), each of another file's line, has no
    # title of its own (it was given its last: the other session's title), and says so
    only = CCWriter(version="1.0.17")
    only.bare({"type": "summary", "summary": "Another session", "leafUuid": "not-here"})
    alone = both(only.write(tmp_path / "o.jsonl"), monkeypatch)
    assert "title" not in alone.meta
    assert alone.extra["untitled"] == "summaries of other sessions"
    assert "untitled" not in t.extra


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        ({"status": 529, "message": "overloaded"}, "api_error: 529 overloaded (retry 1/10)"),
        (
            {"status": 503, "error": {"type": "x", "message": "limit reached"}},
            "api_error: 503 limit reached (retry 1/10)",
        ),
        ({"cause": {"code": "FailedToOpenSocket"}}, "api_error: FailedToOpenSocket (retry 1/10)"),
        ("a string", "api_error: a string (retry 1/10)"),
    ],
)
def test_api_error_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: object, shown: str
) -> None:
    """A retried API call's system line (``api_error``) says its status and message."""
    w = CCWriter(version="2.1.90")
    w.user("hello")
    w.system("api_error", level="error", error=error, retryInMs=500, retryAttempt=1, maxRetries=10)
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert t.raw[-1].text == shown


def test_an_api_error_is_an_error_line_e_stops_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system line that says something went wrong (``api_error``, a notice at level
    error) is an error line: ``e`` stops at it; other system lines are not."""
    w = CCWriter(version="2.1.90")
    w.user("hello")
    w.system("api_error", level="error", error={"status": 529}, retryAttempt=1, maxRetries=10)
    w.system("informational", level="error", content="Hook failed")
    w.system("informational", level="info", content="All good")
    w.system("turn_duration", durationMs=1200)
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    errors = [i.text for i in t.raw if is_what("error", i, {}, kinds_of(t.format))]
    assert errors == ["api_error: 529 (retry 1/10)", "informational: Hook failed"]
    assert [i.kind for i in t.raw[-4:]] == ["error", "error", "system", "system"]


def test_a_damaged_line_within_the_file_is_kept_raw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line that is not a JSON object (two writers interleaved, a crash mid-line, a
    value that is not an object) is kept in the raw view where it was; only the last
    line, which may still be being written, is a warning alone."""
    w = CCWriter(version="1.0.24")
    w.user("hello")
    w.bare({"type": "placeholder"})
    w.assistant("m1", [text("hi")], stop="end_turn")
    w.bare({"type": "placeholder"})
    w.bare({"type": "placeholder"})
    w.user("bye")
    path = w.write(tmp_path / "s.jsonl", torn=b'{"type":"user","uuid":"tor')
    lines = path.read_bytes().split(b"\n")
    lines[1], lines[3], lines[4] = b'{"type":"assistant","uu{"type":"user"}', b'"a string"', b"[1]"
    path.write_bytes(b"\n".join(lines))
    t = both(path, monkeypatch)
    assert [(i.line, i.kind) for i in t.raw] == [
        (1, "message"),
        (2, "record"),
        (3, "message"),
        (4, "record"),
        (5, "record"),
        (6, "message"),
    ]
    assert (
        t.raw[1].text == "" and t.raw[1].parts[0].text == '{"type":"assistant","uu{"type":"user"}'
    )
    assert len(t.warnings) == 4 and t.lines == 7
    assert [m.text for m in t.messages] == ["hello", "hi", "bye"]


def test_in_file_sidechain_calls_are_operations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.0.x wrote a Task's subagent into the session's own file (``isSidechain``): its
    tool calls are operations too (marked sidechain), paired with their results."""
    w = CCWriter(version="1.0.98")
    w.user("make the app")
    w.assistant("m1", [tool_use("t1", "Task", description="Build it", prompt="build the app")])
    task = w.last
    side = w.user("build the app", parent=None, sidechain=True)
    w.assistant("s1", [tool_use("st1", "Bash", command="npm init")], parent=side, sidechain=True)
    w.lines[-1]["message"]["usage"] = usage(1, 2)
    w.user([{"type": "tool_result", "tool_use_id": "st1", "content": "ok"}], sidechain=True)
    w.assistant("s2", [tool_use("st2", "Bash", command="npm test")], sidechain=True)
    w.result("t1", [text("built")], parent=task, tool_use_result={"totalTokens": 9})
    w.assistant("m2", [text("the app is built")], stop="end_turn")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    ops = {op.call_id: (op.state, op.sidechain) for op in t.tool_operations}
    assert ops == {
        "t1": ("completed", False),
        "st1": ("completed", True),
        "st2": ("interrupted", True),  # the subagent stopped before its result
    }
    assert [r.state for r in t.runs] == ["finished"]
    assert len(t.messages) == 4  # the sidechain is not on the chain the model is sent


def test_a_subagent_file_has_its_own_turn_and_compactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subagent's own file (every line a sidechain line) is read as a session of its
    own: its prompt starts a turn, and a compaction in it (long subagents compact too)
    is one, its summary kept."""
    sub = CCWriter(version="2.1.114", agent_id="a77")
    sub.user("survey the repo", parent=None)
    sub.assistant("s1", [tool_use("st1", "Grep", pattern="x")], usage=usage(1, 2))
    sub.result("st1", "x.py:1")
    boundary = sub.system("compact_boundary", parent=None, content="Conversation compacted")
    sub.lines[-1]["compactMetadata"] = {"trigger": "auto", "preTokens": 900}
    summary = sub.user(
        "This session is being continued from a previous conversation. Summary: grep.",
        isCompactSummary=True,
    )
    sub.assistant("s2", [text("x.py holds it")], usage=usage(3, 4), stop="end_turn")
    t = both(sub.write(tmp_path / "s" / "subagents" / "agent-a77.jsonl"), monkeypatch)
    assert [(r.state, r.prompt) for r in t.runs] == [("finished", "survey the repo")]
    (c,) = t.compactions
    assert (c.id, c.kept, c.tokens_before) == (boundary, [summary], 900)
    assert [m.text for m in t.messages][-1] == "x.py holds it"
    assert t.meta["title"] == "survey the repo"


def test_ai_title_names_the_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Later 2.1.x write the title they make up as ``ai-title`` lines (the latest wins);
    a title the user gave (``custom-title``) wins over it, and it over a summary line."""
    w = CCWriter(version="2.1.150")
    w.user("fix the parser")
    w.bare({"type": "ai-title", "aiTitle": "Parser fix", "sessionId": w.session})
    last = w.assistant("m1", [text("fixed")], stop="end_turn")[-1]
    w.bare({"type": "summary", "summary": "A summary", "leafUuid": last})
    w.bare({"type": "ai-title", "aiTitle": "Fix the parser race", "sessionId": w.session})
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert t.meta["title"] == "Fix the parser race"
    assert [i.text for i in t.raw if i.kind == "title"] == [
        "Parser fix",
        "A summary",
        "Fix the parser race",
    ]
    w.bare({"type": "custom-title", "customTitle": "My name for it", "sessionId": w.session})
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert t.meta["title"] == "My name for it"
    assert t.raw[-1].kind == "title" and t.raw[-1].text == "My name for it"
