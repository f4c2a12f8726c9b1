"""A ``LinesView`` row's height (``entry_height``) is what wrapping it gives, counted
without making its lines: ASCII by its length, the rest cut by cells."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from viewer.widgets.block_view import MAX_WRAPPED, entry_height, wrap

# Text as transcripts hold it: words, newlines, wide and zero-width characters,
# control characters and escapes (made inert before they are cut), long runs.
PIECES = st.sampled_from(
    [
        *("word ", "\n", "\t", "\x1b[31m", "\r\n", "\x7f", "\x9b", "\u202e", "\u00ad"),
        *("界", "🙂", "e\u0301", "\u200b", "\u200d", "ж\u0483", "\ufe0f", "\u0915\u093e"),
        *("—", "→", "…", "é", "ж", "─", "∑", "⠿", "\u2028", "a" * 90, ""),
    ]
)
TEXTS = st.one_of(st.text(max_size=400), st.lists(PIECES, max_size=60).map("".join))


@settings(max_examples=400, deadline=None)
@given(text=TEXTS, width=st.integers(1, 200))
@example(text="\u200d\u2e80", width=1)  # (measured 0 cells whole, 2 chopped: kept whole)
@example(text="\u200d\u200d000 \u200d\u200d000", width=2)
def test_the_height_is_the_wrapped_lines_count(text: str, width: int) -> None:
    assert entry_height(("", text), width) == len(wrap(text, width))


def test_a_huge_line_is_capped_as_wrap_caps_it() -> None:
    text = "x" * (MAX_WRAPPED * 10 + 5) + "\n" + "界" * 5000
    for width in (1, 7, 80):
        assert entry_height(("", text), width) == len(wrap(text, width)) <= 2 * MAX_WRAPPED


def test_prose_wraps_between_words() -> None:
    """An expanded message's text is cut between words ("two brough" / "(pros/cons)",
    not "exp" / "ected": the viewer audit); a word longer than a line is cut by cells,
    and what is drawn stays inert and bounded."""
    from viewer.widgets.block_view import MAX_WRAPPED, wrap

    text = "no conflict expected and then ask the teammates " + "x" * 70 + " \x1b[31mend"
    lines = [line.plain for line in wrap(text, 30, indent="  ", words=True)]
    assert all(len(line) <= 30 for line in lines)
    assert lines[:3] == [
        "  no conflict expected and ",
        "  then ask the teammates ",
        "  " + "x" * 28,
    ]
    assert "\x1b" not in "".join(lines) and lines[-1].endswith("␛[31mend")
    assert [line.plain for line in wrap("abc def", 30, words=True)] == ["abc def"]
    assert len(wrap("word " * 100_000, 40, words=True)) == MAX_WRAPPED


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(min_value=4, max_value=120))
@example("\u200d\u200d000", 4)  # (rich 15: chop_cells kept it one piece of 3 cells)
@example("\u200d\u200d⺀00000", 8)  # (rich 15: set_cell_size's IndexError on cutting it)
@example(" \u200d\u200d⺀00000", 9)  # (the same after an indent, which inert leaves)
@example("ab \u200d\u200d⺀00000", 8)  # (or cut by Rich after a word)
def test_prose_wrapped_fits_its_width(text: str, width: int) -> None:
    """(From 4 cells: a line of 2, after the indent, holds any character.)"""
    from rich.cells import cell_len

    for line in wrap(text, width, indent="  ", words=True):
        assert cell_len(line.plain) <= width
        assert "\x1b" not in line.plain


def test_a_line_past_its_rows_says_how_much_is_not_shown() -> None:
    """A line past ``MAX_WRAPPED`` rows was cut there silently (a checkpoint's 200,000
    character string showed 32,000, its end gone, the JSON after it whole-looking: the
    review); its last row says how much of it is left, and the rows are as many as
    ``entry_height`` says."""
    text = "x" * 200_000
    lines = wrap(text, 80)
    assert len(lines) == MAX_WRAPPED == entry_height(("", text), 80)
    shown = sum(len(line.plain) for line in lines[:-1])
    assert lines[-1].plain == f"… {200_000 - shown:,} more characters of this line not shown"
    prose = wrap("word " * 100_000, 80, words=True)
    assert len(prose) == MAX_WRAPPED and "more characters of this line not shown" in prose[-1].plain
    assert wrap("short", 80)[0].plain == "short"


def test_an_indented_line_wraps_under_its_indent() -> None:
    """The library glued a line's indent to its first word ("   trai" / "ling": the
    review): a modest indent hangs, each row under it."""
    rows = [line.plain for line in wrap("    an indented bullet that wraps around", 24, words=True)]
    assert rows == ["    an indented bullet ", "    that wraps around"]


def test_a_details_prose_wraps_between_words() -> None:
    """A run's detail (its prompt, its usage) wrapped by cells, mid-word and mid-number
    ("324,32" / "4 cache read": the fixes' check): a ``ProseLines`` wraps between words,
    and says each entry's height as its wrapping has it."""
    from viewer.widgets.block_view import ProseLines

    view = ProseLines()
    usage = "took 4m07s · usage 421,930 tok (1,286 in + 13,374 out + 324,324 cache read)"
    view.entries = [("", usage), ("bold", "prompt"), ("", "research the capacity " * 8)]
    rows = [line.plain for line in view.block_lines(0, 60)]
    assert rows == [
        "took 4m07s · usage 421,930 tok (1,286 in + 13,374 out + ",
        "324,324 cache read)",
    ]
    assert all(view.block_height(i, 60) == len(view.block_lines(i, 60)) for i in range(3))
    assert view.block_heights(3, 60) is None


async def test_an_operations_detail_is_prose_wrapped_between_words() -> None:
    """A call's detail cut its arguments mid-word ("…is a smal" / "l experiment": the
    dialogs' audit): they wrap between words now."""
    from textual.app import App

    from session_core.tool_ops import ToolOp
    from viewer.screens.op_detail import OpDetailScreen
    from viewer.widgets.block_view import ProseLines

    words = "this is a small experiment of words " * 6
    op = ToolOp("c1", "Task", "completed", arguments={"prompt": words}, result=words)
    app: App[None] = App()
    async with app.run_test(size=(70, 30)) as pilot:
        app.push_screen(OpDetailScreen(op))
        await pilot.pause()
        view = app.screen.query_one("#op-detail", ProseLines)
        width = view.scrollable_content_region.width
        rows = [
            line.plain for i in range(view.block_count()) for line in view.block_lines(i, width)
        ]
        pieces = [word for row in rows for word in row.split()]
        assert "small" in pieces and "smal" not in pieces and "experiment" in pieces


def test_a_joiner_that_begins_a_line_is_shown_as_its_escape() -> None:
    """A zero-width joiner that begins a line joins nothing: shown as an invisible mark
    is, on every line of the text, and ``inert`` stays idempotent; one that joins an
    emoji sequence stays."""
    from session_core.text import inert

    assert inert("\u200d\u200d⺀0\n\u200dx") == "\\u200d\\u200d⺀0\n\\u200dx"
    assert inert(inert("\u200d\u200d⺀0")) == inert("\u200d\u200d⺀0")
    assert inert("👨\u200d👩 a\u200db") == "👨\u200d👩 a\u200db"
