"""The footer, with the keys a newcomer needs most first: Textual's ``Footer`` lists the
focused widget's keys, then its parents', then the app's, and a narrow screen cuts the
row at its end, so at 80 columns ``? Help`` and ``q Quit`` (the app's) were the first
lost."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

FIRST_KEYS = ("question_mark", "q")  # ? Help, q Quit (or a screen's own q)


class KeysFooter(Footer):
    """``Footer`` with the keys of ``FIRST_KEYS`` first, in that order; the others as
    Textual orders them."""

    def compose(self) -> ComposeResult:
        shown = list(super().compose())
        first = sorted(
            (w for w in shown if getattr(w, "key", None) in FIRST_KEYS),  # (a FooterKey's)
            key=lambda w: FIRST_KEYS.index(w.key),  # type: ignore[attr-defined]
        )
        yield from first
        yield from (w for w in shown if w not in first)


__all__ = ["FIRST_KEYS", "KeysFooter"]
