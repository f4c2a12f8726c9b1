"""The one replay engine: fed one envelope at a time, linear in the file.

``load``, every ``append_*`` (validate, write, then apply), the read-only
``replay`` and the follower's live view all drive this same class.
"""

from __future__ import annotations

import copy
from array import array
from collections.abc import Mapping
from typing import Any

from .compactions import Compaction as Compaction  # where the views import it from
from .compactions import FoldedBy, FoldedIds, FoldedIndex, KeptIds
from .elisions import Elided, Elisions
from .elisions import Elision as Elision  # where the views import it from
from .errors import ReplayError
from .events import REFUSED, Events, LazyPayload
from .events import payload_of as payload_of  # where the views import it from
from .facts import payload_fields
from .indexing import LazyBody, body_is_sticky, field_said, loads_payload, written_field
from .message import Message, message_from_payload, payload_is_sticky
from .packed_ids import PackedIds
from .records import OUTCOMES, RunContexts, Sections, Stamps, ToolOps
from .text import as_str as _str
from .text import as_written, written_count

REFUSED_KEPT = 10_000  # lines a replay keeps without applying them (``keep_refused``)
KNOWN_TYPES = frozenset(
    (
        "session-meta",
        "message",
        "grants",
        "compaction",
        "elision",
        "tool-dispatched",
        "tool-settled",
        "run-context",
    )
)
TOOL_OUTCOMES = OUTCOMES
_KINDS = {kind: kind for kind in KNOWN_TYPES}  # one str object per kind, however many lines

# A live entry: (envelope id, message payload, sticky, content override or None).
Entry = tuple[str, Mapping[str, Any], bool, str | None]
Raw = bytes | int | None  # a line as ``feed`` keeps it: its bytes, or its span in ``events.source``


class ReplayState:
    """The replayed view of a v1 transcript, built envelope by envelope.

    ``where`` names the transcript in error messages. ``check`` raises the
    ``ReplayError`` that ``feed`` would, without applying anything: appends
    call it before they write.
    """

    def __init__(self, where: str = "this session", *, lazy_facts: bool = False) -> None:
        self.where = where
        # lazy_facts: a message's facts (events.facts) are taken when first asked for, not
        # while replaying (a load or a CLI replay mostly never asks).
        self.lazy_facts = lazy_facts
        self.meta: dict[str, Any] = {}
        self.entries: list[Entry] = []
        # Each live entry's event (its line's; a summary's, its compaction's), beside it: a
        # compaction keeps what it folds as these (a body kept as a dict does not say).
        self.entry_events = array("i")
        # A live message's id -> its position in entries, less _shift: a compaction moves
        # every entry after the ones it folds, and moving them all is one change of _shift.
        self._index: dict[str, int] = {}
        self._shift = 0
        self.events = Events()
        # Per line (an int32 each: a file of 2**31 lines would hold 32 GB of ids alone).
        self.event_lines = array("i")  # the file line each event came from
        self.last_line = 0
        self.tool_ops = ToolOps(self.events)  # built again from their lines when asked for
        # Each operation's id (its dispatch line's), packed: the index of an op-id is
        # made when one is looked up that is not pending (a settle refused, an API call).
        self.op_ids = PackedIds("last")
        # op-id -> its operation, while its last dispatch is not settled (a settle's
        # lookup: few at a time, however many the file has).
        self._pending_ops: dict[str, int] = {}
        self.run_contexts = RunContexts(self.events)
        # Each run-context line's ts (None: none), in file order: a run's start, known
        # without reading its line again (the line is mostly its sections).
        self.run_started = Stamps()
        # digest -> (its index in run_contexts, the section's index there): the text is
        # read from the carrier line when asked for
        self.sections = Sections()
        self.grants: list[Any] = []
        self.warnings: list[str] = []
        # For views of the raw file: what happened to each message line.
        self.message_events = array("i")  # indices into events of message lines
        # ... and of lines of a type this reader does not know (kept, shown raw: rare)
        self.unknown_events = array("i")
        self.refused = 0  # lines kept without being applied (``keep_refused``)
        self.pending_count = 0  # tool operations dispatched and not settled
        self.compactions: list[Compaction] = []
        # Every compaction's folded entries one after another (each compaction's ``folded``
        # is its stretch, from its start here): ``folded_by`` looks them up.
        self.folded_ids = FoldedIndex(self.events.ids)
        self.folded_starts = array("q")
        # The sticky entries' ids, in order: as they are never folded nor moved among
        # themselves, a compaction keeps the first of them (its ``kept``: how many). Each
        # is its entry's str, live as long as the replay.
        self.sticky_ids: list[str] = []
        # message id -> compaction id
        self.folded_by = FoldedBy(self.folded_ids, self.folded_starts, self.compactions)
        self.elisions = Elisions()  # (in columns: an Elision is made when asked for)
        self.elided: Mapping[str, list[Elision]] = Elided(self.elisions)  # message id ->

    # -- validation -------------------------------------------------------

    def _fail(self, what: str, line: int | None, text: str) -> ReplayError:
        # A file's line is named once, by the error (``PATH: line N: the compaction ...``).
        subject = f"the {what}" if line is not None else f"the {what} being appended"
        return ReplayError(f"{subject} {text}", path=self._path(), line=line)

    def _path(self) -> str | None:
        return None if self.where == "this session" else self.where

    def check(self, envelope: dict[str, Any], line: int | None = None) -> None:
        kind = envelope.get("type")
        if kind == "compaction":
            self._compaction_cut(payload_of(envelope), line)
        elif kind == "elision":
            self._elision_targets(payload_of(envelope), line)
        elif kind == "tool-settled":
            self._settle_target(payload_of(envelope), line)

    def _compaction_cut(self, payload: dict[str, Any], line: int | None, raw: Raw = None) -> int:
        through = payload.get("replaces-through-id")
        if not isinstance(through, str):
            written = self.events.line_again(raw)
            said = field_said(payload, "replaces-through-id", "a string", written, ("payload",))
            raise self._fail("compaction", line, f"has {said}")
        return self._message(
            "compaction",
            line,
            "replaces through",
            through,
            "never written, or written after this compaction",
        )

    def _message(self, what: str, line: int | None, does: str, mid: str, why: str) -> int:
        """The position of the message ``mid`` a line names (it ``does`` something to it,
        said with the id as written only when it fails: most lines name one that is);
        ``why``: how it could be missing."""
        index = self.sent_position(mid)
        if index is None:
            said = f"{does} {as_written(mid)}, which is not a message this transcript still has"
            raise self._fail(what, line, f"{said} ({why})")
        return index

    def _elision_targets(
        self, payload: dict[str, Any], line: int | None, raw: Raw = None
    ) -> list[tuple[int, str]]:
        items = payload.get("items")
        if not isinstance(items, list):
            said = field_said(payload, "items", "a list", self.events.line_again(raw), ("payload",))
            raise self._fail("elision", line, f"has {said}")
        targets: list[tuple[int, str]] = []
        for position, item in enumerate(items):
            at = ("payload", "items", position)  # (where the item is in its line)
            if not isinstance(item, dict):
                raise self._fail("elision", line, f"item {position} is not an {{id, stub}} object")
            mid = item.get("id")
            if not isinstance(mid, str) or not mid:
                said = field_said(item, "id", "a non-empty string", self.events.line_again(raw), at)
                raise self._fail("elision", line, f"item {position} has {said}")
            stub = item.get("stub")
            if not isinstance(stub, str):
                said = field_said(item, "stub", "a string", self.events.line_again(raw), at)
                raise self._fail("elision", line, f"item {position} has {said}")
            index = self._message(
                "elision",
                line,
                "stubs",
                mid,
                "never written, or a compaction replaced it first",
            )
            targets.append((index, stub))
        return targets

    def _settle_target(self, payload: Mapping[str, Any], line: int | None, raw: Raw = None) -> int:
        op_id, outcome = payload.get("op-id"), payload.get("outcome")
        return self._settle_index(op_id, outcome, line, payload, raw)

    def _settle_index(
        self,
        op_id: Any,
        outcome: Any,
        line: int | None,
        payload: Mapping[str, Any],
        raw: Raw = None,
    ) -> int:
        """``payload``: the line's (``raw``), for a refusal's words (``field_said``)."""
        if not isinstance(op_id, str) or not op_id:
            written = self.events.line_again(raw)
            said = field_said(payload, "op-id", "a non-empty string", written, ("payload",))
            raise self._fail("tool-settled line", line, f"has {said}")
        if not isinstance(outcome, str) or outcome not in TOOL_OUTCOMES:
            said = field_said(payload, "outcome", None, self.events.line_again(raw), ("payload",))
            raise self._fail(
                "tool-settled line",
                line,
                f"has {said}; a settled operation is one of " + ", ".join(TOOL_OUTCOMES),
            )
        index = self._pending_ops.get(op_id)
        if index is not None:
            return index
        # Not pending: its last dispatch settled already, or there is none.
        if self.op_ids.find(op_id) < 0:
            raise self._fail(
                "tool-settled line",
                line,
                f"settles {as_written(op_id)}, which is not an operation this transcript "
                "dispatched (never written, or written after this settle)",
            )
        raise self._fail(
            "tool-settled line", line, f"settles {as_written(op_id)}, which was settled already"
        )

    # -- applying ---------------------------------------------------------

    def feed(
        self, envelope: dict[str, Any], line: int | None = None, raw: bytes | int | None = None
    ) -> None:
        """Validate and apply one envelope; a refused one changes nothing.

        The envelope dict is kept as it is, not copied; given ``raw`` (the line it was
        parsed from, or its span in ``events.source``), that is kept instead, and
        parsed again when asked for.
        """
        # The hot path of every replay: plain lookups, the message case first.
        payload = envelope.get("payload")
        if type(payload) is not dict:
            payload = {}
        eid = envelope.get("id")
        if type(eid) is not str:
            eid = _str(eid)
        kind = envelope.get("type")
        events = self.events
        at = len(self.event_lines)  # this envelope's index in events (an array: a cheap len)
        if kind == "message":
            entries = self.entries
            self._index[eid] = len(entries) - self._shift
            sticky = payload_is_sticky(payload)
            # A line read from a file is kept as that line; its body is parsed again when
            # asked for. What replay needs of it (id, stickiness) is kept here.
            body: Mapping[str, Any] = payload if raw is None else LazyPayload(events, at)
            entries.append((eid, body, sticky, None))
            self.entry_events.append(at)
            self.message_events.append(at)
        elif kind == "tool-dispatched":
            self._dispatch(eid, envelope, payload)
        elif kind == "tool-settled":
            self._settle(eid, envelope, payload, line, raw)
        elif kind == "compaction":
            self._compact(eid, envelope, payload, line, raw)
        elif kind == "elision":
            self._elide(eid, envelope, payload, line, raw)
        name = self.feed_side(kind, envelope, payload, at)
        events.append(
            envelope if raw is None else raw,
            name if name is not None else _str(kind),
            eid,
            payload_fields(payload, None) if kind == "message" and not self.lazy_facts else None,
        )
        if line is None:
            line = self.last_line + 1
        self.last_line = line
        self.event_lines.append(line)

    def feed_side(
        self, kind: Any, envelope: dict[str, Any], payload: dict[str, Any], at: int
    ) -> str | None:
        """What a line of ``kind`` does beside the entries and operations (a run context,
        grants, the session's meta; an unknown type noted), as the line at ``at`` in
        events; its type's name, None for a type this reader does not know. A block of a
        replay applies its lines' columns first, then these (``block_replay``)."""
        if kind == "run-context":
            self._run_context(envelope, payload, at)
        elif kind == "grants":
            grants = payload.get("grants")
            self.grants = grants if isinstance(grants, list) else []
        elif kind == "session-meta":
            self.meta = payload
        name = _KINDS.get(kind) if type(kind) is str else None
        if name is None:
            self.unknown_events.append(at)
        return name

    def keep_refused(self, line: int, keep: bytes | int) -> None:
        """A line a follow could not apply (not JSON, another version, a record this
        replay refuses), kept as it is so the raw view shows it: an event of its own
        (``REFUSED``, named for its line in words no writer's id is) that changes nothing
        else; the first ``REFUSED_KEPT`` of them (a file no format claims is all such
        lines: its warnings say the rest). A whole read refuses the file at such a line."""
        if self.refused >= REFUSED_KEPT:
            return
        self.refused += 1
        if self.refused == REFUSED_KEPT:  # (said once: the raw view stops showing them)
            self.warnings.append(
                f"line {line}: the {REFUSED_KEPT:,}th line not applied; later ones are "
                "said here, not kept for the raw view"
            )
        at = len(self.event_lines)
        eid = f"(line {line}, not applied)"
        self.unknown_events.append(at)
        self.events.append(keep, REFUSED, eid)
        self.last_line = line
        self.event_lines.append(line)

    def feed_indexed(
        self,
        eid: str,
        kind: str,
        body: LazyBody | None,  # a FactsBody (a LazyBody) on the viewer's pass
        line: int,
        keep: bytes | int,
        facts: tuple[Any, ...] | None = None,
    ) -> None:
        """``feed`` for a message, tool-dispatched or tool-settled line that the index
        pass decoded (``indexing``): the same checks and the same state, from the few
        fields it took; ``keep`` is the line or its span, ``facts`` its message facts
        (``facts.payload_fields``' tuple) when this replay takes them at feed time."""
        events = self.events
        at = len(self.event_lines)
        if kind == "message":
            entries = self.entries
            self._index[eid] = len(entries) - self._shift
            entries.append((eid, LazyPayload(events, at), body_is_sticky(body), None))
            self.entry_events.append(at)
            self.message_events.append(at)
            kind = "message"
        elif kind == "tool-dispatched":
            call_id = (body.call_id if body is not None else None) or ""
            ops = self.tool_ops
            self._pending_ops[eid] = len(ops._dispatch)  # (len(ops), without a call)
            self.op_ids.append(eid)
            if body is None:
                ops.dispatched(at, call_id, None, None)
            else:
                ops.dispatched(at, call_id, body.run_id, body.tool)
            self.pending_count += 1
            kind = "tool-dispatched"
        else:
            outcome = body.outcome if body is not None else None
            op_id = body.op_id if body is not None else None
            if not op_id or outcome not in TOOL_OUTCOMES:  # (refused: as the line wrote it)
                self._settle_target(self._payload_again(keep), line, keep)
            index = self._settle_index(op_id, outcome, line, {})
            self.tool_ops.settled(index, at, outcome)
            del self._pending_ops[op_id]  # type: ignore[arg-type]  # (pending: a str)
            self.pending_count -= 1
            kind = "tool-settled"
        events.append(keep, kind, eid, facts)
        self.last_line = line
        self.event_lines.append(line)

    def _payload_again(self, keep: bytes | int) -> dict[str, Any]:
        """The payload of a line the index pass took (decoded: ``null`` and a key left
        out alike), parsed again for a refusal's words."""
        try:
            value = loads_payload(self.events.line_again(keep))
        except ValueError:
            return {}
        return payload_of(value) if isinstance(value, dict) else {}

    def _dispatch(self, eid: str, envelope: dict[str, Any], payload: dict[str, Any]) -> None:
        # The operation itself is built again from this line (records.operation) when asked
        # for; replay keeps what it and the views look up.
        call_id = payload.get("call-id")
        ops = self.tool_ops
        self._pending_ops[eid] = len(ops)
        self.op_ids.append(eid)
        if type(call_id) is not str:
            call_id = _str(call_id)
        ops.dispatched(len(self.event_lines), call_id, payload.get("run-id"), payload.get("tool"))
        self.pending_count += 1

    def _settle(
        self,
        eid: str,
        envelope: dict[str, Any],
        payload: dict[str, Any],
        line: int | None,
        raw: Raw = None,
    ) -> None:
        index = self._settle_target(payload, line, raw)  # (its outcome is one of OUTCOMES)
        self.tool_ops.settled(index, len(self.event_lines), payload["outcome"])
        del self._pending_ops[payload["op-id"]]
        self.pending_count -= 1

    def _compact(
        self,
        eid: str,
        envelope: dict[str, Any],
        payload: dict[str, Any],
        line: int | None,
        raw: Raw = None,
    ) -> None:
        cut = self._compaction_cut(payload, line, raw)
        entries = self.entries
        before = written_count(payload, "tokens-before")  # (null told from missing)
        after = written_count(payload, "tokens-after")
        if type(before) is float or type(after) is float:  # (beyond a double: as written)
            written = self.events.line_again(raw)
            before = written_field(written, "tokens-before", before, ("payload",))
            after = written_field(written, "tokens-after", after, ("payload",))
        record = Compaction(
            id=eid,
            ts=_str(envelope.get("ts")),
            summary=_str(payload.get("summary")),
            through=_str(payload.get("replaces-through-id")),
            fallback=payload.get("fallback") is True,  # (a bool, as the spec types it)
            tokens_before=before,
            tokens_after=after,
            line=self.last_line + 1 if line is None else line,  # (as ``feed`` numbers it)
            event=len(self.event_lines),  # (appended next)
        )
        # Only the head (the entries through the cut) changes: its sticky entries stay,
        # then the summary; the tail moves as one (_shift), so a compaction costs what it
        # folds, not what stays live. An id's index is its last live copy: a damaged file
        # can carry a line twice, and a copy in the tail outlives the head's.
        index = self._index
        shift = self._shift

        def last_in_tail(mid: str) -> bool:
            at = index.get(mid)
            return at is not None and at + shift > cut

        if cut + 1 < len(entries):
            record.placed_before = self.entry_events[cut + 1]
        kept: list[Entry] = []
        kept_events = array("i")
        folded: list[str] = []
        folded_events = array("i")
        sticky = self.sticky_ids
        head = entries[: cut + 1]  # (as it was: ``_compacted`` is shown it)
        for at, entry in zip(self.entry_events[: cut + 1], head, strict=True):
            if entry[2]:
                kept.append(entry)
                kept_events.append(at)
                if len(kept) > len(sticky):
                    sticky.append(entry[0])
            else:
                folded.append(entry[0])
                folded_events.append(at)
                if not last_in_tail(entry[0]):
                    index.pop(entry[0], None)
        record.kept = KeptIds(sticky, len(kept))
        start = len(self.folded_ids)
        self.folded_ids.extend(folded_events, folded)
        self.folded_starts.append(start)
        record.folded = FoldedIds(self.folded_ids, start, start + len(folded))
        summary: Entry = (eid, {"role": "user", "content": record.summary}, False, None)
        kept.append(summary)
        kept_events.append(len(self.event_lines))  # (the compaction's, appended next)
        placed = [not last_in_tail(entry[0]) for entry in kept]
        # In place: the tail is moved by one memmove (no new list, no reference counted
        # again), so a compaction's cost does not grow with what stays live.
        entries[: cut + 1] = kept
        self.entry_events[: cut + 1] = kept_events
        self._shift = shift + len(kept) - (cut + 1)
        for position, entry in enumerate(kept):
            if placed[position]:
                index[entry[0]] = position - self._shift
        self.compactions.append(record)
        self._compacted(record, head)

    def _compacted(self, compaction: Compaction, head: list[Entry]) -> None:
        """Called once a compaction is applied (once each, not per line): its record, and
        the entries through its cut as they were (sticky ones among them). Nothing here: a
        subclass observes a compaction by this, not by ``_compact``'s own signature."""

    def _elide(
        self,
        eid: str,
        envelope: dict[str, Any],
        payload: dict[str, Any],
        line: int | None,
        raw: Raw = None,
    ) -> None:
        entries, elisions = self.entries, self.elisions
        targets = self._elision_targets(payload, line, raw)  # (checked: then applied)
        elisions.start_line(
            eid, _str(envelope.get("ts")), self.last_line + 1 if line is None else line
        )
        event_lines, entry_events = self.event_lines, self.entry_events
        for index, stub in targets:
            mid, body, sticky, _ = entries[index]
            entries[index] = (mid, body, sticky, stub)
            # Its line: a message's, or a compaction's summary's (its compaction's line)
            event = body.index if isinstance(body, LazyPayload) else entry_events[index]
            at = int(event_lines[event]) if 0 <= event < len(event_lines) else None
            elisions.add(mid, stub, at)

    def _run_context(self, envelope: dict[str, Any], payload: dict[str, Any], at: int) -> None:
        contexts = self.run_contexts
        carrier = len(contexts.run_ids)
        contexts.append_line(at, _str(payload.get("run-id")))
        self.run_started.append(_str(envelope.get("ts")) or None)
        sections = payload.get("sections")
        dicts = [s for s in sections if isinstance(s, dict)] if isinstance(sections, list) else []
        for position, section in enumerate(dicts):
            digest = section.get("digest")
            if isinstance(digest, str) and digest and isinstance(section.get("rendered"), str):
                self.sections.add(digest, carrier, position)

    # -- reading ----------------------------------------------------------

    @property
    def message_count(self) -> int:
        """Message lines in the file (the raw view), not messages sent next."""
        return len(self.message_events)

    def entry_message(self, entry: Entry) -> Message:
        message = message_from_payload(entry[1])
        if entry[3] is not None:
            return Message(
                role=message.role,
                content=entry[3],
                tool_calls=copy.deepcopy(message.tool_calls),
                tool_call_id=message.tool_call_id,
                sticky=message.sticky,
                sysprompt=message.sysprompt,
                depth=message.depth,
            )
        if message.tool_calls:
            return Message(
                role=message.role,
                content=message.content,
                tool_calls=copy.deepcopy(message.tool_calls),
                tool_call_id=message.tool_call_id,
                sticky=message.sticky,
                sysprompt=message.sysprompt,
                depth=message.depth,
            )
        return message

    def messages(self) -> list[Message]:
        return [self.entry_message(e) for e in self.entries]

    def message_ids(self) -> list[str]:
        return [e[0] for e in self.entries]

    def pending_indices(self) -> list[int]:
        """Where the operations not settled are in ``tool_ops``, in file order."""
        return sorted(self._pending_ops.values())

    def pending_tool_operations(self) -> list[dict[str, Any]]:
        ops = self.tool_ops
        return [copy.deepcopy(ops[i]) for i in range(len(ops)) if not ops.is_settled(i)]

    def operation_index(self, op_id: str) -> int | None:
        """Where operation ``op_id`` is in ``tool_ops`` (its last dispatch's)."""
        index = self._pending_ops.get(op_id)
        if index is None:
            found = self.op_ids.find(op_id) if type(op_id) is str else -1
            index = found if found >= 0 else None
        return index

    def run_context_section(self, digest: str) -> str | None:
        found = self.sections.get(digest)
        if found is None:
            return None
        carrier, position = found
        sections = self.run_contexts[carrier]["sections"]
        text = sections[position].get("rendered") if position < len(sections) else None
        return text if isinstance(text, str) else None  # a line changed on disk: not there

    def section_carrier(self, digest: str) -> str | None:
        found = self.sections.get(digest)
        return None if found is None else self.events.ids[self.run_contexts.event(found[0])]

    def sent_position(self, message_id: str) -> int | None:
        """Where the live message ``message_id`` is in entries (what is sent next)."""
        at = self._index.get(message_id)
        return None if at is None else at + self._shift

    def is_live(self, message_id: str) -> bool:
        return message_id in self._index

    def live_entry(self, message_id: str) -> Entry | None:
        """The entry the model is sent next for ``message_id``, if it is sent."""
        position = self.sent_position(message_id)
        return None if position is None else self.entries[position]
