"""Texts an item's parts are drawn with, shared by the conversation and a tool
operation's detail: a value as JSON, a long text cut with what is left said, a blank
text said, and whether the parts drawn hold a search's needle."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson
from rich.cells import cell_len

from session_core.fold import holds
from session_core.item_heights import blank_head
from session_core.json_out import json_text
from session_core.model import Item, Part
from session_core.patch_args import as_patch
from session_core.search import args_preview
from session_core.text import cost_text, count

from ..safe import clip, one_line


def as_json(value: Any) -> str:
    """A structured value as indented JSON (strings as they are)."""
    if isinstance(value, str):
        return value
    return json_text(value, orjson.OPT_INDENT_2)


def arguments_shown(arguments: Any) -> str:
    """A call's arguments shown whole: a patch (``apply_patch``'s) as its lines, any other
    arguments beside it after them; anything else as ``as_json``."""
    patch = as_patch(arguments)
    if patch is None:
        return as_json(arguments)
    text, rest = patch
    return text + (f"\n{as_json(rest)}" if rest else "")


def image_placeholder(what: str, width: int, word: str = "image") -> str:
    """``[image: what]`` in ``width`` cells (``word``: ``audio`` for an audio clip's
    address), its closing bracket kept: ``what`` is cut inside
    it, and one in brackets of its own (a redacted URL, ``[REDACTED_IMAGE_URL len=…
    sha=…]``) inside those too (cut after them, it read as an ``[image:`` left open).
    A reader's own words for an image (``[image image/png]``, ``[document …]``, ``[audio
    audio/wav]``) are shown as they are (``[image: [image]]`` said it twice)."""
    flat = one_line(what)
    if not flat:
        return f"[{word}]"
    if _SAID.match(flat):
        return _closed(flat, max(1, width))
    return f"[{word}: {_closed(flat, max(1, width - len(f'[{word}: ]')))}]"


def media_word(block_type: str | None) -> str:
    """What an image part holds, by its block's type: ``audio`` (Codex's ``input_audio``,
    a dynamic tool's ``inputAudio``), ``document`` (Claude Code's, a PDF), else ``image``."""
    kind = (block_type or "").lower()
    return "audio" if kind.endswith("audio") else "document" if kind == "document" else "image"


# What a reader says of an image, document or audio clip it keeps no bytes of
# (``blocks.image_text``, Codex's ``image_text``).
_SAID = re.compile(r"\[(?:image|document|audio)[ \]]")


def _closed(text: str, room: int) -> str:
    """``text`` in ``room`` cells, one in brackets cut inside them."""
    if text.startswith("[") and text.endswith("]") and 2 < room < cell_len(text):
        return clip(text[:-1], room - 1) + "]"
    return clip(text, room)


def capped(text: str, limit: int, rest: str) -> str:
    """``text`` up to ``limit`` characters, then how many more and where they are
    (``rest``: "c copies all")."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… {count(len(text) - limit, 'more character')} ({rest})"


def blank_note(text: str) -> str:
    """What a text of only whitespace is, said (drawn, it is blank lines or nothing)."""
    return "(empty text)" if not text else f"(blank text: {one_line(repr(text), 40)})"


def parts_hold(parts: Sequence[Part], needle: str) -> bool:
    """Whether what these parts draw expanded holds ``needle`` (folded)."""
    for part in parts:
        drawn = part.text or (args_preview(part.data) if part.kind == "tool-call" else "")
        if holds(drawn, needle) or (part.name and holds(part.name, needle)):
            return True
    return False


def item_facts(item: Item) -> list[str]:
    """An item's facts: its line (first), model, time, tokens and cost."""
    facts = [f"line {item.line:,}"] if item.line else []
    if item.lines > 1:  # (a count, not a range: a response's lines may be apart)
        # (no line number while the file's end is shown alone: its lines not counted yet)
        where = f" from line {item.line:,}" if item.line else ""
        facts[-1:] = [f"{item.lines:,} lines{where}"]
    if item.model:
        facts.append(one_line(item.model, 40))
    if item.ts:
        facts.append(one_line(item.ts, 30))
    usage = item.usage
    if usage is None:
        return facts
    if usage.tokens is not None:
        facts.append(f"{usage.tokens:,} tok")
    missing = usage.unreported()  # (a response known in part: the rest unknown, not 0)
    facts += [missing] if missing else []
    if usage.cost is not None:
        facts.append(cost_text(usage.cost))
    return facts


def is_cut(line: str, room: int) -> bool:
    """Is ``line`` cut to fit ``room`` cells (ending in its own ``…``)? (Past what
    ``one_line`` reads of it, it is: no 50 MB line is measured whole.)"""
    return len(line) > 4 * room + 64 or cell_len(one_line(line)) > room


def shown_runs(part: Part, room: int, lines: int) -> list[str]:
    """A folded text part's lines drawn whole (``lines`` of its head, each ``room``
    cells at most, as ``ItemParts`` draws them), as written: each run of such lines one
    after another, joined by their own newlines (a cut line, or one the head ends on
    before the text does, ends a run). A term a search finds in one is on screen,
    across lines as drawn or not (a CRLF's ``␍⏎``, a tab drawn as spaces)."""
    if part.kind != "text" or blank_head(part.head):
        return []
    head = part.head.split("\n", lines)
    whole = len(head) > lines or part.size <= len(part.head)  # (its last line ends)
    runs: list[list[str]] = [[]]
    for at, line in enumerate(head[:lines]):
        if is_cut(line, room) or (at == len(head) - 1 and not whole):
            runs.append([])
        else:
            runs[-1].append(line)
    return ["\n".join(run) for run in runs if run]


def result_said(part: Part, room: int) -> tuple[str, bool, bool]:
    """A tool result's folded row past its label: its first lines on one line
    (``row_head``: a plain file's result is lazy, kept as that head, where its ``.zst``'s
    is whole, and their rows must be the same), whether `` …`` follows (more does, and no
    cut already ends on its own ``…``), and whether what it says is a note (its first
    lines blank: a blank result said so, else that more follows)."""
    head, more = part.row_head()
    if not head.strip():
        # (more: read whole to tell whether it is blank too, up to BLANK_READ)
        whole = head if not more else part.text if part.size <= BLANK_READ else None
        if whole is not None and not whole.strip():
            return blank_note(whole), False, True
        return "(blank lines, then more: enter)", False, True
    head = head.removesuffix("\n") if more else head  # (``preview``'s line that says more)
    said = one_line(head, room)
    return said, more and not said.endswith("…"), False


BLANK_READ = 1 << 16  # a folded text whose head is blank is read whole up to this, to tell

__all__ = [
    "BLANK_READ",
    "as_json",
    "blank_note",
    "capped",
    "is_cut",
    "item_facts",
    "parts_hold",
    "result_said",
]
