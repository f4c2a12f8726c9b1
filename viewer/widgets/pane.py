"""``FocusPane``: a pane that takes no focus itself and gives it to its main widget."""

from __future__ import annotations

from typing import ClassVar, Self

from textual.widget import Widget


class FocusPane(Widget):
    """Mixed in after a container (whose CSS the pane keeps: Textual follows a class's
    first base for it): focusing the pane focuses ``FOCUS_ON``, a selector."""

    FOCUS_ON: ClassVar[str]

    def focus(self, scroll_visible: bool = True) -> Self:
        self.query_one(self.FOCUS_ON).focus(scroll_visible)
        return self


__all__ = ["FocusPane"]
