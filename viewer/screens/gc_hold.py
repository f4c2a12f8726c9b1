"""A file load's pause of the cyclic collector (``gc_pause``), frozen when it ends."""

from __future__ import annotations

import gc

from session_core import gc_pause


class GcHold:
    """One worker's pause of the cyclic collector (``gc_pause``) while it loads a file.

    When the load ends, what it kept is frozen: it lives as long as the file is
    shown, and later collections need not rescan it.
    """

    def __init__(self) -> None:
        self.held = False

    def set(self, hold: bool) -> None:
        if hold == self.held:
            return
        self.held = hold
        if hold:
            gc_pause.hold()
        else:
            gc.freeze()
            gc_pause.release()


__all__ = ["GcHold"]
