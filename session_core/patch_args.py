"""A call whose arguments are a patch in ``apply_patch``'s envelope (Codex's: a
``custom_tool_call``'s input, or a ``function_call``'s ``{"input": PATCH}``): read by the
files it touches at a glance, and as its lines where it is shown whole (not as a JSON
string of ``\\n`` escapes)."""

from __future__ import annotations

from typing import Any

import orjson

BEGIN = "*** Begin Patch"
# The lines of the envelope that name a file (a move names where it goes too).
_FILE_LINES = ("*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: ")
_PATCH_KEYS = ("input", "patch")  # where a function call's arguments hold it
SHOWN_FILES = 3  # files named at a glance (then "+N more")


def patch_of(arguments: Any) -> tuple[str, str | None] | None:
    """The patch a call's arguments are, and the key it is under (None: they are the
    patch itself); None where they are no patch."""
    if isinstance(arguments, str):
        return (arguments, None) if arguments.lstrip()[: len(BEGIN)] == BEGIN else None
    if isinstance(arguments, dict):
        for key in _PATCH_KEYS:
            value = arguments.get(key)
            if isinstance(value, str) and value.lstrip()[: len(BEGIN)] == BEGIN:
                return value, key
    return None


def patch_files(patch: str) -> list[str]:
    """The files a patch touches, in its order, each once."""
    found: dict[str, None] = {}
    for line in patch.splitlines():
        if line.startswith("*** ") and line.startswith(_FILE_LINES):
            name = line.split(": ", 1)[1].strip()
            if name:
                found[name] = None
    return list(found)


def patch_said(patch: str) -> str:
    """A patch at a glance: the files it touches (``src/app.py, docs/NEW.md``), or
    ``(a patch of no file)``."""
    files = patch_files(patch)
    if not files:
        return "(a patch of no file)"
    more = len(files) - SHOWN_FILES
    return ", ".join(files[:SHOWN_FILES]) + (f" (+{more:,} more)" if more > 0 else "")


def as_patch(arguments: Any) -> tuple[str, dict[str, Any]] | None:
    """The patch a call's arguments are (a JSON text of them read first: a function
    call's as written) and its other arguments beside it; None where they are no patch.
    Shown whole (the viewer's expanded row and detail, the exports) as its lines."""
    if isinstance(arguments, str) and arguments[:1] == "{":
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return None
    found = patch_of(arguments)
    if found is None:
        return None
    text, under = found
    rest = {k: v for k, v in arguments.items() if k != under} if isinstance(arguments, dict) else {}
    return text, rest


__all__ = ["BEGIN", "as_patch", "patch_files", "patch_of", "patch_said"]
