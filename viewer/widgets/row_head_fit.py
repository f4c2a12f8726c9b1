"""An item's first line in the width it has: whole facts dropped, never a number cut.

At 80 columns a Codex response's line read ``… · 2026-02-13T16:33:48.205Z · 122,99…``
(its tokens cut, its cost gone), and a v1 message folded by a compaction read
``[finish tool_calls, folded by the compaction at line 982]  lin…`` (its line's number
pushed off by its marks)."""

from __future__ import annotations

from rich.cells import cell_len

from ..safe import clip

Said = list[tuple[str, str]]  # (words, the name of their style)


def fitted_head(
    lead: int, said: Said, facts: list[str], drop: list[str], width: int
) -> tuple[Said, list[str]]:
    """(``said``, ``facts``) to follow ``lead`` cells in ``width``: the facts in ``drop``
    go whole, in its order (the least needed first), while the line is too long; then the
    marks (``said``'s last, in brackets) are cut so that the facts left fit."""
    facts = list(facts)
    for fact in drop:
        if _cells(lead, said, facts) <= width:
            break
        if fact in facts:
            facts.remove(fact)
    over = _cells(lead, said, facts) - width
    if over > 0 and said and said[-1][1] == "marks":
        words, style = said[-1]
        room = cell_len(words) - over
        if room >= 5:  # ("  [x…]": what is left of the marks still says there are some)
            said = [*said[:-1], (clip(words[:-1], room - 1) + "]", style)]
    return said, facts


def _cells(lead: int, said: Said, facts: list[str]) -> int:
    shown = lead + sum(cell_len(words) for words, _style in said)
    return shown + (2 + cell_len(" · ".join(facts)) if facts else 0)


__all__ = ["fitted_head"]
