"""A subagent of a session: its own transcript, linked from the call that started it
(its file, or its lines in the parent's file), as the neutral model holds it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .usage_totals import Usage


@dataclass(slots=True)
class Subagent:
    """A subagent's own transcript, linked from the call that started it: its own file,
    or (``line``) its lines in the parent's file, from that line on."""

    id: str
    path: str | None  # None: its file is not there (or, with ``line``, it has none)
    call_id: str | None = None
    description: str | None = None
    usage: Usage = field(default_factory=Usage)
    messages: int = 0
    line: int | None = None  # in the parent's own file, from this line (1.0.x)
    read: bool = False  # its own file was read for its usage and messages
    unnamed: bool = False  # its call's, named by no line nor prompt: ``id`` the call's
    left_out: str | None = None  # the line its file's read left out (a crash tail, damage)
    # A resumed file's: started by a call copied from that earlier session (its file is
    # that session's, in that session's folder)
    copied_from: str | None = None
    # its call's duration where that call is another subagent's (not among this file's
    # operations): the writer's own, as that file's result says it
    took: float | None = None
    # Its id names no file (a path separator in it, ``.``, ``..``): none was looked for, so
    # none is missing
    no_file_name: bool = False
    # Its folder could not be read (``Transcript.subagents_unlisted``): whether its file
    # is there is not known
    folder_unread: bool = False

    @property
    def in_file(self) -> bool:
        """Its lines are the parent file's: its usage is in the file's own already."""
        return self.line is not None

    @property
    def where(self) -> str:
        """Where its lines are: its file's path, this file's line, or that it has none."""
        if self.line is not None:  # (0: not known yet, the file's end read alone)
            return f"this file, line {self.line:,}" if self.line else "this file"
        if self.path is not None:
            return self.path
        if self.copied_from is not None and not self.unnamed:
            return f"the earlier session's: {self.no_file}"
        return self.no_file

    @property
    def no_file(self) -> str:
        """Why it has no file (its ``path`` None): not known, no file name, its folder
        unread, not there."""
        if self.unnamed:
            return "its file is not known"
        if self.no_file_name:
            return "its id is not a file name, so no file was looked for"
        if self.folder_unread:
            return "its folder cannot be read, so whether its file is there is not known"
        return "its file is not there"

    @property
    def lines_read(self) -> bool:
        """Its messages are known: its file read, or its lines the file's own."""
        return self.read or self.in_file

    @property
    def counted(self) -> bool:
        """Its usage is in the session's with its subagents (its file read and reporting
        some usage, or its lines the file's own); not when its file is missing, over the
        reader's bound, or reported no usage (its usage unknown: nothing added, not 0)."""
        return self.in_file or (self.read and self.usage.known)

    @property
    def earlier(self) -> bool:
        """Its call was copied from an earlier session and its file is not read: that
        session's subagent, not one missing from this file's usage."""
        return self.copied_from is not None and not self.counted

    @property
    def in_part(self) -> bool:
        """Its usage is counted, and is a lower bound: its file's read left a line out."""
        return self.left_out is not None and self.counted

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "path": self.path,
            "call-id": self.call_id,
            "description": self.description,
            # (its file missing or not read: its messages unknown, not 0)
            "messages": self.messages if self.lines_read else None,
            "usage": self.usage.to_json(),
            "usage-counted": self.counted,
        }
        if self.line is not None:
            out["line"] = self.line
        if self.unnamed:  # (only then: every other subagent's keys as were)
            out["agent-known"] = False
        if self.left_out is not None:  # (likewise)
            out["read-in-part"] = self.left_out
        if self.copied_from is not None:  # (likewise)
            out["copied-from"] = self.copied_from
        return out


__all__ = ["Subagent"]
