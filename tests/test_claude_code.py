"""The claude-code reader: generated fixtures (every line type) and the real samples."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import (
    HOSTILE,
    STORY_USAGE,
    SUBAGENT_USAGE,
    CCWriter,
    story,
    text,
    tool_use,
)
from helpers import SAMPLES

from session_core.errors import TranscriptError
from session_core.formats import by_name, detect_format, detect_record
from session_core.formats.claude_code import ClaudeCodeFormat
from session_core.line_warnings import unfinished_line

FMT = ClaudeCodeFormat()
PROJECTS = SAMPLES / "claude-code" / "projects"
SPOTTER = PROJECTS / "-home-u-spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
WORKTREES = PROJECTS / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"


def _sum(values: dict[str, tuple[int, int, int, int]], i: int) -> int:
    return sum(v[i] for v in values.values())


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return story(tmp_path / "projects" / "-work-proj")


def test_registered_and_detected(session: Path) -> None:
    assert detect_format(session) == "claude-code"
    assert by_name("claude-code").title == "Claude Code session"


@pytest.mark.parametrize(
    "record",
    [
        {"type": "session-meta", "v": 1, "id": "x"},
        {"type": "session_start", "session_id": "s", "seq": 0, "data": {}},
        {"timestamp": "t", "type": "session_meta", "payload": {}},
        {"timestamp": "t", "type": "response_item", "payload": {}},
        {"timestamp": "t", "type": "event_msg", "payload": {"sessionId": "x"}},
        {"type": "user"},
        {"no": "type"},
    ],
)
def test_claims_not_others(record: dict[str, object]) -> None:
    assert not FMT.claims(record)


@pytest.mark.parametrize(
    "record",
    [
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {"type": "summary", "summary": "t", "leafUuid": "u"},
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s"},
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": "s"},
        {"type": "progress", "uuid": "u", "sessionId": "s", "data": {}},
        {"type": "user", "uuid": "u", "sessionId": "s", "message": {}},
        {"type": "system", "uuid": "u", "sessionId": "s", "subtype": "x"},
        {"type": "a-type-from-next-year", "sessionId": "s"},
        {"type": "ai-title", "aiTitle": "t", "sessionId": "s"},
        {"type": "attribution-snapshot", "messageId": "m", "surface": "cli", "fileStates": {}},
        {"type": "speculation-accept", "timestamp": "t", "timeSavedMs": 120},
    ],
)
def test_claims_first_lines(record: dict[str, object]) -> None:
    assert FMT.claims(record)
    assert detect_record(record) == "claude-code"


def test_responses_split_lines_merged(session: Path) -> None:
    t = FMT.open(session, writer_alive=False)
    assert t.extra["responses"] == len(STORY_USAGE)
    first = next(i for i in t.raw if i.role == "assistant")
    assert first.lines == 3
    assert [p.kind for p in first.parts] == ["reasoning", "text", "tool-call"]
    assert first.parts[2].text == "ls -la"  # a Bash call shows its command
    assert first.usage is not None and first.usage.output_tokens == 50  # the last, largest


def test_tool_operations_states(session: Path) -> None:
    dead = {op.call_id: op for op in FMT.open(session, writer_alive=False).tool_operations}
    assert {k: op.state for k, op in dead.items()} == {
        "t1": "completed",
        "t2": "completed",
        "t3": "failed",
        "t4": "completed",
        "t5": "interrupted",
        "t6": "completed",
        "t7": "interrupted",
    }
    live = FMT.open(session, writer_alive=None).op_for_call("t7")
    assert live is not None and live.state == "running"
    assert live.progress == "running tests 2/3"
    assert dead["t2"].detail["structuredPatch"] == [{"lines": ["-a", "+b"]}]
    assert "originalFile" not in dead["t2"].detail
    assert dead["t1"].detail["stdout"] == "file-a\nfile-b"
    assert dead["t3"].result == "<tool_use_error>no such file</tool_use_error>"
    assert dead["t4"].subagent is not None and dead["t4"].subagent.endswith("agent-a1.jsonl")


def test_usage_not_double_counted(session: Path) -> None:
    t = FMT.open(session, writer_alive=False)
    assert t.usage.input_tokens == _sum(STORY_USAGE, 0)
    assert t.usage.output_tokens == _sum(STORY_USAGE, 1)  # no agent_progress copies
    assert t.usage.cache_read_tokens == _sum(STORY_USAGE, 2)
    assert t.usage.cache_write_tokens == _sum(STORY_USAGE, 3)
    assert t.usage.reported == len(STORY_USAGE)
    assert t.usage.cost is not None and t.usage.cost > 0
    [sub] = t.subagents
    assert sub.id == "a1" and sub.call_id == "t4" and sub.description == "explore"
    assert sub.usage.output_tokens == _sum(SUBAGENT_USAGE, 1)
    both = t.usage_with_subagents
    assert both is not None
    assert both.output_tokens == _sum(STORY_USAGE, 1) + _sum(SUBAGENT_USAGE, 1)
    assert t.to_json()["usage-with-subagents"]["output-tokens"] == both.output_tokens


def test_unknown_model_cost_unknown(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("hi")
    w.assistant(
        "m1", [text("yo")], usage={"input_tokens": 5, "output_tokens": 5}, model="mystery-1"
    )
    t = FMT.open(w.write(tmp_path / "s.jsonl"))
    assert t.usage.cost is None and t.usage.output_tokens == 5


def test_a_cost_the_writer_said_is_the_responses_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code 1.0.x wrote each response's cost on its line (``costUSD``): that is
    what it cost, where the price table knows no price too; split lines saying it again
    count it once, and one that says no number is priced from the table."""
    from claude_code_helpers import both

    w = CCWriter(version="1.0.17")
    w.user("hi")
    w.assistant("m1", [text("a"), text("b")], usage={"input_tokens": 5, "output_tokens": 5})
    w.assistant("m2", [text("c")], usage={"input_tokens": 5, "output_tokens": 5}, model="x-1")
    w.assistant("m3", [text("d")], usage={"input_tokens": 1000, "output_tokens": 10})
    for line, cost in zip(w.lines[1:], (0.25, 0.25, 0.5, "0.75"), strict=True):
        line["costUSD"] = cost  # (the last, a string, is no cost: the table's)
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    costs = [m.usage.cost if m.usage else None for m in t.messages if m.role == "assistant"]
    assert costs[:2] == [0.25, 0.5]
    assert costs[2] is not None and costs[2] < 0.1
    assert t.usage.cost == pytest.approx(0.75 + costs[2])
    assert t.usage.cost_reported == 3


def test_a_document_is_said_what_it_is_not_dumped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PDF read (a ``document`` block) was shown as 400 characters of its base64, where
    an image is a placeholder; a text document's text is its own."""
    from claude_code_helpers import both

    pdf = {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK" * 50}
    w = CCWriter()
    w.user("read it")
    m1 = w.assistant("m1", [tool_use("r1", "Read", file_path="/a.pdf")])
    w.result("r1", [{"type": "document", "source": pdf}], parent=m1[0])
    note = {"type": "text", "media_type": "text/plain", "data": "the notes"}
    w.user([{"type": "document", "source": note, "title": "notes.txt"}, text("and these")])
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    op = t.op_for_call("r1")
    assert op is not None and op.result == "[document application/pdf]"
    shown = [(p.kind, p.text) for p in t.messages[-1].parts]
    assert shown == [
        ("image", "[document text/plain: notes.txt]\nthe notes"),
        ("text", "and these"),
    ]
    assert "JVBERi0x" not in str([p.text for m in t.messages for p in m.parts])


def test_chain_after_compaction_and_branch(session: Path) -> None:
    t = FMT.open(session, writer_alive=False)
    texts = [m.text for m in t.messages]
    assert t.messages[0].kind == "compact-summary"
    assert "try B" in texts and "B it is" in texts
    assert "try A" not in texts and "A it is" not in texts
    assert HOSTILE not in texts  # folded by the compaction
    assert not any("sidechain" in x for x in texts)
    [compaction, elision] = t.compactions
    assert compaction.trigger == "auto" and compaction.tokens_before == 12345
    assert compaction.summary.startswith("This session is being continued")
    hostile = next(i for i in t.raw if i.text == HOSTILE)
    assert hostile.id in compaction.folded and "folded" in hostile.marks
    assert elision.kind == "elision" and elision.tokens_after == 3800
    answer = next(i for i in t.raw if i.id in elision.folded)
    assert "elided" in answer.marks and answer.parts[0].call_id == "t6"
    # what the model is sent in its place: the microcompact's stub, its call still named
    assert answer.stub == "[Old tool result content cleared]"
    assert answer.parts[0].text == "contents of c"  # (the file's, one key away)
    sent = next(m for m in FMT.replay_json(session)["messages"] if m["id"] == answer.id)
    assert sent["content"] == answer.stub and sent["tool-call-id"] == "t6"
    branch = [i.text for i in t.raw if "branch" in i.marks]
    assert branch == ["try A", "A it is"] and t.extra["branches"] == 1
    assert all("sidechain" in i.marks for i in t.raw if "sidechain" in i.text)


def test_raw_keeps_everything(session: Path) -> None:
    t = FMT.open(session, writer_alive=False)
    kinds = Counter(i.kind for i in t.raw)
    for kind in ("record", "hook", "progress", "meta", "command", "queued", "title", "system"):
        assert kinds[kind] >= 1, kind
    new = next(i for i in t.raw if i.parts and i.parts[0].name == "brand-new-thing")
    assert new.kind == "record" and new.parts[0].data is None
    line = session.read_bytes().split(b"\n")[new.line - 1]
    assert orjson.loads(line)["type"] == "brand-new-thing"  # the full line, by number
    # every line of the file is covered by some raw item, in file order
    covered = sum(i.lines for i in t.raw)
    assert covered == t.lines - 1  # the torn last line is a warning, not an item
    assert [i.line for i in t.raw] == sorted(i.line for i in t.raw)
    assert any(i.text == HOSTILE for i in t.raw)  # verbatim, escapes and all
    (warning,) = t.warnings  # (not "kept": no item holds it; what it began with is said)
    torn = session.read_bytes().rsplit(b"\n", 1)[1]
    assert warning == unfinished_line(t.lines, len(torn), torn)
    assert f"its {len(torn):,} bytes begin {torn[:40].decode()}" in warning
    assert t.meta["title"] == "My titled story" and t.meta["session-id"]
    assert t.meta["model"] == "claude-sonnet-4-5-20250929"


def test_runs(session: Path) -> None:
    t = FMT.open(session, writer_alive=False)
    states = [(r.state, (r.prompt or "")[:12]) for r in t.runs]
    assert states[0] == ("finished", HOSTILE[:12])
    assert t.runs[0].duration == 4.2
    assert ("aborted", "Explore the ") in states  # cut off by the user
    assert states[-1] == ("interrupted", "last prompt")  # the writer is gone
    assert FMT.open(session).runs[-1].state == "running"
    assert sum(r.usage.output_tokens or 0 for r in t.runs) == _sum(STORY_USAGE, 1) - 7


def test_crlf_same_as_lf(tmp_path: Path) -> None:
    a = FMT.open(story(tmp_path / "a", torn=False), writer_alive=False)
    b = FMT.open(story(tmp_path / "b", crlf=True, torn=False), writer_alive=False)
    assert [m.to_json() for m in a.messages] == [m.to_json() for m in b.messages]
    assert b.warnings == [] and len(b.tool_operations) == 7


def test_live_batches_match_whole(session: Path) -> None:
    whole = FMT.open(session, writer_alive=False)
    builder = FMT.builder(str(session))
    lines = session.read_bytes().split(b"\n")[:-1]
    for number, raw in enumerate(lines, 1):
        builder.feed(orjson.loads(raw), number)
        if number % 5 == 0:
            builder.transcript(None)  # a live view asks after every batch
    live = builder.transcript(False)
    assert [m.to_json() for m in live.messages] == [m.to_json() for m in whole.messages]
    assert [o.to_json() for o in live.tool_operations] == [
        o.to_json() for o in whole.tool_operations
    ]


def test_read_only(session: Path) -> None:
    files = [session, *session.with_suffix("").rglob("*.jsonl")]
    before = {p: (p.read_bytes(), os.stat(p)) for p in files}
    FMT.open(session)
    FMT.replay_json(session)
    FMT.check(session)
    for p, (data, was) in before.items():
        now = os.stat(p)
        assert p.read_bytes() == data
        assert (now.st_ino, now.st_mtime_ns, now.st_size) == (
            was.st_ino,
            was.st_mtime_ns,
            was.st_size,
        )


def test_discover(session: Path) -> None:
    found = FMT.discover(str(session.parent.parent))
    assert found == [str(session)]  # the subagent file is not a session
    assert FMT.discover(str(session.parent)) == [str(session)]


def test_subagent_file_alone(session: Path) -> None:
    sub = session.with_suffix("") / "subagents" / "agent-a1.jsonl"
    t = FMT.open(sub, writer_alive=False)
    assert len(t.messages) == 4 and t.subagents == []
    assert [op.state for op in t.tool_operations] == ["completed"]


def test_cycle_and_missing_parent(tmp_path: Path) -> None:
    w = CCWriter()
    a = w.user("one", parent="nowhere")
    b = w.assistant("m1", [text("two")], usage={"output_tokens": 1})[0]
    w.lines[0]["parentUuid"] = b  # a cycle: one -> two -> one
    t = FMT.open(w.write(tmp_path / "c.jsonl"))
    assert {m.text for m in t.messages} == {"one", "two"}
    assert a


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_damage(tmp_path: Path, data: st.DataObject) -> None:
    base = story(tmp_path / "fuzz")
    raw = bytearray(base.read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    damaged = tmp_path / "fuzz" / "damaged.jsonl"
    damaged.write_bytes(bytes(raw))
    try:
        t = FMT.open(damaged, writer_alive=False)
        t.to_json()
    except TranscriptError:
        pass


# -- the real sessions in ../shared/samples (skipped where absent) --------------------

needs_samples = pytest.mark.skipif(not SPOTTER.is_file(), reason="../shared/samples is absent")


@needs_samples
def test_sample_spotter() -> None:
    assert detect_format(SPOTTER) == "claude-code"
    t = FMT.open(SPOTTER, writer_alive=False)
    assert t.lines == 1512 and t.warnings == []
    assert t.extra["line-types"]["assistant"] == 254
    assert t.extra["responses"] == 139 and t.usage.reported == 139
    assert sum(t.extra["progress"].values()) == 1083
    assert len(t.tool_operations) == 150
    assert all(op.result_line is not None for op in t.tool_operations)
    assert Counter(op.state for op in t.tool_operations) == {"completed": 145, "failed": 5}
    [compaction] = t.compactions
    assert compaction.trigger == "auto" and compaction.tokens_before == 170251
    assert compaction.summary.startswith("This session is being continued")
    assert t.messages[0].kind == "compact-summary" and len(t.messages) == 161
    assert sum(1 for i in t.raw if i.kind == "queued") == 1
    assert {s.id for s in t.subagents} == {"a2898e3", "acompact-e1f845"}
    task = next(op for op in t.tool_operations if op.tool == "Task")
    assert task.subagent is not None and task.subagent.endswith("agent-a2898e3.jsonl")
    assert [r.state for r in t.runs] == ["finished"] * 3
    assert t.meta["version"] == "2.1.39" and t.meta["model"] == "claude-opus-4-6"


@needs_samples
def test_sample_worktrees() -> None:
    t = FMT.open(WORKTREES, writer_alive=False)
    assert t.lines == 180 and t.warnings == []
    assert len(t.tool_operations) == 40
    types = t.extra["line-types"]
    for kind in ("attachment", "permission-mode", "last-prompt"):
        assert types[kind] >= 1
    assert any(i.parts and i.parts[0].name == "away_summary" for i in t.raw)
    linked = [s for s in t.subagents if s.path]
    assert [s.id for s in linked] == ["a4ca7529859c158c2"]
    assert linked[0].description == "Research Claude Code plan mode"
    assert linked[0].usage.reported > 0
    assert all(op.state == "completed" for op in t.tool_operations)
    assert t.meta["version"] == "2.1.114"


@needs_samples
def test_sample_discover() -> None:
    found = FMT.discover(str(PROJECTS))
    assert found is not None and sorted(found) == sorted([str(SPOTTER), str(WORKTREES)])


def test_subagents_over_the_bound_one_warning(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Subagent files past the bound are linked but not read, said once, not per file."""
    from session_core.formats.claude_code import subagents

    folder = session.with_suffix("") / "subagents"
    for n in range(4):
        (folder / f"agent-extra{n}.jsonl").write_bytes((folder / "agent-a1.jsonl").read_bytes())
    monkeypatch.setattr(subagents, "MAX_FILES", 2)
    t = FMT.open(session, writer_alive=False)
    assert len([s for s in t.subagents if s.path]) == 5
    assert [s.messages > 0 for s in t.subagents if s.path].count(True) == 2
    bound = [w for w in t.warnings if "over the bound" in w]
    assert bound == [
        "3 subagent files not read for usage (over the bound of 2 files and 1024 MB a session)"
    ]
    # the total with them says how many it counts (not "5 subagents": 3 were not read)
    assert [s.counted for s in t.subagents if s.path].count(True) == 2
    assert len(t.subagents) == 5 and t.subagents_text() == "2 of 5 subagents"
    both = t.usage_with_subagents
    assert both is not None and both.reported == t.usage.reported + sum(
        s.usage.reported for s in t.subagents if s.counted and not s.in_file
    )
    assert [s.to_json()["usage-counted"] for s in t.subagents] == [s.counted for s in t.subagents]
    # Not read: its messages unknown in the JSON, not 0 (the Markdown said "not read").
    assert [s.to_json()["messages"] is None for s in t.subagents] == [
        not s.counted for s in t.subagents
    ]


def test_check_note_spells_out_few_warnings(tmp_path: Path) -> None:
    from session_core.formats.check_note import NOTE_WARNINGS, check_note
    from session_core.model import Transcript

    t = Transcript(format="claude-code", path=str(tmp_path / "x.jsonl"))
    t.warnings = [f"warning number {n}" for n in range(NOTE_WARNINGS + 3)]
    note = check_note(t)
    assert note.count("; warning: ") == NOTE_WARNINGS
    assert note.endswith("; and 3 more warnings")
    t.warnings = t.warnings[:1]
    assert check_note(t).endswith("; warning: warning number 0")
