"""What a reader says of a line it could not read as one record: the warnings' words,
and which of them name damage (a line not the last), in one place for every reader."""

from __future__ import annotations

from collections.abc import Iterable

import orjson


def joined_warning(line: int, records: int) -> str:
    """The warning for a line of several records read as each (``concatenated``)."""
    return f"line {line} holds {records} records with no line break between them; each was read"


def skipped_line(number: int, raw: bytes) -> str:
    """The warning for a line no JSON could be read from, skipped: why, too."""
    why = bad_line_reason(raw)
    if why == "is blank":
        return f"line {number} is blank, and was skipped"
    return f"line {number} could not be read ({bad_line_name(why)}), and was skipped"


def bad_line_reason(raw: bytes) -> str:
    from .reader import is_blank  # (it reads this module's words)

    if is_blank(raw):  # (where every complete line must be a record: agentgo's)
        return "is blank"
    if raw.startswith(b"\xef\xbb\xbf"):
        return "is led by a byte order mark (U+FEFF), which JSON does not allow"
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        text = str(err).lower()
        if "utf-8" in text:
            return "is not valid UTF-8"
        if "surrogate" in text:
            return "has a lone UTF-16 surrogate escape"
        if "depth limit" in text and too_deep(raw):
            return f"is nested deeper than this reader reads ({too_deep(raw)})"
    return "is not valid JSON"


def bad_line_name(why: str) -> str:
    """What a row and an export name a line that could not be read as a record, kept as
    it is: its warning's words (``bad_line_reason``'s, "is" off: "not valid JSON", "not
    valid UTF-8", "not a JSON object"), as ``skipped_line`` says them."""
    return why.removeprefix("is ")


def too_deep(raw: bytes) -> str:
    """How deep a line is read, where ``raw`` goes deeper (``indexing.deeper``: orjson
    refuses less deep a line it then reads); "" where it does not (it is refused for
    another reason: torn, say)."""
    from .indexing import MOST_LEVELS, nesting

    return f"{MOST_LEVELS:,} levels" if nesting(raw) > MOST_LEVELS else ""


KEPT = ", and was kept as it is"  # the end of a warning of a line that could not be read
# ...and of such a line, complete, that is the last of a file no writer is at (Claude
# Code's, Codex's: kept; v1's spec makes it a crash tail not read, agentgo's refuses it)
KEPT_LAST = f"{KEPT}: the last line, taken for a crash tail, not damage"
# A last line without its newline: the writer stopped mid-line (a crash tail)...
UNENDED = "has no newline: the writer left it unfinished"
# ...whose writer is gone, and which is not read (not kept), in every format
NOT_READ = ", and it is not read (a crash tail)"
UNFINISHED = f"{UNENDED}{NOT_READ}"
# v1's crash tail may have its newline: its spec's "a malformed final line"
NOT_WHOLE = "is not whole JSON"


UNFINISHED_SHOWN = 240  # bytes of an unfinished line its warning shows


def unfinished_line(line: int, size: int = 0, head: bytes = b"", ended: bool = False) -> str:
    """The warning of a crash tail in every format: a last line without its newline, once
    no writer will end it (``ended``: v1's last line that is not whole JSON, its newline
    written); given its ``size`` and first bytes (``head``), what it began with: the only
    place what was in flight is shown (no view holds the line)."""
    said = f"line {line} {UNFINISHED}"
    if ended:
        said = f"line {line} {NOT_WHOLE}: the writer left it unfinished{NOT_READ}"
    if size and head:
        text = head[:UNFINISHED_SHOWN].decode("utf-8", "replace")
        more = "…" if size > len(text.encode()) else ""
        said += f"{_BEGAN}{size:,} bytes begin {text}{more}"
    return said


def held_back(line: int, size: int) -> str:
    """What the viewer says of a last line without its newline while its writer may still
    be writing it (held back, unread): ``unfinished_yet``'s words, and where more is said
    (``unfinished_line``'s words once the writer is gone)."""
    return f"{unfinished_yet(line, size)}; w says more once it stops"


def unfinished_yet(line: int, size: int | None) -> str:
    """A last line without its newline while its writer may still be writing it (by the
    one rule: ``TranscriptFormat.writer_alive``): held back, unread, no crash tail yet."""
    sized = f" ({size:,} bytes)" if size else ""
    return (
        f"line {line} has no newline yet{sized}: held back while the writer may still be writing it"
    )


def as_of_writer(warnings: list[str], alive: bool | None) -> list[str]:
    """``warnings`` as of the file's writer (``alive``: ``TranscriptFormat.writer_alive``):
    while it may be at work, a last line without its newline is no crash tail yet
    (``unfinished_yet``, as the viewer holds it back); once it is gone, as they are."""
    if alive is False:
        return warnings
    return [_yet(warning) for warning in warnings]


def _yet(warning: str) -> str:
    line = named_line(warning)
    if not warning.startswith(f"line {line} {UNFINISHED}"):
        return warning
    began = warning.partition(_BEGAN)[2].partition(" bytes begin ")[0].replace(",", "")
    return unfinished_yet(line, int(began) if began.isdigit() else None)


_BEGAN = "; its "  # (what comes after it in ``unfinished_line``: what the line began with)


def settled_line(line: int) -> str:
    """The warning of a whole last line without its newline, read once its writer is gone
    (``TranscriptFormat.keeps_unended_line``), as a whole read of the file reads it."""
    return f"line {line} has no newline, and its writer is gone: it is whole, and is read"


def is_settled_line(warning: str) -> bool:
    """Whether ``warning`` is ``settled_line``'s: a note of a line read, no problem."""
    return warning == settled_line(named_line(warning))


def named_line(warning: str) -> int:
    """The line a "line N ..." (or "line N: ...") warning names; 0 for another."""
    head = warning.split(" ", 2)
    number = head[1].rstrip(":") if len(head) > 1 and head[0] == "line" else ""
    return int(number) if number.isdigit() else 0


def damage_line(warning: str, last: int) -> int | None:
    """The line a "line N ... kept as it is" warning names, unless it is the last line."""
    if not warning.startswith("line ") or not warning.endswith(KEPT):
        return None
    try:
        line = int(warning.split(" ", 2)[1])
    except ValueError:
        return None
    return None if line >= last else line


def first_damage(warnings: Iterable[str], last: int) -> tuple[int, str] | None:
    """The first line a warning names as damage (``damage_line``), and why it could not
    be read: what ``check`` refuses and the browser lists ``damaged``."""
    for warning in warnings:
        line = damage_line(warning, last)
        if line is not None:
            return line, warning.split(" ", 2)[-1].removesuffix(KEPT)
    return None


def torn_last_line(warnings: Iterable[str], last: int) -> bool:
    """Whether a warning says the last line (``last``) could not be read: a crash tail.
    A line before it that could not be read is damage (``first_damage``), not this."""
    return crash_tail(warnings, last) is not None


def crash_tail(warnings: Iterable[str], last: int) -> str | None:
    """The warning that says the last line (``last``) could not be read (a crash tail),
    without what the line began with; None where none says so."""
    for warning in warnings:
        kept = warning.endswith((KEPT, KEPT_LAST))
        if (kept or NOT_READ in warning) and named_line(warning) >= last:
            return warning.split(_BEGAN, 1)[0]
    return None


def damage_warning(warnings: Iterable[str], last: int) -> str | None:
    """The first warning that names damage (``damage_line``), as it is."""
    return next((w for w in warnings if damage_line(w, last) is not None), None)


__all__ = [
    "KEPT",
    "KEPT_LAST",
    "NOT_READ",
    "NOT_WHOLE",
    "UNENDED",
    "UNFINISHED",
    "UNFINISHED_SHOWN",
    "as_of_writer",
    "bad_line_reason",
    "crash_tail",
    "damage_line",
    "damage_warning",
    "first_damage",
    "joined_warning",
    "named_line",
    "settled_line",
    "skipped_line",
    "too_deep",
    "torn_last_line",
    "unfinished_line",
    "unfinished_yet",
]
