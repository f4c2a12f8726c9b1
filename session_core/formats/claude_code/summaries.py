"""The fixed words Claude Code writes before every compaction summary (a ``user`` line
with ``isCompactSummary``, kind ``compact-summary``), as the 2.1.39 sample has them: a
row of one line shows what follows them, what tells one summary from another."""

from __future__ import annotations

SUMMARY_OPENING = (
    "This session is being continued from a previous conversation that ran out of context."
)
SUMMARY_COVERS = "The summary below covers the earlier portion of the conversation."
# Skipped in turn, each where it is there (older summaries have the first sentence alone).
SUMMARY_OPENINGS = (SUMMARY_OPENING, SUMMARY_COVERS)

__all__ = ["SUMMARY_COVERS", "SUMMARY_OPENING", "SUMMARY_OPENINGS"]
