"""The browser footer's count of resumed (or forked) sessions' copied history: each
copy once, said in the header's word for how it was copied (``resumed.how_copied``).

A resumed Claude Code session's file begins with a copy of the earlier session's lines
(``session_core.resumed``); its row's usage holds them, as ``check`` and ``replay`` say.
Over a listing, a copied response is counted once: not in the resumed file where the
file it came from is listed too (counted there), and where it is not, in one resumed
file alone (the one that copied the most of it: another resumed from the same session
holds the same lines).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from session_core.resumed import how_copied
from session_core.scan import FileSummary
from session_core.text import count


@dataclass(slots=True)
class CopiesCounted:
    """What the footer leaves out of each listed file's usage (by path), and why."""

    tokens: dict[str, int] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)
    left_out: int = 0  # copied tokens left out (counted in another file listed)
    forked: set[bool] = field(default_factory=set)  # ...each copy's, forked from or not
    unlisted: int = 0  # earlier sessions not listed whose copy is counted (once)

    def said(self) -> list[str]:
        """The footer's words for it (none where no listed file is resumed)."""
        words = []
        if self.left_out:
            how = how_copied(self.forked)  # (``forked: …`` where each was a fork's)
            words.append(f"{how}: {self.left_out:,} copied tokens counted once")
        if self.unlisted:
            words.append(f"copies of {count(self.unlisted, 'unlisted session')} counted once")
        return words


def copies_counted(summaries: Sequence[FileSummary]) -> CopiesCounted:
    """Each listed file's copied usage the footer's totals leave out (``CopiesCounted``).
    A copy is left out where its source's file is listed and holds at least as much
    (each measure on its own): a copy larger than its source's whole file is no copy of
    it (or not of that file as listed), so it is counted where it is."""
    out = CopiesCounted()
    known = [s for s in summaries if s.counts_known]
    if not any(s.copied for s in known):
        return out
    listed: dict[str, tuple[int | None, float | None]] = {}  # session -> its row's usage
    for s in known:
        if s.session and s.session not in listed:
            listed[s.session] = (s.tokens, s.cost)
    keeper: dict[str, tuple[int, str]] = {}  # an unlisted session -> the copy counted
    for summary in known:
        for source, tokens, _cost, _forked in summary.copied:
            kept = keeper.get(source)
            if source not in listed and (kept is None or (tokens or 0) > kept[0]):
                keeper[source] = (tokens or 0, summary.path)
    for summary in known:
        for source, tokens, cost, forked in summary.copied:
            if source in keeper and keeper[source][1] == summary.path:
                continue  # (counted nowhere else: counted here)
            # (another file's copy of the same unlisted session: the kept one is the
            # largest, so this one is held in it)
            held = (tokens, cost) if source in keeper else listed[source]
            path = summary.path
            if tokens and held[0] is not None and tokens <= held[0]:
                out.tokens[path] = out.tokens.get(path, 0) + tokens
                out.left_out += tokens
                out.forked.add(forked)
            if cost and held[1] is not None and cost <= held[1]:
                out.cost[path] = out.cost.get(path, 0.0) + cost
    out.unlisted = len(keeper)
    return out


__all__ = ["CopiesCounted", "copies_counted"]
