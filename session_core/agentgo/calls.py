"""An agentgo view's runs and calls: what it keeps of each run, and of each call (one
attempt of one execution in one run), its records' data read again from the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, overload

from ..text import as_str
from .records import NO_SEQ, Records

CallKey = tuple[str, str, int]  # (run id, execution id, attempt)
_MISSING: Any = object()  # ``Call.start_args`` when there is none to compare
RunStatus = Literal["open", "closed", "interrupted"]
CallStatus = Literal["ok", "failed", "gap"]
CallState = Literal["ok", "failed", "gap", "running"]  # a gap in a run still being written runs


@dataclass(slots=True)
class Run:
    id: str
    index: int
    first_seq: int
    first_time: str
    started: bool = False  # a run_start record was seen
    close_seq: int | None = None
    first_line: int = 0  # the file line of its first record (0: not known, a tail's)
    close_line: int = 0  # of its run_close (0: none, or not known)
    agent_started: bool = False
    agent_end: dict[str, Any] | None = None
    # Where its agent_end is: its record's seq, line and time, and how many messages the
    # session had committed before it (where a conversation says a failed loop ended)
    end_at: tuple[int, int, str, int] | None = None
    last_seq: int = 0
    last_line: int = 0  # of its last record (0: not known, a tail's)
    last_time: str = ""
    records: int = 0
    turns: int = 0
    calls: list[CallKey] = field(default_factory=list)
    # The latest model call that ended with a message, and that message, until an
    # assistant message is committed: the message it produced, if it is that message
    # (``AgentGoView.usage_call``).
    produced: tuple[int, dict[str, Any]] | None = None

    @property
    def closed(self) -> bool:
        return self.close_seq is not None

    @property
    def failed(self) -> bool:
        """Its loop ended in an error (``agent_end`` carrying one): the spec's failure."""
        return self.agent_end is not None and bool(self.agent_end.get("error"))

    def outcome(self, running: bool = False) -> str:
        """What the file says of how the loop ended; a gap when it says nothing (yet, in
        a run still being written: ``running``)."""
        if self.agent_end is None:
            if not self.agent_started:
                return "no loop outcome"
            return "no agent_end yet (running)" if running else "no agent_end (gap)"
        if self.failed:
            return f"failed: {as_str(self.agent_end.get('error'))}"
        reason = self.agent_end.get("stop_reason")
        return f"ended: {as_str(reason)}" if reason else "ended"


class _Latest:
    """A call's latest record of one kind, read from its store (None: it has none)."""

    __slots__ = ("at",)

    def __init__(self, at: str) -> None:
        self.at = at  # the call's field holding its index in the store

    @overload
    def __get__(self, call: None, owner: type | None = None) -> _Latest: ...

    @overload
    def __get__(self, call: Call, owner: type | None = None) -> dict[str, Any] | None: ...

    def __get__(self, call: Call | None, owner: type | None = None) -> Any:
        return self if call is None else call._data(getattr(call, self.at))


@dataclass(slots=True, eq=False)
class Call:
    """One attempt of one execution in one run, with every record about it.

    Its records' data (``request``, ``result``, ``tool_start``...) are read from
    ``store`` when asked for; the facts its label and status need are kept.
    """

    run_id: str
    id: str
    attempt: int
    kind: str
    parent_id: str | None
    turn_index: Any
    first_seq: int
    first_time: str
    last_time: str = ""
    first_line: int = 0  # the file line of its first record (0: not known, a tail's)
    recovery: dict[str, Any] | None = None
    retries: list[dict[str, Any]] = field(default_factory=list)
    context: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    children: list[CallKey] = field(default_factory=list)
    store: Records | None = None
    # the latest record of each kind (an index into ``store``), -1 for none
    request_at: int = -1
    result_at: int = -1
    tool_start_at: int = -1
    tool_invoke_at: int = -1
    tool_end_at: int = -1
    records: list[int] = field(default_factory=list)  # every record about it
    tool_name: Any = None  # the latest tool_exec_start's tool (as written)
    tool_call_id: str | None = None  # the model's id for it (tool_exec_start's), if a string
    model: Any = None  # the latest model_request's config.model (as written), when truthy
    tool_failed: bool = False  # the latest tool_exec_end's is_error
    model_failed: bool = False  # the latest model_exec_end's error
    args_differ: bool = False  # actual (tool_invoke_start) and requested args differ
    start_args: Any = _MISSING  # the latest tool_exec_start's args until a tool_invoke_start

    @property
    def key(self) -> CallKey:
        return (self.run_id, self.id, self.attempt)

    def _data(self, at: int) -> dict[str, Any] | None:
        return None if at < 0 or self.store is None else self.store.data(at)

    request = _Latest("request_at")
    result = _Latest("result_at")
    tool_start = _Latest("tool_start_at")
    tool_invoke = _Latest("tool_invoke_at")
    tool_end = _Latest("tool_end_at")

    @property
    def events(self) -> list[tuple[int, str, str]]:
        """(seq, type, time) of every record about the call (their times read again)."""
        store = self.store
        if store is None:
            return []
        out = []
        for at in self.records:
            seq = store.seqs[at]
            time = store[at].get("time")
            out.append((-1 if seq == NO_SEQ else seq, store.kind(at), as_str(time)))
        return out

    @property
    def status(self) -> CallStatus:
        if self.kind == "tool" or self.tool_start_at >= 0 or self.tool_end_at >= 0:
            if self.tool_end_at < 0:
                return "gap"
            return "failed" if self.tool_failed else "ok"
        if self.kind == "model" or self.request_at >= 0 or self.result_at >= 0:
            if self.result_at < 0:
                return "gap"
            return "failed" if self.model_failed else "ok"
        if self.context:
            return "ok"
        return "gap"

    @property
    def name(self) -> str:
        if self.tool_start_at >= 0:
            return as_str(self.tool_name) or self.id
        if self.request_at >= 0 and self.model:
            return f"{self.id} ({as_str(self.model)})"
        return self.id


__all__ = ["Call", "CallKey", "CallState", "CallStatus", "Run", "RunStatus"]
