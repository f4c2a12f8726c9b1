"""Running sums over transcript records, one record at a time: v1 windows, agentgo runs.

Used by ``scan`` to summarise a file without keeping its records; usage is
counted the way ``session_core.usage`` counts it (unknown, never 0).
"""

from __future__ import annotations

import io
import os
import threading
from dataclasses import replace
from typing import IO, Any

from .block_lines import whole_line_runs
from .errors import TranscriptError
from .facts import ends_a_run
from .formats.agentgo.asked import AskTally, ids_asked
from .indexing import LAZY, IndexError_
from .item_ends import LAST_LOOK
from .message_usage import counts_as_turn, exec_end_usage, v1_usage
from .open_work import OpenWork
from .reader import check_envelope, loads_line
from .replay import payload_of
from .text import count
from .titles import agentgo_prompt
from .tool_ops import state_label
from .usage import Usage, refused_end


def text_or_none(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    return value if isinstance(value, str) else str(value)


class V1Window:
    """Counts over a window of v1 lines, without replay rules that need the whole file."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.messages = 0
        self.calls = 0
        self.usage = Usage()
        self.open_ops: set[str] = set()
        # Settles of operations dispatched before the window: whether others dispatched
        # then are still open, the window cannot tell (``open_before`` reads that).
        self.settled_before: set[str] = set()
        self.ends_a_run = True  # the last message read can end a run (``facts.ends_a_run``)
        self.first_ts: str | None = None
        self.last_ts: str | None = None  # the last line's with a time (a string)
        self.unstamped = 0  # the lines after it

    @property
    def last_time(self) -> str | None:
        """The time ``Transcript.last_time`` says (``last_stamp``): the last line's with a
        time, a string, among the last ``LAST_LOOK``."""
        return self.last_ts if self.unstamped < LAST_LOOK else None

    def feed(self, raw: bytes, number: int) -> None:
        env = loads_line(raw)  # (as the whole file's replay reads a line)
        if not isinstance(env, dict):
            raise TranscriptError("is not a JSON object", line=number)
        try:
            check_envelope(env, number, self.where, raw)
        except TranscriptError as err:
            raise TranscriptError(err.reason, line=number) from None
        ts = env.get("ts")
        self.first_ts = self.first_ts or text_or_none(ts)
        if ts and isinstance(ts, str):
            self.last_ts, self.unstamped = ts, 0
        else:
            self.unstamped += 1
        kind, payload = env["type"], payload_of(env)
        if kind == "message":
            self.messages += 1
            tool_calls = payload.get("tool-calls")
            count = len(tool_calls) if isinstance(tool_calls, list) else 0
            self.calls += count
            self.ends_a_run = ends_a_run(payload.get("role"), count)
            if counts_as_turn(payload):
                self.usage.add(v1_usage(payload))
        elif kind == "tool-dispatched":
            self.open_ops.add(text_or_none(env.get("id")) or "")
        elif kind == "tool-settled":
            op_id = text_or_none(payload.get("op-id")) or ""
            if op_id in self.open_ops:
                self.open_ops.discard(op_id)
            else:
                self.settled_before.add(op_id)


_OPS = (b'"tool-dispatched"', b'"tool-settled"')  # (a line naming neither is no operation's)


# What ``open_before`` found of each file (its device and inode): how far it read, the bytes
# just before that, and what was open there. A row read again (a live big file, every
# change; a browser's rescan) reads on from there: a file only grows, and one whose
# bytes there differ (rewritten, or another file given the inode) is read from the start.
_READ_BEFORE: dict[tuple[int, int], tuple[int, bytes, frozenset[str]]] = {}
_READ_BEFORE_LOCK = threading.Lock()  # (the browser's rows are read in workers)
_READ_BEFORE_KEPT = 256  # files
_MARK = 64  # bytes before where a read ended, compared before reading on


def _mark(fh: IO[bytes], at: int) -> bytes:
    fh.seek(max(0, at - _MARK))
    return fh.read(min(at, _MARK))


def _file_key(fh: IO[bytes]) -> tuple[int, int] | None:
    try:
        st = os.fstat(fh.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None  # (a stream of a compressed file: read whole each time)
    return (st.st_dev, st.st_ino)


def open_before(fh: IO[bytes], end: int, block: int = 1 << 20) -> set[str]:
    """``open_ops_before``, read on from where it last read this file (``_READ_BEFORE``)."""
    key = _file_key(fh)
    start, open_ops = 0, set[str]()
    known = _READ_BEFORE.get(key) if key is not None else None
    if known is not None and known[0] <= end and _mark(fh, known[0]) == known[1]:
        start, open_ops = known[0], set(known[2])
    open_ops = open_ops_before(fh, start, end, open_ops, block)
    if key is not None:
        read = (end, _mark(fh, end), frozenset(open_ops))
        with _READ_BEFORE_LOCK:
            _READ_BEFORE.pop(key, None)
            _READ_BEFORE[key] = read
            if len(_READ_BEFORE) > _READ_BEFORE_KEPT:
                del _READ_BEFORE[next(iter(_READ_BEFORE))]  # (the least recently read)
    return open_ops


def open_ops_before(
    fh: IO[bytes], start: int, end: int, open_ops: set[str], block: int = 1 << 20
) -> set[str]:
    """The ids of v1 operations open at byte ``end`` of the file (whole lines before it),
    ``open_ops`` those open at ``start`` (a line's start), read from there: the lines
    that name a dispatch or a settle are found by their bytes and parsed alone, every
    other line is passed over unread (a line that does not parse is passed over too:
    damage before a window is not looked for). A big file's row reads this before every
    tail window (``scan_v1.v1_summary``): a block is searched where it was read, not copied."""
    for data, begin, stop in whole_line_runs(fh, start, end, block):
        _ops_in(data, begin, stop, open_ops)
    return open_ops


def _ops_in(data: bytes, start: int, stop: int, open_ops: set[str]) -> None:
    """Take the operation lines of ``data[start:stop]`` (whole lines), in file order."""
    starts: set[int] = set()  # (the lines naming either, each once)
    for needle in _OPS:
        at = data.find(needle, start, stop)
        while at >= 0:
            starts.add(max(data.rfind(b"\n", start, at) + 1, start))
            at = data.find(needle, at + len(needle), stop)
    view = memoryview(data)
    for line in sorted(starts):
        _take_op(view[line : data.find(b"\n", line, stop)], open_ops)


def _take_op(raw: memoryview, open_ops: set[str]) -> None:
    """A dispatch opens its id, a settle closes its op-id: read by the replay's typed
    decode of those fields alone (``indexing.LAZY``), else whole, as the window reads."""
    try:
        lazy = LAZY.decode(raw)
    except IndexError_:
        lazy = None
    if lazy is not None:
        if lazy.v != 1:
            return
        if lazy.type == "tool-dispatched":
            open_ops.add(lazy.id)
        elif lazy.type == "tool-settled":
            open_ops.discard((lazy.payload and lazy.payload.op_id) or "")
        return
    try:
        env = loads_line(bytes(raw))
    except ValueError:
        return
    if not isinstance(env, dict) or env.get("v") != 1:
        return
    if env.get("type") == "tool-dispatched":
        open_ops.add(text_or_none(env.get("id")) or "")
    elif env.get("type") == "tool-settled":
        open_ops.discard(text_or_none(payload_of(env).get("op-id")) or "")


class AgentGoTally:
    """Runs, calls, messages and usage of agentgo records, fed one at a time (linear)."""

    def __init__(self) -> None:
        self.messages = 0
        self.calls = 0
        self.usage = Usage()
        self.model: str | None = None
        self.first_time: str | None = None
        self.last_time: str | None = None
        self.open_runs: dict[str, None] = {}  # insertion-ordered set
        self.open_calls: set[tuple[str, str, Any]] = set()
        self.open_model_calls: set[tuple[str, str, Any]] = set()  # (of them, the model's)
        self.title: str | None = None  # the first user message's text (a row's title)
        self.last_run: str | None = None  # the run of the last record with one
        self.failed_runs: set[str] = set()  # those whose agent_end carries an error
        # the calls asked for that no execution is of (``check``'s "never dispatched")
        self.asks = AskTally()

    def feed(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        data = record.get("data")
        data = data if isinstance(data, dict) else {}
        when = text_or_none(record.get("time"))
        self.first_time = self.first_time or when
        self.last_time = when or self.last_time
        run_id = text_or_none(record.get("run_id"))
        seq = record.get("seq")
        if run_id is not None:
            self.last_run = run_id
            if kind == "run_close":
                self.open_runs.pop(run_id, None)
            else:
                self.open_runs.setdefault(run_id, None)
        if kind == "model_request" and self.model is None:
            config = data.get("config")
            self.model = text_or_none(config.get("model")) if isinstance(config, dict) else None
        elif kind == "model_exec_end":
            used = exec_end_usage(data)
            if used is not None or not refused_end(data):  # (refused: no response)
                self.usage.add(used)
        elif kind == "agent_end" and data.get("error"):  # (``agentgo.calls.Run.failed``)
            self.failed_runs.add(run_id or "")
        elif kind == "message_end":
            message = data.get("message")
            if isinstance(message, dict):
                self.messages += 1
                self.title = self.title or agentgo_prompt(message)
                parts = message.get("content")
                if isinstance(parts, list):
                    calls = [
                        p for p in parts if isinstance(p, dict) and p.get("type") == "tool_call"
                    ]
                    self.calls += len(calls)
                    if calls and message.get("tool_call_id") is None:  # (``asked_ids``)
                        self.asks.asked(
                            ids_asked(calls), seq if type(seq) is int else 0, run_id or ""
                        )
        execution = record.get("execution")
        if isinstance(execution, dict):
            attempt = execution.get("attempt")
            key = (run_id or "", text_or_none(execution.get("id")) or "", attempt)
            if kind is not None and type(seq) is int:
                model = execution.get("kind") == "model"
                self.asks.execution(key, str(kind), seq, data, model)
            if kind in ("model_exec_end", "tool_exec_end"):
                self.open_calls.discard(key)
                self.open_model_calls.discard(key)
            elif kind in ("model_request", "tool_exec_start", "tool_invoke_start"):
                # (a ``retry`` opens nothing: it follows an attempt's end, and the next
                # attempt opens with its own request)
                self.open_calls.add(key)
                if kind == "model_request":
                    self.open_model_calls.add(key)

    def usage_so_far(self) -> Usage:
        """Its usage, a model call not ended (no ``model_exec_end`` yet) counted a response
        that reported none, as the neutral model counts it (``FedCallUsage.tally``)."""
        if not self.open_model_calls:
            return self.usage
        return replace(self.usage, turns=self.usage.turns + len(self.open_model_calls))

    def open_work(self) -> OpenWork:
        """Its runs without ``run_close`` and calls without their terminal event, in the
        words every surface says what was in flight by (cut off: the row's status says
        whether its writer may be at work, ``so far``)."""
        model = len(self.open_model_calls)
        return OpenWork(
            calls=len(self.open_calls) - model, model_calls=model, runs=len(self.open_runs)
        )

    def unstarted(self, writer_gone: bool = False) -> str | None:
        """The calls asked for that no execution is of, in ``check``'s words (the last
        run's not dispatched yet while it is open: its writer may be at work; never
        dispatched once ``writer_gone``, as ``unstarted_state`` says); None: none."""
        at_work = not writer_gone and self.last_run in self.open_runs
        said = self.asks.counts(self.last_run if at_work else None)
        words = [
            f"{count(said[state], 'call')} {state_label(state)}"
            for state in ("never-dispatched", "not-dispatched-yet")
            if said[state]
        ]
        return "; ".join(words) or None


__all__ = ["AgentGoTally", "V1Window", "text_or_none"]
