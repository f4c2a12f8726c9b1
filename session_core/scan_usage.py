"""A browser row's usage as a format's scan read it (``scan_v1``, ``scan_agentgo``): its
totals, scaled from a big file's window, and whether they leave responses out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .usage_totals import Usage as NeutralUsage
from .usage_totals import made_none

if TYPE_CHECKING:
    from .scan import FileSummary
    from .usage import Usage


def usage_marks(summary: FileSummary, usage: Usage) -> None:
    """Whether a tally's totals leave responses out (a ``≥`` in the row), or no response
    was made (``no_response``: a whole read's alone), as the neutral model says it of
    every format (``usage_totals.Usage``, ``made_none``)."""
    said = NeutralUsage.of_totals(usage)
    summary.tokens_partial, summary.cost_partial = said.tokens_partial, said.cost_partial
    summary.no_response = made_none(said) and not summary.estimated


def scale_usage(summary: FileSummary, usage: Usage, scale: float) -> None:
    summary.tokens = None if usage.total is None else round(usage.total * scale)
    summary.cost = None if usage.cost is None else usage.cost * scale
    usage_marks(summary, usage)


__all__ = ["scale_usage", "usage_marks"]
