"""Records of a type a format's spec does not name: kept and shown raw, never dropped.

Every spec says so (v1: "unknown type -> kept in events"; Claude Code and Codex: what the
reader does not understand it keeps and shows raw; agentgo: "anything else"). Beside the
raw view's row of each, every format's ``replay`` lists them under ``other-records`` (each
with its line, its type and the record as written) and ``check`` counts them, in the
words below: one rule, whichever format read them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .indexed import Indexed
from .text import count


@dataclass(frozen=True, slots=True)
class OtherRecord:
    """One record of a type its format does not name (``type``: None where it has none),
    as written: a line's record, or (a Codex response item of such a type, in a line of
    a known one) the item."""

    line: int
    type: str | None
    record: Any

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "type": self.type, "record": self.record}


def others_said(number: int) -> list[str]:
    """A check note's words for them: ``1 record of a type the spec does not name (kept
    raw)``; none: nothing said."""
    if not number:
        return []
    return [f"{count(number, 'record')} of a type the spec does not name (kept raw)"]


class OthersWhenAsked(Indexed[OtherRecord]):
    """A format's such records found by ``find`` when first asked for (a pass over its
    records: a snapshot that no one asks makes none, and an open is not slowed)."""

    __slots__ = ("_find", "_found")

    def __init__(self, find: Callable[[], list[OtherRecord]]) -> None:
        self._find: Callable[[], list[OtherRecord]] | None = find
        self._found: list[OtherRecord] = []

    def _all(self) -> list[OtherRecord]:
        if self._find is not None:
            self._found, self._find = self._find(), None
        return self._found

    def __len__(self) -> int:
        return len(self._all())

    def _one(self, index: int) -> OtherRecord:
        return self._all()[index]
