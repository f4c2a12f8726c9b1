"""The demo agent's run as a Claude Code session (``~/.claude/projects/<cwd>/<id>.jsonl``).

Written the way Claude Code writes it (see shared/spec/claude-code.md and the samples):
one JSON object a line, appended and flushed; every conversation line threaded by
``parentUuid``; a ``file-history-snapshot`` before each prompt (and an update after
each edit); each model response split over one line per content block, sharing
``message.id`` and ``requestId``, its ``usage`` repeated and growing; tool results as
``user`` lines with the tool's ``toolUseResult``; ``bash_progress`` lines while a
Bash command runs; the ``grep`` of the story delegated to an Explore subagent writing
``<id>/subagents/agent-<agentId>.jsonl`` (+ ``.meta.json``), its messages echoed as
``agent_progress`` lines; ``turn_duration`` at the end of a turn; the compaction as an
auto ``compact_boundary`` and the summary after it. A crash leaves the suite's Bash
and the last Read without results, and half a progress line.

Claude Code keeps no grants, run contexts, system prompt or settle lines: those
calls write nothing. Its observation aging (``microcompact_boundary``) is not in the
samples, so the story's elisions write nothing either.
"""

from __future__ import annotations

import os
import random
import re
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from .claude_code_subagent import Subagent
from .claude_code_tools import (
    MODEL,
    Lines,
    Use,
    WorkingTree,
    bash_result,
    dumps,
    edit_result,
    fetch_result,
    progress_output,
    read_result,
    translate,
)
from .recorders import SEED, AssistantTurn, Recorder, Section, ToolCall
from .story import verbose_suite

VERSION = "2.1.76"
CLAUDE_SYSTEM = 14_236  # Claude Code's own system prompt and tool schemas, in tokens
SUMMARY_HEAD = (
    "This session is being continued from a previous conversation that ran out of "
    "context. The summary below covers the earlier portion of the conversation.\n\n"
)
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class ClaudeCodeRecorder(Recorder):
    """Claude Code's session file, and its subagent's, for the demo story."""

    progress_every = 0.5  # demo seconds between bash_progress lines

    def __init__(self, path: str, meta: dict[str, Any]) -> None:
        self.path = path
        self.cwd = str(meta.get("cwd") or "/")
        self.rng = random.Random(SEED + 7)  # ids and token noise; never the agent's rng
        stem = os.path.basename(path).removesuffix(".jsonl")
        self.session_id = stem if _UUID.match(stem) else self._uuid()
        self.out = Lines(path)
        self.parent: str | None = None  # the main chain's last line
        self.last_ts = ""
        self.uses: dict[str, list[Use]] = {}  # story call id -> its Claude Code tool uses
        self.running: list[Use] = []
        self.tree = WorkingTree()
        self.tracked: dict[str, dict[str, Any]] = {}  # file-history backups
        self.prompt_uuid = ""
        self.prompt_ts = ""
        self.turn_started = time.monotonic()
        self.cached = 0  # the prompt prefix the API has cached, in tokens
        self.verbose = verbose_suite(random.Random(0)).split("\n")[1:]
        self.subagent: Subagent | None = None
        self.last_progress = ""

    # -- ids, time, the envelope ------------------------------------------------------

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _anthropic_id(self, prefix: str, n: int = 22) -> str:
        return prefix + "".join(self.rng.choice(_ALPHABET) for _ in range(n))

    def _now(self) -> str:
        """ISO time with ms and Z, strictly increasing (a fast writer shares a ms)."""
        stamp = self.stamp_ms()
        if stamp <= self.last_ts:
            last = datetime.strptime(self.last_ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
            bumped = last.timestamp() + 0.001
            later = datetime.fromtimestamp(bumped, UTC)
            stamp = later.strftime("%Y-%m-%dT%H:%M:%S.") + f"{later.microsecond // 1000:03d}Z"
        self.last_ts = stamp
        return stamp

    def envelope(
        self, kind: str, body: dict[str, Any], *, line_uuid: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        record: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": VERSION,
            "gitBranch": "fix/divide-by-zero",
            "type": kind,
            **body,
            "uuid": line_uuid or self._uuid(),
            "timestamp": self._now(),
            **extra,
        }
        return record

    def _chain(self, kind: str, body: dict[str, Any], **extra: Any) -> dict[str, Any]:
        """Write a main-chain line (its parent the chain's last); returns it."""
        record = self.envelope(kind, body, **extra)
        self.out.write(record)
        self.parent = record["uuid"]
        return record

    # -- usage --------------------------------------------------------------------------

    def usage(self, prompt: int, output: int) -> dict[str, Any]:
        """An Anthropic usage object: most of the prompt read from the cache, the new tail
        written to it, a few tokens uncached."""
        fresh = self.rng.randint(1, 8)
        read = min(self.cached, prompt - fresh)
        written = prompt - fresh - read
        self.cached = prompt
        return {
            "input_tokens": fresh,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": written,
                "ephemeral_1h_input_tokens": 0,
            },
            "output_tokens": output,
            "service_tier": "standard",
        }

    # -- the Recorder interface ---------------------------------------------------------

    def begin_run(
        self, run_id: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section]
    ) -> None:
        """Claude Code records no run context: a turn starts with the user's prompt."""

    def system(self, text: str) -> str:
        """The system prompt is not written to the session either."""
        self.cached = CLAUDE_SYSTEM - 2_794  # the tool schemas are cached across sessions
        return "system"

    def user(self, text: str) -> str:
        prompt = self._uuid()
        self.prompt_uuid, self.prompt_ts = prompt, self._now()
        self.turn_started = time.monotonic()
        self.out.write(
            {
                "type": "file-history-snapshot",
                "messageId": prompt,
                "snapshot": {
                    "messageId": prompt,
                    "trackedFileBackups": dict(self.tracked),
                    "timestamp": self.prompt_ts,
                },
                "isSnapshotUpdate": False,
            }
        )
        self._chain(
            "user",
            {"message": {"role": "user", "content": text}},
            line_uuid=prompt,
            thinkingMetadata={"maxThinkingTokens": 31999},
            todos=[],
            permissionMode="default",
        )
        return prompt

    def assistant(self, turn: AssistantTurn) -> str:
        blocks: list[tuple[dict[str, Any], Use | None]] = [
            ({"type": "thinking", "thinking": turn.reasoning, "signature": self._signature()}, None)
        ]
        if turn.content:
            blocks.append(({"type": "text", "text": turn.content}, None))
        for call in turn.tool_calls:
            uses = translate(call, self.cwd, lambda: self._anthropic_id("toolu_01"))
            self.uses[call.id] = uses
            for made in uses:
                block = {"type": "tool_use", "id": made.id, "name": made.name, "input": made.input}
                blocks.append(({**block, "caller": {"type": "direct"}}, made))
        message_id = self._anthropic_id("msg_01")
        request_id = self._anthropic_id("req_011C", 20)
        prompt = turn.usage.prompt_tokens + CLAUDE_SYSTEM
        total = turn.usage.completion_tokens
        usage = self.usage(prompt, total)
        first = ""
        early = self.rng.randint(3, 9)  # the output tokens the first streamed line reports
        for index, (block, use) in enumerate(blocks):
            last = index == len(blocks) - 1
            # Streamed: the early lines carry the usage so far, the last one the total.
            so_far = total if last else min(total, early + 2 * index)
            stop = ("tool_use" if turn.tool_calls else "end_turn") if last else None
            message = {
                "model": MODEL,
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {**usage, "output_tokens": so_far},
            }
            record = self._chain("assistant", {"message": message}, requestId=request_id)
            if use is not None:
                use.line_uuid = record["uuid"]
            first = first or record["uuid"]
        return first

    def _signature(self) -> str:
        return "Eq" + "".join(self.rng.choice(_ALPHABET + "+/") for _ in range(94))

    def tool_dispatched(self, call: ToolCall, run_id: str, round: int) -> str:
        for use in self.uses.get(call.id, []):
            self.running.append(use)
            use.extra["started"] = self.utc_now().timestamp()  # (the lines' clock)
            if use.name == "Task":
                self.subagent = Subagent(self, use)
                self.subagent.start()
        return call.id

    def tool_running(self, call: ToolCall, elapsed: float) -> None:
        for use in self.uses.get(call.id, []):
            if use.name == "Bash" and use.input["command"].startswith("pytest"):
                self.out.write(self._progress(use, elapsed))
                self.parent = self.last_progress

    def _progress(self, use: Use, elapsed: float) -> dict[str, Any]:
        lines = progress_output(use, elapsed, self.verbose)
        data = {
            "type": "bash_progress",
            "output": "\n".join(lines[-5:]),
            "fullOutput": "\n".join(lines),
            "elapsedTimeSeconds": 2 + use.progress,  # Claude Code reports from 2 s, each second
            "totalLines": len(lines),
            "timeoutMs": 120000,
        }
        record = self.envelope(
            "progress",
            {"data": data},
            toolUseID=f"bash-progress-{use.progress}",
            parentToolUseID=use.id,
        )
        use.progress += 1
        self.last_progress = str(record["uuid"])
        return record

    def store_artifact(self, op_id: str, content: str, limit: int) -> tuple[str, dict[str, object]]:
        """Claude Code keeps a result this size whole (it truncates past 30,000 chars)."""
        return content, {"chars": len(content)}

    def tool_result(
        self, call: ToolCall, content: str, *, is_error: bool = False, outcome_unknown: bool = False
    ) -> str:
        first = ""
        for use in self.uses.get(call.id, []):
            if use in self.running:
                self.running.remove(use)
            text, detail, failed, patch = self._answer(use, content, is_error)
            block: dict[str, Any] = {"tool_use_id": use.id, "type": "tool_result", "content": text}
            if failed or use.name == "Bash":
                block["is_error"] = failed
            record = self._chain(
                "user",
                {"message": {"role": "user", "content": [block]}},
                toolUseResult=detail,
                sourceToolAssistantUUID=use.line_uuid,
            )
            first = first or record["uuid"]
            if patch is not None:
                self._track(use)
        return first

    def _answer(
        self, use: Use, content: str, is_error: bool
    ) -> tuple[Any, Any, bool, list[dict[str, Any]] | None]:
        if use.name == "Read":
            text, detail = read_result(use, content)
            return text, detail, False, None
        if use.name == "Bash":
            return (*bash_result(content), None)
        if use.name == "Edit":
            return edit_result(use, self.tree, is_error)
        if use.name == "WebFetch":
            return (*fetch_result(use, content), None)
        if use.name == "Task" and self.subagent is not None:
            return (*self.subagent.finish(), False, None)
        return content, content, is_error, None

    def _track(self, use: Use) -> None:
        """An edited file gets a backup, and the prompt's snapshot an update."""
        known = self.tracked.get(use.rel)
        version = 1 if known is None else int(known["version"]) + 1
        digest = uuid.uuid5(uuid.NAMESPACE_URL, use.rel).hex[:16]
        self.tracked[use.rel] = {
            "backupFileName": f"{digest}@v{version}",
            "version": version,
            "backupTime": self._now(),
        }
        self.out.write(
            {
                "type": "file-history-snapshot",
                "messageId": use.line_uuid,
                "snapshot": {
                    "messageId": self.prompt_uuid,
                    "trackedFileBackups": dict(self.tracked),
                    "timestamp": self.prompt_ts,
                },
                "isSnapshotUpdate": True,
            }
        )

    def compact(self, summary: str, through_id: str, tokens_before: int, tokens_after: int) -> str:
        # An auto-compaction: the chain restarts at the boundary (parentUuid null),
        # logicalParentUuid naming the line it follows; the summary comes next.
        boundary = self.envelope(
            "system",
            {
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
            },
            level="info",
            compactMetadata={"trigger": "auto", "preTokens": tokens_before + CLAUDE_SYSTEM},
        )
        boundary = {
            "parentUuid": None,
            "logicalParentUuid": self.parent,
            **{k: v for k, v in boundary.items() if k != "parentUuid"},
        }
        self.out.write(boundary)
        self.parent = boundary["uuid"]
        tail = (
            "\n\nIf you need specific details from before compaction (like exact code "
            "snippets, error messages, or content you generated), read the full transcript "
            f"at: {self.path}"
        )
        record = self._chain(
            "user",
            {"message": {"role": "user", "content": SUMMARY_HEAD + summary + tail}},
            isVisibleInTranscriptOnly=True,
            isCompactSummary=True,
        )
        self.cached = CLAUDE_SYSTEM - 2_794  # a new prompt: only the tools are still cached
        return str(record["uuid"])

    def end_run(self, run_id: str) -> None:
        duration = round((time.monotonic() - self.turn_started) * 1000)
        self._chain("system", {"subtype": "turn_duration", "durationMs": duration, "isMeta": False})

    def crashing(self) -> None:
        """Killed mid-write: half of the running suite's next progress line."""
        bash = [u for u in self.running if u.name == "Bash"]
        if not bash:
            return
        raw = dumps(self._progress(bash[-1], 0.5 * (bash[-1].progress + 1)))
        self.out.fh.write(raw[: len(raw) * 3 // 5])
        self.out.fh.flush()

    def close(self) -> None:
        self.out.close()
