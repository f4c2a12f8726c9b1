"""What an agentgo session's context events folded, and so what its model is sent next
(``ContextFolds``), read from the requests after them: the model's conversation and
compactions take it as a file is opened, so this module imports nothing of the
``diff`` report's drawing (``cells``, ``diff_model``: wcwidth's tables).

A committed message is *sent* where a request holds it as the model is sent it
(``messages.sent_bytes``: not the usage, time or stop reason it reports of itself), *sent as a stub*
where the request holds another message answering the same call (observation aging),
and *not sent* otherwise (compacted away); a request message no committed one is (a
summary, a stub) is sent as a message of its own.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Container, Iterator, Sequence
from typing import Any, overload

from ..model import Compaction
from ..text import written_count
from .messages import SentShape, message_role, sent_shape
from .messages import call_of as _call_of
from .messages import hashed as _hashed
from .view import AgentGoView, message_text


def _request_at(view: AgentGoView, index: int) -> list[Any] | None:
    """The messages of record ``index`` if it is the request of a loop's conversation
    call, else None (``loop_request``)."""
    records = view.records
    if records.kind(index) != "model_request":
        return None
    return loop_request(
        records.read(index),  # (whole: a skim keeps only the config)
        lambda: _last_key(view, index),
    )


def _last_key(view: AgentGoView, index: int) -> int | None:
    """The key (hashed) of the last message committed before record ``index``, if any."""
    before = bisect.bisect_left(view.messages, index, key=lambda c: c.at) - 1
    return _hashed(view.messages[before].message) if before >= 0 else None


def loop_call(record: dict[str, Any]) -> bool:
    """Whether a model_request ``record`` (its envelope alone will do) may be of a loop's
    conversation call: a model call nested in no other."""
    execution = record.get("execution")
    return (
        isinstance(execution, dict)
        and execution.get("kind") == "model"
        and execution.get("parent_id") is None
    )


def loop_request(record: dict[str, Any], last: Callable[[], int | None]) -> list[Any] | None:
    """The messages of a model_request ``record`` (whole) if it is the request of a loop's
    conversation call, else None: a model call not nested in another (``parent_id``), of
    a turn (``turn_index``) or, where the writer names none, one whose last message is
    the last message committed before it (``last``: its key, hashed; None: there is
    none), as the conversation so far ends. A compaction's summary call, a standalone
    call (the seed's ``classify``) and a tool's own model call send other messages, and
    commit none."""
    if not loop_call(record):
        return None
    execution = record["execution"]
    data = record.get("data")
    messages = data.get("messages") if isinstance(data, dict) else None
    sent = messages if isinstance(messages, list) else []
    if execution.get("turn_index") is not None:
        return sent
    if sent and _hashed(sent[-1]) == last():
        return sent
    return None


def unsent_events(view: AgentGoView) -> set[int]:
    """The context events no request of the loop's conversation call follows yet: what
    each folded is not known, the request after it decides (``Compaction.unsent``). The
    last ones, found from the end back to the last such request."""
    out: set[int] = set()
    index = len(view.records) - 1
    for event in range(len(view.context_at) - 1, -1, -1):
        at = view.context_at[event]
        while index > at and _request_at(view, index) is None:
            index -= 1
        if index > at:
            break
        out.add(event)
    return out


def _request_after(view: AgentGoView, start: int) -> tuple[int, list[Any]] | None:
    """The first request of the loop's conversation call after record ``start``
    (``_request_at``): its index and messages."""
    for index in range(start + 1, len(view.records)):
        sent = _request_at(view, index)
        if sent is not None:
            return index, sent
    return None


class _Sent:
    """What a request holds, to ask of each message in turn how it was sent: as written
    (``=``), as another answer to its call (``~``, a stub), or not (``-``); each of the
    request's messages is taken once, and which one is told. Messages are told by their
    keys' hashes (``_hashed``), a message of a shape none of the request's is
    (``shapes``) by none."""

    def __init__(self, sent: list[Any]) -> None:
        self.sent = sent
        self.taken = bytearray(len(sent))
        self.by_key: dict[int, deque[int]] = {}  # a key -> the request's messages of it
        self.by_call: dict[str, deque[int]] = {}  # a call id -> the messages answering it
        # (a committed message, always an object, is the same as none of another shape)
        self.shapes = {sent_shape(m) for m in sent if isinstance(m, dict)}
        for index, message in enumerate(sent):
            self.by_key.setdefault(_hashed(message), deque()).append(index)
            call = _call_of(message)
            if call is not None:
                self.by_call.setdefault(call, deque()).append(index)

    def take(self, key: int | None, call: str | None) -> tuple[str, int]:
        """How the message of hashed ``key`` (None: the same as none of the request's;
        answering ``call``, if any) was sent, and the request's message it was sent as
        (-1: not sent)."""
        same = self.by_key.get(key) if key is not None else None
        index = self._first(same) if same else -1
        if index < 0 and call is not None:
            answers = self.by_call.get(call)
            index = self._first(answers) if answers else -1
            if index >= 0:
                self.taken[index] = 1
                return "~", index
        if index < 0:
            return "-", -1
        self.taken[index] = 1
        return "=", index

    def _first(self, queue: deque[int]) -> int:
        """The first of ``queue`` not taken yet (those taken are dropped from it)."""
        taken = self.taken
        while queue and taken[queue[0]]:
            queue.popleft()
        return queue[0] if queue else -1

    def left(self) -> list[int]:
        """The request's messages no message was sent as (a summary, say), in order."""
        return [index for index, taken in enumerate(self.taken) if not taken]

    def rewrites(
        self,
        took: Sequence[tuple[str, int]],
        role_of: Callable[[int], str | None],
        summaries: Container[int] = (),
    ) -> dict[int, int]:
        """Where a projection rewrote a message in place: of the messages taken in order
        (``took``: each one's sign and request message; ``role_of``: each one's role,
        by its place in ``took``; None: none to pair, as one a compaction folded), each
        the request does not hold (``-``) paired with a message of its role it holds where
        the message stood (between those sent either side of it) that no message was
        sent as: {its place in ``took``: that request message}, those taken. One with
        no such message pairs none and the next are paired still (a projection may
        drop one message and rewrite the next). A compaction's summary stands for many
        messages, and is paired by none of this: its caller asks only of a projection,
        and names the request's summaries of an earlier compaction (``summaries``)."""
        out: dict[int, int] = {}
        sent, taken = self.sent, self.taken
        place, low = 0, -1  # (low: the request message the last one sent was sent as)
        while place < len(took):
            if took[place][0] != "-":
                low = took[place][1]
                place += 1
                continue
            end = place
            while end < len(took) and took[end][0] == "-":
                end += 1
            high = took[end][1] if end < len(took) else len(sent)
            at = low + 1  # (the rewrites keep the order of the messages they stand for)
            for gone in range(place, end):
                role = role_of(gone)
                if role is None:
                    continue
                scan = at
                while scan < high and (
                    taken[scan] or scan in summaries or _role(sent[scan]) != role
                ):
                    scan += 1
                if scan < high:
                    taken[scan] = 1
                    out[gone] = scan
                    at = scan + 1
            place = end
        return out


def _role(message: Any) -> str:
    return message_role(message) if isinstance(message, dict) else ""


class ContextFolds:
    """What each context event of a view folded (``context_compacted``: the messages
    sent before it that the next model call's request does not hold) or stubbed and
    dropped (``context_projected``: those it holds another answer to the call for, or
    a rewrite of; those it holds nothing for), found when first asked for, in order,
    each message once while it stays so (not again by a later event); and so what the
    model is sent next (``sent``): the messages each request after an event held, in
    its order, with what it held that was never committed (a summary), and everything
    committed since.

    A projection changes what is sent, not the conversation: a message it dropped is
    not sent next (``dropped``), but stays in its place for the events after it, whose
    requests may hold it again (a compaction's folded messages are gone for good). Each
    message is what the last projection to change it made it: dropped, it has no stub
    (``stubs``); sent as a stub again, it is no longer dropped. What each projection sent
    in its place is its own (``sent_as``), whatever a later one sends.

    Each committed message is told by its shape, taken as it was fed (``sent_shape``),
    and hashed (read again) only where a request holds a message of that shape, once; an
    event looks only at the messages still sent after the events before it, so a long
    session's events cost its messages once, not once each."""

    def __init__(self, view: AgentGoView) -> None:
        self.view = view
        self._found: list[list[str]] = []  # each event's ids, in order, while a request followed
        self._shapes: list[SentShape | None] = []  # each committed message's shape
        self._hashes: dict[int, int] = {}  # a committed message -> its key, hashed (once asked)
        self._calls: dict[int, str] = {}  # a committed message -> the call it answers
        # What is sent, as of the last event found: committed messages by position, and
        # (entry -1 - k) ``own[k]``, a message a request held that none committed is.
        self._live: list[int] = []
        self._next = 0  # the first committed message no event has looked at yet
        self.own: list[dict[str, Any]] = []
        self._own_keys: list[int] = []
        self.stubs: dict[int, str] = {}  # a committed message -> what it is sent as
        self._stubbed: set[int] = set()
        self.folded: list[int] = []  # the committed messages a compaction dropped, in order
        # The committed messages a projection dropped that no request since holds: each
        # -> the event that dropped it (not sent next, unlike a compaction's still live).
        self.dropped: dict[int, int] = {}
        self._found_dropped: list[list[str]] = []  # each event's ids it dropped of them
        # ... and what a projection sent in place of each of its ids (``_found``'s): its
        # stub then, None for one it dropped (a later event may send another, or none)
        self._found_sent: list[list[str | None]] = []

    def _take(self, upto: int) -> None:
        """Take the committed messages up to ``upto`` (their shapes and calls, as fed)."""
        messages = self.view.messages
        for position in range(len(self._shapes), upto):
            shape = messages[position].shape
            self._shapes.append(shape)
            call = shape[1] if shape is not None else _call_of(messages[position].message)
            if call is not None:
                self._calls[position] = call

    def of(self, event: int) -> list[str]:
        found = self._found
        while len(found) <= event:
            if not self._find(len(found)):
                return []  # (nothing sent since that event yet: asked again later)
        return found[event]

    def dropped_of(self, event: int) -> list[str]:
        """Of an event's ids (``of``), those it dropped: a projection's not sent at all."""
        self.of(event)
        return self._found_dropped[event] if event < len(self._found_dropped) else []

    def sent_as(self, event: int) -> list[str | None]:
        """What a projection sent in place of each of its ids (``of``): the stub it sent
        then, None for one it dropped; a compaction's, none."""
        self.of(event)
        return self._found_sent[event] if event < len(self._found_sent) else []

    @property
    def found(self) -> int:
        """How many events' folds are found (``own`` and ``stubs`` change only with it)."""
        return len(self._found)

    def sent(self, committed: int) -> list[int]:
        """What the model is sent next, of the first ``committed`` messages, as far as
        the events and the requests after them tell: the entries of ``_live`` (an own
        message ``-1 - k``), then every message committed since."""
        events = len(self.view.context_events)
        while len(self._found) < events and self._find(len(self._found)):
            pass
        dropped = self.dropped
        live = [entry for entry in self._live if entry not in dropped] if dropped else self._live
        return [*live, *range(self._next, committed)]

    def summaries(self) -> set[int]:
        """The keys (hashed) of the messages sent that none committed (a compaction's
        summary), as of the events found."""
        return {self._own_keys[-1 - entry] for entry in self._live if entry < 0}

    def _key_of(self, entry: int, shapes: Container[SentShape]) -> tuple[int | None, str | None]:
        """An entry's key, hashed (None: of a shape none of ``shapes`` is), and call."""
        if entry >= 0:
            shape = self._shapes[entry]
            if shape is not None and shape not in shapes:
                return None, self._calls.get(entry)
            return self.key_of(entry), self._calls.get(entry)
        own = -1 - entry
        return self._own_keys[own], _call_of(self.own[own])

    def key_of(self, position: int) -> int:
        """Committed message ``position``'s key, hashed (read again, once)."""
        key = self._hashes.get(position)
        if key is None:
            key = self._hashes[position] = _hashed(self._message(position))
        return key

    def _message(self, position: int) -> dict[str, Any]:
        """Committed message ``position``, read again."""
        return self.view.messages[position].message

    def _role_of(self, entry: int) -> str | None:
        """A committed message's role (read again); None for a message no one committed."""
        return message_role(self._message(entry)) if entry >= 0 else None

    def _find(self, event: int) -> bool:
        after = _request_after(self.view, self.view.context_at[event])
        if after is None:
            return False
        self._fold(event, *after)
        return True

    def _fold(self, event: int, request: int, sent: list[Any]) -> None:
        """Find what ``event`` folded from ``sent``, the messages of the first request of
        the loop's conversation call after it (record ``request``)."""
        view = self.view
        at = view.context_at[event]
        messages = view.messages
        stop = self._next
        while stop < len(messages) and messages[stop].at < request:
            stop += 1
        self._take(stop)
        held = _Sent(sent)
        compacted = view.records.kind(at) == "context_compacted"
        dropped: list[int] = []
        stubbed: list[int] = []
        # Each message still sent keyed by where the request holds it (one it does not
        # hold, kept by a projection, just after the one before it).
        keyed: list[tuple[int, int, int]] = []
        last = behind = -1
        entries = [*self._live, *range(self._next, stop)]
        shapes = held.shapes
        took = [held.take(*self._key_of(entry, shapes)) for entry in entries]
        if not compacted:  # (a message a projection rewrote in place: sent as the rewrite)
            for place, index in held.rewrites(took, lambda p: self._role_of(entries[p])).items():
                took[place] = ("~", index)
        for entry, (sign, index) in zip(entries, took, strict=True):
            if sign == "-":
                if entry >= 0:
                    dropped.append(entry)
                if compacted:
                    continue
                behind += 1  # (kept in its place, for a later request: not sent next)
                keyed.append((last, behind, entry))
                continue
            self.dropped.pop(entry, None)  # (a request holds it again: sent)
            if entry >= 0:
                if sign == "~":
                    stubbed.append(entry)
                    self.stubs[entry] = message_text(sent[index])
                else:
                    self.stubs.pop(entry, None)
            last, behind = index, 0
            keyed.append((index, 0, entry))
        for index in held.left():
            self.own.append(sent[index] if isinstance(sent[index], dict) else {})
            self._own_keys.append(_hashed(sent[index]))
            keyed.append((index, 0, -len(self.own)))
        keyed.sort()
        self._live = [entry for *_, entry in keyed]
        gone: list[int] = []  # (what a projection dropped that was sent till now)
        if compacted:
            chosen = dropped
            self.folded.extend(dropped)
            for position in dropped:  # (gone for good: no longer a projection's to drop)
                self.dropped.pop(position, None)
        else:
            gone = [p for p in dropped if p not in self.dropped]
            self.dropped.update(dict.fromkeys(gone, event))
            chosen = sorted([*(p for p in stubbed if p not in self._stubbed), *gone])
            self._stubbed.update(stubbed)
            for position in gone:  # (sent no stub now: one sent again later is named again)
                self.stubs.pop(position, None)
                self._stubbed.discard(position)
        self._next = stop
        self._found.append([f"seq-{messages[p].seq}" for p in chosen])
        self._found_sent.append([] if compacted else [self.stubs.get(p) for p in chosen])
        self._found_dropped.append([f"seq-{messages[p].seq}" for p in gone])


class _Folded(Sequence[str]):
    """One event's ids (``ContextFolds.of``, or ``dropped_of``), found when first
    looked at."""

    def __init__(self, ids_of: Callable[[int], list[str]], event: int) -> None:
        self._ids_of, self._event = ids_of, event

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._ids_of(self._event)[index]

    def __len__(self) -> int:
        return len(self._ids_of(self._event))

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids_of(self._event))


class _Elided(_Folded):
    """A projection's ids (``ContextFolds.of``), each with what that projection sent in
    its place (``stub_at``, the Diff tab's ``sent:``: a later event may send another
    stub, or none)."""

    def __init__(self, folds: ContextFolds, event: int) -> None:
        super().__init__(folds.of, event)
        self._sent_as = folds.sent_as

    def stub_at(self, at: int) -> str | None:
        """The stub sent in place of id ``at``; None: nothing (it was dropped)."""
        sent = self._sent_as(self._event)
        return sent[at] if 0 <= at < len(sent) else None


def context_compactions(view: AgentGoView, folds: ContextFolds) -> list[Compaction]:
    """Each context event as the neutral model has them: ``context_compacted`` a
    compaction, ``context_projected`` an elision (observation aging), whose ``folded``
    are the messages it stubbed or rewrote and those it dropped (``dropped``: not sent)."""
    out = []
    records = view.records
    unsent = unsent_events(view)
    for event, (seq, _run, kind, data) in enumerate(view.context_events):
        at = view.context_at[event]
        projected = kind == "context_projected"
        summary = data.get("summary")
        out.append(
            Compaction(
                id=f"seq-{seq}",
                kind="elision" if projected else "compaction",
                line=records.lines[at],
                summary=summary if isinstance(summary, str) else "",
                folded=_Elided(folds, event) if projected else _Folded(folds.of, event),
                dropped=_Folded(folds.dropped_of, event) if projected else (),
                # (as written, as a v1 compaction's: ``tokens_said`` says each by one rule)
                tokens_before=written_count(data, "tokens_before"),
                tokens_after=written_count(data, "tokens_after"),
                unsent=event in unsent,
            )
        )
    return out


__all__ = ["ContextFolds", "context_compactions", "loop_call", "loop_request", "unsent_events"]
