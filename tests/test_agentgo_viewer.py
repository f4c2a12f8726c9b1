"""An agentgo session on the model screen: the shared panes (runs, conversation, tool
operations, diff) and agentgo's own (call tree, checkpoints, timeline), with its keys: 1
runs, 2 calls, 3 conversation, 4 checkpoints, 5 timeline (6 tool operations, 7 diff).
Snapshots of every tab, live follow, format switching, hostile text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import (
    agentgo_screen,
    file_loaded,
    fingerprint,
    for_screen,
    notes_kept,
    said,
    screen_lines,
    screen_text,
    snapshot_rerun,
    wait_for,
    written,
)

from agentgo_helpers import call_in_flight
from agentgo_story import HOSTILE, OLD_MTIME, write_agentgo_story
from session_core.agentgo import AgentGoSession
from session_core.text import count
from story import write_story
from viewer.app import TailscopeApp
from viewer.formats.agentgo import AgentGoPanes
from viewer.screens.model_screen import ModelScreen

# Only the snapshot classes rerun (snapshot_rerun): a behavioural test here fails on its
# first failure.
SIZE = (120, 40)
opened, shows = for_screen(ModelScreen, SIZE)


def own_panes(app: TailscopeApp) -> AgentGoPanes:
    """agentgo's pane set on the app's model screen."""
    panes = agentgo_screen(app).panes
    assert isinstance(panes, AgentGoPanes)
    return panes


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return written(tmp_path / "session.jsonl", write_agentgo_story)


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """The story with a seq gap and a line of another session inserted mid-file (with no
    run_id: misshapen too)."""
    path = tmp_path / "damaged.jsonl"
    write_agentgo_story(path)
    lines = path.read_bytes().splitlines(keepends=True)
    sid = lines[0].split(b'"session_id":"')[1].split(b'"')[0]
    del lines[36]  # seq 36 (run 3's model_request): a seq gap
    lines.insert(
        9,
        b'{"data":{},"seq":9,"session_id":"other-session","time":"2026-08-09T13:10:19Z",'
        b'"type":"turn_start"}\n',
    )
    assert sid != b"other-session"
    path.write_bytes(b"".join(lines))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


@snapshot_rerun
class TestTabs:
    def test_runs(self, snap_compare, session: Path) -> None:
        # The screen opens on the conversation; 1 shows the runs.
        assert shows(snap_compare, session, "1")

    def test_call_tree_with_retry_failure_and_gap(self, snap_compare, session: Path) -> None:
        # The first call is the failed attempt a retry followed; run 2 holds the gaps.
        assert shows(snap_compare, session, "2")

    def test_tool_whose_actual_args_differ(self, snap_compare, session: Path) -> None:
        assert shows(snap_compare, session, "2", "down", "down")

    def test_gap_call_detail(self, snap_compare, session: Path) -> None:
        # The failed first attempt starts selected; e: the failed bash call, e: run 2's
        # model call (a gap), e: its tool call (a gap).
        assert shows(snap_compare, session, "2", "e", "e", "e")

    def test_conversation(self, snap_compare, session: Path) -> None:
        # The raw view (r): every committed message, those the compaction folded marked.
        assert shows(snap_compare, session, "3", "r")

    def test_checkpoints(self, snap_compare, session: Path) -> None:
        assert shows(snap_compare, session, "4")

    def test_timeline(self, snap_compare, session: Path) -> None:
        assert shows(snap_compare, session, "5", "g")


@snapshot_rerun
class TestRunFilter:
    def test_interrupted_run_calls(self, snap_compare, session: Path) -> None:
        # Runs tab (1): the second row is run 2 (the interrupted one); enter chooses it.
        assert shows(snap_compare, session, "1", "down", "enter", "2")

    def test_run_timeline(self, snap_compare, session: Path) -> None:
        assert shows(snap_compare, session, "1", "down", "enter", "5")


class TestDamage:
    # Asserted on the screen's text rather than a snapshot: under a loaded machine these two
    # snapshots came out with the same pixels but differently split segments (a new SVG id).
    async def test_damaged_file_warnings(self, damaged: Path) -> None:
        async with opened(damaged) as (app, pilot):
            await pilot.press("w")
            await pilot.pause(0.2)
            text = screen_text(app)
            assert "3 warnings" in text
            assert 'line 10: belongs to session "other-session"' in text
            assert "line 10: a misshapen turn_start (it has no run_id)" in text
            assert "line 38: has seq 37 after seq 35; sequence numbers must be contiguous" in text

    async def test_damaged_file_keeps_showing(self, damaged: Path) -> None:
        async with opened(damaged) as (app, _pilot):
            text = screen_text(app)
            assert "damaged.jsonl" in text and "3 warnings (w)" in text
            assert "3 runs (2 closed, 1 interrupted)" in text
            assert "9 calls" in text and "3 gaps" in text
            assert "all runs" in text


# -- driven as a person would ------------------------------------------------------


async def test_opens_agentgo_without_a_flag(session: Path) -> None:
    async with opened(session) as (app, pilot):
        assert isinstance(app.screen, ModelScreen)
        screen, panes = agentgo_screen(app), own_panes(app)
        assert screen.query_one("#tabs").active == "conversation"  # type: ignore[attr-defined]
        # What the model is sent next: after the compaction, run 2's request held only its
        # prompt; the raw view keeps all six committed messages, and the record of a type
        # the spec does not name (kept raw).
        assert [m.text for m in screen.conversation.items] == ["Now add a docstring."]
        assert [i.kind for i in screen.transcript.raw].count("message") == 6
        assert [i.kind for i in screen.transcript.raw].count("record") == 1
        assert panes.timeline.item_count() == 41
        assert len(panes.checkpoints.rows) == 2
        assert panes.calls.nodes == {}  # a hidden call tree is built when it is shown
        assert panes.checkpoints._shown is None  # and a hidden snapshot made when shown
        await pilot.press("2")
        assert len(panes.calls.nodes) == 9
        await pilot.press("4")
        assert panes.checkpoints._shown == (1, True)  # the latest
        assert "bytes of JSON" in str(
            panes.checkpoints.query_one("#agentgo-checkpoint-json").plain()
        )
        await pilot.press("1")
        assert screen.runs.table.row_count == 3
        assert len([s for s in app.screen_stack if isinstance(s, ModelScreen)]) == 1


async def test_live_record_appears(session: Path) -> None:
    async with opened(session) as (app, pilot):
        screen, panes = agentgo_screen(app), own_panes(app)
        await pilot.press("3")
        conversation = screen.conversation
        shown = len(conversation.items)
        assert conversation.cursor == shown - 1
        with AgentGoSession.open(session) as s:
            run = s.begin_run()
            execution = {"id": "late-1", "kind": "model", "attempt": 1}
            run.record(
                "model_request", {"messages": [], "tools": [], "config": {}}, execution=execution
            )
            await wait_for(pilot, lambda: any(k[1] == "late-1" for k in panes.stats.status))
            key = next(k for k in panes.stats.status if k[1] == "late-1")
            assert panes.stats.status[key] == "gap"
            # In flight, in the run being written: no gap the header counts (it said
            # "2 gaps" of a live session with one call running).
            view = screen.live.view
            assert view.run_status(view.run_order[-1]) == "open"
            interrupted = [r for r in view.run_order if view.run_status(r) == "interrupted"]
            in_flight = panes.stats.gaps(view.run_order[-1])
            assert in_flight == 1
            gaps = panes.stats.gaps() - 1 + len(interrupted)
            assert count(gaps, "gap") in panes._status_line(), panes._status_line()
            assert key not in panes.calls.nodes  # a hidden tree catches up when shown
            await pilot.press("2")
            assert key in panes.calls.nodes
            assert "late-1" in screen_text(app)
            await pilot.press("3")
            assert "live" in screen_text(app)  # the writer holds the lock
            run.record(
                "model_exec_end",
                {
                    "message": {
                        "kind": "assistant",
                        "content": [{"type": "text", "text": "late hello"}],
                    }
                },
                execution=execution,
            )
            run.record(
                "message_end",
                {
                    "message": {
                        "kind": "assistant",
                        "content": [{"type": "text", "text": "late hello"}],
                    }
                },
            )
            await wait_for(pilot, lambda: len(conversation.items) == shown + 1)
            assert panes.stats.status[key] == "ok"
            # The cursor was on the last message: it follows the new one.
            assert conversation.cursor == shown
            assert "late hello" in screen_text(app)
            await pilot.press("2")
            assert panes.calls.select(key)
            assert "late hello" in panes.calls.detail_text()
        await wait_for(pilot, lambda: len(screen.live.view.run_order) == 4)
        assert screen.live.view.run_status(screen.live.view.run_order[-1]) == "closed"


async def test_a_call_in_flight_runs_until_its_run_ends(session: Path) -> None:
    """A call without its terminal event reads "running" (…) in the call tree and its
    detail while its run is being written, and its run "no agent_end yet (running)";
    once the run is closed without it, both are gaps. (The tree said "gap" of the call
    the tool operations tab said was running: the agentgo audit.)"""
    async with opened(session) as (app, pilot):
        panes = own_panes(app)
        await pilot.press("2")
        tree = panes.calls.call_tree
        with AgentGoSession.open(session) as s:
            run = call_in_flight(s, "slow-1")
            await wait_for(pilot, lambda: any(k[1] == "slow-1" for k in panes.calls.nodes))
            key = next(k for k in panes.calls.nodes if k[1] == "slow-1")
            await wait_for(pilot, lambda: "running" in tree.label_of(key).plain)  # (its lock seen)
            assert tree.label_of(key).plain.startswith("… ")
            assert "running" in tree.label_of(key).plain
            assert "gap" not in tree.label_of(key).plain
            assert "no agent_end yet (running)" in tree.label_of(key[0]).plain
            assert panes.calls.select(key)
            assert "running: no terminal event yet" in panes.calls.detail_text()
            run.close()  # (its writer still alive: the run's close alone tells)
            await wait_for(pilot, lambda: " gap" in tree.label_of(key).plain)
            assert tree.label_of(key).plain.startswith("? ")
            assert "no agent_end (gap)" in tree.label_of(key[0]).plain
            assert "gap: no terminal event" in panes.calls.detail_text()


async def test_a_replaced_file_resets_the_view(session: Path, tmp_path: Path) -> None:
    async with opened(session) as (app, pilot):
        screen, panes = agentgo_screen(app), own_panes(app)
        smaller = tmp_path / "smaller.jsonl"
        with AgentGoSession.create(smaller) as s:
            s.begin_run().record("agent_start")
        os.replace(smaller, session)
        await wait_for(
            pilot, lambda: screen.live.resets == 1 and len(screen.live.view.records) == 4
        )
        assert panes.calls.nodes == {}
        assert panes.timeline.item_count() == 4
        await pilot.press("1")
        assert screen.runs.table.row_count == 1


async def test_hostile_text_is_shown_never_obeyed(tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    write_agentgo_story(path, hostile=True)
    async with opened(path) as (app, pilot):
        screen, panes = agentgo_screen(app), own_panes(app)
        for key in ("3", "2", "5", "1", "4", "6", "7"):
            await pilot.press(key)
            await pilot.pause(0.05)
            svg = screen_text(app)
            assert "\x1b" not in svg and "\x07" not in svg
        await pilot.press("3", "r", "g")  # (raw: the prompt was compacted away since)
        svg = screen_text(app)
        assert "␛[2J" in svg and "[bold red]markup[/]" in svg
        rendered = screen.conversation.rendered_text(0)
        assert "\x1b" not in rendered and "\x07" not in rendered
        assert HOSTILE.replace("\x1b", "␛").replace("\x07", "␇") in rendered
        # The tool name, in the tree and in the detail.
        await pilot.press("2", "down", "down")
        svg = screen_text(app)
        assert "read_file␛[31m[red]x[/red]" in svg
        assert "read_file␛[31m[red]x[/red]" in panes.calls.detail_text()


async def test_empty_file_becomes_an_agentgo_session(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    path.write_bytes(b"")
    async with opened(path) as (app, pilot):  # the empty file, read
        waiting = app.screen
        assert isinstance(waiting, ModelScreen) and waiting.FORMAT == "transcript-v1"
        with AgentGoSession.create(path) as s:
            run = s.begin_run()
            run.record("message_end", {"message": {"kind": "user", "content": "hi there"}})
            # The agentgo screen is on the stack before its panes are mounted: wait until
            # it has read the file (so its widgets exist) before asking them anything.
            await wait_for(pilot, lambda: app.screen is not waiting)
            await file_loaded(pilot, ModelScreen)
            screen = agentgo_screen(app)
            await wait_for(pilot, lambda: len(screen.conversation.items) == 1)
        assert waiting not in app.screen_stack


async def test_agentgo_file_replaced_by_a_v1_transcript(session: Path, tmp_path: Path) -> None:
    async with opened(session) as (app, pilot):
        other = tmp_path / "v1.jsonl"
        write_story(other)
        os.replace(other, session)
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ModelScreen) and app.screen.FORMAT == "transcript-v1",
        )
        await wait_for(pilot, lambda: len(app.file_screen.conversation.items) > 0)


async def test_timeline_enter_opens_the_call(session: Path) -> None:
    async with opened(session) as (app, pilot):
        screen, panes = agentgo_screen(app), own_panes(app)
        await pilot.press("5")
        assert panes.timeline.move_to_seq(12)  # tool_invoke_start of call-1
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert screen.query_one("#tabs").active == "calls"  # type: ignore[attr-defined]
        assert panes.calls.selected is not None and panes.calls.selected[1] == "call-1"
        assert "DIFFER" in panes.calls.detail_text()


async def test_run_filter_applies_to_agentgos_own_tabs(session: Path) -> None:
    async with opened(session) as (app, pilot):
        screen, panes = agentgo_screen(app), own_panes(app)
        await pilot.press("1", "down", "enter")
        await pilot.pause(0.1)
        second = screen.live.view.run_order[1]
        assert panes.run_filter == second
        assert panes.checkpoints.rows == []
        assert panes.timeline.item_count() == 6
        assert "showing run 2" in screen_text(app)
        assert "Calls, Conversation, Checkpoints and Timeline show this run" in screen_text(app)
        assert len(screen.conversation.items) == 1  # the run's one committed message
        assert len(screen.transcript.raw) == 7  # the model is every run's (a record too)
        await pilot.press("2")  # the call tree, built as it is shown: the run's calls
        assert [k[0] for k in panes.calls.nodes] == [second, second]
        await pilot.press("1")
        await pilot.press("right_square_bracket")
        assert panes.run_filter == screen.live.view.run_order[2]
        await pilot.press("a")
        assert panes.run_filter is None
        assert panes.timeline.item_count() == 41
        assert len(screen.conversation.items) == len(screen.transcript.messages) == 1
        await pilot.press("enter", "enter")  # the chosen run again: every run
        assert panes.run_filter is None


async def test_an_empty_conversation_says_why(session: Path) -> None:
    """Run 1 alone, all of it folded by its compaction: the conversation said nothing at
    all (the agentgo audit); it says why, and what shows it. A filter letting nothing
    through says so too."""
    async with opened(session) as (app, pilot):
        screen = agentgo_screen(app)
        await pilot.press("1", "home", "enter", "3")
        await pilot.pause(0.1)
        assert len(screen.conversation.items) == 0
        assert "The model is sent nothing of the run chosen" in screen_text(app)
        await pilot.press("r")  # every line of the run
        await pilot.pause(0.1)
        assert len(screen.conversation.items) == 5
        assert "sent nothing" not in screen_text(app)
        await pilot.press("r", "a")
        screen.conversation.set_filter(frozenset({"system"}), None, ({"user", "system"}, ()))
        await wait_for(
            pilot, lambda: "The filter lets none of the 1 item through" in screen_text(app)
        )


async def test_commands_reach_the_palette(session: Path) -> None:
    async with opened(session) as (app, _pilot):
        titles = [command.title for command in app.get_system_commands(app.screen)]
        for title in ("Show the call tree", "Show the timeline", "All runs", "Warnings"):
            assert title in titles


async def test_viewer_never_writes(session: Path) -> None:
    before = fingerprint(session)
    async with opened(session) as (_app, pilot):
        keys = ["down", "enter", "2", "e", "3", "enter", "4", "5", "g", "enter", "1", "a", "w"]
        await pilot.press(*keys)
        await pilot.pause(0.3)
    assert fingerprint(session) == before
    assert not os.path.exists(str(session) + ".repair")


async def test_slash_on_the_calls_tab_searches_the_calls(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/`` there finds calls by their label (kind, name, id, status), and ``n`` / ``N``
    step through them round the end; on another tab it searches the conversation."""
    async with opened(session) as (app, pilot):
        screen, panes = agentgo_screen(app), own_panes(app)
        told = notes_kept(app, monkeypatch)  # (a count's toast shows 2 s: kept, not looked for)
        await pilot.press("2", "slash", *"BASH", "enter")
        await wait_for(pilot, lambda: "2 matches for 'BASH'" in told)
        calls = panes.calls
        assert screen.query_one("#tabs").active == "calls"  # type: ignore[attr-defined]
        assert calls.selected is not None and calls.selected[1] == "call-2"
        assert "/BASH: 1/2" in screen_text(app)  # (its place, in the header: a toast alone)
        await pilot.press("n")
        assert calls.selected is not None and calls.selected[1] == "call-9"
        await wait_for(pilot, lambda: "/BASH: 2/2" in screen_text(app))
        await pilot.press("n")  # round the end
        assert calls.selected is not None and calls.selected[1] == "call-2"
        await pilot.press("N")
        assert calls.selected is not None and calls.selected[1] == "call-9"
        await pilot.press("slash")  # (the calls' own last search, not the conversation's)
        assert screen.query_one("#search").value == "BASH"  # type: ignore[attr-defined]
        await pilot.press(*["backspace"] * 4, *"nothing like it", "enter")
        await wait_for(pilot, lambda: "0 matches for 'nothing like it'" in told)
        assert calls.selected is not None and calls.selected[1] == "call-9"  # (stays put)
        await pilot.press("3", "slash", *"docstring", "enter")  # the conversation's own
        await wait_for(pilot, lambda: screen.conversation.search_term == "docstring")
        assert screen.query_one("#tabs").active == "conversation"  # type: ignore[attr-defined]


async def test_escape_from_the_search_bar_gives_the_focus_back_to_the_tab_shown(
    session: Path,
) -> None:
    """It went to the conversation, hidden behind the tab: its keys moved a view not seen."""
    async with opened(session) as (app, pilot):
        await pilot.press("6", "slash", "x", "escape")
        assert app.focused is agentgo_screen(app).ops.table
        await pilot.press("2", "slash", "escape")
        assert app.focused is own_panes(app).calls.call_tree


async def test_a_writer_gone_a_moment_ago_is_gone(tmp_path: Path) -> None:
    """agentgo's only writer locks the file: the lock gone, its writer is, however fresh
    the file (no 30 s of "live" by its mtime): its run left open and its call are
    interrupted at once, as ``replay`` says."""
    path = written(tmp_path / "s.jsonl", write_agentgo_story)
    os.utime(path)  # (written just now)
    async with opened(path) as (app, _pilot):
        screen = agentgo_screen(app)
        assert not screen.writer_is_alive()
        text = screen_text(app)
        assert "● idle" in text and "● live" not in text
        states = {op.state for op in screen.transcript.tool_operations}
        assert "running" not in states and "interrupted" in states


async def test_m_on_a_tool_operation_shows_the_message_that_called_it(session: Path) -> None:
    """(agentgo's operations named no message: "No message of this file holds that call")"""
    async with opened(session) as (app, pilot):
        screen = agentgo_screen(app)
        await pilot.press("6")
        table = screen.ops.table
        await wait_for(pilot, lambda: table.row_count > 0)
        op = screen.transcript.tool_operations[table.cursor]
        await pilot.press("m")
        await wait_for(pilot, lambda: screen.query_one("#tabs").active == "conversation")  # type: ignore[attr-defined]
        item = screen.conversation.items[screen.conversation.cursor]
        assert op.call_id in [p.call_id for p in item.parts if p.kind == "tool-call"]
        assert not said(app, "No message of this file holds that call")


async def test_brackets_move_the_runs_table_to_the_run_shown(session: Path) -> None:
    """(``]`` / ``[`` said "showing run 3" over a table whose cursor stayed on run 1)"""
    async with opened(session) as (app, pilot):
        screen, panes = agentgo_screen(app), own_panes(app)
        await pilot.press("1")
        table = screen.runs.table
        await wait_for(pilot, lambda: table.row_count >= 2)
        for step in range(1, table.row_count + 1):
            await pilot.press("right_square_bracket")
            await pilot.pause(0.05)
            order = panes.view.run_order
            assert panes.run_filter == order[step - 1]
            assert screen.runs.runs[table.cursor_row].id == panes.run_filter


async def test_enter_on_a_checkpoint_goes_into_its_snapshot(session: Path) -> None:
    """(the help said ``enter`` Open, and it did nothing)"""
    from viewer.widgets.agentgo_checkpoints import SnapshotView

    async with opened(session) as (app, pilot):
        await pilot.press("4")
        await pilot.pause(0.1)
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert isinstance(app.focused, SnapshotView)


opened_narrow, _shows_narrow = for_screen(ModelScreen, (80, 24))


async def test_the_runs_line_breaks_between_its_counts_at_80_columns(session: Path) -> None:
    """At 80 columns the header's fourth line was cut, its gaps count and the run shown
    lost (``· 8 chec…``): it breaks between its counts as the second line does."""
    async with opened_narrow(session) as (app, _pilot):
        header = [line.strip() for line in screen_lines(app)[:11]]  # (the usage, in flight on two)
        assert any(line.startswith("3 runs (2 closed, 1 interrupted)") for line in header)
        assert any("gaps" in line and line.endswith("showing all runs") for line in header), header
        assert not any(line.endswith("…") and "runs" in line for line in header)


@pytest.mark.parametrize("width", [80, 100])
async def test_no_checkpoint_is_said_between_words(tmp_path: Path, width: int) -> None:
    """The Checkpoints tab of a session with none: its words broke mid-word at 100
    columns (``… only when its host as`` / ``ks.``)."""
    path = tmp_path / "none.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": {"kind": "user", "content": "hi there"}})
    app = TailscopeApp(path)
    async with app.run_test(size=(width, 30)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("4")
        await wait_for(pilot, lambda: "No checkpoint in this" in screen_text(app))
        lines = screen_lines(app)
        first = next(i for i, line in enumerate(lines) if "No checkpoint in this" in line)
        said = [line.strip(" ▌│") for line in lines[first : first + 2]]
        message = (
            "No checkpoint in this session. Checkpoints are optional: a run saves one only"
            " when its host asks."
        )
        assert " ".join(said).startswith(message) or said[0] == message, said


async def test_every_tabs_search_is_said_on_the_headers_first_line(session: Path) -> None:
    """The Calls tab's search place was on the header's fourth line, the timeline's on
    its first: both on the first now, beside the file's state, as the conversation's."""
    async with opened(session) as (app, pilot):
        await pilot.press("2", "slash", *"BASH", "enter")
        await wait_for(pilot, lambda: "/BASH: 1/2" in screen_text(app))
        first = next(line for line in screen_lines(app) if "●" in line)
        assert "/BASH: 1/2" in first, first
        await pilot.press("5", "slash", *"message_end", "enter")
        await wait_for(pilot, lambda: "/message_end: " in screen_text(app))
        first = next(line for line in screen_lines(app) if "●" in line)
        assert "/message_end: " in first and "/BASH" not in screen_text(app), first


async def test_the_timeline_has_a_header_row(session: Path) -> None:
    """Every table has a row of its columns' labels; the timeline had none (its rows began
    under the tab bar). Its labels stand over their columns, as wide as they are."""
    async with opened(session) as (app, pilot):
        await pilot.press("5")
        timeline = own_panes(app).timeline
        await wait_for(pilot, lambda: timeline.item_count() > 0)
        header, row = (timeline.render_line(y).text for y in (0, 1))
        assert header.split() == ["seq", "time", "type", "run", "execution", "summary"], header
        seq, time, kind = row.split()[:3]
        assert header.index("type") == row.index(f" {kind} ") + 1, (header, row)
        assert header.index("time") == row.index(f" {time} ") + 1, (header, row)
        assert header.index("seq") + 3 == row.index(f"{seq} ") + len(seq), (header, row)
