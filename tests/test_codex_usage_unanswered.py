"""A Codex turn that ends on a model output with no ``token_count`` after it (the writer
died, or the turn was aborted first): that response is one that could have reported
and did not (audit P, session 41: it dropped out of the responses count, so the file's
total read exact, "1 of 1", while its turn said usage unknown). Every surface counts it:
``check``, the export, the browser's row, the model's total, its turn and its item."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, Totals
from helpers import run_cli

from session_core.file_lines import read_records
from session_core.model import Transcript
from session_core.scan import scan_file

MODEL = "gpt-5"


def _report(w: RolloutWriter, total: Totals, last: Totals) -> None:
    w.token_count(total, last, limits=False)


def _asked(w: RolloutWriter, turn: str) -> None:
    """A turn begun: its context and its prompt."""
    w.task_started(turn)
    w.turn_context(turn, model=MODEL)
    w.message("user", f"prompt {turn}")


def _answered(w: RolloutWriter, turn: str, answer: str | None = None) -> None:
    """A turn begun and answered, no report after the answer (yet)."""
    _asked(w, turn)
    w.message("assistant", answer if answer is not None else f"answer {turn}")


def _reported_turn(w: RolloutWriter, turn: str) -> None:
    _answered(w, turn)
    _report(w, (1000, 0, 100, 0), (1000, 0, 100, 0))
    w.task_complete(turn)


def _died(path: Path) -> RolloutWriter:
    """A turn that reports; a second answered, the writer gone before its report."""
    w = RolloutWriter(path)
    w.session_meta()
    _reported_turn(w, "t0")
    _answered(w, "t1")
    return w


def _counts(t: Transcript) -> list[tuple[int, int]]:
    return [(r.usage.reported, r.usage.responses) for r in t.runs]


def test_an_answer_the_writer_died_before_reporting_is_a_response_not_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = Path(_died(tmp_path / "r.jsonl").path)
    t = opened(path, alive=False)
    u = t.usage
    assert (u.tokens, u.reported, u.responses) == (1100, 1, 2)  # (was 1 of 1)
    assert u.tokens_partial and u.cost_partial
    assert _counts(t) == [(1, 1), (0, 1)]
    answers = [m.usage for m in t.messages if m.role == "assistant"]
    assert [(a.reported, a.responses) if a else None for a in answers] == [(1, 1), (0, 1)]
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and out.endswith("· 1 of 2 responses reported)\n")
    code, out, _ = run_cli(capsys, "export", "--format", "md", str(path))
    assert "| this file | 1 of 2 |" in out
    assert out.count("usage: unknown \\(not reported\\)") == 1  # (answer t1's)
    code, out, _ = run_cli(capsys, "replay", str(path))
    assert orjson.loads(out)["usage"]["reported"] == 1
    row = scan_file(path, live_window=0)
    assert (row.tokens, row.tokens_partial, row.cost_partial) == (1100, True, True)


def test_an_aborted_turn_with_no_report_is_unknown_until_a_total_holds_it(
    tmp_path: Path,
) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    _reported_turn(w, "t0")
    _answered(w, "t1", "half an answer")
    w.turn_aborted("t1")
    _answered(w, "t2")
    # the total holds t1's 300 + 30 past t2's own 1000 + 100
    _report(w, (2300, 0, 230, 0), (1000, 0, 100, 0))
    w.task_complete("t2")
    t = opened(Path(w.path), alive=False)
    assert (t.usage.tokens, t.usage.reported, t.usage.responses) == (2530, 3, 3)
    assert not t.usage.tokens_partial
    assert [r.usage.tokens for r in t.runs] == [1100, 330, 1100]  # (t1's was t2's)


def test_a_report_after_the_answer_takes_the_unknown_back(tmp_path: Path) -> None:
    """Followed: a snapshot before the report says the answer's usage unknown; the
    report, once written, is that response's (counted once, its item says it)."""
    w = _died(tmp_path / "r.jsonl")
    path = Path(w.path)
    _report(w, (2000, 0, 200, 0), (1000, 0, 100, 0))
    builder = CODEX.builder(str(path))
    records = [(n, v) for n, v, _ in read_records(str(path))]
    for n, v in records[:-1]:
        builder.lines = n
        builder.feed(v, n)
    before = builder.transcript(None)
    assert (before.usage.reported, before.usage.responses) == (1, 2)
    assert [m.usage.reported for m in before.messages if m.role == "assistant" and m.usage] == [
        1,
        0,
    ]
    n, v = records[-1]
    builder.lines = n
    builder.feed(v, n)
    after = builder.transcript(None)
    assert (after.usage.tokens, after.usage.reported, after.usage.responses) == (2200, 2, 2)
    answers = [m.usage for m in after.messages if m.role == "assistant"]
    assert [a.tokens if a else None for a in answers] == [1100, 1100]
    assert after.to_json() == opened(path).to_json()


def test_a_writer_that_reports_before_the_output_is_no_unknown(tmp_path: Path) -> None:
    """Older writers put a request's report before its output: a turn ending on an output
    is no response unreported there, a turn answered with no report in it is."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    _asked(w, "t0")
    _report(w, (1000, 0, 100, 0), (1000, 0, 100, 0))
    w.message("assistant", "answer t0")
    w.task_complete("t0")
    t = opened(Path(w.path), alive=False)
    assert (t.usage.reported, t.usage.responses, _counts(t)) == (1, 1, [(1, 1)])
    _answered(w, "t1")
    t = opened(Path(w.path), alive=False)
    assert (t.usage.reported, t.usage.responses, _counts(t)) == (1, 2, [(1, 1), (0, 1)])


def test_one_report_before_its_output_does_not_make_the_whole_file_an_older_writers(
    tmp_path: Path,
) -> None:
    """A report that came before its output (after a compaction) once: a later turn whose
    last answer has no report after it still counts that response unreported (review 2:
    the first such report switched the rule off for the rest of the file). Followed line
    by line, the end agrees with a whole read."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    _reported_turn(w, "t0")
    _asked(w, "t1")
    w.compacted("summary", None)
    w.event("context_compacted")
    _report(w, (1500, 0, 150, 0), (500, 0, 50, 0))  # (before its output)
    w.message("assistant", "answer t1")
    _report(w, (2500, 0, 250, 0), (1000, 0, 100, 0))
    w.task_complete("t1")
    _answered(w, "t2")
    _report(w, (3500, 0, 350, 0), (1000, 0, 100, 0))
    w.function_call("shell", {"command": ["ls"]}, "c2")
    w.function_output("c2", "o")
    w.message("assistant", "second answer t2: the writer died before its report")
    path = Path(w.path)
    whole = opened(path, alive=False)
    assert (whole.usage.reported, whole.usage.responses) == (4, 5)  # (was 4 of 4)
    assert whole.usage.tokens_partial
    assert _counts(whole)[-1] == (1, 2)
    builder = CODEX.builder(str(path))
    for n, v, _ in read_records(str(path)):
        builder.lines = n
        builder.feed(v, n)
        builder.transcript(None)  # (a snapshot after every line, as a follower takes)
    followed = builder.transcript(None)
    assert (followed.usage.reported, followed.usage.responses) == (4, 5)
    assert followed.to_json() == opened(path).to_json()
