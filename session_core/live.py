"""A replay view kept up to date from ``follow`` updates, never re-reading the file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import orjson

from . import indexing
from .block_replay import BlockPass, pieces
from .errors import TranscriptError
from .follow_update import FollowUpdate, parse_line
from .formats import Format
from .reader import check_envelope, is_blank
from .replay import ReplayState
from .update_notes import UpdateNotes
from .utf8 import BlockLines


class LiveTranscript(UpdateNotes):
    """The replayed state of a file being followed (format v1; a file of another format
    is refused at its first update: its format's live model follows it,
    ``formats.by_name(update.format).live(path)``).

    Feed it every ``FollowUpdate`` in order. A line that breaks a replay
    rule in a live file is reported in ``state.warnings`` and skipped (a
    viewer shows damage, it does not refuse it); with ``keep_refused`` (the
    viewer's raw view), a line of raw updates is kept as it is too, applied to
    nothing (``ReplayState.keep_refused``). A reset starts a new state.
    """

    def __init__(self, path: str | os.PathLike[str], *, keep_refused: bool = False) -> None:
        self.path = os.fspath(path)
        self.keep_refused = keep_refused
        self.state = self._new_state()
        self.format: Format | None = None
        self._block: BlockPass | None = None  # (the state's: made again with a new one)

    def _new_state(self) -> ReplayState:
        state = ReplayState(self.path)
        state.tool_ops.number_now = True  # (its facts number the calls as read)
        return state

    def apply(self, update: FollowUpdate) -> bool:
        """Apply one update; True when it reset the view (rebuild everything shown)."""
        if update.reset:
            self.state = self._new_state()
            self.format = None  # the new content may be another format (or none yet)
        if update.format is not None:
            self._refuse_other(update.format, update.lines)
        self.note(update)
        if update.format is not None:
            self.format = update.format
        state = self.state
        update.withdraw_from(state.warnings)
        state.warnings.extend(update.warnings)
        # Lines the file can give back again are kept as their spans, not their dicts.
        events = state.events
        if events.source is None and not events:
            events.source = update.source
        spans = update.spans
        count = len(update.raw) or len(update.envelopes)
        if events.source is None or update.source is not events.source:
            spans = []
        if len(spans) != count:
            spans = [0] * count
        if update.raw:
            self._apply_raw(update, spans)
            return update.reset
        for envelope, line, span in zip(update.envelopes, update.lines, spans, strict=True):
            self._feed(envelope, line, span or None)
        return update.reset

    def _refuse_other(self, name: Format, lines: Sequence[int]) -> None:
        """One clear refusal of a file of another format (each of its lines read as a v1
        envelope of no version: a warning apiece, and nothing replayed)."""
        from .formats.v1.model import NAME

        if name != NAME:
            raise TranscriptError(
                f"is {name}, not transcript-v1: LiveTranscript "
                "replays transcript-v1 alone; follow any format with its live model, "
                "session_core.formats.by_name(update.format).live(path)",
                path=self.path,
                line=lines[0] if lines else None,
            )

    def _feed(
        self,
        envelope: dict[str, Any],
        line: int,
        keep: bytes | int | None,
        raw: bytes | memoryview = b"",
    ) -> None:
        """Apply one envelope; ``keep`` is what the state keeps of it instead of the dict;
        ``raw``, its line where at hand (a refusal quotes a value as the line wrote it)."""
        state = self.state
        try:
            check_envelope(envelope, line, self.path, raw)
            if not state.event_lines and envelope["type"] != "session-meta":
                raise TranscriptError(
                    "is not session-meta; a transcript starts with one",
                    path=self.path,
                    line=line,
                )
            state.feed(envelope, line, keep)
        except TranscriptError as err:
            state.warnings.append(f"line {line}: {err.reason} (not applied)")
            if self.keep_refused and keep is not None:
                state.keep_refused(line, keep)

    def _apply_raw(self, update: FollowUpdate, spans: list[int]) -> None:
        """Parse and apply each line in turn: its dict is dropped (the state keeps its
        span) before the next is parsed, so a batch never lives parsed all at once.

        Runs of message, dispatch and settle lines are taken at once, as a file replay
        takes them (``block_replay``: the index pass's fields decoded natively, applied as
        columns); the lines between, and a batch it cannot plan, one at a time."""
        state = self.state
        block = self._block
        if block is None or block.state is not state:
            block = self._block = BlockPass(state, indexing.FACTS.decode, True)
        raws, lines = update.raw, update.lines
        started = state.event_lines  # empty until the session-meta line is applied
        runs = block.plan(raws, not started, BlockLines().ok)
        for first, stop, at_once in pieces(runs, len(raws)):
            if at_once and started and block.apply(first, stop, lines, spans):
                continue
            self._apply_lines(raws[first:stop], lines[first:stop], spans[first:stop])

    def _apply_lines(
        self, raws: Sequence[bytes | memoryview], lines: Sequence[int], spans: Sequence[int]
    ) -> None:
        """Apply these lines one at a time: a message, dispatch or settle line through the
        index pass (``indexing``: only the fields replay and the views keep, decoded
        natively); anything else, or anything the index pass does not take in full, the
        plain way."""
        loads = orjson.loads
        state = self.state
        warnings = state.warnings
        feed = state.feed
        feed_indexed = state.feed_indexed
        decode = indexing.FACTS.decode
        failed = indexing.IndexError_
        indexed = indexing.INDEXED
        fields = indexing.message_fields
        utf8_ok = BlockLines().ok
        keep_refused = self.keep_refused
        started = state.event_lines  # empty until the session-meta line is applied
        for raw, line, span in zip(raws, lines, spans, strict=True):
            try:
                env = decode(raw)
            except failed:
                if not raw or bytes(raw).isspace():  # blank: skipped before two more
                    continue  # parsers fail on it (a file of 20 MB of them took minutes)
                env = None
            if env is not None and env.v == 1 and env.type in indexed and started and utf8_ok(raw):
                kind = env.type
                try:
                    feed_indexed(
                        env.id,
                        kind,
                        env.payload,
                        line,
                        span or bytes(raw),
                        fields(env.payload) if kind == "message" else None,
                    )
                except TranscriptError as err:
                    warnings.append(f"line {line}: {err.reason} (not applied)")
                    if keep_refused:
                        state.keep_refused(line, span or bytes(raw))
                continue
            try:
                envelope = loads(raw)
            except orjson.JSONDecodeError:
                # (as a whole read reads it, or a warning that says why: None)
                text = bytes(raw)
                envelope = parse_line(text, line, warnings, mend=False)
                if envelope is None:
                    if keep_refused and not is_blank(text):  # (blank: nothing, unsaid)
                        state.keep_refused(line, span or text)
                    continue
            # Without a span the line itself is kept: a copy, not a view of the block.
            keep = span or bytes(raw)
            if type(envelope) is not dict:
                parse_line(bytes(raw), line, warnings, mend=False)
                if keep_refused:
                    state.keep_refused(line, keep)
                continue
            v = envelope.get("v")
            named = envelope.get("type")
            if v == 1 and type(v) is int and type(named) is str and named and started:
                # What check_envelope checks, inline for the common case.
                try:
                    feed(envelope, line, keep)
                except TranscriptError as err:
                    warnings.append(f"line {line}: {err.reason} (not applied)")
                    if keep_refused:
                        state.keep_refused(line, keep)
            else:
                self._feed(envelope, line, keep, raw)
