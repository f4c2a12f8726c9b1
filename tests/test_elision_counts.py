"""An elision is counted as the record it is, with the messages it stubbed beside it, in
one wording on every surface (``OverlayCounts.said``): a v1 file of two elision lines
stubbing five messages read "5 elisions" in the header and ``check``, and ``0 / 5`` in the
export, counting what each line stubbed as elisions. ``replay``'s JSON keeps its entry per
stubbed message (api.md's shape)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from claude_code_writer import CCWriter, text, tool_use
from helpers import run_cli
from textual.app import App, ComposeResult

from session_core import Message, Session, open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from session_core.formats.v1.overlays import compactions_of
from session_core.model import Transcript, overlay_counts
from session_core.reader import replay_file
from viewer.widgets.model_status import ModelStatus

V1_SAID = "0 compactions, 2 elisions (5 messages stubbed)"


def _v1(path: Path) -> Path:
    """Five messages, then two elision lines stubbing three and two of them."""
    with Session.create(path) as s:
        ids = [
            s.append_message(Message(role=("user", "assistant")[i % 2], content=f"message {i}"))
            for i in range(5)
        ]
        s.append_elision([{"id": m, "stub": f"[stub {m[:4]}]"} for m in ids[:3]])
        s.append_elision([{"id": m, "stub": f"[stub {m[:4]}]"} for m in ids[3:]])
    return path


def _cc(path: Path) -> Path:
    """Three reads, their results on three items; a microcompact clearing two, a later
    one the third."""
    w = CCWriter(version="1.0.80")
    w.user("read files")
    for i in range(3):
        w.assistant(f"m{i}", [tool_use(f"t{i}", "Read", file_path=f"f{i}")])
        w.result(f"t{i}", f"CONTENT {i}")
    w.microcompact(["t0", "t1"])
    w.assistant("m9", [text("done")], stop="end_turn")
    w.microcompact(["t2"])
    return w.write(path)


class Header(App[None]):
    def compose(self) -> ComposeResult:
        yield ModelStatus()


async def _header(transcript: Transcript) -> str:
    app = Header()
    async with app.run_test(size=(200, 20)):
        header = app.query_one(ModelStatus)
        header.show(transcript, name="t", title="t", size=1, live="idle", mode="replayed")
        return str(header.render())


def test_a_v1_files_elision_lines_are_counted_as_lines_on_every_surface(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _v1(tmp_path / "s.jsonl")
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and ", 2 elisions (5 messages stubbed), usage" in out, out
    _, out, _ = run_cli(capsys, "diff", str(path))
    assert out.splitlines()[0].endswith(f"5 messages sent next; {V1_SAID}"), out
    md = export(path, "md", "replayed")
    assert f"| compactions and elisions | {V1_SAID} |" in md.replace("\\", ""), md
    assert "0 / 5" not in md
    for view in ("replayed", "raw"):
        assert V1_SAID in export(path, "html", view)
    # replay's JSON: one entry per message stubbed, each with its line's id and line
    _, out, _ = run_cli(capsys, "replay", str(path))
    entries = orjson.loads(out)["compactions"]
    assert [(e["kind"], e["line"]) for e in entries] == [("elision", 7)] * 3 + [("elision", 8)] * 2


async def test_the_header_counts_a_v1_files_elision_lines(tmp_path: Path) -> None:
    transcript = open_transcript(_v1(tmp_path / "s.jsonl"))
    said = await _header(transcript)
    assert "0 compactions · 2 elisions (5 messages stubbed)" in said, said
    assert "5 elisions" not in said


def test_the_counts_of_a_v1_snapshot_are_those_of_its_overlays_one_by_one(
    tmp_path: Path,
) -> None:
    """``Overlays.counted`` (the elision lines, told) says what counting the overlays one
    by one does (v1's, one per message stubbed: ``compactions_of``)."""
    path = _v1(tmp_path / "s.jsonl")
    told = overlay_counts(open_transcript(path).compactions)
    counted = overlay_counts(compactions_of(replay_file(str(path), tolerate_tail=False)))
    assert told == counted
    assert told.said("compaction", "elision") == V1_SAID.split(", ")


def _lines(path: Path, *records: dict[str, Any]) -> Path:
    with path.open("ab") as f:
        for record in records:
            f.write(orjson.dumps(record) + b"\n")
    return path


def test_a_message_stubbed_again_is_one_message_and_an_empty_line_one_elision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two lines stubbing one message stubbed one message; a line of no items (the spec
    applies nothing, a writer may still have written it) is an elision line all the same."""
    path = tmp_path / "s.jsonl"
    with Session.create(path) as s:
        mid = s.append_message(Message(role="user", content="hello"))
        s.append_elision([{"id": mid, "stub": "[one]"}])
        s.append_elision([{"id": mid, "stub": "[two]"}])
    envelope = {"v": 1, "id": "e-empty", "ts": "2026-01-01T00:00:00Z", "type": "elision"}
    _lines(path, {**envelope, "payload": {"items": []}})
    _, out, _ = run_cli(capsys, "check", str(path))
    assert ", 3 elisions (1 message stubbed), usage" in out, out
    _, out, _ = run_cli(capsys, "diff", str(path))
    assert out.splitlines()[0].endswith("0 compactions, 3 elisions (1 message stubbed)"), out


def test_claude_codes_microcompacts_say_what_they_stubbed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _cc(tmp_path / "s.jsonl")
    said = "2 elisions (3 messages stubbed)"
    _, out, _ = run_cli(capsys, "check", str(path))
    assert f"3 tool operations, {said}, usage" in out, out
    _, out, _ = run_cli(capsys, "diff", str(path))
    assert out.splitlines()[0].endswith(f"0 compactions, {said}"), out
    assert f"0 compactions, {said}" in export(path, "md", "replayed").replace("\\", "")
    assert f"0 compactions, {said}" in export(path, "html", "raw")


async def test_claude_codes_header_and_diff_tab_say_what_they_stubbed(tmp_path: Path) -> None:
    from viewer.widgets.model_diff import ModelDiff

    transcript = open_transcript(_cc(tmp_path / "s.jsonl"))
    assert "0 compactions · 2 elisions (3 messages stubbed)" in await _header(transcript)
    first = str(ModelDiff(transcript)[0][1])
    assert first.endswith("0 compactions, 2 elisions (3 messages stubbed)"), first


def _agentgo(path: Path, *, request_after: bool) -> Path:
    """A call's long result, a projection that ages it, and (``request_after``) the
    loop's request after it holding its stub."""
    user = {"kind": "user", "content": [{"type": "text", "text": "fix it"}]}
    ask = {
        "kind": "assistant",
        "content": [{"type": "tool_call", "id": "c1", "name": "fs_read", "arguments": {}}],
    }
    result = {
        "kind": "tool_result",
        "content": [{"type": "text", "text": "LONG RESULT"}],
        "tool_call_id": "c1",
    }
    stub = {**result, "content": [{"type": "text", "text": "[aged]"}]}

    def model(turn: int) -> dict[str, Any]:
        return {"id": f"turn-{turn}", "kind": "model", "attempt": 1, "turn_index": turn}

    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": user})
        request = {"messages": [user], "tools": [], "config": {}}
        run.record("model_request", request, execution=model(0))
        run.record("model_exec_end", {"message": ask}, execution=model(0))
        run.record("message_end", {"message": ask})
        run.record("message_end", {"message": result})
        run.record("context_projected", {"replaced": 1})
        if request_after:
            request = {"messages": [user, ask, stub], "tools": [], "config": {}}
            run.record("model_request", request, execution=model(1))
        run.close()
    return path


async def test_an_agentgo_projection_says_what_it_stubbed_once_a_request_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _agentgo(tmp_path / "a.jsonl", request_after=True)
    sent = await _header(open_transcript(path))
    assert "0 compactions · 1 elision (1 message stubbed)" in sent, sent
    md = export(path, "md", "replayed").replace("\\", "")
    assert "| compactions and elisions | 0 compactions, 1 elision (1 message stubbed) |" in md
    # none follows yet: what it stubs is not known, never said 0
    path = _agentgo(tmp_path / "b.jsonl", request_after=False)
    unsent = await _header(open_transcript(path))
    assert "0 compactions · 1 elision (not sent yet)" in unsent, unsent
    assert "(1 elision not sent yet)" in unsent and "0 messages" not in unsent
    md = export(path, "md", "raw").replace("\\", "")
    assert "| compactions and elisions | 0 compactions, 1 elision (not sent yet) |" in md
    # check's streaming read says it as they do (``StreamedFolds``)
    _, out, _ = run_cli(capsys, "check", str(path))
    assert ", 1 elision (not sent yet), usage" in out, out
    _, out, _ = run_cli(capsys, "check", str(tmp_path / "a.jsonl"))
    assert ", 1 elision (1 message stubbed), usage" in out, out


def test_a_v1_snapshots_overlays_count_by_the_replays_counts(tmp_path: Path) -> None:
    """The header's counts (``Overlays.counted``) are the replay's ``replay_counts``,
    which ``check``, ``diff`` and the export say: taken, not built again from the same
    expression, so the surfaces cannot drift apart (review r2, finding 8)."""
    from session_core.formats.v1.overlays import Overlays, replay_counts

    path = _v1(tmp_path / "s.jsonl")
    state = replay_file(str(path), tolerate_tail=False)
    counts = replay_counts(state)
    assert Overlays([], state.elisions, 0, {}, counts).counted() is counts
    told = open_transcript(path).compactions
    assert isinstance(told, Overlays) and told.counted() == counts
    assert counts.said("compaction", "elision") == V1_SAID.split(", ")
