"""A newer writer's UI events (``exec_command_end``, ``patch_apply_end``,
``mcp_tool_call_end``, ``web_search_end``, ``view_image_tool_call``, the turn events,
``context_compacted``, ``thread_name_updated``) read in one line of words in the raw view's
folded rows, not as their JSON, which they keep whole (expanded, exported, searched); read
whole (packed) or fed a record at a time, alike. Their calls are counted once (the end event
is no operation of its own)."""

from __future__ import annotations

from pathlib import Path

import orjson
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter

from session_core.export import export
from session_core.model import Transcript
from session_core.parts import WordedPart
from session_core.search import find

DURATION = {"secs": 1, "nanos": 500_000_000}


def _rollout(path: Path) -> Path:
    w = RolloutWriter(path)
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "fix the build")
    w.event("thread_name_updated", thread_id="th", thread_name="Fix the build\x1b[31m")
    w.function_call("exec_command", {"cmd": "make"}, "cx")
    command = ["/bin/bash", "-lc", "make"]
    w.event(
        "exec_command_end",
        call_id="cx",
        command=command,
        exit_code=2,
        duration=DURATION,
        stderr="Makefile:3: missing separator UNIQUESTDERR",
        cwd="/work/UNIQUECWD",
    )
    w.function_output("cx", "Chunk ID: 1\nOutput:\nmake: *** Error 2\n")  # (plain text)
    w.function_call("view_image", {"path": "/repo/err.png"}, "cv")
    w.event("view_image_tool_call", call_id="cv", path="/repo/err.png")
    w.function_output("cv", "ok")
    w.function_call("mcp__docs__search", {"q": "make"}, "cm")
    invocation = {"server": "docs", "tool": "search", "arguments": {"q": "make"}}
    ok = {"Ok": {"content": [{"type": "text", "text": "see FAQ"}], "isError": False}}
    w.event("mcp_tool_call_end", call_id="cm", invocation=invocation, result=ok, duration=DURATION)
    w.function_output("cm", "see FAQ")
    w.web_search("completed", "make error 2")
    w.event("web_search_end", call_id="ws", query="make error 2")
    w.custom_call("apply_patch", "*** Begin Patch\n*** End Patch\n", "cp")
    changes = {
        "/repo/Makefile": {"type": "update", "unified_diff": "@@", "move_path": None},
        "/repo/new.txt": {"add": {"content": "x"}},  # (an older writer's shape)
        "/repo/a": {"type": "update", "move_path": "/repo/b"},
        "/repo/old.txt": {"type": "delete", "content": "y"},
    }
    w.event("patch_apply_end", call_id="cp", success=True, changes=changes, stderr="")
    w.custom_output("cp", "Success.")
    w.event("mcp_tool_call_end", call_id="zz", invocation=invocation, result={"Err": "gone"})
    w.event("patch_apply_end", call_id="zy", success=False, changes={}, stderr="no match\n")
    w.event("exec_command_end", call_id="zx", stdout="")  # (no exit code: its JSON)
    w.message("assistant", "Fixed.")
    w.task_complete("t1", "Fixed.")
    w.task_started("t2")
    w.event("context_compacted")
    w.turn_aborted("t2")
    return path


WORDS = [
    ("task_started", "turn t1 started (context window 272,000 tokens)"),
    ("thread_name_updated", "thread named: Fix the build␛[31m"),  # (inert)
    ("exec_command_end", "make: exit 2 in 1.5s"),
    ("view_image_tool_call", "viewed /repo/err.png"),
    ("mcp_tool_call_end", "docs.search: ok in 1.5s"),
    ("web_search_end", "searched: make error 2"),
    (
        "patch_apply_end",
        "applied: M /repo/Makefile, A /repo/new.txt, R /repo/a → /repo/b (+1 more)",
    ),
    ("mcp_tool_call_end", "docs.search: error: gone"),
    ("patch_apply_end", "not applied (no match)"),
    ("task_complete", "turn t1 complete"),
    ("task_started", "turn t2 started (context window 272,000 tokens)"),
    ("context_compacted", "context compacted"),
    ("turn_aborted", "turn t2 aborted (interrupted)"),
]


def _events(t: Transcript, json: bool = False) -> list[tuple[str | None, str]]:
    """The event lines' parts (not token counts), their folded rows' words (``json``: those
    shown as JSON)."""
    return [
        (p.name, p.head)
        for item in t.raw
        if item.kind == "event"
        for p in item.parts
        if p.kind == "other" and p.name != "token_count" and p.head.startswith("{") == json
    ]


def test_events_read_in_words(tmp_path: Path) -> None:
    path = _rollout(tmp_path / "r.jsonl")
    builder = CODEX.builder(str(path))
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        builder.lines = number
        builder.feed(orjson.loads(line), number)
    for t in (opened(path, False), builder.transcript(False)):
        assert _events(t) == WORDS
        # An event whose fields are not what Codex writes is shown as its JSON.
        ((_, bare),) = _events(t, json=True)
        assert '"call_id":"zx"' in bare
        # One operation a call, its end event none; a non-zero exit code on a call whose
        # output says none fails it.
        states = {op.call_id: op.state for op in t.tool_operations}
        assert len(t.tool_operations) == 5
        assert states["cx"] == "failed" and states["cm"] == "completed"
        # The words are the folded row's alone: the event keeps what it says as written
        # (expanded, searched; the words searched too).
        (ended,) = [i for i in t.raw if i.parts[0].head == "make: exit 2 in 1.5s"]
        assert isinstance(ended.parts[0], WordedPart)
        assert orjson.loads(ended.parts[0].text)["cwd"] == "/work/UNIQUECWD"
        at = [i.line for i in t.raw].index(ended.line)
        assert find(t.raw, "UNIQUESTDERR") == find(t.raw, "uniquecwd") == [at]
        assert find(t.raw, "make: exit 2") == [at]
    # ``--view raw`` exports the line as written
    assert '"cwd":"/work/UNIQUECWD"' in export(path, "md", "raw")


def test_an_event_row_folds_to_its_words_and_expands_to_what_it_says(tmp_path: Path) -> None:
    """The folded row is the words; enter shows them, then the event whole (its stderr and
    cwd, which the call's output may not say)."""
    from session_core.tool_ops import ops_by_call
    from viewer.widgets.items_view import ItemsView

    t = opened(_rollout(tmp_path / "r.jsonl"), False)
    (item,) = [i for i in t.raw if i.parts[0].head == "make: exit 2 in 1.5s"]
    view = ItemsView()
    view._s = lambda _name: ""  # type: ignore[method-assign]
    view.transcript, view.ops = t, ops_by_call(t.tool_operations)
    folded = [x.plain for x in view._part_folded(item.parts[0], 200, item)]
    assert folded == ["  exec_command_end: make: exit 2 in 1.5s"]
    full = "".join(x.plain.strip() for x in view._part_full(item.parts[0], 60, item))
    assert full.startswith("exec_command_end: make: exit 2 in 1.5s{")
    assert "UNIQUESTDERR" in full and '"cwd":"/work/UNIQUECWD"' in full


def test_a_thread_name_cleared_or_of_no_type_a_name_has() -> None:
    """Codex leaves a cleared name out (null or blank clears too): said so; a name that is
    no string is no shape Codex writes: its JSON, and the title stays."""
    from session_core.formats.codex.event_words import event_words

    cleared = [{"thread_id": "t"}, {"thread_name": None}, {"thread_name": " "}]
    assert [event_words("thread_name_updated", p) for p in cleared] == ["thread name cleared"] * 3
    assert event_words("thread_name_updated", {"thread_name": 5}) is None


def test_a_duration_past_any_timing_is_unknown(tmp_path: Path) -> None:
    """A Rust ``Duration`` no command can have run for (past a year) is no timing: the
    words say none (they read ``exit 0 in 277777777777777h46m``), and the call took what
    its lines' times say, as where none is written."""
    from session_core.formats.codex.event_words import event_words

    absurd = {"exit_code": 0, "duration": {"secs": 10**18, "nanos": 0}}
    assert event_words("exec_command_end", absurd) == "exit 0"
    year = {"exit_code": 0, "duration": {"secs": 365 * 86400, "nanos": 0}}
    assert event_words("exec_command_end", year) == "exit 0 in 8760h00m"
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.function_call("exec_command", {"cmd": "make"}, "cx")
    w.event("exec_command_end", call_id="cx", **absurd)
    w.function_output("cx", "done")
    w.task_complete("t1")
    (op,) = opened(tmp_path / "r.jsonl", False).tool_operations
    assert op.duration == 2.0  # (its call's line to its output's)


def test_error_events_read_in_words_and_keep_what_they_say(tmp_path: Path) -> None:
    """``error`` and ``stream_error`` read as their message (the retry and what dropped the
    stream), and keep the event whole as the other worded events do: expanded, searched,
    ``--view raw``; their words were a text of their own, the event's other fields lost
    (a stream error's cause), and one with no message showed its JSON."""
    from session_core.formats.codex.event_words import event_words

    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "fix it")
    info = {"response_stream_disconnected": {"http_status_code": None}}
    cause = "stream disconnected before completion: UNIQUECAUSE"
    w.event("stream_error", message="Reconnecting... 1/5", codex_error_info=info,
            additional_details=cause)  # fmt: skip
    w.event("error", message="unexpected status 401 Unauthorized", codex_error_info="UNIQUEINFO")
    w.event("error", codex_error_info="usage_limit_exceeded")
    w.task_complete("t1")
    path = Path(w.path)
    builder = CODEX.builder(str(path))
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        builder.lines = number
        builder.feed(orjson.loads(line), number)
    for t in (opened(path, False), builder.transcript(False)):
        errors = [i for i in t.raw if i.kind == "error"]
        assert [(p.name, p.head) for i in errors for p in i.parts] == [
            ("stream_error", f"Reconnecting... 1/5 ({cause})"),
            ("error", "unexpected status 401 Unauthorized"),
            ("error", "usage_limit_exceeded"),
        ]
        assert all(type(i.parts[0]) is WordedPart for i in errors)
        kept = orjson.loads(errors[0].parts[0].text)
        assert kept["codex_error_info"] == info and kept["additional_details"] == cause
        at = [i.line for i in t.raw]
        assert find(t.raw, "UNIQUEINFO") == [at.index(errors[1].line)]
        assert find(t.raw, "Reconnecting... 1/5") == [at.index(errors[0].line)]
    raw = export(path, "md", "raw")
    assert '"codex_error_info":"UNIQUEINFO"' in raw and '"additional_details"' in raw
    # Fields of no shape Codex writes: the JSON, as another event's.
    assert event_words("error", {"codex_error_info": {"x": 1}}) is None
    assert event_words("stream_error", {"message": " "}) is None
