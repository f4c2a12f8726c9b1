"""A resumed session's file: the history it begins with, copied from the session(s) it
continues.

Claude Code's ``--resume`` / ``--continue`` writes a new file that starts with the
earlier session's lines (same uuids, same responses, their own old ``sessionId``), then
the new lines with the new id. The file's usage holds the copies (they are its lines);
``Resumed`` says how much of it they are, and whose, so that a total over several files
(the browser's footer) counts a copied response once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .text import count
from .usage_totals import Usage


@dataclass(slots=True)
class Resumed:
    """``own``: the file's own session id; ``copied``: each earlier session's id, in the
    order its lines come, and the usage of this file's responses copied from it."""

    own: str
    copied: dict[str, Usage] = field(default_factory=dict)
    forked: set[str] = field(default_factory=set)  # the sources a fork copied (``forkedFrom``)

    @property
    def sources(self) -> list[str]:
        return list(self.copied)

    @property
    def usage(self) -> Usage:
        """The copied lines' usage, every source's together."""
        return Usage.total(self.copied.values())

    @property
    def how(self) -> str:
        """How the copies were made: ``resumed``, ``forked`` (``/branch``), or both."""
        copies = [s in self.forked for s in self.copied] or [bool(self.forked)]
        return how_copied(copies)

    def json_parts(self) -> list[tuple[str, Any]]:
        """The replay JSON's keys: ``resumed-from`` (ids), ``usage-copied`` (``usage``'s
        shape); a fork's also ``forked-from`` (those of its sources it was forked from)."""
        parts = [("resumed-from", self.sources), ("usage-copied", self.usage.to_json())]
        if self.forked:  # (only then: a resumed file's keys as they were)
            parts.append(("forked-from", [s for s in self.copied if s in self.forked]))
        return parts

    def said(self, as_own: bool = False) -> str:
        """``2,320 tok of it, 2 responses, copied from session 44444444…: resumed`` (a
        fork's: ``…: forked``)
        (copied responses whose usage is unknown said so, never as 0); ``as_own``: and
        the file's own id (``resumed as 55555555…``)."""
        return " ".join(self.said_parts(as_own))

    def said_parts(self, as_own: bool = False) -> list[str]:
        """``said``'s words in the parts a narrow line may break between (never inside a
        number or an id: the header cut ``…: resum…`` at 80 columns), joined by spaces."""
        usage = self.usage
        ids = [f"{short_id(s)}," for s in self.copied] or [","]  # (none: not made so)
        ids[-1] = ids[-1][:-1] + ":"
        ids[0] = f"session{'s' if len(self.copied) > 1 else ''} {ids[0]}"
        how = self.how
        resumed = f"{how} as {short_id(self.own)}" if as_own else how
        if not usage.responses:
            return ["its first lines copied", "from", *ids, resumed + ",", "no response among them"]
        many = count(usage.responses, "response")
        if usage.tokens is None:
            head = [f"{many} of it,", "their usage unknown,"]
        else:
            head = [f"{usage.tokens:,} tok of it,", f"{many},"]
        return [*head, "copied from", *ids, resumed]


def how_copied(forked: Iterable[bool]) -> str:
    """How copies were made, each copy's source forked from or not (one word for every
    surface: the header, ``check``, the exports, the browser's footer): ``resumed``,
    ``forked``, or ``resumed and forked``."""
    kinds = set(forked)
    if True not in kinds:
        return "resumed"
    return "resumed and forked" if False in kinds else "forked"


def short_id(session: str) -> str:
    """A session id's first block (``44444444…``): enough to tell sessions apart."""
    head = session.split("-", 1)[0]
    return head + "…" if len(head) < len(session) else session


__all__ = ["Resumed", "how_copied", "short_id"]
