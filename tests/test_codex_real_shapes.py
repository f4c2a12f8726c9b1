"""Codex rollouts in the shapes other versions' writers wrote (``fixtures/codex-real``,
its README names each one's source): every file is detected, checked and replayed, and
holds what it is there for."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX
from helpers import fingerprint, run_cli

from session_core.export import export
from session_core.formats import detect_format
from session_core.peeking import peek
from session_core.scan import scan_file

REAL = Path(__file__).parent / "fixtures" / "codex-real"
ROLLOUTS = sorted(REAL.glob("*.jsonl"))
COMMON = {"format", "meta", "messages", "tool-operations", "compactions", "usage", "warnings"}
OLD = 1_700_000_000  # (an mtime long past: no writer is at work on the file)


@pytest.fixture
def real(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A copy of the fixture named by the test's parameter, its writer long gone."""
    path = tmp_path / request.param
    path.write_bytes((REAL / request.param).read_bytes())
    os.utime(path, (OLD, OLD))
    return path


def replayed(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    before = fingerprint(path)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert code == 0 and err == "", err
    assert fingerprint(path) == before
    view: dict[str, Any] = orjson.loads(out)
    assert set(view) >= COMMON and view["format"] == "codex"
    assert view["warnings"] == []
    for op in view["tool-operations"]:
        assert {"call-id", "tool", "state"} <= set(op)
    return view


def test_every_fixture_is_named_in_its_readme() -> None:
    readme = (REAL / "README.md").read_text()
    assert ROLLOUTS and all(f"`{path.name}`" in readme for path in ROLLOUTS)


@pytest.mark.parametrize("real", [p.name for p in ROLLOUTS], indirect=True)
def test_each_is_detected_checked_and_replayed(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert detect_format(real) == "codex"
    code, out, _ = run_cli(capsys, "check", str(real))
    assert code == 0 and f"{real}: ok (codex, " in out, out
    view = replayed(capsys, real)
    assert view["messages"], "each holds a conversation"
    code, out, _ = run_cli(capsys, "peek", str(real))
    assert code == 0 and "error" not in orjson.loads(out)


@pytest.mark.parametrize("real", ["bare-0.34.jsonl"], indirect=True)
def test_a_bare_rollout_pairs_its_local_shell_call(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    view = replayed(capsys, real)
    assert view["meta"]["cli_version"] == "0.34.0"
    (op,) = view["tool-operations"]
    assert (op["tool"], op["state"], op["result"]) == ("local_shell", "completed", "a.txt\n")
    assert view["usage"]["input-tokens"] is None  # (no token_count then: unknown, not 0)


@pytest.mark.parametrize("real", ["wrapped-0.46.jsonl"], indirect=True)
def test_a_0_46_rollout_pairs_counts_and_compacts(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    view = replayed(capsys, real)
    states = {op["call-id"]: op["state"] for op in view["tool-operations"]}
    assert states == {
        "call_1": "completed",
        "call_2": "completed",  # (the freeform apply_patch)
        "L19": "completed",  # (a web search, ended by its status)
        "call_3": "failed",  # (the MCP server's error)
        "call_4": "completed",  # (an output that is content items: an image)
        "call_5": "interrupted",  # (its turn aborted)
    }
    usage = view["usage"]
    assert (usage["input-tokens"], usage["cache-read-tokens"]) == (8000, 4000)
    assert (usage["output-tokens"], usage["reported"]) == (300, 2)
    kinds = [c.get("trigger") for c in view["compactions"]]
    assert len(kinds) == 2 and kinds[1] == "rollback"
    assert {r["type"] for r in view["other-records"]} == {"some_future_item", "future_line_type"}


@pytest.mark.parametrize("real", ["paginated-0.155.jsonl"], indirect=True)
def test_a_paginated_rollout_reads_its_completed_items(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    view = replayed(capsys, real)
    said = [(m["role"], m["content"].split("\n")[0]) for m in view["messages"]]
    assert said == [("user", "Fix the parser"), ("assistant", "Fixed it")]
    (run,) = view["runs"]
    assert run["state"] == "finished" and run["prompt"] == "Fix the parser"


@pytest.mark.parametrize("real", ["paginated-0.155.jsonl"], indirect=True)
def test_a_rollout_of_completed_items_alone_counts_its_messages_in_the_browser(
    real: Path, tmp_path: Path
) -> None:
    """Its messages are ``item_completed`` events alone (no response item, no message
    line): the browser's row counts them as the viewer shows them and ``peek`` lists
    them (it said 0 msgs beside a conversation of 2), tool items as a call and its
    answer, as the replay sends them."""
    from codex_writer import completed_story

    from session_core import open_transcript, peek

    story = tmp_path / "story.jsonl"
    completed_story(story)
    os.utime(story, (OLD, OLD))
    for path, count in ((real, 2), (story, 7)):
        shown = open_transcript(path).messages
        assert scan_file(path).messages == len(shown) == len(peek(path).messages) == count


def test_the_typescript_cli_document_is_refused_saying_what_it_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The TypeScript CLI's whole-JSON rollout: every command says what it is, not that
    its first line ``{`` is no JSON (nor, written on one line, that it is no transcript)."""
    pretty = REAL / "typescript-cli-2025.json"
    one_line = tmp_path / "rollout-2025-04-20-5973b6c0.json"
    one_line.write_bytes(orjson.dumps(orjson.loads(pretty.read_bytes())))
    what = "is a rollout of the TypeScript Codex CLI (2025: one JSON document"
    for path in (pretty, one_line):
        assert detect_format(path) is None
        code, out, _ = run_cli(capsys, "check", str(path))
        assert code == 1 and what in out, out
        code, _, err = run_cli(capsys, "replay", str(path))
        assert code == 1 and what in err, err
        # peek too, its error alone (it gave 56 "line N could not be read" beside it)
        code, out, _ = run_cli(capsys, "peek", str(path))
        peeked = orjson.loads(out)
        assert code == 1 and what in peeked["error"], out
        assert (peeked["warnings"], peeked["envelopes"], peeked["messages"]) == ([], [], [])
        assert peeked["size"] == path.stat().st_size
        assert peek(path).to_json() == peeked  # (the library's peek, as the command's)


# -- a paginated subagent: its copy of the parent's history, marked by its header ----------


def _both_ways(path: Path) -> list[Any]:
    """The file read whole (typed lines), and fed a parsed record at a time (the dict
    path a follow's parsed updates take)."""
    builder = CODEX.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        builder.feed(orjson.loads(raw), number)
    return [CODEX.open(path, writer_alive=False), builder.transcript(writer_alive=False)]


def _subagent(tmp_path: Path, **header: Any) -> Path:
    """The paginated subagent fixture, its header's payload updated with ``header``, and
    its last total going on from its parent's where ``continuing``."""
    lines = [orjson.loads(raw) for raw in (REAL / "subagent-paginated-0.155.jsonl").open("rb")]
    continuing = header.pop("continuing", False)
    lines[0]["payload"].update(header)
    if continuing:  # (a writer whose count goes on from the parent's copied one)
        total = lines[16]["payload"]["info"]["total_token_usage"]
        parents = lines[6]["payload"]["info"]["total_token_usage"]
        for key in ("input_tokens", "cached_input_tokens", "output_tokens", "total_tokens"):
            total[key] += parents[key]
    path = tmp_path / "rollout-2026-10-06T10-00-00-019c0000-0000-7000-8000-0000000000c1.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    os.utime(path, (OLD, OLD))
    return path


@pytest.mark.parametrize(
    "header",
    [
        {},
        {"continuing": True},
        {"forked_from_id": "019c0000-0000-7000-8000-0000000000a0", "continuing": True},
    ],
    ids=["parent-named", "count-from-parents", "forked-from-named"],
)
def test_a_paginated_subagent_counts_its_own_usage_alone(
    tmp_path: Path, header: dict[str, Any]
) -> None:
    """Its header says where its own history starts (``subagent_history_start_ordinal``):
    the parent's copied history, with the parent's 4,990,000-token count, is the
    parent's, and its turn is the parent's copy. Before, the copy's count was added to the
    subagent's (5,030,100 tokens: the parent's usage counted twice), its count going on
    from the parent's or not; where the header named the parent as the one it was forked
    from, the parent's file was looked for and, not found, warned of, the copy's usage
    counted as its own."""
    path = _subagent(tmp_path, **header)
    for t in _both_ways(path):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (1000, 29000, 100)
        assert u.reported == 1 and t.warnings == []
        parents, own = t.runs
        assert parents.copied and parents.prompt == "parent's message"
        assert not own.copied and own.prompt == "task for the subagent"
        assert (own.usage.input_tokens, own.usage.output_tokens) == (1000, 100)
    assert "usage 30,100 tok" in CODEX.check(path)


def test_a_paginated_subagent_is_titled_by_its_own_task(tmp_path: Path) -> None:
    """Its first turn is its parent's, copied: the browser's row and the export are
    titled by what the subagent was asked, not by its parent's first prompt (every
    subagent of a session titled as the session was)."""
    path = _subagent(tmp_path)
    assert scan_file(path).title == "task for the subagent"
    assert export(path, "md").startswith("# task for the subagent\n")
