"""The simulated agent: tool calls that complete, fail and hang, paced for a live viewer."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from session_core.artifacts import grapheme_count

from .recorders import SEED, AssistantTurn, Recorder, Section, Settled, Sleep, ToolCall, Usage

# --- the simulated agent ----------------------------------------------------------------


@dataclass(slots=True)
class ToolOutcome:
    """How a simulated tool call turns out."""

    output: str
    duration: float  # simulated seconds the tool takes (slept, scaled by speed)
    outcome: str = "completed"  # completed | failed | outcome-unknown
    error: str | None = None
    reason: str | None = None
    artifact_limit: int | None = None  # store the output as an artifact past this many chars


@dataclass(slots=True)
class _Context:
    """The agent's own estimate of what its context holds, in tokens, per message."""

    entries: list[tuple[str, int, bool]] = field(default_factory=list)  # (id, tokens, sticky)

    def add(self, mid: str, text: str, sticky: bool = False) -> None:
        self.entries.append((mid, tokens(text), sticky))

    def total(self) -> int:
        return sum(t for _, t, _ in self.entries)

    def elide(self, ids: dict[str, str]) -> None:
        self.entries = [
            (mid, tokens(ids[mid]) if mid in ids else t, s) for mid, t, s in self.entries
        ]

    def compact(self, summary_id: str, summary: str, through: str) -> None:
        cut = next(i for i, (mid, _, _) in enumerate(self.entries) if mid == through)
        kept = [e for e in self.entries[: cut + 1] if e[2]]
        self.entries = [*kept, (summary_id, tokens(summary), False), *self.entries[cut + 1 :]]


def tokens(text: str) -> int:
    """A rough token count: about four characters a token."""
    return max(1, (len(text) + 3) // 4)


class Crashed(Exception):
    """Raised inside the agent at the moment the simulated process dies."""


class DemoAgent:
    """The scripted agent: the shape of a real loop, with canned model turns and tools."""

    SYSTEM_OVERHEAD = 1_200  # tool schemas and the rendered run context, in tokens

    def __init__(self, recorder: Recorder, *, speed: float, sleep: Sleep, seed: int = SEED) -> None:
        self.rec = recorder
        self.speed = speed
        self._sleep = sleep
        self.rng = random.Random(seed)
        self.context = _Context()
        self.run_id = ""
        self.round = 0

    # pacing

    def pause(self, seconds: float, running: Sequence[ToolCall] = ()) -> None:
        """Sleep ``seconds`` of demo time (jittered, scaled by speed; none at speed 0).

        While ``running`` tools run, a recorder that wants progress hears of them every
        ``progress_every`` demo seconds (at speed 0 too, without sleeping); the jitter is
        drawn once either way, so every format tells the same story.
        """
        jittered = seconds * self.rng.uniform(0.85, 1.15)
        every = self.rec.progress_every
        if running and every:
            done = 0.0
            while done + every < jittered:
                self._wait(every)
                done += every
                for call in running:
                    self.rec.tool_running(call, done)
            self._wait(jittered - done)
            return
        self._wait(jittered)

    def _wait(self, demo_seconds: float) -> None:
        if self.speed <= 0 or not (self.speed < float("inf")):
            return
        wait = demo_seconds / self.speed
        if wait >= 0.001:
            self._sleep(wait)

    def call_id(self) -> str:
        alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        return "call_" + "".join(self.rng.choice(alphabet) for _ in range(24))

    def call(self, name: str, **arguments: Any) -> ToolCall:
        return ToolCall(id=self.call_id(), name=name, arguments=arguments)

    # the loop's pieces

    def begin_run(
        self, run_id: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section]
    ) -> None:
        self.run_id = run_id
        self.round = 0
        self.rec.begin_run(run_id, facts, sections)
        self.pause(0.4)

    def system(self, text: str) -> str:
        mid = self.rec.system(text)
        self.context.add(mid, text, sticky=True)
        self.pause(0.3)
        return mid

    def user(self, text: str) -> str:
        mid = self.rec.user(text)
        self.context.add(mid, text)
        self.pause(0.6)
        return mid

    def think(self, content: str, reasoning: str, *calls: ToolCall) -> str:
        """One model request and its committed assistant turn."""
        self.round += 1
        self.pause(0.8 + 0.15 * len(calls))  # the model is generating
        prompt = self.SYSTEM_OVERHEAD + self.context.total()
        written = content + reasoning + "".join(c.model_arguments + c.name for c in calls)
        completion = tokens(written) + self.rng.randint(8, 40)
        turn = AssistantTurn(
            content=content,
            reasoning=reasoning,
            usage=Usage(prompt, completion),
            tool_calls=calls,
        )
        mid = self.rec.assistant(turn)
        self.context.add(mid, written)
        self.pause(0.3)
        return mid

    def dispatch(self, call: ToolCall) -> str:
        op = self.rec.tool_dispatched(call, self.run_id, self.round)
        self.pause(0.2)
        return op

    def finish(self, call: ToolCall, op: str, result: ToolOutcome) -> str:
        """The tool has returned (or given up): its message first, then the settle."""
        content = result.output
        artifact: dict[str, object] | None = None
        limit = result.artifact_limit  # (in characters: graphemes, as the reference counts)
        if limit is not None and len(content) > limit and grapheme_count(content) > limit:
            content, artifact = self.rec.store_artifact(op, content, limit)
        failed = result.outcome != "completed"
        mid = self.rec.tool_result(
            call,
            content,
            is_error=failed,
            outcome_unknown=result.outcome == "outcome-unknown",
        )
        self.context.add(mid, content)
        self.pause(0.2)
        self.rec.tool_settled(
            Settled(
                op,
                result.outcome,
                duration=result.duration,
                result=None if result.outcome == "outcome-unknown" else content,
                reason=result.reason,
                error=result.error,
                artifact=artifact,
            )
        )
        self.pause(0.25)
        return mid

    def run_tool(self, call: ToolCall, result: ToolOutcome) -> str:
        """Dispatch, run (the viewer shows it running), answer, settle."""
        op = self.dispatch(call)
        self.pause(result.duration, running=(call,))
        return self.finish(call, op, result)

    def run_parallel(self, pairs: Sequence[tuple[ToolCall, ToolOutcome]]) -> list[str]:
        """Dispatch them all, then each answers in turn."""
        ops = [self.dispatch(call) for call, _ in pairs]
        self.pause(max(result.duration for _, result in pairs), running=[c for c, _ in pairs])
        return [
            self.finish(call, op, result) for (call, result), op in zip(pairs, ops, strict=True)
        ]

    def grants(self, grants: Sequence[dict[str, str]]) -> None:
        self.pause(0.8)  # the human is being asked
        self.rec.grants(grants)
        self.pause(0.3)

    def age_observations(self, ids: Sequence[tuple[str, str]]) -> None:
        """The compactor's observation aging: old tool results stubbed in place."""
        items = [(mid, f"[elided by the compactor: old {what} result]") for mid, what in ids]
        self.pause(0.5)
        self.rec.elide(items)
        self.context.elide(dict(items))
        self.pause(0.5)

    def compact(self, summary: str, through: str) -> str:
        before = self.SYSTEM_OVERHEAD + self.context.total()
        self.pause(1.2)  # the summarizer is a model call too
        probe = _Context(list(self.context.entries))
        probe.compact("probe", summary, through)
        after = self.SYSTEM_OVERHEAD + probe.total()
        cid = self.rec.compact(summary, through, before, after)
        self.context.compact(cid, summary, through)
        self.pause(0.5)
        return cid
