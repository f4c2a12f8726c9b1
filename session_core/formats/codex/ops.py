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
from typing import Any

from ...item_column import ItemColumn
from ...model import LazyToolOp, PartRef, ToolOp

_SLOT: dict[str, Any] = {
    name: ToolOp.__dict__[name]
    for name in (
        "arguments",
        "result",
        "detail",
        "line",
        "result_line",
        "message_id",
        "started",
        "ended",
        "duration",
    )
}


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
        for put, value in _BLANK:
            put(op, value)
        _put_call_id(op, call_id)
        _put_tool(op, tool)
        _put_run_id(op, run_id)
        _put_column(op, column)
        _put_at(op, at)
        return op

    def _item(self, result: bool) -> int:
        """The raw item of its call or result (-1: none, or not packed)."""
        column = self._column
        if column is None:
            return -1
        return (column.result if result else column.call)[self._at]

    def _part(self, result: bool) -> PartRef | None:
        index = self._item(result)
        return None if index < 0 or self._column is None else self._column.ref(index)

    @property
    def arguments(self) -> Any:
        value = super().arguments
        ref = self._part(False) if value is None else None
        return value if ref is None else ref.data

    @arguments.setter
    def arguments(self, value: Any) -> None:
        _SLOT["arguments"].__set__(self, value)
        if value is not None:
            self._args_from = None

    @property
    def result(self) -> str | None:
        value = super().result
        ref = self._part(True) if value is None else None
        return value if ref is None else ref.text

    @result.setter
    def result(self, value: str | None) -> None:
        _SLOT["result"].__set__(self, value)
        if value is not None:
            self._result_from = None

    @property
    def detail(self) -> Any:
        value = super().detail
        ref = self._part(True) if value is None else None  # the outcome: the result's data
        return value if ref is None else ref.data

    @detail.setter
    def detail(self, value: Any) -> None:
        _SLOT["detail"].__set__(self, value)
        if value is not None:
            self._detail_from = None

    @property
    def line(self) -> int:
        index = self._item(False)
        if index < 0 or self._column is None:
            line: int = _SLOT["line"].__get__(self, ToolOp)
            return line
        return self._column.raw.line[index]

    @line.setter
    def line(self, value: int) -> None:
        _SLOT["line"].__set__(self, value)

    def _slot(self, name: str) -> Any:
        return _SLOT[name].__get__(self, ToolOp)

    @property
    def result_line(self) -> int | None:
        value: int | None = self._slot("result_line")
        index = self._item(True) if value is None else -1
        return value if index < 0 or self._column is None else self._column.raw.line[index]

    @result_line.setter
    def result_line(self, value: int | None) -> None:
        _SLOT["result_line"].__set__(self, value)

    @property
    def message_id(self) -> str | None:
        value: str | None = self._slot("message_id")
        index = self._item(False) if value is None else -1
        return value if index < 0 or self._column is None else self._column.raw.id_of(index)

    @message_id.setter
    def message_id(self, value: str | None) -> None:
        _SLOT["message_id"].__set__(self, value)

    @property
    def started(self) -> str | None:
        value: str | None = self._slot("started")
        index = self._item(False) if value is None else -1
        return value if index < 0 or self._column is None else self._column.raw.ts_of(index)

    @started.setter
    def started(self, value: str | None) -> None:
        _SLOT["started"].__set__(self, value)

    @property
    def ended(self) -> str | None:
        value: str | None = self._slot("ended")
        index = self._item(True) if value is None else -1
        return value if index < 0 or self._column is None else self._column.raw.ts_of(index)

    @ended.setter
    def ended(self, value: str | None) -> None:
        _SLOT["ended"].__set__(self, value)

    @property
    def duration(self) -> float | None:
        value: float | None = self._slot("duration")
        column = self._column
        if value is not None or column is None:
            return value
        seconds = column.duration[self._at]
        return None if math.isnan(seconds) else seconds

    @duration.setter
    def duration(self, value: float | None) -> None:
        _SLOT["duration"].__set__(self, value)


_new = object.__new__
# Every slot of a packed op and what it starts as (``ToolOp``'s defaults).
_BLANK: list[tuple[Any, Any]] = [
    (ToolOp.__dict__[f.name].__set__, f.default)
    for f in dataclasses.fields(ToolOp)
    if f.default is not dataclasses.MISSING
]
_BLANK += [(ToolOp.__dict__["state"].__set__, "running")]
_BLANK += [(LazyToolOp.__dict__[name].__set__, None) for name in LazyToolOp.__slots__]
_put_call_id = ToolOp.__dict__["call_id"].__set__
_put_tool = ToolOp.__dict__["tool"].__set__
_put_run_id = ToolOp.__dict__["run_id"].__set__
_put_column = PackedOp.__dict__["_column"].__set__
_put_at = PackedOp.__dict__["_at"].__set__

__all__ = ["OpColumn", "PackedOp"]
