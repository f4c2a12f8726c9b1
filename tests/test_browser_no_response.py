"""A file whose run made no model response: the browser's row says its usage "none", as
its header, ``check`` and the export say "none (no model response)"
(``usage_totals.made_none``), where and only where they do; a model call still in flight
(no end yet) is a response not reported: unknown in the row as in the header (session
41's audit: the row said "unknown" of a file its header said made none)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from claude_code_writer import CCWriter
from codex_writer import RolloutWriter
from helpers import run_cli
from test_agentgo_refused_attempt import _write as refused_run

from corpus import usage, write_corpus
from session_core import Message, Session
from session_core.formats import by_name
from session_core.scan import FileSummary, scan_file
from session_core.scan_live import LiveRows
from session_core.usage_totals import NO_RESPONSE
from viewer.browser_cells import COLUMNS, cells, detail, sort_key, totals

OLD = 1_000_000_000.0
AT = {key: index for index, (key, _, _) in enumerate(COLUMNS)}


def v1_prompt_only(path: Path) -> Path:
    with Session.create(path, meta={"agent": "a", "model": "m"}) as s:
        s.append_message(Message(role="user", content="Is anyone there?"))
    return path


def codex_prompt_only(path: Path) -> Path:
    w = RolloutWriter(path)
    w.session_meta()
    w.turn_context("t1")
    w.write("event_msg", {"type": "task_started", "turn_id": "t1"})
    w.message("user", "Is anyone there?")
    w.write("event_msg", {"type": "task_complete", "turn_id": "t1"})
    return path


def claude_prompt_only(path: Path) -> Path:
    w = CCWriter()
    w.user("Is anyone there?")
    return w.write(path)


def agentgo_refused(path: Path) -> Path:
    return refused_run(path, {"error": "429 rate limited"}, only=True)


NONE_MADE = {
    "transcript-v1": v1_prompt_only,
    "codex": codex_prompt_only,
    "claude-code": claude_prompt_only,
    "agentgo-v1": agentgo_refused,
}


def row_and_header(path: Path) -> tuple[FileSummary, bool, str]:
    os.utime(path, (OLD, OLD))
    row = scan_file(path)
    assert row.format is not None, row.reason
    model = by_name(row.format).open(path, writer_alive=False)
    return row, model.made_no_response(), model.usage.describe(model.made_no_response())


def usage_cells(row: FileSummary) -> tuple[str, str]:
    shown = cells(row, 30)
    return shown[AT["tokens"]].plain, shown[AT["cost"]].plain


@pytest.mark.parametrize("fmt", sorted(NONE_MADE))
def test_a_file_that_made_no_response_says_none_in_its_row(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = NONE_MADE[fmt](tmp_path / "s.jsonl")
    row, none, header = row_and_header(path)
    assert row.format == fmt and none and header == NO_RESPONSE
    _, out, _ = run_cli(capsys, "check", str(path))
    assert f"usage {NO_RESPONSE}" in out  # (check: the same rule)
    assert usage_cells(row) == ("none", "none")
    assert f"usage {NO_RESPONSE}" in detail(row, str(path)).plain
    # the footer: known, none (not "usage unknown in 1")
    footer = totals([row], 1).plain
    assert "tokens 0" in footer and "unknown" not in footer, footer
    assert (row.tokens, row.cost, row.no_response) == (None, None, True)


def test_only_where_the_header_says_none(tmp_path: Path) -> None:
    """Every corpus file and a format's full story: the row says "none" exactly where
    the header does; a crashed agentgo run whose model call has no end yet is unknown."""
    from format_fixtures import BUILT_IN

    corpus = write_corpus(tmp_path / "corpus")
    paths = [p for p in sorted(corpus.rglob("*.jsonl")) if p.name != "notes.jsonl"]
    paths += [BUILT_IN[fmt](tmp_path / fmt.replace("-", "_")) for fmt in sorted(BUILT_IN)]
    seen = set()
    for path in paths:
        row = scan_file(path)
        if not row.counts_known:
            continue
        _, none, _ = row_and_header(path)
        said = usage_cells(scan_file(path))
        assert ("none" in said) == none, (path, said)
        assert row.no_response == none
        seen.add(said[0])
    assert "unknown" in seen  # (go-crashed: its model call in flight)
    crashed = scan_file(corpus / "agentgo" / "go-crashed.jsonl")
    assert usage_cells(crashed) == ("unknown", "unknown") and not crashed.no_response


def test_none_sorts_below_every_reported_total_and_above_unknown(tmp_path: Path) -> None:
    none = scan_file(v1_prompt_only(tmp_path / "none.jsonl"))
    corpus = write_corpus(tmp_path / "corpus")
    some = scan_file(corpus / "v1-finished.jsonl")
    unknown = scan_file(corpus / "agentgo" / "go-crashed.jsonl")
    rows = [unknown, some, none]
    for column in ("tokens", "cost"):
        assert sorted(rows, key=sort_key(column)) == [none, some, unknown]
        down = sorted(rows, key=sort_key(column, True), reverse=True)
        assert down == [some, none, unknown]


def test_a_live_row_says_none_until_the_model_answers(tmp_path: Path) -> None:
    path = v1_prompt_only(tmp_path / "live.jsonl")
    rows = LiveRows()
    before = scan_file(path, now=OLD)
    assert usage_cells(before) == ("none", "none")
    with Session.load(path) as session:
        session.append_message(Message(role="assistant", content="Yes."), usage(10, 2, 0.001))
    after = rows.summary(str(path), before, now=OLD)
    assert after is not None and usage_cells(after)[0] == "12"
    assert not after.no_response


def test_a_big_file_s_row_read_from_its_tail_does_not_say_none(tmp_path: Path) -> None:
    """A windowed read did not read the whole file: none it cannot say (unknown, as a
    tail with no response says it), though the header, reading it all, does."""
    path = v1_prompt_only(tmp_path / "big.jsonl")
    row = scan_file(path, budget=100, window=2_000)
    assert row.estimated and usage_cells(row) == ("unknown", "unknown")
    assert not row.no_response
