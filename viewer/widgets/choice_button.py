"""A radio button that tells its choice by its glyph, not by colour alone.

Textual's ``RadioButton`` draws the same ``●`` chosen or not, told apart only by its
colour (``-on``'s ``$text-success`` against ``$panel-darken-2``; an ANSI theme's bold
against dim): in our dark theme the dot not chosen read as one chosen, and a terminal
without colour shows no difference at all."""

from __future__ import annotations

from textual.widgets import RadioButton

CHOSEN = "●"
NOT_CHOSEN = "○"


class ChoiceButton(RadioButton):
    """A ``RadioButton`` whose inside is ``CHOSEN`` while it is on, ``NOT_CHOSEN`` off."""

    BUTTON_INNER = NOT_CHOSEN

    def watch_value(self) -> None:
        # (Textual's watcher sets the ``-on`` class, which draws the button again)
        self.BUTTON_INNER = CHOSEN if self.value else NOT_CHOSEN
        super().watch_value()


__all__ = ["CHOSEN", "NOT_CHOSEN", "ChoiceButton"]
