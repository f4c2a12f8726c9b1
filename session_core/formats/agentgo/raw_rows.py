"""agentgo's raw view: every committed message, with rows of their own between them
(``RawRows``): where a run's loop failed (``failure_item``), and each record kept raw
(``record_item``: of a type this reader does not know, or of a named type not in its
shape), as v1's raw view keeps a line of a type it does not know."""

from __future__ import annotations

from bisect import bisect_left
from operator import attrgetter
from typing import TYPE_CHECKING

from ...column_items import Items
from ...item_column import LINE_LIMIT, ItemColumn
from ...json_out import compact_json
from ...model import Item, Part
from ...text import as_str

if TYPE_CHECKING:
    from ...agentgo.calls import Run as AgentGoRun
    from ...agentgo.view import AgentGoView

_AT = attrgetter("at")  # a committed message's record index


def file_line(line: int, seq: int) -> int:
    """A record's file line: as read, or (a tail read from the file's end, whose line
    numbers are not known) its seq + 1, which is its line in a whole file; 0 where the
    seq is no line number either (a damaged one: 2**62 overflowed the column)."""
    if line:
        return line
    return seq + 1 if 0 <= seq < LINE_LIMIT else 0


def failure_item(run: AgentGoRun) -> Item:
    """The row that says where run ``run``'s loop failed, in its error's words (shown
    inert, as every text is): of kind ``error``, at its ``agent_end``'s line."""
    seq, line, time, _after = run.end_at or (run.last_seq, run.last_line, run.last_time, 0)
    return Item(
        f"failed-{run.id}",
        "system",
        [Part("text", f"run {run.id} {run.outcome()}")],  # (``failed: <its error>``)
        line=file_line(line, seq),
        kind="error",
        ts=time or None,
    )


def record_item(view: AgentGoView, index: int) -> Item:
    """Record ``index`` kept raw, as written (read again), as v1's raw view shows a line
    of a type it does not know: a ``record`` row, its type the part's name."""
    records = view.records
    record = records[index]
    seq, line = records.seqs[index], int(records.lines[index])
    return Item(
        f"seq-{seq}" if seq >= 0 else f"line-{line}",  # (a message's id is its seq's too)
        "system",
        [Part("other", compact_json(record), name=records.kind(index))],
        line=file_line(line, seq),
        kind="record",
        ts=as_str(record.get("time")) or None,
    )


class RawRows:
    """The raw view's rows of their own, each made once (a later snapshot's is the same),
    placed after the messages committed before them."""

    def __init__(self, view: AgentGoView) -> None:
        self.view = view
        self._own: dict[str | int, Item] = {}  # a failed run's id, a kept record's index

    def items(self, column: ItemColumn, n: int) -> Items:
        """The raw view of the column's first ``n`` items (its committed messages)."""
        view = self.view
        # (after how many messages, its seq, which)
        placed: list[tuple[int, int, str | int]] = [
            (run.end_at[3], run.end_at[0], run.id)
            for run in view.runs.values()
            if run.failed and run.end_at is not None and run.end_at[3] <= n
        ]
        kept = view.unknown or view.misshapen  # (nearly always neither: nothing looked at)
        if kept:
            messages, seqs = view.messages, view.records.seqs
            for index in (*view.unknown, *view.misshapen):
                after = bisect_left(messages, index, key=_AT)
                if after <= n:
                    placed.append((after, seqs[index], index))
        if not placed:
            return Items(column, n)
        placed.sort(key=lambda row: row[:2])
        own = self._own
        for _after, _seq, key in placed:
            if key not in own:
                own[key] = record_item(view, key) if type(key) is int else self._failure(key)
        at = {key: k for k, key in enumerate(own)}
        entries: list[int] = []
        taken = 0
        for after, _seq, key in placed:
            entries.extend(range(taken, after))
            taken = after
            entries.append(-1 - at[key])
        entries.extend(range(taken, n))
        return Items(column, entries=entries, own=list(own.values()))

    def _failure(self, run_id: str | int) -> Item:
        return failure_item(self.view.runs[str(run_id)])


__all__ = ["RawRows", "failure_item", "file_line", "record_item"]
