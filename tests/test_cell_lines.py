"""``chopped_count`` is ``len(chop_cells(...))`` wherever it answers, and it answers for
the lines transcripts are full of (CJK, emoji, punctuation) without walking them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import chop_cells

from viewer.cell_lines import chopped_count

# Narrow, wide (BMP and astral), and zero-width ones that join the character before.
PIECES = st.sampled_from(
    [
        *("word ", "a" * 90, "—", "→", "é", "ж", "─", "⠿", "\u2028", "\u00ad", ""),
        *("界", "中文字", "ｱ", "가", "\u3000", "，。", "🙂", "🙂🙂", "\U00020000", "\U0001f3fb"),
        *("e\u0301", "\u200b", "\u200d", "\ufe0f", "\U000e0100", "\U0001d400", "\U0001d167"),
    ]
)
TEXTS = st.one_of(st.text(max_size=300), st.lists(PIECES, max_size=80).map("".join))


@settings(max_examples=1500, deadline=None)
@given(line=TEXTS, room=st.integers(1, 200))
def test_it_counts_what_chop_cells_cuts(line: str, room: int) -> None:
    counted = chopped_count(line, room)
    if counted is not None:
        assert counted == len(chop_cells(line, room))


def test_it_answers_for_wide_and_narrow_text_alike() -> None:
    line = "统计 tokens：中文字🙂 and more, " * 40
    for room in (2, 3, 7, 80, 151):
        assert chopped_count(line, room) == len(chop_cells(line, room))


def test_it_leaves_joining_characters_and_a_one_cell_room_to_chop_cells() -> None:
    assert chopped_count("e\u0301" * 50, 10) is None  # a combining accent
    assert chopped_count("👩\u200d💻", 10) is None  # a joiner
    assert chopped_count("x\U000e0100", 10) is None  # an astral variation selector
    assert chopped_count("界界", 1) is None  # chop_cells gives an empty first line there
