"""What every view needs of a message line, taken at feed time and kept in arrays.

A big transcript has 100,000s of message lines; an object per line (its role,
line count, tool calls, usage...) was about 60 MB at 1 GB. ``FactsColumn``
packs the small facts of each line into one 64-bit word, keeps the tool-call
ids and names as their numbers in the replay's ``Texts`` (one flat array) and the
usage numbers in arrays, and hands out a ``MessageFacts`` only when one is asked for; the views
that walk every line read single facts (``lines``, ``calls``, ``usage``...).
"""

from __future__ import annotations

import math
import weakref
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from .item_heights import blank_head
from .message import raku_str
from .message_usage import MessageUsage, v1_usage

if TYPE_CHECKING:
    from .events import Events
    from .packed_ids import Texts

LINES_COUNTED = 8  # a message's lines are counted this far: enough for any folded row

_ROLES = {r: r for r in ("system", "user", "assistant", "tool")}
_ROLE_CODES = {"system": 1, "user": 2, "assistant": 3, "tool": 4}
_ROLE_NAMES = ("", "system", "user", "assistant", "tool")

# One word per line: 0 for a line without facts (not a message, or not taken yet).
_TAKEN = 1
_ROLE_SHIFT = 1  # 3 bits: _ROLE_CODES, 0 for any other role (kept in FactsColumn._roles)
_LINES_SHIFT = 4  # 4 bits
_REASONING = 1 << 8
_TURN = 1 << 9
_ERROR = 1 << 10
_ANSWERS = 1 << 11  # its tool-call-id is the first of its texts
_USAGE = 1 << 12
_ODD = 1 << 13  # a count too big for its bits, or usage numbers no array holds
_COUNT_SHIFT = 14  # 16 bits: items of its tool-calls list
_CALLS_SHIFT = 30  # 16 bits: (id, name) pairs among its texts
_SMALL = 0xFFFF
_CALLS_MASK = _SMALL << _CALLS_SHIFT
# What ``shape`` is made of, but for the call id answered (``FactsColumn.shape_keys``).
_SHAPE = 7 << _ROLE_SHIFT | 15 << _LINES_SHIFT | _REASONING | _ANSWERS | _ODD | _CALLS_MASK

# Token counts in int32s (a count past them is kept as it is, in _odd).
_NONE = -(1 << 31)  # an unknown token count, in the usage array
_LOW, _HIGH = _NONE + 1, (1 << 31) - 1  # what else the array holds


def ends_a_run(role: object, call_count: int) -> bool:
    """A v1 message a run can end on: the model's answer asking for no tool. After any
    other the writer was to go on (the model to be called, a call to be run): a file whose
    last message is another, its writer gone, was cut off."""
    return role == "assistant" and call_count == 0


@dataclass(slots=True)
class MessageFacts:
    """What views need of a message line without parsing it again."""

    role: str  # "user" when the line names none
    lines: int  # lines of its content ("" is one line), counted up to LINES_COUNTED
    # (or 1 where the first lines, those a folded row shows, are blank: one note)
    reasoning: bool
    call_count: int  # items of its tool-calls list (whatever they are)
    calls: tuple[tuple[str, str], ...]  # (call id, function name) of each tool-call object
    answers: str | None  # its tool-call-id
    turn: bool  # counts as a turn for usage
    usage: MessageUsage | None
    error: bool = False  # its is-error flag


def message_facts(
    payload: Mapping[str, Any], strings: dict[str, str] | None = None
) -> MessageFacts:
    """A message payload's facts. Given ``strings`` (a replay's), its call ids and tool
    names are kept as one str object each, however many lines name them."""
    return MessageFacts(*payload_fields(payload, strings))


def payload_fields(payload: Mapping[str, Any], strings: dict[str, str] | None) -> tuple[Any, ...]:
    # Run for every message line of every replay: plain lookups, no helpers on the way.
    get = payload.get
    role = get("role")
    if type(role) is not str:
        role = raku_str(role)  # (as the reference makes it text: ``message.raku_str``)
    content = get("content")
    if type(content) is not str:
        content = raku_str(content)
    # A folded row needs only its first few lines: count no further, mostly.
    lines = content.count("\n", 0, 4096) + 1
    if lines <= LINES_COUNTED and len(content) > 4096:
        lines = content.count("\n") + 1
    if lines > 1 and content[:1].isspace() and blank_head(content):
        lines = 1  # (its folded row is one note: ``item_heights.text_rows``)
    raw_calls = get("tool-calls")
    calls: tuple[tuple[str, str], ...] = ()
    count = 0
    if type(raw_calls) is list:
        count = len(raw_calls)
        found = []
        for call in raw_calls:
            if isinstance(call, dict):
                cid = call.get("id")
                if type(cid) is not str:
                    cid = str(cid or "")
                function = call.get("function")
                name = function.get("name") if isinstance(function, dict) else None
                if type(name) is not str:
                    name = str(name or "")
                if strings is not None:
                    cid = strings.setdefault(cid, cid)
                    name = strings.setdefault(name, name)
                found.append((cid, name))
        calls = tuple(found)
    tcid = get("tool-call-id")
    if tcid is not None:
        if type(tcid) is not str:
            tcid = raku_str(tcid)
        if strings is not None:
            tcid = strings.setdefault(tcid, tcid)
    usage = get("usage")
    reported = v1_usage(payload) if isinstance(usage, dict) else None
    return (
        _ROLES.get(role) or role or "user",
        min(lines, LINES_COUNTED),
        bool(get("reasoning")),
        count,
        calls,
        tcid,
        role == "assistant" or reported is not None,
        reported,
        bool(get("is-error")),
    )


_BLOCK_SHIFT = 5  # lines of a block: an _Offsets base each
_FAR = 255  # an _Offsets byte saying the offset is kept whole (in its dict)


class _Offsets:
    """Per line, where it starts in a column that grows as lines are given facts (its
    texts, its usage row): a byte each, from the column's length when the line's block
    of 32 lines began (4 bytes a line in an int array were 2.7 MB at 1 GB). An offset
    that does not fit (a line given its facts late, a block of many texts) is kept whole
    in a dict. The bytes reach as far as the last line given one (``put``)."""

    __slots__ = ("base", "far", "rel")

    def __init__(self) -> None:
        self.rel = bytearray()  # per line
        self.base = array("I")  # per block: the column's length when it began
        self.far: dict[int, int] = {}

    def grow(self, length: int, at: int) -> None:
        """Lines up to ``length`` (offset 0 each); the column is ``at`` long now."""
        missing = length - len(self.rel)
        if missing > 0:
            self.rel.extend(bytes(missing))
            blocks = ((length - 1) >> _BLOCK_SHIFT) + 1 - len(self.base)
            if blocks > 0:
                self.base.extend(array("I", [at]) * blocks)

    def put(self, index: int, offset: int, at: int) -> None:
        """Line ``index`` starts at ``offset``; the column was ``at`` long before it."""
        if index >= len(self.rel):  # (the lines before it have no offset: none asked for)
            self.grow(index + 1, at)
        rel = offset - self.base[index >> _BLOCK_SHIFT]
        if 0 <= rel < _FAR:
            self.rel[index] = rel
        else:
            self.rel[index] = _FAR
            self.far[index] = offset

    def get(self, index: int) -> int:
        """Line ``index``'s offset (one it was given: ``put``)."""
        rel = self.rel[index]
        return self.base[index >> _BLOCK_SHIFT] + rel if rel != _FAR else self.far[index]

    def given(self, index: int) -> bool:
        """Whether line ``index`` was given an offset other than its block's start."""
        return index < len(self.rel) and self.rel[index] != 0


class FactsColumn(Sequence[MessageFacts | None]):
    """``MessageFacts`` for message lines, None for others, kept packed (see the module).

    A message fed without its facts (a replay that may never need them) has them
    taken when first asked for.
    """

    def __init__(self, events: Events, texts: Texts) -> None:
        # A weak reference: no cycle with the Events that own this, so a replay nobody
        # holds any more is freed at once, without waiting for (or escaping, frozen)
        # the cyclic collector.
        self._events = weakref.ref(events)
        # The arrays reach as far as the last line given facts: a replay that takes none
        # (a check) keeps none, 16 bytes a line.
        self._length = 0  # lines
        self._words = array("Q")  # per line: the packed facts, 0 for none
        self._text_at = _Offsets()  # per line: where its texts start in _texts
        self._usage_at = _Offsets()  # per line: its usage row + 1 (byte 0: none)
        # Per line, from _text_at: its tool-call-id, then each call's id and name, as
        # their numbers in ``texts`` (a call id is a str there only when asked for).
        self._texts = array("i")
        self.texts = texts
        self._numbers = array("i")  # per usage row: input, output, total, cache read
        self._costs = array("d")  # per usage row: cost (NaN: unknown)
        self._roles: dict[int, str] = {}  # lines whose role is none of the four
        self._odd: dict[int, tuple[int, int, MessageUsage | None]] = {}  # counts, usage

    # -- filling ---------------------------------------------------------------

    def append(self) -> None:
        """Append a line without facts: not a message, or one whose are taken late."""
        words = self._words
        if self._length == len(words) != 0:  # (facts taken as fed: the arrays keep up)
            words.append(0)
        self._length += 1

    def pad(self, length: int) -> None:
        """Append lines without facts until there are ``length``."""
        if self._length == len(self._words) != 0:  # (as ``append``)
            self._reach(length)
        self._length = max(self._length, length)

    def _reach(self, length: int) -> None:
        """The arrays hold the first ``length`` lines (those past the last with facts: 0)."""
        missing = length - len(self._words)
        if missing > 0:
            self._words.extend(array("Q", bytes(8 * missing)))

    def take_fields(self, fields: tuple[Any, ...]) -> None:
        """Append the facts of a message line (``payload_fields``' tuple: no object)."""
        index = self._length
        if len(self._words) < index:
            self._reach(index)
        self._words.append(self._pack(index, fields))
        self._length = index + 1

    def _pack(self, index: int, fields: tuple[Any, ...]) -> int:
        """The word of line ``index``, its texts and usage numbers stored on the way, and
        where they start (``_Offsets.put``). Run for every message line of a replay."""
        role, lines, reasoning, count, calls, tcid, turn, usage, error = fields
        code = _ROLE_CODES.get(role, 0)
        word = _TAKEN | code << _ROLE_SHIFT | lines << _LINES_SHIFT
        if not code:
            self._roles[index] = role
        if reasoning:
            word |= _REASONING
        if turn:
            word |= _TURN
        if error:
            word |= _ERROR
        texts = self._texts
        if tcid is not None or calls:
            self._text_at.put(index, len(texts), len(texts))
        if tcid is not None or calls:
            # (``Texts.number``, its recent dict looked in first here: most texts are
            # there, a tool's name always)
            table = self.texts
            recent, number = table.recent, table.number
            if tcid is not None:
                word |= _ANSWERS
                found = recent.get(tcid)
                texts.append(number(tcid) if found is None else found)
            for cid, name in calls:
                found = recent.get(cid)
                texts.append(number(cid) if found is None else found)
                found = recent.get(name)
                texts.append(number(name) if found is None else found)
        odd_usage = None
        if usage is not None:
            word |= _USAGE
            inp, out, total, cache = usage.input, usage.output, usage.total, usage.cache_read
            if (
                (inp is None or _LOW <= inp <= _HIGH)
                and (out is None or _LOW <= out <= _HIGH)
                and (total is None or _LOW <= total <= _HIGH)
                and (cache is None or _LOW <= cache <= _HIGH)
            ):
                self._numbers.extend(
                    (
                        _NONE if inp is None else inp,
                        _NONE if out is None else out,
                        _NONE if total is None else total,
                        _NONE if cache is None else cache,
                    )
                )
                cost, costs = usage.cost, self._costs
                costs.append(math.nan if cost is None else cost)
                self._usage_at.put(index, len(costs), len(costs) - 1)
            else:
                odd_usage = usage
        pairs = len(calls)
        if count >= _SMALL or pairs >= _SMALL or odd_usage is not None:
            word |= _ODD
            self._odd[index] = (count, pairs, odd_usage)
            count, pairs = min(count, _SMALL), min(pairs, _SMALL)
        packed: int = word | count << _COUNT_SHIFT | pairs << _CALLS_SHIFT
        return packed

    def _word(self, index: int) -> int:
        words = self._words
        if index < len(words):
            word = words[index]
            if word:
                return word
        events = self._events()
        if events is not None and events.kinds[index] == "message":
            payload = events[index].get("payload")
            fields = payload_fields(payload if isinstance(payload, dict) else {}, None)
            self._reach(index + 1)
            word = self._words[index] = self._pack(index, fields)
            return word
        return 0

    # -- reading one fact ----------------------------------------------------------

    def is_message(self, index: int) -> bool:
        return bool(self._word(index))

    def taken_role(self, index: int) -> str | None:
        """A message line's role if its facts were taken already (never reads the line)."""
        words = self._words
        return self.role(index) if index < len(words) and words[index] else None

    def role(self, index: int) -> str:
        word = self._word(index)
        code = word >> _ROLE_SHIFT & 7
        return _ROLE_NAMES[code] if code else self._roles.get(index, "user")

    def lines(self, index: int) -> int:
        return self._word(index) >> _LINES_SHIFT & 15

    def reasoning(self, index: int) -> bool:
        return bool(self._word(index) & _REASONING)

    def turn(self, index: int) -> bool:
        return bool(self._word(index) & _TURN)

    def error(self, index: int) -> bool:
        return bool(self._word(index) & _ERROR)

    def call_count(self, index: int) -> int:
        word = self._word(index)
        if word & _ODD:
            return self._odd[index][0]
        return word >> _COUNT_SHIFT & _SMALL

    def answers(self, index: int) -> str | None:
        if self._word(index) & _ANSWERS:
            return self.texts.text(self._texts[self._text_at.get(index)])
        return None

    def calls(self, index: int) -> tuple[tuple[str, str], ...]:
        word = self._word(index)
        pairs = self._odd[index][1] if word & _ODD else word >> _CALLS_SHIFT & _SMALL
        if not pairs:
            return ()
        start = self._text_at.get(index) + (1 if word & _ANSWERS else 0)
        texts, text = self._texts, self.texts.text
        return tuple(
            (text(texts[at]), text(texts[at + 1])) for at in range(start, start + 2 * pairs, 2)
        )

    def usage(self, index: int) -> MessageUsage | None:
        word = self._word(index)
        if not word & _USAGE:
            return None
        row = self._usage_at.get(index) if self._usage_at.given(index) else 0
        if not row:
            return self._odd[index][2]
        numbers = self._numbers
        at = 4 * row - 4
        inp, out, total, cache = numbers[at], numbers[at + 1], numbers[at + 2], numbers[at + 3]
        cost = self._costs[row - 1]
        return MessageUsage(
            None if inp == _NONE else inp,
            None if out == _NONE else out,
            None if total == _NONE else total,
            None if cache == _NONE else cache,
            None if cost != cost else cost,  # NaN: unknown
        )

    def shape(self, index: int) -> tuple[str, int, bool, int, str | None]:
        """``(role, lines, reasoning, calls, answers)`` of a message line at once (what
        an item of it is measured by; ``calls``: how many (id, name) pairs it has)."""
        word = self._word(index)
        code = word >> _ROLE_SHIFT & 7
        role = _ROLE_NAMES[code] if code else self._roles.get(index, "user")
        pairs = self._odd[index][1] if word & _ODD else word >> _CALLS_SHIFT & _SMALL
        answers = None
        if word & _ANSWERS:
            answers = self.texts.text(self._texts[self._text_at.get(index)])
        return role, word >> _LINES_SHIFT & 15, bool(word & _REASONING), pairs, answers

    def shape_keys(self, indexes: Iterable[int]) -> list[int]:
        """A key of each of these message lines' ``shape`` but for the call id it answers
        (``shape_of_key``): the same key, the same role, lines, reasoning, calls and
        whether it answers one, so that a walk of every line measures each shape once."""
        self._reach(self._length)
        words = self._words
        return [(words[index] or self._word(index)) & _SHAPE for index in indexes]

    @staticmethod
    def shape_of_key(key: int) -> tuple[str, int, bool, int, bool] | None:
        """``(role, lines, reasoning, calls, answers)`` of the lines of ``key``
        (``shape_keys``); None where the line itself says more (a role none of the four,
        a count too big for its bits: ``shape`` tells)."""
        code = key >> _ROLE_SHIFT & 7
        if not code or key & _ODD:
            return None
        pairs = key >> _CALLS_SHIFT & _SMALL
        lines = key >> _LINES_SHIFT & 15
        return _ROLE_NAMES[code], lines, bool(key & _REASONING), pairs, bool(key & _ANSWERS)

    def call_texts(
        self, indexes: Iterable[int]
    ) -> tuple[list[str], list[int], list[str], list[str]]:
        """Of these message lines, in order: the call ids they answer, then each call's
        line (its index), id and name (``answers`` and ``calls`` of each, in one walk)."""
        answers, at_lines, ids, names = self.call_numbers(indexes)
        text = self.texts.text
        return [*map(text, answers)], at_lines, [*map(text, ids)], [*map(text, names)]

    def call_numbers(
        self, indexes: Iterable[int]
    ) -> tuple[list[int], list[int], list[int], list[int]]:
        """``call_texts`` with each text as its number in ``texts`` (none made a str)."""
        self._reach(self._length)
        words, texts, odd = self._words, self._texts, self._odd
        rel, base, far = self._text_at.rel, self._text_at.base, self._text_at.far
        answers: list[int] = []
        at_lines: list[int] = []
        ids: list[int] = []
        names: list[int] = []
        for index in indexes:
            word = words[index] or self._word(index)
            pairs = odd[index][1] if word & _ODD else word >> _CALLS_SHIFT & _SMALL
            if not (pairs or word & _ANSWERS):
                continue
            at = rel[index]  # (``_Offsets.get``, inline)
            at = base[index >> _BLOCK_SHIFT] + at if at != _FAR else far[index]
            if word & _ANSWERS:
                answers.append(texts[at])
                at += 1
            if pairs:
                at_lines.extend([index] * pairs)
                ids.extend(texts[at : at + 2 * pairs : 2])
                names.extend(texts[at + 1 : at + 2 * pairs : 2])
        return answers, at_lines, ids, names

    def call_facts(self, indexes: Iterable[int]) -> Iterator[tuple[int, int, str | None]]:
        """``(index, calls, answers)`` of these message lines: ``calls`` is how many
        (id, name) pairs ``calls(index)`` has (an index's walk, without a call per fact)."""
        self._reach(self._length)
        words, text_at, texts = self._words, self._text_at.get, self._texts
        for index in indexes:
            word = words[index] or self._word(index)
            if not word & (_ANSWERS | _CALLS_MASK):
                yield index, 0, None
                continue
            pairs = self._odd[index][1] if word & _ODD else word >> _CALLS_SHIFT & _SMALL
            yield index, pairs, self.texts.text(texts[text_at(index)]) if word & _ANSWERS else None

    # -- the sequence --------------------------------------------------------------

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> MessageFacts | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[MessageFacts | None]: ...

    def __getitem__(self, index: int | slice) -> MessageFacts | list[MessageFacts | None] | None:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not self._word(index):
            return None
        return MessageFacts(
            self.role(index),
            self.lines(index),
            self.reasoning(index),
            self.call_count(index),
            self.calls(index),
            self.answers(index),
            self.turn(index),
            self.usage(index),
            self.error(index),
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
