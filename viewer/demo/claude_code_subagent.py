"""The Explore subagent of the Claude Code demo: its own file, echoed as progress.

Since 2.1.x a Task/Agent subagent writes ``<sessionId>/subagents/agent-<agentId>.jsonl``
(every line a sidechain line with ``agentId``) and ``agent-<agentId>.meta.json``; the
parent gets ``agent_progress`` copies of its messages and, at the end, a result naming
the ``agentId``.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from .claude_code_tools import EXPLORE_PROMPT, EXPLORE_REPORT, MODEL, Lines, Use
from .story import GREP_RESULT

if TYPE_CHECKING:
    from .claude_code_recorder import ClaudeCodeRecorder


class Subagent:
    """The Explore subagent the story's grep becomes."""

    def __init__(self, parent: ClaudeCodeRecorder, use: Use) -> None:
        self.p = parent
        self.use = use
        self.agent_id = "a" + "".join(parent.rng.choice("0123456789abcdef") for _ in range(16))
        base = parent.path.removesuffix(".jsonl")
        self.path = os.path.join(base, "subagents", f"agent-{self.agent_id}.jsonl")
        self.out = Lines(self.path)
        self.last: str | None = None
        self.grep_id = parent._anthropic_id("toolu_01")
        self.tool_line = ""
        self.tokens = 0
        meta = {"agentType": "Explore", "description": use.input["description"]}
        with open(self.path.removesuffix(".jsonl") + ".meta.json", "w", encoding="utf-8") as fh:
            json.dump(meta, fh)
        self.usage_total: dict[str, Any] = {}

    def _line(self, kind: str, body: dict[str, Any], **extra: Any) -> dict[str, Any]:
        """A line of the subagent's own chain: every one a sidechain line, with agentId."""
        base = self.p.envelope(kind, body, **extra)
        record = {
            "parentUuid": self.last,
            "isSidechain": True,
            "agentId": self.agent_id,
            **{k: v for k, v in base.items() if k not in ("parentUuid", "isSidechain")},
        }
        self.out.write(record)
        self.last = str(record["uuid"])
        return record

    def _echo(self, record: dict[str, Any]) -> None:
        """agent_progress: the subagent's line copied into the parent (usage and all)."""
        data = {
            "message": {
                "type": record["type"],
                "message": record["message"],
                "uuid": record["uuid"],
                "timestamp": record["timestamp"],
            },
            "normalizedMessages": [],
            "type": "agent_progress",
            "prompt": EXPLORE_PROMPT,
            "agentId": self.agent_id,
        }
        self.p._chain(
            "progress",
            {"data": data},
            toolUseID=f"agent_{record['message'].get('id', self.agent_id)}",
            parentToolUseID=self.use.id,
        )

    def _assistant(self, block: dict[str, Any], prompt: int, output: int) -> dict[str, Any]:
        usage = {
            "input_tokens": 3,
            "cache_creation_input_tokens": prompt - 3,
            "cache_read_input_tokens": 0,
            "output_tokens": output,
            "service_tier": "standard",
        }
        self.tokens = prompt + output
        self.usage_total = usage
        message = {
            "model": MODEL,
            "id": self.p._anthropic_id("msg_01"),
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        return self._line(
            "assistant", {"message": message}, requestId=self.p._anthropic_id("req_011C", 20)
        )

    def start(self) -> None:
        self._echo(self._line("user", {"message": {"role": "user", "content": EXPLORE_PROMPT}}))
        grep = {
            "type": "tool_use",
            "id": self.grep_id,
            "name": "Grep",
            "input": {
                "pattern": "CalcError",
                "path": self.p.cwd,
                "output_mode": "content",
                "-n": True,
            },
        }
        record = self._assistant(grep, 9_870, 96)
        self.tool_line = str(record["uuid"])
        self._echo(record)

    def finish(self) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """The subagent's last lines, then what the Task call returns to the parent."""
        self._line(
            "user",
            {
                "message": {
                    "role": "user",
                    "content": [
                        {"tool_use_id": self.grep_id, "type": "tool_result", "content": GREP_RESULT}
                    ],
                }
            },
            sourceToolAssistantUUID=self.tool_line,
        )
        self._assistant({"type": "text", "text": EXPLORE_REPORT}, 10_412, 142)
        self.out.close()
        # (its own run time by the clock its lines are stamped with, as Claude Code says it)
        ms = round((self.p.utc_now().timestamp() - float(self.use.extra["started"])) * 1000)
        detail = {
            "status": "completed",
            "prompt": EXPLORE_PROMPT,
            "agentId": self.agent_id,
            "content": [{"type": "text", "text": EXPLORE_REPORT}],
            "totalDurationMs": ms,
            "totalTokens": self.tokens,
            "totalToolUseCount": 1,
            "usage": self.usage_total,
        }
        footer = (
            f"agentId: {self.agent_id} (for resuming to continue this agent's work if needed)\n"
            f"<usage>total_tokens: {self.tokens}\ntool_uses: 1\nduration_ms: {ms}</usage>"
        )
        text = [{"type": "text", "text": EXPLORE_REPORT}, {"type": "text", "text": footer}]
        return text, detail
