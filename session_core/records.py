"""Tool operations and run contexts of a replay, rebuilt from their lines when asked for.

A big transcript has hundreds of thousands of tool-dispatched and
tool-settled lines; keeping an operation dict for each (digests, timestamps,
arguments) was most of a replay's memory. Replay keeps where each record's
lines are, and the few facts it and every view need (is an operation settled,
its call id, its run id); the dicts are built again, through a small cache,
from ``Events`` (which may itself read the line back from the file).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from .events import BuiltOnDemand, Events, payload_of
from .indexed import ListLike, shown
from .packed_ids import PackedIds, Texts
from .text import as_str as _str

OUTCOMES = ("completed", "failed", "outcome-unknown")  # what a settle line may say
_OPTIONAL_DISPATCH = ("arguments-digest", "idempotency", "run-id", "round")
_OPTIONAL_SETTLE = ("reason", "duration", "result-digest", "error", "artifact")


def operation(dispatch: dict[str, Any], settle: dict[str, Any] | None) -> dict[str, Any]:
    """The operation a dispatch line (and its settle line, if any) describe."""
    get = payload_of(dispatch).get
    op: dict[str, Any] = {
        "op-id": _str(dispatch.get("id")),
        "call-id": _str(get("call-id")),
        "tool": _str(get("tool")),
        "arguments": get("arguments"),
        "dispatched-at": _str(dispatch.get("ts")),
        "settled": False,
    }
    for key in _OPTIONAL_DISPATCH:
        value = get(key)
        if value is not None:
            op[key] = value
    if settle is not None:
        get = payload_of(settle).get
        op["settled"] = True
        op["outcome"] = get("outcome")
        op["settled-at"] = _str(settle.get("ts"))
        op["settle-id"] = _str(settle.get("id"))
        for key in _OPTIONAL_SETTLE:
            value = get(key)
            if value is not None:
                op[key] = value
    return op


def run_context(envelope: dict[str, Any]) -> dict[str, Any]:
    """The run context a run-context line describes (sections and facts as lists)."""
    payload = payload_of(envelope)
    raw_sections = payload.get("sections")
    sections = (
        [dict(s) for s in raw_sections if isinstance(s, dict)]
        if isinstance(raw_sections, list)
        else []
    )
    raw_facts = payload.get("facts")
    facts = (
        [list(f) for f in raw_facts if isinstance(f, list)] if isinstance(raw_facts, list) else []
    )
    return {
        "id": _str(envelope.get("id")),
        "ts": _str(envelope.get("ts")),
        "run-id": _str(payload.get("run-id")),
        "digest": _str(payload.get("digest")),
        "facts": facts,
        "sections": sections,
    }


class _Rebuilt(BuiltOnDemand):
    """Records built from events on demand."""

    def __init__(self, events: Events) -> None:
        super().__init__()
        self._events = events

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return shown(self)


_UNSETTLED = (-1).__eq__  # of a settle event: not settled yet
_UNSET = array("i", [-1])
_OUTCOME_CODES = {outcome: code for code, outcome in enumerate(OUTCOMES, 1)}


class ToolOps(_Rebuilt):
    """Tool operations in dispatch order."""

    def __init__(self, events: Events) -> None:
        super().__init__(events)
        # Arrays, not lists of ints: 4 bytes an operation each, not 36.
        self._dispatch = array("i")  # event index of each operation's dispatch line
        self._settle = array("i")  # event index of its settle line, -1 while unsettled
        self._outcome = bytearray()  # its settle's outcome (OUTCOMES' index + 1), 0 before
        # Its call id, as its number in the replay's texts (``Events.texts``), given when
        # first asked for (``call_numbers``): a replay that never asks (a load, a check)
        # keeps them as they came (``_unnumbered``), not looked up one at a time.
        self.texts = events.texts
        self._numbers = array("i")
        self._unnumbered: list[str] = []
        # Numbered as dispatched, where the message facts number call ids as read (the
        # call was just looked up: found at once), not all at the end.
        self.number_now = False
        self.call_ids = CallIds(self.texts, self._numbers, self._unnumbered)
        # Its run-id when that is a non-empty str, as a run's number (-1: none).
        self._runs = array("i")
        self.run_ids = CodedTexts(self._runs)
        # Its tool (``as_str`` of the dispatch's ``tool``): the views' tool column read
        # without reading each dispatch line again (``V1Ops.tool_column``).
        self._tools = array("i")
        self.tools = CodedTexts(self._tools)

    def dispatched(self, event: int, call_id: str, run_id: Any, tool: Any) -> None:
        self._dispatch.append(event)
        self._settle.append(-1)
        self._outcome.append(0)
        if self.number_now:
            found = self.texts.recent.get(call_id)  # (mostly: its call was just read)
            self.call_numbers.append(self.texts.number(call_id) if found is None else found)
        else:
            self._unnumbered.append(call_id)
        self._runs.append(self.run_ids.number(run_id) if isinstance(run_id, str) and run_id else -1)
        self._tools.append(self.tools.number(tool if type(tool) is str else _str(tool)))

    def dispatched_many(
        self,
        events: list[int],
        call_ids: list[str],
        run_ids: list[Any],
        tools: list[Any],
        numbers: list[int] | None = None,
    ) -> None:
        """``dispatched`` of each of these in turn, as columns (a block of a replay);
        ``numbers``: their call ids' numbers, where the caller numbered them."""
        n = len(events)
        self._dispatch.extend(events)
        self._settle.extend(_UNSET * n)
        self._outcome.extend(bytes(n))
        if numbers is not None:
            self.call_numbers.extend(numbers)
        elif self.number_now:
            texts = self.texts
            recent, number = texts.recent, texts.number
            self.call_numbers.extend(
                [number(c) if (found := recent.get(c)) is None else found for c in call_ids]
            )
        else:
            self._unnumbered.extend(call_ids)
        # (each distinct text numbered in the order first met, as one at a time would)
        runs = self.run_ids.number
        run_codes = {r: runs(r) for r in dict.fromkeys(run_ids) if isinstance(r, str) and r}
        self._runs.extend([run_codes.get(r, -1) for r in run_ids])
        names = self.tools.number
        tool_codes = {t: names(t if type(t) is str else _str(t)) for t in dict.fromkeys(tools)}
        self._tools.extend(map(tool_codes.__getitem__, tools))

    def settled_many(self, indexes: list[int], events: list[int], outcomes: list[str]) -> None:
        """``settled`` of each of these in turn (a block of a replay)."""
        settle, codes = self._settle, self._outcome
        for index, event, outcome in zip(indexes, events, outcomes, strict=True):
            settle[index] = event
            codes[index] = _OUTCOME_CODES[outcome]
        if self._cache:
            for index in indexes:
                self._cache.pop(index, None)

    @property
    def call_numbers(self) -> array[int]:
        """Each operation's call id, as its number in ``texts``."""
        if self._unnumbered:
            self._numbers.extend(map(self.texts.number, self._unnumbered))
            self._unnumbered.clear()
        return self._numbers

    def settled(self, index: int, event: int, outcome: object) -> None:
        """Operation ``index`` settled by line ``event``, with ``outcome`` (one of
        ``OUTCOMES``: the replay checked it)."""
        self._settle[index] = event
        self._outcome[index] = _OUTCOME_CODES[outcome]  # type: ignore[index]
        self._cache.pop(index, None)

    def is_settled(self, index: int) -> bool:
        return self._settle[index] >= 0

    def unsettled_flags(self, indexes: Iterable[int]) -> list[bool]:
        """``not is_settled`` of each of these operations (a model's per-batch walk)."""
        return list(map(_UNSETTLED, map(self._settle.__getitem__, indexes)))

    def outcome(self, index: int) -> str | None:
        """A settled operation's outcome, without reading its lines (None: unsettled)."""
        code = self._outcome[index]
        return OUTCOMES[code - 1] if code else None

    def outcome_count(self, outcome: str, stop: int) -> int:
        """How many of the first ``stop`` operations settled with ``outcome``."""
        if outcome not in OUTCOMES:
            return 0
        return self._outcome[:stop].count(OUTCOMES.index(outcome) + 1)

    def dispatch_event(self, index: int) -> int:
        """The event (its position in the replay) of operation ``index``'s dispatch."""
        return self._dispatch[index]

    def _build(self, index: int) -> dict[str, Any]:
        events = self._events
        settle = self._settle[index]
        return operation(events[self._dispatch[index]], events[settle] if settle >= 0 else None)

    def __len__(self) -> int:
        return len(self._dispatch)


class CallIds(ListLike[str]):
    """The operations' call ids, in dispatch order (``ToolOps.call_numbers`` read)."""

    __slots__ = ("_numbers", "_texts", "_unnumbered")

    # (their parts, not the ToolOps: no cycle, so a replay nobody holds is freed at once)
    def __init__(self, texts: Texts, numbers: array[int], unnumbered: list[str]) -> None:
        self._texts, self._numbers, self._unnumbered = texts, numbers, unnumbered

    def __len__(self) -> int:
        return len(self._numbers) + len(self._unnumbered)

    def _one(self, index: int) -> str:
        numbered = len(self._numbers)
        if index >= numbered:
            return self._unnumbered[index - numbered]
        return self._texts.text(self._numbers[index])


class CodedTexts(ListLike[str | None]):
    """A text of each operation, in dispatch order (its run id, None for none; its tool): a
    number each, each distinct text one str (a list of them was 8 bytes an operation)."""

    __slots__ = ("_code", "_names", "_numbers")

    def __init__(self, numbers: array[int]) -> None:
        self._numbers = numbers
        self._names: list[str] = []
        self._code: dict[str, int] = {}

    def number(self, text: str) -> int:
        code = self._code.get(text)
        if code is None:
            code = self._code[text] = len(self._names)
            self._names.append(text)
        return code

    def __len__(self) -> int:
        return len(self._numbers)

    def _one(self, index: int) -> str | None:
        number = self._numbers[index]
        return self._names[number] if number >= 0 else None


class RunContexts(_Rebuilt):
    """Run contexts in file order."""

    def __init__(self, events: Events) -> None:
        super().__init__(events)
        self._event = array("i")
        self.run_ids: list[str] = []

    def append_line(self, event: int, run_id: str) -> None:
        self._event.append(event)
        self.run_ids.append(run_id)

    def event(self, index: int) -> int:
        """The event (its position in the replay) of run context ``index``."""
        return self._event[index]

    def _build(self, index: int) -> dict[str, Any]:
        return run_context(self._events[self._event[index]])

    def __len__(self) -> int:
        return len(self._event)


class Stamps(ListLike[str | None]):
    """Timestamps (None: none) kept packed: a str each was 80 bytes (each run
    context's: ``ReplayState.run_started``)."""

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        self._texts = PackedIds()  # ("" for none)

    def append(self, ts: str | None) -> None:
        self._texts.append(ts or "")

    def __len__(self) -> int:
        return len(self._texts)

    def _one(self, index: int) -> str | None:
        return self._texts[index] or None


class Sections:
    """Section digest -> where its text is: the first run context that carries it (its
    index among them) and the section's place there. Each digest kept once, packed
    (``Texts``): a dict of str keys and tuples was 4 MB at 1 GB."""

    __slots__ = ("_carrier", "_digests", "_position")

    def __init__(self) -> None:
        self._digests = Texts()
        self._carrier = array("i")  # per digest: its run context
        self._position = array("i")  # ... and its place among that one's sections

    def add(self, digest: str, carrier: int, position: int) -> None:
        """Run context ``carrier`` has ``digest`` at ``position`` (kept if it is the first)."""
        if self._digests.number(digest) == len(self._carrier):
            self._carrier.append(carrier)
            self._position.append(position)

    def get(self, digest: str) -> tuple[int, int] | None:
        """``(run context, place)`` of ``digest``'s first carrier, or None."""
        number = self._digests.find(digest) if type(digest) is str else -1
        return None if number < 0 else (self._carrier[number], self._position[number])

    def __len__(self) -> int:
        return len(self._carrier)
