"""The tool operations' filter (``f`` on their tab): which tools and which states the
table shows. It reads each operation's tool and state as the sequence keeps them
(``op_tools``, ``op_states``: a 1 GB file's 100,000 operations are not made), when
the dialog opens and each snapshot while it is open (its counts follow a file still
loading or growing), and once a filter change or snapshot, never a draw."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from session_core.model import ToolOp, op_states, op_tools
from session_core.tool_ops import STATE_LABELS

from ..screens.filter import FilterList, FilterScreen
from .item_filter import lets_through, none_through

OPS_INTRO = (
    "Show the operations of these tools and in these states: space ticks one, "
    "tab goes on to the next list and the buttons"
)


@dataclass(slots=True)
class OpsFilter:
    """The tools and states shown (None: all) of those offered (others, come since, are
    shown: ``lets_through``)."""

    tools: frozenset[str] | None = None
    states: frozenset[str] | None = None
    offered: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())

    @property
    def on(self) -> bool:
        return self.tools is not None or self.states is not None

    def rows(self, ops: Sequence[ToolOp]) -> Sequence[int]:
        """The operations shown, by their index in ``ops`` (all: a range, nothing read)."""
        if not self.on:
            return range(len(ops))
        tool_of, state_of = op_tools(ops), op_states(ops)
        tools, states = self.tools, self.states
        offered_tools, offered_states = self.offered
        return [
            index
            for index in range(len(ops))
            if lets_through(tool_of(index), tools, offered_tools)
            and lets_through(state_of(index), states, offered_states)
        ]

    def dialog(self, ops: Sequence[ToolOp]) -> FilterScreen:
        """The ``f`` dialog: the tools and states ``ops`` has, how many of each."""
        return FilterScreen(OPS_INTRO, self.lists(ops))

    def lists(self, ops: Sequence[ToolOp]) -> list[FilterList]:
        """The dialog's lists: the tools and states ``ops`` has (those shown now too),
        how many of each."""
        tool_of, state_of = op_tools(ops), op_states(ops)
        tools = Counter(map(tool_of, range(len(ops))))
        states = Counter(map(state_of, range(len(ops))))
        tool_choices = sorted({*tools, *(self.tools or ())}, key=lambda t: (-tools[t], t))
        usual = [s for s in STATE_LABELS if s in states or s in (self.states or ())]
        rest = sorted({*states, *(self.states or ())}.difference(STATE_LABELS))
        return [
            FilterList("tools", "tools", tuple(tool_choices), self.tools, tools),
            FilterList("states", "states", (*usual, *rest), self.states, states, STATE_LABELS),
        ]

    def set(
        self, tools: frozenset[str] | None, states: frozenset[str] | None, screen: FilterScreen
    ) -> None:
        """Show these tools and states of those ``screen`` offered (None: all)."""
        offered_tools, offered_states = (frozenset(c.choices) for c in screen.lists)
        self.offered = (offered_tools, offered_states)
        self.tools = None if tools is None or tools >= offered_tools else tools
        self.states = None if states is None or states >= offered_states else states

    def said(self, shown: int, every: int) -> str:
        """What the header says of it (empty: no filter)."""
        return f"filter: {shown:,} of {every:,} operations shown (f)" if self.on else ""

    def empty_note(self, every: int) -> str | None:
        """What the table says when the filter leaves it empty."""
        return none_through(every, "operation") if self.on and every else None


__all__ = ["OpsFilter"]
