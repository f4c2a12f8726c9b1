"""agentgo beside v1 at scale: ``tailscope check``, the viewer and lnav, in one run.

    python bench/agentgo_scale.py [--sizes 100MB,1GB] [--formats agentgo,v1] [--smoke]

For each size, one generated agentgo session (``gen_agentgo.py``: requests that
carry their history, tool results, retries, checkpoints; its last committed
message starts with a marker) and the v1 transcript of the same size that
``open_big.py`` opens (its last message is a marker too). For each file:

* **loop**: the yardstick, measured in the same run: a bare ``orjson.loads``
  per line over the file, read as the viewer's loader reads it (4 MB
  ``pread`` blocks split on newlines);
* **check**: ``tailscope check FILE`` as a process: wall time and peak RSS;
* **viewer**: ``tailscope FILE`` in tmux (``open_big.py``'s driver), the
  screen read every 20 ms: seconds until the conversation's end (the marker)
  is on screen, seconds until the load is complete (the header counts every
  message: agentgo; every line: v1), and peak RSS;
* **lnav**: when installed, seconds until it shows the same file's end.

Each time is also printed as a ratio to the loop, each RSS to the file's size.
``--smoke`` runs on small files in seconds and fails (exit 1) on an
impossible figure; a hard limit (``--limit``) ends any run that hangs.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_agentgo  # noqa: E402
import open_big  # noqa: E402

TAILSCOPE = str(Path(sys.executable).with_name("tailscope"))
BLOCK = 1 << 22  # what the viewer's loader reads at a time (follow's batches)


@dataclass
class Subject:
    size_text: str
    fmt: str  # "agentgo" | "v1"
    path: Path
    marker: str  # on screen when the conversation's end is
    complete: str  # in the header when the whole file is loaded

    @property
    def bytes(self) -> int:
        return self.path.stat().st_size


@dataclass
class Row:
    subject: Subject
    loop: float
    check: float | None = None
    check_rss: int = 0
    check_ok: bool = False
    end: float | None = None
    complete: float | None = None
    viewer_rss: int = 0
    lnav_end: float | None = None
    lnav_rss: int = 0


def streamed_loop(path: Path) -> float:
    """A bare ``orjson.loads`` per line, read in 4 MB blocks as the loader reads them."""
    loads = orjson.loads
    t0 = time.perf_counter()
    fd = os.open(path, os.O_RDONLY)
    try:
        offset = 0
        carry = b""
        while True:
            block = os.pread(fd, BLOCK, offset)
            if not block:
                break
            offset += len(block)
            lines = block.split(b"\n")
            if carry:
                lines[0] = carry + lines[0]
            carry = lines.pop()
            for line in lines:
                if line:
                    loads(line)
    finally:
        os.close(fd)
    return time.perf_counter() - t0


def run_check(path: Path, timeout: float) -> tuple[float | None, int, bool]:
    """``tailscope check``: seconds, peak RSS (bytes) and whether it said ok.

    The peak is the check's own: GNU time reports it (a child's ``ru_maxrss``
    counts whatever its parent held when it forked, so this process's own size
    would leak into it); without GNU time, ``wait4`` says it, an upper bound.
    """
    gnu_time = shutil.which("time") or "/usr/bin/time"
    report = Path(f"/tmp/agentgo-scale-{os.getpid()}.time")
    command = [TAILSCOPE, "check", str(path)]
    if os.path.exists(gnu_time):
        command = [gnu_time, "-f", "%M", "-o", str(report), *command]
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, 0, False
    seconds = time.perf_counter() - t0
    peak = 0
    try:
        peak = int(report.read_text().split()[-1]) * 1024
        report.unlink()
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    text = out.decode(errors="replace")
    ok = proc.returncode == 0 and ": ok (" in text
    if not ok:
        print(f"  check failed ({proc.returncode}): {text.strip()[:300]}", file=sys.stderr)
    return seconds, peak, ok


def subjects(data_dir: Path, size_text: str, formats: list[str]) -> list[Subject]:
    out = []
    for fmt in formats:
        if fmt == "agentgo":
            info = gen_agentgo.marked_session(data_dir, size_text)
            out.append(
                Subject(
                    size_text,
                    fmt,
                    data_dir / Path(info["path"]).name,  # cached info may name it relatively
                    info["marker"],
                    f"{info['messages']:,} messages",
                )
            )
        elif fmt == "v1":
            path, marker, lines = open_big.marked_transcript(data_dir, size_text)
            out.append(Subject(size_text, fmt, path, marker, f"{lines:,} lines"))
    return out


def measure(subject: Subject, tools: list[str], timeout: float) -> Row:
    path = subject.path
    streamed_loop(path)  # once to warm the page cache: every tool reads it warm
    row = Row(subject, min(streamed_loop(path) for _ in range(2)))
    if "check" in tools:
        row.check, row.check_rss, row.check_ok = run_check(path, timeout)
    if "tailscope" in tools:
        seen, row.viewer_rss = open_big.watch(
            f"{TAILSCOPE} {path}", [subject.marker, subject.complete], timeout
        )
        row.end, row.complete = seen
    if "lnav" in tools and shutil.which("lnav"):
        seen, row.lnav_rss = open_big.watch(f"lnav {path}", [subject.marker], timeout)
        row.lnav_end = seen[0]
    return row


def secs(value: float | None) -> str:
    return "not seen" if value is None else f"{value:.2f} s"


def ratio(value: float | None, base: float | None) -> str:
    return "—" if value is None or not base else f"{value / base:.1f}×"


def mb(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MB" if n else "—"


def table(rows: list[Row]) -> None:
    columns = (
        "file",
        "format",
        "size",
        "orjson loop",
        "check",
        "÷ loop",
        "check RSS",
        "÷ file",
        "end on screen",
        "lnav end",
        "end ÷ lnav",
        "complete",
        "÷ loop",
        "viewer RSS",
        "÷ file",
    )
    print("| " + " | ".join(columns) + " |")
    print("|---|---|" + "---:|" * (len(columns) - 2))
    for r in rows:
        size = r.subject.bytes
        cells = (
            r.subject.size_text,
            r.subject.fmt,
            mb(size),
            f"{r.loop:.2f} s",
            secs(r.check),
            ratio(r.check, r.loop),
            mb(r.check_rss),
            f"{r.check_rss / size:.0%}" if r.check_rss else "—",
            secs(r.end),
            secs(r.lnav_end) if r.lnav_end is not None or r.lnav_rss else "—",
            ratio(r.end, r.lnav_end),
            secs(r.complete),
            ratio(r.complete, r.loop),
            mb(r.viewer_rss),
            f"{r.viewer_rss / size:.0%}" if r.viewer_rss else "—",
        )
        print("| " + " | ".join(cells) + " |")


def targets(rows: list[Row]) -> None:
    """The issue's targets for agentgo at its biggest size measured."""
    agentgo = [r for r in rows if r.subject.fmt == "agentgo"]
    if not agentgo:
        return
    r = max(agentgo, key=lambda r: r.subject.bytes)
    size = r.subject.bytes
    print(f"\nagentgo targets at {r.subject.size_text}:")
    if r.end is not None and r.lnav_end is not None:
        verdict = "met" if r.end <= r.lnav_end else "NOT met"
        print(f"  end on screen {r.end:.2f} s vs lnav {r.lnav_end:.2f} s: {verdict}")
    if r.viewer_rss:
        verdict = "met" if r.viewer_rss <= 0.35 * size else "NOT met"
        print(f"  viewer peak RSS {r.viewer_rss / size:.0%} of the file (≤ 35%): {verdict}")
    if r.check is not None:
        verdict = "met" if r.check <= 3 * r.loop else "NOT met"
        print(f"  check {r.check / r.loop:.1f}× the loop (≤ 3×): {verdict}")


def sanity(rows: list[Row], timeout: float) -> list[str]:
    """Figures no working build can produce (a smoke run fails on any)."""
    problems = []
    for r in rows:
        name = f"{r.subject.fmt} {r.subject.size_text}"
        size = r.subject.bytes
        if not 0 < r.loop < timeout:
            problems.append(f"{name}: the bare loop took {r.loop} s")
        if not r.check_ok:
            problems.append(f"{name}: tailscope check did not say ok")
        for label, value in (
            ("check", r.check),
            ("end on screen", r.end),
            ("complete", r.complete),
        ):
            if value is None:
                problems.append(f"{name}: {label} not seen within {timeout:.0f} s")
            elif not 0 < value < timeout:
                problems.append(f"{name}: {label} took an impossible {value} s")
        # Both processes read the whole file: at least an interpreter, and (the smoke
        # files being small) more than the file itself; never more than 50× it.
        for label, rss in (("check", r.check_rss), ("viewer", r.viewer_rss)):
            if rss < max(8 << 20, size):
                problems.append(f"{name}: {label} peak RSS {rss} bytes is below the file's size")
            if rss > 50 * size + (400 << 20):
                problems.append(f"{name}: {label} peak RSS {mb(rss)} is absurd")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100MB,1GB")
    parser.add_argument("--formats", default="agentgo,v1")
    parser.add_argument("--tools", default="check,tailscope,lnav")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--timeout", type=float, default=120.0, help="per measurement")
    parser.add_argument("--limit", type=float, default=0, help="hard limit of the whole run (s)")
    parser.add_argument("--smoke", action="store_true", help="2MB files, sanity-checked (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.sizes, args.timeout = "2MB", 30.0
        args.limit = args.limit or 150.0
        args.tools = "check,tailscope"
    if args.limit:
        signal.signal(signal.SIGALRM, _hung)
        signal.alarm(int(args.limit))
    tools = args.tools.split(",")
    if "tailscope" in tools and shutil.which("tmux") is None:
        print("agentgo_scale: tmux is needed for the viewer", file=sys.stderr)
        return 1
    rows = []
    try:
        for size_text in args.sizes.split(","):
            for subject in subjects(args.data_dir, size_text, args.formats.split(",")):
                row = measure(subject, tools, args.timeout)
                rows.append(row)
                print(
                    f"{size_text} {subject.fmt}: loop {row.loop:.2f} s, check {secs(row.check)}"
                    f" ({mb(row.check_rss)}), end {secs(row.end)}, complete"
                    f" {secs(row.complete)} ({mb(row.viewer_rss)}), lnav {secs(row.lnav_end)}",
                    flush=True,
                )
    except Hung:
        print(f"agentgo_scale: over its hard limit of {args.limit:.0f} s", file=sys.stderr)
        return 2
    print()
    table(rows)
    if not args.smoke:
        targets(rows)
    else:
        problems = sanity(rows, args.timeout)
        for problem in problems:
            print(f"IMPOSSIBLE: {problem}", file=sys.stderr)
        return 1 if problems else 0
    return 0


class Hung(Exception):
    """The run passed its hard limit (raised in whatever it was waiting for, so that
    the tmux servers it started are closed on the way out)."""


def _hung(*_: object) -> None:
    raise Hung


if __name__ == "__main__":
    sys.exit(main())
