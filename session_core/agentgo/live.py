"""An agentgo view kept up to date from ``follow`` updates."""

from __future__ import annotations

import os

from ..errors import TranscriptError
from ..following import FollowUpdate
from .reader import StrictReader
from .view import AgentGoView


class LiveAgentGo:
    """Like ``LiveTranscript``, for agentgo-v1: a rule broken in a live file is a warning."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.view = AgentGoView()
        self.checker = StrictReader(self.path)
        self.resets = 0
        self._resync = False
        self.exists = True
        self.size = 0

    def apply(self, update: FollowUpdate) -> bool:
        if update.reset:
            self.view = AgentGoView()
            self.checker = StrictReader(self.path)
            self._resync = False
            self.resets += 1
        self.exists = update.exists
        self.size = max(update.size, 0)
        view = self.view
        view.warnings.extend(update.warnings)
        checker = self.checker
        for record, line in zip(update.envelopes, update.lines, strict=True):
            seq = record.get("seq")
            if self._resync and record.get("session_id") == checker.session_id and type(seq) is int:
                # The first line of this session after a break is the new baseline:
                # one warning per break, not one per later line.
                checker.seq = seq - 1
                self._resync = False
            try:
                checker.check(record, line)
            except TranscriptError as err:
                view.warnings.append(f"line {line}: {err.reason}")
                if checker.session_id is None:
                    continue  # nothing is a session before its session_start
                self._resync = True  # shown all the same: a damaged file is shown as it is
            view.feed(record, line)
        return update.reset
