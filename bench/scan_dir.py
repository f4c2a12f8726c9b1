"""How fast a directory of many small transcripts lists: ``scan_dir``, then the browser headless.

    .venv/bin/python bench/scan_dir.py [--files 5000] [--keep DIR]

Writes N small transcripts (both formats, 100 directories, a few crashed and
damaged ones, old mtimes), then reports the time ``scan_dir`` takes over all
of them, and, in the app run headless, the time to the first rows and to the
whole table. Nothing in the directory is written by either.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from session_core.scan import scan_dir

OLD = 1_786_000_000
OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE


def v1_lines(n: int) -> bytes:
    def env(kind: str, payload: dict[str, object], i: int) -> bytes:
        ts = f"2026-08-09T13:{i // 60 % 60:02d}:{i % 60:02d}.000000Z"
        return orjson.dumps(
            {"id": str(uuid.uuid4()), "payload": payload, "ts": ts, "type": kind, "v": 1},
            option=OPTS,
        )

    out = [env("session-meta", {"agent": f"agent-{n % 7}", "model": "kimi-k2"}, 0)]
    for i in range(1, 12):
        role = "user" if i % 2 else "assistant"
        extra = {"usage": {"total-tokens": 100 + i, "cost": 0.0001 * i}} if role != "user" else {}
        out.append(env("message", {"role": role, "content": f"message {i} " * 20, **extra}, i))
    if n % 50 == 7:  # a crashed one: a dispatch never settled
        out.append(env("tool-dispatched", {"call-id": "c1", "tool": "shell"}, 13))
    data = b"".join(out)
    if n % 100 == 13:  # a damaged one: a malformed middle line
        lines = data.splitlines(keepends=True)
        lines[3] = b"{broken\n"
        data = b"".join(lines)
    return data


def agentgo_lines(n: int) -> bytes:
    sid, run = str(uuid.uuid4()), str(uuid.uuid4())
    records: list[dict[str, object]] = [{"data": {"version": 1}, "type": "session_start"}]
    records.append({"data": {}, "run_id": run, "type": "run_start"})
    model = {"id": "turn-1", "kind": "model", "attempt": 1}
    records.append(
        {
            "data": {"messages": [], "tools": [], "config": {"model": "gpt-5-mini"}},
            "execution": model,
            "run_id": run,
            "type": "model_request",
        }
    )
    records.append(
        {
            "data": {"usage": {"input_tokens": 900, "output_tokens": 40}},
            "execution": model,
            "run_id": run,
            "type": "model_exec_end",
        }
    )
    if n % 50 != 9:  # a crashed one: no run_close
        records.append({"data": {}, "run_id": run, "type": "run_close"})
    out = []
    for seq, record in enumerate(records):
        record.update(seq=seq, session_id=sid, time="2026-08-09T14:00:00.000000000Z")
        out.append(orjson.dumps(record, option=OPTS))
    return b"".join(out)


def generate(root: Path, files: int) -> None:
    for n in range(files):
        directory = root / f"project-{n % 100:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"run-{n:05d}.jsonl"
        path.write_bytes(agentgo_lines(n) if n % 3 == 0 else v1_lines(n))
        os.utime(path, (OLD, OLD))


async def browse(root: Path) -> tuple[float, float, int]:
    from viewer.app import TailscopeApp
    from viewer.screens.browser import BrowserScreen

    app = TailscopeApp(root)
    first = whole = 0.0
    async with app.run_test(size=(120, 40)) as pilot:
        start = time.perf_counter()
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        while not screen.scanned_at:
            if not first and screen.table.row_count:
                first = time.perf_counter() - start
            await pilot.pause(0.005)
        whole = time.perf_counter() - start
        rows = screen.table.row_count
    return first, whole, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--keep", help="generate into (or reuse) this directory")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tailscope-scan-"))
    if not any(root.rglob("*.jsonl")):
        began = time.perf_counter()
        generate(root, args.files)
        print(f"generated {args.files:,} transcripts in {time.perf_counter() - began:.1f}s")
    began = time.perf_counter()
    summaries = list(scan_dir(root))
    took = time.perf_counter() - began
    statuses: dict[str, int] = {}
    for summary in summaries:
        statuses[summary.status] = statuses.get(summary.status, 0) + 1
    print(f"scan_dir: {len(summaries):,} files in {took:.2f}s ({statuses})")
    first, whole, rows = asyncio.run(browse(root))
    print(f"browser (headless): first rows after {first:.2f}s, {rows:,} rows after {whole:.2f}s")
    if not args.keep:
        import shutil

        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
