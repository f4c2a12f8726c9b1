"""v1's Diff tab never cuts a number to its head, and its step toast says which of the
file's differences a step landed on (a person's look: "folded by the compaction at line
9…" for line 982, and "line 6: folded (21 changes)" read as 21 changes on line 6)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers import app_on, said, screen_lines, wait_for

from session_core import Message, Session
from story import OLD_MTIME, fixed_ids
from viewer.safe import clip_whole_numbers

LONG = "I'll profile the handler writer in `tests/test_handlers.py` and then the reader too."


def write_late_compaction(path: Path) -> int:
    """Two messages, a dozen more, then a compaction (past line 10) folding the first
    two; returns the compaction's line."""
    with fixed_ids(), Session.create(path, meta={"agent": "sadna", "model": "m"}) as s:
        s.append_message(Message(role="user", content=LONG))
        first = s.append_message(Message(role="assistant", content=LONG))
        for n in range(12):
            s.append_message(Message(role="user" if n % 2 else "assistant", content=f"{n} {LONG}"))
        s.append_compaction(
            summary="The agent profiled the handler.",
            replaces_through_id=first,
            tokens_before=900,
            tokens_after=90,
        )
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return len(path.read_text().splitlines())


def cut_numbers(lines: list[str], whole: int) -> list[str]:
    """The screen lines where a line number is cut to its head (``line 1…`` of 16)."""
    return [line for line in lines if re.search(rf"line (?!{whole}\b)\d[\d,]*…", line)]


@pytest.mark.parametrize("width", [60, 80, 100])
async def test_the_compactions_line_is_never_cut_to_its_head(tmp_path: Path, width: int) -> None:
    path = tmp_path / "late.jsonl"
    at = write_late_compaction(path)
    assert at >= 10
    async with app_on(path, (width, 30)) as (app, pilot):
        await pilot.press("d")
        await wait_for(
            pilot,
            lambda: any("not sent" in line or "folded at" in line for line in screen_lines(app)),
        )
        lines = screen_lines(app)
        assert not cut_numbers(lines, at), lines
        # (a folded row's right-hand cell names the compaction's line whole where it fits)
        if width >= 80:
            assert any(f"folded at line {at})" in line for line in lines), lines


def test_a_cut_never_lands_in_a_number() -> None:
    said = "(not sent: folded by the compaction at line 982)"
    for width in range(1, len(said) + 1):
        cut = clip_whole_numbers(said, width)
        assert len(cut) <= width
        assert not re.search(r"\d…", cut) or "982" in cut, cut
    assert clip_whole_numbers("took 0.05s", 8) == "took …"
    assert clip_whole_numbers("1,234 tok", 4) == "…"
    assert clip_whole_numbers("line 982 of it", 10) == "line 982 …"


async def test_a_step_says_which_difference_of_how_many(tmp_path: Path) -> None:
    path = tmp_path / "late.jsonl"
    write_late_compaction(path)
    async with app_on(path, (100, 30)) as (app, pilot):
        await pilot.press("d")
        await wait_for(pilot, lambda: any("not sent" in line for line in screen_lines(app)))
        await pilot.press("n")
        # (the cursor is on the first, line 2: the step lands on the second)
        await wait_for(pilot, lambda: said(app, "difference 2 of 3: line 3, folded"))
        await pilot.press("n")
        await wait_for(pilot, lambda: said(app, "difference 3 of 3: line 16, summary"))
        assert not any("changes)" in str(note.message) for note in app._notifications)
