"""agentgo: what the model is sent next is what the loop's own conversation calls were
sent. A standalone call (the seed's ``classify``), a tool's own model call (nested:
``parent_id``) or a compaction's summary call sends other messages and commits none, so
neither the conversation, the folds nor ``tailscope diff`` take its request for the loop's;
and with no request of the loop yet, nothing was compacted away."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.formats import by_name


def _text(kind: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "content": [{"type": "text", "text": text}], **extra}


U1 = _text("user", "please fix the bug")
A1 = {
    "kind": "assistant",
    "content": [
        {"type": "text", "text": "reading"},
        {"type": "tool_call", "id": "c1", "name": "fs_read", "arguments": {"path": "a.py"}},
    ],
}
R1 = _text("tool_result", "LONG FILE CONTENT", tool_call_id="c1")
STUB = _text("tool_result", "[stub: old result]", tool_call_id="c1")
A2, U2, A3 = _text("assistant", "found it"), _text("user", "go on"), _text("assistant", "done")
SUMMARY = _text("user", "[Summary] fix a bug; a.py read")


def _story(path: Path, event: str, aside: str | None, turns: bool) -> Path:
    """A loop of three calls with ``event`` before the third, and (``aside``) a
    standalone or nested model call between the event and it."""

    def model(name: str, **extra: Any) -> dict[str, Any]:
        turn = {"turn_index": int(name[-1]) - 1} if turns and name.startswith("turn") else {}
        return {"id": name, "kind": "model", "attempt": 1, **turn, **extra}

    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": U1})
        run.record(
            "model_request",
            {"messages": [U1], "tools": [], "config": {}},
            execution=model("turn-1"),
        )
        run.record("model_exec_end", {"message": A1}, execution=model("turn-1"))
        run.record("message_end", {"message": A1})
        run.record("message_end", {"message": R1})
        sent = [U1, A1, R1]
        run.record(
            "model_request",
            {"messages": sent, "tools": [], "config": {}},
            execution=model("turn-2"),
        )
        run.record("model_exec_end", {"message": A2}, execution=model("turn-2"))
        run.record("message_end", {"message": A2})
        run.record("message_end", {"message": U2})
        if event == "context_compacted":
            run.record(event, {"summary": "[Summary] fix a bug; a.py read", "replaced": 3})
            after = [SUMMARY, A2, U2]
        else:
            run.record(event, {"replaced": 1})
            after = [U1, A1, STUB, A2, U2]
        if aside is not None:
            side = model("classify", **({"parent_id": "turn-3"} if aside == "nested" else {}))
            ask = [_text("user", "CLASSIFY: a bug report?")]
            run.record(
                "model_request", {"messages": ask, "tools": [], "config": {}}, execution=side
            )
            run.record("model_exec_end", {"message": _text("assistant", "yes")}, execution=side)
        run.record(
            "model_request",
            {"messages": after, "tools": [], "config": {}},
            execution=model("turn-3"),
        )
        run.record("model_exec_end", {"message": A3}, execution=model("turn-3"))
        run.record("message_end", {"message": A3})
        run.record("agent_end", {"stop_reason": "end_turn"})
    return path


@pytest.mark.parametrize("turns", [True, False], ids=["turn_index", "no-turn_index"])
@pytest.mark.parametrize("aside", [None, "standalone", "nested"])
def test_a_side_calls_request_is_not_the_loops(
    tmp_path: Path, aside: str | None, turns: bool
) -> None:
    compacted = open_transcript(_story(tmp_path / "c.jsonl", "context_compacted", aside, turns))
    assert [m.text for m in compacted.messages] == [
        "[Summary] fix a bug; a.py read",
        "found it",
        "go on",
        "done",
    ]
    (folds,) = compacted.compactions
    assert len(folds.folded) == 3
    # the summary is a compaction's item, as every format's (x found none: a v1/agentgo
    # audit); a committed message is none
    assert [m.kind for m in compacted.messages] == ["summary", "message", "message", "message"]
    rows = by_name("agentgo-v1").diff(tmp_path / "c.jsonl").splitlines()
    assert "3 messages in the last model request, 3 not sent" in rows[0]
    assert not any("CLASSIFY" in row for row in rows)
    projected = open_transcript(_story(tmp_path / "p.jsonl", "context_projected", aside, turns))
    assert [m.text for m in projected.messages] == [
        "please fix the bug",
        "reading",
        "",
        "found it",
        "go on",
        "done",
    ]
    assert [m.stub for m in projected.messages if "elided" in m.marks] == ["[stub: old result]"]


def test_diff_lists_a_summary_under_the_request_that_sends_it(tmp_path: Path) -> None:
    """What the last request holds that no message committed (the summary) is listed
    under that request's row, with its place in it: it was listed after every row, as if
    sent after the messages committed since."""
    path = _story(tmp_path / "c.jsonl", "context_compacted", None, True)
    rows = by_name("agentgo-v1").diff(path).splitlines()[4:]
    assert rows[-3:] == [
        "# line 14: the last model request, 3 messages",
        "+ sent        user        [Summary] fix a bug; a.py read [1 of 3 in the request]",
        "= line     16 assistant   done [committed since]",
    ]


def test_no_request_of_the_loop_yet_is_nothing_compacted(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": _text("user", "hello")})
        side = {"id": "classify", "kind": "model", "attempt": 1}
        run.record(
            "model_request",
            {"messages": [_text("user", "CLASSIFY")], "tools": [], "config": {}},
            execution=side,
        )
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "no model request of the loop yet, 0 not sent" in rows[0]
    assert rows[4] == "= line      3 user        hello [not sent yet]"
    assert [m.text for m in open_transcript(path).messages] == ["hello"]


def test_a_run_has_its_first_user_message_as_its_prompt(tmp_path: Path) -> None:
    """(The runs tab's "prompt" was empty for agentgo; an audit.)"""
    path = tmp_path / "runs.jsonl"
    with AgentGoSession.create(path) as s:
        for n in (1, 2):
            run = s.begin_run()
            run.record("agent_start")
            run.record("message_end", {"message": _text("assistant", "ready")})
            run.record("message_end", {"message": _text("user", f"task {n}")})
            run.record("message_end", {"message": _text("user", "and more")})
            run.record("agent_end", {})
            run.close()
    assert [r.prompt for r in open_transcript(path).runs] == ["task 1", "task 2"]


def test_the_export_follows_its_view(tmp_path: Path) -> None:
    """The Markdown export's replayed view is the conversation's (what is sent next, a
    summary an item of its own, an aged result its stub); its raw view every committed
    message, marked where a context event folded or stubbed it. (Both were every
    committed message, unmarked, under "nothing is replaced": an agentgo audit.)"""
    from session_core.export import export

    compacted = _story(tmp_path / "c.jsonl", "context_compacted", None, True)
    replayed, raw = export(compacted, "md", "replayed"), export(compacted, "md", "raw")
    assert "nothing is replaced" not in replayed + raw
    # (the title is the session's first prompt, as the browser's row: the body is past it)
    body = replayed.split("\n", 1)[1]
    assert replayed.startswith("# please fix the bug\n")
    assert "please fix the bug" not in body and "please fix the bug" in raw.split("\n", 1)[1]
    assert "[Summary] fix a bug" in replayed and "sent, committed as no message" in replayed
    assert raw.count("folded by the compaction at line 13") == 3
    assert "folded" not in replayed
    projected = _story(tmp_path / "p.jsonl", "context_projected", None, True)
    replayed, raw = export(projected, "md", "replayed"), export(projected, "md", "raw")
    assert "LONG FILE CONTENT" not in replayed and "[stub: old result]" in replayed
    assert "LONG FILE CONTENT" in raw and "\nstub:\n" in raw and "[stub: old result]" in raw
    assert "the stub:" not in raw  # (its label says "stub:": said once, not twice)


def test_an_aged_result_a_compaction_then_folds_is_marked_folded_in_the_raw_export(
    tmp_path: Path,
) -> None:
    """A result aged (sent as a stub) and then folded by a compaction is marked folded in
    the raw export, as every other surface says, its stub said as sent before that (the
    first event that named it alone was kept: "the model is sent a stub")."""
    from session_core.export import export

    path = _story(tmp_path / "p.jsonl", "context_projected", None, True)
    with AgentGoSession.open(path) as s:
        run = s.begin_run()
        run.record("context_compacted", {"summary": "[Summary] all done", "replaced": 6})
        summary = _text("user", "[Summary] all done")
        model = {"id": "turn-1", "kind": "model", "attempt": 1, "turn_index": 0}
        run.record(
            "model_request", {"messages": [summary], "tools": [], "config": {}}, execution=model
        )
    raw = export(path, "md", "raw")
    result = raw[raw.index("LONG FILE CONTENT") - 600 :]
    result = result[: result.index("LONG FILE CONTENT")]
    assert "folded by the compaction at line" in result, result
    assert "the model was sent a stub before that" in raw
    assert "the model is sent a stub" not in raw
    assert raw.count("folded by the compaction at line") == 6


def test_with_no_context_event_both_views_are_every_message(tmp_path: Path) -> None:
    from session_core.export import export

    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": _text("user", "hello")})
    replayed, raw = export(path, "md", "replayed"), export(path, "md", "raw")
    assert replayed == raw and "hello" in replayed and "no context event" in replayed


def test_a_call_in_flight_is_running_in_the_export_while_its_run_is_written(
    tmp_path: Path,
) -> None:
    """The export's calls and runs tables say "running" of a call without its end in
    the run its live writer is writing, as its tool operations do; "gap" once closed."""
    from agentgo_helpers import call_in_flight
    from session_core.export import export

    path = tmp_path / "live.jsonl"
    with AgentGoSession.create(path) as s:
        call_in_flight(s, "turn-1")
        live = export(path, "md")
        assert "| model | running |" in live and "no agent\\_end yet \\(running\\)" in live
        assert "| model | gap |" not in live
    ended = export(path, "md")
    # (the viewer's words: "gap (interrupted)")
    assert "| model | gap \\(interrupted\\) |" in ended and "no agent\\_end \\(gap\\)" in ended


async def test_x_lands_on_the_compactions_summary(tmp_path: Path) -> None:
    """``x`` / ``X`` go to a compaction or its summary in every format; in agentgo's
    conversation they said "No compaction before the cursor" (a v1/agentgo audit)."""
    from model_screen_helpers import opened

    path = _story(tmp_path / "c.jsonl", "context_compacted", None, True)
    async with opened(path) as (_app, pilot, screen):
        await pilot.press("3")
        view = screen.conversation
        assert view.items[0].kind == "summary"
        await pilot.press("G", "X")
        await pilot.pause(0.1)
        assert view.cursor == 0
        assert "compaction summary" in view.rendered_text(0)


async def test_the_diff_steps_to_a_compaction_and_shows_what_it_folded(tmp_path: Path) -> None:
    """The shared diff had none of v1's diff keys (``n`` / ``p``), and ``enter`` on a
    context event's row, whose line is no item, showed the message before it (a
    v1/agentgo audit): ``n`` lands on the compaction, ``enter`` on what it folded first."""
    from helpers import said, wait_for
    from model_screen_helpers import opened

    path = _story(tmp_path / "c.jsonl", "context_compacted", None, True)
    async with opened(path) as (app, pilot, screen):
        await pilot.press("7", "g", "p")
        await wait_for(pilot, lambda: said(app, "No compaction or elision before the cursor."))
        await pilot.press("n")
        await pilot.pause(0.1)
        diff = screen.diff
        assert diff.entries[diff.cursor][1].startswith("◆ compaction at line 13")
        await pilot.press("enter")
        await pilot.pause(0.2)
        view = screen.conversation
        assert view.mode == "raw" and view.items[view.cursor].line == 4  # (its first folded)


def test_what_a_compaction_dropped_is_marked_folded_as_in_every_format(tmp_path: Path) -> None:
    """The raw items a ``context_compacted`` dropped carry the ``folded`` mark, as every
    format's folded items do, so the Diff tab's "marked in the raw view" counts them (it
    said "2 elided" of a file whose raw view marked 7 folded), whole and followed."""
    from helpers import follow_into

    from viewer.widgets.model_diff import ModelDiff

    path = _story(tmp_path / "c.jsonl", "context_compacted", None, True)
    whole = open_transcript(path)
    fmt = by_name("agentgo-v1")
    live = fmt.live(str(path))
    follow_into(live.apply, path, 300, fmt.parsed_updates)
    for t in (whole, live.transcript(writer_alive=False)):
        marked = {i.text: i.marks for i in t.raw}
        (compaction,) = t.compactions
        folded = set(compaction.folded)
        assert [i.id for i in t.raw if "folded" in i.marks] == [
            i.id for i in t.raw if i.id in folded
        ]
        assert len(folded) == 3 and marked["done"] == []
        rows = [str(entry[1]) for entry in ModelDiff(t)]
        assert "marked in the raw view, items of every kind: 3 folded" in rows
