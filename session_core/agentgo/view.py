"""What a viewer shows of an agentgo session, built one record at a time (linear).

Nothing is invented: a call or run without its terminal event is a gap.

What the views need of every record is taken as it is fed; the records themselves
are kept compactly (``Records``: spans into the file, read again on demand), so a
call's request, a message's body or a checkpoint's snapshot is parsed again when
something asks for it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any

from ..message_usage import agentgo_usage
from ..text import as_str
from .calls import _MISSING, Call, CallKey, CallState, Run, RunStatus
from .messages import (
    NO_KIND,
    as_message,
    message_role,
    message_text,
    sent_shape,
    thinking_text,
)
from .records import NO_SEQ, ODD_RUN, Records
from .shape import shape_said, well_shaped
from .stored import Checkpoint, Committed, snapshot_shape

KNOWN_TYPES = frozenset(
    (
        "session_start",
        "run_start",
        "run_close",
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "model_request",
        "model_exec_end",
        "model_response",
        "message_end",
        "tool_exec_start",
        "tool_invoke_start",
        "tool_exec_end",
        "retry",
        "context_projected",
        "context_compacted",
        "checkpoint",
    )
)


def no_kind_said(message: dict[str, Any], line: int) -> str | None:
    """A committed message with no ``kind`` (the spec requires one), said: its role is
    not guessed (None: it has one)."""
    if message_role(message) != NO_KIND:
        return None
    return f"line {line}: a message with no kind: its role is not known, shown as {NO_KIND}"


# What a committed message may say of itself that its model call's message need not
# (the spec's AgentMessage ``usage?``, ``timestamp?``): the same response either way.
_OWN_REPORT = ("usage", "timestamp")


def usage_call(run: Run, message: dict[str, Any]) -> int:
    """The model call whose usage a message just committed in ``run`` shows (-1: none).

    The spec puts a response's usage on its ``model_exec_end`` and, optionally, on the
    message. An assistant message reporting none of its own shows its call's: the latest
    model call of its run that ended with a message (the loop's call commits its message
    next), if that message is this one (a model result is no proof that it committed).
    An assistant message ends the wait either way: one call, one message."""
    if message_role(message) != "assistant":
        return -1
    assert run.produced is not None
    index, produced = run.produced
    run.produced = None
    if agentgo_usage(message.get("usage")) is not None:  # (``{}``: none, as null)
        return -1
    same = {k: v for k, v in message.items() if k not in _OWN_REPORT} == {
        k: v for k, v in produced.items() if k not in _OWN_REPORT
    }
    return index if same else -1


def state_said(state: str) -> str:
    """A call's state in words: the spec's ``gap`` with what every format calls it (a
    call with no terminal event, its run closed or cut off: interrupted)."""
    return "gap (interrupted)" if state == "gap" else state


class AgentGoView:
    """Runs, calls, the committed conversation, checkpoints and the timeline of a session."""

    def __init__(self, *, keep: bool = True) -> None:
        """``keep=False``: a view that only counts (``check``); its records cannot be read."""
        self.session_id: str | None = None
        self.version: Any = None
        self.started = ""
        self.records = Records(keep)
        self.last_line = 0  # the file's last line read (a record's, or one it could not read)
        self.runs: dict[str, Run] = {}
        self.run_order: list[str] = []
        self.calls: dict[CallKey, Call] = {}
        self.call_order: list[CallKey] = []
        # (run id, execution id) -> every attempt's key, in order
        self.attempts: dict[tuple[str, str], list[CallKey]] = {}
        # children recorded before their parent: adopted when it appears
        self._orphans: dict[tuple[str, str], list[CallKey]] = {}
        self._call_index: dict[CallKey, int] = {}  # a call's index in call_order
        self._strings: dict[str, str] = {}  # tool and model names, one object each
        self.messages: list[Committed] = []
        self.checkpoints: list[Checkpoint] = []
        self.context_events: list[tuple[int, str, str, dict[str, Any]]] = []
        self.context_at: list[int] = []  # each context event's record index
        # Records of a named type not in its shape (``shape.well_shaped``: data not an
        # object, no run_id, a bad execution, a message_end without a message): not read
        # as their type says, kept raw among the other records, and said.
        self.misshapen: list[int] = []
        self.unknown: list[int] = []  # indices into records of types this view does not know
        self.warnings: list[str] = []
        # Whether the file's writer is still at work, when a caller knows (a viewer does).
        self.writer_alive: bool | None = None
        # Only the end of the file was fed (a big file's first screen): run numbers are
        # not known, and the records are not all there.
        self.partial = False

    @property
    def lines(self) -> Sequence[int]:
        """The file line of each record."""
        return self.records.lines

    # -- feeding ------------------------------------------------------------------

    def feed(self, record: dict[str, Any], line: int, span: int = 0) -> None:
        """Take one record; ``span`` says where it is in ``records.source`` (0: keep the
        dict itself)."""
        kind = as_str(record.get("type"))
        if line > self.last_line:
            self.last_line = line
        raw_seq = record.get("seq")
        seq: int = raw_seq if type(raw_seq) is int else -1
        index = self.records.append(
            record, span, kind, raw_seq if type(raw_seq) is int else NO_SEQ, line
        )
        time = as_str(record.get("time"))
        data: Any = record.get("data")
        run_id = record.get("run_id")
        execution = record.get("execution")
        if kind == "session_start":
            if self.session_id is None:
                self.session_id = as_str(record.get("session_id"))
                self.version = data.get("version") if type(data) is dict else None
                self.started = time
            return
        if kind not in KNOWN_TYPES:
            self.unknown.append(index)
            data = data if type(data) is dict else {}
        elif not well_shaped(kind, data, run_id, execution):
            # Not read as what its type says (no outcome invented, no call split): its
            # run still counts it.
            self.misshapen.append(index)
            self.warnings.append(shape_said(record, line) or "")
            if type(run_id) is str:
                self._count(self._run(run_id, seq, time, line), index, seq, line, time)
            return
        run = None
        if run_id is not None:
            run = self._run(as_str(run_id), seq, time, line)
            self._count(run, index, seq, line, time)
            if type(run_id) is not str:  # (a record of another type: keyed by its str())
                self.records.runs[index] = ODD_RUN
            if kind == "run_start":
                run.started = True
            elif kind == "run_close":
                run.close_seq, run.close_line = seq, line
            elif kind == "agent_start":
                run.agent_started = True
            elif kind == "agent_end":
                run.agent_end = data
                run.end_at = (seq, line, time, len(self.messages))
            elif kind == "turn_start":
                run.turns += 1
        if kind == "message_end":
            message = data.get("message")
            if isinstance(message, dict):
                committed = Committed(seq, line, as_str(run_id), time, self.records, index)
                self.messages.append(committed)
                committed.shape = sent_shape(message)  # (the folds' filter: not read again)
                if run is not None and run.produced is not None:
                    committed.usage_call = usage_call(run, message)
                if (why := no_kind_said(message, line)) is not None:
                    self.warnings.append(why)
        elif kind == "checkpoint":
            shape = snapshot_shape(data.get("snapshot"))
            self.checkpoints.append(
                Checkpoint(seq, line, as_str(run_id), time, self.records, index, shape)
            )
        elif kind in ("context_projected", "context_compacted"):
            self.context_events.append((seq, as_str(run_id), kind, data))
            self.context_at.append(index)
        if isinstance(execution, dict):
            self._feed_call(record, index, kind, seq, time, data, execution, run)

    def _count(self, run: Run, index: int, seq: int, line: int, time: str) -> None:
        """Record ``index`` is one of ``run``'s."""
        self.records.runs[index] = run.index
        run.records += 1
        run.last_seq, run.last_line, run.last_time = seq, line, time

    def is_misshapen(self, index: int) -> bool:
        """Whether record ``index`` is of a named type but not its shape (kept raw)."""
        at = bisect_left(self.misshapen, index)
        return at < len(self.misshapen) and self.misshapen[at] == index

    def _run(self, run_id: str, seq: int, time: str, line: int) -> Run:
        run = self.runs.get(run_id)
        if run is None:
            run = Run(run_id, len(self.run_order), seq, time, first_line=line)
            self.runs[run_id] = run
            self.run_order.append(run_id)
        return run

    def _feed_call(
        self,
        record: dict[str, Any],
        index: int,
        kind: str,
        seq: int,
        time: str,
        data: dict[str, Any],
        execution: dict[str, Any],
        run: Run | None,
    ) -> None:
        run_id = as_str(record.get("run_id"))
        exec_id = as_str(execution.get("id"))
        attempt = execution.get("attempt")
        attempt = attempt if type(attempt) is int else 1
        key = (run_id, exec_id, attempt)
        call = self.calls.get(key)
        if call is None:
            parent = execution.get("parent_id")
            call = Call(
                run_id,
                exec_id,
                attempt,
                as_str(execution.get("kind")),
                None if parent is None else as_str(parent),
                execution.get("turn_index"),
                seq,
                time,
                first_line=self.records.lines[index],
                store=self.records,
            )
            self.calls[key] = call
            self._call_index[key] = len(self.call_order)
            self.call_order.append(key)
            self.attempts.setdefault((run_id, exec_id), []).append(key)
            orphans = self._orphans.pop((run_id, exec_id), None)
            if orphans:
                call.children.extend(orphans)
            if call.parent_id is not None:
                # the parent's latest attempt so far is the one this call runs under
                parent_keys = self.attempts.get((run_id, call.parent_id))
                if parent_keys:
                    self.calls[parent_keys[-1]].children.append(key)
                else:
                    self._orphans.setdefault((run_id, call.parent_id), []).append(key)
            if run is not None:
                run.calls.append(key)
        self.records.calls[index] = self._call_index[key]
        call.last_time = time
        call.records.append(index)
        if kind == "model_request":
            call.request_at = index
            config = data.get("config")
            model = config.get("model") if isinstance(config, dict) else None
            call.model = self._string(model) if model else None
        elif kind == "model_exec_end":
            call.result_at = index
            call.model_failed = bool(data.get("error"))
            message = data.get("message")
            if run is not None and not call.model_failed and isinstance(message, dict):
                run.produced = (self._call_index[key], message)
        elif kind == "model_response":
            call.recovery = data.get("recovery") if isinstance(data.get("recovery"), dict) else data
        elif kind == "tool_exec_start":
            call.tool_start_at = index
            call.tool_name = self._string(data.get("tool"))
            tcid = data.get("tool_call_id")
            call.tool_call_id = tcid if type(tcid) is str else None
            if self.records.keep:
                args = data.get("args")
                if call.tool_invoke_at >= 0:  # out of order: read the invoke's again
                    call.args_differ = self._args(call.tool_invoke_at) != args
                # Kept until the tool_invoke_start that follows it compares its own.
                call.start_args = args
        elif kind == "tool_invoke_start":
            call.tool_invoke_at = index
            if call.tool_start_at >= 0 and self.records.keep:
                requested = call.start_args
                if requested is _MISSING:  # compared once already: read it again
                    requested = self._args(call.tool_start_at)
                call.args_differ = requested != data.get("args")
                call.start_args = _MISSING
        elif kind == "tool_exec_end":
            call.tool_end_at = index
            call.tool_failed = bool(data.get("is_error"))
        elif kind == "retry":
            call.retries.append(data)
        elif kind in ("context_projected", "context_compacted"):
            call.context.append((kind, data))

    def _string(self, value: Any) -> Any:
        """One object per distinct name (a str; anything else as it is)."""
        return self._strings.setdefault(value, value) if type(value) is str else value

    def _args(self, at: int) -> Any:
        """The args of an earlier tool record, read again (not through the cache)."""
        data = self.records.read(at).get("data")
        return data.get("args") if isinstance(data, dict) else None

    # -- reading ------------------------------------------------------------------

    def run_status(self, run_id: str) -> RunStatus:
        """closed: run_close seen; interrupted: no run_close, and a later run began or the
        writer is known to be gone (``writer_alive`` False); else open."""
        run = self.runs[run_id]
        if run.closed:
            return "closed"
        if run.index < len(self.run_order) - 1 or self.writer_alive is False:
            return "interrupted"
        return "open"

    def call_state(self, call: Call) -> CallState:
        """A call's status as the screen shows it: one without its terminal event is
        running while its run is still being written (``open``), a gap once it is not."""
        status = call.status
        if status == "gap" and call.run_id in self.runs and self.run_status(call.run_id) == "open":
            return "running"
        return status

    def run_outcome(self, run_id: str) -> str:
        """``Run.outcome``, said as running while the run is still being written."""
        return self.runs[run_id].outcome(self.run_status(run_id) == "open")

    def root_calls(self, run_id: str) -> list[Call]:
        run = self.runs.get(run_id)
        if run is None:
            return []
        roots = []
        for key in run.calls:
            call = self.calls[key]
            parent = call.parent_id
            if parent is None or (run_id, parent) not in self.attempts:
                roots.append(call)
        return roots

    def children(self, call: Call) -> list[Call]:
        return [self.calls[key] for key in call.children]

    def attempts_of(self, call: Call) -> list[Call]:
        """Every attempt of the call's execution in its run, first to last (retries)."""
        return [self.calls[key] for key in self.attempts.get((call.run_id, call.id), [])]

    def latest_checkpoint(self) -> Checkpoint | None:
        return self.checkpoints[-1] if self.checkpoints else None

    def gaps(self) -> list[str]:
        """Runs without their run_close and calls without their terminal event; not, while
        its writer is known to be at work, the run it is writing, whose calls are in
        flight (``check`` said "2 gaps" of a live session with one call running)."""
        out = []
        live = self.writer_alive is True
        for run_id in self.run_order:
            status = self.run_status(run_id)
            if status != "closed" and not (live and status == "open"):
                out.append(f"run {run_id}: {status} (no run_close)")
        for key in self.call_order:
            call = self.calls[key]
            if call.status == "gap" and not (live and self.call_state(call) == "running"):
                out.append(
                    f"call {call.id} attempt {call.attempt} in run {call.run_id}: no terminal event"
                )
        return out

    def to_json(self) -> dict[str, Any]:
        """The view as ``tailscope replay`` prints it for this format."""
        return {
            key: list(value) if isinstance(value, Iterator) else value
            for key, value in self.json_parts()
        }

    def json_parts(self) -> Iterator[tuple[str, Any]]:
        """``to_json``'s keys in order, its long lists as iterators (each message and
        call read again from its record only when it is reached: ``views.write_parts``
        writes a big session's view an element at a time)."""
        yield "format", "agentgo-v1"
        yield (
            "meta",
            {"session-id": self.session_id, "version": self.version, "started": self.started},
        )
        yield (
            "messages",
            (
                # (api.md's id and role, as the neutral model names them, first: a key
                # of the message's own wins)
                {
                    "id": f"seq-{m.seq}",
                    "role": message_role(m.message),
                    "seq": m.seq,
                    "run-id": m.run_id,
                    "time": m.time,
                    **m.message,
                }
                for m in self.messages
            ),
        )
        yield "runs", (self._run_json(self.runs[r]) for r in self.run_order)
        yield "calls", (self._call_json(self.calls[k]) for k in self.call_order)
        yield (
            "checkpoints",
            (
                {"seq": c.seq, "run-id": c.run_id, "time": c.time, "snapshot": c.snapshot}
                for c in self.checkpoints
            ),
        )
        yield (
            "context-events",
            [
                {"seq": seq, "run-id": run, "type": kind, "data": data}
                for seq, run, kind, data in self.context_events
            ],
        )
        yield (
            "other-records",
            (
                {
                    "line": line,
                    "seq": record.get("seq"),
                    "type": record.get("type"),
                    "record": record,
                }
                for line, record in self.other_records()
            ),
        )
        yield "gaps", self.gaps()
        yield "warnings", list(self.warnings)

    def other_records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """Each record of a type the format does not name (or of a named type not in its
        shape), with its line, as written (the spec: kept and shown raw): read again
        when reached."""
        records = self.records
        names = records.kind_names
        others = {code for code, name in enumerate(names) if name not in KNOWN_TYPES}
        misshapen = set(self.misshapen)  # (of a named type, not its shape)
        if not (others or misshapen) or not records.keep:
            return
        for index in range(len(records)):
            if records.kind_code(index) in others or index in misshapen:
                yield int(records.lines[index]), records[index]

    def _run_json(self, run: Run) -> dict[str, Any]:
        # (loaded with the format's registration, before any view: no import cycle)
        from ..formats.agentgo.runs_made import run_state

        status = self.run_status(run.id)
        return {
            "run-id": run.id,
            "status": status,  # (the spec's word, kept: others read it)
            # (every format's runs' word: finished, failed, running, interrupted)
            "state": run_state(run, status),
            "outcome": self.run_outcome(run.id),  # (a run being written: "yet (running)")
            "first-seq": run.first_seq,
            "last-seq": run.last_seq,
            "started": run.first_time,
            "last-time": run.last_time,
            "records": run.records,
            "turns": run.turns,
            "calls": len(run.calls),
        }

    @staticmethod
    def _call_json(call: Call) -> dict[str, Any]:
        return {
            "run-id": call.run_id,
            "id": call.id,
            "attempt": call.attempt,
            "kind": call.kind,
            "parent-id": call.parent_id,
            "status": call.status,
            "first-seq": call.first_seq,
            "request": call.request,
            "result": call.result,
            "tool-start": call.tool_start,
            "tool-invoke": call.tool_invoke,
            "tool-end": call.tool_end,
            "retries": call.retries,
            "recovery": call.recovery,
        }


__all__ = [
    "KNOWN_TYPES",
    "AgentGoView",
    "Call",
    "CallKey",
    "Checkpoint",
    "Committed",
    "as_message",
    "message_text",
    "state_said",
    "thinking_text",
]
