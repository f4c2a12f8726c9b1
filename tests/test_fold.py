"""Any case is folded case (``session_core.fold``): ``/strasse`` finds ``Straße`` and
``/istanbul`` finds ``İstanbul`` in every search, and a match's highlight covers the
characters of the shown text it came from, though folding changes the text's length."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from model_screen_helpers import IDLE, opened, until
from rich.style import Style
from rich.text import Text

from session_core.fold import fold, holds, spans
from session_core.scan import FileSummary
from viewer.browser_cells import matches
from viewer.widgets.line_list import highlight

MARK = Style(bold=True)


def marked(text: str, term: str) -> list[str]:
    """The pieces of ``text`` that ``highlight`` styles for ``term``."""
    line = Text(text)
    highlight(line, fold(term), MARK)
    return [text[span.start : span.end] for span in line.spans]


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("Straße", "strasse"),
        ("STRASSE", "straße"),
        ("İstanbul", "istanbul"),
        ("istanbul", "İSTANBUL"),
        ("Kelvin", "kelvin"),  # (U+212A)
        ("ﬁle", "FILE"),
        ("ΣΊΣΥΦΟΣ", "σίσυφος"),
    ],
)
def test_a_term_is_found_in_any_case(text: str, term: str) -> None:
    assert holds(text, fold(term))


def test_a_highlight_covers_the_characters_the_match_came_from() -> None:
    assert marked("Die Straße in İstanbul", "strasse") == ["Straße"]
    assert marked("Die Straße in İstanbul", "istanbul") == ["İstanbul"]
    assert marked("in İstanbul, Straße", "ss") == ["ß"]  # (half of it: all of it)
    assert marked("Maße und Masse", "sse") == ["ße", "sse"]
    assert marked("ﬁle and file", "file") == ["ﬁle", "file"]
    assert marked("no match", "zz") == []


def test_a_highlight_takes_the_dot_folding_dropped_and_each_character_once() -> None:
    """An ``I`` and its combining dot (a decomposed ``İ``) are one character on screen:
    a match ending on the ``I`` takes the dot too, not half the character (the review).
    Two matches in one character are one span, two sharing one are joined."""
    assert spans("xI\u0307", "xi") == [(0, 3)]
    assert spans("I\u0307stanbul I\u0307", "i") == [(0, 2), (10, 12)]
    assert spans("\u00df", "s") == [(0, 1)]  # (each s of ß: one span, not two)
    assert spans("\u00dfs", "s") == [(0, 1), (1, 2)]
    assert spans("s\u00dfs", "ss") == [(0, 3)]  # (s and half ß, half ß and s)
    assert spans("ssss", "ss") == [(0, 2), (2, 4)]


@given(st.text(max_size=12), st.text(min_size=1, max_size=4))
@example("xI\u0307", "xi")
@example("\u00df", "s")
@example("s\u00dfs", "ss")
def test_the_spans_are_the_folded_matches(text: str, term: str) -> None:
    """The spans are in order and apart, there are some where the folded text has a
    match and as many where each character folds to one, and each is a piece of the
    text whose fold holds the match, cut where folding the pieces apart folds the
    text (not between an ``i`` and the dot fold drops after it)."""
    needle = fold(term)
    found = spans(text, needle)
    folded = fold(text)
    count, at = 0, folded.find(needle) if needle else -1
    while at >= 0:
        count, at = count + 1, folded.find(needle, at + len(needle))
    assert bool(found) == bool(count) and len(found) <= count
    if len(folded) == len(text) and all(len(char.casefold()) == 1 for char in text):
        assert len(found) == count
    ends = [0] + [edge for span in found for edge in span] + [len(text)]
    assert ends == sorted(ends)
    for start, end in found:
        assert needle in fold(text[start:end])
        assert fold(text[:start]) + fold(text[start:end]) + fold(text[end:]) == folded


def test_the_browser_filter_folds_too() -> None:
    summary = FileSummary(path="/x/a.jsonl", status="finished", title="Straße nach İzmir")
    assert matches(summary, "strasse", None)
    assert matches(summary, "IZMIR", None)
    assert not matches(summary, "strand", None)


async def test_the_conversation_finds_and_stays_on_a_folded_match(tmp_path: Path) -> None:
    from claude_code_writer import CCWriter, text

    w = CCWriter()
    w.user("first question")
    w.assistant("m0", [text("an answer")], stop="end_turn")
    w.user("Die Straße führt nach İstanbul")
    w.assistant("m1", [text("done")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path, size=(100, 30)) as (_app, pilot, screen):
        view = screen.conversation
        for term in ("istanbul", "STRASSE"):
            await pilot.press("slash", *term, "enter")
            await until(pilot, lambda: view.matches and not view.searching, term)
            assert len(view.matches) == 1, term
            item = view.items[view.matches[0]]
            assert "İstanbul" in item.parts[0].text


def test_a_line_holding_a_folding_character_is_looked_at_folded_not_read_whole() -> None:
    """A line holding ``ß`` was read whole for any term with an ``s`` (every such line of
    the 100 MB file: a search 2.2× as long, the review); it is looked at again with its
    marks folded (``fold.unfolded``): a match still found, a term it cannot hold not."""
    from session_core.fold import unfolded
    from session_core.line_filter import LineFilter

    lines = ['{"a":"Straße"}', '{"a":"I\u0307stanbul"}', '{"a":"plain"}']
    block = "".join(line + "\n" for line in lines).encode()
    starts, ends, at = [], [], 0
    for line in lines:
        starts.append(at)
        at += len(line.encode())
        ends.append(at)
        at += 1

    def maybe(term: str) -> set[int]:
        found = LineFilter.of(term)
        assert found is not None
        return found.maybe(block, starts, ends)

    assert maybe("zzsqq") == set()
    assert maybe("strasse") == {0}
    assert maybe("istanbul") == {1}  # (a decomposed İ: the dot dropped, as fold drops it)
    assert unfolded("Stra\u00dfe \ufb01le".encode()) == b"strasse file"
