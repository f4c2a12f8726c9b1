"""Real Claude Code files of other versions than the samples' (1.0.x, 2.0.x, 2.1.38),
excerpts in tests/fixtures/claude-code-real/ (its README names each one's source): each
one detected, checked, replayed in the shape api.md gives, peeked, exported and followed
as it reads whole; and what one of them showed the reader had wrong."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_helpers import FMT, both
from helpers import follow_into, neutral, run_cli

from session_core import detect_format, open_transcript

REAL = Path(__file__).parent / "fixtures" / "claude-code-real"
FILES = sorted(REAL.glob("*.jsonl"))
SHARED_KEYS = {"format", "meta", "messages", "tool-operations", "compactions", "usage", "warnings"}
USAGE_KEYS = {
    "input-tokens",
    "output-tokens",
    "cache-read-tokens",
    "cache-write-tokens",
    "cost",
    "reported",
}
STATES = {"completed", "failed", "outcome-unknown", "running", "interrupted"}
# What a followed file links only once it caught up (as test_contract's ``_comparable``)
LINKED_LATER = (
    "warnings",
    "subagents",
    "usage-with-subagents",
    "usage-with-subagents-partial",
    "usage-with-subagents-said",
)


def _copy(path: Path, tmp_path: Path) -> Path:
    """The file where a test may read it (its mtime kept: its writer long gone)."""
    copy = tmp_path / path.name
    shutil.copy2(path, copy)
    return copy


def _comparable(transcript: Any) -> dict[str, Any]:
    shown = neutral(transcript)
    for key in LINKED_LATER:
        shown.pop(key, None)
    return shown


def test_there_are_real_files_of_each_version_line() -> None:
    versions = {path.name.split("-")[0].rsplit(".", 1)[0] for path in FILES}
    assert {"1.0", "2.0", "2.1"} <= versions, versions


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_real_file_is_read_by_every_command(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(path, tmp_path)
    assert detect_format(copy) == "claude-code"
    code, out, err = run_cli(capsys, "check", str(copy))
    assert code == 0 and err == "" and out.startswith(f"{copy}: ok (claude-code, "), out
    code, out, err = run_cli(capsys, "replay", str(copy))
    assert code == 0 and err == "", err
    view: dict[str, Any] = orjson.loads(out)
    assert set(view) >= SHARED_KEYS and view["format"] == "claude-code"
    assert view["warnings"] == []
    version = path.name.split("-")[0]
    assert view["meta"].get("version", version) == version  # (a file of summaries: none)
    assert all(isinstance(m["id"], str) and m["role"] for m in view["messages"])
    for op in view["tool-operations"]:
        assert {"call-id", "tool", "state"} <= set(op) and op["state"] in STATES, op
    assert set(view["usage"]) == USAGE_KEYS
    assert open_transcript(copy).format == "claude-code"
    code, out, _ = run_cli(capsys, "peek", str(copy))
    assert code == 0 and "error" not in orjson.loads(out)
    code, out, err = run_cli(capsys, "export", str(copy), "--format", "md")
    assert code == 0 and err == "" and out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_real_file_followed_reads_as_its_lines_read_whole(path: Path, tmp_path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    grown, whole = tmp_path / "grown.jsonl", tmp_path / "whole.jsonl"
    grown.write_bytes(b"".join(lines))
    live = FMT.live(str(grown))
    compared: list[int] = []

    def apply(update: Any) -> None:
        live.apply(update)
        if update.lines:
            count = update.lines[-1]
            whole.write_bytes(b"".join(lines[:count]))
            opened = FMT.open(whole, writer_alive=False)
            assert _comparable(live.transcript(writer_alive=False)) == _comparable(opened), count
            compared.append(count)

    follow_into(apply, grown, 200, FMT.parsed_updates)
    assert compared[-1] == len(lines)


def test_a_response_written_again_where_it_was_is_one_response(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """2.0.76, after three failed API calls: msg_01TAywd5NrAe7z8ouQJQM1iL written whole on
    line 5, and (after the next prompt, on resuming) again split over lines 11-13 under the
    same line, its results again too. One API call: its usage once, its two Bash calls two
    operations, those of the copy the conversation holds, answered by the copy's results
    (lines 14-15), its turn the first prompt's (the second prompt got no response)."""
    t = both(REAL / "2.0.76-response-written-twice.jsonl", monkeypatch)
    assert t.usage.reported == 1 and t.usage.output_tokens == 221
    assert t.usage.cache_write_tokens == 64845
    assert [(op.tool, op.line, op.result_line) for op in t.tool_operations] == [
        ("Bash", 12, 14),
        ("Bash", 13, 15),
    ]
    [reply] = [m for m in t.messages if m.role == "assistant"]
    assert [p.kind for p in reply.parts] == ["reasoning", "tool-call", "tool-call"]
    assert [op.message_id for op in t.tool_operations] == [reply.id, reply.id]
    assert [m.line for m in t.messages] == [1, 11, 14, 15, 16]
    assert [run.usage.output_tokens for run in t.runs] == [221, None]
    # The raw view shows the first copy's usage as written (line 5), marked as counted
    # with its copy (line 11), which alone adds it to the total.
    [first, copy] = [i for i in t.raw if i.usage is not None]
    assert (first.line, copy.line) == (5, 11)
    assert first.usage == copy.usage
    assert first.marks == ["branch", "usage counted with its copy"] and copy.marks == []


def test_a_1_0_subagent_in_the_session_file_is_found_and_counted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1.0.108 wrote a Task's subagent into the session's own file (``isSidechain``): it is
    the call's subagent, and its usage, the file's own, is not added again."""
    t = both(REAL / "1.0.108-in-file-sidechain.jsonl", monkeypatch)
    [sub] = t.subagents
    assert (sub.call_id, sub.description, sub.path) == (
        "toolu_014YF9TXhDRR7BnpasNJ7gjC",
        "Check package configuration",
        None,
    )
    assert sub.messages == 6 and sub.usage.reported == 3
    assert t.usage_with_subagents == t.usage
