"""Tool operations kept packed: where each one's call and result are, not copies of them.

A rollout of a long session has a tool operation every few lines. Each is still a
``ToolOp`` (``Transcript.tool_operations`` is a list of them), but a ``PackedOp`` keeps
only its state and names: its line, timestamps, message id, arguments, result, outcome
and duration are read from the raw items of its call and result (an ``OpColumn`` the
builder fills) when asked for. What is set on it later (``op.detail = ...``) is kept
and wins, as on any ``ToolOp``; a copy (``dataclasses.replace``) is a plain one.
"""

from __future__ import annotations

import dataclasses
import math
from array import array
from collections.abc import Callable
from typing import Any, TypeVar

from ...item_column import ItemColumn
from ...parts import PartRef
from ...tool_ops import LazyToolOp, OpField, ToolOp

_T = TypeVar("_T")
_LINE = ToolOp.__dict__["line"]  # the dataclass's slots
_DURATION = ToolOp.__dict__["duration"]


class OpColumn:
    """Per operation: the raw item of its call, of its result (-1: none yet), and its
    duration in seconds (NaN: not known)."""

    __slots__ = ("call", "duration", "raw", "result")

    def __init__(self, raw: ItemColumn) -> None:
        self.raw = raw
        self.call = array("l")
        self.result = array("l")
        self.duration = array("d")

    def add(self, call: int) -> int:
        self.call.append(call)
        self.result.append(-1)
        self.duration.append(math.nan)
        return len(self.call) - 1

    def answered(self, at: int, result: int, duration: float | None) -> None:
        self.result[at] = result
        self.duration[at] = math.nan if duration is None else duration

    def ref(self, index: int) -> PartRef | None:
        """The (only) part of a packed raw item, where it is in the file."""
        raw = self.raw
        source = raw.source
        return PartRef.at(source, raw.span[index], 0) if source is not None else None


class _Packed(OpField[_T]):
    """A ``PackedOp`` field: what was set on it (as on a ``LazyToolOp``) when not None,
    else what its call's (or result's) raw item in the column says."""

    __slots__ = ("own", "read", "result")

    def __init__(self, name: str, result: bool, read: Callable[[OpColumn, int], _T]) -> None:
        self.own = LazyToolOp.__dict__.get(name, ToolOp.__dict__[name])  # as on a LazyToolOp
        self.result = result  # read from the result's item (else the call's)
        self.read = read  # the value from the column, at the item's index

    def get(self, op: PackedOp) -> _T:
        value: _T = self.own.__get__(op, ToolOp)
        column = op._column
        if value is not None or column is None:
            return value
        index = (column.result if self.result else column.call)[op._at]
        return value if index < 0 else self.read(column, index)

    def __set__(self, op: PackedOp, value: _T) -> None:
        self.own.__set__(op, value)


def _data(ref: PartRef | None) -> Any:
    return None if ref is None else ref.data


def _text(ref: PartRef | None) -> str | None:
    return None if ref is None else ref.text


class PackedOp(LazyToolOp):
    """A ``ToolOp`` whose call and result are read from an ``OpColumn`` (see the module):
    a field set on it (not None) wins over what the column says."""

    __slots__ = ("_at", "_column")

    def __init__(self, *args: Any, column: OpColumn | None = None, at: int = -1, **kw: Any) -> None:
        self._column = column
        self._at = at
        LazyToolOp.__init__(self, *args, **kw)

    @classmethod
    def packed(
        cls, column: OpColumn, at: int, call_id: str, tool: str, run_id: str | None
    ) -> PackedOp:
        """A running operation of the column (made for every call of a file: its slots
        are set directly, not through ``__init__`` and its setters)."""
        op = _new(cls)
        for put, value in _HIDDEN:
            put(op, value)
        op.call_id, op.tool, op.state, op.run_id = call_id, tool, "running", run_id
        op.progress, op.subagent, op.sidechain = _PLAIN
        op._args_from = op._result_from = op._detail_from = None
        op._column, op._at = column, at
        return op

    def _item(self, result: bool) -> int:
        """The raw item of its call or result (-1: none, or not packed)."""
        column = self._column
        if column is None:
            return -1
        return (column.result if result else column.call)[self._at]

    arguments = _Packed[Any]("arguments", False, lambda column, at: _data(column.ref(at)))
    result = _Packed[str | None]("result", True, lambda column, at: _text(column.ref(at)))
    # the outcome: the result's data
    detail = _Packed[Any]("detail", True, lambda column, at: _data(column.ref(at)))
    result_line = _Packed[int | None]("result_line", True, lambda column, at: column.raw.line[at])
    message_id = _Packed[str | None]("message_id", False, lambda column, at: column.raw.id_of(at))
    started = _Packed[str | None]("started", False, lambda column, at: column.raw.ts_of(at))
    ended = _Packed[str | None]("ended", True, lambda column, at: column.raw.ts_of(at))

    @property
    def line(self) -> int:
        index = self._item(False)
        if index < 0 or self._column is None:
            line: int = _LINE.__get__(self, ToolOp)
            return line
        return self._column.raw.line[index]

    @line.setter
    def line(self, value: int) -> None:
        _LINE.__set__(self, value)

    @property
    def duration(self) -> float | None:
        value: float | None = _DURATION.__get__(self, ToolOp)
        column = self._column
        if value is not None or column is None:
            return value
        seconds = column.duration[self._at]
        return None if math.isnan(seconds) else seconds

    @duration.setter
    def duration(self, value: float | None) -> None:
        _DURATION.__set__(self, value)


_new = object.__new__
_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(ToolOp) if f.default is not dataclasses.MISSING
}
# The slots a packed op reads through descriptors of its own, with what they start as
# (``ToolOp``'s defaults): set through the slots' own setters. The others, set in
# ``packed`` itself (a store each: a setter call costs five), are these.
_SET_IN_PACKED = ("progress", "subagent", "sidechain")
_HIDDEN: list[tuple[Any, Any]] = [
    (ToolOp.__dict__[name].__set__, value)
    for name, value in _DEFAULTS.items()
    if name not in _SET_IN_PACKED
]
_PLAIN = tuple(_DEFAULTS[name] for name in _SET_IN_PACKED)
assert all(getattr(PackedOp, name) is ToolOp.__dict__[name] for name in _SET_IN_PACKED)

__all__ = ["OpColumn", "PackedOp"]
