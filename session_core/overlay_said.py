"""How many compactions, elisions and rollbacks a transcript has, in the one wording every
surface says them in (``OverlayCounts.said``): ``1 compaction, 2 elisions (5 messages
stubbed)``. An elision is counted as the record it is (a v1 elision line, a Claude Code
microcompact, an agentgo projection), never as the messages it stubbed: a v1 file of two
elision lines stubbing five messages read "5 elisions" where its lines are two."""

from __future__ import annotations

from dataclasses import dataclass

from .text import count

# The exports' fact that says the counts (``OverlayCounts.said``), in every format
OVERLAYS_FACT = "compactions and elisions"


@dataclass(frozen=True, slots=True)
class OverlayCounts:
    """How many of a transcript's overlays are compactions, elisions and rollbacks, and
    what the elisions did: the messages they stubbed (each once), those they dropped (an
    agentgo projection's, sent as nothing), and how many elisions no request follows yet
    (what they stub is not known: ``unknown``, never said as 0)."""

    compactions: int = 0
    elisions: int = 0
    rollbacks: int = 0
    stubbed: int = 0
    dropped: int = 0
    unknown: int = 0

    def said(self, *always: str, detail: bool = True) -> list[str]:
        """Each count in words (``2 compactions``, ``1 rollback``), those of no overlay
        left out but the kinds named in ``always`` (``"compaction"``, ``"elision"``); the
        elisions with what they stubbed (``detail``): ``2 elisions (5 messages stubbed)``."""
        out = []
        for number, kind in (
            (self.compactions, "compaction"),
            (self.elisions, "elision"),
            (self.rollbacks, "rollback"),
        ):
            if number or kind in always:
                words = count(number, kind)
                if kind == "elision" and number and detail:
                    words += f" ({self.elided_said()})"
                out.append(words)
        return out

    def elided_said(self) -> str:
        """What the elisions did: ``5 messages stubbed``, ``3 messages stubbed, 1
        dropped``, ``... ; 1 of them not sent yet`` (``not sent yet`` alone where none is
        sent: what it stubs is not known)."""
        parts = []
        if self.elisions > self.unknown:
            parts.append(f"{count(self.stubbed, 'message')} stubbed")
            if self.dropped:
                parts[-1] += f", {self.dropped:,} dropped"
        if self.unknown:
            parts.append(
                "not sent yet"
                if self.unknown == self.elisions
                else f"{self.unknown:,} of them not sent yet"
            )
        return "; ".join(parts)


__all__ = ["OVERLAYS_FACT", "OverlayCounts"]
