"""The demo agent's run in the agentgo session format (agentgo-v1).

The same story as transcript v1, recorded the way an agentgo loop records it:
each run is ``run_start``, ``agent_start``, turns of ``turn_start`` ->
``model_request`` (messages, tools, config) -> ``model_exec_end`` (message,
usage) -> ``message_end`` -> tool calls (``tool_exec_start``,
``tool_invoke_start`` with the arguments after middleware, ``tool_exec_end``
with the result, error flag and disposition), ``turn_end``, then
``agent_end`` and ``run_close``. One model call fails mid-stream and is
retried (attempt 2); observation aging is a ``context_projected`` event; the
compaction between the runs is a summary call and a ``context_compacted``
event at the start of run 2; checkpoints are saved at turn boundaries. The
second run is recorded after closing and reopening the file. A crash leaves
tools without ``tool_exec_end`` and the run without ``run_close``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from session_core.agentgo import AgentGoRun, AgentGoSession

from .agent import tokens
from .recorders import AssistantTurn, Recorder, Section, Settled, ToolCall, Usage

TOOL_DECLARATIONS = [
    {
        "name": "fs_read",
        "description": "read a file, optionally a line range",
        "schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "start": {"type": "integer"},
                "end": {"type": "integer"},
            },
            "required": ["path"],
        },
    },
    {
        "name": "grep",
        "description": "search the repository",
        "schema": {
            "type": "object",
            "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
            "required": ["pattern"],
        },
    },
    {
        "name": "run_tests",
        "description": "run pytest and return its output",
        "schema": {
            "type": "object",
            "properties": {"target": {"type": "string"}, "verbose": {"type": "boolean"}},
        },
    },
    {
        "name": "apply_patch",
        "description": "apply a unified diff to the working tree",
        "schema": {
            "type": "object",
            "properties": {"patch": {"type": "string"}},
            "required": ["patch"],
        },
    },
    {
        "name": "git_diff",
        "description": "the working tree's diff against HEAD",
        "schema": {"type": "object", "properties": {}},
    },
    {
        "name": "web_fetch",
        "description": "fetch a page (only granted hosts)",
        "schema": {
            "type": "object",
            "properties": {"url": {"type": "string"}},
            "required": ["url"],
        },
    },
]

RETRIED_TURN = (1, 3)  # (run, turn): this model call's stream breaks and is retried
CHECKPOINT_EVERY = 4  # turns; and one at the end of every run
TOOL_TIMEOUT_S = 300


def _text(kind: str, body: str) -> dict[str, Any]:
    return {"kind": kind, "content": [{"type": "text", "text": body}]}


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
        "cost": usage.cost,
    }


class AgentGoRecorder(Recorder):
    """The agentgo-v1 session format, through ``session_core.agentgo.AgentGoSession``."""

    def __init__(self, path: str, meta: dict[str, Any]) -> None:
        self.path = path
        self.meta = meta
        self.session = AgentGoSession.create(path)
        self.run: AgentGoRun | None = None
        self.runs = 0
        self.turn = -1  # this run's current turn index; -1 before the first
        self.turn_open = False
        self.model_exec = ""  # the execution id of the current turn's model call
        self.system_prompt = ""
        self.sections: list[Section] = []
        # The conversation as the model sees it (what model_request carries), by message id.
        self.conversation: list[tuple[str, dict[str, Any]]] = []
        self.counter = 0
        self.grants_pending: list[dict[str, str]] | None = None
        self.compaction: tuple[str, str, str, int, int] | None = None
        self.answers: dict[str, tuple[str, str, bool]] = {}  # call id -> (mid, content, error)
        self.calls: dict[str, ToolCall] = {}
        self.tool_parent: dict[str, tuple[str, int]] = {}  # call id -> (model exec, turn)

    # -- helpers ------------------------------------------------------------------------

    def _run(self) -> AgentGoRun:
        assert self.run is not None, "no run is open"
        return self.run

    def _mid(self) -> str:
        self.counter += 1
        return f"m{self.counter}"

    def _commit(self, message: dict[str, Any]) -> str:
        """message_end: a committed conversation message."""
        mid = self._mid()
        self._run().record("message_end", {"message": message})
        self.conversation.append((mid, message))
        return mid

    def _config(self) -> dict[str, Any]:
        rendered = "\n\n".join(s.rendered for s in self.sections)
        return {
            "model": str(self.meta.get("model", "demo-model-1")),
            "temperature": 0.2,
            "thinking_level": "medium",
            "tool_choice": "auto",
            "max_output_tokens": 4096,
            "system_prompt": f"{self.system_prompt}\n\n{rendered}".strip(),
        }

    def _request(self) -> dict[str, Any]:
        return {
            "messages": [message for _, message in self.conversation],
            "tools": TOOL_DECLARATIONS,
            "config": self._config(),
        }

    def _end_turn(self) -> None:
        if not self.turn_open:
            return
        run = self._run()
        run.record("turn_end", {"turn_index": self.turn})
        self.turn_open = False
        if (self.turn + 1) % CHECKPOINT_EVERY == 0:
            self._checkpoint()

    def _checkpoint(self) -> None:
        """An AgentSnapshot at a committed boundary: the whole history."""
        self._run().save_checkpoint(
            {
                "state": {
                    "messages": [message for _, message in self.conversation],
                    "turn_index": self.turn,
                    "model": self._config()["model"],
                },
                "run": self.runs,
            }
        )

    def _tokens(self) -> int:
        total = tokens(self.system_prompt)
        for _, message in self.conversation:
            for part in message.get("content", []):
                total += tokens(str(part.get("text") or part.get("arguments") or ""))
        return total

    # -- the Recorder interface ---------------------------------------------------------

    def begin_run(
        self, run_id: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section]
    ) -> None:
        if self.runs:
            # A later invocation: the file is closed and reopened (validated, appended to).
            self.session.close()
            self.session = AgentGoSession.open(self.path)
        self.runs += 1
        self.turn = -1
        facts_text = "\n".join(f"{key}: {value}" for key, value in facts)
        self.sections = [*sections, Section("facts", f"# Facts\n{facts_text}")]
        self.run = self.session.begin_run()
        self.run.record("agent_start", {})
        if self.grants_pending is not None:
            self._record_grants(self.grants_pending)
            self.grants_pending = None
        if self.compaction is not None:
            self._record_compaction(*self.compaction)
            self.compaction = None

    def grants(self, grants: Sequence[dict[str, str]]) -> None:
        # Not an agentgo event: the host's own record type (shown raw by readers).
        if self.run is None:
            self.grants_pending = [dict(g) for g in grants]
        else:
            self._record_grants([dict(g) for g in grants])

    def _record_grants(self, grants: list[dict[str, str]]) -> None:
        self._run().record("authorization_grants", {"grants": grants})

    def system(self, text: str) -> str:
        self.system_prompt = text  # part of the resolved config, not a conversation message
        return self._mid()

    def user(self, text: str) -> str:
        return self._commit(_text("user", text))

    def assistant(self, turn: AssistantTurn) -> str:
        run = self._run()
        self._end_turn()
        self.turn += 1
        self.turn_open = True
        run.record("turn_start", {"turn_index": self.turn})
        self.model_exec = f"turn-{self.turn + 1}"
        content: list[dict[str, Any]] = [
            {"type": "thinking", "text": turn.reasoning},
            {"type": "text", "text": turn.content},
        ]
        content += [
            {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}
            for c in turn.tool_calls
        ]
        stop = "tool_use" if turn.tool_calls else "end_turn"
        message = {"kind": "assistant", "content": content, "stop_reason": stop}
        attempt = 1
        request = self._request()
        if (self.runs, self.turn) == RETRIED_TURN:
            # The provider's stream breaks: the partial message is the only evidence.
            execution = self._execution(attempt)
            run.record("model_request", request, execution=execution)
            cut = max(1, len(turn.content) // 3)
            error = "stream closed by provider: connection reset (HTTP/2 RST_STREAM)"
            run.record(
                "model_exec_end",
                {
                    "partial_message": {
                        "kind": "assistant",
                        "content": [
                            {"type": "thinking", "text": turn.reasoning},
                            {"type": "text", "text": turn.content[:cut]},
                        ],
                    },
                    "error": error,
                    "usage": _usage(Usage(turn.usage.prompt_tokens, tokens(turn.content[:cut]))),
                },
                execution=execution,
            )
            run.record(
                "retry", {"attempt": 2, "error": error, "delay_ms": 800}, execution=execution
            )
            attempt = 2
        execution = self._execution(attempt)
        run.record("model_request", request, execution=execution)
        run.record(
            "model_exec_end",
            {"message": message, "usage": _usage(turn.usage)},
            execution=execution,
        )
        return self._commit({**message, "usage": _usage(turn.usage)})

    def _execution(self, attempt: int) -> dict[str, Any]:
        return {
            "id": self.model_exec,
            "kind": "model",
            "attempt": attempt,
            "turn_index": self.turn,
        }

    def _tool_execution(self, call_id: str) -> dict[str, Any]:
        parent, turn = self.tool_parent[call_id]
        return {
            "id": call_id,
            "kind": "tool",
            "attempt": 1,
            "parent_id": parent,
            "turn_index": turn,
        }

    def tool_dispatched(self, call: ToolCall, run_id: str, round: int) -> str:
        run = self._run()
        self.calls[call.id] = call
        self.tool_parent[call.id] = (self.model_exec, self.turn)
        execution = self._tool_execution(call.id)
        run.record(
            "tool_exec_start",
            {"tool": call.name, "tool_call_id": call.id, "args": call.arguments},
            execution=execution,
        )
        # Middleware: paths resolved inside the repository, a timeout on every tool.
        actual = dict(call.arguments)
        if isinstance(actual.get("path"), str):
            actual["path"] = os.path.normpath(os.path.join(_repo(self.meta), actual["path"]))
        actual["timeout_s"] = TOOL_TIMEOUT_S
        run.record("tool_invoke_start", {"args": actual}, execution=execution)
        return call.id

    def store_artifact(self, op_id: str, content: str, limit: int) -> tuple[str, dict[str, object]]:
        """agentgo keeps the complete result in tool_exec_end: nothing is stored aside."""
        return content, {"chars": len(content), "over_limit": len(content) > limit}

    def tool_result(
        self, call: ToolCall, content: str, *, is_error: bool = False, outcome_unknown: bool = False
    ) -> str:
        # Held until the tool's end: tool_exec_end comes first, then the committed message.
        mid = self._mid()
        self.answers[call.id] = (mid, content, is_error)
        return mid

    def tool_settled(self, settled: Settled) -> None:
        run = self._run()
        op_id, outcome = settled.op_id, settled.outcome
        mid, content, is_error = self.answers.pop(op_id)
        details: dict[str, Any] = {
            "duration_ms": round(settled.duration * 1000),
            "outcome": outcome,
        }
        for key, value in (
            ("reason", settled.reason),
            ("error", settled.error),
            ("large_result", settled.artifact),
        ):
            if value is not None:
                details[key] = value
        disposition = {"completed": "continue", "failed": "continue"}.get(outcome, "abandoned")
        run.record(
            "tool_exec_end",
            {
                "result": content,
                "content": [{"type": "text", "text": content}],
                "details": details,
                "is_error": is_error,
                "disposition": disposition,
            },
            execution=self._tool_execution(op_id),
        )
        message = {**_text("tool_result", content), "tool_call_id": op_id, "is_error": is_error}
        run.record("message_end", {"message": message})
        self.conversation.append((mid, message))

    def elide(self, items: Sequence[tuple[str, str]]) -> None:
        """Observation aging: the projection shows old tool results as stubs."""
        stubs = dict(items)
        before = self._tokens()
        self.conversation = [
            (mid, {**m, "content": [{"type": "text", "text": stubs[mid]}]} if mid in stubs else m)
            for mid, m in self.conversation
        ]
        self._run().record(
            "context_projected",
            {
                "summary": f"{len(stubs)} old tool results shown as stubs",
                "replaced": len(stubs),
                "tokens_before": before,
                "tokens_after": self._tokens(),
            },
        )

    def compact(self, summary: str, through_id: str, tokens_before: int, tokens_after: int) -> str:
        # The run has handed back: the compactor works when the next run prepares its context.
        cid = self._mid()
        self.compaction = (cid, summary, through_id, tokens_before, tokens_after)
        return cid

    def _record_compaction(
        self, cid: str, summary: str, through_id: str, tokens_before: int, tokens_after: int
    ) -> None:
        run = self._run()
        cut = next(i for i, (mid, _) in enumerate(self.conversation) if mid == through_id)
        execution = {"id": "compact-1", "kind": "compact", "attempt": 1}
        run.record(
            "model_request",
            {
                "messages": [
                    *(m for _, m in self.conversation[: cut + 1]),
                    _text("user", "Summarize the conversation so far for a fresh context."),
                ],
                "tools": [],
                "config": {"model": self._config()["model"], "temperature": 0.0},
            },
            execution=execution,
        )
        run.record(
            "model_exec_end",
            {
                "message": _text("assistant", summary),
                "usage": _usage(Usage(tokens_before, tokens(summary))),
            },
            execution=execution,
        )
        run.record(
            "context_compacted",
            {
                "summary": summary,
                "replaced": cut + 1,
                "tokens_before": tokens_before,
                "tokens_after": tokens_after,
            },
            execution=execution,
        )
        self.conversation = [(cid, _text("user", summary)), *self.conversation[cut + 1 :]]

    def end_run(self, run_id: str) -> None:
        run = self._run()
        self._end_turn()
        run.record("agent_end", {"stop_reason": "end_turn"})
        self._checkpoint()
        run.close()
        self.run = None

    def close(self) -> None:
        self.session.close()


def _repo(meta: dict[str, Any]) -> str:
    return str(meta.get("cwd") or "/")
