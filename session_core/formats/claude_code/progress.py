"""Runs of adjacent ``progress`` lines: one condensed item per run.

Real files have hundreds of thousands of progress lines (hooks, bash output, a
subagent's copies): their dicts are not kept, only each run's kinds and line count,
the latest bash output of a running call and the agent a call's progress names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model import Part
from .lines import Line
from .threading import PROGRESS

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder


# The progress the runs condense (claude-code.md); any other kind is a line of a newer
# writer, kept whole as its own item: its payload is nothing this reader knows to drop.
KNOWN = frozenset(
    {"bash_progress", "hook_progress", "agent_progress", "waiting_for_task", "mcp_progress"}
)


def progress_known(facts: Line) -> bool:
    data = facts.data
    return data is None or data.type is None or data.type in KNOWN


class ProgressRuns:
    """The open run of adjacent progress lines (its item, part, first line, lines and
    its latest line's time), and the texts and parts closed runs share."""

    __slots__ = ("index", "kinds", "last_ts", "line", "lines", "part", "shared", "side", "texts")

    def __init__(self) -> None:
        self.index = -1  # the open run's item (-1: none open)
        self.part: Part | None = None
        self.line = 0
        self.lines = 0
        self.last_ts: str | None = None  # (the item's own is its first line's)
        self.kinds: dict[str, int] = {}
        self.side = False
        self.shared: dict[str, list[Part]] = {}  # text -> a closed run's parts
        self.texts: dict[tuple[tuple[str, int], ...], str] = {}  # kinds -> text

    def feed(
        self, b: ClaudeCodeBuilder, facts: Line, line: int, uuid: str | None, side: bool
    ) -> None:
        """A progress line: it joins the open run, or starts one."""
        data = facts.data
        dtype = (data.type if data is not None else None) or "?"
        b.progress_counts[dtype] += 1
        call_id = facts.parentToolUseID
        if call_id is not None and call_id in b.calls.open:  # (its call not answered yet)
            b.progress_at[call_id] = (line, facts.timestamp)
        if call_id is not None and data is not None:
            if dtype == "bash_progress":
                output = data.output
                at = b.calls.find(call_id)
                if output is not None and (at < 0 or b.calls.result[at] < 0):
                    b.progress_out[call_id] = output
            elif dtype == "agent_progress":
                agent = data.agentId
                if agent:
                    b.agent_of.setdefault(call_id, agent)
        index = self.index
        if index >= 0 and self.side == side and self.line + self.lines == line:
            if uuid is not None:
                b.threads.add(uuid, facts.parentUuid, line, PROGRESS, side)
                b.node_raw.append(index)
                b.has_main = b.has_main or not side
            self.lines += 1
            self.last_ts = facts.timestamp or self.last_ts
            kinds = self.kinds
            kinds[dtype] = kinds.get(dtype, 0) + 1
            if dtype != "hook_progress" and len(kinds) == 2 and kinds[dtype] == 1:
                b.raw.set_kind(index, "progress")  # not hooks alone any more
            return
        self.close(b)
        node = b.node_for(facts, uuid, line, PROGRESS, side)
        self.kinds = {dtype: 1}
        self.side = side
        part = Part("other", text=dtype, name="progress")
        self.part = part
        self.line = line
        self.lines = 1
        self.last_ts = facts.timestamp
        self.index = b.add_item(
            [part],
            line,
            node,
            side,
            role="system",
            kind="hook" if dtype == "hook_progress" else "progress",
            ts=facts.timestamp,
            keep=True,
        )

    def close(self, b: ClaudeCodeBuilder) -> None:
        """The open run of progress lines ends."""
        index = self.index
        if index < 0:
            return  # (none open: most lines)
        self.write(b)
        if self.part is not None:
            # A closed run's part is one of a few texts: one list for each, shared.
            text = self.part.text
            shared = self.shared.get(text)
            if shared is None:
                shared = self.shared[text] = [self.part]
            b.raw.parts[index] = shared
        self.index = -1
        self.part = None

    def write(self, b: ClaudeCodeBuilder) -> None:
        """The open run's item says what it holds, how many lines and when its last was
        written (when it ends or is shown, not per line: a run can be thousands of lines)."""
        index, part = self.index, self.part
        if index >= 0 and part is not None:
            # (a run's kinds and counts are one of a few: each text made once)
            kinds = tuple(self.kinds.items())
            text = self.texts.get(kinds)
            if text is None:
                text = self.texts[kinds] = _text(kinds)
            part.text = text
            if self.lines > 1:
                b.raw.set_lines(index, self.lines)
                b.raw.set_end(index, self.line + self.lines - 1, self.last_ts)
            b.raw.changed(index)


def _text(kinds: tuple[tuple[str, int], ...]) -> str:
    return ", ".join(f"{k}" if n == 1 else f"{k} ×{n}" for k, n in kinds)


__all__ = ["ProgressRuns"]
