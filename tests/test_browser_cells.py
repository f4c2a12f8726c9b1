"""The browser's footer totals say what they leave out, of tokens and of cost apart: a
rollout whose tokens are known and whose model has no price leaves its cost out alone."""

from __future__ import annotations

import pytest

from session_core.scan import FileSummary
from viewer.browser_cells import totals


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
