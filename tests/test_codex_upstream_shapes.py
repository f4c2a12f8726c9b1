"""What upstream Codex writes that the reader said wrongly (the s39 audit of the reader
against openai/codex): a run the model answered in with no ``token_count`` (0.1x
rollouts wrote none) reads "usage unknown", never "no model request"; an output of a
call the file never had is warned of; a ``turn_aborted`` says its reason."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from codex_helpers import CODEX, opened
from codex_writer import SESSION, RolloutWriter, legacy_story, message_payload
from helpers import app_loaded, wait_for

from session_core.export import export
from session_core.model import Transcript
from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.model_panes import RunsPane, run_entries, usage_short

ORPHAN = 'answers "ghost", which is not an operation this transcript dispatched'


def _both_ways(path: Path) -> list[Transcript]:
    """The file read whole (typed lines), and fed a parsed record at a time (the dict
    path a follow's parsed updates take)."""
    builder = CODEX.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        builder.feed(orjson.loads(raw), number)
    return [opened(path, alive=False), builder.transcript(writer_alive=False)]


# -- a run with model output and no usage report --------------------------------------


def test_a_run_the_model_answered_without_a_token_count_reads_usage_unknown(
    tmp_path: Path,
) -> None:
    """(audit finding 1) An 0.1x rollout has no ``token_count`` lines: its run held a
    reasoning item, a shell call and the answer, yet the Runs tab said "no model request"
    and a blank usage while the header said "usage unknown"."""
    path = tmp_path / "legacy.jsonl"
    legacy_story(str(path))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    for t in _both_ways(path):
        (run,) = t.runs
        assert run.answered and not run.unrequested
        assert run.describe_usage() == "unknown" == t.usage.describe()
        assert usage_short(run.usage, answered=run.answered) == "unknown"
        assert run_entries(run, 0, None)[1][1].endswith(" · usage unknown")
    table = export(path, "md").split("## Runs", 1)[1].split("\n\n## ", 1)[0]
    row = next(line for line in table.splitlines() if "| list the files |" in line)
    assert [c.strip() for c in row.strip().strip("|").split("|")][4] == "unknown", row


def test_a_turn_aborted_before_any_output_still_made_no_model_request(tmp_path: Path) -> None:
    """The other side of the rule: a turn with a prompt and no model output (aborted
    before its request) stays blank, while the next, answered without a report, is
    unknown."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "do it")
    w.event("turn_aborted", turn_id="t1", reason="interrupted")
    w.task_started("t2")
    w.message("user", "again")
    w.event("agent_message", message="done")  # (an event alone: an older writer's answer)
    w.task_complete("t2")
    path = Path(w.path)
    for t in _both_ways(path):
        first, second = t.runs
        assert first.unrequested and first.describe_usage() == ""
        assert usage_short(first.usage, answered=first.answered) == ""
        assert run_entries(first, 0, None)[1][1].endswith(" · no model request")
        assert second.answered and second.describe_usage() == "unknown"
        assert run_entries(second, 1, None)[1][1].endswith(" · usage unknown")


# -- an output whose call the file never had -----------------------------------------


def test_an_output_of_no_call_is_warned_of_with_its_line_and_call_id(tmp_path: Path) -> None:
    """(audit finding 12) An orphan ``function_call_output`` was shown unpaired and said
    nowhere. An output of a call folded into a compaction's history is no orphan."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    w.function_call("shell", {"command": ["ls"]}, "c1")
    w.function_output("c1", "a.txt")
    w.function_output("c1", "again")  # (its call's, answered twice: no orphan)
    folded = {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c9"}
    w.compacted("summary", [message_payload("user", "go"), folded])
    w.function_output("c9", "late")  # its call is in the history the compaction kept
    orphan = w.function_output("ghost", "orphan output")
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        said = [warning for warning in t.warnings if "answers" in warning]
        assert said == [f"line {orphan}: {ORPHAN} (shown unpaired)"], t.warnings


def test_an_output_naming_no_call_id_or_a_number_is_warned_of_too(tmp_path: Path) -> None:
    """(review 1, finding 5) An output whose ``call_id`` is a number, or that has none,
    answers no call either: warned of as the others (its id quoted as JSON writes it, as
    every warning quotes a value, ``true`` not Python's ``True``, inert; none: "no call
    id"), where both were shown unpaired without a word."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    output = {"type": "function_call_output", "output": "x"}
    number = w.write("response_item", {**output, "call_id": 5})
    marked = w.write("response_item", {**output, "call_id": {"a": "[red]\x1b[2J"}})
    flag = w.write("response_item", {**output, "call_id": True})
    missing = w.write("response_item", output)
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        said = [warning for warning in t.warnings if "answers" in warning]
        assert said == [
            f"line {number}: answers 5, which is not an operation this transcript "
            "dispatched (shown unpaired)",
            f'line {marked}: answers {{"a":"[red]\\u001b[2J"}}, which is not an operation '
            "this transcript dispatched (shown unpaired)",
            f"line {flag}: answers true, which is not an operation this transcript "
            "dispatched (shown unpaired)",
            f"line {missing}: an output with no call id answers no operation (shown unpaired)",
        ], t.warnings
        assert not any("\x1b" in warning for warning in t.warnings)


def test_an_output_whose_call_id_is_empty_names_no_call(tmp_path: Path) -> None:
    """An output whose ``call_id`` is ``""`` was warned of as answering ``''`` and its
    part named that id: an empty id names no call, warned of and shown as one with no id;
    a call whose ``call_id`` is ``""`` (named by its line) is not answered by it."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    call = w.function_call("shell", {"command": ["ls"]}, "")
    empty = w.function_output("", "x")
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        said = [warning for warning in t.warnings if "answers" in warning]
        assert said == [
            f"line {empty}: an output with no call id answers no operation (shown unpaired)"
        ], t.warnings
        (op,) = t.tool_operations
        assert (op.call_id, op.line, op.result_line) == (f"L{call}", call, None), op
        (answer,) = [i for i in t.raw if i.line == empty]
        assert [(p.kind, p.call_id) for p in answer.parts] == [("tool-result", None)]
        (sent,) = [m for m in t.to_json()["messages"] if m["role"] == "tool"]
        assert sent["tool-call-id"] is None, sent


# -- why a turn was aborted -----------------------------------------------------------


def test_an_aborted_turn_says_its_reason_inert(tmp_path: Path) -> None:
    """(audit finding 9) ``turn_aborted``'s reason (``replaced``: a new prompt superseded
    the turn) was in its raw line alone; the Runs detail and the export say it, on one
    line and inert."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "first")
    w.event("turn_aborted", turn_id="t1", reason="replaced")
    w.task_started("t2")
    w.message("user", "second")
    w.event("turn_aborted", turn_id="t2", reason="\x1b[31m[bold]odd[/]\nnext")
    w.task_started("t3")
    w.message("user", "third")
    w.event("turn_aborted", turn_id="t3")  # (no reason: none said)
    path = Path(w.path)
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    for t in _both_ways(path):
        first, second, third = t.runs
        assert (first.state, first.reason) == ("aborted", "replaced")
        assert run_entries(first, 0, None)[0][1].startswith("run 1  t1  aborted (replaced)  ")
        header = run_entries(second, 1, None)[0][1]
        assert "\x1b" not in header and "\n" not in header and "odd" in header
        assert third.reason is None and third.state_said() == "aborted"
        assert "reason" not in first.to_json()  # (the JSON's keys as they were)
    md = export(path, "md").replace("\\", "")  # (its escapes of md)
    assert "| t1 | aborted (replaced) |" in md


# -- an undo checkpoint; a prompt's image in the JSON --------------------------------


def test_a_ghost_snapshot_is_named_an_undo_snapshot_and_kept_whole(tmp_path: Path) -> None:
    """(audit finding 10) ``ghost_snapshot`` (upstream's undo checkpoint) read as its
    raw JSON; it is named by its commit, its payload kept whole as the part's data, and
    it is still never sent (the raw view's record alone)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "edit it")
    commit = {"id": "deadbeef", "parent": "cafebabe", "preexisting_untracked_files": []}
    payload = {"type": "ghost_snapshot", "ghost_commit": commit}
    line = w.write("response_item", payload)
    w.write("response_item", {"type": "ghost_snapshot", "ghost_commit": None})
    w.task_complete("t1")
    for t in _both_ways(Path(w.path)):
        ghost, bare = (i for i in t.raw if i.line >= line and i.kind == "record")
        assert [(p.name, p.text, p.data) for p in ghost.parts] == [
            ("ghost_snapshot", "undo snapshot deadbeef", payload)
        ]
        assert bare.parts[0].text == "undo snapshot (no id)"
        assert all(m.line < line for m in t.messages)
    raw_md = export(Path(w.path), "md", view="raw").replace("\\", "")
    assert "undo snapshot deadbeef" in raw_md


def test_a_prompts_image_is_in_its_json_content_as_the_viewer_says_it(tmp_path: Path) -> None:
    """(audit finding 11) A user message's ``input_image`` showed ``[image image/jpeg]``
    in the viewer and the md export, but the replay JSON's content dropped it (a tool
    output's image was there): the same words, no new key."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    image = {"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/AAAA"}
    prompt = message_payload("user", "what is this")
    prompt["content"].append(image)
    w.write("response_item", prompt)
    w.message("assistant", "a cat")
    w.task_complete("t1")
    path = Path(w.path)
    for t in _both_ways(path):
        said = [m.to_json() for m in t.messages if m.role == "user"]
        assert said[-1] == {
            "id": said[-1]["id"],
            "role": "user",
            "content": "what is this\n[image image/jpeg]",
            "ts": said[-1]["ts"],
        }
    replayed = orjson.loads(export(path, "json"))
    assert "what is this\n[image image/jpeg]" in [m["content"] for m in replayed["messages"]]


# -- in the viewer: the Runs tab's usage, a fork's header ---------------------------

PARENT = "019b0000-0000-7000-8000-0000000000p0"


async def test_the_runs_tab_says_unknown_and_a_fork_header_names_its_parent(
    tmp_path: Path,
) -> None:
    """(audit findings 1 and 8) The Runs tab's usage cell of a run the model answered in
    with no report read blank; a fork's header did not say it was one (``peek`` and the
    replay's meta did): ``forked_from_id=…``, the file's own word, as every fact."""
    path = tmp_path / "fork.jsonl"
    w = RolloutWriter(path)
    w.session_meta(forked_from_id=PARENT)
    w.session_meta(PARENT)  # (the parent's history, copied as Codex copies it)
    w.task_started("t1")
    w.message("user", "parent prompt")
    w.message("assistant", "parent answer")
    w.task_complete("t1")
    w.task_started("t2")
    w.message("user", "child prompt")
    w.task_complete("t2")  # (no model request)
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, (160, 30)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        header = str(screen.query_one("ModelStatus").render())
        assert f"forked_from_id={PARENT}" in header, header
        assert SESSION not in header
        screen.action_show_tab("runs")
        await wait_for(pilot, lambda: bool(app.query(RunsPane)))
        pane = app.query_one(RunsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 2)
        assert pane.table.column_cells("usage") == ["unknown", ""]


def test_a_claude_code_prompts_image_is_in_its_json_content_too(tmp_path: Path) -> None:
    """The rule is the neutral model's (``Item.to_json``): a Claude Code prompt's image
    placeholder is in its replay content as its md export has it."""
    from claude_code_writer import CCWriter, text

    w = CCWriter()
    w.user([text("look"), {"type": "image", "source": {"media_type": "image/png"}}])
    path = w.write(tmp_path / "session.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    messages = orjson.loads(export(path, "json"))["messages"]
    assert [m["content"] for m in messages] == ["look\n[image image/png]"]
    assert "[image image/png]" in export(path, "md")
