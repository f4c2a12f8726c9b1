"""How fast a directory of many small transcripts lists: ``scan_dir``, then the browser.

    .venv/bin/python bench/scan_dir.py [--files 5000] [--keep DIR] [--timeout 300] [--smoke]

Writes N small transcripts (both formats, 100 directories, a few crashed and
damaged ones, old mtimes), then reports, in one run:

* the baselines: an ``os.scandir`` walk that reads each file's first line
  (what any lister must do), and the same walk reading every file whole and
  ``orjson.loads``-ing every line (the reading ``scan_dir`` does, with none
  of its bookkeeping);
* ``scan_dir`` over all of them;
* the browser headless (``App.run_test``), timed from launch (before the app
  is built), to the first rows and to the whole table;
* with tmux, ``tailscope DIR`` as a user starts it, from the process launch
  until the totals line counts every file and the scan's progress line is
  gone (interpreter start-up included).

Nothing in the directory is written by any of them. Every wait has a deadline
(``--timeout``) that fails the run, and so does a figure that cannot be (no
rows, fewer files listed than written, a zero time). ``--smoke``: 200 files.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# This checkout's build, after a PYTHONPATH's: ``PYTHONPATH=/tmp/base python -P`` names
# the build measured (put first, this checkout's ran whatever PYTHONPATH said).
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
_AT = max((i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _GIVEN), default=0)
sys.path.insert(_AT, str(HERE.parent))

from sanity import Deadline, Figures, fail  # noqa: E402

from session_core.scan import scan_dir  # noqa: E402

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


def walk(root: Path, whole: bool) -> tuple[float, int]:
    """The baseline: every ``*.jsonl`` below ``root`` by ``os.scandir``, its first line
    read (or, ``whole``, all of it read and every line parsed). Seconds, files."""
    t0 = time.perf_counter()
    files = 0
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(".jsonl"):
                    files += 1
                    with open(entry.path, "rb") as fh:
                        if not whole:
                            fh.readline()
                            continue
                        for line in fh.read().splitlines():
                            with contextlib.suppress(orjson.JSONDecodeError):
                                orjson.loads(line)
    return time.perf_counter() - t0, files


async def browse(root: Path, timeout: float) -> tuple[float, float, int, float]:
    """Headless, from launch (before the app is built and its modules imported): to the
    first rows, to all, the rows, and when the screen was mounted."""
    start = time.perf_counter()
    from viewer.app import TailscopeApp
    from viewer.screens.browser import BrowserScreen

    app = TailscopeApp(root)
    first = whole = 0.0
    async with app.run_test(size=(120, 40)) as pilot:
        mounted = time.perf_counter() - start
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        deadline = Deadline(timeout, f"the browser's scan of {root}")
        while not screen.scanned_at:
            deadline.check()
            if not first and screen.table.row_count:
                first = time.perf_counter() - start
            await pilot.pause(0.005)
        whole = time.perf_counter() - start
        rows = screen.table.row_count
        if not first:
            first = whole  # the rows came with the last batch
    return first, whole, rows, mounted


def launched(root: Path, files: int, timeout: float) -> float | None:
    """``tailscope ROOT`` in tmux: seconds from launch until every file is counted and the
    scan's progress line is gone (the scan done)."""
    import shutil

    if shutil.which("tmux") is None:
        print("tailscope DIR in tmux: not measured (no tmux)")
        return None
    from open_big import TAILSCOPE, Tmux

    term = Tmux(f"{TAILSCOPE} {root}")
    wanted = f"{files:,} files"
    try:
        while True:
            screen = term.screen()
            took = time.perf_counter() - term.started
            if wanted in screen and "scanning" not in screen:
                return took
            if took > timeout:
                fail(f"tailscope {root}: the scan of {files:,} files not done after {timeout:g} s")
            time.sleep(0.02)
    finally:
        term.close()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}×" if b > 0 else "—"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--keep", help="generate into (or reuse) this directory")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per wait")
    parser.add_argument("--no-tmux", action="store_true", help="skip the tmux launch")
    parser.add_argument("--smoke", action="store_true", help="200 files (for CI)")
    args = parser.parse_args()
    if args.smoke:
        args.files = 200
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tailscope-scan-"))
    figures = Figures()
    try:
        if not any(root.rglob("*.jsonl")):
            began = time.perf_counter()
            generate(root, args.files)
            print(f"generated {args.files:,} transcripts in {time.perf_counter() - began:.1f}s")
        walk(root, whole=True)  # the page cache warm for every reader alike
        first_line, files = walk(root, whole=False)
        parsed, _ = walk(root, whole=True)
        print(
            f"baseline: os.scandir walk + first line of each: {files:,} files in {ms(first_line)}"
        )
        print(f"baseline: os.scandir walk + every line parsed: {files:,} files in {ms(parsed)}")
        began = time.perf_counter()
        summaries = list(scan_dir(root))
        took = time.perf_counter() - began
        statuses: dict[str, int] = {}
        for summary in summaries:
            statuses[summary.status] = statuses.get(summary.status, 0) + 1
        print(
            f"scan_dir: {len(summaries):,} files in {ms(took)} ({statuses}); "
            f"{ratio(took, first_line)} the first-line walk, {ratio(took, parsed)} the parsing walk"
        )
        first, whole, rows, mounted = asyncio.run(browse(root, args.timeout))
        print(
            f"browser (headless, from launch): first rows after {ms(first)}, "
            f"{rows:,} rows after {ms(whole)} (the screen mounted after {ms(mounted)})"
        )
        real = None if args.no_tmux else launched(root, files, args.timeout)
        if real is not None:
            print(f"tailscope DIR (tmux, from process launch): all {files:,} counted in {ms(real)}")
        figures.positive("files found by the walk", files)
        figures.true(
            f"scan_dir listed {len(summaries):,} of {files:,} files", len(summaries) == files
        )
        figures.true(f"the browser shows {rows:,} rows of {files:,} files", rows == files)
        for what, value in (
            ("the first-line walk", first_line),
            ("the parsing walk", parsed),
            ("scan_dir", took),
            ("the browser's first rows", first),
            ("the browser's whole table", whole),
        ):
            figures.positive(what, value)
        figures.true(
            f"first rows ({first:.2f}s) after the whole table ({whole:.2f}s)", first <= whole
        )
        if real is not None:
            figures.positive("tailscope DIR in tmux", real)
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(root)
    return figures.verdict()


if __name__ == "__main__":
    sys.exit(main())
