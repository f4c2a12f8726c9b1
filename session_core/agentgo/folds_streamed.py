"""What an agentgo session's context events folded, found as ``check`` streams the file
(``StreamedFolds``): a check keeps no record to read again, so each event's folds are
found as the request after it streams by, by the rules ``ContextFolds`` finds them by
when a view reads its records again. Its elisions are then counted as every other
surface counts them: ``2 elisions (5 messages stubbed)``.

A committed message is kept as its span in the file (read again only where a request
holds a message of its shape), or, in a compressed file (no span to read by), as its
key, hashed as it streams by; a request skimmed to its config is read again by its
span. Nothing is read again in a session with no context event."""

from __future__ import annotations

from array import array
from typing import Any

from ..events import refuse_changed_line
from ..indexing import loads_payload
from ..model import Compaction, overlay_counts
from ..overlay_said import OverlayCounts
from .folds import ContextFolds, loop_call, loop_request
from .messages import hashed, message_role
from .records import NO_SEQ
from .view import AgentGoView


class StreamedFolds(ContextFolds):
    """``ContextFolds`` of a view fed by a streaming read: told each record as the view
    takes it (``fed``), after the view (``read_view``'s ``fed``)."""

    def __init__(self, view: AgentGoView) -> None:
        super().__init__(view)
        self._spans = array("Q")  # each committed message's span (0: kept as its key)

    def fed(self, record: dict[str, Any], span: int) -> None:
        kind = record.get("type")  # (the view took it: its last record, of this type)
        if kind == "message_end":
            if len(self._spans) < len(self.view.messages):  # (one it committed)
                self._spans.append(span)
                if not span:  # (a compressed file's: none to read it again by)
                    self._hashes[len(self._spans) - 1] = hashed(record["data"]["message"])
        elif kind == "model_request" and len(self._found) < len(self.view.context_events):
            self._requested(record, span, len(self.view.records) - 1)

    def _requested(self, record: dict[str, Any], span: int, index: int) -> None:
        """A model request after events not found yet: if it is the loop's conversation
        call's, what each folded."""
        if not loop_call(record):
            return  # (another call's: not read again)
        data = record.get("data")
        if isinstance(data, dict) and "messages" not in data and span:
            record = self._read(span, index)  # (skimmed: its config alone)
        last = len(self.view.messages) - 1
        sent = loop_request(record, lambda: self.key_of(last) if last >= 0 else None)
        if sent is None:
            return
        while self.found < len(self.view.context_events):
            self._fold(self.found, index, sent)

    def _read(self, span: int, index: int) -> dict[str, Any]:
        """Record ``index`` read again by its span; the file changed since: refused."""
        source = self.view.records.source
        try:
            if source is None:
                raise OSError("no file to read it again from")
            value = loads_payload(source.read(span))
        except (OSError, ValueError):
            value = None
        records = self.view.records
        seq = records.seqs[index]
        if (
            type(value) is not dict
            or value.get("type") != records.kind(index)
            or (seq != NO_SEQ and value.get("seq") != seq)
        ):
            refuse_changed_line()  # (``check`` reads within ``strict_rereads``)
            return {}
        return value

    def _message(self, position: int) -> dict[str, Any]:
        data = self._read(self._spans[position], self.view.messages[position].at).get("data")
        message = data.get("message") if isinstance(data, dict) else None
        return message if isinstance(message, dict) else {}

    def _role_of(self, entry: int) -> str | None:
        """A committed message's role, from its kind as it was fed (none read again)."""
        if entry < 0:
            return None
        shape = self.view.messages[entry].shape
        return message_role({"kind": shape[0] if shape is not None else None})

    def counted(self) -> OverlayCounts:
        """The view's compactions and elisions counted as ``overlay_counts`` counts them:
        each projection's messages stubbed and dropped, those no request follows yet
        unknown."""
        out = []
        for event, (seq, _run, kind, _data) in enumerate(self.view.context_events):
            found = event < self.found
            projected = kind == "context_projected"
            out.append(
                Compaction(
                    id=f"seq-{seq}",
                    kind="elision" if projected else "compaction",
                    line=self.view.records.lines[self.view.context_at[event]],
                    folded=self._found[event] if found else [],
                    dropped=self._found_dropped[event] if found and projected else [],
                    unsent=not found,
                )
            )
        return overlay_counts(out)


__all__ = ["StreamedFolds"]
