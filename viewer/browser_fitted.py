"""Text fitted to a few lines of a given width (the browser's detail and footer, whose
styles cap their heights): how many lines a text wraps to, a text cut to its first lines
with an ellipsis, and facts broken between them onto lines, those past the last dropped."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

# (measures wrapping alone: it writes nowhere)
_MEASURE = Console(width=1_000, file=io.StringIO(), color_system=None, legacy_windows=False)

MORE = Text("…", style="dim", end="")  # (for the facts dropped)


def wrapped_lines(text: Text, width: int) -> int:
    """How many lines ``text`` takes wrapped between words to ``width`` cells."""
    return len(text.wrap(_MEASURE, width, overflow="fold"))


def cut_to(text: Text, width: int, most: int) -> Text:
    """``text`` wrapped, its lines past ``most`` dropped and the last ending in ``…``."""
    kept = Text("\n", end="").join(text.wrap(_MEASURE, width, overflow="fold")[:most])
    lines = kept.split("\n")
    last = lines[-1]
    last.truncate(width - 1)
    last.append("…")
    out = Text("\n", end="").join(lines)
    out.no_wrap = True
    return out


def broken(facts: list[tuple[str, Text]], width: int, most: int = 0) -> Text:
    """Each fact after its separator, on a new line where it would not fit on the last
    (the separator then dropped, but for an opening bracket): never cut inside a fact but
    where one is wider than a line alone. Within ``most`` lines (0: any): the facts that
    would go past them dropped, whole, for a last ``…``."""
    out, lines = _laid(facts, width)
    kept = len(facts)
    while most and width and lines > most and kept > 1:
        kept -= 1
        out, lines = _laid([*facts[:kept], (" ", MORE)], width)
    return out


def _laid(facts: list[tuple[str, Text]], width: int) -> tuple[Text, int]:
    """``broken``'s text, and how many lines it takes."""
    out = Text(no_wrap=True, overflow="ellipsis", end="")
    line, lines = 0, 1  # (cells on the last line)
    for sep, fact in facts:
        if width and line and line + cell_len(sep) + fact.cell_len > width:
            out.append("\n")
            sep, line, lines = sep.strip(" │"), 0, lines + 1
        out.append(sep, style="dim" if sep.strip() else "")
        out.append_text(fact)
        line += cell_len(sep) + fact.cell_len
    return out, lines


__all__ = ["MORE", "broken", "cut_to", "wrapped_lines"]
