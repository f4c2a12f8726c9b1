"""What the demo agent says to a recorder, and the transcript v1 recorder."""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from session_core import Message, Session
from session_core.artifacts import store_artifact
from session_core.codec import arguments_digest, canonical_arguments, data_digest, section_digest

DEMO_FILE = "agent-run.jsonl"
SEED = 20260809
# The read-only formats' files, where those agents keep them (~/.claude, ~/.codex), inside
# the demo directory. The session ids are fixed; a rollout is filed under the day it starts.
CLAUDE_SESSION_ID = "5b0e7f3c-9d2a-4c61-8e4f-2a7d9c1b3e58"
CODEX_SESSION_ID = "019c9b2e-4f1a-7c30-9e52-6d8b1a4c7f20"
_STARTED = time.localtime()
# run_demo writes the same story in every format, side by side, each by its own writer.
DEMO_FILES = {
    "transcript-v1": DEMO_FILE,
    "agentgo-v1": "agentgo-run.jsonl",
    "claude-code": f".claude/projects/-home-dev-src-tinycalc/{CLAUDE_SESSION_ID}.jsonl",
    "codex": time.strftime(
        f".codex/sessions/%Y/%m/%d/rollout-%Y-%m-%dT%H-%M-%S-{CODEX_SESSION_ID}.jsonl", _STARTED
    ),
}

Sleep = Callable[[float], object]

# How each tool behaves if it runs twice: what a dispatch line records.
IDEMPOTENCY: dict[str, str] = {
    "fs_read": "read-only",
    "grep": "read-only",
    "git_diff": "read-only",
    "web_fetch": "read-only",
    "run_tests": "idempotent",
    "apply_patch": "destructive",
}

# $ per token, for the usage extras (a plausible mid-size model).
PROMPT_PRICE = 3.0 / 1_000_000
COMPLETION_PRICE = 15.0 / 1_000_000


# --- what the agent says to a recorder ------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the model asked for it."""

    id: str
    name: str
    arguments: dict[str, Any]

    @property
    def model_arguments(self) -> str:
        """The arguments as the model wrote them (spaced JSON, not canonical)."""
        return json.dumps(self.arguments)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.model_arguments},
        }


@dataclass(frozen=True, slots=True)
class Usage:
    """One model response's tokens, priced at PROMPT_PRICE and COMPLETION_PRICE."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost(self) -> float:
        return round(
            self.prompt_tokens * PROMPT_PRICE + self.completion_tokens * COMPLETION_PRICE, 6
        )


@dataclass(frozen=True, slots=True)
class AssistantTurn:
    content: str
    reasoning: str
    usage: Usage
    tool_calls: tuple[ToolCall, ...] = ()

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    rendered: str

    @property
    def digest(self) -> str:
        return section_digest(self.name, self.rendered)


@dataclass(frozen=True, slots=True)
class Settled:
    """How a tool operation ended: what a recorder's ``tool_settled`` writes down."""

    op_id: str
    outcome: str
    duration: float
    result: str | None = None
    reason: str | None = None
    error: str | None = None
    artifact: dict[str, object] | None = None


class Recorder(ABC):
    """Where the simulated agent's run goes: one implementation per transcript format.

    Message-writing methods return an opaque id the agent may name later (in
    an elision or a compaction); ``tool_dispatched`` returns the operation id.
    """

    path: str
    # Demo seconds between ``tool_running`` calls while a tool runs; None: never called
    # (the formats without live progress records, whose pauses stay one sleep each).
    progress_every: float | None = None

    @staticmethod
    def utc_now() -> datetime:
        """The time the recorders stamp their lines with (the screenshots fix it)."""
        return datetime.now(UTC)

    def stamp_ms(self) -> str:
        """``utc_now`` as the read-only formats' writers write it: ISO, ms, ``Z``."""
        now = self.utc_now()
        return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"

    def tool_running(self, call: ToolCall, elapsed: float) -> None:  # noqa: B027 (optional)
        """A dispatched tool is still running, ``elapsed`` demo seconds in (progress lines)."""

    def crashing(self) -> None:  # noqa: B027 (an optional hook)
        """The process dies right after this (a format may leave a torn last line)."""

    @abstractmethod
    def begin_run(
        self, run_id: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section]
    ) -> None: ...

    def grants(self, grants: Sequence[dict[str, str]]) -> None:  # noqa: B027 (optional)
        """Permissions granted for the run (a format that records none writes nothing)."""

    @abstractmethod
    def system(self, text: str) -> str: ...

    @abstractmethod
    def user(self, text: str) -> str: ...

    @abstractmethod
    def assistant(self, turn: AssistantTurn) -> str: ...

    @abstractmethod
    def tool_dispatched(self, call: ToolCall, run_id: str, round: int) -> str: ...

    @abstractmethod
    def store_artifact(
        self, op_id: str, content: str, limit: int
    ) -> tuple[str, dict[str, object]]: ...

    @abstractmethod
    def tool_result(
        self, call: ToolCall, content: str, *, is_error: bool = False, outcome_unknown: bool = False
    ) -> str: ...

    def tool_settled(self, settled: Settled) -> None:  # noqa: B027 (optional)
        """How a tool operation ended (a format whose result line is the whole record of
        the call writes nothing)."""

    def elide(self, items: Sequence[tuple[str, str]]) -> None:  # noqa: B027 (optional)
        """Old results stubbed in what the model is sent (a format that never ages its
        results writes nothing)."""

    @abstractmethod
    def compact(self, summary: str, through_id: str, tokens_before: int, tokens_after: int) -> str:
        """Replace everything through ``through_id`` (sticky messages aside) by ``summary``."""

    @abstractmethod
    def end_run(self, run_id: str) -> None: ...

    @abstractmethod
    def close(self) -> None:
        """A clean end. A crash never calls this."""


class TranscriptV1Recorder(Recorder):
    """The envelope format (transcript-v1), through ``session_core.Session``."""

    def __init__(self, path: str, meta: dict[str, Any]) -> None:
        self.path = path
        self.session = Session.create(path, meta=meta)

    def begin_run(
        self, run_id: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section]
    ) -> None:
        digest = data_digest(
            {"facts": [list(f) for f in facts], "sections": [[s.name, s.digest] for s in sections]}
        )
        self.session.append_run_context(
            run_id=run_id,
            digest=digest,
            facts=facts,
            sections=[
                {"name": s.name, "digest": s.digest, "rendered": s.rendered} for s in sections
            ],
        )

    def grants(self, grants: Sequence[dict[str, str]]) -> None:
        self.session.append_grants([dict(g) for g in grants])

    def system(self, text: str) -> str:
        return self.session.append_message(Message(role="system", content=text, sysprompt=True))

    def user(self, text: str) -> str:
        return self.session.append_message(Message(role="user", content=text))

    def assistant(self, turn: AssistantTurn) -> str:
        usage = turn.usage
        return self.session.append_message(
            Message(
                role="assistant",
                content=turn.content,
                tool_calls=tuple(call.as_dict() for call in turn.tool_calls),
            ),
            extra={
                "reasoning": turn.reasoning,
                "finish-reason": turn.finish_reason,
                "usage": {
                    "prompt-tokens": usage.prompt_tokens,
                    "completion-tokens": usage.completion_tokens,
                    "total-tokens": usage.total_tokens,
                    "cost": usage.cost,
                },
            },
        )

    def tool_dispatched(self, call: ToolCall, run_id: str, round: int) -> str:
        arguments = canonical_arguments(call.model_arguments)
        return self.session.append_tool_dispatched(
            call_id=call.id,
            tool=call.name,
            arguments=arguments,
            arguments_digest=arguments_digest(arguments),
            idempotency=IDEMPOTENCY.get(call.name, "unknown"),
            run_id=run_id,
            round=round,
        )

    def store_artifact(self, op_id: str, content: str, limit: int) -> tuple[str, dict[str, object]]:
        return store_artifact(self.path, op_id, content, limit)

    def tool_result(
        self, call: ToolCall, content: str, *, is_error: bool = False, outcome_unknown: bool = False
    ) -> str:
        extra: dict[str, Any] = {}
        if is_error:
            extra["is-error"] = True
        if outcome_unknown:
            extra["outcome-unknown"] = True
        return self.session.append_message(
            Message(role="tool", content=content, tool_call_id=call.id), extra=extra
        )

    def tool_settled(self, settled: Settled) -> None:
        result = settled.result
        self.session.append_tool_settled(
            op_id=settled.op_id,
            outcome=settled.outcome,
            reason=settled.reason,
            duration=settled.duration,
            result_digest=None if result is None else data_digest(result),
            artifact=settled.artifact,
            error=settled.error,
        )

    def elide(self, items: Sequence[tuple[str, str]]) -> None:
        self.session.append_elision([{"id": mid, "stub": stub} for mid, stub in items])

    def compact(self, summary: str, through_id: str, tokens_before: int, tokens_after: int) -> str:
        return self.session.append_compaction(
            summary=summary,
            replaces_through_id=through_id,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            fallback=False,
        )

    def end_run(self, run_id: str) -> None:
        """Transcript v1 has no end-of-run line: the next run context starts the next run."""

    def close(self) -> None:
        self.session.close()


def _agentgo_recorder(path: str, meta: dict[str, Any]) -> Recorder:
    from .agentgo_recorder import AgentGoRecorder  # its own module (it builds on this one)

    return AgentGoRecorder(path, meta)


def _claude_code_recorder(path: str, meta: dict[str, Any]) -> Recorder:
    from .claude_code_recorder import ClaudeCodeRecorder

    return ClaudeCodeRecorder(path, meta)


def _codex_recorder(path: str, meta: dict[str, Any]) -> Recorder:
    from .codex_recorder import CodexRecorder

    return CodexRecorder(path, meta)


RECORDERS: dict[str, Callable[[str, dict[str, Any]], Recorder]] = {
    "transcript-v1": TranscriptV1Recorder,
    "agentgo-v1": _agentgo_recorder,
    "claude-code": _claude_code_recorder,
    "codex": _codex_recorder,
}
