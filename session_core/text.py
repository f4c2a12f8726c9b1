"""Making untrusted transcript text inert: the one character table every view uses.

Control characters become visible symbols (ESC is ``␛``), so an escape
sequence in a file is read, never obeyed, whether it is shown in a terminal
(viewer.safe) or written into an export (session_core.export).
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import orjson

from .json_out import beyond_said, compact_json, escape_c1, holds_non_finite
from .times import seconds_between

TAB = "    "
NEWLINE_MARK = "⏎"

# Characters that reorder or hide text without being controls ("Trojan source"
# bidi overrides and isolates, the invisible marks around them, and the format
# characters that draw as nothing or as blank cells). The zero-width joiner and
# non-joiner stay: emoji sequences and several scripts need them.
INVISIBLE = (
    "\u00ad",  # soft hyphen
    "\u034f",  # combining grapheme joiner
    "\u061c",  # arabic letter mark
    "\u115f",
    "\u1160",  # hangul fillers (drawn as blank cells)
    "\u180e",  # mongolian vowel separator
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
    "\u2060",  # word joiner
    "\u2061",
    "\u2062",
    "\u2063",
    "\u2064",  # invisible operators
    "\u206a",
    "\u206b",
    "\u206c",
    "\u206d",
    "\u206e",
    "\u206f",  # deprecated format characters
    "\u3164",
    "\uffa0",  # hangul fillers
    "\ufeff",  # zero width no-break space / BOM
    "\ufff9",
    "\ufffa",
    "\ufffb",  # interlinear annotation
)
# Tag characters: invisible letters that can spell words a reader never sees (text
# "smuggled" to a model), each shown as its escape.
TAGS = range(0xE0000, 0xE0080)


def _build_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0x20):
        table[code] = chr(0x2400 + code)  # the Control Pictures block: ␀ … ␛ … ␟
    del table[0x0A]  # a newline stays a newline
    table[0x09] = TAB
    table[0x7F] = "␡"
    for code in range(0x80, 0xA0):
        table[code] = f"\\x{code:02x}"  # C1 controls (CSI is \x9b) as a visible escape
    for char in INVISIBLE:
        table[ord(char)] = f"\\u{ord(char):04x}"
    for code in TAGS:
        table[code] = f"\\U{code:08x}"
    for code in range(0xD800, 0xE000):
        # A lone surrogate (a file name's undecodable byte, as ``os.fsdecode`` keeps it):
        # no terminal can be sent one, and it was measured one cell where it drew six.
        table[code] = f"\\u{code:04x}"
    return table


CONTROL_TABLE: dict[int, str] = _build_table()
ONE_LINE_TABLE: dict[int, str] = {**CONTROL_TABLE, 0x0A: NEWLINE_MARK}


def _pattern(table: dict[int, str]) -> re.Pattern[str]:
    """A character class of exactly the table's characters, as ranges."""
    ranges: list[tuple[int, int]] = []
    for code in sorted(table):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    spans = (re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in ranges)
    return re.compile(f"[{''.join(spans)}]")


# A name (a file's): every control its picture, a tab ``␉`` too (four spaces read as
# spaces in a name), a newline ``⏎``.
NAME_TABLE: dict[int, str] = {**ONE_LINE_TABLE, 0x09: "\u2409"}
# What ``c`` copies: every control as the screen shows it, but a tab kept (a pasted
# text's own indentation and columns) as a newline is.
COPY_TABLE: dict[int, str] = {code: mark for code, mark in CONTROL_TABLE.items() if code != 0x09}
_CONTROLS = _pattern(CONTROL_TABLE)
_COPY_CONTROLS = _pattern(COPY_TABLE)
_ONE_LINE_CONTROLS = _pattern(ONE_LINE_TABLE)
_NAME_CONTROLS = _pattern(NAME_TABLE)


# A run of zero-width joiners that begins the text, a line or a word (after white space)
# joins nothing there: shown as its escapes, as an invisible mark is. Rich 15 measures a
# word led by two of them before a wide character shorter than it cuts it, and fails
# cutting it (``IndexError`` in ``set_cell_size``; its wrap starts each line at a word).
# One after any other character (an emoji sequence's, a script's) stays.
_LONE_JOINERS = re.compile("(?<![^\\s])\u200d+")
# The joiner, and what each of such a run is drawn as (its escape, as an invisible
# mark's): with ``CONTROL_TABLE``'s marks, what a search finds as drawn (``term_reading``).
JOINER = "\u200d"
JOINER_MARK = f"\\u{ord(JOINER):04x}"


def _joiners_shown(found: re.Match[str]) -> str:
    return JOINER_MARK * len(found.group())


def _mapped(text: str, table: dict[int, str], pattern: re.Pattern[str], common: str) -> str:
    """``text.translate(table)``, quickly. ``translate`` is quick on ASCII text that maps to
    itself; elsewhere (any non-ASCII text, a tab's four spaces, a newline's mark) it looks
    each character up (a third of a big export's time), where ``pattern`` finds the few
    that change. ``common``: the ASCII characters of the table that text often holds.
    Every table's text is drawn: a run of zero-width joiners that joins nothing is shown
    as its escapes (``_LONE_JOINERS``) on every path."""
    if "\u200d" in text:  # (rare: looked for only then)
        text = _LONE_JOINERS.sub(_joiners_shown, text)
    if text.isascii() and not any(c in text for c in common):
        return text.translate(table)
    return pattern.sub(lambda m: table[ord(m.group())], text)


def inert(text: object) -> str:
    """``text`` with every control character replaced by something visible.

    C0 controls (but ``\\n``) become Control Pictures (ESC is ``␛``, CR is
    ``␍``), a tab becomes four spaces, DEL is ``␡``, C1 controls are written
    as ``\\x9b``-style escapes, and bidi overrides / invisible marks as
    ``\\u202e``-style escapes, as is a run of zero-width joiners that begins the text, a
    line or a word (it joins nothing there). A non-string is shown by its ``str()``;
    ``None`` is empty. The result contains no character below U+0020 except
    ``\\n``, and applying ``inert`` again changes nothing.
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    return _mapped(text, CONTROL_TABLE, _CONTROLS, "\t")


def copied(text: str) -> str:
    """``text`` as ``c`` puts it on the clipboard, the one rule of every copy: inert, its
    control characters as the screen shows them (ESC ``␛``, CR ``␍``, C1 ``\\x9b``,
    ``\\u202e``; a CRLF one newline), its newlines and tabs kept. Pasted into a terminal,
    a copied escape sequence is read, never obeyed (it was copied raw)."""
    return _mapped(text.replace("\r\n", "\n"), COPY_TABLE, _COPY_CONTROLS, "")


def line_pieces(lines: Iterable[str], batch: int = 256) -> Iterator[str]:
    """``lines``, each ended by a newline, joined a batch at a time: a text written as
    it is made, in pieces of whole lines (``gathered``: a line of ``BIG`` alone)."""
    return gathered(lines, "\n", batch)


# A text this long (a record kept as written can be 20 MB) is written on its own, in
# slices: never copied into a join with its neighbours (one 4-byte character among
# them makes the whole join 4 bytes a character), nor escaped or encoded whole.
BIG = 1 << 20


def gathered(pieces: Iterable[str], end: str = "", batch: int | None = None) -> Iterator[str]:
    """``pieces``, each followed by ``end``, joined ``batch`` at a time (None: all),
    or sooner where they come to ``BIG`` characters; a piece of ``BIG`` or more goes
    out alone (its ``end`` after it), not copied."""
    held: list[str] = []
    size = 0
    for piece in pieces:
        if len(piece) >= BIG:
            if held:
                yield end.join(held) + end
                held.clear()
                size = 0
            yield piece
            del piece  # (not held while the next is made)
            if end:
                yield end
            continue
        held.append(piece)
        size += len(piece)
        if size >= BIG or (batch is not None and len(held) >= batch):
            yield end.join(held) + end
            held.clear()
            size = 0
    if held:
        yield end.join(held) + end


def in_slices(text: str) -> Iterator[str]:
    """``text`` a ``BIG`` slice at a time (a short one is itself, not copied): for
    what maps it a character at a time (``inert``, ``html.escape``, encoding)."""
    for start in range(0, len(text), BIG):
        yield text[start : start + BIG]


class Name(str):
    """A file's name or path among text (an export's ``file`` fact): ``one_line`` shows it
    as every name is shown (``name_line``: a tab ``␉``, not the spaces text gets)."""

    __slots__ = ()


def one_line(text: object) -> str:
    """``inert(text)`` on one line: newlines (and CRLFs) become ``⏎`` (a ``Name``: as
    ``name_line`` shows it)."""
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    elif type(text) is Name:
        return name_line(text)
    return _mapped(text.replace("\r\n", "\n"), ONE_LINE_TABLE, _ONE_LINE_CONTROLS, "\t\n")


def name_line(name: object) -> str:
    """A file's name or path on one line, inert, each character it holds told apart: a
    tab is ``␉``, where text shows four spaces (``one_line``), a newline ``⏎``."""
    text = "" if name is None else name if isinstance(name, str) else str(name)
    return _mapped(text, NAME_TABLE, _NAME_CONTROLS, "\t\n")


# A tab's mark where it is told apart from spaces (a name's, ``name_line``).
UNNAMED_TOOL = "?"  # a tool call that names no tool, in the viewer and every export


def named(name: str | None, fallback: str) -> str:
    """``name`` as a label is drawn: ``fallback`` where it is none a reader could see
    (empty, or only whitespace: an export's ``** **`` would be no bold, nor a name)."""
    return name if name and not name.isspace() else fallback


def tool_name(name: str | None) -> str:
    """A tool call's name as the viewer draws it and every export writes it."""
    return named(name, UNNAMED_TOOL)


TAB_MARK = NAME_TABLE[0x09]

# What a search joins the texts it looks in with (an item's, a tool operation's, a diff
# row's: ``searched_apart``): a control no drawing for a search draws (``search_drawn``),
# whose own occurrences in a text are searched as its picture ``␞``, as drawn; so no term
# is found over two texts (``/⏎``, a newline as a row draws it, found between two read
# as one that every item held).
TEXTS_APART = "\x1e"


def searched_apart(texts: Sequence[str]) -> str:
    """``texts`` joined by ``TEXTS_APART`` (a text's own, rare, as its picture)."""
    joined = TEXTS_APART.join(texts)
    if joined.count(TEXTS_APART) >= len(texts):  # (one pass, where the join was one)
        picture = CONTROL_TABLE[ord(TEXTS_APART)]
        joined = TEXTS_APART.join(text.replace(TEXTS_APART, picture) for text in texts)
    return joined


def _drawing(table: dict[int, str], apart: bool) -> tuple[dict[int, str], re.Pattern[str]]:
    kept = {code: mark for code, mark in table.items() if not apart or code != ord(TEXTS_APART)}
    return kept, _pattern(kept)


# How a search draws a text for a term holding a mark as drawn (``term_reading``): as the
# conversation draws it (``inert``), as a row draws it on one line (``one_line``: a
# newline ``⏎``, a CRLF one ``⏎`` too, a tab four spaces), so with a CRLF's CR kept
# (``␍⏎``: the ``␍`` the conversation ends its line with, then the line's end, as
# ``name_line`` draws one), as a name is drawn (``name_line``: a tab ``␉`` too), so
# with a CRLF one ``⏎`` (``one-line-tab``: a term with a tab's mark and no ``␍⏎``
# finds a text's CRLF as ``one_line`` draws it, not as a name's ``␍⏎``);
# each of a text, and of texts joined by ``searched_apart`` (its joins not drawn). Its
# newlines are marked after (``str.replace``): a table's mark for them made ``_mapped``
# look each character up (``/⏎`` took twice ``/␛``'s time on a 10 MB file).
_SEARCH_DRAWINGS = {
    (drawing, apart): _drawing(table, apart)
    for drawing, table in (
        ("inert", CONTROL_TABLE),
        ("one-line", CONTROL_TABLE),
        ("one-line-cr", CONTROL_TABLE),
        ("name", {**CONTROL_TABLE, 0x09: TAB_MARK}),
        ("one-line-tab", {**CONTROL_TABLE, 0x09: TAB_MARK}),
    )
    for apart in (False, True)
}
SEARCH_DRAWINGS = ("inert", "one-line", "one-line-cr", "name", "one-line-tab")
CR_MARK = CONTROL_TABLE[0x0D]  # a CR as drawn: ``␍``


def search_drawn(text: str, drawing: str, apart: bool = False) -> str:
    """``text`` drawn as a search of a term holding a mark as drawn reads it:
    ``drawing`` one of ``SEARCH_DRAWINGS`` (on one line, a CRLF is one ``⏎``, as
    ``one_line`` draws it, in "one-line-tab" too; ``␍⏎`` in "one-line-cr" and "name",
    as ``name_line`` does);
    ``apart``: texts joined by ``searched_apart``."""
    table, pattern = _SEARCH_DRAWINGS[drawing, apart]
    if drawing == "inert":
        return _mapped(text, table, pattern, "\t")
    if drawing in ("one-line", "one-line-tab") and "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return _mapped(text, table, pattern, "\t").replace("\n", NEWLINE_MARK)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 message``, ``3 messages``, ``1,204 tool operations``."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def ops_said(listed: int) -> list[str]:
    """A ``check`` note's count of the tool operations ``replay`` lists, said the same
    way in every format (``1,204 tool operations``; none: not said)."""
    return [count(listed, "tool operation")] if listed else []


# The longest a writer's own timing of a call or a turn may say it took (a year): past it,
# a value is no timing (made up, or broken), unknown as a missing one is. It read
# "exit 0 in 277777777777777h46m".
LONGEST_TIMED = 365 * 86400.0


def timed_seconds(seconds: float) -> float | None:
    """``seconds``, a duration a file says (Codex's ``{secs, nanos}``, Claude Code's
    ``durationMs``), where it can be one: finite, not below 0, at most ``LONGEST_TIMED``;
    else None (unknown)."""
    return seconds if 0 <= seconds <= LONGEST_TIMED else None  # (NaN: neither)


def duration_text(seconds: float | None) -> str:
    """``0.25s``, ``12.3s``, ``4m07s``, ``2h05m``; under 0.01 s ``<0.01s`` (the viewer's and
    the exports' one way: it read "0.0s", and 0.25 s "0.2s")."""
    if seconds is None or not math.isfinite(seconds):  # (a file's 1e400: no duration)
        return ""
    if seconds < 0.01:
        return "<0.01s" if seconds > 0 else "0s"
    if seconds < 0.995:
        return f"{seconds:.2f}s"
    if seconds < 59.95:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(max(60, round(seconds)), 60)  # (384.99 s read "6m24s")
    if minutes < 60:
        return f"{minutes}m{rest:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def duration_in(seconds: float | None, cells: int, mark: str = "") -> str:
    """``mark`` and ``duration_text`` in ``cells`` where they fit, else coarser, never a
    number cut: ``232d12h``, then the largest unit alone (``232d``, ``12h``, ``4m``), each
    rounded down (a running call's ``≥5580h5…`` at 80 columns)."""
    said = duration_text(seconds)
    if not said or seconds is None or len(mark + said) <= cells or seconds < 60:
        return mark + said
    whole = int(seconds)
    days, hours = whole // 86400, whole % 86400 // 3600
    forms = [f"{days}d{hours:02d}h"] if days else []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= size:
            forms.append(f"{whole // size}{unit}")
            break
    for form in forms:
        if len(mark + form) <= cells:
            return mark + form
    return mark + forms[-1]  # (wider than its column: the table scrolls, nothing cut)


def took_text(duration: float | None, started: str | None, ended: str | None, lines: str) -> str:
    """How long a run or a call took (``duration_text``); where that, its writer's own
    timing, reads otherwise than its lines' times apart (``started`` to ``ended``, the
    ``lines`` named), both: "0.47s as its writer timed it; 0.74s from started to ended"
    (a call's: two figures, one unexplained, read as a contradiction)."""
    took = duration_text(duration)
    wall = duration_text(seconds_between(started, ended))
    if took and wall and wall != took:
        return f"{took} as its writer timed it; {wall} {lines}"
    return took


# A cost this big (a billion dollars) is no bill: a damaged or made-up one, said in
# scientific notation (a file's ``1e308`` read as 309 digits).
HUGE_COST = 1e9


def cost_text(cost: float) -> str:
    """A cost as every total and item says it, to a hundredth of a cent: ``$0.0197``,
    ``$11.2405``; above 0 and under half of that, ``<$0.0001`` (``$0.0000`` reads as
    nothing spent); from ``HUGE_COST`` on, ``$1.000e+308``."""
    if not cost < HUGE_COST:
        return f"${cost:.3e}"
    shown = f"{cost:.4f}"
    return "<$0.0001" if cost > 0 and shown == "0.0000" else f"${shown}"


def size_text(size: int, *, compact: bool = False) -> str:
    """``1.5 MB`` (or ``1.5M`` where a table column is narrow), in decimal units as the
    labels say (1 MB is 1,000,000 bytes: 981,047,580 bytes read "935.6 MB" when they
    were counted in 1,048,576s)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            label = unit[0] if compact else f" {unit}"
            return f"{int(value)}{label}" if unit == "B" else f"{value:.1f}{label}"
        value /= 1000
    return f"{size} B"


def grouped(value: object) -> str:
    """A number from a file with its thousands grouped (``12,345``); anything else (a
    damaged field) as its JSON, shown as it is rather than taken for a number."""
    if type(value) is int or type(value) is float:
        return f"{value:,}"
    return compact_json(value)


# A count a file wrote as ``null`` (``written_count``), told from one it left out: each
# is said as written (``null``; ``?``). Dumped as JSON, it is ``null``.
WRITTEN_NULL = orjson.Fragment(b"null")


def written_count(fields: Mapping[str, Any], key: str) -> Any:
    """A count field as the file wrote it: None where it left the key out, ``WRITTEN_NULL``
    where it wrote ``null``, else its value (``count_text`` says each)."""
    value = fields.get(key)
    return WRITTEN_NULL if value is None and key in fields else value


def json_count(value: Any) -> Any:
    """A count as written (``written_count``), in JSON: ``null`` for a written null and
    for a number beyond a double, which JSON cannot hold (kept as its line's text, an
    ``orjson.Fragment``, for the rows: ``1e400``); else itself."""
    return None if isinstance(value, orjson.Fragment) else value


def count_text(value: object, unknown: str = "?") -> str:
    """A count a file wrote, as a row says it: ``12,345``; missing, ``unknown``; anything
    else (a string, a list, a flag, a count below 0: no count; ``null``, ``WRITTEN_NULL``)
    as its JSON, inert and on one line, never taken for a number (a newline in one forged
    ``diff`` rows)."""
    if value is None:
        return unknown
    if type(value) is int and value >= 0:
        return f"{value:,}"
    return as_written(value, 40)


def as_str(value: object) -> str:
    """A field as text: "" for a missing one, ``str()`` of anything not a str."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def as_written(value: object, limit: int = 80) -> str:
    """A value a file wrote, quoted in a refusal's words as JSON writes it (``true``,
    ``null``, ``"1"``, not Python's ``True``), inert, cut to ``limit`` characters. A
    number beyond a double (read as infinity) is quoted as its line wrote it where the
    caller has that (``indexing.written_field``: an ``orjson.Fragment``), else said to
    be one: never ``null``, as JSON writes infinity. What JSON leaves raw and a screen
    would obey or hide (a C1 control, DEL, a bidi override) is escaped as JSON escapes
    the rest (``\u009b`` beside ``\u001b``, never Python's ``\x9b``): JSON shown on a
    terminal, one rule (``json_out.escape_c1``)."""
    text = compact_json(value)
    if "null" in text and holds_non_finite(value):  # (rare: looked for only then)
        text = compact_json(beyond_said(value))
    text = inert(escape_c1(text.encode(), on_screen=True).decode())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def finish_mark(reason: object) -> str | None:
    """Why a model's message ended, as every format's message says it beside its content
    (the conversation's ``[finish stop]``, an export's flag): v1's ``finish-reason``,
    agentgo's ``stop_reason``; None where the message says none."""
    return None if reason is None else f"finish {as_str(reason)}"


def str_or_none(value: object) -> str | None:
    """A field that is a string, or None (anything else is not taken for one)."""
    return value if isinstance(value, str) else None


TITLE_CHARS = 200  # the most a title has, in every format (the README's Export says so)


# The white space a title keeps, as a body shows it (CR ``␍``, VT ``␋``, FF ``␌``, the
# separators ``␜``-``␟``, NEL ``\x85``, U+2028 / U+2029 as escapes): ``str.split`` took
# them for spaces, a title folding them away where a body showed them.
_TITLE_KEPT = "\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029"
_TITLE_KEEPS = re.compile(f"[{_TITLE_KEPT}]")
_TITLE_SPACE = re.compile(f"(?:\r\n|[^\\S{_TITLE_KEPT}])+")  # (a CRLF a line's end)


def prompt_title(text: str) -> str | None:
    """A prompt as a session's title: one line (``folded_line``), cut to ``TITLE_CHARS``
    (``title_cut``); None: blank."""
    return title_cut(folded_line(text, TITLE_CHARS)) or None


def folded_line(text: str, chars: int) -> str:
    """``text`` on one line, its runs of white space (a newline, a tab, a CRLF, a no-break
    space) one space each, a control character kept for the surface to show as a body's
    (``_TITLE_KEPT``: inert there); of a long text, enough for more than ``chars``
    characters (its head, where that fills them)."""
    head = text[: 4 * chars]
    line = _folded(head)
    if len(line) <= chars and len(head) < len(text):
        line = _folded(text)  # (its head was mostly white space)
    return line


def _folded(text: str) -> str:
    if _TITLE_KEEPS.search(text) is None:  # (the common case, at ``split``'s speed)
        return " ".join(text.split())
    return _TITLE_SPACE.sub(" ", text).strip(" ")


def title_cut(line: str) -> str:
    """A title's line at most ``TITLE_CHARS`` characters, ending in ``…`` where it was
    cut: the one rule every format's title (a prompt, a command as typed) is cut by."""
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


SHELLS = ("bash", "sh", "zsh", "dash", "fish", "pwsh", "powershell")


def command_line(command: object) -> str | None:
    """A command as one line: ``bash -lc SCRIPT`` shows the script, argv is shell-joined
    (None: not a command). The one rendering of a call's command: Codex's call text (the
    conversation's), the tool operations tab's arguments."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not all(isinstance(a, str) for a in command):
        return None
    if (
        len(command) >= 3
        and command[0].rsplit("/", 1)[-1] in SHELLS
        and command[1] in ("-lc", "-c", "-l", "-Command")
    ):
        return str(command[-1])
    return shlex.join(command)


def error_message(error: object) -> str:
    """What an error says, in words: its status and message, as far as it says them
    (an API error's ``{"status": 529, "error": {"message": ...}}``, a cause's code, an
    error event's ``message``, a plain string). Empty where it says neither: its JSON
    is then what is shown."""
    if isinstance(error, str):
        return error
    if not isinstance(error, dict):
        return ""
    status = error.get("status")
    inner = error.get("error")
    message = error.get("message")
    if not isinstance(message, str) and isinstance(inner, dict):
        message = inner.get("message")
    cause = error.get("cause")
    if not isinstance(message, str) and isinstance(cause, dict):
        message = cause.get("code") or cause.get("message")
    said = [str(status)] if isinstance(status, int) else []
    if isinstance(message, str) and message:
        said.append(message)
    return " ".join(said)
