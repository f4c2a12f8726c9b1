"""A block of a v1 replay's lines applied at once: the index pass's rules as columns.

A file replay (``reader._replay_into``) reads a block of lines at a time. Most of its
lines are messages, dispatches and settles the index pass decodes in full; a line at a
time, their bookkeeping in Python cost about twice the decode itself. Here a block is
decoded in one ``map``, its lines split into runs of such lines between the others,
and each run applied as columns (a list extended, a dict updated), the same state a
line at a time would leave (``tests/test_block_replay.py`` holds the two paths to each
other). A run this cannot vouch for (a settle before its dispatch, an op-id dispatched
twice, an outcome no settle may have...) is declined and goes a line at a time, which
says what is wrong; so does every other line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import orjson

from .events import _MORE, SPAN_BITS, SPAN_MAX, LazyPayload
from .indexing import INDEXED, IndexError_, body_is_sticky, message_fields
from .records import OUTCOMES
from .replay import _KINDS
from .utf8 import is_utf8

if TYPE_CHECKING:
    from .replay import ReplayState

__all__ = ["BlockPass", "pieces"]

_ID = attrgetter("id")
_TYPE = attrgetter("type")
_V = attrgetter("v")
_ONE = {1}
_OUTCOMES = frozenset(OUTCOMES)
_MESSAGE, _DISPATCH, _SETTLE = "message", "tool-dispatched", "tool-settled"
# Types whose lines go one at a time: they change the entries in place.
_ALONE = frozenset(("compaction", "elision"))

# A block's lines: (first, stop) of each run taken at once; the lines between go one at a
# time.
Runs = list[tuple[int, int]]


class BlockPass:
    """Decodes a block and applies its runs to one replay (``ReplayState``)."""

    def __init__(
        self, state: ReplayState, decode: Callable[[bytes | memoryview], Any], facts: bool
    ) -> None:
        self.state = state
        self.decode = decode
        self.facts = facts
        kinds = state.events.kinds
        self._codes = {kind: kinds.code(kind) for kind in (_MESSAGE, _DISPATCH, _SETTLE)}
        self.envs: list[Any] = []
        self.kinds: list[str] = []
        self.lens: list[int] = []
        self.sides: dict[int, dict[str, Any]] = {}

    def plan(
        self,
        parts: Sequence[bytes | memoryview],
        first_alone: bool = False,
        utf8_ok: Callable[[bytes | memoryview], bool] | None = None,
    ) -> Runs | None:
        """The runs of ``parts`` (whole lines, each with its \\n) to take at once, or
        None for a block to go a line at a time (a line not decoded, another version,
        a line past a span's reach, a line of another type that its plain parse would
        see otherwise). With ``first_alone`` the first line goes alone (a file's
        first, which must be its session-meta). ``utf8_ok`` tells a line's UTF-8 (lines
        that are views into a block: ``utf8.BlockLines.ok``); else each is bytes."""
        try:
            envs = list(map(self.decode, parts))
        except IndexError_:
            return None
        if set(map(_V, envs)) != _ONE:
            return None
        lens = list(map(len, parts))
        if max(lens) > SPAN_MAX:
            return None
        kinds = list(map(_TYPE, envs))
        alone: list[int] = [0] if first_alone else []  # lines that go one at a time
        sides: dict[int, dict[str, Any]] = {}  # lines of other types: parsed, as plain
        if not INDEXED.issuperset(kinds):
            for i, kind in enumerate(kinds):
                if kind in INDEXED or (first_alone and not i):
                    continue
                if kind in _ALONE:
                    alone.append(i)
                    continue
                value = _side_value(parts[i], envs[i])
                if value is None:
                    return None
                sides[i] = value
        if utf8_ok is not None:
            alone.extend(
                i for i, raw in enumerate(parts) if kinds[i] in INDEXED and not utf8_ok(raw)
            )
            alone.sort()
        elif not all(map(bytes.isascii, parts)):  # type: ignore[arg-type]
            alone.extend(
                i
                for i, raw in enumerate(parts)
                if not raw.isascii() and kinds[i] in INDEXED and not is_utf8(raw)  # type: ignore[union-attr]
            )
            alone.sort()
        self.envs, self.kinds, self.lens, self.sides = envs, kinds, lens, sides
        runs: Runs = []
        first = 0
        for i in alone:
            if i > first:
                runs.append((first, i))
            first = i + 1
        if first < len(parts):
            runs.append((first, len(parts)))
        return runs

    def spans(self, offset: int) -> list[int]:
        """The planned block's spans in the file, its first line at byte ``offset`` (its
        lines each with its \\n, the span without it)."""
        lens = self.lens
        starts = accumulate(lens, initial=offset)
        return [s << SPAN_BITS | (size - 1) for s, size in zip(starts, lens, strict=False)]

    def apply(self, first: int, stop: int, lines: Sequence[int], spans: Sequence[int]) -> bool:
        """Apply lines ``first``..``stop`` of the planned block, whose lines are numbered
        ``lines`` in the file and kept by their ``spans`` (each as the block's); False
        (nothing applied) for a run to go a line at a time."""
        spans = spans[first:stop]
        if 0 in spans:  # (a line kept as its bytes: one at a time)
            return False
        state = self.state
        envs = self.envs[first:stop]
        kinds = self.kinds[first:stop]
        ops = _ops_of(state, envs, kinds)
        if ops is None:
            return False
        events = state.events
        codes = self._codes
        sides = [(i, value) for i, value in self.sides.items() if first <= i < stop]
        if sides:
            codes = dict(codes)
            for _i, value in sides:
                kind = value["type"]
                if kind not in codes:
                    code = events.kinds.code(_KINDS.get(kind) or kind)
                    if code == _MORE:  # (past 255 types: kept by index, a line at a time)
                        return False
                    codes[kind] = code
        at = len(state.event_lines)
        events._spans.extend(spans)
        if events._others is not None:
            events._others.extend(repeat(None, stop - first))
        # Messages: each an entry, in order.
        where = [i for i, kind in enumerate(kinds) if kind == _MESSAGE]
        if where:
            bodies = [envs[i].payload for i in where]
            ats = [at + i for i in where]
            ids = [envs[i].id for i in where]
            entries = state.entries
            base = len(entries) - state._shift
            state._index.update(zip(ids, range(base, base + len(ids)), strict=True))
            entries.extend(
                zip(
                    ids,
                    map(LazyPayload, repeat(events, len(ats)), ats),
                    list(map(body_is_sticky, bodies)),
                    repeat(None),
                )
            )
            state.entry_events.extend(ats)
            state.message_events.extend(ats)
        dispatch_at, dispatch_ids, settle_at, settle_ids, outcomes = ops
        tool_ops = state.tool_ops
        dispatched = [envs[i].payload for i in dispatch_at]
        call_ids = [(b.call_id if b is not None else None) or "" for b in dispatched]
        numbers = self._take_facts(where, envs, at, dispatch_at, call_ids) if self.facts else None
        if dispatch_at:
            start = len(tool_ops._dispatch)
            state._pending_ops.update(
                zip(dispatch_ids, range(start, start + len(dispatch_ids)), strict=True)
            )
            state.op_ids.extend(dispatch_ids)
            tool_ops.dispatched_many(
                [at + i for i in dispatch_at],
                call_ids,
                [b.run_id if b is not None else None for b in dispatched],
                [b.tool if b is not None else None for b in dispatched],
                numbers,
            )
            state.pending_count += len(dispatch_at)
        if settle_at:
            state.tool_ops.settled_many(
                list(map(state._pending_ops.pop, settle_ids)),
                [at + i for i in settle_at],
                outcomes,
            )
            state.pending_count -= len(settle_at)
        events.kinds.codes.extend(map(codes.__getitem__, kinds))
        events.ids.extend(list(map(_ID, envs)))
        state.event_lines.extend(lines[first:stop])
        state.last_line = lines[stop - 1]
        events.pad_facts()
        for i, value in sides:
            payload = value.get("payload")
            state.feed_side(
                value["type"], value, payload if type(payload) is dict else {}, at + i - first
            )
        return True

    def _take_facts(
        self, where: list[int], envs: list[Any], at: int, dispatch_at: list[int], calls: list[str]
    ) -> list[int] | None:
        """Take the facts of the run's messages (at ``where``), and where the operations
        number their call ids as dispatched (``ToolOps.number_now``) number the run's
        dispatches' ``calls`` between them, in the file's order as a line at a time
        numbers them (a message's facts number its calls); those numbers."""
        column = self.state.events.facts
        texts = self.state.events.texts
        numbers: list[int] | None = [] if self.state.tool_ops.number_now else None
        recent, number = texts.recent, texts.number
        d, count = 0, len(dispatch_at) if numbers is not None else 0
        for i in where:
            while d < count and dispatch_at[d] < i:
                found = recent.get(calls[d])
                numbers.append(number(calls[d]) if found is None else found)  # type: ignore[union-attr]
                d += 1
            column.pad(at + i)
            column.take_fields(message_fields(envs[i].payload))
        for call in calls[d:count]:
            found = recent.get(call)
            numbers.append(number(call) if found is None else found)  # type: ignore[union-attr]
        return numbers


def pieces(runs: list[tuple[int, int]] | None, whole: int) -> list[tuple[int, int, bool]]:
    """A block's lines in order as (first, stop, taken at once): the ``runs`` and the
    lines between them (all of them one at a time without runs)."""
    if runs is None:
        return [(0, whole, False)]
    pieces = []
    first = 0
    for start, stop in runs:
        if start > first:
            pieces.append((first, start, False))
        pieces.append((start, stop, True))
        first = stop
    if first < whole:
        pieces.append((first, whole, False))
    return pieces


def _side_value(raw: bytes | memoryview, env: Any) -> dict[str, Any] | None:
    """A line of another type parsed as the plain path parses it, or None where that
    path would see it otherwise than its typed decode did (it then says why)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if (
        type(value) is not dict
        or type(value.get("v")) is not int
        or value["v"] != 1
        or value.get("type") != env.type
        or not env.type  # (an empty type: refused, by the plain path, at its own line)
        or value.get("id") != env.id
    ):
        return None
    return value


_Ops = tuple[list[int], list[str], list[int], list[str], list[str]]


def _ops_of(state: ReplayState, envs: list[Any], kinds: list[str]) -> _Ops | None:
    """A run's dispatches (positions, ids) and settles (positions, op-ids, outcomes), or
    None where taking them as columns could differ from one at a time: a settle refused
    (no op-id, an outcome no settle may have, an operation not pending, settled twice or
    dispatched after it). An op-id dispatched again is the new operation's from then, as
    one at a time: a settle before that dispatch is one the order check declines."""
    dispatch_at = [i for i, kind in enumerate(kinds) if kind == _DISPATCH]
    settle_at = [i for i, kind in enumerate(kinds) if kind == _SETTLE]
    if not dispatch_at and not settle_at:
        return [], [], [], [], []
    pending = state._pending_ops
    dispatch_ids = [envs[i].id for i in dispatch_at]
    dispatched = dict(zip(dispatch_ids, dispatch_at, strict=True))  # (an id's last)
    bodies = [envs[i].payload for i in settle_at]
    if None in bodies:
        return None
    settle_ids = [body.op_id for body in bodies]
    outcomes = [body.outcome for body in bodies]
    if not _OUTCOMES.issuperset(outcomes) or len(set(settle_ids)) != len(settle_ids):
        return None
    for op_id, at in zip(settle_ids, settle_at, strict=True):
        if not op_id:
            return None
        where = dispatched.get(op_id)
        if (where is None and op_id not in pending) or (where is not None and where > at):
            return None
    return dispatch_at, dispatch_ids, settle_at, settle_ids, outcomes
