"""A Codex run's item count is the items the conversation shows of it (messages, calls,
results), whichever lines carried them: response items, newer writers' ``item_completed``
events (a paginated rollout has no response items: its runs counted 0), or older
writers' ``user_message`` / ``agent_message`` events; never one twice where a better
source says the same again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter
from helpers import follow_into, neutral

from session_core.model import Transcript


def _completed(w: RolloutWriter, turn: str, prompt: str) -> None:
    """A turn only in ``item_completed`` events (review 1, finding 6: ``ic.jsonl``)."""
    w.task_started(turn)
    w.turn_context(turn)
    w.item_completed({"type": "UserMessage", "id": f"u{turn}",
                      "content": [{"type": "text", "text": prompt}]}, turn)  # fmt: skip
    w.item_completed({"type": "CommandExecution", "id": f"c{turn}",
                      "command": ["bash", "-lc", "make"], "cwd": "/x",
                      "aggregated_output": "ok\n", "exit_code": 0, "status": "completed"},
                     turn)  # fmt: skip
    w.item_completed({"type": "WebSearch", "id": f"w{turn}", "query": "codex docs"}, turn)
    w.item_completed({"type": "FileChange", "id": f"f{turn}", "status": "completed",
                      "changes": {"a.py": {"type": "add", "content": "x\n"}}}, turn)  # fmt: skip
    w.item_completed({"type": "AgentMessage", "id": f"a{turn}", "text": "done"}, turn)
    w.task_complete(turn)


def _events(w: RolloutWriter, turn: str, prompt: str) -> None:
    """A turn an older writer wrote as events alone."""
    w.task_started(turn)
    w.event("user_message", message=prompt, kind="plain")
    w.event("agent_reasoning", text="thinking")
    w.event("agent_message", message="done")
    w.task_complete(turn)


def _shown(t: Transcript) -> list[int]:
    """How many of the conversation's items are in each run (by its lines; one its end
    event made: from the previous one's end)."""
    out, before = [], 0
    for run in t.runs:
        end = run.end_line or t.lines
        start = before + 1 if run.line == end else run.line
        out.append(sum(1 for m in t.messages if start <= m.line <= end))
        before = end
    return out


def _same_followed(path: Path) -> None:
    for batch in (1 << 20, 60):
        live = CODEX.live(str(path))
        follow_into(live.apply, path, batch, live.format.parsed_updates)
        for alive in (False, None):
            assert neutral(live.transcript(writer_alive=alive)) == neutral(opened(path, alive))


@pytest.mark.parametrize("write", [_completed, _events])
def test_a_runs_items_are_those_the_conversation_shows(tmp_path: Path, write: Any) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.150.0")
    write(w, "t1", "run make")
    write(w, "t2", "again")
    path = Path(w.path)
    for alive in (False, None):
        t = opened(path, alive)
        items = [r.items for r in t.runs]
        assert items == _shown(t) and all(items)  # (read 0 in the Runs tab)
        assert sum(items) == len(t.messages)
    _same_followed(path)


def test_items_a_better_source_says_again_are_counted_once(tmp_path: Path) -> None:
    """A turn's ``item_completed`` message, then the response items saying it again: the
    conversation is the response items', and so is the count."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.150.0")
    _completed(w, "t1", "run make")
    w.task_started("t2")
    w.item_completed({"type": "AgentMessage", "id": "early", "text": "hi"}, "t2")
    w.message("user", "again")
    w.message("assistant", "hi")
    w.task_complete("t2")
    path = Path(w.path)
    t = opened(path)
    assert [r.items for r in t.runs] == [0, 2] == _shown(t)
    _same_followed(path)


@pytest.mark.parametrize("completed", [False, True])
def test_a_turn_the_file_starts_inside_counts_the_items_before_its_end(
    tmp_path: Path, completed: bool
) -> None:
    """The run a turn's end event makes (no ``task_started``: a resumed turn) holds the
    items shown since the previous run ended (it counted 0 though the conversation
    showed its answer), as it holds their usage."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.150.0")
    if completed:
        w.item_completed({"type": "AgentMessage", "id": "a0", "text": "resumed answer"}, "t0")
    else:
        w.message("assistant", "resumed answer")
        w.message("assistant", "and more")
    w.task_complete("t0")
    (_completed if completed else _events_as_responses)(w, "t1", "next")
    path = Path(w.path)
    for alive in (False, None):
        t = opened(path, alive)
        items = [r.items for r in t.runs]
        assert items == _shown(t) and items[0] == (1 if completed else 2)
        assert sum(items) == len(t.messages)
    _same_followed(path)


def _events_as_responses(w: RolloutWriter, turn: str, prompt: str) -> None:
    w.task_started(turn)
    w.message("user", prompt)
    w.message("assistant", "ok")
    w.task_complete(turn)
