"""How a Claude Code turn's end is said where the model did not simply end it: a turn
that ended on Claude Code's own API-error message (*failed*, on every surface, and its
line listed by ``diff``), and a last answer that stopped for a stated reason (a refusal,
the token limit: *finished*, marked with why, not interrupted). Shapes as 1.0.x and
2.x write them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, text, usage
from helpers import run_cli

from session_core.export import export
from session_core.scan import scan_file
from viewer.browser_cells import status_cell

OVERLOADED = (
    'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
)


def _overloaded(w: CCWriter) -> None:
    """1.0.x's line once an API call failed for good (v1.py of the audit)."""
    w.env(
        "assistant",
        message={
            "id": "0bfd2f7e-synth-msg",
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>",
            "content": [text(OVERLOADED)],
            "stop_reason": "stop_sequence",
            "stop_sequence": "",
            "usage": {**usage(0, 0), "server_tool_use": {"web_search_requests": 0}},
        },
        isApiErrorMessage=True,
    )


def _session(tmp_path: Path) -> Path:
    w = CCWriter(version="1.0.51")
    w.user("Fix the bug")
    w.assistant("m1", [text("Fixed.")], usage=usage(10, 20), stop="end_turn")
    w.user([text("Look at this screenshot")])
    _overloaded(w)
    w.user("try again")
    w.assistant("m2", [text("Done.")], usage=usage(10, 20), stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


def test_a_turn_that_ended_on_an_api_error_failed_on_every_surface(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The turn read *finished* with no sign of the error (a later prompt came): it is
    *failed*, as an agentgo run whose loop ended in an error; ``check`` counts it, the
    browser's row says it, and the turns around it are as they were."""
    path = _session(tmp_path)
    t = both(path, monkeypatch)
    assert [r.state for r in t.runs] == ["finished", "failed", "finished"]
    assert (t.runs[1].line, t.runs[1].end_line) == (3, 4)
    assert "1 run failed" in run_cli(capsys, "check", str(path))[1]
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)  # the writer long gone
    row = scan_file(path)
    assert (row.status, row.failed_runs) == ("finished", 1)
    assert status_cell(row).plain == "failed"
    replayed = json.loads(run_cli(capsys, "replay", str(path))[1])
    assert [r["state"] for r in replayed["runs"]] == ["finished", "failed", "finished"]


def test_diff_lists_the_api_error_line_as_not_sent_with_its_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``diff`` counted the line among the items as written and listed it nowhere (it
    kept message kinds alone): it is ``-``, not sent, with what it says."""
    path = _session(tmp_path)
    out = run_cli(capsys, "diff", str(path))[1]
    assert "6 items as written, 5 items sent next" in out
    (row,) = [r for r in out.splitlines() if "line      4" in r]
    assert row.startswith("- line      4 assistant API Error: 529"), row
    assert row.endswith("[error]"), row
    assert "an error)" in out  # (the legend says why such a line is not sent)


def _stopped(tmp_path: Path, stop: str, blocks: list[dict[str, Any]]) -> Path:
    w = CCWriter(version="2.0.50")
    w.user("go")
    w.assistant("m1", blocks, usage=usage(10, 50), stop=stop)
    return w.write(tmp_path / f"{stop}.jsonl")


@pytest.mark.parametrize("stop", ["refusal", "max_tokens", "pause_turn", "stop_sequence"])
def test_a_last_answer_that_stopped_for_a_stated_reason_finished_its_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: str
) -> None:
    """A last response saying ``refusal`` (or the token limit...) and nothing after it
    read *interrupted*: the model answered and stopped, saying why. Its turn finished,
    and its message is marked with the reason, as v1's and agentgo's are."""
    path = _stopped(tmp_path, stop, [text("partial")])
    t = both(path, monkeypatch)
    assert [r.state for r in t.runs] == ["finished"]
    assert t.raw[-1].marks == [f"finish {stop}"]
    assert f"finish {stop.replace('_', chr(92) + '_')}" in export(path, "md")
    # (a response that ended its turn says nothing more)
    plain = _stopped(tmp_path, "end_turn", [text("all done")])
    assert FMT.open(plain, writer_alive=False).raw[-1].marks == []


def test_a_call_the_last_response_left_open_is_still_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tool_use`` with no result after it is a call left open, as before; so is one
    in a response cut at the token limit."""
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    for stop in ("tool_use", "max_tokens"):
        t = both(_stopped(tmp_path, stop, [text("running"), call]), monkeypatch)
        assert [r.state for r in t.runs] == ["interrupted"], stop


def test_a_stop_reason_said_by_a_later_batch_marks_the_message_already_shown(
    tmp_path: Path,
) -> None:
    """A followed file: the response's first line (no stop reason yet) is assembled,
    then its last says ``max_tokens``: the message, marked already, is marked again, as a
    whole read marks it."""
    w = CCWriter(version="2.1.39")
    w.user("go")
    w.assistant("m1", [text("a long"), text("answer")], usage=usage(10, 50), stop="max_tokens")
    w.user("more")
    path = w.write(tmp_path / "s.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    b = FMT.builder(str(path))
    for number, record in enumerate(records[:2], 1):
        b.feed(record, number)
    assert b.transcript(True).raw[1].marks == []
    for number, record in enumerate(records[2:], 3):
        b.feed(record, number)
    followed = b.transcript(None)
    assert followed.raw[1].marks == ["finish max_tokens"]
    assert followed.to_json() == FMT.open(path, writer_alive=None).to_json()
