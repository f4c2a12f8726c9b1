"""What every live reader (``LiveModel``, ``LiveTranscript``, ``LiveAgentGo``) keeps of the
updates it applies, kept one way for all."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .follow_update import FollowUpdate


class UpdateNotes:
    """What every live reader keeps of the updates it applies: how many resets, whether
    the file is there, its size (the viewer's header says them)."""

    resets: int = 0
    exists: bool = True
    size: int = 0

    def note(self, update: FollowUpdate) -> None:
        if update.reset:
            self.resets += 1
        self.exists = update.exists
        if update.problem is not None and not (update.initial or update.lines):
            return  # (the file could not be read: its size is not known, the last stands)
        self.size = max(update.size, 0)


__all__ = ["UpdateNotes"]
