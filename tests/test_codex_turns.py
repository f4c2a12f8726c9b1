"""The ``codex`` format's turns (runs): their states, contexts and prompts, with task
events and without."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, legacy_story, turnless_story
from helpers import file_loaded, follow_into, neutral, run_cli, said

from session_core.vocabulary import kinds_of
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.item_jumps import is_what

# -- runs and contexts ----------------------------------------------------------------


def test_runs_and_contexts(rollout: Path) -> None:
    t = opened(rollout)
    assert [(r.id, r.state) for r in t.runs] == [
        ("t1", "finished"),
        ("t2", "aborted"),
        ("t3", "running"),
    ]
    assert opened(rollout, alive=False).runs[2].state == "interrupted"
    assert t.runs[0].prompt == "fix the bug"
    context = t.runs[0].context
    assert context is not None
    assert ("model", "gpt-5-codex") in context.facts
    assert context.sections == [  # the session's own instructions first (session_meta's)
        ("base_instructions", "You are Codex."),
        ("developer_instructions", "Use the tools."),
        ("user_instructions", "Be brief."),
    ]
    changes = {c["run-id"]: c["changed"] for c in t.extra["run-contexts"]}
    assert sorted(changes["t2"]) == ["effort", "model"]
    assert changes["t3"] == []
    assert t.extra["rate-limits"]["primary"]["used_percent"] == 12.0


def test_a_file_that_starts_inside_a_turn(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("assistant", "finishing up")
    w.task_complete("t0")
    w.task_started("t1")
    w.task_started("t2")  # t1 never ended
    t = opened(Path(w.path))
    assert [(r.id, r.state) for r in t.runs] == [
        ("t0", "finished"),
        ("t1", "interrupted"),
        ("t2", "running"),
    ]


def test_the_prompts_of_a_rollout_of_bare_items_start_its_turns(tmp_path: Path) -> None:
    """Such a file has no task or prompt events: each prompt (a user message that is
    not context Codex injected) starts a turn, ended by the next, finished when its
    last item is the assistant's answer."""
    path = tmp_path / "rollout-2025-08-20T13-20-47-old.jsonl"
    w = legacy_story(path)
    w.raw(orjson.dumps({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}
    ]}) + b"\n")  # fmt: skip
    w.raw(orjson.dumps({"type": "message", "role": "user", "content": "and now?"}) + b"\n")
    arguments = orjson.dumps({"command": ["ls", "-a"]}).decode()
    w.raw(orjson.dumps({"type": "function_call", "name": "shell", "arguments": arguments,
                        "call_id": "c2"}) + b"\n")  # fmt: skip
    t = opened(path, alive=False)
    assert [(r.id, r.state, r.line, r.end_line, r.prompt) for r in t.runs] == [
        ("L3", "finished", 3, 8, "list the files"),
        ("L10", "interrupted", 10, 11, "and now?"),  # cut off: at its last line
    ]
    assert (t.runs[1].ended, t.runs[1].duration) == (None, None)  # (no times: not known)
    assert [(op.call_id, op.run_id, op.state) for op in t.tool_operations] == [
        ("c1", "L3", "completed"),
        ("c2", "L10", "interrupted"),
    ]
    assert [r.state for r in opened(path, alive=None).runs] == ["finished", "running"]


def test_each_request_of_a_rollout_of_bare_items_is_a_response_not_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its writer wrote no ``token_count``: each model request (the outputs before a
    call's output or a user message, and a turn's last) is a response whose usage is
    unknown, so a turn of two calls and an answer is 3 of them, not 1 (it read "0 of 2"
    for the two turns, where Claude Code's count says each response)."""
    path = tmp_path / "rollout-2025-08-20T13-20-47-old.jsonl"
    w = legacy_story(path)  # (list the files: a call, its output, the answer: 2)
    w.raw(orjson.dumps({"type": "message", "role": "user", "content": "and now?"}) + b"\n")
    for call in ("c2", "c3"):
        w.raw(orjson.dumps({"type": "function_call", "name": "shell", "arguments": "{}",
                            "call_id": call}) + b"\n")  # fmt: skip
        w.raw(orjson.dumps({"type": "function_call_output", "call_id": call,
                            "output": "ok"}) + b"\n")  # fmt: skip
    w.raw(orjson.dumps({"type": "message", "role": "assistant", "content": "done"}) + b"\n")
    t = opened(path, alive=False)
    assert [(r.usage.responses, r.usage.reported) for r in t.runs] == [(2, 0), (3, 0)]
    assert (t.usage.responses, t.usage.reported, t.usage.input_tokens) == (5, 0, None)
    code, out, _err = run_cli(capsys, "export", "--format", "md", str(path))
    assert code == 0 and "| this file | 0 of 5 | unknown |" in out


def test_turns_of_a_writer_that_wrote_no_task_events(tmp_path: Path) -> None:
    """0.5x/0.6x rollouts have no task_started / task_complete: each prompt (its
    ``user_message``) starts a turn, the next prompt or a ``turn_aborted`` ends it; a
    ``user_message`` of Codex's own (its ``kind``, line 3) starts none."""
    w = turnless_story(tmp_path / "r.jsonl")
    t = opened(Path(w.path), alive=False)
    assert [(r.id, r.state, r.line, r.end_line, r.prompt) for r in t.runs] == [
        ("L5", "finished", 5, 11, "list the files"),
        ("L13", "aborted", 13, 16, "now delete it"),
        ("L18", "finished", 18, 21, "thanks"),
    ]
    assert [r.usage.input_tokens for r in t.runs] == [1100, None, 200]
    assert all(r.context is not None for r in t.runs)
    assert [op.run_id for op in t.tool_operations] == ["L5", "L13"]
    assert [op.state for op in t.tool_operations] == ["completed", "interrupted"]
    # while a writer may be at it, its last turn is not known to have ended
    assert opened(Path(w.path), alive=None).runs[-1].state == "running"


def test_a_prompt_just_before_its_task_started_is_that_turn(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.event("user_message", message="hello")
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "hello")
    w.message("assistant", "hi")
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [(r.id, r.state, r.line, r.prompt) for r in t.runs] == [("t1", "finished", 2, "hello")]
    assert [c["run-id"] for c in t.extra["run-contexts"]] == ["t1"]


def test_a_prompted_turn_takes_the_id_its_context_names(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.turn_context("t2")  # the file ends before this turn's task_started
    w.event("user_message", message="second prompt")
    w.message("assistant", "second answer")
    w.task_started("t2")  # ... or it comes late: the same turn
    t = opened(Path(w.path), alive=False)
    assert [(r.id, r.line, r.prompt) for r in t.runs] == [("t2", 3, "second prompt")]
    assert t.runs[0].context is not None


def test_a_turns_prompt_from_its_user_message_item(tmp_path: Path) -> None:
    """0.149+ write the person's prompt as an item_completed UserMessage (no user_message
    event); the turn's first user response item is injected context, not the prompt."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.154.0")
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>x</INSTRUCTIONS>")
    w.message("user", "$retro review my draft")
    skill = {"type": "skill", "name": "retro", "path": "/h/.codex/skills/retro/SKILL.md"}
    text = {"type": "text", "text": "$retro review my draft", "text_elements": []}
    w.item_completed({"type": "UserMessage", "id": "u1", "content": [text, skill]}, turn="t1")
    w.message("assistant", "done")
    w.item_completed({"type": "CommandExecution", "id": "x1", "command": ["pwd"],
                      "status": "completed", "stdout": "/home/u"})  # fmt: skip
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [r.prompt for r in t.runs] == ["$retro review my draft"]
    # an events-only file's command shows its stdout
    w2 = RolloutWriter(tmp_path / "e.jsonl")
    w2.session_meta(cli_version="0.154.0")
    w2.item_completed({"type": "CommandExecution", "id": "x1", "command": ["pwd"],
                       "status": "completed", "stdout": "/home/u"})  # fmt: skip
    [op] = opened(Path(w2.path)).tool_operations
    assert (op.state, op.result) == ("completed", "/home/u")


def test_a_turns_prompt_is_not_the_context_codex_injected(tmp_path: Path) -> None:
    """Where no event says what the person typed (0.149+ mirror only some prompts), the
    prompt is the turn's first user text Codex did not inject (its tags, AGENTS.md)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.159.3")
    w.task_started("t1")
    w.message("user", "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>", "<environment_context>")
    image = {"type": "input_image", "image_url": "data:image/png;base64,iVBOR", "detail": "high"}
    blocks = [
        {"type": "input_text", "text": '<image name=[Image #1] path="/tmp/c.png">'},
        image,
        {"type": "input_text", "text": "</image>"},
        {"type": "input_text", "text": "[Image #1] an example in the screenshot"},
    ]
    w.write("response_item", {"type": "message", "role": "user", "content": blocks})
    w.task_complete("t1")
    t = opened(Path(w.path))
    assert [r.prompt for r in t.runs] == ["[Image #1] an example in the screenshot"]


async def test_e_on_the_runs_tab_steps_through_the_runs_that_did_not_finish(
    rollout: Path,
) -> None:
    app = TailscopeApp(rollout)
    async with app.run_test(size=(140, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.file_screen
        await pilot.press("3")  # (a Codex file's runs)
        table = screen.runs.table
        assert table.has_focus and table.cursor_row == 0
        await pilot.press("e")
        assert table.cursor_row == 1  # t2, aborted
        await pilot.press("e")
        assert table.cursor_row == 2  # t3: running, or interrupted once its writer is gone
        await pilot.press("e")
        assert table.cursor_row == 2 and said(app, "No run that did not finish after this one.")
        await pilot.press("E")
        assert table.cursor_row == 1


def test_a_prompted_turn_of_a_writer_that_ends_its_turns_is_cut_off_without_its_end(
    tmp_path: Path,
) -> None:
    """Turns begun by their prompt (no task_started) and ended by task_complete: the last,
    answered but with no task_complete, was cut off once the writer is gone (it read
    finished, as a writer's that writes no task events)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.31.0")
    for prompt, ended in (("first", True), ("second", False)):
        w.message("user", prompt)
        w.event("user_message", message=prompt, kind="plain")
        w.message("assistant", f"did {prompt}")
        if ended:
            w.event("task_complete", last_agent_message=f"did {prompt}")
    states = [r.state for r in opened(Path(w.path), alive=False).runs]
    assert states == ["finished", "interrupted"]
    assert opened(Path(w.path), alive=None).runs[-1].state == "running"


def test_a_turn_that_never_ended_took_to_its_last_line(tmp_path: Path) -> None:
    """A turn cut off by the next (no task_complete) ended at its own last line, the one
    before the next turn's task_started; the last, its writer gone, at the file's last
    line: each with that line's time and how long it took (as Claude Code's), whether
    the file is read whole or followed."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")  # line 2, 12:00:02
    w.turn_context("t1")
    w.message("user", "fix it")
    w.function_call("shell", {"command": ["ls"]}, "c1")  # line 5, 12:00:05: never answered
    w.task_started("t2")  # line 6
    w.turn_context("t2")
    w.message("user", "go on")
    w.function_call("shell", {"command": ["pwd"]}, "c2")  # line 9, 12:00:09
    path = Path(w.path)
    t = opened(path, alive=False)
    got = [(r.id, r.state, r.line, r.end_line, r.ended, r.duration) for r in t.runs]
    assert got == [
        ("t1", "interrupted", 2, 5, "2026-02-23T12:00:05.000Z", 3.0),
        ("t2", "interrupted", 6, 9, "2026-02-23T12:00:09.000Z", 3.0),
    ]
    # while its writer may be at it, the last is running: not ended
    last = opened(path, alive=None).runs[-1]
    assert (last.state, last.end_line, last.ended, last.duration) == ("running", None, None, None)
    for batch in (1 << 20, 200):  # followed, in one read and line by line
        live = CODEX.live(str(path))
        follow_into(live.apply, path, batch, live.format.parsed_updates)
        for alive in (False, None):
            assert neutral(live.transcript(writer_alive=alive)) == neutral(opened(path, alive))


def test_an_error_event_is_an_error_line_e_stops_at(tmp_path: Path) -> None:
    """A turn's ``error`` event (and a ``stream_error``) is an error line, where ``e``
    stops; the other events are not, read whole (packed) or fed a line at a time."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "fix it")
    w.event("stream_error", message="Reconnecting... 1/5")
    w.event("background_event", message="still working")
    w.event("error", message="unexpected status 401 Unauthorized")
    w.task_complete("t1")
    path = Path(w.path)
    builder = CODEX.builder(str(path))
    for number, record in enumerate(orjson.loads(line) for line in path.read_bytes().splitlines()):
        builder.lines = number + 1
        builder.feed(record, number + 1)
    for t in (opened(path), builder.transcript(None)):
        errors = [i for i in t.raw if is_what("error", i, {}, kinds_of(t.format))]
        assert [(i.line, i.kind) for i in errors] == [(4, "error"), (6, "error")]
        # (in words, as Claude Code's api_error: their compact JSON was shown, a
        # first-time-user audit; the JSON kept beside them: test_codex_event_words);
        # another event's JSON as it was
        said = [(p.name, p.head) for i in errors for p in i.parts]
        assert said == [
            ("stream_error", "Reconnecting... 1/5"),
            ("error", "unexpected status 401 Unauthorized"),
        ]
        assert [i.kind for i in t.raw if i.line == 5] == ["event"]
        other = next(i for i in t.raw if i.line == 5).parts[0]
        assert other.kind == "other" and other.text.startswith('{"type":"background_event"')
