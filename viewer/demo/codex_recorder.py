"""The demo agent's run as a Codex CLI rollout (``sessions/YYYY/MM/DD/rollout-*.jsonl``).

Written the way Codex writes it (see shared/spec/codex.md and the sample): one
``{timestamp, type, payload}`` a line, appended and flushed. ``session_meta`` first (the
system prompt is its ``base_instructions``), then the initial context (a developer
message, AGENTS.md and the environment as user messages); each turn is
``task_started``, the prompt (a ``response_item`` and its ``event_msg`` twin), a
``turn_context`` before every model request, reasoning and messages (twinned too),
``function_call`` ``shell`` calls and ``custom_tool_call`` ``apply_patch`` with their
outputs, a ``token_count`` after every response (cumulative and last usage, rate
limits), ``task_complete``. The compaction between the turns is a ``compacted`` line
with its ``replacement_history``, ``context_compacted`` and a fresh ``turn_context``.
A crash leaves the last turn open with the suite's call and the last read unanswered.

Codex records no grants, dispatch or settle lines and does not age observations: those
calls write nothing.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import time
import uuid
from collections.abc import Sequence
from typing import Any

from .agent import tokens
from .recorders import SEED, AssistantTurn, Recorder, Section, ToolCall

CLI_VERSION = "0.58.0"
MODEL = "gpt-5-codex"
CONTEXT_WINDOW = 272_000
CODEX_OVERHEAD = 6_912  # Codex's base instructions and tool schemas, in tokens
_ROLLOUT = re.compile(r"rollout-[0-9T-]+-([0-9a-f-]{36})\.jsonl$")
PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing: workspace-write. Network access is "
    "restricted. Approval policy: on-request; ask before running a command that needs "
    "to leave the sandbox.\n</permissions instructions>"
)
SUMMARY_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process. Use it to build on the work that has already been done.\n\n"
)


def _text(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def to_codex_patch(unified: str) -> str:
    """A unified diff in apply_patch's own envelope (``*** Update File:``, bare ``@@``)."""
    out = ["*** Begin Patch"]
    for line in unified.rstrip("\n").split("\n"):
        if line.startswith("--- "):
            continue
        if line.startswith("+++ "):
            out.append(f"*** Update File: {line[4:].removeprefix('b/')}")
        elif line.startswith("@@"):
            context = line.rsplit("@@", 1)[-1].strip()
            out.append(f"@@ {context}" if context else "@@")
        else:
            out.append(line)
    out.append("*** End Patch")
    return "\n".join(out)


def _patched_files(unified: str) -> list[str]:
    return [line[4:].removeprefix("b/") for line in unified.split("\n") if line.startswith("+++ ")]


class CodexRecorder(Recorder):
    """A Codex rollout of the demo story."""

    def __init__(self, path: str, meta: dict[str, Any]) -> None:
        self.path = path
        self.meta = meta
        self.cwd = str(meta.get("cwd") or "/")
        self.rng = random.Random(SEED + 11)  # ids and noise; never the agent's rng
        named = _ROLLOUT.search(os.path.basename(path))
        self.session_id = named.group(1) if named else str(uuid.UUID(int=self.rng.getrandbits(128)))
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self.fh = open(path, "ab")  # noqa: SIM115 (held open for the whole run)
        self.last_ts = ""
        self.sections: list[Section] = []
        self.turn_id = ""
        self.turn_open = False
        self.context_due = False  # a turn_context goes before the next model request
        self.prompts: list[str] = []  # the user's prompts, kept across a compaction
        self.initial: list[dict[str, Any]] = []  # the initial context items
        self.last_message = ""
        self.cached = 0
        self.total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}
        self.total |= {"reasoning_output_tokens": 0, "total_tokens": 0}
        self.last_usage: dict[str, int] | None = None  # the last request's
        self.limits = [3.0, 1.0]  # rate-limit windows used, percent
        self.started: dict[str, float] = {}
        self.counter = 0
        self.epoch = int(self.utc_now().timestamp())

    # -- lines --------------------------------------------------------------------------

    def _now(self) -> str:
        self.last_ts = max(self.stamp_ms(), self.last_ts)
        return self.last_ts

    def line(self, kind: str, payload: dict[str, Any]) -> None:
        record = {"timestamp": self._now(), "type": kind, "payload": payload}
        self.fh.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode())
        self.fh.write(b"\n")  # one append and a flush a line, as Codex does
        self.fh.flush()

    def item(self, payload: dict[str, Any]) -> None:
        self.line("response_item", payload)

    def event(self, payload: dict[str, Any]) -> None:
        self.line("event_msg", payload)

    def _id(self) -> str:
        self.counter += 1
        return f"codex-{self.counter}"

    def _uuid7(self) -> str:
        """A time-ordered id, as Codex's turn ids are."""
        ms = int(self.utc_now().timestamp() * 1000)
        value = (ms << 80) | (0x7 << 76) | (self.rng.getrandbits(12) << 64)
        value |= (0b10 << 62) | self.rng.getrandbits(62)
        return str(uuid.UUID(int=value))

    def turn_context(self) -> None:
        self.line(
            "turn_context",
            {
                "turn_id": self.turn_id,
                "cwd": self.cwd,
                "approval_policy": "on-request",
                "sandbox_policy": {
                    "type": "workspace-write",
                    "writable_roots": [self.cwd],
                    "network_access": False,
                    "exclude_tmpdir_env_var": False,
                    "exclude_slash_tmp": False,
                },
                "model": MODEL,
                "effort": "medium",
                "summary": "auto",
                "user_instructions": self._agents_md(),
                "truncation_policy": {"mode": "tokens", "limit": 10000},
            },
        )
        self.context_due = False

    def _agents_md(self) -> str:
        return next((s.rendered for s in self.sections if s.name == "AGENTS.md"), "")

    def token_count(self, last: dict[str, int] | None) -> None:
        self.limits = [min(99.0, self.limits[0] + 0.5), min(99.0, self.limits[1] + 0.1)]
        info = None
        if last is not None:
            info = {
                "total_token_usage": dict(self.total),
                "last_token_usage": last,
                "model_context_window": CONTEXT_WINDOW,
            }
        window = {"window_minutes": 300, "resets_at": self.epoch + 4 * 3600}
        weekly = {"window_minutes": 10080, "resets_at": self.epoch + 5 * 86400}
        self.event(
            {
                "type": "token_count",
                "info": info,
                "rate_limits": {
                    "primary": {"used_percent": round(self.limits[0]), **window},
                    "secondary": {"used_percent": round(self.limits[1]), **weekly},
                },
            }
        )

    # -- the Recorder interface ---------------------------------------------------------

    def begin_run(
        self, run_id: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section]
    ) -> None:
        self.sections = list(sections)

    def system(self, text: str) -> str:
        """session_meta (the system prompt as base_instructions), then the initial context."""
        base = "\n\n".join([text, *(s.rendered for s in self.sections if s.name != "AGENTS.md")])
        self.line(
            "session_meta",
            {
                "id": self.session_id,
                "timestamp": self._now(),
                "cwd": self.cwd,
                "originator": "codex_cli_rs",
                "cli_version": CLI_VERSION,
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": base},
                "git": {
                    "commit_hash": "3f9c2e1a7b44d0c5e8f61a2b9c3d4e5f60718293",
                    "branch": "fix/divide-by-zero",
                    "repository_url": "git@github.com:dev/tinycalc.git",
                },
            },
        )
        agents = f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n"
        environment = (
            f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <approval_policy>on-request"
            "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  "
            "<network_access>restricted</network_access>\n  <shell>bash</shell>\n"
            "</environment_context>"
        )
        self.initial = [
            _text("developer", PERMISSIONS),
            _text("user", agents + self._agents_md() + "\n</INSTRUCTIONS>"),
            _text("user", environment),
        ]
        for item in self.initial:
            self.item(item)
        self.cached = CODEX_OVERHEAD
        return "session_meta"

    def user(self, text: str) -> str:
        if not self.turn_open:
            self.turn_id = self._uuid7()
            self.turn_open = True
            self.event(
                {
                    "type": "task_started",
                    "turn_id": self.turn_id,
                    "model_context_window": CONTEXT_WINDOW,
                }
            )
        self.item(_text("user", text))
        self.event({"type": "user_message", "message": text, "images": [], "local_images": []})
        self.prompts.append(text)
        self.turn_context()
        self.token_count(self.last_usage)  # the rate limits, refreshed at the turn's start
        return self._id()

    def assistant(self, turn: AssistantTurn) -> str:
        if self.context_due:
            self.turn_context()
        reasoning = turn.reasoning
        title = reasoning.split(";")[0].split(".")[0].strip()
        self.event({"type": "agent_reasoning", "text": f"**{title}**"})
        self.item(
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": f"**{title}**\n\n{reasoning}"}],
                "content": None,
                "encrypted_content": "gAAAAB"
                + "".join(
                    self.rng.choice(
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                    )
                    for _ in range(160)
                ),
            }
        )
        if turn.content:
            self.event({"type": "agent_message", "message": turn.content})
            self.item(_text("assistant", turn.content))
            self.last_message = turn.content
        for call in turn.tool_calls:
            self._call(call)
        # Usage: the prompt's cached prefix is what the previous request sent.
        prompt = turn.usage.prompt_tokens + CODEX_OVERHEAD
        cached = min(self.cached, prompt) // 128 * 128  # cache hits come in 128-token blocks
        self.cached = prompt
        output = turn.usage.completion_tokens
        thought = min(output, tokens(reasoning) + self.rng.randint(40, 160))
        last = {
            "input_tokens": prompt,
            "cached_input_tokens": cached,
            "output_tokens": output + thought,
            "reasoning_output_tokens": thought,
            "total_tokens": prompt + output + thought,
        }
        for key, value in last.items():
            self.total[key] += value
        self.last_usage = last
        self.token_count(last)
        self.context_due = True
        return self._id()

    def _call(self, call: ToolCall) -> None:
        if call.name == "apply_patch":
            self.item(
                {
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": call.id,
                    "name": "apply_patch",
                    "input": to_codex_patch(str(call.arguments["patch"])),
                }
            )
            return
        arguments: dict[str, Any] = {
            "command": ["bash", "-lc", self._command(call)],
            "workdir": self.cwd,
            "timeout_ms": 120_000,
        }
        self.item(
            {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps(arguments, separators=(",", ":")),
                "call_id": call.id,
            }
        )

    @staticmethod
    def _command(call: ToolCall) -> str:
        args = call.arguments
        if call.name == "fs_read":
            path = shlex.quote(str(args["path"]))
            if "start" in args:
                return f"sed -n '{args['start']},{args.get('end', args['start'])}p' {path}"
            return f"cat {path}"
        if call.name == "grep":
            return f"rg -n {shlex.quote(str(args['pattern']))} {args.get('path', '.')}"
        if call.name == "run_tests":
            return f"pytest {'-v' if args.get('verbose') else '-q'} {args.get('target', 'tests/')}"
        if call.name == "git_diff":
            return "git diff --stat && git diff calc/ops.py"
        if call.name == "web_fetch":
            return f"curl -sS --max-time 30 {shlex.quote(str(args['url']))}"
        return call.name

    def tool_dispatched(self, call: ToolCall, run_id: str, round: int) -> str:
        self.started[call.id] = time.monotonic()
        return call.id

    def store_artifact(self, op_id: str, content: str, limit: int) -> tuple[str, dict[str, object]]:
        """The rollout keeps the output whole (truncation is for the model's copy)."""
        return content, {"chars": len(content)}

    def tool_result(
        self, call: ToolCall, content: str, *, is_error: bool = False, outcome_unknown: bool = False
    ) -> str:
        began = self.started.pop(call.id, time.monotonic())
        seconds = round(max(0.001, time.monotonic() - began), 3)
        if call.name == "apply_patch":
            if is_error:
                files = _patched_files(str(call.arguments["patch"]))
                text = (
                    "apply_patch verification failed: Failed to find expected lines in "
                    f"{os.path.join(self.cwd, files[0])}:\n{content}"
                )
                code = 1
            else:
                changed = "".join(f"M {f}\n" for f in _patched_files(str(call.arguments["patch"])))
                text, code = f"Success. Updated the following files:\n{changed}", 0
            output = {"output": text, "metadata": {"exit_code": code, "duration_seconds": seconds}}
            self.item(
                {
                    "type": "custom_tool_call_output",
                    "call_id": call.id,
                    "output": json.dumps(output),
                }
            )
            return self._id()
        text = content.split("\n", 1)[1] if content.startswith("$ ") else content
        code = 0
        if re.search(r"^\d+ failed", text, re.MULTILINE):
            code = 1  # pytest: tests failed
        if outcome_unknown:
            # The sandbox has no network: curl gives up (exit 28, its timeout).
            text, code = "curl: (28) Connection timed out after 30002 milliseconds\n", 28
        output = {"output": text, "metadata": {"exit_code": code, "duration_seconds": seconds}}
        self.item(
            {"type": "function_call_output", "call_id": call.id, "output": json.dumps(output)}
        )
        return self._id()

    def compact(self, summary: str, through_id: str, tokens_before: int, tokens_after: int) -> str:
        """A local compaction: the model continues from the initial context, the user's
        prompts and the summary, as a user message."""
        history = [
            *self.initial,
            *(_text("user", prompt) for prompt in self.prompts),
            _text("user", SUMMARY_PREFIX + summary),
        ]
        self.line("compacted", {"message": summary, "replacement_history": history})
        self.event({"type": "context_compacted"})
        self.turn_context()
        self.cached = CODEX_OVERHEAD
        return self._id()

    def end_run(self, run_id: str) -> None:
        self.event(
            {
                "type": "task_complete",
                "turn_id": self.turn_id,
                "last_agent_message": self.last_message,
            }
        )
        self.turn_open = False
        self.context_due = False

    def close(self) -> None:
        self.fh.close()
