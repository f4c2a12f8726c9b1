"""What the agentgo panes compute from an ``AgentGoView``: labels, summaries, call stats.

Every function here returns plain strings made inert (``viewer.safe``); widgets
turn them into ``Text`` with styles of their own, never into markup.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from rich.cells import cell_len

from session_core.agentgo.records import ODD_RUN
from session_core.agentgo.view import AgentGoView, Call, CallKey, message_text
from session_core.cells import pad_cells
from session_core.json_out import json_text
from session_core.text import count, count_text, written_count

from .safe import clip, one_line

_TIME = re.compile(r"^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d(?:\.\d+)?)Z?$")


def source_time(ts: object) -> str:
    """The time of day of a source timestamp, at the precision the file gives it."""
    if not isinstance(ts, str) or not ts:
        return ""
    match = _TIME.match(ts)
    return match.group(1) if match else one_line(ts, 22)


def fitted_time(ts: object, cells: int) -> str:
    """``source_time`` in exactly ``cells`` cells: a time of day without its fraction
    where that does not fit, one that does not parse cut (``…``: it ran over its column,
    and the rest of the row, in agentgo's timeline), padded by cells (a wide character
    takes two: padded by characters, a cut one still ran over)."""
    time = source_time(ts)
    if isinstance(ts, str) and _TIME.match(ts) and cell_len(time) > cells:
        time = time.partition(".")[0]
    return pad_cells(clip(time, cells), cells)


def short(value: object, width: int = 8) -> str:
    """The head of an id, enough to tell runs and sessions apart."""
    return "" if value is None else one_line(value)[:width]


def compact_json(value: Any, width: int | None = None) -> str:
    """``value`` as one line of JSON (strings as they are), inert, clipped to ``width``."""
    if isinstance(value, str):
        return one_line(value, width)
    return one_line(json_text(value), width)


def args_differ(call: Call) -> bool:
    """The actual arguments (after middleware) are not the ones the model asked for."""
    return call.args_differ


def call_label_parts(call: Call) -> tuple[str, str, str]:
    """(kind, name, qualifier): ``tool``, ``read_file``, ``call-1``; model: id and model.

    From the facts the view kept: no record is read again for a label.
    """
    kind = one_line(call.kind or "call", 8)
    if call.tool_start_at >= 0:
        return kind, one_line(call.tool_name or call.id, 28), one_line(call.id, 16)
    model = one_line(call.model, 20) if call.request_at >= 0 and call.model else ""
    return kind, one_line(call.id, 28), model


def kinds_summary(messages: object) -> str:
    """``5 messages: 2 user, 2 assistant, 1 tool_result``."""
    if not isinstance(messages, list):
        return "no messages"
    counts: Counter[str] = Counter()
    for message in messages:
        kind = message.get("kind") if isinstance(message, dict) else None
        counts[one_line(kind or "?", 20)] += 1
    parts = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    noun = "message" if len(messages) == 1 else "messages"
    return f"{len(messages)} {noun}" + (f": {parts}" if parts else "")


def message_excerpt(message: object, width: int) -> str:
    """One line saying what a message holds: its text, else its tool calls."""
    if not isinstance(message, dict):
        return compact_json(message, width)
    text = message_text(message).strip()
    if text:
        return one_line(text, width)
    calls = tool_calls(message)
    if calls:
        return one_line("calls " + ", ".join(name for _, name, _ in calls), width)
    return ""


def tool_calls(message: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """The (id, name, arguments) of each tool_call part of a message."""
    parts = message.get("content")
    out: list[tuple[str, str, Any]] = []
    if isinstance(parts, list):
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "tool_call":
                out.append(
                    (one_line(part.get("id")), one_line(part.get("name")), part.get("arguments"))
                )
    return out


def outcome_of(data: dict[str, Any]) -> str:
    error = data.get("error")
    if error:
        return f"failed: {one_line(error)}"
    reason = data.get("stop_reason")
    return f"ended: {one_line(reason)}" if reason else "ended"


def record_summary(record: dict[str, Any], width: int = 200) -> str:
    """What one record says, on one line, for the timeline."""
    kind = record.get("type")
    data = record.get("data")
    data = data if isinstance(data, dict) else {}
    text: str
    if kind == "session_start":
        text = f"version {compact_json(data.get('version'))}"
    elif kind in ("turn_start", "turn_end"):
        text = f"turn {compact_json(data.get('turn_index'))}"
    elif kind == "agent_end":
        text = outcome_of(data)
    elif kind == "model_request":
        tools = data.get("tools")
        config = data.get("config")
        model = config.get("model") if isinstance(config, dict) else None
        text = kinds_summary(data.get("messages"))
        text += f" · {count(len(tools) if isinstance(tools, list) else 0, 'tool')}"
        if model:
            text += f" · model {one_line(model, 30)}"
        if data.get("snapshot_error"):
            text += f" · snapshot_error: {one_line(data.get('snapshot_error'))}"
    elif kind == "model_exec_end":
        if data.get("error"):
            text = f"error: {one_line(data.get('error'))}"
            if "partial_message" in data:
                text += " · partial: " + message_excerpt(data.get("partial_message"), 60)
        else:
            text = "ok: " + message_excerpt(data.get("message"), width)
    elif kind == "message_end":
        message = data.get("message")
        who = message.get("kind") if isinstance(message, dict) else "?"
        text = f"{one_line(who, 16)}: {message_excerpt(message, width)}"
    elif kind == "tool_exec_start":
        text = f"{one_line(data.get('tool'), 30)} {compact_json(data.get('args'), width)}"
    elif kind == "tool_invoke_start":
        text = f"actual args {compact_json(data.get('args'), width)}"
    elif kind == "tool_exec_end":
        text = "error" if data.get("is_error") else "ok"
        if data.get("disposition"):
            text += f" ({one_line(data.get('disposition'), 20)})"
        if "result" in data:
            text += ": " + compact_json(data.get("result"), width)
    elif kind == "retry":
        text = f"attempt {compact_json(data.get('attempt'))} after: {one_line(data.get('error'))}"
        if data.get("delay_ms") is not None:
            text += f" (delay {compact_json(data.get('delay_ms'))} ms)"
    elif kind == "model_response":
        text = "recovery " + compact_json(data.get("recovery"), width)
    elif kind in ("context_projected", "context_compacted"):
        bits = []  # (the counts as ``diff`` says them: left out ``?``, written null ``null``)
        before, after = written_count(data, "tokens_before"), written_count(data, "tokens_after")
        if before is not None or after is not None:
            bits.append(f"tokens {count_text(before)} → {count_text(after)}")
        if data.get("summary"):
            bits.append(one_line(data.get("summary")))
        text = " · ".join(bits)
    elif kind == "checkpoint":
        snapshot = data.get("snapshot")
        if isinstance(snapshot, dict):
            text = "snapshot {" + ", ".join(one_line(k, 20) for k in list(snapshot)[:8]) + "}"
        else:
            text = "snapshot " + compact_json(snapshot, 60)
    elif kind in ("run_start", "run_close", "agent_start"):
        text = compact_json(data, width) if data else ""
    else:
        text = compact_json(data, width)
    return one_line(text, width)


def touched_calls(view: AgentGoView, start: int) -> list[CallKey]:
    """The calls that records ``start:`` are about, each once, in first-touch order."""
    order = view.call_order
    calls = view.records.calls
    seen: dict[int, None] = {}
    for index in range(start, len(calls)):
        at = calls[index]
        if at >= 0:
            seen[at] = None
    return [order[at] for at in seen]


class CallStats:
    """Call statuses per run, kept by re-checking only the calls an update touched; and
    how many runs are closed and failed, by re-checking only the runs its records
    touched (``update_runs``): a header per batch walked every run."""

    def __init__(self) -> None:
        self.status: dict[CallKey, str] = {}
        self.per_run: dict[str, Counter[str]] = {}
        self.total: Counter[str] = Counter()
        self.closed = 0  # runs with their run_close
        self.failed = 0  # runs whose agent_end carries an error (``Run.failed``)
        self._runs: list[tuple[bool, bool]] = []  # each run's (closed, failed), as counted
        self._records = 0  # of view.records, whose runs were looked at

    def update_runs(self, view: AgentGoView) -> None:
        """The runs of the records since the last update (and the runs new since) counted
        again: a run closes and fails by its own records alone."""
        runs, counted, order = view.records.runs, self._runs, view.run_order
        new = set(runs[self._records :])
        self._records = len(runs)
        # (ODD_RUN: a run_id not a str, whose record names no run index; rare: every run)
        touched = range(len(order)) if ODD_RUN in new else {at for at in new if at >= 0}
        for at in sorted({*touched, *range(len(counted), len(order))}):
            run = view.runs[order[at]]
            now = (run.closed, run.failed)
            was = counted[at] if at < len(counted) else (False, False)
            if at < len(counted):
                counted[at] = now
            else:
                counted.append(now)
            self.closed += now[0] - was[0]
            self.failed += now[1] - was[1]

    def run_states(self, view: AgentGoView) -> Counter[str]:
        """How many runs are open, closed and interrupted (``view.run_status``): only the
        last can be open, while its writer is not known gone."""
        order = view.run_order
        last = view.runs[order[-1]] if order else None
        open_ = int(last is not None and not last.closed and view.writer_alive is not False)
        return Counter(
            {"open": open_, "closed": self.closed, "interrupted": len(order) - self.closed - open_}
        )

    def update(self, view: AgentGoView, keys: list[CallKey]) -> None:
        for key in keys:
            call = view.calls[key]
            new = call.status
            old = self.status.get(key)
            if old == new:
                continue
            counts = self.per_run.setdefault(call.run_id, Counter())
            if old is not None:
                counts[old] -= 1
                self.total[old] -= 1
            counts[new] += 1
            self.total[new] += 1
            self.status[key] = new

    def gaps(self, run_id: str | None = None) -> int:
        if run_id is None:
            return self.total["gap"]
        counts = self.per_run.get(run_id)
        return 0 if counts is None else counts["gap"]

    def run_gaps(self, view: AgentGoView, run_id: str) -> int:
        """A run's gaps: its calls without their terminal event, and itself when it was
        interrupted (no run_close); none for the run still being written, whose calls
        are in flight (a live session read "2 gaps" while one call ran)."""
        status = view.run_status(run_id)
        return 0 if status == "open" else self.gaps(run_id) + (status == "interrupted")

    def shown_gaps(self, view: AgentGoView) -> int:
        """The session's gaps: every run's (``run_gaps``), and its calls' outside a run:
        every call's gaps but the open run's, and each interrupted run (``update_runs``
        counted the runs: none is walked)."""
        states = self.run_states(view)
        open_gaps = self.gaps(view.run_order[-1]) if states["open"] else 0
        return self.gaps() - open_gaps + states["interrupted"]
