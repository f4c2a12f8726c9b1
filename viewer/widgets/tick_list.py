"""A list of choices whose boxes tell a tick by their glyph, not by colour alone.

Textual's ``SelectionList`` (8.2) draws every box ``▐X▌``, ticked or not, told apart
only by the colours of its ``selection-list--button`` styles: unticked read as ticked
in text, on a dim screen and without colour. As ``ChoiceButton`` does for a radio
button, an unticked box here is empty (``▐ ▌``)."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist

UNTICKED = " "


class TickList(SelectionList[str]):
    """A ``SelectionList`` whose unticked boxes show ``UNTICKED`` inside."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        if selection.value in self._selected:  # (a dict: the public ``selected`` lists it)
            return strip
        segments = list(strip)
        # (its box is the first three segments, as SelectionList.render_line makes them)
        if len(segments) < 2 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        segments[1] = Segment(UNTICKED, segments[1].style)
        return Strip(segments, strip.cell_length)


__all__ = ["UNTICKED", "TickList"]
