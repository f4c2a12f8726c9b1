"""Generate a realistic agentgo-v1 session of a given size.

    python bench/gen_agentgo.py OUT.jsonl --size 100MB [--seed N] [--damage]

Written directly with orjson (sorted keys, one ``\\n`` per line), never through
``session_core``, so it is an independent input. Same seed + same size = the
same bytes.

What it holds, in the order an agent loop records it (``shared/spec/agentgo-v1.md``):
``session_start``, then runs. A run is ``run_start``, ``agent_start``, the
user's message (``message_end``) and turns. Each turn is ``turn_start``, a
model call (``model_request`` carrying the whole history sent, the tool
declarations and the config; ``model_exec_end`` with the assistant message and
its usage; the committed ``message_end``), then the tool calls the message
asked for, each ``tool_exec_start`` / ``tool_invoke_start`` (now and then with
other arguments: middleware) / ``tool_exec_end`` with a result cut from ~1 MB
pools of code, grep output and logs (log-normal sizes, a few up to 100 KB) and
its committed ``tool_result`` message, then ``turn_end``. A model call fails
now and then (``model_exec_end`` with an error and maybe a partial message,
then ``retry`` and a second attempt carrying the history again); a length
stop records a ``model_response`` recovery. When the history passes its
context budget a ``compact`` call records ``context_compacted`` and the
history restarts from its summary. Runs end with ``agent_end`` and
``run_close``; some save a checkpoint (a snapshot of the whole history).

The last run's final assistant message starts with a marker
(``END-OF-CONVERSATION-…``): what a viewer opened on the conversation's end
must show. ``--damage`` then breaks the file as a crash and a bad copy would:
a seq gap, a line of another session and a torn final line.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_common import LineWriter, generator_parser, parse_size, write_timed  # noqa: E402
from text_pools import FILES, IDENTS, SHELL, WORDS, build_pools, prose  # noqa: E402

OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
GEN_VERSION = 1  # bump when the output for a given (size, seed) changes
CONTEXT_BUDGET = 400_000  # bytes of history (~100k tokens) before a compaction
MODELS = ("claude-sonnet-4", "gpt-5-mini")
TOOLS: dict[str, dict[str, Any]] = {
    "read_file": {"path": {"type": "string"}},
    "grep": {"pattern": {"type": "string"}, "path": {"type": "string"}},
    "bash": {"command": {"type": "string"}},
    "write_file": {"path": {"type": "string"}, "content": {"type": "string"}},
    "list_dir": {"path": {"type": "string"}},
}
# tool -> (pool, error rate), and how often each is chosen
_POOLS = {
    "read_file": ("code", 0.04),
    "grep": ("grep", 0.03),
    "bash": ("log", 0.15),
    "write_file": ("code", 0.04),
    "list_dir": ("grep", 0.01),
}
_WEIGHTS = (("read_file", 40), ("grep", 20), ("bash", 25), ("write_file", 10), ("list_dir", 5))
_CHOICES = [name for name, weight in _WEIGHTS for _ in range(weight)]
_ERRORS = ("stream reset by peer", "429 rate limited: retry after 2s", "upstream overloaded")

__all__ = ["GEN_VERSION", "generate", "marked_session"]


def _declarations() -> list[dict[str, Any]]:
    return [
        {
            "description": f"{name.replace('_', ' ')}: see the tool's documentation",
            "name": name,
            "schema": {"properties": props, "required": sorted(props), "type": "object"},
        }
        for name, props in TOOLS.items()
    ]


class _Gen(LineWriter):
    def __init__(self, out: Any, target: int, seed: int) -> None:
        super().__init__(out, target, seed)
        self.messages = 0
        self.calls = 0
        self.now_ns = (1_786_266_000 + self.rng.randrange(10**6)) * 10**9
        self.pools = build_pools(self.rng)
        self.session_id = self.new_id()
        self.tools = _declarations()
        self.history: list[dict[str, Any]] = []
        self.history_bytes = 0
        self.call_n = 0
        self.model = self.rng.choice(MODELS)

    def new_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def time(self, advance_ms: float) -> str:
        self.now_ns += max(1, int(advance_ms * 1e6)) + self.rng.randrange(1000)
        seconds, fraction = divmod(self.now_ns, 10**9)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        return f"{stamp}.{fraction:09d}Z"

    def emit(
        self,
        kind: str,
        data: dict[str, Any],
        run_id: str | None = None,
        execution: dict[str, Any] | None = None,
        advance_ms: float = 2.0,
    ) -> None:
        record: dict[str, Any] = {
            "data": data,
            "seq": self.lines,
            "session_id": self.session_id,
            "time": self.time(advance_ms),
            "type": kind,
        }
        if run_id is not None:
            record["run_id"] = run_id
        if execution is not None:
            record["execution"] = execution
        line = orjson.dumps(record, option=OPTS)
        self.put(line, kind)
        if kind == "message_end":
            self.messages += 1

    def commit(self, run_id: str, message: dict[str, Any]) -> None:
        self.emit("message_end", {"message": message}, run_id)
        self.history.append(message)
        self.history_bytes += len(orjson.dumps(message))

    # -- content ------------------------------------------------------------------

    def cut(self, pool: str, size: int) -> str:
        text = self.pools[pool]
        start = self.rng.randrange(max(1, len(text) - size))
        return text[start : start + size]

    def result_size(self) -> int:
        # log-normal around 2 KB; one in fifty big (20-100 KB)
        if self.rng.random() < 0.02:
            return self.rng.randint(20_000, 100_000)
        return max(40, min(60_000, int(math.exp(self.rng.gauss(7.5, 1.1)))))

    def args(self, tool: str) -> dict[str, Any]:
        w = self.rng.choice
        if tool == "bash":
            return {"command": w(SHELL)}
        if tool == "grep":
            return {"path": ".", "pattern": w(IDENTS)}
        if tool == "write_file":
            return {"content": self.cut("code", self.rng.randint(200, 3000)), "path": w(FILES)}
        return {"path": w(FILES)}

    def usage(self, output: int) -> dict[str, Any]:
        inp = self.history_bytes // 4 + 3000
        cached = int(inp * self.rng.uniform(0.5, 0.95))
        cost = round((inp - cached) * 3e-6 + cached * 3e-7 + output * 1.5e-5, 6)
        return {
            "cache_read_tokens": cached,
            "cost": cost,
            "input_tokens": inp,
            "output_tokens": output,
        }

    def assistant(self, calls: int, final: str | None = None) -> dict[str, Any]:
        rng = self.rng
        parts: list[dict[str, Any]] = []
        if final is None and rng.random() < 0.5:  # the marker comes first (for lnav too)
            parts.append({"text": prose(rng, rng.randint(1, 4)), "type": "thinking"})
        text = final if final is not None else prose(rng, rng.randint(1, 5))
        parts.append({"text": text, "type": "text"})
        for _ in range(calls):
            self.call_n += 1
            tool = rng.choice(_CHOICES)
            parts.append(
                {
                    "arguments": self.args(tool),
                    "id": f"toolu_{self.call_n:06d}",
                    "name": tool,
                    "type": "tool_call",
                }
            )
        stop = "tool_use" if calls else "end_turn"
        return {"content": parts, "kind": "assistant", "stop_reason": stop}

    # -- structure ----------------------------------------------------------------

    def run(self, final: bool) -> None:
        rng = self.rng
        run_id = self.new_id()
        self.emit("run_start", {}, run_id, advance_ms=rng.uniform(5_000, 600_000))
        self.emit("agent_start", {}, run_id)
        ask = "Please " + prose(rng, rng.randint(1, 3))
        self.commit(run_id, {"content": [{"text": ask, "type": "text"}], "kind": "user"})
        turns = 1 if final else max(1, min(40, int(rng.expovariate(1 / 8)) + 1))
        for turn in range(turns):
            last = turn == turns - 1 or self.bytes >= self.target  # big enough: wrap up
            self.turn(run_id, turn, last, final and last)
            if not final and self.history_bytes > CONTEXT_BUDGET:
                self.compact(run_id, turn)
            if last:
                turns = turn + 1
                break
        crashed = not final and rng.random() < 0.01
        if crashed:
            return  # no agent_end, no run_close: the next run finds it interrupted
        if rng.random() < 0.2:
            self.emit(
                "checkpoint",
                {"snapshot": {"state": {"messages": self.history, "turn": turns}}},
                run_id,
            )
        if rng.random() < 0.02:
            self.emit("agent_end", {"error": "max turns reached"}, run_id)
        else:
            self.emit("agent_end", {"stop_reason": "end_turn"}, run_id)
        self.emit("run_close", {}, run_id)

    def turn(self, run_id: str, turn: int, last: bool, final: bool) -> None:
        rng = self.rng
        self.emit("turn_start", {"turn_index": turn}, run_id)
        model_id = f"turn-{turn + 1}"
        calls = 0 if last else rng.choice((1, 1, 1, 2, 2, 3))
        marker = None
        if final:
            marker = f"END-OF-CONVERSATION-{rng.getrandbits(48):012x}"
        attempt = 1
        while True:
            execution = {"attempt": attempt, "id": model_id, "kind": "model", "turn_index": turn}
            config: dict[str, Any] = {"model": self.model, "temperature": 0.2}
            if attempt == 1 and rng.random() < 0.3:
                config["thinking_level"] = "medium"
            self.calls += 1
            self.emit(
                "model_request",
                {"config": config, "messages": self.history, "tools": self.tools},
                run_id,
                execution,
            )
            if not final and attempt < 3 and rng.random() < 0.04:
                error = rng.choice(_ERRORS)
                failed: dict[str, Any] = {"error": error}
                if rng.random() < 0.5:
                    partial = prose(rng, 1)
                    failed["partial_message"] = {
                        "content": [{"text": partial, "type": "text"}],
                        "kind": "assistant",
                    }
                self.emit("model_exec_end", failed, run_id, execution, rng.uniform(200, 3000))
                delay = 1000 * attempt
                retry = {"attempt": attempt + 1, "delay_ms": delay, "error": error}
                self.emit("retry", retry, run_id, execution, delay)
                attempt += 1
                continue
            break
        message = self.assistant(calls, marker)
        usage = self.usage(rng.randint(40, 1500))
        result = {"message": message, "usage": usage}
        self.emit("model_exec_end", result, run_id, execution, rng.uniform(800, 20_000))
        if not final and rng.random() < 0.01:
            recovery = {"decision": "continue", "reason": "max_tokens"}
            self.emit("model_response", {"recovery": recovery}, run_id, execution)
        self.commit(run_id, dict(message, usage=usage))
        for part in message["content"]:
            if part["type"] == "tool_call":
                self.tool(run_id, turn, model_id, part)
        self.emit("turn_end", {"turn_index": turn}, run_id)

    def tool(self, run_id: str, turn: int, parent: str, part: dict[str, Any]) -> None:
        rng = self.rng
        name = part["name"]
        execution = {
            "attempt": 1,
            "id": part["id"],
            "kind": "tool",
            "parent_id": parent,
            "turn_index": turn,
        }
        self.calls += 1
        args = part["arguments"]
        start = {"args": args, "tool": name, "tool_call_id": part["id"]}
        self.emit("tool_exec_start", start, run_id, execution)
        actual = args
        if "path" in args and rng.random() < 0.05:
            actual = dict(args, path="/sandbox/" + str(args["path"]))  # middleware
        self.emit("tool_invoke_start", {"args": actual}, run_id, execution)
        pool, error_rate = _POOLS[name]
        failed = rng.random() < error_rate
        if failed:
            text = f"error: {rng.choice(WORDS)} {rng.choice(('not found', 'denied', 'timed out'))}"
        elif name == "write_file":
            text = f"wrote {len(str(args.get('content', ''))):,} bytes"
        else:
            text = self.cut(pool, self.result_size())
        end: dict[str, Any] = {
            "content": [{"text": text, "type": "text"}],
            "details": {"bytes": len(text)},
            "disposition": "continue",
            "is_error": failed,
            "result": text,
        }
        self.emit("tool_exec_end", end, run_id, execution, rng.uniform(5, 4000))
        answer = {
            "content": [{"text": text, "type": "text"}],
            "is_error": failed,
            "kind": "tool_result",
            "tool_call_id": part["id"],
        }
        self.commit(run_id, answer)

    def compact(self, run_id: str, turn: int) -> None:
        rng = self.rng
        self.call_n += 1
        execution = {"attempt": 1, "id": f"compact-{self.call_n}", "kind": "compact"}
        before = self.history_bytes // 4
        keep = self.history[-4:]
        summary = "Summary of the conversation so far: " + prose(rng, rng.randint(6, 14))
        replaced = len(self.history) - len(keep)
        self.history = [{"content": [{"text": summary, "type": "text"}], "kind": "user"}, *keep]
        self.history_bytes = sum(len(orjson.dumps(m)) for m in self.history)
        data = {
            "replaced": replaced,
            "summary": summary,
            "tokens_after": self.history_bytes // 4,
            "tokens_before": before,
        }
        self.calls += 1
        self.emit("context_compacted", data, run_id, execution, rng.uniform(2000, 9000))


def generate(path: str | Path, size: int, seed: int = 1, damage: bool = False) -> dict[str, Any]:
    """Write a session of roughly ``size`` bytes; returns what it holds (and the marker)."""

    def write(out: Any) -> dict[str, Any]:
        g = _Gen(out, size, seed)
        g.emit("session_start", {"version": 1})
        runs = 0
        while g.bytes < size * 0.98 or runs == 0:
            g.run(final=False)
            runs += 1
        g.run(final=True)
        runs += 1
        marker = next(
            part["text"]
            for part in g.history[-1]["content"]
            if part["type"] == "text" and part["text"].startswith("END-OF-CONVERSATION-")
        )
        return {
            "bytes": g.bytes,
            "records": g.lines,
            "messages": g.messages,
            "calls": g.calls,
            "runs": runs,
            "marker": marker,
            "types": dict(sorted(g.counts.items())),
        }

    path = Path(path)
    info = write_timed(path, write)
    if damage:
        _damage(path, random.Random(seed + 1))
        info["damaged"] = True
    return info


def _damage(path: Path, rng: random.Random) -> None:
    """A seq gap, a line of another session, a torn final line (read strictly: refused)."""
    lines = path.read_bytes().splitlines(keepends=True)
    gap = rng.randrange(len(lines) // 3, len(lines) // 2)
    del lines[gap]
    other = rng.randrange(len(lines) // 2, len(lines) - 2)
    foreign = orjson.loads(lines[other])
    foreign["session_id"] = "another-session"
    lines.insert(other, orjson.dumps(foreign, option=OPTS))
    lines.append(b'{"data":{},"seq":')
    path.write_bytes(b"".join(lines))


def marked_session(data_dir: Path, size_text: str, seed: int = 7) -> dict[str, Any]:
    """The bench's session of ``size_text`` (generated once, kept in ``data_dir``)."""
    size = parse_size(size_text)
    path = data_dir / f"agentgo-{size_text}-seed{seed}-v{GEN_VERSION}.jsonl"
    meta = path.with_suffix(".json")
    if path.exists() and meta.exists():
        info: dict[str, Any] = json.loads(meta.read_text())
        if info.get("bytes") == path.stat().st_size:
            return info
    info = generate(path, size, seed)
    meta.write_text(json.dumps(info, indent=1))
    return info


def main(argv: list[str] | None = None) -> int:
    parser = generator_parser(__doc__)
    parser.add_argument(
        "--damage", action="store_true", help="a seq gap, a foreign line, a torn tail"
    )
    args = parser.parse_args(argv)
    info = generate(args.out, parse_size(args.size), args.seed, args.damage)
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
