"""What a search of the conversation looks at in an item, and the search over a view.

An item is found when the folded term is in its folded search text (``fold``: any case)
(``item_search_text``, its texts apart: ``text.searched_apart``, no term found over two):
its role, kind and stub, then each part's text and name (a tool
call without text: its arguments on one line), then its text in its format's readable
words where it has them (``vocabulary.readable_of``: ``stdout: See ya!``), so that what a
view shows of it is found, in the replayed view as in the raw. ``find`` looks through a
view; a packed view (``Items``) is searched without building its items. A tool
operation is found by its own search text (``op_search_text``, ``OpSearch``: the tool
operations tab's ``/``), and a row of a list by the words it shows (``TextSearch``: the
Diff tab's ``/``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from .fold import folder, needle_of
from .json_out import dumps
from .parts import Part, WordedPart
from .patch_args import patch_of, patch_said
from .term_reading import reading
from .text import command_line, searched_apart, tool_name
from .vocabulary import Readable, as_written

if TYPE_CHECKING:
    from .model import Item, ToolOp

CHECK_EVERY = 2000  # items looked at between two looks at ``cancelled``


def args_preview(value: Any) -> str:
    """A tool call's arguments on one line."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return dumps(value).decode()


# The keys a call's main argument is under, by preference: shown first, the rest after it.
PRIMARY_ARGUMENTS = (
    "command",
    "cmd",
    "file_path",
    "pattern",
    "query",
    "url",
    "path",
    "prompt",
    "revised_prompt",  # (an image generation's: the prompt it drew, as the model reworded it)
)
PARSED_ARGUMENTS = 1 << 16  # arguments written as a JSON string are read up to this long


def op_arguments(arguments: object) -> str:
    """A call's arguments at a glance: its main argument first (a command, a path), also
    where they are written as a JSON string (v1's, Codex's ``exec_command``) or the
    command is a list of words (Codex's ``shell``: as its call reads in the conversation,
    ``bash -lc SCRIPT`` as the script, ``text.command_line``). The one form of every row
    of a call: the tool operations tab's, the conversation's, the diff's."""
    found = main_argument(arguments)
    if found is None:
        return args_preview(_parsed(arguments))
    _key, value, rest = found
    return value + (f"  {rest}" if rest else "")


def main_argument(arguments: object) -> tuple[str, str, str] | None:
    """A call's main argument (``PRIMARY_ARGUMENTS``' first it has; a patch's files, key
    ``patch``): its key, its value and the rest at a glance (``args_preview``, "" for
    none); None where it has none."""
    arguments = _parsed(arguments)
    patch = patch_of(arguments)
    if patch is not None:  # (``apply_patch``'s: by the files it touches, not its JSON)
        text, under = patch
        rest = (
            {k: v for k, v in arguments.items() if k != under}
            if isinstance(arguments, dict)
            else None
        )
        return "patch", patch_said(text), args_preview(rest) if rest else ""
    if isinstance(arguments, dict):
        for key in PRIMARY_ARGUMENTS:
            value = arguments.get(key)
            if isinstance(value, list) and value:
                value = command_line(value)
            if isinstance(value, str) and value:
                rest = {k: v for k, v in arguments.items() if k != key}
                return key, value, args_preview(rest) if rest else ""
    return None


def _parsed(arguments: object) -> object:
    """Arguments written as a JSON string (up to ``PARSED_ARGUMENTS`` long), parsed."""
    if isinstance(arguments, str) and arguments[:1] == "{" and len(arguments) < PARSED_ARGUMENTS:
        with contextlib.suppress(orjson.JSONDecodeError):
            return orjson.loads(arguments)
    return arguments


def call_arguments(part: Part) -> str:
    """A tool call's arguments as the conversation's folded row shows them: their main
    argument first (``op_arguments``, of the arguments as called; its text where it has
    none, a lazy part's head where they cannot be read again)."""
    data = part.data
    return op_arguments(data) if data is not None else part.head


def call_said(part: Part) -> str:
    """A tool call on one line, as the conversation names it: ``→ fs_read a.py`` (what
    identifies a message that holds only calls)."""
    return f"→ {tool_name(part.name)} {call_arguments(part)}"


def search_text(
    role: str, kind: str, stub: str | None, parts: Sequence[Part], said: str | None = None
) -> str:
    """An item's search text, from its fields (what ``item_search_text`` reads); ``said``:
    its text in its format's readable words (None: it has none)."""
    texts = [role, kind, stub or ""]
    for part in parts:
        texts.append(part.text)
        if part.name:
            texts.append(part.name)
        if part.call_id:  # (a call's id and the id its answer names: shown beside them)
            texts.append(part.call_id)
        if part.kind == "tool-call":
            written = part.text  # (its arguments as written, and as its row shows them)
            if not written:
                written = args_preview(part.data)
                texts.append(written)
            shown = op_arguments(part.data) if part.data is not None else written
            if shown != written:
                texts.append(shown)
        elif type(part) is WordedPart:  # (its row's words, beside what it says as written)
            texts.append(part.words)
    if said is not None:
        texts.append(said)
    return searched_apart(texts)


def item_search_text(item: Item, readable: Readable = as_written) -> str:
    """What a search of an item looks at: its fields as written, and its text in
    ``readable``'s words (its format's: ``vocabulary.readable_of``)."""
    return search_text(item.role, item.kind, item.stub, item.parts, readable(item))


def find(
    items: Sequence[Item],
    term: str,
    start: int = 0,
    cancelled: Callable[[], bool] | None = None,
    stop: int | None = None,
    readable: Readable = as_written,
) -> list[int] | None:
    """The indexes, from ``start`` to ``stop`` (None: the end), of the items whose search
    text holds ``term`` (both folded; ``readable``: their format's readable words, as
    ``item_search_text`` reads them); None when ``cancelled`` said so (asked every
    ``CHECK_EVERY`` items)."""
    from .column_items import Items

    needle = needle_of(term)
    if isinstance(items, Items):
        return items.find(needle, start, cancelled, stop, readable)
    found: list[int] = []
    folded = folder(needle, apart=True)
    end = len(items) if stop is None else min(stop, len(items))
    for index in range(start, end):
        if index % CHECK_EVERY == 0 and cancelled is not None and cancelled():
            return None
        if needle in folded(item_search_text(items[index], readable)):
            found.append(index)
    return found


def op_search_text(op: ToolOp, shown: bool = True) -> str:
    """A tool operation's search text: its tool, call id, state, arguments on one line
    (as written, and as its row shows them: ``op_arguments``; not ``shown``: as written
    alone), result (read again from the file where it is kept there) and what its lines
    say of its end (``ToolOp.end_said``: v1's error)."""
    result = op.result
    written = args_preview(op.arguments)
    row = op_arguments(op.arguments) if shown else written
    return searched_apart(
        (
            op.tool or "",
            op.call_id or "",
            op.label,
            written,
            row if row != written else "",
            result if isinstance(result, str) else "",
            op.end_said(),
        )
    )


class OpSearch:
    """A search for ``term`` (any case) in tool operations (``op_search_text``)."""

    def __init__(self, term: str) -> None:
        self.needle = needle_of(term)

    def find(
        self,
        ops: Sequence[ToolOp],
        keys: Sequence[int],
        cancelled: Callable[[], bool] | None = None,
    ) -> list[int] | None:
        """The positions in ``keys`` (indexes of ``ops``) of the operations that hold the
        term; None when ``cancelled`` said so (asked every ``CHECK_EVERY``)."""
        needle = self.needle
        # (the row's form parsed only where it may hold what the arguments as written
        # do not: the same operations found; parsing every one's slowed a search of a
        # 30 MB v1 file's 4,623 by a fifth, 0.26 -> 0.32 s)
        shown = reading(needle).call_lines
        folded = folder(needle, apart=True)
        return positions(
            keys, lambda index: needle in folded(op_search_text(ops[index], shown)), cancelled
        )


class TextSearch:
    """A search for ``term`` (any case) in what a list's rows say: ``text_of(source, key)``
    is row ``key``'s text (a diff's row: its words, each text whole; ``apart``: texts
    joined by ``text.searched_apart``)."""

    def __init__(self, term: str, text_of: Callable[[Any, int], str], apart: bool = False) -> None:
        self.needle = needle_of(term)
        self.text_of = text_of
        self.apart = apart

    def find(
        self, source: Any, keys: Sequence[int], cancelled: Callable[[], bool] | None = None
    ) -> list[int] | None:
        """The positions in ``keys`` of the rows whose text holds the term; None when
        ``cancelled`` said so (asked every ``CHECK_EVERY``)."""
        needle, text_of = self.needle, self.text_of
        folded = folder(needle, self.apart)
        return positions(keys, lambda key: needle in folded(text_of(source, key)), cancelled)


def positions(
    keys: Sequence[int],
    holds: Callable[[int], bool],
    cancelled: Callable[[], bool] | None = None,
    every: int = CHECK_EVERY,
) -> list[int] | None:
    """The positions in ``keys`` of those that ``holds``; None when ``cancelled`` said so
    (asked every ``every`` keys): a tab's own search, a stretch of its rows at a time."""
    found: list[int] = []
    for position, key in enumerate(keys):
        if position % every == 0 and cancelled is not None and cancelled():
            return None
        if holds(key):
            found.append(position)
    return found


__all__ = [
    "CHECK_EVERY",
    "OpSearch",
    "TextSearch",
    "args_preview",
    "find",
    "item_search_text",
    "op_search_text",
    "positions",
    "search_text",
]
