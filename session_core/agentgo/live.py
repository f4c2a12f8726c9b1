"""An agentgo view kept up to date from ``follow`` updates."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import orjson

from ..follow_update import FollowUpdate, parse_line
from ..line_warnings import named_line
from ..update_notes import UpdateNotes
from .reader import StrictReader, skim_request
from .view import AgentGoView


class LiveAgentGo(UpdateNotes):
    """Like ``LiveTranscript``, for agentgo-v1: a rule broken in a live file is a warning."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.view = AgentGoView()
        self.checker = StrictReader(self.path)
        # Told of every record the view took, after it took it (the record, its span).
        self.fed: Callable[[dict[str, Any], int], None] | None = None

    def apply(self, update: FollowUpdate) -> bool:
        """Apply one update (parsed records, or raw lines parsed here one at a time, so
        that no batch of parsed records is ever alive at once); True when it reset."""
        if update.reset:
            self.view = AgentGoView()
            self.checker = StrictReader(self.path)
        self.note(update)
        view = self.view
        if update.lines:  # (every line read, those that are no record too)
            view.last_line = max(view.last_line, update.lines[-1])
        if update.source is not None:
            view.records.source = update.source  # the spans below are into it
        # (a compressed file's spans are into its unpacked copy, which no source reads
        # again: its records are kept whole, a request not skimmed)
        spans = update.spans if update.source is not None else ()
        if update.raw:
            skipped: list[str] = []  # as ``follow`` would have said them, before the rest
            broken: list[str] = []
            loads = orjson.loads
            for at, (raw, line) in enumerate(zip(update.raw, update.lines, strict=True)):
                span = spans[at] if spans else 0
                record = skim_request(raw) if span else None  # read again by span
                if record is None:
                    try:
                        record = loads(raw)
                    except orjson.JSONDecodeError:
                        # (a lone surrogate mended, or said why, a blank line too:
                        # the format's ``blank_lines_ok`` is False)
                        record = parse_line(bytes(raw), line, skipped, blank_ok=False)
                        if record is None:
                            continue
                if type(record) is not dict:
                    parse_line(bytes(raw), line, skipped)  # says why (or nothing: blank)
                    continue
                self._apply(record, line, span, broken)
        else:
            skipped, broken = [], []
            for at, (record, line) in enumerate(zip(update.envelopes, update.lines, strict=True)):
                self._apply(record, line, spans[at] if spans else 0, broken)
        # What follow said, what was skipped here and what broke a rule, in the lines'
        # order: the same however the file's growth cut its updates (a reset's note first).
        update.withdraw_from(view.warnings)
        view.warnings.extend(sorted([*update.warnings, *skipped, *broken], key=named_line))
        return update.reset

    def apply_record(self, record: dict[str, Any], line: int, span: int = 0) -> list[str]:
        """One parsed record (``span``: where it is in ``view.records.source``, 0: keep
        it); the rules it broke, as warnings (the caller keeps them)."""
        warnings: list[str] = []
        self._apply(record, line, span, warnings)
        return warnings

    def _apply(self, record: dict[str, Any], line: int, span: int, warnings: list[str]) -> None:
        checker = self.checker
        why = checker.said(record, line)
        if why is not None:
            warnings.append(f"line {line}: {why}")
            if checker.session_id is None:
                return  # nothing is a session before its session_start
            # (else shown all the same: a damaged file is shown as it is)
        self.view.feed(record, line, span)
        if self.fed is not None:
            self.fed(record, span)
