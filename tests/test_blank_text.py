"""A text of only whitespace draws as blank lines, which say nothing: the conversation
says what it is instead, folded and unfolded, in the rows its item was measured at."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from helpers import screen_lines
from hypothesis import given
from hypothesis import strategies as st
from model_screen_helpers import opened, until

from session_core import Message, Session
from session_core.item_heights import SPACES, text_rows

IDLE = 1_700_000_000


def blank_texts(path: Path) -> Path:
    with Session.create(path, meta={"agent": "blank"}) as session:
        session.append_message(Message(role="user", content="say nothing"))
        session.append_message(Message(role="assistant", content="\n\n"))
        session.append_message(Message(role="assistant", content="\n\n\n\nlater words"))
        session.append_message(Message(role="assistant", content="\n \n\n\n\t\n"))
        session.append_message(Message(role="assistant", content="\n" * 600))  # (past a head)
        # (written raw in UTF-8, not escaped: blank all the same)
        session.append_message(Message(role="assistant", content="\u00a0\n\u3000\n\nhello"))
        session.append_message(Message(role="user", content="done"))
    os.utime(path, (IDLE, IDLE))
    return path


async def test_blank_text_is_said_not_drawn_as_blank_lines(tmp_path: Path) -> None:
    path = blank_texts(tmp_path / "t.jsonl")
    async with opened(path, size=(100, 30)) as (app, pilot, screen):
        view = screen.conversation
        lines = screen_lines(app)
        assert any("(blank text: '\\n\\n')" in line for line in lines), lines
        assert any("(blank lines, then more: enter)" in line for line in lines), lines
        # Blank past the folded rows too: a blank text, not "then more" (it said so).
        assert any("(blank text: '\\n \\n\\n\\n\\t\\n')" in line for line in lines), lines
        assert sum("then more" in line for line in lines) == 2, lines
        assert any("(blank text: '\\n\\n\\n\\n" in line for line in lines), lines
        blank = next(i for i, item in enumerate(view.items) if item.text == "\n\n")
        folded = view.block_lines(blank, 100)
        # The note alone (not the blank lines it stands for), in the height measured.
        assert [line.plain for line in folded[1:]] == ["  (blank text: '\\n\\n')"]
        assert len(folded) == view.block_height(blank, 100) == 2  # a header, the note
        heights = view.block_heights(len(view.items), 100)
        assert heights is not None
        for index in range(len(view.items)):  # (the model's heights: as drawn)
            assert heights[index] == len(view.block_lines(index, 100)), index
        view.move_to(blank)
        await pilot.press("enter")
        await until(pilot, lambda: view.expanded, "the blank item unfolded")
        unfolded = [line.plain for line in view.block_lines(blank, 100)]
        assert unfolded[1:] == ["  (blank text: '\\n\\n')"]


async def test_a_wrapped_line_loses_no_cell_under_the_scrollbar(tmp_path: Path) -> None:
    """Unfolded, a long line is wrapped to the cells left of the scrollbar: read off the
    screen row by row, it is whole (each row lost its last 2 cells under it)."""
    digits = "".join(f"{n:04d}" for n in range(400))
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "wrap"}) as session:
        for number in range(30):  # (enough to scroll: the scrollbar shows)
            session.append_message(Message(role="user", content=f"filler {number}"))
        session.append_message(Message(role="assistant", content=digits))
    os.utime(path, (IDLE, IDLE))
    async with opened(path, size=(100, 30)) as (app, pilot, screen):
        view = screen.conversation
        view.move_to(len(view.items) - 1)
        await pilot.press("enter")
        await until(pilot, lambda: view.expanded, "the long item unfolded")
        await pilot.press("end")
        rows = [line.strip("▌┃ ").rstrip("▁▂▃▄▅▆▇█") for line in screen_lines(app)]
        shown = "".join(row for row in rows if row.isdigit())
        assert len(shown) > 400 and shown in digits, rows


def _rows_each_way(text: str) -> list[int]:
    """A text's folded rows measured from its part, its line's facts, and its JSON text
    as each writer writes it (raw UTF-8 or escaped, hex digits in either case)."""
    import json

    import msgspec
    import orjson

    from session_core.facts import payload_fields
    from session_core.indexing import LINES_COUNTED, content_lines
    from session_core.item_heights import folded_height
    from session_core.model import Part

    ascii_json = json.dumps(text)
    written = [
        orjson.dumps(text),
        msgspec.json.encode(text),
        json.dumps(text, ensure_ascii=False).encode(),
        ascii_json.encode(),
        re.sub(
            r"\\u[0-9a-f]{4}", lambda m: m[0].upper().replace("\\U", "\\u"), ascii_json
        ).encode(),
    ]
    facts_lines = payload_fields({"role": "assistant", "content": text}, None)[1]
    rows = [folded_height([Part("text", text)]) - 1, min(3, facts_lines)]
    return rows + [min(3, content_lines(msgspec.Raw(raw), LINES_COUNTED)) for raw in written]


def test_a_blank_head_is_one_row_however_its_line_is_read() -> None:
    """A text whose folded rows would all be blank is one row (its note), measured alike
    from its parts, its line's facts and its line's JSON text (an index of a big file)."""
    texts = {"\n\n": 1, "\n \n\n\n\t\nwords": 1, " \n\nwords": 3, "a\n\n": 3, "\n": 1, "x": 1}
    texts |= {"\u00a0\n\n\nhello": 1, "\u3000\n\u2028\n\x0b\n": 1, "\u3000x\n\n": 3}
    texts |= {"\u00e9\n\n\n": 3, "\x85\n\x1c\nwords": 3, "\\n\n\n\n": 3, '"\n\n\n': 3}
    for text, rows in texts.items():
        assert _rows_each_way(text) == [rows] * 7, text


@given(
    st.lists(st.sampled_from(SPACES), max_size=12),
    st.text(max_size=12),
)
def test_every_blank_head_is_one_row_each_way(spaces: list[str], rest: str) -> None:
    """Whatever whitespace a text begins with (all of ``isspace``'s), every way of
    measuring it agrees with the rows the view draws (``text_rows``)."""
    text = "".join(spaces) + rest
    assert set(_rows_each_way(text)) == {text_rows(text)}, text


def test_spaces_are_every_whitespace_character() -> None:
    assert "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()) == SPACES


async def test_a_codex_blank_text_is_its_note_alone_in_the_rows_measured(tmp_path: Path) -> None:
    """The same in a Codex rollout (its items measured from their lines' shapes): the
    note alone, each item as tall as it is drawn, in both views."""
    from codex_writer import RolloutWriter

    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "say nothing")
    w.message("assistant", "\n\n")
    w.event("agent_message", message="\n \n\n\n")
    w.message("user", "done")
    os.utime(w.path, (IDLE, IDLE))
    async with opened(w.path, size=(100, 30)) as (_app, pilot, screen):
        view = screen.conversation
        for mode in ("replayed", "raw"):
            if view.mode != mode:
                await pilot.press("r")
                await until(pilot, lambda: view.mode == mode, mode)  # noqa: B023
            heights = view.block_heights(len(view.items), 100)
            assert heights is not None
            drawn = [view.block_lines(i, 100) for i in range(len(view.items))]
            assert heights == [len(lines) for lines in drawn], mode
            blank = [lines for lines in drawn if "(blank text:" in lines[-1].plain]
            assert blank and all(len(lines) == 2 for lines in blank), mode


async def test_lines_indented_past_a_heads_cut_are_not_blank(tmp_path: Path) -> None:
    """Each of the first lines is 301 spaces, then a word: the index measured its lines
    (the words make them no blank lines), the drawing judged the head (each line cut at
    300 characters) blank and drew the one-row note: heights and rows disagreed."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "x"}) as session:
        session.append_message(Message(role="user", content="hi"))
        session.append_message(
            Message(role="assistant", content=(" " * 301 + "word\n") * 3 + "more")
        )
        session.append_message(Message(role="assistant", content=(" " * 300 + "\n") * 3 + "more"))
        session.append_message(Message(role="user", content="done"))
    os.utime(path, (IDLE, IDLE))
    async with opened(path, size=(100, 30)) as (app, _pilot, screen):
        view = screen.conversation
        heights = view.block_heights(len(view.items), 100)
        drawn = [len(view.block_lines(i, 100)) for i in range(len(view.items))]
        assert heights == drawn == [2, 4, 2, 2], (heights, drawn)
        said = " ".join(screen_lines(app))
        assert said.count("blank lines, then more") == 1, said
