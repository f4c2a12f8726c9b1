"""Make untrusted transcript text inert before it reaches the terminal.

Everything a transcript says (content, tool names, arguments, facts, section
names and bodies, file names) goes through ``inert`` before it is shown:
control characters become visible symbols (ESC is ``␛``), so an escape
sequence in a file is read, never obeyed. ``inert_text`` wraps the result in a
``rich.text.Text`` built from the plain string, never parsed as markup, so
``[bold red]`` in a file stays those ten characters.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

TAB = "    "
NEWLINE_MARK = "⏎"
ELLIPSIS = "…"

# Characters that reorder or hide text without being controls ("Trojan source"
# bidi overrides and isolates, and the invisible joiners/marks around them).
_INVISIBLE = (
    "\u061c",  # arabic letter mark
    "\u200b",  # zero width space
    "\u200e",  # left-to-right mark
    "\u200f",  # right-to-left mark
    "\u2028",  # line separator
    "\u2029",  # paragraph separator
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",  # embeddings and overrides
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",  # isolates
    "\ufeff",  # zero width no-break space / BOM
)


def _build_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0x20):
        table[code] = chr(0x2400 + code)  # the Control Pictures block: ␀ … ␛ … ␟
    del table[0x0A]  # a newline stays a newline
    table[0x09] = TAB
    table[0x7F] = "␡"
    for code in range(0x80, 0xA0):
        table[code] = f"\\x{code:02x}"  # C1 controls (CSI is \x9b) as a visible escape
    for char in _INVISIBLE:
        table[ord(char)] = f"\\u{ord(char):04x}"
    return table


_TABLE = _build_table()
_ONE_LINE_TABLE = dict(_TABLE)
_ONE_LINE_TABLE[0x0A] = NEWLINE_MARK


def inert(text: object) -> str:
    """``text`` with every control character replaced by something visible.

    C0 controls (but ``\\n``) become Control Pictures (ESC is ``␛``, CR is
    ``␍``), a tab becomes four spaces, DEL is ``␡``, C1 controls are written
    as ``\\x9b``-style escapes, and bidi overrides / invisible marks as
    ``\\u202e``-style escapes. A non-string is shown by its ``str()``;
    ``None`` is empty. The result contains no character below U+0020 except
    ``\\n``, and applying ``inert`` again changes nothing.
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    return text.translate(_TABLE)


def inert_text(text: object, style: str = "") -> Text:
    """A ``Text`` of ``inert(text)`` in ``style``; the content is never parsed as markup."""
    return Text(inert(text), style=style, end="")


def clip(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` terminal cells, ending in ``…`` when cut."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    out: list[str] = []
    used = 0
    for char in text:
        size = cell_len(char)
        if used + size > width - 1:
            break
        out.append(char)
        used += size
    return "".join(out) + ELLIPSIS


def one_line(text: object, width: int | None = None) -> str:
    """``inert(text)`` on one line: newlines become ``⏎``; clipped to ``width`` cells with ``…``.

    ``width=None`` does not clip.
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    flat = text.replace("\r\n", "\n").translate(_ONE_LINE_TABLE)
    return flat if width is None else clip(flat, width)


def one_line_text(text: object, width: int | None = None, style: str = "") -> Text:
    """A ``Text`` of ``one_line(text, width)`` in ``style``, never parsed as markup."""
    return Text(one_line(text, width), style=style, end="", no_wrap=True)
