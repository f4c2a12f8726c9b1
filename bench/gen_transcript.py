"""Generate a realistic transcript-v1 ("envelope" format) file of a given size.

    python bench/gen_transcript.py OUT.jsonl --size 100MB [--seed N] [--crash] [--check]

The file is written directly with orjson (sorted keys, one ``\\n`` per line),
never through ``session_core``, so it can serve as an independent input for
benchmarks and for cross-checking the library. Same seed + same size = the same
bytes.

What it contains, in the order a real agent loop writes it: a ``session-meta``
line, a system prompt (``sysprompt``), then "runs". Each run starts with a
``run-context`` line (facts plus sections, deduplicated with ``rendered-in``
exactly as the spec's rule says), a user turn, rounds of assistant turns with
tool calls (each call: ``tool-dispatched``, the tool message, ``tool-settled``)
and a final answer. Between rounds: ``grants`` snapshots, ``elision`` lines
(every ~150 messages, stubbing older tool results that are still live),
``compaction`` lines (every few hundred messages, cutting at a still-live
message ~50 messages back, sometimes at the previous summary) and unknown
custom types (``x-note``, ``x-heartbeat``). ``--crash`` ends the file with a
turn whose tool calls are left in the three crash states.

``--check`` replays the written file with a small reference replay that is
independent of both the generator's bookkeeping and ``session_core``
(``v1_check.py``), and prints what the replayed view should contain.
"""

from __future__ import annotations

import datetime as _dt
import json
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
from gen_common import (
    CANON,
    OPTS,
    LineWriter,
    data_digest,
    format_size,
    generator_parser,
    parse_size,
    write_timed,
)
from text_pools import FILES, IDENTS, SHELL, WORDS, build_pools, prose, sentence
from v1_check import CheckError, check

GEN_VERSION = 1  # bump when the output for a given (size, seed) changes: it keys the bench cache

# What importers use from here, wherever it is defined.
__all__ = [
    "GEN_VERSION",
    "OPTS",
    "CheckError",
    "check",
    "data_digest",
    "format_size",
    "generate",
    "parse_size",
]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def _fmt_ts(us: int) -> str:
    d = _EPOCH + _dt.timedelta(microseconds=us)
    return f"{d:%Y-%m-%dT%H:%M:%S}.{d.microsecond:06d}Z"


# --------------------------------------------------------------------------- tools

# name -> (idempotency, pool, error rate)
_TOOLS: dict[str, tuple[str, str, float]] = {
    "fs_read": ("read-only", "code", 0.05),
    "grep": ("read-only", "grep", 0.03),
    "fs_list": ("read-only", "grep", 0.01),
    "shell": ("unknown", "log", 0.15),
    "fs_write": ("destructive", "code", 0.04),
    "http_get": ("idempotent", "log", 0.08),
}
_TOOL_WEIGHTS = (
    ("fs_read", 40),
    ("grep", 20),
    ("shell", 20),
    ("fs_write", 10),
    ("fs_list", 6),
    ("http_get", 4),
)
_TOOL_CHOICES = [n for n, k in _TOOL_WEIGHTS for _ in range(k)]


class _Gen(LineWriter):
    """The generator's own state: what it has written, tracked like the spec's replay."""

    def __init__(self, out: Any, target: int, seed: int) -> None:
        super().__init__(out, target, seed)
        self.now_us = int(_dt.datetime(2026, 8, 9, 9, 0, tzinfo=_dt.UTC).timestamp()) * 10**6
        self.now_us += self.rng.randrange(10**9)
        self.pools = build_pools(self.rng)
        # live conversation, as replay computes it (parallel lists)
        self.live_ids: list[str] = []
        self.live_sticky: list[bool] = []
        self.live_boundary: list[bool] = []  # a clean place to cut (end of round / summary)
        self.live_tool_len: dict[str, int] = {}  # live, not yet elided tool messages
        self.last_summary: str | None = None
        self.section_carrier: dict[str, str] = {}  # digest -> first carrier envelope id
        self.grants: list[dict[str, Any]] = []
        self.ctx_tokens = 0
        self.msgs_since_elision = 0
        self.msgs_since_compaction = 0
        self.next_elision = self.rng.randint(120, 180)
        self.next_compaction = self.rng.randint(250, 450)
        self.session_tag = f"{self.rng.getrandbits(32):08x}"
        self.agents_md_version = 0

    # ---- low level

    def new_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def emit(
        self, type_: str, payload: dict[str, Any], eid: str | None = None, advance_us: int = 1000
    ) -> str:
        eid = eid or self.new_id()
        self.now_us += max(1, advance_us)
        line = orjson.dumps(
            {"id": eid, "payload": payload, "ts": _fmt_ts(self.now_us), "type": type_, "v": 1},
            option=OPTS,
        )
        self.put(line, type_)
        return eid

    def message(
        self, payload: dict[str, Any], *, advance_us: int = 1000, boundary: bool = False
    ) -> str:
        eid = self.emit("message", payload, advance_us=advance_us)
        sticky = bool(payload.get("sticky") or payload.get("sysprompt") or "depth" in payload)
        self.live_ids.append(eid)
        self.live_sticky.append(sticky)
        self.live_boundary.append(boundary)
        self.ctx_tokens += len(payload["content"]) // 4 + 8
        self.msgs_since_elision += 1
        self.msgs_since_compaction += 1
        return eid

    def text(self, pool: str, n: int) -> str:
        src = self.pools[pool]
        n = min(n, len(src) - 1)
        off = self.rng.randrange(len(src) - n)
        start = src.find("\n", off, off + 200) + 1 or off
        return src[start : start + n]

    def tool_size(self) -> int:
        k = self.rng.random()
        if k < 0.80:
            return int(self.rng.triangular(60, 2000, 400))
        if k < 0.95:
            return self.rng.randint(2000, 10_000)
        return self.rng.randint(10_000, 100_000)

    def usage(self, completion: int) -> dict[str, Any]:
        prompt = self.ctx_tokens + 1500
        return {
            "completion-tokens": completion,
            "cost": round(prompt * 0.6e-6 + completion * 2.5e-6, 6),
            "prompt-tokens": prompt,
            "total-tokens": prompt + completion,
        }

    # ---- conversation pieces

    def header(self) -> None:
        self.emit(
            "session-meta",
            {
                "agent": "sadna",
                "model": "kimi-k2",
                "cwd": "/home/dev/src/tailscope",
                "title": f"bench session {self.session_tag}",
                "client": {"name": "LLM::Agent", "version": "0.6.1"},
            },
        )
        sysprompt = (
            "You are sadna, a careful coding agent working in a git repository.\n\n"
            + "\n".join(f"- {sentence(self.rng)}" for _ in range(40))
        )
        self.message({"role": "system", "content": sysprompt, "sysprompt": True})

    def run_context(self, run_n: int, run_id: str) -> None:
        rng = self.rng
        if run_n % 30 == 0:
            self.agents_md_version += 1
        sections = [
            ("identity", "You are sadna. You act only through tools; you never guess contents."),
            ("tools", "\n".join(f"{t}: {idem}" for t, (idem, _, _) in _TOOLS.items())),
            ("AGENTS.md", f"# AGENTS.md v{self.agents_md_version}\n" + self.text("code", 1500)),
            ("memory", f"memory revision {run_n // 5}: " + prose(random.Random(run_n // 5), 3)),
            ("git-status", "\n".join(f" M {rng.choice(FILES)}" for _ in range(rng.randint(0, 6)))),
        ]
        facts = [
            ["date", _fmt_ts(self.now_us)[:10]],
            ["cwd", "/home/dev/src/tailscope"],
            ["branch", rng.choice(("main", "main", "replay-speed", "fix-follow"))],
            ["head", f"{rng.getrandbits(160):040x}"],
            ["run", str(run_n)],
        ]
        eid = self.new_id()
        out_sections = []
        for name, rendered in sections:
            digest = data_digest([name, rendered])
            carrier = self.section_carrier.get(digest)
            if carrier is None:
                self.section_carrier[digest] = eid
                out_sections.append({"name": name, "digest": digest, "rendered": rendered})
            else:
                out_sections.append({"name": name, "digest": digest, "rendered-in": carrier})
        digest = data_digest(
            {"facts": facts, "sections": [[s["name"], s["digest"]] for s in out_sections]}
        )
        self.emit(
            "run-context",
            {"run-id": run_id, "digest": digest, "facts": facts, "sections": out_sections},
            eid=eid,
        )

    def tool_args(self, tool: str) -> dict[str, Any]:
        rng = self.rng
        if tool == "fs_read":
            return {"path": rng.choice(FILES), "offset": rng.randint(0, 400), "limit": 200}
        if tool == "grep":
            return {"pattern": rng.choice(IDENTS), "path": rng.choice(("session_core", "."))}
        if tool == "fs_list":
            return {"path": rng.choice(("session_core", "viewer", "tests", "."))}
        if tool == "shell":
            cmd = rng.choice(SHELL)
            return {"command": cmd, "timeout": 120}
        if tool == "fs_write":
            return {
                "path": rng.choice(FILES),
                "content": self.text("code", rng.randint(200, 4000)),
            }
        return {"url": f"https://docs.python.org/3/library/{rng.choice(WORDS)}.html"}

    def round(self, run_id: str, round_n: int, final_pending: bool = False) -> None:
        """One assistant turn with tool calls, then each call dispatched, answered, settled."""
        rng = self.rng
        n_calls = rng.choice((1, 1, 1, 1, 1, 2, 2, 3)) if not final_pending else 3
        calls = []
        for _ in range(n_calls):
            tool = rng.choice(_TOOL_CHOICES)
            args = self.tool_args(tool)
            call_id = "call_" + "".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=24))
            raw_args = json.dumps(args, ensure_ascii=False)  # the model's own spelling
            calls.append((call_id, tool, args, raw_args))
        payload: dict[str, Any] = {
            "role": "assistant",
            "content": prose(rng, rng.randint(0, 2)),
            "tool-calls": [
                {"id": c, "type": "function", "function": {"name": t, "arguments": raw}}
                for c, t, _, raw in calls
            ],
            "finish-reason": "tool_calls",
            "usage": self.usage(rng.randint(30, 400)),
        }
        if rng.random() < 0.3:
            payload["reasoning"] = prose(rng, rng.randint(2, 12))
        self.message(payload, advance_us=rng.randint(800_000, 25_000_000))

        for i, (call_id, tool, args, _) in enumerate(calls):
            if final_pending and i == 2:
                continue  # crash state 1: never dispatched
            idem, pool, err_rate = _TOOLS[tool]
            canon = orjson.dumps(args, option=CANON).decode()
            dpayload: dict[str, Any] = {
                "call-id": call_id,
                "tool": tool,
                "arguments": canon,
                "idempotency": idem,
                "run-id": run_id,
                "round": round_n,
            }
            if rng.random() < 0.9:
                dpayload["arguments-digest"] = data_digest(canon)
            op_id = self.emit("tool-dispatched", dpayload, advance_us=rng.randint(100, 3000))
            if final_pending and i == 1:
                continue  # crash state 2: running when the writer died
            duration_us = int(rng.lognormvariate(12.0, 1.5))  # median ~0.16 s
            duration_us = min(duration_us, 120_000_000)
            k = rng.random()
            extra: dict[str, Any] = {}
            settle: dict[str, Any] = {"op-id": op_id}
            artifact = None
            if k < err_rate:
                content = f"Error: {tool} failed: {sentence(rng)}"
                extra["is-error"] = True
                settle["outcome"] = "failed"
                settle["error"] = content[:200]
            elif k < err_rate + 0.005:
                content = f"[{tool} timed out after 120s; its outcome is unknown]"
                extra["outcome-unknown"] = True
                settle["outcome"] = "outcome-unknown"
                settle["reason"] = "timeout"
                duration_us = 120_000_000
            else:
                n = self.tool_size()
                settle["outcome"] = "completed"
                if n > 60_000 and rng.random() < 0.5:
                    # oversized: the message holds an excerpt, the full text went to a file
                    full_chars = n * rng.randint(3, 10)
                    head = self.text(pool, n * 3 // 4)
                    tail = self.text(pool, n // 4)
                    art_file = f"{op_id}.txt"
                    art_digest = f"{rng.getrandbits(256):064x}"
                    elided = full_chars - len(head) - len(tail)
                    marker = (
                        f"\n[... elided {elided} chars ({full_chars} bytes total); "
                        f"full result: {art_file} sha256 {art_digest} ...]\n"
                    )
                    content = head + marker + tail
                    artifact = {
                        "file": art_file,
                        "digest": art_digest,
                        "bytes": full_chars,
                        "chars": full_chars,
                        "elided-chars": elided,
                    }
                else:
                    content = self.text(pool, n)
            tpayload = {"role": "tool", "content": content, "tool-call-id": call_id, **extra}
            last = i == len(calls) - 1 and not final_pending
            tid = self.message(tpayload, advance_us=duration_us, boundary=last)
            if not extra and len(content) > 300:
                self.live_tool_len[tid] = len(content)
            if final_pending:
                continue  # crash state 3: completed, the settle never landed
            settle["duration"] = round(duration_us / 1e6 + rng.randint(50, 900) / 1e6, 6)
            settle["result-digest"] = data_digest(content)
            if artifact:
                settle["artifact"] = artifact
            self.emit("tool-settled", settle, advance_us=rng.randint(50, 900))

    def maybe_housekeeping(self) -> None:
        rng = self.rng
        if self.msgs_since_elision >= self.next_elision:
            self.elision()
        if self.msgs_since_compaction >= self.next_compaction:
            self.compaction()
        if rng.random() < 0.02:
            self.emit("x-note", {"text": sentence(rng), "author": rng.choice(("user", "ui"))})
        if rng.random() < 0.01:
            self.emit(
                "x-heartbeat",
                {
                    "pid": 4242,
                    "rss-mb": rng.randint(80, 900),
                    "queue": [rng.randint(0, 9) for _ in range(3)],
                },
            )

    def elision(self) -> None:
        self.msgs_since_elision = 0
        self.next_elision = self.rng.randint(120, 180)
        recent = set(self.live_ids[-20:])
        cands = [i for i in self.live_tool_len if i not in recent]
        if not cands:
            return
        k = min(len(cands), self.rng.randint(3, 25))
        picked = self.rng.sample(cands, k)
        items = []
        for mid in picked:
            n = self.live_tool_len.pop(mid)
            items.append({"id": mid, "stub": f"[elided: tool result, {n} chars]"})
            self.ctx_tokens -= n // 4
        self.emit("elision", {"items": items})

    def compaction(self) -> None:
        rng = self.rng
        self.msgs_since_compaction = 0
        self.next_compaction = rng.randint(250, 450)
        ids = self.live_ids
        cut = -1
        if self.last_summary in ids and rng.random() < 0.15:
            cut = ids.index(self.last_summary)  # fold the previous summary only
        else:
            j = len(ids) - 1 - rng.randint(40, 60)
            while j > 0 and not self.live_boundary[j]:
                j -= 1
            cut = j
        if cut <= 0:
            return
        fallback = rng.random() < 0.05
        if fallback:
            summary = "[hard-trimmed: the summarizer could not be reached; earlier turns dropped]"
        else:
            summary = "Summary of the conversation so far:\n" + "\n".join(
                f"- {sentence(rng)}" for _ in range(rng.randint(8, 30))
            )
        before = self.ctx_tokens + 1500
        eid = self.new_id()
        keep = [i for i in range(cut + 1) if self.live_sticky[i]]
        rest = range(cut + 1, len(ids))
        self.live_ids = [ids[i] for i in keep] + [eid] + [ids[i] for i in rest]
        self.live_sticky = (
            [self.live_sticky[i] for i in keep] + [False] + [self.live_sticky[i] for i in rest]
        )
        self.live_boundary = (
            [self.live_boundary[i] for i in keep] + [True] + [self.live_boundary[i] for i in rest]
        )
        live = set(self.live_ids)
        self.live_tool_len = {k: v for k, v in self.live_tool_len.items() if k in live}
        self.ctx_tokens = max(200, self.ctx_tokens // 5) + len(summary) // 4
        payload: dict[str, Any] = {
            "summary": summary,
            "replaces-through-id": ids[cut],
            "fallback": fallback,
        }
        if not fallback or rng.random() < 0.5:
            payload["tokens-before"] = before
            payload["tokens-after"] = self.ctx_tokens + 1500
        self.emit("compaction", payload, eid=eid, advance_us=rng.randint(2_000_000, 20_000_000))
        self.last_summary = eid

    def grants_line(self) -> None:
        rng = self.rng
        tool = rng.choice(list(_TOOLS))
        scope = rng.choice(("always", "session", "session"))
        self.grants = [g for g in self.grants if g["tool"] != tool]
        self.grants.append({"tool": tool, "scope": scope, "granted-at": _fmt_ts(self.now_us)})
        self.emit("grants", {"grants": list(self.grants)})

    def crash_tail(self, run_n: int) -> None:
        """A last run that dies inside its first round: its three tool calls are left
        completed-but-unsettled, running, and never dispatched."""
        run_id = f"run-{self.session_tag}-{run_n:05d}"
        self.run_context(run_n, run_id)
        self.message({"role": "user", "content": prose(self.rng, 2)}, advance_us=30_000_000)
        self.round(run_id, 1, final_pending=True)

    def run(self, run_n: int) -> None:
        rng = self.rng
        run_id = f"run-{self.session_tag}-{run_n:05d}"
        self.run_context(run_n, run_id)
        user: dict[str, Any] = {"role": "user", "content": prose(rng, rng.randint(1, 6))}
        if rng.random() < 0.1:
            user["content"] += "\n\n```\n" + self.text("log", rng.randint(300, 6000)) + "\n```"
        self.message(user, advance_us=rng.randint(5_000_000, 600_000_000))
        if rng.random() < 0.03:
            self.message(
                {
                    "role": "user",
                    "content": "Pinned: " + sentence(rng),
                    "sticky": True,
                    "depth": rng.randint(0, 4),
                    "injected": True,
                }
            )
        if run_n == 0 or rng.random() < 0.08:
            self.grants_line()
        n_rounds = max(1, min(40, int(rng.expovariate(1 / 8))))
        for r in range(1, n_rounds + 1):
            self.round(run_id, r)
            self.maybe_housekeeping()
            if self.bytes >= self.target and r >= 1:
                break
        final: dict[str, Any] = {
            "role": "assistant",
            "content": prose(rng, rng.randint(2, 10)),
            "finish-reason": "stop" if rng.random() < 0.97 else "length",
            "usage": self.usage(rng.randint(80, 1200)),
        }
        if rng.random() < 0.4:
            final["reasoning"] = prose(rng, rng.randint(2, 8))
        self.message(final, advance_us=rng.randint(1_000_000, 30_000_000), boundary=True)


def generate(path: str | Path, size: int, seed: int = 1, crash: bool = False) -> dict[str, Any]:
    """Write a transcript of roughly ``size`` bytes (it stops at the first run end past it)."""

    def write(out: Any) -> dict[str, Any]:
        g = _Gen(out, size, seed)
        g.header()
        run_n = 0
        while g.bytes < size:
            g.run(run_n)
            run_n += 1
        if crash:
            g.crash_tail(run_n)
        return {
            "bytes": g.bytes,
            "lines": g.lines,
            "runs": run_n,
            "types": dict(sorted(g.counts.items())),
            "live-messages": len(g.live_ids),
        }

    return write_timed(Path(path), write)


# --------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    ap = generator_parser(__doc__)
    ap.add_argument(
        "--crash", action="store_true", help="end with tool calls in the three crash states"
    )
    ap.add_argument(
        "--check", action="store_true", help="replay the result with the reference replay"
    )
    args = ap.parse_args(argv)
    try:
        size = parse_size(args.size)
    except ValueError as e:
        ap.error(str(e))
    stats = generate(args.out, size, seed=args.seed, crash=args.crash)
    mb = stats["bytes"] / 1e6
    print(
        f"wrote {args.out}: {mb:.1f} MB, {stats['lines']} lines, {stats['runs']} runs "
        f"in {stats['seconds']:.2f} s ({mb / max(stats['seconds'], 1e-9):.0f} MB/s)",
        file=sys.stderr,
    )
    print("types: " + ", ".join(f"{k}={v}" for k, v in stats["types"].items()), file=sys.stderr)
    if args.check:
        t0 = time.perf_counter()
        try:
            view = check(args.out)
        except CheckError as e:
            print(f"CHECK FAILED: {e}", file=sys.stderr)
            return 1
        view["seconds"] = round(time.perf_counter() - t0, 3)
        if view["messages"] != stats["live-messages"]:
            print(
                f"CHECK FAILED: reference replay has {view['messages']} live messages, "
                f"the generator tracked {stats['live-messages']}",
                file=sys.stderr,
            )
            return 1
        print(
            f"check ok: {view['messages']} live messages, "
            f"{len(view['pending-tool-operations'])} pending ops "
            f"({view['seconds']:.2f} s)",
            file=sys.stderr,
        )
        print(orjson.dumps(view, option=orjson.OPT_INDENT_2).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
