"""A crashed transcript-v1 file: what its writer left open is said in ``check``'s words by
every surface (``open_work``), the viewer header's ``in flight`` and the exports'
summary too (they said nothing of it: the header "2 tool operations pending" alone, and
its "1 interrupted" beside it, of the same operation); the header says it on a line of
its own ("· 0 compactions" after it read as part of it); and how long an operation
neither settled nor answered ran at least is said alike by the Tools tab and the
exports ("≥0s" on one, a blank on the other: a bound of 0 s says nothing)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from helpers import app_loaded, run_cli, screen_lines

from session_core import Message, Session
from session_core.formats import V1, by_name
from session_core.op_running import ran_by_call
from session_core.scan import scan_file
from viewer.screens.model_screen import ModelScreen

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_transcript

OLD = 1_700_000_000  # (an mtime long past: its writer, which took no lock, is gone)
# What the generated crash left open, in ``check``'s words (one of each: an operation
# running when the writer died, one answered whose settle never landed, a call never
# dispatched, and a last message that is no answer of the model's)
LEFT_OPEN = [
    "2 tool operations pending (1 interrupted and 1 completed, settle never landed)",
    "1 call never dispatched",
    "cut off: its last message is no answer of the model's",
]


@pytest.fixture
def crashed(tmp_path: Path) -> Path:
    path = tmp_path / "v1crash.jsonl"
    gen_transcript.generate(path, 40_000, seed=5, crash=True)
    os.utime(path, (OLD, OLD))
    return path


def test_check_the_row_and_the_exports_say_it_in_the_same_words(
    crashed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run_cli(capsys, "check", str(crashed))
    assert ", ".join(LEFT_OPEN) in out, out
    row = scan_file(crashed)
    assert (row.status, row.reason) == ("crashed", "; ".join(LEFT_OPEN))
    _, md, _ = run_cli(capsys, "export", "--format", "md", str(crashed))
    said = "; ".join(LEFT_OPEN).replace("(", "\\(").replace(")", "\\)")  # (md escapes them)
    assert f"| in flight | {said} |" in md, md[:1500]
    _, html, _ = run_cli(capsys, "export", "--format", "html", str(crashed))
    assert "in flight" in html and "1 call never dispatched" in html


async def test_the_header_says_it_on_a_line_of_its_own(crashed: Path) -> None:
    async with app_loaded(crashed, ModelScreen, (200, 30)) as (app, _pilot):
        lines = [line.strip() for line in screen_lines(app)[1:7]]
        counts = next(line for line in lines if line.startswith("23 lines"))
        # (the operation the Tools tab labels interrupted is said so in both)
        assert "6 tool ops (1 interrupted) · 2 runs · 0 compactions" in counts, lines
        assert "in flight" not in counts, lines
        assert f"in flight: {'; '.join(LEFT_OPEN)}" in lines, lines
        assert not any("pending" in line for line in lines if line.startswith("agent=")), lines


async def test_a_narrow_header_breaks_in_flight_between_its_parts(crashed: Path) -> None:
    async with app_loaded(crashed, ModelScreen, (100, 30)) as (app, _pilot):
        lines = [line.strip() for line in screen_lines(app)[1:9]]
        at = next(i for i, line in enumerate(lines) if line.startswith("in flight:"))
        assert lines[at] == f"in flight: {LEFT_OPEN[0]};", lines
        assert lines[at + 1] == f"{LEFT_OPEN[1]}; {LEFT_OPEN[2]}", lines


def test_the_viewers_snapshot_counts_what_check_does_at_any_writer(crashed: Path) -> None:
    """The header's words are counted from its snapshot's operations (no line read again),
    ``check``'s over the replay: they agree, by the writer as each tells it."""
    from session_core.formats.v1.left_open import left_open
    from session_core.open_work import in_flight_said
    from session_core.reader import replay_file

    state = replay_file(crashed, tolerate_tail=True, facts=True)
    v1 = by_name(V1)
    for alive in (False, None, True):
        said = in_flight_said(v1.open(crashed, writer_alive=alive))
        assert said == ("; ".join(left_open(state, alive)) or None), (alive, said)


def test_an_interrupted_operation_s_bound_of_0s_is_said_by_neither(
    crashed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file's last line is the grep's dispatch: from it to the file's end is 0 s."""
    transcript = by_name(V1).open(crashed, writer_alive=False)
    (grep,) = [op for op in transcript.tool_operations if op.state == "interrupted"]
    assert (grep.call_id, grep.line) not in ran_by_call(transcript)  # (the Tools tab's)
    _, md, _ = run_cli(capsys, "export", "--format", "md", str(crashed))
    (row,) = [line for line in md.splitlines() if line.startswith("| interrupted")]
    assert "≥" not in row and "0s" not in row, row


def test_an_interrupted_operation_s_bound_is_the_same_on_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dispatched, then its sibling ran and its run went on: it ran at least till its run's
    last line, in the Tools tab and the exports alike (the exports left it blank)."""
    path = tmp_path / "t.jsonl"
    calls = [
        {"id": c, "type": "function", "function": {"name": "sh", "arguments": "{}"}}
        for c in ("c1", "c2")
    ]
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_run_context("run-1", "d1")
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="", tool_calls=calls))
        s.append_tool_dispatched("c1", "sh", {}, run_id="run-1")
        time.sleep(0.3)
        op = s.append_tool_dispatched("c2", "sh", {}, run_id="run-1")
        s.append_message(Message(role="tool", content="ok", tool_call_id="c2"))
        s.append_tool_settled(op_id=op, outcome="completed")
    os.utime(path, (OLD, OLD))
    transcript = by_name(V1).open(path, writer_alive=False)
    (first,) = [op for op in transcript.tool_operations if op.call_id == "c1"]
    assert first.state == "interrupted"
    ran = ran_by_call(transcript)[(first.call_id, first.line)]
    assert ran.seconds >= 0.3 and ran.text.startswith("≥0.3"), ran
    _, md, _ = run_cli(capsys, "export", "--format", "md", str(path))
    (row,) = [line for line in md.splitlines() if line.startswith("| interrupted")]
    assert f"| {ran.text} |" in row, row
