"""What agentgo's committed messages ask for: a message's parts in the neutral model, the
tool calls it asks for, which of them an execution is of (``tool_ops.ask_in_run``), and
the calls no execution is of (``UnstartedCounter``, as ``check`` counts them)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ...model import Part
from ...parts import tool_call_part
from ...tool_ops import OpState, ask_in_run

if TYPE_CHECKING:
    from ...agentgo.calls import Call
    from ...agentgo.view import AgentGoView


def message_parts(message: dict[str, Any]) -> list[Part]:
    """A committed message's parts in the neutral model: its thinking (folded), its text,
    then its tool calls; a tool result's text alone (the answer to its call, failed
    where the message says ``is_error``)."""
    from ...agentgo.view import message_text, thinking_text

    tcid = message.get("tool_call_id")
    if tcid is not None:
        failed = bool(message.get("is_error"))
        return [Part("tool-result", message_text(message), call_id=str(tcid), is_error=failed)]
    thinking = thinking_text(message).strip()
    parts = [Part("reasoning", thinking)] if thinking else []
    parts.append(Part("text", message_text(message)))
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "tool_call":
                parts.append(tool_call_part(part.get("id", ""), part.get("name", ""), part))
    return parts


def unstarted_state(view: AgentGoView, run_id: str | None) -> OpState:
    """The state of a call a message asked for that no execution is of: not dispatched
    yet while its run is open (its writer at work), never dispatched once the run is
    closed or cut off (v1's words for the same: the one vocabulary)."""
    open_ = run_id is not None and run_id in view.runs and view.run_status(run_id) == "open"
    return "not-dispatched-yet" if open_ else "never-dispatched"


def asked_calls(parts: list[Part]) -> dict[str, Part]:
    """The tool calls a committed message's parts ask for, by id: those with an id, each
    id once (a message naming one twice asks for it once)."""
    asked: dict[str, Part] = {}
    for part in parts:
        if part.kind == "tool-call" and part.call_id and part.call_id not in asked:
            asked[part.call_id] = part
    return asked


def asked_ids(message: dict[str, Any]) -> list[str]:
    """``asked_calls`` of ``message_parts(message)``, read off the message alone: its
    tool calls' ids, no part built (``ids_asked``)."""
    content = message.get("content")
    if message.get("tool_call_id") is not None or not isinstance(content, list):
        return []
    return ids_asked([p for p in content if isinstance(p, dict) and p.get("type") == "tool_call"])


def ids_asked(calls: list[dict[str, Any]]) -> list[str]:
    """The ids of a message's ``tool_call`` parts, as ``tool_call_part`` makes them: each
    once, none empty."""
    ids = [str(call.get("id", "")) for call in calls]
    if len(ids) == 1:
        return ids if ids[0] else []
    return [call_id for call_id in dict.fromkeys(ids) if call_id]


def is_tool_execution(call: Call) -> bool:
    """A call that is a tool's execution: begun or ended by its tool records (a model
    call is none, whatever else it holds)."""
    from ...usage import is_model_call

    return not is_model_call(call) and (call.tool_start_at >= 0 or call.tool_end_at >= 0)


def op_call_id(call: Call) -> str:
    """The call id an execution is of: as the model named the call (so the message that
    asked for it finds it), else its execution's own id."""
    return call.tool_call_id or call.id


class UnstartedCounter:
    """The calls committed messages asked for that no execution is of, counted by their
    state (``unstarted_state``) as a check reads, keeping no record: ``AgentGoModel``'s
    operations of them, by the same rules (``asked_calls``, ``ask_in_run``)."""

    __slots__ = ("_asked",)

    def __init__(self) -> None:
        # a call id -> the seqs of the messages that asked for it, and their runs
        self._asked: dict[str, tuple[list[int], list[str]]] = {}

    def fed(self, view: AgentGoView, record: dict[str, Any]) -> None:
        """``record``, the last ``view`` took: a committed message's asks noted."""
        messages = view.messages
        if record.get("type") != "message_end" or not messages:
            return
        committed = messages[-1]
        if committed.at != len(view.records) - 1:  # (not committed: no message object)
            return
        for call_id in asked_ids(record["data"]["message"]):
            seqs, runs = self._asked.setdefault(call_id, ([], []))
            seqs.append(committed.seq)
            runs.append(committed.run_id)

    def counts(self, view: AgentGoView) -> Counter[str]:
        """How many asks no execution is of, by state (the view read whole)."""
        started: set[tuple[str, int]] = set()
        for call in view.calls.values():
            if is_tool_execution(call):
                call_id = op_call_id(call)
                asked = self._asked.get(call_id)
                if asked is not None:
                    seqs, runs = asked
                    started.add((call_id, ask_in_run(seqs, runs, call.first_seq, call.run_id)))
        return Counter(
            unstarted_state(view, run_id)
            for call_id, (_seqs, runs) in self._asked.items()
            for index, run_id in enumerate(runs)
            if (call_id, index) not in started
        )


_MODEL_KINDS = frozenset(("model_request", "model_exec_end"))
_TOOL_KINDS = frozenset(("tool_exec_start", "tool_exec_end"))


class AskTally:
    """``UnstartedCounter``'s count from records alone, for a browser's row (``tallies.
    AgentGoTally``), which keeps no view: the asks of the committed messages fed, and the
    tool executions, each with its run and first seq, matched by the same rule
    (``ask_in_run``) once asked for. A few ints an ask or a call, no record kept.

    Counted as fed: a record touches the asks of one call id or two, and only those are
    matched again when next counted (a live row counts on each refresh)."""

    __slots__ = ("_asked", "_by_run", "_calls", "_dirty", "_execs", "_unstarted")

    def __init__(self) -> None:
        self._asked: dict[str, tuple[list[int], list[str]]] = {}  # as ``UnstartedCounter``
        # an execution (run, id, attempt) -> [first seq, call id asked for, tool, model]
        self._calls: dict[tuple[str, str, Any], list[Any]] = {}
        self._execs: dict[str, list[tuple[str, str, Any]]] = {}  # a call id's tools' ones
        self._unstarted: dict[str, list[str]] = {}  # a call id's unstarted asks' runs
        self._by_run: dict[str, int] = {}  # ...of every call id, counted by run
        self._dirty: set[str] = set()  # the call ids to match again

    def asked(self, call_ids: list[str], seq: int, run_id: str) -> None:
        """A committed message's asks (``asked_ids``): its seq, its run."""
        for call_id in call_ids:
            seqs, runs = self._asked.setdefault(call_id, ([], []))
            seqs.append(seq)
            runs.append(run_id)
            self._dirty.add(call_id)

    def execution(
        self, key: tuple[str, str, Any], kind: str, seq: int, data: Any, model: bool
    ) -> None:
        """A record about call ``key`` (the view's: run, execution id, attempt);
        ``model``: its execution's kind says a model call."""
        call = self._calls.get(key)
        if call is None:
            call = self._calls[key] = [seq, None, False, False]
        elif call[3]:  # (a model call's: never a tool's execution, whatever follows)
            return
        if model or kind in _MODEL_KINDS:  # (most: a call per model request)
            call[3] = True
            if call[2]:  # (it was a tool's execution: no more)
                self._left(key, call[1] or key[1])
        elif kind in _TOOL_KINDS:
            was = (call[1] or key[1]) if call[2] else None  # (``op_call_id``)
            call[2] = True
            tcid = data.get("tool_call_id") if kind == "tool_exec_start" else None
            if type(tcid) is str:
                call[1] = tcid
            now = call[1] or key[1]
            if now != was:  # (a tool's execution now, or of another call id)
                if was is not None:
                    self._left(key, was)
                self._execs.setdefault(now, []).append(key)
                self._dirty.add(now)

    def _left(self, key: tuple[str, str, Any], call_id: str) -> None:
        self._execs[call_id].remove(key)
        self._dirty.add(call_id)

    def counts(self, open_run: str | None) -> Counter[str]:
        """How many asks no execution is of, by state: not dispatched yet in ``open_run``
        (the run still open, its writer at work), never dispatched elsewhere."""
        for call_id in self._dirty:
            self._match(call_id)
        self._dirty.clear()
        by_run = self._by_run
        yet = by_run.get(open_run, 0) if open_run is not None else 0
        return Counter({"never-dispatched": sum(by_run.values()) - yet, "not-dispatched-yet": yet})

    def _match(self, call_id: str) -> None:
        """The asks of ``call_id`` no tool execution is of, matched again."""
        by_run = self._by_run
        for run_id in self._unstarted.pop(call_id, ()):
            by_run[run_id] -= 1
        asked = self._asked.get(call_id)
        if asked is None:
            return
        seqs, runs = asked
        execs = self._execs.get(call_id)
        if execs:
            started = {ask_in_run(seqs, runs, self._calls[key][0], key[0]) for key in execs}
            left = [run_id for index, run_id in enumerate(runs) if index not in started]
        else:
            left = runs[:]  # (a copy: more asks of it may come)
        if left:
            self._unstarted[call_id] = left
            for run_id in left:
                by_run[run_id] = by_run.get(run_id, 0) + 1


__all__ = [
    "AskTally",
    "UnstartedCounter",
    "asked_calls",
    "asked_ids",
    "ids_asked",
    "is_tool_execution",
    "message_parts",
    "op_call_id",
    "unstarted_state",
]
