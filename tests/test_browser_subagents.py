"""The browser and subagents' files that are rows of their own (Codex's children): listed
under their parent, their usage added to the footer once, and a big rollout's running
total of tokens never scaled up as if it were a sum of the tail's."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use
from codex_helpers import day_dir, family
from codex_writer import SESSION, RolloutWriter
from test_browser import QuickApp, browser, scanned

from session_core import open_transcript
from session_core.scan import FileSummary, scan_file
from viewer.browser_cells import grouped, totals


def parent_with_usage(root: Path) -> tuple[Path, Path]:
    """A parent that reported 1,000 tokens of its own, and its child (330)."""
    return family(root, usage=(900, 0, 100, 0))


def test_a_parents_row_names_its_childs_file_and_the_child_its_parent(tmp_path: Path) -> None:
    parent, child = parent_with_usage(tmp_path)
    up, down = scan_file(parent), scan_file(child)
    assert up.subagents == up.counted == (str(child),)
    assert up.tokens == 1000 + 330 and up.with_subagents == "with 1 subagent"
    assert not up.tokens_alone and not up.cost_alone and up.parent is None
    assert down.parent == SESSION and down.subagents == () and down.tokens == 330
    assert not up.tokens_partial and not down.tokens_partial


def test_a_parent_whose_child_is_not_counted_is_a_lower_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child listed and not read (over the reader's bound): the parent's total is its
    own alone, marked ≥ in its row (it read as the whole family's)."""
    import session_core.formats.codex as codex

    parent, _child = parent_with_usage(tmp_path)
    monkeypatch.setattr(codex, "SUBAGENT_LIMIT", 10)
    row = scan_file(parent)
    assert row.tokens == 1000 and row.tokens_partial
    assert row.with_subagents == "1 subagent, its file not read"  # (the header's words)


def test_the_footer_adds_a_childs_usage_once(tmp_path: Path) -> None:
    parent, child = parent_with_usage(tmp_path)
    rows = [scan_file(parent), scan_file(child)]
    for row in rows:
        row.path = os.path.abspath(row.path)
    said = totals(rows, 2).plain
    assert "tokens 1,330" in said and "unknown" not in said, said
    alone = totals(rows[:1], 1).plain  # the child not listed: the parent's row holds it
    assert "tokens 1,330" in alone, alone


def test_a_parent_with_no_usage_of_its_own_is_said_unknown(tmp_path: Path) -> None:
    parent, child = family(tmp_path)
    rows = [scan_file(parent), scan_file(child)]
    assert rows[0].tokens_alone and rows[0].cost_alone and rows[0].tokens == 330
    said = totals(rows, 2).plain
    assert said.endswith("tokens 330  cost $0.0006  (usage unknown in 1)"), said


def summary(name: str, last: str, children: tuple[str, ...] = ()) -> FileSummary:
    return FileSummary(path=name, rel=name, last_ts=last, subagents=children)


def test_children_follow_their_parent_whichever_way_it_sorts() -> None:
    rows = {
        "p": summary("p", "2026-01-01T00:00:03Z", ("c1", "c2")),
        "c1": summary("c1", "2026-01-01T00:00:05Z", ("g",)),
        "c2": summary("c2", "2026-01-01T00:00:01Z"),
        "g": summary("g", "2026-01-01T00:00:06Z"),
        "q": summary("q", "2026-01-01T00:00:04Z"),
        "orphan": summary("orphan", "2026-01-01T00:00:02Z"),
    }
    newest = sorted(rows, key=lambda p: rows[p].last_activity, reverse=True)
    order, depth = grouped(newest, rows)
    assert order == ["q", "p", "c1", "g", "c2", "orphan"]
    assert depth == {"c1": 1, "g": 2, "c2": 1}
    oldest = list(reversed(newest))
    assert grouped(oldest, rows)[0] == ["orphan", "p", "c2", "c1", "g", "q"]
    # a child whose parent the filter hides stands on its own
    order, depth = grouped(["c1", "q", "g"], rows)
    assert order == ["c1", "g", "q"] and depth == {"g": 1}
    # files that name each other are each listed once
    rows["g"].subagents = ("c1",)
    assert sorted(grouped(["c1", "g"], rows)[0]) == ["c1", "g"]


async def test_the_table_lists_a_child_under_its_parent(tmp_path: Path) -> None:
    parent, child = parent_with_usage(tmp_path)
    other = RolloutWriter(day_dir(tmp_path) / "rollout-2026-02-23T13-00-00-other.jsonl")
    other.clock = 3000  # its records at 12:50, after the family's
    other.session_meta("019c0000-0000-7000-8000-0000000000ff")
    other.message("user", "a later session")
    old = time.time() - 3600  # none of them live
    for path in (parent, child, Path(other.path)):
        os.utime(path, (old, old))
    app = QuickApp(str(tmp_path))
    async with app.run_test(size=(160, 30)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        names = [os.path.basename(p) for p in screen.order]
        assert names == [os.path.basename(other.path), parent.name, child.name]
        assert screen.cell_text(str(child), "session").startswith("↳ ")
        assert not screen.cell_text(str(parent), "session").startswith("↳")
        await pilot.press("S")  # oldest first: the child still under its parent
        names = [os.path.basename(p) for p in screen.order]
        assert names == [parent.name, child.name, os.path.basename(other.path)]
        footer = str(screen.query_one("#browser-totals").render())
        assert "tokens 1,330" in footer, footer
        screen.table.move_cursor(1)
        await pilot.pause()
        said = str(screen.query_one("#browser-detail").render())
        assert f"a subagent of {SESSION}" in said, said


def test_a_big_rollouts_running_total_is_not_scaled(tmp_path: Path) -> None:
    path = day_dir(tmp_path) / f"rollout-2026-02-23T12-00-00-{SESSION}.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    total = 0
    for turn in range(2000):  # (10 MB: ten times the 1 MB head that is read)
        w.task_started(f"t{turn}")
        w.turn_context(f"t{turn}")
        w.message("user", "x" * 2000)
        w.message("assistant", "y" * 2000)
        total += 1000
        w.token_count((total - 100 * (turn + 1), 0, 100 * (turn + 1), 0), (900, 0, 100, 0))
        w.task_complete(f"t{turn}")
    whole = open_transcript(path).usage
    row = scan_file(path, budget=100_000, window=50_000)
    assert row.estimated and whole.tokens == total
    assert row.tokens == total, (row.tokens, total)  # the tail's last total, as it is
    assert row.cost is not None and whole.cost is not None
    # Its cost too: the tail's first response is priced from the head's last total, the
    # middle not read with it (it was scaled again by the file's size: 13 times the cost
    # of a 70 MB rollout)
    assert row.cost == pytest.approx(whole.cost, rel=0.01), (row.cost, whole.cost)


def test_last_active_is_the_last_records_time_not_a_copys_mtime(tmp_path: Path) -> None:
    parent, _child = family(tmp_path)
    copied = time.time() - 3600  # an hour ago: not live
    os.utime(parent, (copied, copied))
    row = scan_file(parent)
    assert row.status == "finished" and row.last_ts is not None
    assert row.last_ts.startswith("2026-02-23T12:")
    assert row.mtime > row.last_activity  # copied an hour ago, last at work in February
    live = FileSummary(path="x", status="live", last_ts=row.last_ts, mtime=row.mtime)
    assert live.last_activity == row.mtime  # its writer is at work now


def test_a_parent_whose_cost_alone_is_unknown_leaves_it_out(tmp_path: Path) -> None:
    """Its tokens known and its model priceless: the row's cost is its child's alone,
    and the footer says the session's cost is not all known."""
    parent, child = family(tmp_path, usage=(900, 0, 100, 0))
    text = parent.read_text().replace('"gpt-5-codex"', '"model-nobody-prices"')
    parent.write_text(text)
    rows = [scan_file(parent), scan_file(child)]
    assert not rows[0].tokens_alone and rows[0].cost_alone
    said = totals(rows, 2).plain
    assert said.endswith("tokens 1,330  cost $0.0006  (cost unknown in 1)"), said


def test_a_call_whose_result_is_in_the_middle_not_read_is_no_crash(tmp_path: Path) -> None:
    """A big file's row reads its head and tail alone: a call of the head answered in the
    middle was "1 tool call without a result", the session "crashed" (a 70 MB Claude Code
    session that check calls ok)."""
    w = CCWriter()
    w.user("read it")
    w.assistant("m0", [tool_use("t0", "Read", file_path="big")])
    w.result("t0", "x" * (3 << 20))  # (past the 1 MB head: its line is not read)
    w.assistant("m1", [text("read")], stop="end_turn")
    for turn in range(40):
        w.user(f"prompt {turn}")
        w.assistant(f"a{turn}", [text("ok " * 400)], stop="end_turn")
    path = w.write(tmp_path / "p" / "s.jsonl")
    os.utime(path, (time.time() - 3600,) * 2)  # (its writer long gone)
    assert open_transcript(path).tool_operations[0].state == "completed"
    row = scan_file(path, budget=100_000, window=50_000)
    assert row.estimated and row.pending == 0 and row.reason is None, row.reason
    assert row.status == "finished"
    # a call of the tail without its result is still said
    w.user("last")
    w.assistant("m9", [tool_use("t9", "Bash", command="make")])
    path = w.write(tmp_path / "p" / "s.jsonl")
    os.utime(path, (time.time() - 3600,) * 2)
    row = scan_file(path, budget=100_000, window=50_000)
    assert row.pending == 1 and row.status == "crashed", (row.status, row.reason)


def test_a_subagents_messages_are_its_files_as_written(tmp_path: Path) -> None:
    """A subagent whose own conversation was compacted: its messages in the parent's
    Subagents tab are its file's message lines as written, as the browser's "msgs" counts
    them for that file (it was what is sent next: the folded ones left out)."""
    from claude_code_writer import SESSION as CC_SESSION

    w = CCWriter()
    w.user("send a scout")
    m1 = w.assistant("m1", [tool_use("t1", "Task", description="scout", prompt="go")])
    w.result("t1", [text("agentId: a1")], parent=m1[0], tool_use_result={"agentId": "a1"})
    path = w.write(tmp_path / f"{CC_SESSION}.jsonl")
    sub = CCWriter(agent_id="a1")
    sub.user("go", parent=None)
    sub.assistant("s1", [text("looked")], stop="end_turn")
    sub.compact()
    sub.user("This session is being continued from a previous conversation.", isCompactSummary=True)
    sub.assistant("s2", [text("done")], stop="end_turn")
    child = sub.write(tmp_path / CC_SESSION / "subagents" / "agent-a1.jsonl")
    [agent] = open_transcript(path).subagents
    assert agent.messages == scan_file(child).messages == 4


async def test_a_folder_of_subagents_alone_says_where_they_are_shown(tmp_path: Path) -> None:
    """The browser on a session's ``subagents/`` folder: its files are shown from their
    session, so no row; it said "No *.jsonl file below", with the files there."""
    sub = CCWriter(agent_id="a1")
    sub.user("go", parent=None)
    sub.assistant("s1", [text("looked")], stop="end_turn")
    folder = tmp_path / "proj" / "5e55e55e" / "subagents"
    sub.write(folder / "agent-a1.jsonl")
    app = QuickApp(str(folder))
    async with app.run_test(size=(160, 30)) as pilot:
        await scanned(pilot)
        # (in the table's first row, as every empty table says why: it was the detail's)
        said = browser(app).table.empty_text or ""
        assert "a subagent's file is listed under its session's row" in said, said
