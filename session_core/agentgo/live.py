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
        self.exists = True
        self.size = 0

    def apply(self, update: FollowUpdate) -> bool:
        if update.reset:
            self.view = AgentGoView()
            self.checker = StrictReader(self.path)
            self.resets += 1
        self.exists = update.exists
        self.size = max(update.size, 0)
        view = self.view
        view.warnings.extend(update.warnings)
        for record, line in zip(update.envelopes, update.lines, strict=True):
            try:
                self.checker.check(record, line)
            except TranscriptError as err:
                view.warnings.append(f"line {line}: {err.reason}")
                if self.checker.session_id is None:
                    continue  # nothing is a session before its session_start
                seq = record.get("seq")
                if type(seq) is int:
                    self.checker.seq = seq  # one warning per break, not one per later line
            view.feed(record, line)
        return update.reset
