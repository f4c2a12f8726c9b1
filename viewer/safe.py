"""Make untrusted transcript text inert before it reaches the terminal.

Everything a transcript says (content, tool names, arguments, facts, section
names and bodies, file names) goes through ``inert`` before it is shown:
control characters become visible symbols (ESC is ``␛``), so an escape
sequence in a file is read, never obeyed (the character table is
``session_core.text``, shared with the exports). ``inert_text`` wraps the result in a
``rich.text.Text`` built from the plain string, never parsed as markup, so
``[bold red]`` in a file stays those ten characters.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.text import Text

from session_core.text import inert as inert  # (re-exported: the viewer's one import of it)
from session_core.text import name_line
from session_core.text import one_line as flat_line

ELLIPSIS = "…"


def inert_text(text: object, style: str = "") -> Text:
    """A ``Text`` of ``inert(text)`` in ``style``; the content is never parsed as markup."""
    return Text(inert(text), style=style, end="")


def clip(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` terminal cells, ending in ``…`` when cut."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    return _head(text, width - 1) + ELLIPSIS


_NUMBER_END = re.compile(r"\d[\d.,]*$")  # (a number's head: "1,23", "0.0")
_NUMBER_ON = re.compile(r"[\d.,]*\d")  # (a number's rest)


def clip_whole_numbers(text: str, width: int) -> str:
    """``clip``, but a number the cut lands in goes whole (``line …``, never ``line 9…``
    of ``line 982``): a number cut to its head reads as another."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    head = _head(text, width - 1)
    number = _NUMBER_END.search(head)
    if number is not None and _NUMBER_ON.match(text, len(head)):
        head = head[: number.start()]
    return head + ELLIPSIS


def _head(text: str, cells: int) -> str:
    """The longest head of ``text`` at most ``cells`` wide as ``cell_len`` measures it
    (a character at a time, then backed off: rich 15 measures a grapheme whole, so an
    emoji and its variation selector, 1 and 0 cells apart, are 2 together)."""
    out: list[str] = []
    used = 0
    for char in text:
        size = cell_len(char)
        if used + size > cells:
            break
        out.append(char)
        used += size
    head = "".join(out)
    while head and cell_len(head) > cells:
        head = head[:-1]
    return head


def fit_path(rel: str, width: int) -> str:
    """``rel`` on one line, inert (a tab ``␉``: ``name_line``), cut from the left (the
    name matters most) to ``width``."""
    text = name_line(rel)
    if cell_len(text) <= width:
        return text
    return ELLIPSIS + _tail(text, width - 1)


def _tail(text: str, cells: int) -> str:
    """The longest tail of ``text`` at most ``cells`` wide (``_head``'s way, from the end)."""
    start, used = len(text), 0
    while start and used + cell_len(text[start - 1]) <= cells:
        start -= 1
        used += cell_len(text[start])
    tail = text[start:]
    while tail and cell_len(tail) > cells:
        tail = tail[1:]
    return tail


def one_line(text: object, width: int | None = None) -> str:
    """``inert(text)`` on one line: newlines become ``⏎``; clipped to ``width`` cells with ``…``.

    ``width=None`` does not clip.
    """
    if width is None:
        return flat_line(text)
    if isinstance(text, str) and len(text) > 4 * width + 64:
        # A 50 MB tool result is drawn a row at a time: translate only what can show.
        text = text[: 4 * width + 64]
    return clip(flat_line(text), width)


def one_line_middle(text: object, width: int) -> str:
    """``one_line(text, width)`` cut in the middle, not at the end: ids that share a head
    (``run-801ba91e-…-00019``) stay told apart by their ends."""
    line = flat_line(text)
    if cell_len(line) <= width or width < 5:
        return clip(line, width)
    # the end's half, then the head in what is left
    tail = _tail(line, (width - 1) // 2)
    return _head(line, width - 1 - cell_len(tail)) + ELLIPSIS + tail


def one_line_text(text: object, width: int | None = None, style: str = "") -> Text:
    """A ``Text`` of ``one_line(text, width)`` in ``style``, never parsed as markup."""
    return Text(one_line(text, width), style=style, end="", no_wrap=True)


def short_id(value: object, width: int = 8) -> str:
    """The first ``width`` characters of an id (inert), enough to tell lines apart."""
    if value is None:
        return ""
    return one_line(value)[:width]
