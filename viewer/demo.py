"""``tailscope demo``: a simulated coding agent writing a live transcript, and the viewer on it.

No network and no model: a scripted agent ("quill") fixes a failing test in a
small repository ("tinycalc") and writes everything a real agent loop writes,
in the order a real loop writes it (see the seed document on
``LLM::Agent::Session``):

* run 1: grants, a run context, the system prompt and the user's request,
  then rounds of assistant turns with tool calls that complete, fail and
  hang (settled ``outcome-unknown``, reason ``timeout``), an oversized result
  stored as an artifact, an elision of old tool results and a compaction;
* run 2: a second run context (two sections repeated, so they are written
  ``rendered-in``; ``AGENTS.md`` changed), more rounds, and finally a crash
  that leaves one tool call in each of the three crash states.

The agent speaks to a :class:`Recorder`, not to a file format: the transcript
v1 writer is :class:`TranscriptV1Recorder`; the agentgo-v1 one is
``viewer.demo_agentgo.AgentGoRecorder`` (see ``RECORDERS``).

``python -m viewer.demo write PATH [--speed S]`` runs the agent and then kills
its own process with SIGKILL (the session is never closed): that is the
writer ``run_demo`` starts beside the viewer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from session_core import Message, Session
from session_core.artifacts import store_artifact
from session_core.codec import arguments_digest, canonical_arguments, data_digest, section_digest

DEMO_FILE = "agent-run.jsonl"
# run_demo writes the same story in both formats, side by side, each by its own writer.
DEMO_FILES = {"transcript-v1": DEMO_FILE, "agentgo-v1": "agentgo-run.jsonl"}
SEED = 20260809

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


class Recorder(ABC):
    """Where the simulated agent's run goes: one implementation per transcript format.

    Message-writing methods return an opaque id the agent may name later (in
    an elision or a compaction); ``tool_dispatched`` returns the operation id.
    """

    path: str

    @abstractmethod
    def begin_run(
        self, run_id: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section]
    ) -> None: ...

    @abstractmethod
    def grants(self, grants: Sequence[dict[str, str]]) -> None: ...

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

    @abstractmethod
    def tool_settled(
        self,
        op_id: str,
        outcome: str,
        *,
        duration: float,
        result: str | None = None,
        reason: str | None = None,
        error: str | None = None,
        artifact: dict[str, object] | None = None,
    ) -> None: ...

    @abstractmethod
    def elide(self, items: Sequence[tuple[str, str]]) -> None: ...

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

    def tool_settled(
        self,
        op_id: str,
        outcome: str,
        *,
        duration: float,
        result: str | None = None,
        reason: str | None = None,
        error: str | None = None,
        artifact: dict[str, object] | None = None,
    ) -> None:
        self.session.append_tool_settled(
            op_id=op_id,
            outcome=outcome,
            reason=reason,
            duration=duration,
            result_digest=None if result is None else data_digest(result),
            artifact=artifact,
            error=error,
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
    from .demo_agentgo import AgentGoRecorder  # its own module (it builds on this one)

    return AgentGoRecorder(path, meta)


RECORDERS: dict[str, Callable[[str, dict[str, Any]], Recorder]] = {
    "transcript-v1": TranscriptV1Recorder,
    "agentgo-v1": _agentgo_recorder,
}


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

    def pause(self, seconds: float) -> None:
        """Sleep ``seconds`` of demo time (jittered, scaled by speed; none at speed 0)."""
        jittered = seconds * self.rng.uniform(0.85, 1.15)
        if self.speed <= 0 or not (self.speed < float("inf")):
            return
        wait = jittered / self.speed
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
        if result.artifact_limit is not None and len(content) > result.artifact_limit:
            content, artifact = self.rec.store_artifact(op, content, result.artifact_limit)
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
            op,
            result.outcome,
            duration=result.duration,
            result=None if result.outcome == "outcome-unknown" else content,
            reason=result.reason,
            error=result.error,
            artifact=artifact,
        )
        self.pause(0.25)
        return mid

    def run_tool(self, call: ToolCall, result: ToolOutcome) -> str:
        """Dispatch, run (the viewer shows it running), answer, settle."""
        op = self.dispatch(call)
        self.pause(result.duration)
        return self.finish(call, op, result)

    def run_parallel(self, pairs: Sequence[tuple[ToolCall, ToolOutcome]]) -> list[str]:
        """Dispatch them all, then each answers in turn."""
        ops = [self.dispatch(call) for call, _ in pairs]
        self.pause(max(result.duration for _, result in pairs))
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


# --- the script ---------------------------------------------------------------------------


REPO = "/home/dev/src/tinycalc"

SYSTEM_PROMPT = """\
You are quill, a careful coding agent working in a git repository on the user's machine.

Work in small, verifiable steps: read before you edit, run the tests before and after a \
change, and never weaken a test to make it pass. Prefer `apply_patch` for edits and keep \
patches minimal. When a tool fails, read the error before retrying. Say what you changed \
and how you checked it when you are done."""

IDENTITY = """\
# Identity
You are quill 0.9.2, running for dev@example.com.
You may read and edit files under the working directory and run its tests.
You may not push, publish, or contact hosts other than the ones granted."""

AGENTS_MD_1 = """\
# AGENTS.md (tinycalc)
- Run the tests with `pytest -q`; the suite must stay green.
- Public functions in `calc/` are typed; keep them typed.
- Errors the user can see are `calc.errors.CalcError`, with a lower-case message.
- Do not change a test to make it pass; fix the code."""

AGENTS_MD_2 = (
    AGENTS_MD_1
    + """
- Every user-visible fix gets a line in CHANGELOG.md under `## Unreleased`."""
)

TOOLS = """\
# Tools
- fs_read(path, start?, end?): read a file, optionally a line range
- grep(pattern, path?): search the repository
- run_tests(target?, verbose?): run pytest and return its output
- apply_patch(patch): apply a unified diff to the working tree
- git_diff(): the working tree's diff against HEAD
- web_fetch(url): fetch a page (only granted hosts)"""

OPS_PY = '''\
"""Arithmetic operations for tinycalc."""

from decimal import Decimal

from .errors import CalcError


def add(a: Decimal, b: Decimal) -> Decimal:
    return a + b


def subtract(a: Decimal, b: Decimal) -> Decimal:
    return a - b


def multiply(a: Decimal, b: Decimal) -> Decimal:
    return a * b


def divide(a: Decimal, b: Decimal) -> Decimal:
    if b == 0:
        return Decimal("NaN")
    return a / b


def modulo(a: Decimal, b: Decimal) -> Decimal:
    if b == 0:
        return Decimal("NaN")
    return a % b


def power(a: Decimal, b: Decimal) -> Decimal:
    if b != b.to_integral_value() and a < 0:
        raise CalcError("fractional power of a negative number")
    return a**b
'''

TEST_OPS_EXCERPT = """\
 38  def test_divide() -> None:
 39      assert divide(Decimal("7"), Decimal("2")) == Decimal("3.5")
 40
 41
 42  def test_divide_by_zero() -> None:
 43      with pytest.raises(CalcError, match="division by zero"):
 44          divide(Decimal("1"), Decimal("0"))
 45
 46
 47  def test_modulo() -> None:
 48      assert modulo(Decimal("7"), Decimal("3")) == Decimal("1")
"""

FIRST_FAILURE = """\
$ pytest -q tests/
........................................F............................... [ 33%]
........................................................................ [ 67%]
......................................................................   [100%]
=================================== FAILURES ===================================
_____________________________ test_divide_by_zero ______________________________

    def test_divide_by_zero() -> None:
>       with pytest.raises(CalcError, match="division by zero"):
E       Failed: DID NOT RAISE <class 'calc.errors.CalcError'>

tests/test_ops.py:43: Failed
=========================== short test summary info ============================
FAILED tests/test_ops.py::test_divide_by_zero - Failed: DID NOT RAISE <class \
'calc.errors.CalcError'>
1 failed, 213 passed in 1.84s"""

GREP_RESULT = """\
calc/errors.py:4:class CalcError(ValueError):
calc/errors.py:5:    \"\"\"An error the user made, with a message worth showing them.\"\"\"
calc/ops.py:5:from .errors import CalcError
calc/ops.py:39:        raise CalcError("fractional power of a negative number")
calc/parser.py:12:from .errors import CalcError
calc/parser.py:57:            raise CalcError(f"unexpected token {tok!r} at column {col}")
calc/cli.py:31:    except CalcError as err:
tests/test_ops.py:6:from calc.errors import CalcError
tests/test_ops.py:43:    with pytest.raises(CalcError, match="division by zero"):
tests/test_parser.py:9:from calc.errors import CalcError"""

BAD_PATCH = """\
--- a/calc/ops.py
+++ b/calc/ops.py
@@ -18,4 +18,4 @@
 def divide(a: Decimal, b: Decimal) -> Decimal:
-    if b == 0:
-        return Decimal("NaN")
+    if b == 0:
+        raise CalcError("division by zero")
     return a / b"""

GOOD_PATCH = """\
--- a/calc/ops.py
+++ b/calc/ops.py
@@ -21,6 +21,6 @@
 def divide(a: Decimal, b: Decimal) -> Decimal:
     if b == 0:
-        return Decimal("NaN")
+        raise CalcError("division by zero")
     return a / b
"""

OPS_DIVIDE_RANGE = """\
 21  def divide(a: Decimal, b: Decimal) -> Decimal:
 22      if b == 0:
 23          return Decimal("NaN")
 24      return a / b
 25
 26
 27  def modulo(a: Decimal, b: Decimal) -> Decimal:
 28      if b == 0:
 29          return Decimal("NaN")
 30      return a % b"""

CHANGELOG = """\
# Changelog

## Unreleased

## 0.4.1 (2026-06-30)
- The parser reports the column of an unexpected token.

## 0.4.0 (2026-05-12)
- `power` accepts fractional exponents.
- New `tinycalc --precision N` option."""

CHANGELOG_ENTRY = (
    '- `divide` and `modulo` raise `CalcError("division by zero")` instead of returning NaN.'
)

CHANGELOG_AFTER = CHANGELOG.replace("## Unreleased\n", f"## Unreleased\n{CHANGELOG_ENTRY}\n")

TEST_MODULO_EXCERPT = """\
 46
 47  def test_modulo() -> None:
 48      assert modulo(Decimal("7"), Decimal("3")) == Decimal("1")
 49
 50"""

REGRESSION_PATCH = """\
--- a/tests/test_ops.py
+++ b/tests/test_ops.py
@@ -50,0 +51,5 @@
+
+
+def test_modulo_by_zero() -> None:
+    with pytest.raises(CalcError, match="division by zero"):
+        modulo(Decimal("1"), Decimal("0"))
--- a/CHANGELOG.md
+++ b/CHANGELOG.md
@@ -3,0 +4 @@
+- `divide` and `modulo` raise `CalcError("division by zero")` instead of returning NaN.
"""

MODULO_FAILURE = """\
$ pytest -q tests/test_ops.py
...........................F.                                            [100%]
=================================== FAILURES ===================================
_____________________________ test_modulo_by_zero ______________________________

    def test_modulo_by_zero() -> None:
>       with pytest.raises(CalcError, match="division by zero"):
E       Failed: DID NOT RAISE <class 'calc.errors.CalcError'>

tests/test_ops.py:54: Failed
1 failed, 28 passed in 0.21s"""

MODULO_PATCH = """\
--- a/calc/ops.py
+++ b/calc/ops.py
@@ -27,6 +27,6 @@
 def modulo(a: Decimal, b: Decimal) -> Decimal:
     if b == 0:
-        return Decimal("NaN")
+        raise CalcError("division by zero")
     return a % b
"""

FINAL_DIFF = """\
 CHANGELOG.md      | 1 +
 calc/ops.py       | 4 ++--
 tests/test_ops.py | 5 +++++
 3 files changed, 8 insertions(+), 2 deletions(-)

diff --git a/calc/ops.py b/calc/ops.py
@@ -21,6 +21,6 @@ def divide(a: Decimal, b: Decimal) -> Decimal:
     if b == 0:
-        return Decimal("NaN")
+        raise CalcError("division by zero")
@@ -27,6 +27,6 @@ def modulo(a: Decimal, b: Decimal) -> Decimal:
     if b == 0:
-        return Decimal("NaN")
+        raise CalcError("division by zero")"""

SUMMARY = (
    "[Summary of earlier conversation] The user asked to fix the failing test "
    "`tests/test_ops.py::test_divide_by_zero` in tinycalc. The first test run showed 1 failed, "
    '213 passed: `divide` returned Decimal("NaN") for a zero divisor where the test expects '
    '`CalcError("division by zero")`. `CalcError` lives in `calc/errors.py` (a ValueError '
    "subclass) and is already imported by `calc/ops.py`. A fetch of the `decimal` docs on "
    "DivisionByZero timed out (outcome unknown; not needed). A first patch did not apply "
    "(wrong line numbers); after re-reading lines 21-30 the corrected patch made `divide` raise "
    '`CalcError("division by zero")`, and the full verbose run passed (214 passed; its output '
    "is stored as an artifact). `modulo` still returns NaN for a zero divisor and has no test."
)


def _verbose_suite(rng: random.Random) -> str:
    """The output of ``pytest -v`` over the whole suite: big enough to become an artifact."""
    modules = {
        "tests/test_ops.py": ["add", "subtract", "multiply", "divide", "modulo", "power"],
        "tests/test_parser.py": ["number", "unary", "binary", "parens", "precedence", "errors"],
        "tests/test_cli.py": ["precision", "stdin", "argv", "exit_code", "help", "version"],
        "tests/test_format.py": ["fixed", "scientific", "grouping", "rounding", "padding", "nan"],
    }
    cases = ["ints", "decimals", "negatives", "large", "small", "mixed", "zero", "unicode", "edge"]
    names: list[str] = []
    for module, topics in modules.items():
        for topic in topics:
            for case in cases:
                names.append(f"{module}::test_{topic}_{case}")
    names = names[:214]
    lines = [
        "$ pytest -v tests/",
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0 -- .venv/bin/python",
        f"rootdir: {REPO}",
        "configfile: pyproject.toml",
        f"collected {len(names)} items",
        "",
    ]
    for index, name in enumerate(names, start=1):
        percent = index * 100 // len(names)
        lines.append(f"{name} PASSED{' ' * max(1, 60 - len(name))}[{percent:3d}%]")
    seconds = 1.7 + rng.random() * 0.4
    lines += [
        "",
        "============================= slowest 5 durations ==============================",
        "0.31s call     tests/test_cli.py::test_stdin_large",
        "0.12s call     tests/test_format.py::test_rounding_edge",
        "0.05s call     tests/test_parser.py::test_precedence_mixed",
        "0.02s setup    tests/test_cli.py::test_precision_ints",
        "0.01s call     tests/test_ops.py::test_power_negatives",
        f"============================= {len(names)} passed in {seconds:.2f}s "
        "==============================",
    ]
    return "\n".join(lines)


def _facts(run: int) -> list[tuple[str, str]]:
    return [
        ("date", date.today().isoformat()),
        ("cwd", REPO),
        ("branch", "fix/divide-by-zero"),
        ("head", "3f9c2e1" if run == 1 else "3f9c2e1 (+1 modified: calc/ops.py)"),
        ("model", "demo-model-1 (simulated)"),
        ("os", "linux"),
    ]


def _script(agent: DemoAgent, crash: bool, at_crash: Callable[[], object] | None) -> None:
    a = agent
    # ---- run 1 ------------------------------------------------------------------------
    a.rec.grants(
        [
            {"tool": "fs_read", "scope": "always"},
            {"tool": "grep", "scope": "always"},
            {"tool": "run_tests", "scope": "always"},
        ]
    )
    a.begin_run(
        "run-1",
        _facts(1),
        [Section("identity", IDENTITY), Section("AGENTS.md", AGENTS_MD_1), Section("tools", TOOLS)],
    )
    a.system(SYSTEM_PROMPT)
    a.user(
        "The test test_divide_by_zero in tinycalc started failing after yesterday's refactor. "
        "Can you find out why and fix it? Don't touch the test."
    )

    c = a.call("run_tests", target="tests/")
    a.think(
        "I'll start by running the test suite to see the failure.",
        "Reproduce first: run the whole suite, then read the failing test and the code.",
        c,
    )
    tests1 = a.run_tool(c, ToolOutcome(FIRST_FAILURE, duration=2.2))

    c1 = a.call("fs_read", path="tests/test_ops.py", start=38, end=48)
    c2 = a.call("fs_read", path="calc/ops.py")
    a.think(
        "One failure: `divide` does not raise. Let me read the test and the implementation.",
        "The test expects CalcError('division by zero'); read both sides in parallel.",
        c1,
        c2,
    )
    read_test, read_ops = a.run_parallel(
        [(c1, ToolOutcome(TEST_OPS_EXCERPT, 0.4)), (c2, ToolOutcome(OPS_PY, 0.5))]
    )

    c = a.call("grep", pattern="CalcError", path=".")
    a.think(
        "`divide` returns NaN for a zero divisor. Let me check how CalcError is used elsewhere.",
        "Confirm CalcError is the project's user-facing error and is importable in ops.py.",
        c,
    )
    grep = a.run_tool(c, ToolOutcome(GREP_RESULT, 0.7))

    a.grants(
        [
            {"tool": "fs_read", "scope": "always"},
            {"tool": "grep", "scope": "always"},
            {"tool": "run_tests", "scope": "always"},
            {"tool": "web_fetch", "scope": "session", "host": "docs.python.org"},
        ]
    )
    c = a.call(
        "web_fetch", url="https://docs.python.org/3/library/decimal.html#decimal.DivisionByZero"
    )
    a.think(
        "Before changing it, I'll check what the decimal module itself does on division by zero.",
        "Decimal may trap DivisionByZero depending on context; check the docs to be sure the "
        "explicit check is still needed.",
        c,
    )
    op = a.dispatch(c)
    a.pause(4.5)  # it hangs: the viewer shows it running until the loop gives up
    hang = ToolOutcome(
        "error: web_fetch did not answer within 30s and was abandoned; whether the request "
        "completed is unknown",
        duration=30.0,
        outcome="outcome-unknown",
        reason="timeout",
    )
    a.finish(c, op, hang)

    a.grants(
        [
            {"tool": "fs_read", "scope": "always"},
            {"tool": "grep", "scope": "always"},
            {"tool": "run_tests", "scope": "always"},
            {"tool": "web_fetch", "scope": "session", "host": "docs.python.org"},
            {"tool": "apply_patch", "scope": "session", "path": REPO},
        ]
    )
    c = a.call("apply_patch", patch=BAD_PATCH)
    a.think(
        "The docs fetch timed out; it isn't needed. The fix is to raise CalcError in `divide`.",
        "Replace the NaN return with raise CalcError('division by zero').",
        c,
    )
    a.run_tool(
        c,
        ToolOutcome(
            "error: patch failed: calc/ops.py:18\n"
            "error: calc/ops.py: patch does not apply (hunk 1 of 1: context does not match)",
            duration=0.3,
            outcome="failed",
            error="patch does not apply: hunk 1 of 1 at calc/ops.py:18",
        ),
    )

    c = a.call("fs_read", path="calc/ops.py", start=21, end=30)
    a.think(
        "The hunk's line numbers were off. Let me re-read the exact lines.",
        "Hunk header said 18; divide starts at 21. Re-read, then rebuild the patch.",
        c,
    )
    a.run_tool(c, ToolOutcome(OPS_DIVIDE_RANGE, 0.3))

    c = a.call("apply_patch", patch=GOOD_PATCH)
    a.think(
        "`divide` starts at line 21. Applying the corrected patch.",
        "Same change, correct context.",
        c,
    )
    a.run_tool(c, ToolOutcome("Applied 1 hunk to calc/ops.py (+1 -1).", 0.3))

    # The compactor's observation aging: the oldest tool results become stubs, in place.
    a.age_observations(
        [(tests1, "run_tests"), (read_test, "fs_read"), (read_ops, "fs_read"), (grep, "grep")]
    )

    c = a.call("run_tests", target="tests/", verbose=True)
    a.think(
        "Patched. Running the full suite verbosely to confirm nothing else changed.",
        "Verbose run so every test is listed; the output will be long.",
        c,
    )
    verbose = a.run_tool(c, ToolOutcome(_verbose_suite(a.rng), duration=2.4, artifact_limit=1600))

    a.think(
        'Fixed. `divide` now raises `CalcError("division by zero")` for a zero divisor instead '
        "of returning NaN, which is what `test_divide_by_zero` expects. All 214 tests pass. "
        "Note that `modulo` has the same NaN behaviour; tell me if you want it changed too.",
        "Done; mention modulo, which has the same pattern but no test.",
    )
    a.rec.end_run("run-1")

    # The compactor, as the run hands back: fold everything but the answer into a summary.
    a.compact(SUMMARY, through=verbose)

    # ---- run 2 ------------------------------------------------------------------------
    a.pause(1.5)  # the human reads the answer
    a.begin_run(
        "run-2",
        _facts(2),
        [Section("identity", IDENTITY), Section("AGENTS.md", AGENTS_MD_2), Section("tools", TOOLS)],
    )
    a.user(
        "Thanks! Yes, please fix modulo too and add a regression test for it. AGENTS.md now "
        "asks for a CHANGELOG entry, so add one."
    )

    c1 = a.call("fs_read", path="CHANGELOG.md")
    c2 = a.call("fs_read", path="tests/test_ops.py", start=46, end=50)
    a.think(
        "I'll look at the changelog and the end of the modulo tests first.",
        "AGENTS.md changed: a CHANGELOG line is now required. Test first, then the fix.",
        c1,
        c2,
    )
    read_log, read_tail = a.run_parallel(
        [
            (c1, ToolOutcome(CHANGELOG, 0.3)),
            (c2, ToolOutcome(TEST_MODULO_EXCERPT, 0.3)),
        ]
    )

    c = a.call("apply_patch", patch=REGRESSION_PATCH)
    a.think(
        "Adding the regression test and the changelog entry.",
        "Write the test before the fix so it is seen to fail.",
        c,
    )
    a.run_tool(c, ToolOutcome("Applied 2 hunks to 2 files (+6 -0).", 0.4))

    c = a.call("run_tests", target="tests/test_ops.py")
    a.think("Running the ops tests; the new one should fail.", "Expect exactly one failure.", c)
    a.run_tool(c, ToolOutcome(MODULO_FAILURE, 1.4))

    c = a.call("apply_patch", patch=MODULO_PATCH)
    a.think("It fails as expected. Fixing `modulo` the same way.", "Mirror the divide fix.", c)
    a.run_tool(c, ToolOutcome("Applied 1 hunk to calc/ops.py (+1 -1).", 0.3))
    # Observation aging goes on in run 2: these reads stay in place, as stubs.
    a.age_observations([(read_log, "fs_read"), (read_tail, "fs_read")])

    # The last round: three calls, at most two tools at a time.
    suite = a.call("run_tests", target="tests/")
    diff = a.call("git_diff")
    reread_log = a.call("fs_read", path="CHANGELOG.md")
    a.think(
        "Now the whole suite, the diff for review, and a last look at the changelog.",
        "Run everything; check the diff touches only ops.py, the test and CHANGELOG.",
        suite,
        diff,
        reread_log,
    )
    suite_op = a.dispatch(suite)
    diff_op = a.dispatch(diff)
    a.pause(1.0)
    a.context.add(a.rec.tool_result(diff, FINAL_DIFF), FINAL_DIFF)  # the diff is back ...
    if crash:
        # ... and the process dies before its settle lands: git_diff answered but
        # unsettled, run_tests in flight, fs_read never dispatched (no free slot).
        if at_crash is not None:
            at_crash()
        raise Crashed
    a.pause(0.25)
    a.rec.tool_settled(diff_op, "completed", duration=0.4, result=FINAL_DIFF)
    a.pause(2.0)
    suite_out = FIRST_FAILURE.split("\n", 1)[0] + "\n" + "." * 72 + "\n214 passed in 1.93s"
    a.finish(suite, suite_op, ToolOutcome(suite_out, 2.8))
    a.run_tool(reread_log, ToolOutcome(CHANGELOG_AFTER, 0.2))
    a.think(
        'Done: `modulo` now raises `CalcError("division by zero")` like `divide`, with a '
        "regression test, and CHANGELOG.md has an Unreleased entry. All 215 tests pass.",
        "Everything green; summarize.",
    )
    a.rec.end_run("run-2")


def simulate_run(
    path: str,
    *,
    speed: float = 1.0,
    sleep: Sleep = time.sleep,
    crash: bool = True,
    format: str = "transcript-v1",
    at_crash: Callable[[], object] | None = None,
) -> None:
    """Write a simulated agent run to ``path`` (a new file), pacing it for a live viewer.

    ``speed`` scales every pause (2.0 is twice as fast; 0 does not sleep at all).
    With ``crash`` the run ends in a crash: the session is left open (never
    closed) with tool calls in flight; ``at_crash`` is called at that moment,
    with the session still open (the ``write`` command kills the process
    there). Without ``crash`` the run finishes and the session is closed.
    """
    try:
        make = RECORDERS[format]
    except KeyError:
        raise ValueError(
            f"unknown demo format {format!r} (known: {', '.join(RECORDERS)})"
        ) from None
    meta = {
        "agent": "quill",
        "agent-version": "0.9.2",
        "model": "demo-model-1",
        "cwd": REPO,
        "task": "fix the failing test_divide_by_zero",
        "simulated": True,
    }
    recorder = make(path, meta)
    agent = DemoAgent(recorder, speed=speed, sleep=sleep)
    try:
        _script(agent, crash, at_crash)
    except Crashed:
        return  # the session is abandoned, never closed: that is the crash
    recorder.close()


# --- the command: the writer beside the viewer -------------------------------------------


def run_demo(speed: float = 1.0, keep: bool = False, format: str = "transcript-v1") -> int:
    """Write live simulated runs (both formats) into a temporary directory; view one of them.

    Two writer processes write the same story, ``agent-run.jsonl`` (transcript
    v1) and ``agentgo-run.jsonl`` (agentgo-v1); the viewer opens the one of
    ``format``.
    """
    if format not in DEMO_FILES:
        print(
            f"tailscope demo: unknown format {format!r} (known: {', '.join(DEMO_FILES)})",
            file=sys.stderr,
        )
        return 2
    directory = tempfile.mkdtemp(prefix="tailscope-demo-")
    paths = {fmt: os.path.join(directory, name) for fmt, name in DEMO_FILES.items()}
    log_path = os.path.join(directory, "writer.log")
    writers: list[subprocess.Popen[bytes]] = []
    try:
        with open(log_path, "ab") as log:
            for fmt, path in paths.items():
                command = [sys.executable, "-m", "viewer.demo", "write", path]
                command += ["--speed", str(speed), "--format", fmt]
                writers.append(
                    subprocess.Popen(
                        command,
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=log,
                        start_new_session=True,  # keep the terminal's signals for the viewer
                    )
                )
        deadline = time.monotonic() + 10.0
        while not all(_has_content(p) for p in paths.values()):
            # A writer that is gone before its file has content never started (a fast
            # one may well have finished, and died, already).
            gone = [
                w.poll() is not None and not _has_content(p)
                for w, p in zip(writers, paths.values(), strict=True)
            ]
            if any(gone) or time.monotonic() > deadline:
                with open(log_path, "rb") as fh:
                    detail = fh.read().decode("utf-8", "replace").strip()
                print(
                    "tailscope demo: the simulated agent did not start"
                    + (f":\n{detail}" if detail else ""),
                    file=sys.stderr,
                )
                return 1
            time.sleep(0.02)
        from viewer.app import TailscopeApp

        TailscopeApp(paths[format]).run()
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.terminate()
        for writer in writers:
            try:
                writer.wait(timeout=3)
            except subprocess.TimeoutExpired:
                writer.kill()
                writer.wait()
        if keep:
            print(f"tailscope demo: the transcripts are kept in {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)
    return 0


def _has_content(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _die() -> None:
    """A real crash: no close, no flush, no atexit."""
    os.kill(os.getpid(), signal.SIGKILL)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m viewer.demo", description="the tailscope demo's simulated agent"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write a simulated run to PATH, then die by SIGKILL")
    w.add_argument("path")
    w.add_argument("--speed", type=float, default=1.0, help="pace multiplier; 0: no pauses")
    w.add_argument("--format", default="transcript-v1", choices=sorted(RECORDERS))
    w.add_argument("--no-crash", action="store_true", help="finish cleanly instead")
    args = parser.parse_args(argv)
    simulate_run(
        args.path,
        speed=args.speed,
        crash=not args.no_crash,
        format=args.format,
        at_crash=_die,
    )
    if not args.no_crash:
        _die()
    return 0


if __name__ == "__main__":
    sys.exit(main())
