"""``/`` on the Diff tab searches the diff's rows (every format's: the model screen's
``ModelDiffView``, v1's ``DiffView``), in a worker that goes to the first match as soon
as it is found; ``n`` / ``N`` (and ``p``) step through the matches once the tab is
searched, the compactions (``x`` / ``X``) or differences (``]`` / ``[``) keep keys of
their own, and the header counts as every tab's search does. (``/`` there searched the
conversation, a toast said.)"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from claude_code_writer import CCWriter
from claude_code_writer import text as cc_text
from codex_writer import RolloutWriter
from helpers import notes_kept, said, screen_lines, screen_text, wait_for
from model_screen_helpers import IDLE, opened, until
from model_toy import toy_registered
from rich.cells import cell_len
from v1_screen_helpers import story_open

from agentgo_helpers import model as ag_model
from agentgo_helpers import text as ag_text
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.search import TextSearch
from story import HOSTILE
from viewer.safe import one_line
from viewer.screens.help import BindingsHelpScreen, binding_rows
from viewer.widgets import row_search
from viewer.widgets.diff_view import DiffView, row_text
from viewer.widgets.model_diff import ModelDiff, ModelDiffView
from viewer.widgets.model_status import ModelStatus

__all__: list[str] = []


def _msg(ident: str, role: str, text: str) -> dict[str, Any]:
    return {"id": ident, "type": "msg", "role": role, "text": text}


@pytest.fixture
def two_compactions(tmp_path: Path) -> Iterator[Path]:
    """A toy file whose two compactions fold the parser's messages, one of them hostile."""
    lines = [
        {"type": "meta", "toy": True, "meta": {"model": "toy-1"}},
        _msg("u1", "user", "fix the parser please"),
        _msg("a1", "assistant", "Reading the parser now."),
        _msg("h1", "assistant", HOSTILE),
        {"type": "compact", "summary": "First: the parser was read."},
        _msg("u2", "user", "and the lexer?"),
        _msg("a2", "assistant", "The lexer is fine."),
        {"type": "compact", "summary": "Second: the lexer is fine."},
        _msg("u3", "user", "thanks"),
    ]
    with toy_registered():
        path = tmp_path / "toy.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        os.utime(path, (IDLE, IDLE))
        yield path


def _footer(app: Any) -> str:
    return screen_lines(app)[-1]


def _rows(view: ModelDiffView) -> list[str]:
    return [text for _style, text in view.entries]


def _cursor_row(view: ModelDiffView) -> str:
    return _rows(view)[view.cursor]


async def _diff_of(pilot: Any, screen: Any) -> ModelDiffView:
    await pilot.press("4")
    diff = screen.diff
    await until(pilot, lambda: isinstance(diff.entries, ModelDiff) and diff.has_focus, "the diff")
    return diff  # type: ignore[no-any-return]


def test_a_row_is_found_by_what_it_says() -> None:
    rows = [("", "◆ compaction at line 4"), ("red", "  − line 2 user: Fix the PARSER")]
    every = range(len(rows))
    assert TextSearch("parser", lambda r, i: r[i][1]).find(rows, every) == [1]  # any case
    assert TextSearch("line", lambda r, i: r[i][1]).find(rows, every) == [0, 1]
    assert TextSearch("zzqq", lambda r, i: r[i][1]).find(rows, every) == []
    assert TextSearch("x", lambda r, i: r[i][1]).find(rows, every, lambda: True) is None


async def test_slash_on_the_diff_searches_its_rows_n_steps_them_x_the_compactions(
    two_compactions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with opened(two_compactions) as (app, pilot, screen):
        told = notes_kept(app, monkeypatch)  # (a count's toast shows 2 s: kept, not looked for)
        diff = await _diff_of(pilot, screen)
        assert "n Next compaction or elision" in _footer(app)  # (not searched yet)
        await pilot.press("slash")
        await wait_for(pilot, lambda: "search this tab" in screen_text(app))
        assert not said(app, "no search of its own")
        await pilot.press(*"parser", "enter")
        expected = [i for i, text in enumerate(_rows(diff)) if "parser" in text.lower()]
        assert len(expected) >= 3  # (each compaction folds them: listed under both)
        await until(pilot, lambda: said(app, f"{len(expected)} matches for 'parser'"), "count")
        assert screen.query_one("#tabs").active == "diff"  # type: ignore[attr-defined]
        assert diff.matches == expected and diff.cursor == expected[0]
        assert "parser" in _cursor_row(diff).lower()
        assert f"/parser: 1/{len(expected)}" in screen_text(app)
        # the footer says what n does now, and the key the compactions keep
        footer = _footer(app)
        assert "n Next match" in footer and "x Next compaction or elision" in footer
        await pilot.press("n")
        assert diff.cursor == expected[1]
        await pilot.press("N")
        assert diff.cursor == expected[0]
        await pilot.press("p")  # (p is N's, as it was)
        assert diff.cursor == expected[-1]  # round the end
        await pilot.press("g", "x")  # the first compaction's row, a match or not
        assert _cursor_row(diff).startswith("◆ compaction at line 5")
        await pilot.press("x")
        assert _cursor_row(diff).startswith("◆ compaction at line 8")
        await pilot.press("X")
        assert _cursor_row(diff).startswith("◆ compaction at line 5")
        await wait_for(pilot, lambda: f"/parser: –/{len(expected)}" in screen_text(app))
        # an empty search ends it: n steps through the compactions again
        await pilot.press("slash", "ctrl+u", "enter")
        await pilot.pause(0.1)
        assert diff.matches == [] and "/parser" not in screen_text(app)
        await pilot.press("n")
        assert _cursor_row(diff).startswith("◆ compaction at line 8")
        assert "n Next compaction or elision" in _footer(app)
        # a term found nowhere: said, and n says so
        await pilot.press("slash", *"zzqq", "enter")
        await until(pilot, lambda: "0 matches for 'zzqq'" in told, "none")
        assert "/zzqq: none" in screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: said(app, "No row matches: / searches the diff."), "n's toast")


async def test_a_match_is_highlighted_and_hostile_text_stays_inert(
    two_compactions: Path,
) -> None:
    async with opened(two_compactions) as (_app, pilot, screen):
        diff = await _diff_of(pilot, screen)
        await pilot.press("slash", *"[bold red]markup", "enter")
        await until(pilot, lambda: diff.searching is None and diff.matches, "the matches")
        row = diff.matches[0]
        assert diff.cursor == row
        assert "[bold red]markup[/]" in diff.rendered_text(row)  # (as text, not obeyed)
        assert "\x1b" not in diff.rendered_text(row)
        match = diff.component("block-view--match")
        styled = [seg.text for strip in diff.item_strips(row) for seg in strip if seg.style]
        matched = [
            seg.text
            for strip in diff.item_strips(row)
            for seg in strip
            if seg.style is not None and seg.style.bgcolor == match.bgcolor
        ]
        assert styled and "".join(matched) == "[bold red]markup"


async def test_the_cursor_goes_to_the_first_match_before_the_search_ends(
    two_compactions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big diff takes seconds to search: the cursor is on the first match found while
    the rest is looked through, the header saying how far (it went there at the end)."""
    gate = threading.Event()
    monkeypatch.setattr(row_search, "SEARCH_STEP", 1)  # a row a stretch
    found_once: list[bool] = []

    class Held(TextSearch):
        def find(
            self, source: Any, keys: Sequence[int], cancelled: Callable[[], bool] | None = None
        ) -> list[int] | None:
            if found_once:  # after the first match: held until the test lets it go
                gate.wait(10)
            found = super().find(source, keys, cancelled)
            if found:
                found_once.append(True)
            return found

    monkeypatch.setattr(
        ModelDiffView, "finder", lambda self, term: Held(term, lambda e, i: e[i][1])
    )
    async with opened(two_compactions) as (app, pilot, screen):
        diff = await _diff_of(pilot, screen)
        await pilot.press("slash", *"lexer", "enter")
        first = next(i for i, text in enumerate(_rows(diff)) if "lexer" in text.lower())
        await until(pilot, lambda: diff.cursor == first, "the first match")
        assert diff.searching is not None  # (still looking)
        assert "/lexer: searching" in screen_text(app)
        gate.set()
        await until(pilot, lambda: said(app, "matches for 'lexer'"), "the search's end")
        assert diff.cursor == first and diff.searching is None


async def test_a_followed_files_new_diff_is_searched_again(two_compactions: Path) -> None:
    async with opened(two_compactions) as (app, pilot, screen):
        diff = await _diff_of(pilot, screen)
        await pilot.press("slash", *"lexer", "enter")
        await until(pilot, lambda: said(app, "matches for 'lexer'"), "the count")
        before = len(diff.matches)
        first = diff.entries
        with two_compactions.open("a") as fh:
            fh.write(json.dumps(_msg("u4", "user", "the lexer again")) + "\n")
            fh.write(json.dumps({"type": "compact", "summary": "Third."}) + "\n")
        await until(pilot, lambda: diff.entries is not first, "a new snapshot's diff")
        await until(pilot, lambda: diff.searching is None and len(diff.matches) > before, "more")
        assert diff.matches == [i for i, t in enumerate(_rows(diff)) if "lexer" in t.lower()]
        await wait_for(
            pilot,
            lambda: "/lexer: " in screen_text(app) and f"/{len(diff.matches)}" in screen_text(app),
        )


async def test_the_help_says_which_keys_step_what(two_compactions: Path) -> None:
    async with opened(two_compactions) as (app, pilot, _screen):
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        help_screen = app.screen
        assert isinstance(help_screen, BindingsHelpScreen)
        diff = dict(help_screen.sections)["Diff"]
        assert binding_rows(diff) == [
            ("enter / m", "In the raw view"),
            ("n", "Next match of this tab's search"),
            ("N / p", "Previous match of this tab's search"),
            ("x / n", "Next compaction or elision (n too until / searches this tab)"),
            ("X / N / p", "Previous compaction or elision (N / p too until / searches this tab)"),
        ]


# -- v1's diff: a row per message line, its texts cut to the width ---------------------


def _v1_cursor_row(app: Any) -> str:
    rows = [row for row in screen_lines(app) if row.startswith("▌")]
    assert rows, screen_lines(app)
    return rows[0]


async def test_slash_on_v1s_diff_searches_its_rows_whole(story: tuple[Path, Any]) -> None:
    """A v1 row shows the start of what the file says and of what is sent: a match
    further on is found, and the row says so where it would be unseen."""
    path, _ = story
    async with story_open(path) as (app, pilot, _view):
        await pilot.press("d")
        diff = app.query_one(DiffView)
        await wait_for(pilot, lambda: "sent as written" in screen_text(app))
        await pilot.press("slash", *"line 29 of tests", "enter")
        await wait_for(pilot, lambda: said(app, "1 match for 'line 29 of tests'"))
        assert len(diff.matches) == 1 and diff.cursor == diff.matches[0]
        assert "tool" in _v1_cursor_row(app)  # the tool's answer (its 30 lines, cut)
        text = screen_text(app)
        assert "the match is further on than this row shows: enter shows its line" in text
        assert "/line 29 of tests: 1/1" in text
        await pilot.press("slash", "ctrl+u", *"divide", "enter")
        await wait_for(pilot, lambda: said(app, "matches for 'divide'"))
        matches = list(diff.matches)
        assert len(matches) >= 2 and diff.cursor in matches
        after = matches[(matches.index(diff.cursor) + 1) % len(matches)]
        await pilot.press("n")
        assert diff.cursor == after
        await pilot.press("g", "right_square_bracket")  # the first difference, a match or not
        stepped = diff.cursor
        assert stepped > 0 and diff.all_rows.kind(diff.order[stepped]) != "kept"
        await pilot.press("n")
        assert diff.cursor == min(m for m in matches if m > stepped)
        await pilot.press("a")  # the changed rows alone: searched again, in their places
        await wait_for(pilot, lambda: diff.searching is None)
        await pilot.pause(0.1)
        rows = [diff.all_rows[i] for i in diff.order]
        assert all(row.kind != "kept" for row in rows)
        lines = diff.all_rows.summary_lines
        assert diff.matches == [
            i for i, row in enumerate(rows) if "divide" in row_text(row, lines).lower()
        ]


async def test_a_v1_rows_texts_fit_and_a_cut_shows(story: tuple[Path, Any]) -> None:
    """Each column of a v1 row's second line is cut to its half with ``…`` (the right
    one ran past the width, cut by it unseen: an audit)."""
    path, _ = story
    async with story_open(path) as (app, pilot, _view):
        await pilot.press("d")
        diff = app.query_one(DiffView)
        await wait_for(pilot, lambda: "sent as written" in screen_text(app))
        cut = 0
        for index in range(len(diff.order)):
            row = diff.all_rows[diff.order[index]]
            line = diff.rendered_text(index).splitlines()[1]
            assert cell_len(line) <= diff.content_width, line
            _left, right = line.split(" │ ", 1)
            sent = row.sent if row.sent is not None else right
            if cell_len(one_line(sent)) > cell_len(right):
                assert right.endswith("…"), (line, sent)
                cut += 1
        assert cut  # (the story has texts longer than a half)


async def test_the_header_says_the_search_of_the_tab_shown(story: tuple[Path, Any]) -> None:
    """The conversation's search, not said on the Diff tab, whose ``n`` does not step
    through it, until the Diff is searched (an audit: "/divide: 1/2" over its rows)."""
    path, _ = story
    async with story_open(path) as (app, pilot, _view):
        header = lambda: str(app.query_one(ModelStatus).render())  # noqa: E731
        await pilot.press("slash", *"divide", "enter")
        await wait_for(pilot, lambda: said(app, "matches for 'divide'"))
        assert "/divide: " in header()
        await pilot.press("d")
        await wait_for(pilot, lambda: "sent as written" in screen_text(app))
        assert "/divide" not in header(), header()
        await pilot.press("slash", "ctrl+u", *"tests", "enter")
        await wait_for(pilot, lambda: said(app, "matches for 'tests'"))
        assert "/tests: " in header() and "/divide" not in header()
        await pilot.press("1")
        await pilot.pause(0.1)
        assert "/divide: " in header() and "/tests" not in header()


@pytest.fixture
def story(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    from story import write_story

    path = tmp_path / "story.jsonl"
    return path, write_story(path)


# -- every format's diff: a row's text searched whole -----------------------------------

FAR = "farawayword"  # past the 100 characters an item's row shows
LONG = "the opening words of a long message, " * 5 + FAR


def _claude_code_folding(path: Path) -> None:
    w = CCWriter()
    w.user(LONG)
    w.assistant("m1", [cc_text("answer one")])
    w.system(
        "compact_boundary",
        parent=None,
        content="Conversation compacted",
        logicalParentUuid=w.last,
        compactMetadata={"trigger": "auto", "preTokens": 1000},
    )
    w.user("Summary so far.", isCompactSummary=True, isVisibleInTranscriptOnly=True)
    w.user("go on")
    w.write(path)


def _codex_folding(path: Path) -> None:
    w = RolloutWriter(path)
    w.session_meta()
    w.message("user", LONG)
    w.message("assistant", "answer one")
    w.compacted("Summary so far.", None)
    w.message("user", "go on")


def _agentgo_folding(path: Path) -> None:
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": ag_text("user", LONG)})
        run.record("message_end", {"message": ag_text("assistant", "answer one")})
        compact = {"id": "c1", "kind": "compact", "attempt": 1}
        run.record(
            "context_compacted",
            {"summary": "Summary so far.", "replaced": 2, "tokens_after": 10},
            execution=compact,
        )
        run.record("message_end", {"message": ag_text("user", "go on")})
        # (what it folded is known once the model is next sent the conversation)
        sent = [ag_text("user", "Summary so far."), ag_text("user", "go on")]
        request = {"messages": sent, "tools": [], "config": {}}
        run.record("model_request", request, execution=ag_model("m2"))
        run.record("agent_end", {})


FOLDING = {
    "claude-code": _claude_code_folding,
    "codex": _codex_folding,
    "agentgo-v1": _agentgo_folding,
}


@pytest.mark.parametrize("fmt", sorted(FOLDING))
def test_every_formats_diff_row_is_searched_whole(tmp_path: Path, fmt: str) -> None:
    """An item's row shows its text's first 100 characters; ``/`` looks in all of it,
    as v1's diff does (a word further on was not found)."""
    path = tmp_path / "s.jsonl"
    FOLDING[fmt](path)
    transcript = open_transcript(path)
    assert transcript.format == fmt
    diff = ModelDiff(transcript)
    rows = [text for _style, text in diff]
    folded = next(i for i, text in enumerate(rows) if "the opening words" in text)
    assert FAR not in rows[folded]  # (folded, or kept: Codex keeps the user's; cut as drawn)
    assert diff.row_text(folded).endswith(FAR)
    assert diff.row_text(0) == rows[0]  # (a row shown whole: as it is)
    assert ModelDiffView().finder(FAR).find(diff, range(len(diff))) == [folded]


async def test_a_match_past_what_a_diff_row_shows_is_said(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    _codex_folding(path)
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (app, pilot, screen):
        diff = await _diff_of(pilot, screen)
        await pilot.press("slash", *FAR, "enter")
        await until(pilot, lambda: said(app, f"1 match for '{FAR}'"), "the match")
        assert diff.matches == [diff.cursor]
        assert "the opening words" in _cursor_row(diff)
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "the match is further on than this row shows" in text
        assert f"/{FAR}: 1/1" in text


async def test_a_match_split_by_a_soft_wrap_is_not_said_further_on(tmp_path: Path) -> None:
    """A summary wrapped between words: a term over the wrap (the end of one row, the
    start of the next, both on screen) was said further on than the row shows."""
    path = tmp_path / "r.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    w.message("user", "start")
    w.message("assistant", "answer one")
    w.compacted(" ".join(f"w{n:03d}" for n in range(80)), None)
    w.message("user", "go on")
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (app, pilot, screen):
        diff = await _diff_of(pilot, screen)
        shown = screen_lines(app)
        at = next(i for i, line in enumerate(shown) if line.lstrip("▌ ").startswith("w000"))
        term = f"{shown[at].split()[-1]} {shown[at + 1].lstrip('▌ ').split()[0]}"
        await pilot.press("slash", *term, "enter")
        await until(pilot, lambda: said(app, f"2 matches for '{term}'"), "the matches")
        await pilot.pause(0.1)
        assert len(diff.matches) == 2
        shown = screen_lines(app)
        summary = [line for line in shown if line.lstrip("▌ ").startswith("w0")]
        assert len(summary) == 3 and term.split()[0] in summary[0], shown
        assert not any("further on" in line for line in summary), shown
        # (the item's row, one line cut: its match is further on, said so)
        (row,) = (line for line in shown if "[2 of 2 in its place]" in line)
        assert "the match is further on than this row shows" in row
