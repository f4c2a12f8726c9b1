"""Text measured in terminal cells, as a terminal shows it: a wide (CJK, emoji)
character takes two, a combining mark none. The columns of ``tailscope diff`` are
padded and cut by these (by characters, a wide role or id moved every column after
it), measured as terminals measure them (``wcwidth``); the viewer measures as its
renderer draws (Rich's cells)."""

from __future__ import annotations

ELLIPSIS = "…"


def cell_len(text: str) -> int:
    """How many cells ``text`` takes in a terminal (a character of no width of its own,
    such as a control character, none: text is made inert before it is measured)."""
    # (wcwidth imported here, not at the top: its tables, and the hashlib its textwrap
    # loads, are 2-3 MB of the viewer's RSS, which imports this module for the Diff tab
    # and only measures a text that is not printable ASCII)
    from wcwidth import wcswidth, wcwidth

    size = wcswidth(text)
    return size if size >= 0 else sum(max(0, wcwidth(char)) for char in text)


def cut_cells(text: str, width: int) -> str:
    """The longest head of ``text`` at most ``width`` cells wide."""
    if width <= 0:
        return ""
    if len(text) > _bound(width):  # (a 50 MB result: only what can show is measured)
        text = text[: _bound(width)]
    if text.isascii() and text.isprintable():  # (the common case: one cell a character)
        return text[:width]
    if cell_len(text) <= width:
        return text
    low, high = 0, len(text)  # (a head's cells grow with its length: halved)
    while low < high:
        mid = (low + high + 1) // 2
        if cell_len(text[:mid]) <= width:
            low = mid
        else:
            high = mid - 1
    return text[:low]


def clip_cells(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` cells, ending in ``…`` when cut."""
    if width <= 0:
        return ""
    head = cut_cells(text, width)
    if len(head) == len(text):
        return text
    return cut_cells(head, width - 1) + ELLIPSIS


def _bound(width: int) -> int:
    """Characters enough for ``width`` cells (wide ones take two, marks none)."""
    return 4 * width + 64


def head_for(text: str, width: int) -> str:
    """Enough of ``text`` for ``width`` cells of it, and ``…`` where it was cut: what a
    row shows of a 5 MB result is made inert and measured, not the whole of it."""
    bound = _bound(width)
    return text if len(text) <= bound else text[:bound] + ELLIPSIS


def words_for(text: str, width: int) -> str:
    """``text``'s words on one line, enough of them for ``width`` cells (``head_for``),
    however much blank space comes before them (a result indented by 400 spaces)."""
    words = text.split(None, width)
    said = " ".join(words[:width])
    return head_for(said + " " + ELLIPSIS if len(words) > width else said, width)


def pad_cells(text: str, width: int) -> str:
    """``text`` with spaces after it up to ``width`` cells (a wider one as it is)."""
    size = len(text) if text.isascii() and text.isprintable() else cell_len(text)
    return text + " " * (width - size)
