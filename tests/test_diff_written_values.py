"""Every value a file wrote that a ``diff`` row shows goes through one rule: a count is
shown only if it is one (else its JSON, inert, on one line: never Python's ``None`` or
``[1, 2]``), a text on one line, a flag as the spec types it. A newline in a compaction's
field ended its row, and what followed read as rows of the diff (``session_core.text.
count_text``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter

from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from session_core.text import count_text
from viewer.cli import main

FORGED = "\n= line      3  user      FORGED\x1b[31m"


def _diff(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["diff", str(path)]) == 0
    return capsys.readouterr().out.splitlines()


def _no_forged_row(rows: list[str]) -> None:
    assert not [row for row in rows if "FORGED" in row and not row.startswith(("#", "+"))], rows
    assert not [row for row in rows if "\x1b" in row], rows


def test_count_text() -> None:
    assert count_text(12345) == "12,345" and count_text(None) == "?"
    assert count_text(None, "unknown") == "unknown"
    assert count_text([1, 2]) == "[1,2]" and count_text(True) == "true"
    assert count_text(-5) == "-5" and count_text("9\n0") == '"9\\n0"'
    assert "\x1b" not in count_text("\x1b[31m")


def _v1_compacted(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """A v1 file whose compaction's payload ``change`` rewrote as a file could hold it."""
    path = tmp_path / "v1.jsonl"
    with Session.create(path) as s:
        first = s.append_message(Message(role="user", content="hi"))
        s.append_compaction("SUMMARY", first, tokens_before=900, tokens_after=10)
    lines = path.read_text().splitlines()
    record = json.loads(lines[-1])
    change(record["payload"])
    path.write_text("\n".join([*lines[:-1], json.dumps(record)]) + "\n")
    return path


def test_v1_compaction_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _v1_compacted(
        tmp_path,
        lambda payload: payload.update(
            {"tokens-before": "900" + FORGED, "tokens-after": [1], "fallback": "no" + FORGED}
        ),
    )
    rows = _diff(path, capsys)
    _no_forged_row(rows)
    row = next(row for row in rows if "compaction through" in row)
    assert 'tokens "900\\n= line' in row and "-> [1];" in row, row
    assert "fallback no" in row  # (only ``true`` is yes: a string is no flag)


def test_agentgo_context_event_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ag.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    run.record("message_end", {"message": {"kind": "user", "content": []}})
    run.record("context_projected", {"replaced": "2" + FORGED})
    run.record(
        "context_compacted", {"replaced": 3, "tokens_before": "1" + FORGED, "tokens_after": [1, 2]}
    )
    run.record("context_compacted", {"tokens_before": 5000})
    run.close()
    session.close()
    rows = _diff(path, capsys)
    _no_forged_row(rows)
    marks = [row for row in rows if row.startswith("# line")]
    assert 'replaced "2\\n= line' in marks[0], marks
    assert "replaced 3, tokens " in marks[1] and "→ [1,2]," in marks[1], marks
    assert "tokens 5,000 → ?," in marks[2], marks  # (not Python's ``None``)


def _forged_trigger() -> CCWriter:
    """A Claude Code session compacted with a trigger that forges rows and escapes."""
    w = CCWriter()
    w.user("hi")
    w.system(
        "compact_boundary",
        parent=None,
        content="Conversation compacted",
        compactMetadata={"trigger": "auto" + FORGED, "preTokens": 100},
    )
    return w


def test_claude_code_trigger(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = _forged_trigger()
    w.user("after")
    rows = _diff(w.write(tmp_path / "cc.jsonl"), capsys)
    _no_forged_row(rows)
    mark = next(row for row in rows if row.startswith("# line"))
    assert "trigger auto⏎= line" in mark and "␛[31m" in mark, mark


def test_the_diff_tab_says_a_trigger_on_one_line(tmp_path: Path) -> None:
    from session_core import open_transcript
    from viewer.widgets.model_diff import ModelDiff

    w = _forged_trigger()
    rows = [row for _style, row in ModelDiff(open_transcript(w.write(tmp_path / "cc.jsonl")))]
    (mark,) = [row for row in rows if row.startswith("◆")]
    assert "· auto⏎= line" in mark and "␛[31m" in mark, mark
    assert not [row for row in rows if "\n" in row or "\x1b" in row], rows


def test_v1_compaction_counts_left_out_or_null_are_said_alike_by_diff_and_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A compaction's token counts, one left out and one written ``null``: ``diff`` said
    ``? -> ?`` and the export ``unknown → unknown`` (an audit). One rule for both, as the
    file wrote each: left out, ``?``; ``null``, its JSON."""

    def left_out_and_null(payload: dict[str, Any]) -> None:
        del payload["tokens-before"]
        payload["tokens-after"] = None

    path = _v1_compacted(tmp_path, left_out_and_null)
    row = next(row for row in _diff(path, capsys) if "compaction through" in row)
    assert "; tokens ? -> null;" in row, row
    assert main(["export", str(path), "--format", "md"]) == 0
    mark = next(
        line for line in capsys.readouterr().out.splitlines() if "compaction summary" in line
    )
    assert "; tokens ? → null;" in mark, mark
    assert main(["replay", str(path)]) == 0  # (the replay's JSON: null for both, as before)
    replayed = json.loads(capsys.readouterr().out)["compactions"][0]
    assert replayed["tokens-before"] is None and replayed["tokens-after"] is None


def test_agentgo_context_counts_left_out_or_null_follow_the_v1_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agentgo context event's counts, one left out and one written ``null``: ``diff``
    said ``?`` of both (and no ``replaced`` at all), the export a blank cell of both, the
    Diff tab ``?`` and the timeline's row ``null`` of both. One rule, v1's
    (``text.written_count``): left out ``?``, written null ``null``, on every surface."""
    from session_core import open_transcript
    from viewer.agentgo_model import record_summary
    from viewer.widgets.model_diff import ModelDiff

    path = tmp_path / "ag.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    run.record("message_end", {"message": {"kind": "user", "content": []}})
    run.record("context_compacted", {"summary": "S", "tokens_before": None, "tokens_after": 300})
    run.record("context_projected", {"replaced": None, "tokens_before": 7000})
    run.close()
    session.close()
    marks = [row for row in _diff(path, capsys) if row.startswith("# line")]
    assert "compacted, tokens null → 300," in marks[0], marks
    assert "projected, replaced null, tokens 7,000 → ?," in marks[1], marks
    for fmt, cells in (
        ("md", ("| context\\_compacted | null | 300 |", "| context\\_projected | 7,000 | ? |")),
        ("html", ("<td>null</td><td>300</td>", "<td>7,000</td><td>?</td>")),
    ):
        assert main(["export", str(path), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert all(cell in out for cell in cells), (fmt, out[-2000:])
    assert main(["export", str(path), "--format", "json"]) == 0  # (its data as written)
    events = json.loads(capsys.readouterr().out)["context-events"]
    assert [e["data"] for e in events] == [
        {"summary": "S", "tokens_before": None, "tokens_after": 300},
        {"replaced": None, "tokens_before": 7000},
    ]
    rows = [row for _style, row in ModelDiff(open_transcript(path)) if row.startswith("◆")]
    assert rows[0].endswith("· null → 300 tok") and rows[1].endswith("· 7,000 tok before"), rows
    records = [json.loads(line) for line in path.read_text().splitlines()]
    said = [record_summary(r) for r in records if r["type"].startswith("context_")]
    assert said == ["tokens null → 300 · S", "tokens 7,000 → ?"], said


def test_v1_compaction_count_beyond_a_double_is_said_as_written_on_every_surface(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A count beyond a double (``1e400``) read "(a number beyond a double)" in ``diff``
    and the export, ``inf`` in the Diff tab, and a written ``null`` read as Python's repr
    of a fragment there (``<orjson.Fragment object at …>``). Each says it as the line
    wrote it: ``1e400``, ``null``; the replay's JSON, which holds no such number, ``null``."""
    from session_core.diff import DiffRows
    from session_core.reader import replay_file
    from viewer.widgets.diff_view import row_fate

    def null_and_beyond(payload: dict[str, Any]) -> None:
        payload["tokens-before"] = None
        payload["tokens-after"] = 12345  # (made 1e400 below: no Python number writes it)

    path = _v1_compacted(tmp_path, null_and_beyond)
    path.write_text(path.read_text().replace('"tokens-after": 12345', '"tokens-after": 1e400'))
    row = next(row for row in _diff(path, capsys) if "compaction through" in row)
    assert "; tokens null -> 1e400;" in row, row
    for fmt in ("md", "html"):
        assert main(["export", str(path), "--format", fmt]) == 0
        assert "tokens null → 1e400;" in capsys.readouterr().out, fmt
    rows = DiffRows(replay_file(str(path), tolerate_tail=False))
    fates = [row_fate(row, rows.summary_lines) for row in rows]
    assert any("tokens null → 1e400," in fate for fate in fates), fates
    assert main(["replay", str(path)]) == 0
    replayed = json.loads(capsys.readouterr().out)["compactions"][0]
    assert replayed["tokens-before"] is None and replayed["tokens-after"] is None
