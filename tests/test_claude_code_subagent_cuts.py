"""Real Claude Code sessions whose run died with subagents at work, cut as an audit cut
them ("my agent run died overnight"): 2.1.x teammate ``Agent`` calls in flight (no
progress, no result: their files linked by their prompt, the calls with no file listed);
a subagent's file ending in a crash tail (its usage, and the session's with it, a lower
bound, said everywhere)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from helpers import SAMPLES, app_loaded, said, screen_lines, screen_text, wait_for
from test_claude_code_live_subagents import followed as followed_live

from session_core.export import export
from session_core.formats import CLAUDE_CODE, by_name
from session_core.model import Transcript
from session_core.scan import scan_file
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.subagents_pane import SubagentsPane

FMT = by_name(CLAUDE_CODE)
PROJECTS = SAMPLES / "claude-code" / "projects"
WORKTREES = PROJECTS / "-experiments-worktrees"
TEAM = "ef958aa1-0e93-49f0-bb71-150f63befcd1"  # 2.1.114: three teammate Agent calls
ALICE = "a4ca7529859c158c2"
ALICE_CALL, BOB_CALL, CAROL_CALL = (
    "toolu_01GmrK6tgdD9D5xD6W5X9UUy",
    "toolu_016neBD9WjCCZqzRTP3afGDT",
    "toolu_01EaAN7bPNQrMTGoKhbEjVrx",
)
SPOTTER = PROJECTS / "-home-u-spotter"
SPOT = "4d5611e5-241a-462a-8d15-5122611a9569"  # 2.0.x: one Task subagent, one summariser
SCOUT = "a2898e3"

pytestmark = pytest.mark.skipif(
    not (WORKTREES / f"{TEAM}.jsonl").is_file() or not (SPOTTER / f"{SPOT}.jsonl").is_file(),
    reason="../shared/samples is absent",
)


def cut(source: Path, target: Path, lines: int | None, torn: int = 0) -> Path:
    """``source``'s first ``lines`` lines (None: all of it) copied to ``target``, then the
    first ``torn`` bytes of the next line, with no newline: a run that died there."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if lines is None:
        shutil.copyfile(source, target)
    else:
        kept = source.read_bytes().split(b"\n")
        target.write_bytes(b"\n".join(kept[:lines]) + b"\n" + kept[lines][:torn])
    gone = time.time() - 86400  # (yesterday, as the audit left them: no writer)
    os.utime(target, (gone, gone))
    return target


def team_in_flight(root: Path, alice_lines: int = 10, alice_torn: int = 300) -> Path:
    """The worktrees session after its line 56: alice, bob and carol called, none answered;
    alice's file alone written, cut to ``alice_lines`` lines and a torn one."""
    folder = WORKTREES / TEAM / "subagents"
    mine = root / TEAM / "subagents"
    cut(folder / f"agent-{ALICE}.jsonl", mine / f"agent-{ALICE}.jsonl", alice_lines, alice_torn)
    cut(folder / f"agent-{ALICE}.meta.json", mine / f"agent-{ALICE}.meta.json", None)
    return cut(WORKTREES / f"{TEAM}.jsonl", root / f"{TEAM}.jsonl", 56)


def scout_cut(root: Path) -> Path:
    """The spotter session whole; its Task subagent's file cut to 60 lines and a torn 61st."""
    folder, mine = SPOTTER / SPOT / "subagents", root / SPOT / "subagents"
    cut(folder / f"agent-{SCOUT}.jsonl", mine / f"agent-{SCOUT}.jsonl", 60, 400)
    summariser = "agent-acompact-e1f845.jsonl"
    cut(folder / summariser, mine / summariser, None)
    return cut(SPOTTER / f"{SPOT}.jsonl", root / f"{SPOT}.jsonl", None)


def told(t: Transcript) -> list[tuple[str, str | None, bool, str | None, bool]]:
    """Each subagent as the views tell it: id, call, file known, where, read in part."""
    return [
        (s.id, s.call_id, not s.unnamed, s.path and Path(s.path).name, s.in_part)
        for s in t.subagents
    ]


def followed(path: Path) -> Transcript:
    """The file followed as the viewer follows it, to its end (its writer gone)."""
    _live, seen = followed_live(path, 4096)
    return seen[-1]


# -- B3: teammate Agent calls in flight ------------------------------------------------


def test_an_agent_call_in_flight_is_linked_to_the_file_its_prompt_begins(tmp_path: Path) -> None:
    path = team_in_flight(tmp_path)
    whole = FMT.open(path, writer_alive=False)
    assert told(whole) == [
        (ALICE, ALICE_CALL, True, f"agent-{ALICE}.jsonl", True),
        (BOB_CALL, BOB_CALL, False, None, False),  # no file begins with their prompts
        (CAROL_CALL, CAROL_CALL, False, None, False),
    ]
    alice, bob, _ = whole.subagents
    assert alice.description == "Research Claude Code plan mode" and alice.messages == 8
    assert bob.description == "Research Claude Code teammates" and bob.where == (
        "its file is not known"
    )
    assert bob.to_json()["agent-known"] is False and "agent-known" not in alice.to_json()
    # its call's operation names the file, as a result or a progress naming it would
    ops = {op.call_id: op for op in whole.tool_operations}
    assert ops[ALICE_CALL].subagent == alice.path and ops[ALICE_CALL].state == "interrupted"
    assert ops[BOB_CALL].subagent is None
    # the total holds alice's alone, and says so
    assert whole.with_subagents_text() == "with 1 of 3 subagents (1 read in part)"
    # followed, as read whole
    assert told(followed(path)) == told(whole)


def test_a_file_whose_first_line_is_torn_is_linked_by_its_description(tmp_path: Path) -> None:
    """Its prompt cannot be read: its ``.meta.json`` description is alice's call's alone."""
    path = team_in_flight(tmp_path, alice_lines=0, alice_torn=200)
    whole = FMT.open(path, writer_alive=False)
    assert [(s.id, s.call_id) for s in whole.subagents] == [
        (ALICE, ALICE_CALL),
        (BOB_CALL, BOB_CALL),
        (CAROL_CALL, CAROL_CALL),
    ]
    assert told(followed(path)) == told(whole)


def test_a_file_no_call_asked_for_stays_unlinked(tmp_path: Path) -> None:
    """A file whose first prompt is no call's, and whose description is none's: not
    linked to a call (its row says no call names it), the three calls listed apart."""
    path = team_in_flight(tmp_path)
    mine = tmp_path / TEAM / "subagents" / f"agent-{ALICE}.jsonl"
    lines = mine.read_bytes().split(b"\n", 1)
    mine.write_bytes(lines[0].replace(b"You are **alice**", b"You are **dave**") + b"\n" + lines[1])
    meta = mine.with_name(f"agent-{ALICE}.meta.json")
    meta.write_bytes(meta.read_bytes().replace(b"plan mode", b"something else"))
    whole = FMT.open(path, writer_alive=False)
    assert [(s.id, s.call_id) for s in whole.subagents] == [
        (ALICE_CALL, ALICE_CALL),
        (BOB_CALL, BOB_CALL),
        (CAROL_CALL, CAROL_CALL),
        (ALICE, None),
    ]


async def test_the_subagents_tab_lists_the_three_calls_and_e_stops_at_them(
    tmp_path: Path,
) -> None:
    path = team_in_flight(tmp_path)
    async with app_loaded(path, ModelScreen, (150, 40)) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 3)
        # (cut off, not stopped by the user: in flight, as the header says)
        rows = [line for line in screen_lines(app) if "not finished" in line and "Research" in line]
        assert len(rows) == 3, screen_text(app)
        assert "agent-a4ca7529859c158c2" in rows[0] and "≥53,105 tok" in rows[0]
        assert all("its file is not known" in row for row in rows[1:])
        pane.table.move_cursor(0)
        await pilot.press("e")
        assert pane.table.cursor_row == 1
        await wait_for(pilot, lambda: "its file: not known" in screen_text(app))
        await pilot.press("e", "e")
        await wait_for(
            pilot, lambda: said(app, "No subagent whose call did not complete after this one")
        )
        assert pane.table.cursor_row == 2


# -- B4: a subagent's file that ends in a crash tail -------------------------------------


def test_a_subagent_cut_off_makes_the_total_a_lower_bound_said_everywhere(tmp_path: Path) -> None:
    path = scout_cut(tmp_path)
    whole = FMT.open(path, writer_alive=False)
    scout = whole.subagents[0]
    tail = (
        "line 61 has no newline: the writer left it unfinished, and it is not read (a crash tail)"
    )
    assert (scout.id, scout.left_out, scout.in_part) == (SCOUT, tail, True)
    assert scout.to_json()["read-in-part"] == tail
    assert not whole.subagents[1].in_part  # (the summariser's file is whole)
    assert f"subagent agent-{SCOUT}.jsonl: {tail}" in whole.warnings[0]
    # the header's and the export's words
    assert whole.with_subagents_text() == "with 2 subagents (1 read in part)"
    text = export(path, "md")
    assert "| with 2 subagents \\(1 read in part\\) |" in text  # (markdown's escapes)
    assert "| at least 64,570 tok" in text
    # check says it
    assert f"warning: subagent agent-{SCOUT}.jsonl: line 61" in FMT.check(path)
    # the browser's row: a lower bound
    row = scan_file(path)
    assert row.tokens_partial and row.cost_partial
    assert row.with_subagents == "with 2 subagents (1 read in part)"
    # followed, as read whole
    live = followed(path)
    assert told(live) == told(whole) and live.warnings == whole.warnings


def test_a_subagent_file_being_written_is_not_cut_off(tmp_path: Path) -> None:
    """Its writer at work: its torn last line is being written, no crash tail."""
    whole = FMT.open(scout_cut(tmp_path), writer_alive=True)
    assert [s.in_part for s in whole.subagents] == [False, False] and whole.warnings == []


def test_a_whole_subagent_file_is_no_lower_bound(tmp_path: Path) -> None:
    path = scout_cut(tmp_path)
    name = Path(SPOT) / "subagents" / f"agent-{SCOUT}.jsonl"
    cut(SPOTTER / name, path.parent / name, None)  # (its file whole again)
    whole = FMT.open(path, writer_alive=False)
    assert not any(s.in_part for s in whole.subagents) and whole.warnings == []
    assert not scan_file(path).tokens_partial


async def test_the_subagents_tab_says_its_usage_is_a_lower_bound(tmp_path: Path) -> None:
    path = scout_cut(tmp_path)
    async with app_loaded(path, ModelScreen, (150, 40)) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 2)
        pane.table.move_cursor(0)
        await wait_for(pilot, lambda: "read in part: line 61 has no newline" in screen_text(app))
        text = screen_text(app)
        assert "≥64,570 tok" in text and "≥$0.11" in text
        assert "usage at least 64,570 tok" in text
        assert "with 2 subagents (1 read in part)" in text  # (the header)
