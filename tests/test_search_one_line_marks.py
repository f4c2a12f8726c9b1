"""A text drawn on one line shows a newline as ``⏎`` (a call's row, ``one_line``) and a
name a tab as ``␉`` (``name_line``); typing the mark the screen shows finds it, as every
other mark drawn is found (``term_reading``). ``/cd src⏎make`` found nothing: a search
looked for the mark in the text as written. No term is found over two of an item's
texts (its role, kind, parts: ``text.searched_apart``), so ``/⏎`` does not find every
item, as the newline that joined them would have."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use
from helpers import said, screen_text
from hypothesis import given
from hypothesis import strategies as st
from model_screen_helpers import IDLE, opened, until
from test_search_drawn_escapes_viewer import typed

from session_core.fold import fold, folder, holds, needle_of
from session_core.formats import by_name
from session_core.line_filter import LineFilter
from session_core.search import OpSearch, find, item_search_text
from session_core.text import (
    TEXTS_APART,
    inert,
    name_line,
    one_line,
    search_drawn,
    searched_apart,
)


def written(tmp_path: Path) -> Path:
    """A session whose call's command is on two lines (CRLF in its result), a message
    with a tab, and messages on one line."""
    w = CCWriter()
    w.user("build it")
    w.assistant("m1", [tool_use("t1", "Bash", command="cd src\nmake all")])
    w.result("t1", "made\r\nall of it")
    w.assistant("m2", [text("one\ttwo")], stop="end_turn")
    w.user("thanks")
    w.assistant("m3", [text("Done.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    return path


def holders(path: Path, term: str) -> list[str]:
    """The texts of the items a search of the conversation finds ``term`` in."""
    model = by_name("claude-code").open(path, writer_alive=False)
    found = find(model.raw, term)
    assert found is not None
    return [item_search_text(model.raw[index]) for index in found]


def test_a_row_s_newline_and_a_name_s_tab_are_found_as_drawn(tmp_path: Path) -> None:
    path = written(tmp_path)
    (call,) = holders(path, "SRC⏎make")  # (any case, as every term)
    assert "cd src\nmake all" in call
    (result,) = holders(path, "made⏎all")  # (a CRLF is one ⏎ on a row, as one_line draws it)
    assert "made\r\nall" in result
    (tabbed,) = holders(path, "one␉two")
    assert "one\ttwo" in tabbed
    # (the mark alone: the items with a newline in a text, not every item)
    assert len(holders(path, "⏎")) == 2
    assert holders(path, "user⏎") == []  # (a role and the text after it: two texts)
    model = by_name("claude-code").open(path, writer_alive=False)
    assert OpSearch("src⏎make").find(model.tool_operations, [0]) == [0]


def test_a_crlf_is_found_as_the_conversation_and_a_row_draw_it(tmp_path: Path) -> None:
    """The conversation ends a CRLF's line with ``␍`` (``inert``), a row draws the CRLF
    as one ``⏎`` (``one_line``): ``/␍⏎`` found nothing (it was looked for in the row's
    drawing, where the ``␍`` is gone). Now it finds a CRLF and no LF alone; ``⏎`` finds
    both, as a row draws both; ``␍`` a lone CR, drawn ``␍`` everywhere."""
    path = written(tmp_path)
    (result,) = holders(path, "MADE␍⏎all")
    assert "made\r\nall" in result
    assert holders(path, "␍⏎") == [result]
    assert holders(path, "src␍⏎make") == []  # (a newline alone: no ``␍`` drawn)
    assert holders(path, "made⏎all") == [result]
    model = by_name("claude-code").open(path, writer_alive=False)
    assert OpSearch("made␍⏎all").find(model.tool_operations, [0]) == [0]
    lone = CCWriter()
    lone.user("carriage\rreturn")
    lone.assistant("m1", [text("two\r\nlines")], stop="end_turn")
    lone_path = lone.write(tmp_path / "cr.jsonl")
    (cr,) = holders(lone_path, "e␍r")
    assert "carriage\rreturn" in cr
    assert len(holders(lone_path, "␍")) == 2  # (a CRLF's ``␍`` too, as the text draws it)
    (crlf,) = holders(lone_path, "␍⏎")
    assert "two\r\nlines" in crlf


def test_a_term_of_a_tab_and_a_line_s_end_finds_a_crlf_as_a_row_draws_it() -> None:
    """``/a␉b⏎c`` was looked for as a name is drawn (a CRLF ``␍⏎``): a CRLF that ``⏎``
    alone finds (``/b⏎c``) was not found with a tab's mark before it."""
    text = "a\tb\r\nc"
    assert holds(text, fold("b⏎c")) and holds(text, fold("a␉b⏎c"))
    assert holds(text, fold("a␉b␍⏎c")) and holds(text, fold("a␉b␍"))  # (its CR kept)
    assert not holds("a\tb\nc", fold("a␉b␍⏎c"))


def test_a_mark_the_text_holds_as_written_is_found_too(tmp_path: Path) -> None:
    assert holds("a ⏎ b", fold("⏎ b")) and holds("x␉", fold("x␉"))
    assert holds("a\nb", fold("a⏎b")) and holds("a\tb", fold("a␉b"))
    assert not holds("a\nb", fold("a␉b"))


@given(st.text(alphabet=st.sampled_from("a \t\n\r\x1b\x1e\x9b\u200d\u202e⏎␉é")))
def test_a_search_draws_a_text_as_the_screen_does(said: str) -> None:
    """The one table of every drawing (``CONTROL_TABLE``), and the one-line marks as
    ``one_line`` (a row) and ``name_line`` (a name) draw them."""
    assert search_drawn(said, "inert") == inert(said)
    assert search_drawn(said, "one-line") == one_line(said)
    assert search_drawn(said, "name") == name_line(said)
    # (a tab told apart, a CRLF one ``⏎``: a term of both a tab's mark and a ``⏎``)
    assert search_drawn(said, "one-line-tab") == name_line(said.replace("\r\n", "\n"))
    # (a CRLF's CR kept: the conversation's drawing, each line's end a ``⏎``)
    assert search_drawn(said, "one-line-cr") == inert(said).replace("\n", "⏎")
    kept = said.replace(TEXTS_APART, "")  # (texts apart: their joins not drawn)
    assert search_drawn(kept, "one-line", apart=True) == one_line(kept)


def test_texts_apart_are_never_one() -> None:
    """A search text's joins are no character a term is found in, as drawn or not; a
    text's own (rare) is its picture, found as drawn."""
    joined = searched_apart(["user", "message", "say\x1ethis"])
    assert joined == f"user{TEXTS_APART}message{TEXTS_APART}say␞this"
    for term in ("⏎", "␞", "user␞", "user\n"):
        needle = fold(term)
        assert needle not in folder(needle, apart=True)(searched_apart(["user", "message"]))
    assert fold("␞") in folder(fold("␞"), apart=True)(joined)
    # (a join pasted into a term is looked for as its picture: a text's own, not a join)
    pasted = needle_of("SAY\x1e")
    assert pasted == "say␞" and pasted in folder(pasted, apart=True)(joined)
    assert needle_of("user\x1e") not in folder(needle_of("user\x1e"), apart=True)(joined)


def test_the_prefilter_lets_every_line_the_mark_may_be_in_through() -> None:
    """A line's bytes hold a newline escaped (``\\n``, a CRLF's ``\\r\\n``), a tab raw or
    escaped, or the mark itself: the line filter lets each through."""
    lines = [
        b'{"t":"cd src\\nmake"}',
        b'{"t":"cd src\\r\\nmake"}',
        b'{"t":"cd src\xe2\x8f\x8emake"}',
        b'{"t":"cd src make"}',
    ]
    block = b"\n".join(lines)
    starts, ends, at = [], [], 0
    for line in lines:
        starts.append(at)
        ends.append(at + len(line))
        at += len(line) + 1
    newline = LineFilter.of(fold("src⏎make"))
    assert newline is not None and newline.maybe(block, starts, ends) == {0, 1, 2}
    tab = LineFilter.of(fold("a␉b"))
    assert tab is not None
    tabbed = b'{"t":"a\\tb"}\n{"t":"a\tb"}\n{"t":"a b"}'
    assert tab.maybe(tabbed, [0, 13, 25], [12, 24, 34]) == {0, 1}


async def test_typing_the_mark_in_the_viewer_finds_it(tmp_path: Path) -> None:
    path = written(tmp_path)
    async with opened(path, size=(110, 30)) as (app, pilot, screen):
        assert "cd src⏎make all" in screen_text(app)  # (the call's row draws it so)
        view = screen.conversation
        await typed(app, pilot, "src⏎make")
        await until(pilot, lambda: said(app, "1 match for 'src⏎make'"), "the call")
        assert view.items[view.cursor].parts[0].kind == "tool-call"
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 1, "the operation")
        await typed(app, pilot, "src⏎make")
        await until(pilot, lambda: said(app, "1 match for 'src⏎make'"), "the operation")
        assert table.matches == [0]
        await pilot.press("1")
        await typed(app, pilot, "made␍⏎all")
        await until(pilot, lambda: said(app, "1 match for 'made␍⏎all'"), "the CRLF")
