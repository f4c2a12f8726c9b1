"""The browser's footer totals say what they leave out, of tokens and of cost apart: a
rollout whose tokens are known and whose model has no price leaves its cost out alone."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from session_core.scan import FileSummary
from viewer.browser_cells import COLUMNS, compact, fitting_columns, totals


def summary(n: int, tokens: int | None, cost: float | None) -> FileSummary:
    return FileSummary(
        path=f"/x/{n}.jsonl", status="finished", format="codex", tokens=tokens, cost=cost
    )


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ([(10, 1.0), (20, None)], "tokens 30  cost $1.00  (cost unknown in 1)"),
        ([(10, 1.0), (None, None)], "tokens 10  cost $1.00  (usage unknown in 1)"),
        (
            [(10, 1.0), (None, None), (5, None)],
            "tokens 15  cost $1.00  (tokens unknown in 1, cost unknown in 2)",
        ),
        ([(10, None), (20, None)], "tokens 30  cost unknown"),
        ([(10, 1.0), (20, 2.0)], "tokens 30  cost $3.00"),
    ],
)
def test_the_totals_say_what_they_leave_out(
    rows: list[tuple[int | None, float | None]], said: str
) -> None:
    text = totals([summary(n, t, c) for n, (t, c) in enumerate(rows)], len(rows)).plain
    assert text.endswith(said), text


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (9_999, "9,999"),
        (12_345, "12.3k"),
        (99_949, "99.9k"),
        (99_950, "100k"),  # (not "100.0k": one character too many)
        (999_999, "1.0M"),  # (not "1,000k")
        (123_456_789, "123M"),
        (1_234_567_890, "1.2B"),
    ],
)
def test_a_count_fits_its_column(count: int, shown: str) -> None:
    """Every count is at most 5 characters, 6 with an estimate's ``~``: the narrowest
    number column's width, so it is never cut to ``~123.…``."""
    assert compact(count) == shown
    narrowest = min(width for key, _, width in COLUMNS if key in ("messages", "tools"))
    assert len("~" + shown) <= narrowest


def test_the_columns_that_fit() -> None:
    everything = [key for key, _, _ in COLUMNS]
    assert [key for key, _, _ in fitting_columns(200)] == everything
    # (narrower than every column kept fits: the status stays, the rest go; it was cut off)
    assert [key for key, _, _ in fitting_columns(10)] == ["session", "status"]
    widths = [len([1 for _ in fitting_columns(w)]) for w in range(10, 200)]
    assert widths == sorted(widths)  # a wider screen never shows fewer


def test_the_session_column_is_not_starved() -> None:
    """The session's title is how people tell sessions apart: at 120 columns it had 16
    cells ("Work on bead sp…") beside every other column; the least needed go first until
    it has 24. Every width adds up to the screen's, so nothing is cut at the right edge."""
    from viewer.browser_cells import SESSION_WIDTH_WANTED

    for width in range(80, 260):
        shown = fitting_columns(width)
        assert shown[0][0] == "session" and shown[0][2] >= SESSION_WIDTH_WANTED, width
        assert sum(w + 2 for _, _, w in shown) + 2 == width, width


@pytest.mark.parametrize("key", [key for key, _, _ in COLUMNS])
def test_the_sorted_by_column_is_kept(key: str) -> None:
    """Sorted by a column the screen has no room for, another goes in its place: an order
    by a column not shown looks random (``s`` at 80 columns sorted by size, not shown)."""
    for width in (56, 80, 100, 120):
        fitted = fitting_columns(width, keep=key)
        shown = [k for k, _, _ in fitted]
        assert key in shown, (width, shown)
        assert sum(w + 2 for _, _, w in fitted) + 2 <= width, (width, fitted)  # (none cut)
        # (at 56 a wide one kept, the agent's, takes the messages' and last activity's room)
        kept = {"session", "status"} if width < 80 else {"session", "last", "messages", "status"}
        assert kept <= set(shown), (width, shown)


def test_an_unreadable_file_is_counted_as_such_and_adds_no_usage() -> None:
    """A file that could not be read is its own status (not "damaged": nothing is known of
    its data), with dashes for its numbers, left out of the totals' unknowns."""
    from viewer.browser_cells import cells

    rows = [
        summary(0, 10, 1.0),
        FileSummary(
            path="/x/locked.jsonl",
            status="unreadable",
            reason="cannot be read: Permission denied",
            format="codex",
        ),
    ]
    text = totals(rows, 2).plain
    assert "1 finished  1 unreadable" in text and text.endswith("tokens 10  cost $1.00"), text
    shown = [getattr(cell, "plain", cell) for cell in cells(rows[1], 20)]
    assert "unreadable" in shown and "unknown" not in shown, shown  # (not counted: "—")
    counted = [getattr(cell, "plain", cell) for cell in cells(rows[0], 20)]
    assert "unknown" in counted  # (a known transcript's unknown count, for contrast)


def test_a_total_that_leaves_responses_out_is_a_lower_bound() -> None:
    """A row whose tokens or cost some responses did not report is marked ``≥`` (it was
    a plain figure, summed in the footer as if whole), and the footer says how many."""
    from viewer.browser_cells import cells, detail

    part = FileSummary(path="/x/p.jsonl", status="finished", format="codex", tokens=2_000, cost=0.5)
    part.tokens_partial = part.cost_partial = True
    rows = [summary(0, 10, 1.0), part]
    shown = [getattr(cell, "plain", cell) for cell in cells(part, 20)]
    assert "≥2,000" in shown and "≥$0.50" in shown, shown
    assert "10" in [getattr(cell, "plain", cell) for cell in cells(rows[0], 20)]
    text = totals(rows, 2).plain
    assert text.endswith("tokens 2,010  cost $1.50  (usage ≥ in 1)")
    assert "tokens and cost at least" in detail(part, "p.jsonl").plain
    part.cost_partial = False  # (the two apart where they differ)
    assert totals(rows, 2).plain.endswith("cost $1.50  (tokens ≥ in 1)")


def test_every_status_label_fits_its_column() -> None:
    from viewer.browser_cells import STATUS_LABEL

    width = next(w for key, _, w in COLUMNS if key == "status")
    assert width is not None and all(len(label) <= width for label in STATUS_LABEL.values())


def test_the_agent_column_grows_with_the_screen() -> None:
    """18 cells up to where the session column has room to spare (it took all of a wide
    screen, and "worktrees / claud…" was cut at 220 columns), then up to 40."""
    from viewer.browser_cells import AGENT_WIDTH_MAX

    def agent(width: int) -> int | None:
        return next((w for key, _, w in fitting_columns(width) if key == "agent"), None)

    assert agent(80) in (None, 18) and agent(100) == agent(140) == 18
    grown = [agent(w) or 0 for w in range(100, 400)]
    assert grown == sorted(grown) and grown[-1] == AGENT_WIDTH_MAX
    assert agent(220) == AGENT_WIDTH_MAX


async def test_a_long_model_name_is_whole_on_a_wide_screen(tmp_path: Path) -> None:
    from helpers import screen_lines

    from session_core import Message, Session
    from viewer.app import TailscopeApp
    from viewer.screens.browser import BrowserScreen

    meta = {"agent": "worktrees", "model": "claude-sonnet-4-5-20250929"}
    path = tmp_path / "a.jsonl"
    with Session.create(path, meta=meta) as session:
        session.append_message(Message(role="user", content="hi"))
    who = "worktrees / claude-sonnet-4-5-20250929"
    app = TailscopeApp(tmp_path)
    async with app.run_test(size=(220, 20)) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        while not screen.scanned_at:
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        assert screen.cell_text(str(path), "agent") == who
        assert any(who in row for row in screen_lines(app))
        await pilot.resize_terminal(120, 20)
        await pilot.pause(0.2)
        assert screen.cell_text(str(path), "agent") == "worktrees / claud…"
        assert not any(who in row for row in screen_lines(app))


@pytest.mark.parametrize(
    ("cost", "mark", "shown"),
    [
        (0.0, "", "$0.00"),
        (0.00004, "", "<$0.001"),  # (not "$0.000": something was spent)
        (0.00004, "≥", "≥$0.000"),
        (0.0012, "≥", "≥$0.001"),  # (was "≥$0.0012": 8 characters in 7 cells)
        (0.0099, "~", "~$0.01"),
        (0.5, "≥", "≥$0.50"),
        (99.996, "", "$100"),  # (not "$100.00")
        (9_999.4, "≥", "≥$9,999"),
        (9_999.6, "", "$10.0k"),  # (not "$10,000")
        (123_456, "≥", "≥$123k"),  # (was "≥$123,456")
        (1_234_567, "~", "~$1.2M"),
    ],
)
def test_a_cost_reads_in_its_column(cost: float, mark: str, shown: str) -> None:
    from viewer.browser_cells import money_cell

    assert money_cell(cost, mark) == shown


@given(
    cost=st.one_of(
        st.floats(min_value=0, max_value=1e9, allow_nan=False),
        st.floats(min_value=0, max_value=0.02, allow_nan=False),
        st.floats(min_value=99, max_value=101, allow_nan=False),
    ),
    estimated=st.booleans(),
    partial=st.booleans(),
)
def test_every_cost_fits_its_column(cost: float, estimated: bool, partial: bool) -> None:
    """A cost in its cell, with its ``~`` or ``≥``, is never cut, whatever it is:
    ``≥$0.0012`` and ``$123,456`` were 8 characters in the 7 cells the column has."""
    from viewer.browser_cells import cells

    row = FileSummary(path="/x/c.jsonl", status="finished", format="codex", tokens=1, cost=cost)
    row.estimated, row.cost_partial = estimated, partial
    width = next(w for key, _, w in COLUMNS if key == "cost")
    cell = cells(row, 20)[[key for key, _, _ in COLUMNS].index("cost")]
    assert width is not None and cell_len(cell.plain) <= width, cell.plain
    assert cell.plain.lstrip("~≥<").startswith("$"), cell.plain
    assert (cell.plain in ("$0.00", "~$0.00", "≥$0.00")) == (cost == 0), cell.plain


@pytest.mark.parametrize(
    ("cost", "shown"),
    [(0.00004, "<$0.0001"), (0.0012, "$0.0012"), (1.5, "$1.50"), (123_456.0, "$123,456")],
)
def test_the_footer_gives_a_cost_in_full(cost: float, shown: str) -> None:
    """The footer is not held to a column's width: its total is said in full, and one
    above 0 never reads as nothing spent."""
    assert totals([summary(0, 10, cost)], 1).plain.endswith(f"cost {shown}")


@pytest.mark.parametrize("cost", [math.inf, math.nan])
def test_a_cost_past_a_doubles_reach_is_shown_not_a_crash(cost: float) -> None:
    """Costs a file wrote (``costUSD`` of 1e308 twice) add up to infinity: the browser
    exited with a traceback (``OverflowError``); the cell says what the sum is."""
    from viewer.browser_cells import cells

    row = FileSummary(path="/x/c.jsonl", status="finished", format="codex", tokens=1, cost=cost)
    cell = cells(row, 20)[[key for key, _, _ in COLUMNS].index("cost")]
    assert cell.plain in ("$inf", "$nan")


def test_a_broken_links_row_says_so_with_no_size_and_no_enter(tmp_path: Path) -> None:
    """A link to nothing has no size to measure: its row and detail say it is a broken
    link, never 0 bytes, and the detail does not promise enter opens it (an audit:
    "0 bytes … enter opens it", then enter said it cannot be opened)."""
    import os

    from session_core.scan import scan_file
    from viewer.browser_cells import cells, detail

    link = tmp_path / "dangling.jsonl"
    os.symlink(tmp_path / "moved.jsonl", link)
    summary = scan_file(link)
    said = detail(summary, link.name, 200).plain
    assert "a broken link" in said and "bytes" not in said
    assert "enter opens it" not in said
    assert cells(summary, 20)[5].plain == "—"
    real = tmp_path / "real.jsonl"
    real.write_bytes(b"not json\n")
    shown = scan_file(real)
    assert "9 bytes" in detail(shown, real.name, 200).plain
    assert "enter opens it" in detail(shown, real.name, 200).plain
    assert cells(shown, 20)[5].plain == "9B"
