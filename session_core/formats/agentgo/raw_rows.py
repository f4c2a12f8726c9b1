"""agentgo's raw view: every committed message, with rows of their own between them
(``RawRows``): where a run's loop failed (``failure_item``), and each record kept raw
(``record_item``: of a type this reader does not know, or of a named type not in its
shape), as v1's raw view keeps a line of a type it does not know."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import pairwise
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


Row = tuple[int, int, str | int]  # (after how many messages, its seq, which)


class RawRows:
    """The raw view's rows of their own, each made once (a later snapshot's is the same),
    placed after the messages committed before them.

    Laid out as the snapshots come: a row found since the last goes at the end (rows
    are found in the order of the file), so a snapshot extends the entries by what came
    (every row placed again where one moved: rare); a snapshot's ``Items`` reads its
    first ``n`` of them, which never change."""

    def __init__(self, view: AgentGoView) -> None:
        self.view = view
        self._own: dict[str | int, Item] = {}  # a failed run's id, a kept record's index
        self._at: dict[str | int, int] = {}  # ... each one's place in ``_own``
        self._failed: dict[str, tuple[int, int]] = {}  # failed runs' rows: (after, seq)
        self._kept = (0, 0)  # of view.unknown and view.misshapen, looked at
        self._later: list[Row] = []  # rows after the column's items so far (none, nearly)
        self._entries: list[int] = []  # the column's items and the rows, as laid out
        self._taken = 0  # the column's items laid out
        self._last: tuple[int, int] | None = None  # the last row laid out: (after, seq)

    def items(self, column: ItemColumn, n: int, runs: Iterable[str] | None = None) -> Items:
        """The raw view of the column's first ``n`` items (its committed messages);
        ``runs``: the runs that may have failed since the last (None: every run)."""
        view = self.view
        found: list[Row] = []
        moved = False  # a failed run's row changed or went: every row placed again
        for run in sorted(
            (view.runs[r] for r in (view.runs if runs is None else runs) if r in view.runs),
            key=attrgetter("index"),
        ):
            row = (run.end_at[3], run.end_at[0]) if run.failed and run.end_at else None
            was = self._failed.get(run.id)
            if row == was:
                continue
            moved = moved or was is not None
            if row is None:
                del self._failed[run.id]
            else:
                self._failed[run.id] = row
                found.append((*row, run.id))
        unknown, misshapen = self._kept
        if len(view.unknown) > unknown or len(view.misshapen) > misshapen:
            messages, seqs = view.messages, view.records.seqs
            for index in (*view.unknown[unknown:], *view.misshapen[misshapen:]):
                found.append((bisect_left(messages, index, key=_AT), seqs[index], index))
            self._kept = (len(view.unknown), len(view.misshapen))
        if moved:
            return self._laid_out_again(column, n)
        if self._later:
            found, self._later = [*self._later, *found], []
        placed = sorted((row for row in found if row[0] <= n), key=lambda row: row[:2])
        self._later = [row for row in found if row[0] > n]
        first = placed[0][:2] if placed else None
        if first is not None and (
            first[0] < self._taken
            or (self._last is not None and first <= self._last)
            or any(a[:2] == b[:2] for a, b in pairwise(placed))
        ):
            return self._laid_out_again(column, n)  # (out of the file's order: damaged)
        return self._laid_out(column, n, placed)

    def _laid_out(self, column: ItemColumn, n: int, placed: list[Row]) -> Items:
        """``placed`` (sorted, each after every row laid out) after the entries so far."""
        own, at, entries = self._own, self._at, self._entries
        for _after, _seq, key in placed:
            if key not in own:
                at[key] = len(own)
                own[key] = record_item(self.view, key) if type(key) is int else self._failure(key)
        taken = self._taken
        for after, seq, key in placed:
            entries.extend(range(taken, after))
            taken = after
            entries.append(-1 - at[key])
            self._last = (after, seq)
        if self._last is None:  # (no row of its own yet: the column as it is)
            return Items(column, n)
        entries.extend(range(taken, n))
        self._taken = n
        return Items(column, entries=entries, own=list(own.values()), n=len(entries))

    def _laid_out_again(self, column: ItemColumn, n: int) -> Items:
        """Every row placed again, in new entries (an earlier snapshot keeps its own)."""
        view, seqs = self.view, self.view.records.seqs
        rows: list[Row] = [(a, s, r) for r, (a, s) in self._failed.items()]
        rows.sort(key=lambda row: view.runs[str(row[2])].index)
        messages = view.messages
        for index in (*view.unknown, *view.misshapen):
            rows.append((bisect_left(messages, index, key=_AT), seqs[index], index))
        self._entries, self._taken, self._last = [], 0, None
        placed = sorted((row for row in rows if row[0] <= n), key=lambda row: row[:2])
        self._later = [row for row in rows if row[0] > n]
        return self._laid_out(column, n, placed)

    def _failure(self, run_id: str | int) -> Item:
        return failure_item(self.view.runs[str(run_id)])


__all__ = ["RawRows", "failure_item", "file_line", "record_item"]
