"""The claude-code reader's tool calls and turns left unfinished: a turn the user cut
short, a call cut off or left unanswered, a line answering two calls, and every read path
telling a call without a result alike. Each file written with our own writer
(``claude_code_writer``) and read both ways (``claude_code_helpers.both``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, text, tool_use


def test_a_turn_the_user_cut_short_is_aborted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "[Request interrupted by user…]" ends a turn the user stopped (Codex's turn_aborted):
    aborted, not interrupted (the word for a writer that died), so a browser row of a
    session the user stopped once is not 'crashed'."""
    from session_core.scan import scan_file

    w = CCWriter(version="1.0.17")
    w.user("push to github")
    w.assistant("m1", [tool_use("t1", "Bash", command="git push")])
    w.result("t1", "The user doesn't want to proceed with this tool use.", is_error=True)
    w.user([text("[Request interrupted by user for tool use]")])
    w.user("continue")
    w.assistant("m2", [text("pushed")])
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [r.state for r in t.runs] == ["aborted", "finished"]
    aborted = t.runs[0]  # (how long it took: to its last line, as a finished one's)
    assert aborted.ended is not None and aborted.duration is not None and aborted.duration > 0
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)  # the writer long gone
    row = scan_file(path)
    assert (row.status, row.reason) == ("finished", None)


def test_a_call_the_user_interrupted_is_no_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc during a call: its result says it was interrupted (``toolUseResult.interrupted``),
    and the session goes on. The call is interrupted, but answered: the browser's row of a
    session whose writer is gone is finished, not "crashed: 1 tool call without a result"."""
    from session_core.scan import scan_file

    w = CCWriter()
    w.user("run the tests")
    w.assistant("m1", [tool_use("t1", "Bash", command="pytest")])
    w.result(
        "t1",
        "[Request interrupted by user for tool use]",
        is_error=True,
        tool_use_result={"stdout": "", "stderr": "", "interrupted": True, "isImage": False},
    )
    w.user([text("[Request interrupted by user for tool use]")])
    w.user("just run the fast ones")
    w.assistant("m2", [text("done")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [(op.state, op.result_line is not None) for op in t.tool_operations] == [
        ("interrupted", True)
    ]
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)  # the writer long gone
    row = scan_file(path)
    assert (row.status, row.reason, row.pending) == ("finished", None, 0)


def test_a_compact_summary_without_a_boundary_is_a_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Versions before ``compact_boundary`` started the chain again at the summary itself
    (``isCompactSummary``, no parent): what came before is folded by it, not a branch."""
    w = CCWriter(version="1.0.24")
    u1 = w.user("old prompt")
    a1 = w.assistant("m1", [text("old answer")], stop="end_turn")[0]
    summary = w.user(
        "This session is being continued from a previous conversation. Summary: old.",
        parent=None,
        isCompactSummary=True,
    )
    w.user("new prompt")
    w.assistant("m2", [text("new answer")], stop="end_turn")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [m.text for m in t.messages][1:] == ["new prompt", "new answer"]
    (c,) = t.compactions
    assert (c.id, c.folded, c.kept, c.line) == (summary, [u1, a1], [summary], 3)
    assert c.summary.startswith("This session is being continued")
    marks = {i.id: i.marks for i in t.raw}
    assert marks[u1] == ["folded"] and marks[a1] == ["folded"]
    assert t.extra["branches"] == 0


def test_a_line_answering_two_calls_beside_text_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user line with two tool results and a text block: the replay names both calls
    and keeps the text, each call's result is its own, and the one ``toolUseResult`` is
    no single call's detail."""
    from session_core.export import export

    w = CCWriter()
    w.user("read both")
    w.assistant(
        "m1", [tool_use("R1", "Read", file_path="/a"), tool_use("R2", "Read", file_path="/b")]
    )
    w.user(
        [
            {"type": "tool_result", "tool_use_id": "R1", "content": "AAA"},
            {"type": "tool_result", "tool_use_id": "R2", "content": "EISDIR", "is_error": True},
            text("hook says: remember to lint"),
        ],
        toolUseResult={"type": "text", "file": {"filePath": "/a", "content": "AAA"}},
    )
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    row = t.messages[-1].to_json()
    assert (row["tool-call-id"], row["tool-call-ids"]) == ("R1", ["R1", "R2"])
    assert (row["content"], row["text"]) == ("AAA\nEISDIR", "hook says: remember to lint")
    ops = {op.call_id: op for op in t.tool_operations}
    assert (ops["R1"].state, ops["R1"].result, ops["R1"].detail) == ("completed", "AAA", None)
    assert (ops["R2"].state, ops["R2"].result, ops["R2"].detail) == ("failed", "EISDIR", None)
    replayed = FMT.replay_json(path)
    assert [op.get("detail") for op in replayed["tool-operations"]] == [None, None]
    assert replayed["messages"][-1] == row
    md = export(path, "md")
    assert "result: line 4: AAA" in md and "result: line 4: EISDIR" in md  # (m1: 2 lines)


def test_a_call_without_a_result_is_told_alike_by_every_read_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose writer is long gone: the call it left without a result is
    interrupted in the replay, the check, the exports and the diff alike (check, export
    and diff read the writer's liveness as the replay does)."""
    from session_core.export import export

    w = CCWriter()
    w.user("build it")
    w.assistant("m1", [text("Building."), tool_use("t1", "Bash", command="make")])
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (path.stat().st_mtime - 7200,) * 2)
    assert [op["state"] for op in FMT.replay_json(path)["tool-operations"]] == ["interrupted"]
    [run] = FMT.open(path, writer_alive=False).runs
    assert run.state == "interrupted"
    assert (run.end_line, run.ended) == (len(w.lines), w.lines[-1]["timestamp"])
    assert run.duration is not None  # (to its last line, as any run's)
    said = "1 tool operation, 1 tool call without a result, 1 run not finished, usage "
    assert said in FMT.check(path)
    for kind in ("md", "html"):
        shown = export(path, kind)
        assert "interrupted" in shown and "running" not in shown, kind


def test_a_turn_a_later_prompt_cut_off_took_to_its_last_line(tmp_path: Path) -> None:
    """A turn whose call never got its result, a later prompt after it: interrupted,
    ended at its last line (the one before the next prompt) and that line's time, and
    took from its prompt to then; as the Codex and v1 runs cut off by the next are."""
    from helpers import follow_into, neutral

    from session_core.times import seconds_between

    w = CCWriter()
    w.user("build it")
    w.assistant("m1", [text("Building."), tool_use("t1", "Bash", command="make")])
    w.user("never mind, test it")
    path = w.write(tmp_path / "s.jsonl")
    first, _ = FMT.open(path, writer_alive=False).runs
    stamps = [line["timestamp"] for line in w.lines]
    assert (first.state, first.line, first.end_line) == ("interrupted", 1, 3)  # (m1: 2 lines)
    assert (first.ended, first.duration) == (stamps[2], seconds_between(stamps[0], stamps[2]))
    live = FMT.live(str(path))
    follow_into(live.apply, path, 1 << 16, FMT.parsed_updates)
    assert neutral(live.transcript(writer_alive=False)) == neutral(
        FMT.open(path, writer_alive=False)
    )


def test_a_call_the_user_cut_off_is_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "[Request interrupted by user]" after a call with no result: the turn is aborted
    and its call will never be answered: interrupted, even while the writer may live."""
    from session_core.scan import scan_file

    w = CCWriter()
    w.user("grep it")
    w.assistant("m1", [tool_use("t1", "Grep", pattern="x")])
    w.user([text("[Request interrupted by user]")])
    path = w.write(tmp_path / "s.jsonl")
    for alive in (None, True, False):
        t = FMT.open(path, writer_alive=alive)
        assert [r.state for r in t.runs] == ["aborted"]
        assert [op.state for op in t.tool_operations] == ["interrupted"]
    both(path, monkeypatch)
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)  # (the user stopped it: no crash)
    assert (scan_file(path).status, scan_file(path).reason) == ("finished", None)


def test_a_turn_left_with_a_call_unanswered_is_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash mid-call, then a new prompt (the session resumed): the earlier turn died
    with its call, interrupted, not finished; answered late, it is finished after all,
    followed line by line as read whole."""
    from session_core.formats.base import LiveModel

    w = CCWriter()
    w.user("build it")
    w.assistant("m1", [tool_use("t1", "Bash", command="make")])
    w.user("are you there?")
    w.assistant("m2", [text("Yes.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [r.state for r in t.runs] == ["interrupted", "finished"]
    assert [op.state for op in t.tool_operations] == ["interrupted"]
    w.result("t1", "made", parent=w.lines[1]["uuid"])
    late = w.write(tmp_path / "late.jsonl")
    assert [r.state for r in FMT.open(late, writer_alive=False).runs] == ["finished"] * 2
    live = LiveModel(FMT, str(late))
    from helpers import follow_into

    states = []

    def apply(update: Any) -> None:
        live.apply(update)
        states.append([r.state for r in live.transcript(writer_alive=False).runs])

    follow_into(apply, late, 1, FMT.parsed_updates)
    assert states[-1] == ["finished", "finished"]


def test_a_local_commands_lines_are_messages_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/exit`` writes two user lines (the command, its output), sent next with the rest:
    peek, the browser and the diff's first row count them as written messages, so what
    is sent next is never more than what was written (the browser said 2, check 4)."""
    from session_core import peek
    from session_core.scan import scan_file

    w = CCWriter()
    w.user("hello")
    w.assistant("m1", [text("hi")], stop="end_turn")
    w.user("<command-name>/exit</command-name>\n<command-message>exit</command-message>")
    w.user("<local-command-stdout>See ya!</local-command-stdout>")
    path = w.write(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert [m.kind for m in t.messages] == ["message", "message", "command", "command"]
    assert len(peek(path).messages) == 4
    assert scan_file(path).messages == 4
    assert FMT.check(path).startswith("claude-code, 4 messages sent next,")


def test_a_commands_output_is_part_of_its_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bash-mode command's output (``<bash-stdout>``/``<bash-stderr>``) starts no run
    of its own, as a slash command's (``<local-command-stdout>``) does not: each command
    is one run with its output (an audit: a run prompted "stdout: See the files")."""
    w = CCWriter()
    w.user("<bash-input>ls</bash-input>")
    w.user("<bash-stdout>See the files</bash-stdout><bash-stderr></bash-stderr>")
    w.user("<bash-input>false</bash-input>")
    w.user("<bash-stderr>exit 1</bash-stderr>")
    w.user("<command-name>/model</command-name>\n<command-args>opus</command-args>")
    w.user("<local-command-stdout>Set model to opus</local-command-stdout>")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [(r.prompt, r.items) for r in t.runs] == [
        ("! ls", 2),
        ("! false", 2),
        ("/model opus", 2),
    ]
