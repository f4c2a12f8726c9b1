"""Generate a realistic Claude Code session transcript of a given size.

    python bench/gen_claude_code.py OUT.jsonl --size 100MB [--seed N] [--marker TEXT]

Written directly with orjson, never through ``session_core``, in the shapes of the
real sessions in ``../shared/samples/claude-code`` (Claude Code 2.1.x): the envelope
on every conversation line (uuid, parentUuid chain, sessionId, cwd, version, ...);
turns that start with a user prompt and run rounds of assistant responses **split
over several lines** (thinking, text, tool_use blocks sharing ``message.id``, usage
repeated and growing), hook ``progress`` lines around every tool call, Bash calls
with ``bash_progress`` lines, tool results with a structured ``toolUseResult`` of
realistic size (Read: the file, Bash: stdout/stderr, Edit: a patch and the original
file, Task: the subagent's report), Task calls with ``agent_progress`` copies and a
subagent file of their own (``<session>/subagents/agent-<id>.jsonl``),
``stop_hook_summary`` / ``turn_duration`` at the end of a turn, file-history
snapshots, queued input, and an auto-compaction (``compact_boundary`` + summary)
every 2 MB, as the real sample compacts (50 in 100 MB). The last line is an
assistant response whose text is the marker (the end of the file on screen).

Same seed + same size = the same bytes.
"""

from __future__ import annotations

import random
import sys
import uuid
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_common import FormatGenerator, FormatWriter
from text_pools import FILES, IDENTS, prose

GEN_VERSION = 2  # 2: a compaction every 2 MB (was 400 MB)
OPTS = orjson.OPT_APPEND_NEWLINE
MODEL = "claude-opus-4-6"
VERSION = "2.1.39"
# Bytes between auto-compactions (at least one per file): as the real sample's, which
# came 2.1 MB into its session, at 170k tokens.
COMPACT_EVERY = 2_000_000
SUBAGENT_BYTES = 40_000  # the size of one subagent's own file


class Writer:
    """The envelope, the parentUuid chain and the clock of one session file."""

    def __init__(self, fh: Any, rng: random.Random, session: str, side: bool = False) -> None:
        self.fh = fh
        self.rng = rng
        self.session = session
        self.side = side
        self.parent: str | None = None
        self.clock = 1_770_000_000_000  # ms
        self.written = 0
        self.agent_id: str | None = None

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def ts(self, step_ms: int = 400) -> str:
        self.clock += self.rng.randint(step_ms // 4, step_ms)
        secs, ms = divmod(self.clock, 1000)
        import time as _t

        return _t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(secs)) + f".{ms:03d}Z"

    def raw(self, record: dict[str, Any]) -> None:
        data = orjson.dumps(record, option=OPTS)
        self.fh.write(data)
        self.written += len(data)

    def line(
        self, kind: str, body: dict[str, Any], *, parent: Any = ..., chain: bool = True
    ) -> str:
        uid = self.uid()
        record: dict[str, Any] = {
            "parentUuid": self.parent if parent is ... else parent,
            "isSidechain": self.side,
            "userType": "external",
            "cwd": "/home/dev/projects/tailscope",
            "sessionId": self.session,
            "version": VERSION,
            "gitBranch": "main",
            "slug": "radiant-floating-music",
        }
        if self.agent_id:
            record["agentId"] = self.agent_id
        record["type"] = kind
        record.update(body)
        record["uuid"] = uid
        record["timestamp"] = self.ts()
        self.raw(record)
        if chain:
            self.parent = uid
        return uid


def _text(rng: random.Random, sentences: tuple[int, int]) -> str:
    return prose(rng, rng.randint(*sentences))


def _cut(pools: dict[str, str], rng: random.Random, pool: str, size: int) -> str:
    text = pools[pool]
    start = rng.randrange(0, max(1, len(text) - size))
    return text[start : start + size]


def _result_size(rng: random.Random) -> int:
    """Tool output sizes as the samples have them: mostly small, a long tail to 60 KB."""
    return min(60_000, int(rng.lognormvariate(7.3, 1.3)))


class Session(FormatWriter):
    def __init__(self, path: Path, size: int, seed: int, marker: str | None) -> None:
        super().__init__(path, size, seed, marker)
        self.session = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        self.agents = 0
        self.next_compaction = min(COMPACT_EVERY, size // 2)
        self.input_tokens = 12_000

    # -- one response, split over lines ------------------------------------------------

    def response(self, w: Writer, blocks: list[dict[str, Any]], stop: str | None) -> None:
        rng = w.rng
        mid = "msg_01" + "".join(
            rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789")
            for _ in range(22)
        )
        rid = "req_011C" + "".join(
            rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijk0123456789") for _ in range(20)
        )
        self.input_tokens += rng.randint(200, 4000)
        out = 3
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            out += rng.randint(5, 400)
            message = {
                "model": MODEL,
                "id": mid,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": stop if last else None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": rng.randint(1, 8),
                    "cache_creation_input_tokens": rng.randint(0, 3000),
                    "cache_read_input_tokens": self.input_tokens,
                    "cache_creation": {
                        "ephemeral_5m_input_tokens": rng.randint(0, 3000),
                        "ephemeral_1h_input_tokens": 0,
                    },
                    "output_tokens": out,
                    "service_tier": "standard",
                    "inference_geo": "global",
                },
            }
            w.line("assistant", {"message": message, "requestId": rid})

    def hook(self, w: Writer, event: str, call: str, command: str) -> None:
        w.line(
            "progress",
            {
                "data": {
                    "type": "hook_progress",
                    "hookEvent": event,
                    "hookName": f"{event}:{command.split()[0].rsplit('/', 1)[-1]}",
                    "command": command,
                },
                "parentToolUseID": call,
                "toolUseID": call,
            },
        )

    # -- tool calls ------------------------------------------------------------------

    def tool_call(
        self, w: Writer
    ) -> tuple[dict[str, Any], dict[str, Any], Any, list[dict[str, Any]]]:
        """(tool_use block, tool_result block, toolUseResult, progress data before the result)."""
        rng = w.rng
        call = "toolu_01" + "".join(
            rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijk0123456789") for _ in range(22)
        )
        files = FILES
        k = rng.random()
        progress: list[dict[str, Any]] = []
        if k < 0.35:
            command = rng.choice(
                (
                    "uv run pytest -q tests/test_follow.py",
                    "git status --short",
                    "rg -n 'def follow' session_core",
                    "mix test test/spotter_web/live/session_live_test.exs",
                    "ls -la session_core/formats",
                )
            )
            stdout = _cut(self.pools, rng, rng.choice(("log", "grep")), _result_size(rng))
            for n in range(rng.randint(0, 6)):
                tail = stdout[: (n + 1) * max(1, len(stdout) // 7)]
                progress.append(
                    {
                        "type": "bash_progress",
                        "output": tail[-600:],
                        "fullOutput": tail[-3000:],
                        "elapsedTimeSeconds": n + 1,
                        "totalLines": tail.count("\n"),
                    }
                )
            use = {
                "type": "tool_use",
                "id": call,
                "name": "Bash",
                "input": {"command": command, "description": "Run it"},
            }
            failed = rng.random() < 0.08
            stderr = "" if not failed else "Error: exit status 1"
            detail: Any = {
                "stdout": stdout,
                "stderr": stderr,
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            }
            content = stdout + (f"\n{stderr}" if stderr else "")
            result = {
                "tool_use_id": call,
                "type": "tool_result",
                "content": content,
                "is_error": failed,
            }
        elif k < 0.65:
            path = "/home/dev/projects/tailscope/" + rng.choice(files)
            body = _cut(self.pools, rng, "code", _result_size(rng) * 2)
            lines = body.split("\n")
            numbered = "\n".join(f"{i + 1:>6}→{t}" for i, t in enumerate(lines))
            use = {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": path}}
            detail = {
                "type": "text",
                "file": {
                    "filePath": path,
                    "content": body,
                    "numLines": len(lines),
                    "startLine": 1,
                    "totalLines": len(lines),
                },
            }
            result = {"tool_use_id": call, "type": "tool_result", "content": numbered}
        elif k < 0.8:
            path = "/home/dev/projects/tailscope/" + rng.choice(files)
            old = _cut(self.pools, rng, "code", rng.randint(80, 600))
            new = old.replace("self", "this", 2) + "\n    # changed"
            original = _cut(self.pools, rng, "code", _result_size(rng) * 2)
            use = {
                "type": "tool_use",
                "id": call,
                "name": "Edit",
                "input": {
                    "file_path": path,
                    "old_string": old,
                    "new_string": new,
                    "replace_all": False,
                },
            }
            patch = [
                {
                    "oldStart": rng.randint(1, 900),
                    "oldLines": old.count("\n") + 1,
                    "newStart": 1,
                    "newLines": new.count("\n") + 1,
                    "lines": [f"-{t}" for t in old.split("\n")]
                    + [f"+{t}" for t in new.split("\n")],
                }
            ]
            detail = {
                "filePath": path,
                "oldString": old,
                "newString": new,
                "originalFile": original,
                "structuredPatch": patch,
                "userModified": False,
                "replaceAll": False,
            }
            content = (
                f"The file {path} has been updated. Here's the result of running `cat -n` "
                "on a snippet of the edited file:\n" + new
            )
            result = {"tool_use_id": call, "type": "tool_result", "content": content}
        elif k < 0.97:
            pattern = rng.choice(IDENTS)
            found = _cut(self.pools, rng, "grep", _result_size(rng))
            use = {
                "type": "tool_use",
                "id": call,
                "name": "Grep",
                "input": {"pattern": pattern, "output_mode": "content", "-n": True},
            }
            detail = {
                "mode": "content",
                "numFiles": 0,
                "filenames": [],
                "content": found,
                "numLines": found.count("\n"),
            }
            result = {"tool_use_id": call, "type": "tool_result", "content": found}
        else:
            self.agents += 1
            agent = f"a{rng.getrandbits(60):015x}"
            prompt = _text(rng, (4, 12))
            report = _text(rng, (20, 120))
            use = {
                "type": "tool_use",
                "id": call,
                "name": "Task",
                "input": {
                    "description": "Explore the code",
                    "prompt": prompt,
                    "subagent_type": "Explore",
                },
            }
            for _ in range(rng.randint(3, 10)):
                progress.append(
                    {
                        "message": {
                            "type": "assistant",
                            "message": {
                                "model": MODEL,
                                "id": "msg_01sub" + f"{rng.getrandbits(64):016x}",
                                "type": "message",
                                "role": "assistant",
                                "content": [{"type": "text", "text": _text(rng, (2, 8))}],
                                "usage": {
                                    "input_tokens": 10,
                                    "output_tokens": rng.randint(10, 900),
                                },
                            },
                            "uuid": w.uid(),
                            "timestamp": w.ts(50),
                        },
                        "normalizedMessages": [],
                        "type": "agent_progress",
                        "prompt": prompt,
                        "agentId": agent,
                    }
                )
            detail = {
                "status": "completed",
                "prompt": prompt,
                "agentId": agent,
                "content": [{"type": "text", "text": report}],
                "totalDurationMs": rng.randint(5_000, 300_000),
                "totalTokens": rng.randint(10_000, 90_000),
                "totalToolUseCount": rng.randint(1, 40),
                "usage": {
                    "input_tokens": 20,
                    "output_tokens": rng.randint(100, 5000),
                    "cache_read_input_tokens": 40_000,
                },
            }
            result = {
                "tool_use_id": call,
                "type": "tool_result",
                "content": [{"type": "text", "text": report}],
            }
            self.subagent(agent, prompt)
        return use, result, detail, progress

    def subagent(self, agent: str, prompt: str) -> None:
        folder = self.path.with_suffix("") / "subagents"
        folder.mkdir(parents=True, exist_ok=True)
        rng = random.Random(agent)
        with open(folder / f"agent-{agent}.jsonl", "wb") as fh:
            w = Writer(fh, rng, self.session, side=True)
            w.agent_id = agent
            w.line("user", {"message": {"role": "user", "content": prompt}})
            while w.written < SUBAGENT_BYTES:
                use, result, detail, _progress = self.tool_call_small(w)
                self.response(w, [use], "tool_use")
                w.line(
                    "user",
                    {"message": {"role": "user", "content": [result]}, "toolUseResult": detail},
                )
            self.response(w, [{"type": "text", "text": _text(rng, (5, 20))}], "end_turn")

    def tool_call_small(self, w: Writer) -> tuple[dict[str, Any], dict[str, Any], Any, list[Any]]:
        rng = w.rng
        call = f"toolu_01sub{rng.getrandbits(64):016x}"
        found = _cut(self.pools, rng, "grep", rng.randint(200, 4000))
        use = {"type": "tool_use", "id": call, "name": "Grep", "input": {"pattern": "follow"}}
        result = {"tool_use_id": call, "type": "tool_result", "content": found}
        return use, result, {"mode": "content", "content": found}, []

    # -- the session -----------------------------------------------------------------

    def write(self) -> dict[str, Any]:
        rng = self.rng
        with open(self.path, "wb") as fh:
            w = Writer(fh, rng, self.session)
            turns = calls = 0
            for event in ("SessionStart",) * 3:
                self.hook(w, event, w.uid(), "/home/dev/.claude/hooks/notify.sh start")
            budget = self.size - 2_000
            while w.written < budget:
                turns += 1
                calls += self.turn(w, budget)
                if w.written >= self.next_compaction and w.written < budget:
                    self.compaction(w)
                    self.next_compaction += COMPACT_EVERY
            marker = self.marker or f"END-OF-FILE-MARKER-{rng.getrandbits(48):012x}"
            self.response(w, [{"type": "text", "text": f"Done. {marker}"}], "end_turn")
        return {"turns": turns, "calls": calls, "subagents": self.agents, "marker": marker}

    def turn(self, w: Writer, budget: int) -> int:
        rng = w.rng
        snapshot_id = w.uid()
        w.raw(
            {
                "type": "file-history-snapshot",
                "messageId": snapshot_id,
                "snapshot": {
                    "messageId": snapshot_id,
                    "trackedFileBackups": {},
                    "timestamp": w.ts(),
                },
                "isSnapshotUpdate": False,
            }
        )
        w.line(
            "user",
            {
                "message": {"role": "user", "content": _text(rng, (1, 5))},
                "thinkingMetadata": {"maxThinkingTokens": 31999},
                "todos": [],
                "permissionMode": "bypassPermissions",
            },
        )
        calls = 0
        for _ in range(rng.randint(2, 14)):
            if w.written >= budget:
                break
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.6:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": _text(rng, (2, 10)),
                        "signature": "Eu" + "x" * rng.randint(200, 600),
                    }
                )
            if rng.random() < 0.7:
                blocks.append({"type": "text", "text": _text(rng, (1, 4))})
            uses = []
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                uses.append(self.tool_call(w))
            blocks.extend(u[0] for u in uses)
            self.response(w, blocks, "tool_use")
            for use, result, detail, progress in uses:
                call = use["id"]
                self.hook(w, "PreToolUse", call, "/home/dev/.claude/hooks/pre-tool.sh")
                self.hook(w, "PreToolUse", call, "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh")
                for data in progress:
                    w.line(
                        "progress",
                        {
                            "data": data,
                            "parentToolUseID": call,
                            "toolUseID": f"bash-progress-{rng.getrandbits(32)}",
                        },
                    )
                self.hook(w, "PostToolUse", call, "/home/dev/.claude/hooks/post-tool.sh")
                self.hook(w, "PostToolUse", call, "${CLAUDE_PLUGIN_ROOT}/scripts/review.sh")
                w.line(
                    "user",
                    {
                        "message": {"role": "user", "content": [result]},
                        "toolUseResult": detail,
                        "sourceToolAssistantUUID": w.parent,
                    },
                )
                calls += 1
            if rng.random() < 0.02:
                w.raw(
                    {
                        "type": "queue-operation",
                        "operation": "enqueue",
                        "timestamp": w.ts(),
                        "sessionId": self.session,
                        "content": _text(rng, (1, 2)),
                    }
                )
        self.response(w, [{"type": "text", "text": _text(rng, (2, 12))}], "end_turn")
        stop = w.line(
            "system",
            {
                "subtype": "stop_hook_summary",
                "hookCount": 2,
                "hookInfos": [{"command": "/home/dev/.claude/hooks/stop.sh"}],
                "hookErrors": [],
                "preventedContinuation": False,
                "stopReason": "",
                "hasOutput": True,
                "level": "suggestion",
                "toolUseID": w.uid(),
            },
        )
        del stop
        w.line(
            "system",
            {
                "subtype": "turn_duration",
                "durationMs": rng.randint(2_000, 400_000),
                "isMeta": False,
            },
        )
        return calls

    def compaction(self, w: Writer) -> None:
        rng = w.rng
        last = w.parent
        w.line(
            "system",
            {
                "subtype": "compact_boundary",
                "logicalParentUuid": last,
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": self.input_tokens},
            },
            parent=None,
        )
        summary = (
            "This session is being continued from a previous conversation that ran out of "
            "context. The summary below covers the earlier portion of the conversation.\n\n"
            + _text(rng, (40, 120))
        )
        w.line(
            "user",
            {
                "message": {"role": "user", "content": summary},
                "isCompactSummary": True,
                "isVisibleInTranscriptOnly": True,
            },
        )
        self.input_tokens = 20_000


_GENERATOR = FormatGenerator(__doc__, Session)
generate = _GENERATOR.generate
main = _GENERATOR.main


if __name__ == "__main__":
    sys.exit(main())
