"""What a crashed run's writer left in flight is said in one wording everywhere
(``session_core.open_work``): ``check``'s note, the browser's row, the viewer's header
and the exports' summary. ``check`` said "2 interrupted, 1 run interrupted" where the
browser said "1 tool call without a result; 1 turn not finished" of the same Claude Code
file (session 41's audits): its "2" counted a call the user interrupted, whose result
says so, which ended and was in flight no more."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import app_loaded, run_cli, screen_lines

from session_core.formats import by_name
from session_core.open_work import (
    OpenWork,
    agentgo_open_work,
    interrupted_said,
    open_work,
    open_work_said,
    stopped_by_user,
)
from session_core.scan import scan_file
from viewer.screens.model_screen import ModelScreen

OLD = 1_000_000_000.0
# Each crashed story's work in flight: (tool calls without a result, model calls without
# a response, runs not finished), read apart from the product's rules: its tool call
# with no result line in a run the user did not stop, its last run cut off
IN_FLIGHT = {
    "claude-code": "1 tool call without a result; 1 run not finished",
    "codex": "1 tool call without a result; 1 run not finished",
    "agentgo-v1": (
        "1 tool call without a result; 1 model call without a response; 1 run not finished"
    ),
}
# ...and the header's count of its tool operations *interrupted*, as the Tools tab labels
# them: those the user stopped (Claude Code's Esc, whose result says so; Codex's two in
# the turn the user aborted) said, since they are not in flight
INTERRUPTED = {
    "claude-code": "(2 interrupted, 1 of them by the user, 1 failed)",
    "codex": "(3 interrupted, 2 of them by the user, 2 failed)",
    "agentgo-v1": "(1 interrupted, 1 failed)",
}


def crashed(fmt: str, tmp_path: Path) -> Path:
    path = BUILT_IN[fmt](tmp_path)
    os.utime(path, (OLD, OLD))  # (its writer long gone)
    return path


@pytest.mark.parametrize("fmt", sorted(IN_FLIGHT))
def test_check_the_row_and_the_export_say_it_in_the_same_words(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = crashed(fmt, tmp_path)
    words = IN_FLIGHT[fmt]
    _, out, _ = run_cli(capsys, "check", str(path))
    assert f", {words.replace('; ', ', ')}, " in out, out
    # (none of the old words: a call the user interrupted is no work in flight)
    assert " interrupted" not in out, out
    row = scan_file(path)
    assert row.status == "crashed" and (row.reason or "").startswith(words), row.reason
    _, md, _ = run_cli(capsys, "export", "--format", "md", str(path))
    assert f"| in flight | {words} |" in md, md[:2000]


def test_a_call_the_user_interrupted_is_not_in_flight(tmp_path: Path) -> None:
    """The Claude Code story's Esc during a call (its result says interrupted, its turn
    aborted) is a tool operation *interrupted*, as replay lists it, and no work in
    flight: the one call without a result is its last turn's."""
    path = crashed("claude-code", tmp_path)
    model = by_name("claude-code").open(path, writer_alive=False)
    states = [(op.state, op.result_line is None) for op in model.tool_operations]
    assert states.count(("interrupted", False)) == 1  # (the user's Esc: a result)
    assert states.count(("interrupted", True)) == 1
    assert open_work(model) == OpenWork(calls=1, runs=1)
    assert stopped_by_user(model) == 1


def test_the_interrupted_count_says_those_the_user_stopped() -> None:
    assert interrupted_said(2, 0) == "2 interrupted"
    assert interrupted_said(2, 1) == "2 interrupted, 1 of them by the user"
    assert interrupted_said(1_200, 1_200) == "1,200 interrupted by the user"


def test_the_words_running_while_the_writer_may_be_at_work() -> None:
    assert OpenWork(calls_running=2, runs_running=1).said() == [
        "2 tool calls running",
        "1 run running",
    ]
    assert open_work_said(OpenWork()) is None
    assert open_work_said(OpenWork(), ["an unfinished last line"]) == "an unfinished last line"


def test_an_agentgo_view_s_words_are_its_model_s(tmp_path: Path) -> None:
    from session_core.agentgo.reader import read_view

    path = crashed("agentgo-v1", tmp_path)
    view = read_view(path)
    view.writer_alive = False
    assert open_work_said(agentgo_open_work(view)) == IN_FLIGHT["agentgo-v1"]


@pytest.mark.parametrize("fmt", sorted(IN_FLIGHT))
async def test_the_header_says_it_in_check_s_words(fmt: str, tmp_path: Path) -> None:
    path = crashed(fmt, tmp_path)
    async with app_loaded(path, ModelScreen, (200, 30)) as (app, _pilot):
        header = " ".join(screen_lines(app)[1:6])
        assert f"in flight: {IN_FLIGHT[fmt]}" in header, header
        # (a bare "2 interrupted" beside "1 tool call without a result" read as a
        # contradiction: the interrupted ones the user stopped are said)
        assert f"tool ops {INTERRUPTED[fmt]}" in header, header
