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
independent of both the generator's bookkeeping and ``session_core`` (see
:func:`check`), and prints what the replayed view should contain.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import random
import re
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
GEN_VERSION = 1  # bump when the output for a given (size, seed) changes: it keys the bench cache
_CANON = orjson.OPT_SORT_KEYS

__all__ = [
    "GEN_VERSION",
    "CheckError",
    "check",
    "data_digest",
    "format_size",
    "generate",
    "parse_size",
]


# --------------------------------------------------------------------------- helpers


def parse_size(text: str) -> int:
    """``"100MB"`` -> 100_000_000. KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?i?b?)?\s*", text, re.IGNORECASE)
    if not m:
        raise ValueError(f"not a size: {text!r} (try 10MB, 512KiB, 1GB)")
    num = float(m.group(1))
    unit = (m.group(2) or "").lower().rstrip("b")
    base = 1024 if unit.endswith("i") else 1000
    power = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}[unit.rstrip("i")]
    return int(num * base**power)


def generator_parser(doc: str) -> argparse.ArgumentParser:
    """A generator's command line: ``OUT [--size S] [--seed N]`` (its own options added)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("out", help="the .jsonl file to write (replaced if it exists)")
    ap.add_argument("--size", default="10MB", help="target size: 100MB, 1GB, 512KiB (default 10MB)")
    ap.add_argument("--seed", type=int, default=1)
    return ap


class FormatWriter:
    """What a format's writer (``gen_claude_code.Session``, ``gen_codex.Rollout``) starts
    from: where and how much it writes, its random draws and its text pools."""

    def __init__(self, path: Path, size: int, seed: int, marker: str | None) -> None:
        self.path = path
        self.size = size
        self.rng = random.Random(seed)
        self.pools = _build_pools(random.Random(seed + 1), 1 << 19)
        self.marker = marker


class FormatGenerator:
    """A format's generator (``gen_claude_code``, ``gen_codex``): ``writer(path, size,
    seed, marker)`` has a ``write()`` that returns what it wrote."""

    def __init__(self, doc: str, writer: type[FormatWriter]) -> None:
        self.doc = doc
        self.writer = writer

    def generate(
        self, path: str | Path, size: int, seed: int = 1, marker: str | None = None
    ) -> dict[str, Any]:
        """Write a file of roughly ``size`` bytes (its folder made first); what it holds."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        info: dict[str, Any] = self.writer(out, size, seed, marker).write()
        return info

    def main(self, argv: list[str] | None = None) -> int:
        """``OUT [--size S] [--seed N] [--marker M]``: what it wrote printed as JSON."""
        ap = generator_parser(self.doc)
        ap.add_argument(
            "--marker", default=None, help="what the last message holds (default: a random marker)"
        )
        args = ap.parse_args(argv)
        info = self.generate(args.out, parse_size(args.size), args.seed, args.marker)
        print(orjson.dumps(info).decode())
        return 0


def format_size(n: int) -> str:
    for unit, div in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= div and n % (div // 1000 or 1) == 0:
            v = n / div
            return f"{v:g}{unit}"
    return f"{n}B"


def data_digest(x: Any) -> str:
    """sha256 over canonical JSON (sorted keys, compact, UTF-8, non-ASCII as is)."""
    return hashlib.sha256(orjson.dumps(x, option=_CANON)).hexdigest()


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def _fmt_ts(us: int) -> str:
    d = _EPOCH + _dt.timedelta(microseconds=us)
    return f"{d:%Y-%m-%dT%H:%M:%S}.{d.microsecond:06d}Z"


# --------------------------------------------------------------------------- text pools


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_WORDS = _words(
    "session transcript replay compaction elision envelope writer reader cache buffer "
    "handler request response token budget context window summary parser index offset "
    "digest artifact excerpt operation dispatch settle outcome retry timeout backoff "
    "config loader module package import export schema record field column value key "
    "thread lock queue worker pool scheduler event signal stream socket client server "
    "path file directory branch commit diff patch merge rebase test fixture assertion "
    "snapshot render widget layout style theme screen panel tree list table cell row"
)
_IDENTS = _words(
    "load_session apply_compaction replay_line read_chunk parse_envelope live_ids "
    "pending_ops tool_result render_tree on_mount refresh_view compute_digest "
    "write_line flush_buffer open_handle close_handle build_index resolve_op "
    "section_body follow_file watch_dir split_lines decode_payload encode_payload "
    "msg env op ctx cfg path data buf idx n i j rows items result state"
)
_TYPES = ("str", "int", "bytes", "bool", "None", "list[str]", "dict[str, Any]", "Path", "Session")
_FILES = _words(
    "session_core/session.py session_core/replay.py session_core/peek.py "
    "session_core/follow.py session_core/digest.py viewer/app.py viewer/cli.py "
    "viewer/widgets/tree.py viewer/widgets/detail.py tests/test_replay.py "
    "tests/test_follow.py tests/test_peek.py README.md pyproject.toml docs/format.md"
)
_UNICODE = (
    "naïve café — “quoted” ✓",
    "日本語のテキスト",
    "Grüße aus Köln",
    "emoji 🚀 ok",
    "παράδειγμα",
    "→ ← ↑ ↓ • …",
)
_VERBS = _words(
    "check read update refactor trace fix rename split inline cache validate "
    "simplify document test profile guard extract"
)
_PURPOSES = (
    "keep the replay linear",
    "avoid re-reading the whole file",
    "make the error name the line",
    "handle a CRLF transcript",
    "cope with a torn final line",
    "keep the viewer responsive while following",
    "preserve byte-exact output",
    "stop leaking the file handle",
    "match what the Raku module writes",
    "make the test deterministic",
)


def _sentence(rng: random.Random) -> str:
    w = rng.choice
    k = rng.random()
    if k < 0.25:
        return f"I'll {w(_VERBS)} the {w(_WORDS)} {w(_WORDS)} in `{w(_FILES)}` to {w(_PURPOSES)}."
    if k < 0.45:
        return (
            f"The {w(_WORDS)} is {w(('already', 'not yet', 'only partly', 'never'))} "
            f"{w(('flushed', 'validated', 'cached', 'sorted', 'closed'))} before `{w(_IDENTS)}` "
            f"returns, so the {w(_WORDS)} {w(('can', 'cannot', 'must', 'should'))} "
            f"{w(_VERBS)} it."
        )
    if k < 0.6:
        return (
            f"Running the tests again shows {rng.randint(0, 40)} passed and "
            f"{rng.randint(0, 3)} failed in `{w(_FILES)}`."
        )
    if k < 0.75:
        return f"Next I need to {w(_VERBS)} `{w(_IDENTS)}()` so that it {w(_PURPOSES)[5:]}."
    if k < 0.9:
        return " ".join(w(_WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
    return f"Note: {w(_UNICODE)} appears in the {w(_WORDS)} and must survive the round trip."


def _prose(rng: random.Random, n: int) -> str:
    return " ".join(_sentence(rng) for _ in range(n))


def _code_line(rng: random.Random, indent: int) -> str:
    w = rng.choice
    pad = "    " * indent
    k = rng.random()
    if k < 0.08:
        return f"{pad}def {w(_IDENTS)}(self, {w(_IDENTS)}: {w(_TYPES)}) -> {w(_TYPES)}:"
    if k < 0.4:
        return f"{pad}{w(_IDENTS)} = {w(_IDENTS)}.{w(_IDENTS)}({w(_IDENTS)}, {rng.randint(0, 999)})"
    if k < 0.5:
        return f"{pad}if {w(_IDENTS)} is None or len({w(_IDENTS)}) > {rng.randint(1, 64)}:"
    if k < 0.6:
        return f"{pad}return {w(_IDENTS)}"
    if k < 0.7:
        return f'{pad}raise TranscriptError(f"{{path}}: line {{n}}: {w(_WORDS)} {w(_WORDS)}")'
    if k < 0.8:
        return f"{pad}# {' '.join(w(_WORDS) for _ in range(rng.randint(3, 10)))}"
    if k < 0.82:
        return f"{pad}# {w(_UNICODE)}"
    if k < 0.9:
        return ""
    return f'{pad}for {w(_IDENTS)} in {w(_IDENTS)}:  # "{w(_WORDS)}"\t{w(_WORDS)}'


def _build_pools(rng: random.Random, nbytes: int = 1 << 20) -> dict[str, str]:
    """Three ~1 MB text pools (code, grep output, logs) that tool results are cut from."""
    code: list[str] = []
    size = 0
    while size < nbytes:
        indent = rng.randint(0, 2)
        for _ in range(rng.randint(4, 30)):
            line = _code_line(rng, indent)
            indent = max(0, min(3, indent + rng.choice((-1, 0, 0, 0, 1))))
            code.append(line)
            size += len(line) + 1
    grep: list[str] = []
    size = 0
    while size < nbytes:
        line = f"{rng.choice(_FILES)}:{rng.randint(1, 2400)}:{_code_line(rng, rng.randint(0, 2))}"
        grep.append(line)
        size += len(line) + 1
    log: list[str] = []
    size = 0
    levels = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")
    while size < nbytes:
        k = rng.random()
        if k < 0.6:
            line = (
                f"2026-08-09 {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                f"{rng.randint(0, 59):02d},{rng.randint(0, 999):03d} {rng.choice(levels)} "
                f"{rng.choice(_IDENTS)}: {_sentence(rng)}"
            )
        elif k < 0.9:
            test = f"tests/test_{rng.choice(_WORDS)}.py::test_{rng.choice(_IDENTS)}"
            line = f"{test} {rng.choice(('PASSED', 'PASSED', 'PASSED', 'FAILED', 'SKIPPED'))}"
        else:
            where = f'"{rng.choice(_FILES)}", line {rng.randint(1, 900)}'
            line = f"  File {where}, in {rng.choice(_IDENTS)}"
        log.append(line)
        size += len(line) + 1
    return {"code": "\n".join(code), "grep": "\n".join(grep), "log": "\n".join(log)}


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
_SHELL = (
    "pytest -q",
    "ruff check .",
    "git status --short",
    "mypy",
    "python -m pytest tests/test_replay.py -x",
    "git diff --stat",
)
_TOOL_CHOICES = [n for n, k in _TOOL_WEIGHTS for _ in range(k)]


class LineWriter:
    """A generator writing to ``out`` until it is ``target`` bytes: its draws, and its
    lines, their bytes and how many of each type it has written (``put``)."""

    def __init__(self, out: Any, target: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.out = out
        self.target = target
        self.bytes = 0
        self.lines = 0
        self.counts: dict[str, int] = {}

    def put(self, line: bytes, kind: str) -> None:
        self.out.write(line)
        self.bytes += len(line)
        self.lines += 1
        self.counts[kind] = self.counts.get(kind, 0) + 1


class _Gen(LineWriter):
    """The generator's own state: what it has written, tracked like the spec's replay."""

    def __init__(self, out: Any, target: int, seed: int) -> None:
        super().__init__(out, target, seed)
        self.now_us = int(_dt.datetime(2026, 8, 9, 9, 0, tzinfo=_dt.UTC).timestamp()) * 10**6
        self.now_us += self.rng.randrange(10**9)
        self.pools = _build_pools(self.rng)
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
            + "\n".join(f"- {_sentence(self.rng)}" for _ in range(40))
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
            ("memory", f"memory revision {run_n // 5}: " + _prose(random.Random(run_n // 5), 3)),
            ("git-status", "\n".join(f" M {rng.choice(_FILES)}" for _ in range(rng.randint(0, 6)))),
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
            return {"path": rng.choice(_FILES), "offset": rng.randint(0, 400), "limit": 200}
        if tool == "grep":
            return {"pattern": rng.choice(_IDENTS), "path": rng.choice(("session_core", "."))}
        if tool == "fs_list":
            return {"path": rng.choice(("session_core", "viewer", "tests", "."))}
        if tool == "shell":
            cmd = rng.choice(_SHELL)
            return {"command": cmd, "timeout": 120}
        if tool == "fs_write":
            return {
                "path": rng.choice(_FILES),
                "content": self.text("code", rng.randint(200, 4000)),
            }
        return {"url": f"https://docs.python.org/3/library/{rng.choice(_WORDS)}.html"}

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
            "content": _prose(rng, rng.randint(0, 2)),
            "tool-calls": [
                {"id": c, "type": "function", "function": {"name": t, "arguments": raw}}
                for c, t, _, raw in calls
            ],
            "finish-reason": "tool_calls",
            "usage": self.usage(rng.randint(30, 400)),
        }
        if rng.random() < 0.3:
            payload["reasoning"] = _prose(rng, rng.randint(2, 12))
        self.message(payload, advance_us=rng.randint(800_000, 25_000_000))

        for i, (call_id, tool, args, _) in enumerate(calls):
            if final_pending and i == 2:
                continue  # crash state 1: never dispatched
            idem, pool, err_rate = _TOOLS[tool]
            canon = orjson.dumps(args, option=_CANON).decode()
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
                content = f"Error: {tool} failed: {_sentence(rng)}"
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
            self.emit("x-note", {"text": _sentence(rng), "author": rng.choice(("user", "ui"))})
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
                f"- {_sentence(rng)}" for _ in range(rng.randint(8, 30))
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
        self.message({"role": "user", "content": _prose(self.rng, 2)}, advance_us=30_000_000)
        self.round(run_id, 1, final_pending=True)

    def run(self, run_n: int) -> None:
        rng = self.rng
        run_id = f"run-{self.session_tag}-{run_n:05d}"
        self.run_context(run_n, run_id)
        user: dict[str, Any] = {"role": "user", "content": _prose(rng, rng.randint(1, 6))}
        if rng.random() < 0.1:
            user["content"] += "\n\n```\n" + self.text("log", rng.randint(300, 6000)) + "\n```"
        self.message(user, advance_us=rng.randint(5_000_000, 600_000_000))
        if rng.random() < 0.03:
            self.message(
                {
                    "role": "user",
                    "content": "Pinned: " + _sentence(rng),
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
            "content": _prose(rng, rng.randint(2, 10)),
            "finish-reason": "stop" if rng.random() < 0.97 else "length",
            "usage": self.usage(rng.randint(80, 1200)),
        }
        if rng.random() < 0.4:
            final["reasoning"] = _prose(rng, rng.randint(2, 8))
        self.message(final, advance_us=rng.randint(1_000_000, 30_000_000), boundary=True)


def write_timed(path: Path, write: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """A generator's run: ``path``'s folder made, the file opened with a big buffer and
    handed to ``write``; what it says of the file, between its path and the seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(path, "wb", buffering=8 << 20) as out:
        info = write(out)
    return {"path": str(path), **info, "seconds": round(time.perf_counter() - t0, 3)}


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


# --------------------------------------------------------------------------- reference check

_UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
_ROLES = {"system", "user", "assistant", "tool"}
_OUTCOMES = {"completed", "failed", "outcome-unknown"}
_IDEMPOTENCY = {"read-only", "idempotent", "destructive", "unknown"}


class CheckError(Exception):
    pass


def check(path: str | Path, strict: bool = True) -> dict[str, Any]:
    """Replay ``path`` with a small reference implementation of the spec's replay.

    Raises :class:`CheckError` naming the line on the first broken fatal rule. With
    ``strict`` it also checks what this generator promises beyond the fatal rules:
    byte-exact canonical lines, uuid4 ids, increasing ts, digests, the section
    dedup rule, and that tool messages and dispatches name a call the model made.
    Returns the expected replayed view in summary form (counts, live ids, pending ops).
    """
    live: list[tuple[str, bool]] = []  # (id, sticky)
    live_pos: dict[str, int] = {}
    ops: dict[str, dict[str, Any]] = {}  # op-id -> record
    op_order: list[str] = []
    seen_ids: set[str] = set()
    calls_made: set[str] = set()
    tool_result: dict[str, str] = {}  # call-id -> content
    carriers: dict[str, str] = {}  # digest -> first carrier id
    run_contexts = 0
    grants: Any = None
    events = 0
    counts: dict[str, int] = {}
    last_ts = ""
    n = 0
    meta: Any = None

    def fail(msg: str) -> None:
        raise CheckError(f"{path}: line {n}: {msg}")

    def reindex() -> None:
        live_pos.clear()
        live_pos.update((mid, i) for i, (mid, _) in enumerate(live))

    with open(path, "rb") as f:
        for raw in f:
            n += 1
            if not raw.strip():
                continue
            if not raw.endswith(b"\n"):
                fail("final line has no newline")
            try:
                env = orjson.loads(raw)
            except orjson.JSONDecodeError as e:
                fail(f"not JSON: {e}")
            if not isinstance(env, dict):
                fail("not an object")
            if env.get("v") != 1 or isinstance(env.get("v"), bool):
                fail(f"v is {env.get('v')!r}")
            typ = env.get("type")
            if not isinstance(typ, str) or not typ:
                fail("no string type")
            if n == 1 and typ != "session-meta":
                fail("first line is not session-meta")
            p = env.get("payload")
            eid = env.get("id")
            if strict:
                if set(env) != {"id", "payload", "ts", "type", "v"}:
                    fail(f"keys {sorted(env)}")
                if orjson.dumps(env, option=OPTS) != raw:
                    fail("line is not canonical (sorted keys, compact, one LF)")
                if not isinstance(eid, str) or not _UUID4.fullmatch(eid):
                    fail(f"id {eid!r} is not a lower-case uuid4")
                if eid in seen_ids:
                    fail(f"duplicate id {eid}")
                seen_ids.add(eid)
                ts = env.get("ts")
                if not isinstance(ts, str) or not _TS.fullmatch(ts) or ts <= last_ts:
                    fail(f"ts {ts!r} malformed or not increasing")
                last_ts = ts
            counts[typ] = counts.get(typ, 0) + 1
            if not isinstance(p, dict):
                fail("payload is not an object")

            if typ == "session-meta":
                if n != 1:
                    fail("session-meta after line 1")
                meta = p
            elif typ == "message":
                if p.get("role") not in _ROLES or not isinstance(p.get("content"), str):
                    fail("message without role/content")
                sticky = bool(p.get("sticky") or p.get("sysprompt") or "depth" in p)
                live_pos[eid] = len(live)
                live.append((eid, sticky))
                if strict:
                    for tc in p.get("tool-calls", ()):
                        if tc.get("type") != "function" or not isinstance(
                            tc.get("function", {}).get("arguments"), str
                        ):
                            fail("malformed tool call")
                        calls_made.add(tc["id"])
                    if "tool-call-id" in p:
                        if p["tool-call-id"] not in calls_made:
                            fail("tool message answers a call nobody made")
                        tool_result[p["tool-call-id"]] = p["content"]
            elif typ == "compaction":
                cut = live_pos.get(p.get("replaces-through-id"))  # type: ignore[arg-type]
                if cut is None:
                    fail(f"replaces-through-id {p.get('replaces-through-id')!r} is not live")
                if not isinstance(p.get("summary"), str) or not isinstance(p.get("fallback"), bool):
                    fail("compaction without summary/fallback")
                live[:] = [e for e in live[: cut + 1] if e[1]] + [(eid, False)] + live[cut + 1 :]
                reindex()
            elif typ == "elision":
                items = p.get("items")
                if not isinstance(items, list):
                    fail("elision without items")
                for it in items:
                    if not (
                        isinstance(it, dict)
                        and isinstance(it.get("id"), str)
                        and isinstance(it.get("stub"), str)
                    ):
                        fail("malformed elision item")
                    if it["id"] not in live_pos:
                        fail(f"elision names {it['id']}, which is not live")
            elif typ == "tool-dispatched":
                if strict:
                    if p.get("idempotency") not in _IDEMPOTENCY:
                        fail("bad idempotency")
                    if p.get("call-id") not in calls_made:
                        fail("dispatch of a call nobody made")
                    if "arguments-digest" in p and p["arguments-digest"] != data_digest(
                        p["arguments"]
                    ):
                        fail("arguments-digest does not match")
                ops[eid] = {"call-id": p.get("call-id"), "settled": False}
                op_order.append(eid)
            elif typ == "tool-settled":
                op = ops.get(p.get("op-id"))  # type: ignore[arg-type]
                if op is None:
                    fail(f"settle of unknown op {p.get('op-id')!r}")
                if op["settled"]:
                    fail(f"op {p['op-id']} settled twice")
                if p.get("outcome") not in _OUTCOMES:
                    fail(f"bad outcome {p.get('outcome')!r}")
                op["settled"] = True
                if strict and "result-digest" in p:
                    seen = tool_result.get(op["call-id"])
                    if seen is None or data_digest(seen) != p["result-digest"]:
                        fail("result-digest does not match the tool message")
            elif typ == "run-context":
                run_contexts += 1
                if strict:
                    if not p.get("run-id") or not p.get("digest"):
                        fail("run-context without run-id/digest")
                    for s in p.get("sections", ()):
                        d = s["digest"]
                        if "rendered" in s:
                            if d in carriers:
                                fail(f"section {s['name']} repeats a carried digest")
                            if data_digest([s["name"], s["rendered"]]) != d:
                                fail(f"section {s['name']} digest mismatch")
                            carriers[d] = eid
                        elif carriers.get(d) != s.get("rendered-in"):
                            fail(f"section {s['name']} rendered-in is not the first carrier")
            elif typ == "grants":
                grants = p.get("grants")
            else:
                events += 1

    if n == 0:
        raise CheckError(f"{path}: empty file")
    ids = [mid for mid, _ in live]
    pending = [o for o in op_order if not ops[o]["settled"]]
    return {
        "lines": sum(counts.values()),
        "types": dict(sorted(counts.items())),
        "meta": meta,
        "messages": len(ids),
        "message-ids-sha256": hashlib.sha256("\n".join(ids).encode()).hexdigest(),
        "last-message-id": ids[-1] if ids else None,
        "tool-operations": len(op_order),
        "pending-tool-operations": pending,
        "run-contexts": run_contexts,
        "grants": len(grants) if isinstance(grants, list) else None,
        "unknown-events": events,
    }


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
