"""``/`` on agentgo's timeline searches its records (every string in them), in a worker,
``n`` / ``N`` step through the matches; the search refuses a record from its line's
bytes only where the term cannot be in its strings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import orjson
import pytest
from helpers import (
    agentgo_screen,
    for_screen,
    notes_kept,
    said,
    screen_text,
    wait_for,
    written,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgo_helpers import kept_records
from agentgo_story import write_agentgo_story
from session_core.agentgo import AgentGoSession
from session_core.agentgo.reader import read_view
from session_core.agentgo.search import RecordSearch, record_texts
from session_core.agentgo.view import AgentGoView
from session_core.fold import FOLD_TO_ASCII, fold, holds
from viewer.formats.agentgo import AgentGoPanes
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.agentgo_timeline import TimelineView

opened, _shows = for_screen(ModelScreen, (120, 40))


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return written(tmp_path / "session.jsonl", write_agentgo_story)


def _view(path: Path) -> AgentGoView:
    return read_view(str(path))


def _plain(view: AgentGoView, term: str) -> list[int]:
    """What the search must find: each record parsed, its strings looked through."""
    needle = fold(term)
    return [
        i
        for i in range(len(view.records))
        if any(holds(text, needle) for text in record_texts(view.records.read(i)))
    ]


def test_the_search_finds_what_a_plain_look_at_every_record_does(session: Path) -> None:
    view = _view(session)
    for term in ("bash", "BASH", "ZeroDivision", "kimi", "turn-1", "run_close", "1061", "q\\"):
        found = RecordSearch(term).find(view.records, range(len(view.records)))
        assert found == _plain(view, term), term
    assert RecordSearch("bash").find(view.records, range(len(view.records)))  # (some)
    assert RecordSearch("no such words").find(view.records, range(len(view.records))) == []


def test_a_term_the_line_escapes_is_found_in_its_strings(tmp_path: Path) -> None:
    """What a line's bytes do not show as it is: an escape, a character that lowercases
    to ASCII (K, U+212A, is "k" lowered), a quote, a slash written as ``\\/``."""
    lines = [
        b'{"type":"message_end","seq":0,"data":{"text":"caf\\u00e9 \\u0041BC"}}',
        '{"type":"message_end","seq":1,"data":{"text":"\u212aelvin"}}'.encode(),
        b'{"type":"message_end","seq":2,"data":{"text":"say \\"hi\\" a\\/b"}}',
        b'{"type":"message_end","seq":3,"data":{"n":12345,"f":1.5,"b":true}}',
    ]
    records = kept_records(tmp_path / "lines", lines)
    every = range(len(lines))
    assert RecordSearch("café").find(records, every) == [0]
    assert RecordSearch("abc").find(records, every) == [0]  # (\u0041 is A)
    assert RecordSearch("kelvin").find(records, every) == [1]
    assert RecordSearch("KELVIN").find(records, every) == [1]
    assert RecordSearch('"hi"').find(records, every) == [2]
    assert RecordSearch("a/b").find(records, every) == [2]
    assert RecordSearch("2345").find(records, every) == [3]  # an integer, as written
    assert RecordSearch("1.5").find(records, every) == []  # (not a float, nor a key)
    assert RecordSearch("true").find(records, every) == []
    assert RecordSearch("text").find(records, every) == []


def test_a_character_that_folds_to_ascii_is_found_in_any_case(tmp_path: Path) -> None:
    """``ß`` is ``ss`` and ``İ`` is ``i`` to a search, though a line's bytes hold neither."""
    lines = ['{"type":"message_end","seq":0,"data":{"text":"Straße İstanbul ﬁle"}}'.encode()]
    records = kept_records(tmp_path / "lines", lines)
    for term in ("strasse", "STRASSE", "istanbul", "İSTANBUL", "file", "Straße"):
        assert RecordSearch(term).find(records, range(1)) == [0], term
    # (an İ written decomposed, I and a combining dot: skipped by the prefilter, the
    # review; and a line with ß is no match for a term it cannot hold)
    lines = [
        '{"type":"message_end","seq":0,"data":{"text":"I\u0307stanbul"}}'.encode(),
        '{"type":"message_end","seq":1,"data":{"text":"Straße"}}'.encode(),
    ]
    records = kept_records(tmp_path / "decomposed", lines)
    assert RecordSearch("istanbul").find(records, range(2)) == [0]
    assert RecordSearch("zzsqq").find(records, range(2)) == []


def test_the_characters_beyond_ascii_that_fold_to_ascii_are_all_known() -> None:
    odd = {
        chr(c): "".join(sorted({x for x in fold(chr(c)) if x.isascii()}))
        for c in range(128, sys.maxunicode + 1)
        if any(x.isascii() for x in fold(chr(c)))
    }
    assert odd == {c: "".join(sorted(set(a))) for c, a in FOLD_TO_ASCII.items()}


@settings(max_examples=200, deadline=None)
@given(
    st.text(min_size=1, max_size=4),
    st.lists(st.text(max_size=12), min_size=1, max_size=4),
    st.booleans(),
)
def test_the_bytes_never_refuse_a_record_that_holds_the_term(
    tmp_path_factory: pytest.TempPathFactory, term: str, texts: list[str], ascii: bool
) -> None:
    record = {"type": "message_end", "seq": 0, "data": {"texts": texts}}
    # as orjson writes it, or as a writer that escapes every character beyond ASCII
    line = json.dumps(record).encode() if ascii else orjson.dumps(record)
    records = kept_records(tmp_path_factory.mktemp("s") / "r", [line])
    want = any(fold(term) in fold(t) for t in [*texts, "message_end", "0"])
    assert bool(RecordSearch(term).find(records, range(1))) == want


async def test_slash_on_the_timeline_searches_itskept_records(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with opened(session) as (app, pilot):
        told = notes_kept(app, monkeypatch)  # (a count's toast shows 2 s: kept, not looked for)
        screen = agentgo_screen(app)
        panes = screen.panes
        assert isinstance(panes, AgentGoPanes)
        timeline = panes.timeline
        want = _plain(_view(session), "ZeroDivision")
        assert len(want) >= 2
        await pilot.press("5", "slash", *"ZeroDivision", "enter")
        await wait_for(pilot, lambda: said(app, f"{len(want)} matches for 'ZeroDivision'"))
        assert timeline.matches == want  # (all runs: row i is record i)
        assert timeline.cursor == want[0]
        assert screen.query_one("#tabs").active == "timeline"  # type: ignore[attr-defined]
        assert app.focused is timeline
        assert f"/ZeroDivision: 1/{len(want)}" in screen_text(app)
        await pilot.press("n")
        assert timeline.cursor == want[1]
        await wait_for(pilot, lambda: f"/ZeroDivision: 2/{len(want)}" in screen_text(app))
        await pilot.press("N")
        assert timeline.cursor == want[0]
        await pilot.press("slash")  # (the timeline's own last search)
        assert screen.query_one("#search").value == "ZeroDivision"  # type: ignore[attr-defined]
        await pilot.press(*["backspace"] * 12, *"nothing like it", "enter")
        await wait_for(pilot, lambda: "0 matches for 'nothing like it'" in told)
        assert timeline.cursor == want[0]  # (stays put)
        assert "/nothing like it: none" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: said(app, "No record matches"))
        assert screen.query_one("#tabs").active == "timeline"  # type: ignore[attr-defined]


async def test_a_run_chosen_is_searched_again(session: Path) -> None:
    async with opened(session) as (app, pilot):
        panes = agentgo_screen(app).panes
        assert isinstance(panes, AgentGoPanes)
        timeline: TimelineView = panes.timeline
        await pilot.press("5", "slash", *"bash", "enter")
        await wait_for(pilot, lambda: timeline.searching is None and timeline.matches)
        every = [timeline.record_index(row) for row in timeline.matches]
        first_run = agentgo_screen(app).panes.view.run_order[0]  # type: ignore[union-attr]
        panes.action_choose_run(first_run)
        await wait_for(pilot, lambda: timeline.searching is None and timeline.rows is not None)
        await pilot.pause(0.2)
        rows = timeline.rows
        assert rows is not None
        mine = [timeline.record_index(row) for row in timeline.matches]
        assert mine == [i for i in every if i in set(rows)]
        assert mine and len(mine) < len(every)


async def test_records_appended_to_a_followed_session_are_searched_as_they_come(
    session: Path,
) -> None:
    async with opened(session) as (app, pilot):
        panes = agentgo_screen(app).panes
        assert isinstance(panes, AgentGoPanes)
        timeline = panes.timeline
        await pilot.press("5", "slash", *"late-word", "enter")
        await wait_for(pilot, lambda: said(app, "0 matches for 'late-word'"))
        with AgentGoSession.open(session) as s:
            run = s.begin_run()
            run.record(
                "model_request",
                {"messages": [], "tools": [], "config": {}},
                execution={"id": "late-word-1", "kind": "model", "attempt": 1},
            )
            await wait_for(pilot, lambda: timeline.matches and timeline.searching is None)
            (row,) = timeline.matches
            assert timeline.view.records[timeline.record_index(row)]["type"] == "model_request"
            await pilot.pause(0.1)
            assert timeline.cursor == row  # (it followed the end, which is the match)
            assert "/late-word: 1/1" in screen_text(app)
            await pilot.press("g")
            await wait_for(
                pilot, lambda: "/late-word: –/1" in screen_text(app)
            )  # (the cursor on no match)
            await pilot.press("n")
            assert timeline.cursor == row


async def test_the_header_says_the_search_of_the_tab_shown(session: Path) -> None:
    """(the calls' search was said on every tab, beside the conversation's own)"""
    async with opened(session) as (app, pilot):
        await pilot.press("2", "slash", *"zzqq", "enter")
        await wait_for(pilot, lambda: said(app, "0 matches for 'zzqq'"))
        assert "/zzqq: none" in screen_text(app)
        for tab in ("1", "3", "4", "6", "7", "5"):
            await pilot.press(tab)
            await pilot.pause(0.1)
            assert "/zzqq" not in screen_text(app), tab
        await pilot.press("2")
        await wait_for(pilot, lambda: "/zzqq: none" in screen_text(app))


async def test_the_conversation_s_search_is_not_said_on_the_calls(session: Path) -> None:
    """(line 1 said it there, over the calls' own, which ``n`` steps through there)"""
    async with opened(session) as (app, pilot):
        await pilot.press("3", "slash", *"zzqq", "enter")
        await wait_for(pilot, lambda: said(app, "0 matches for 'zzqq'"))
        assert "/zzqq: none" in screen_text(app)
        await pilot.press("2")
        await pilot.pause(0.1)
        assert "/zzqq" not in screen_text(app)


async def test_the_search_bar_says_what_it_searches_with_a_term_in_it(session: Path) -> None:
    """(the placeholder alone said it, hidden by the last term the bar opens with)"""
    async with opened(session) as (app, pilot):
        await pilot.press("5", "slash", *"bash", "enter")
        await wait_for(pilot, lambda: said(app, "matches for 'bash'"))
        await pilot.press("slash")
        await wait_for(pilot, lambda: "search this tab" in screen_text(app))
        await pilot.press("escape", "4", "slash")  # the checkpoints: the conversation is
        # searched (no search of their own)
        await wait_for(pilot, lambda: "search the conversation" in screen_text(app))


async def test_tab_out_of_the_search_bar_closes_it(session: Path) -> None:
    async with opened(session) as (app, pilot):
        await pilot.press("3", "slash", "x")
        bar = agentgo_screen(app).query_one("#search-bar")
        assert bar.display
        await pilot.press("tab")
        await pilot.pause(0.1)
        assert not bar.display  # (it stayed open, unfocused, over every tab after)
