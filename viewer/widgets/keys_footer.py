"""The footer, with the keys a newcomer needs most first: Textual's ``Footer`` lists the
focused widget's keys, then its parents', then the app's, and a narrow screen cuts the
row at its end, so at 80 columns ``? Help`` and ``q Quit`` (the app's) were the first
lost. And a key that does not fit whole is left out, not cut: the row used to end in
``w War▏`` at 120 columns, in a bare ``r`` at 80."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

# esc Back (where escape goes back: a pushed screen's, a dialog's Close), ? Help, q Quit
# (or a screen's own q): escape first, as q on a pushed screen quits the app
FIRST_KEYS = ("escape", "question_mark", "q")
PALETTE = "-command-palette"  # the class of ``^p palette``, docked at the right


class KeysFooter(Footer):
    """``Footer`` with the keys of ``first`` (``FIRST_KEYS``) first, in that order; the
    others as Textual orders them, as many as fit whole beside the palette's key."""

    def __init__(self, *, first: tuple[str, ...] = FIRST_KEYS) -> None:
        super().__init__()
        self.first = first

    def compose(self) -> ComposeResult:
        shown = list(super().compose())
        order = self.first
        first = sorted(
            (w for w in shown if getattr(w, "key", None) in order),  # (a FooterKey's)
            key=lambda w: order.index(w.key),  # type: ignore[attr-defined]
        )
        yield from first
        yield from (w for w in shown if w not in first)

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self._fit)  # (once the new keys are styled)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Show the keys, in order, while each fits whole (its trailing blank may go under
        the palette's border); hide the rest."""
        room = self.size.width - sum(_width(key) for key in self.children if key.has_class(PALETTE))
        used = 0
        for key in self.children:
            if key.has_class(PALETTE):
                continue
            width = _width(key)
            key.display = used + width - _trailing_blank(key) <= room
            used = used + width if key.display else room + 1  # (none after: order is kept)


def _width(widget: Widget) -> int:
    """The cells ``widget`` takes in the row, shown or not: a footer key's text, its
    padding, border and margins."""
    styles = widget.styles
    content = widget.get_content_width(widget.size, widget.app.size)
    return content + styles.gutter.width + styles.margin.width


def _trailing_blank(widget: Widget) -> int:
    """The blank cells that end ``widget`` (a footer key's description's padding)."""
    if widget.styles.gutter.right or widget.styles.margin.right:
        return 0
    text = widget.render()
    plain = text.plain if isinstance(text, Text) else ""
    return len(plain) - len(plain.rstrip(" "))


__all__ = ["FIRST_KEYS", "KeysFooter"]
