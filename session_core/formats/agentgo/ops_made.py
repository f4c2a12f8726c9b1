"""A snapshot of agentgo's tool operations (``AgentGoOps``): the list the model made,
with each by its call id as the model kept it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from ...indexed import Indexed
from ...model import ToolOp
from ...tool_ops import OpsSequence


class AgentGoOps(OpsSequence):
    """A snapshot's tool operations (a list), with each by its call id as the model kept
    it (``by_call``: a dict of every operation was made again per draw)."""

    __slots__ = ("_by_call", "_ops")

    def __init__(self, ops: list[ToolOp], by_call: dict[str, ToolOp]) -> None:
        self._ops = ops
        self._by_call = by_call

    def __len__(self) -> int:
        return len(self._ops)

    def _one(self, index: int) -> ToolOp:
        return self._ops[index]

    def __iter__(self) -> Iterator[ToolOp]:
        return iter(self._ops)

    def by_call(self) -> Mapping[str, ToolOp]:
        return self._by_call

    def state_of(self, index: int) -> str:
        return self._ops[index].state

    def count_state(self, state: str) -> int:
        return sum(1 for op in self._ops if op.state == state)

    def tool_column(self) -> Sequence[str]:
        return _Tools(self._ops)


class _Tools(Indexed[str]):
    """Each operation's tool, read from it when asked for (as a list of them said it)."""

    __slots__ = ("_ops",)

    def __init__(self, ops: list[ToolOp]) -> None:
        self._ops = ops

    def __len__(self) -> int:
        return len(self._ops)

    def _one(self, index: int) -> str:
        return self._ops[index].tool
