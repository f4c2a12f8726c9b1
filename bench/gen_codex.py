"""Generate a realistic Codex CLI rollout of a given size.

    python bench/gen_codex.py OUT.jsonl --size 100MB [--seed N] [--marker TEXT]

Written directly with orjson, never through ``session_core``, in the shapes of the
real rollout in ``../shared/samples/codex`` (Codex 0.104; its redacted texts given
back realistic lengths): ``session_meta`` with the base instructions, then turns:
``task_started``, a ``turn_context`` per model request (its instructions repeated
as the writer repeats them), the user's message as a response item and its
``user_message`` event, rounds of ``reasoning`` (summary + encrypted content, with
its ``agent_reasoning`` event), ``function_call`` exec_command / ``custom_tool_call``
apply_patch / ``web_search_call`` with their outputs (0.104's text outputs, sizes
with a long tail), a ``token_count`` event after every request (and the repeats
the writer sends), ``agent_message`` events, ``task_complete``; and a compaction
(``compacted`` with a ``replacement_history`` of the kept messages and an
encrypted compaction item, then ``context_compacted``) every MB, as the real
sample's rollout compacts (100 in 100 MB). The last response item is an assistant message holding
the marker (the end of the file on screen).

Same seed + same size = the same bytes.
"""

from __future__ import annotations

import base64
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_common import FormatGenerator, FormatWriter
from text_pools import WORDS, prose

GEN_VERSION = 2  # 2: a compaction every 1 MB (was 400 MB)
OPTS = orjson.OPT_APPEND_NEWLINE
MODEL = "gpt-5.3-codex"
# Bytes between compactions: as the real sample's, which came 0.67 MB into its rollout.
COMPACT_EVERY = 1_000_000


def _ts(ms: int) -> str:
    secs, rest = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{rest:03d}Z"


class Rollout(FormatWriter):
    def __init__(self, path: Path, size: int, seed: int, marker: str | None) -> None:
        super().__init__(path, size, seed, marker)
        self.clock = 1_771_000_000_000
        self.written = 0
        self.fh: Any = None
        self.total = [0, 0, 0, 0]  # input, cached, output, reasoning
        self.instructions = prose(random.Random(seed + 2), 90)
        self.developer = prose(random.Random(seed + 3), 50)
        self.user_instructions = prose(random.Random(seed + 4), 20)
        self.history: list[dict[str, Any]] = []  # messages kept by a compaction
        self.next_compaction = min(COMPACT_EVERY, size // 2)

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def line(self, kind: str, payload: dict[str, Any], step: int = 300) -> None:
        self.clock += self.rng.randint(step // 4, step)
        data = orjson.dumps(
            {"timestamp": _ts(self.clock), "type": kind, "payload": payload}, option=OPTS
        )
        self.fh.write(data)
        self.written += len(data)

    def text(self, lo: int, hi: int) -> str:
        return prose(self.rng, self.rng.randint(lo, hi))

    def encrypted(self, lo: int, hi: int) -> str:
        n = self.rng.randint(lo, hi)
        return "gAAAAAB" + base64.b64encode(self.rng.randbytes(n * 3 // 4)).decode()

    def output_size(self) -> int:
        return min(40_000, int(self.rng.lognormvariate(6.8, 1.4)))

    def token_count(self, repeat: bool = False) -> None:
        rng = self.rng
        if not repeat:
            last_in = 20_000 + rng.randint(0, 60_000)
            cached = int(last_in * rng.uniform(0.5, 0.95))
            out = rng.randint(30, 3000)
            reasoning = rng.randint(0, out)
            self.last = [last_in, cached, out, reasoning]
            self.total = [a + b for a, b in zip(self.total, self.last, strict=True)]

        def usage(v: list[int]) -> dict[str, int]:
            return {
                "input_tokens": v[0],
                "cached_input_tokens": v[1],
                "output_tokens": v[2],
                "reasoning_output_tokens": v[3],
                "total_tokens": v[0] + v[2],
            }

        self.line(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": usage(self.total),
                    "last_token_usage": usage(self.last),
                    "model_context_window": 258400,
                },
                "rate_limits": {
                    "limit_id": "codex",
                    "limit_name": None,
                    "primary": {
                        "used_percent": float(rng.randint(1, 90)),
                        "window_minutes": 300,
                        "resets_at": 1771864834,
                    },
                    "secondary": {
                        "used_percent": float(rng.randint(1, 40)),
                        "window_minutes": 10080,
                        "resets_at": 1772355702,
                    },
                    "credits": {"has_credits": False, "unlimited": False, "balance": None},
                    "plan_type": None,
                },
            },
        )

    def turn_context(self, turn: str) -> None:
        self.line(
            "turn_context",
            {
                "turn_id": turn,
                "cwd": "/home/dev/projects/tailscope",
                "approval_policy": "on-request",
                "sandbox_policy": {
                    "type": "workspace-write",
                    "writable_roots": ["/home/dev/projects/tailscope"],
                    "network_access": False,
                    "exclude_tmpdir_env_var": False,
                    "exclude_slash_tmp": False,
                },
                "model": MODEL,
                "personality": "pragmatic",
                "collaboration_mode": {
                    "mode": "default",
                    "settings": {
                        "model": MODEL,
                        "reasoning_effort": "high",
                        "developer_instructions": None,
                    },
                },
                "effort": "high",
                "summary": "auto",
                "user_instructions": self.user_instructions,
                "developer_instructions": self.developer,
                "truncation_policy": {"mode": "tokens", "limit": 10000},
            },
        )

    def message(self, role: str, text: str, phase: str | None = None) -> dict[str, Any]:
        kind = "input_text" if role in ("user", "developer") else "output_text"
        item: dict[str, Any] = {
            "type": "message",
            "role": role,
            "content": [{"type": kind, "text": text}],
        }
        if phase:
            item["phase"] = phase
        self.line("response_item", item)
        return item

    def call(self) -> None:
        rng = self.rng
        call_id = "call_" + "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            for _ in range(24)
        )
        k = rng.random()
        if k < 0.8:
            command = rng.choice(
                (
                    "rg -n follow session_core",
                    "pytest -q tests/test_follow.py",
                    "git diff --stat",
                    "sed -n 1,200p session_core/replay.py",
                    "ls -la",
                )
            )
            args = {
                "cmd": command,
                "workdir": "/home/dev/projects/tailscope",
                "yield_time_ms": 10000,
                "max_output_tokens": 12000,
            }
            self.line(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": orjson.dumps(args).decode(),
                    "call_id": call_id,
                },
            )
            body = (
                prose(rng, 1)
                if rng.random() < 0.1
                else self.cut(rng.choice(("log", "grep", "code")), self.output_size())
            )
            code = 1 if rng.random() < 0.07 else 0
            output = (
                f"Chunk ID: {rng.getrandbits(24):06x}\n"
                f"Wall time: {rng.uniform(0.01, 30):.4f} seconds\n"
                f"Process exited with code {code}\n"
                f"Original token count: {len(body) // 4}\nOutput:\n{body}"
            )
            self.line(
                "response_item",
                {"type": "function_call_output", "call_id": call_id, "output": output},
                step=2000,
            )
        elif k < 0.95:
            old = self.cut("code", rng.randint(100, 1200))
            patch = (
                "*** Begin Patch\n*** Update File: session_core/replay.py\n@@\n"
                + "\n".join(f"-{t}" for t in old.split("\n"))
                + "\n"
                + "\n".join(f"+{t.replace('self', 'this')}" for t in old.split("\n"))
                + "\n*** End Patch"
            )
            self.line(
                "response_item",
                {
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": call_id,
                    "name": "apply_patch",
                    "input": patch,
                },
            )
            out = {
                "output": "Success. Updated the following files:\nM session_core/replay.py\n",
                "metadata": {"exit_code": 0, "duration_seconds": 0.0},
            }
            self.line(
                "response_item",
                {
                    "type": "custom_tool_call_output",
                    "call_id": call_id,
                    "output": orjson.dumps(out).decode(),
                },
            )
        else:
            query = " ".join(rng.choice(WORDS) for _ in range(5))
            self.line(
                "response_item",
                {
                    "type": "web_search_call",
                    "status": "completed",
                    "action": {"type": "search", "query": query, "queries": [query]},
                },
            )

    def cut(self, pool: str, size: int) -> str:
        text = self.pools[pool]
        start = self.rng.randrange(0, max(1, len(text) - size))
        return text[start : start + size]

    def write(self) -> dict[str, Any]:
        rng = self.rng
        turns = 0
        with open(self.path, "wb") as fh:
            self.fh = fh
            session = self.uid()
            self.line(
                "session_meta",
                {
                    "id": session,
                    "timestamp": _ts(self.clock),
                    "cwd": "/home/dev/projects/tailscope",
                    "originator": "codex_cli_rs",
                    "cli_version": "0.104.0",
                    "source": "cli",
                    "model_provider": "openai",
                    "base_instructions": {"text": self.instructions},
                    "git": {
                        "commit_hash": f"{rng.getrandbits(160):040x}",
                        "branch": "main",
                        "repository_url": "https://github.com/example/tailscope",
                    },
                },
            )
            self.message("developer", self.developer)
            budget = self.size - 2_000
            while self.written < budget:
                turns += 1
                self.turn(budget)
                if self.written >= self.next_compaction and self.written < budget:
                    self.compaction()
                    self.next_compaction += COMPACT_EVERY
            marker = self.marker or f"END-OF-FILE-MARKER-{rng.getrandbits(48):012x}"
            self.task_started()
            self.message("assistant", f"Done. {marker}", "final_answer")
        return {"turns": turns, "marker": marker}

    def task_started(self) -> str:
        """A turn's task_started event; the turn's id."""
        turn = self.uid()
        self.line(
            "event_msg",
            {
                "type": "task_started",
                "turn_id": turn,
                "model_context_window": 258400,
                "collaboration_mode_kind": "default",
            },
        )
        return turn

    def turn(self, budget: int) -> None:
        rng = self.rng
        turn = self.task_started()
        prompt = self.text(1, 4)
        self.line(
            "event_msg",
            {
                "type": "user_message",
                "message": prompt,
                "images": [],
                "local_images": [],
                "text_elements": [],
            },
        )
        self.turn_context(turn)
        self.history.append(self.message("user", prompt))
        self.token_count()
        for _ in range(rng.randint(2, 16)):
            if self.written >= budget:
                break
            if rng.random() < 0.6:
                summary = self.text(1, 3)
                self.line("event_msg", {"type": "agent_reasoning", "text": summary})
                self.line(
                    "response_item",
                    {
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": summary}],
                        "content": None,
                        "encrypted_content": self.encrypted(800, 4000),
                    },
                )
            if rng.random() < 0.5:
                words = self.text(1, 3)
                self.line("event_msg", {"type": "agent_message", "message": words})
                self.message("assistant", words, "commentary")
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                self.call()
            self.token_count()
            if rng.random() < 0.5:
                self.token_count(repeat=True)
            if rng.random() < 0.8:
                self.turn_context(turn)
        answer = self.text(2, 12)
        self.line("event_msg", {"type": "agent_message", "message": answer})
        self.history.append(self.message("assistant", answer, "final_answer"))
        self.token_count()
        self.line(
            "event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": answer}
        )

    def compaction(self) -> None:
        kept = self.history[-40:]
        history = [*kept, {"type": "compaction", "encrypted_content": self.encrypted(4000, 12000)}]
        self.line("compacted", {"message": "", "replacement_history": history})
        self.line("event_msg", {"type": "context_compacted"})
        self.history = list(kept)


_GENERATOR = FormatGenerator(__doc__, Rollout)
generate = _GENERATOR.generate
main = _GENERATOR.main


if __name__ == "__main__":
    sys.exit(main())
