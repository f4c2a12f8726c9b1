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
from session_core.json_out import json_text
from session_core.model import Part
from session_core.search import args_preview
from session_core.text import count

from ..safe import clip, one_line


def as_json(value: Any) -> str:
    """A structured value as indented JSON (strings as they are)."""
    if isinstance(value, str):
        return value
    return json_text(value, orjson.OPT_INDENT_2)


def image_placeholder(what: str, width: int) -> str:
    """``[image: what]`` in ``width`` cells, its closing bracket kept: ``what`` is cut inside
    it, and one in brackets of its own (a redacted URL, ``[REDACTED_IMAGE_URL len=…
    sha=…]``) inside those too (cut after them, it read as an ``[image:`` left open).
    A reader's own words for an image (``[image image/png]``, ``[document …]``) are shown
    as they are (``[image: [image]]`` said it twice)."""
    flat = one_line(what)
    if not flat:
        return "[image]"
    if _SAID.match(flat):
        return _closed(flat, max(1, width))
    return f"[image: {_closed(flat, max(1, width - len('[image: ]')))}]"


# What a reader says of an image or document it keeps no bytes of (``blocks.image_text``).
_SAID = re.compile(r"\[(?:image|document)[ \]]")


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


__all__ = ["as_json", "blank_note", "capped", "parts_hold"]
