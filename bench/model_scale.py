"""Claude Code and Codex files at scale, beside v1's file of the same size, in one run.

    python bench/model_scale.py [--sizes 100MB,1GB] [--growth 10MB] [--formats ...] [--smoke]

For each format (transcript-v1, claude-code, codex) and size, on realistic generated
files (``gen_transcript.py``, ``gen_claude_code.py``, ``gen_codex.py``) whose last
message carries a marker, every figure beside a bare ``orjson.loads`` loop over the
same file in the same run (read line by line, as the loaders read):

* ``tailscope replay`` and ``tailscope check``: wall time (÷ the loop) and peak RSS
  (÷ the file), each a process of its own (its VmHWM, sampled);
* the viewer in tmux (``open_big``'s machinery): from launch until the end (the
  marker) is on screen, until the full load is done (the header counts every line),
  and its peak RSS;
* lnav's time to show the same file's end, where lnav is installed;
* growth: replay's and the viewer's time per MB from the ``--growth`` size to the
  biggest, beside the loop's own (1.0 = linear).

``TAILSCOPE=/path/to/tailscope`` measures another build (an older commit) the same way.

``--smoke`` runs in seconds on small files (a hard time limit) and fails on
impossible figures (a marker never seen, a time ≤ 0, an RSS below 1 MB, a replay
that is not JSON).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_claude_code  # noqa: E402
import gen_codex  # noqa: E402
import open_big  # noqa: E402

FORMATS = ("transcript-v1", "claude-code", "codex")
SHORT = {"transcript-v1": "v1", "claude-code": "claude-code", "codex": "codex"}


@dataclass
class Row:
    fmt: str
    size_text: str
    path: Path
    size: int
    lines: int
    loop: float = 0.0
    replay: tuple[float, int] | None = None
    check: tuple[float, int] | None = None
    end: float | None = None
    complete: float | None = None
    peak: int = 0
    lnav: float | None = None
    lnav_peak: int = 0
    problems: list[str] = field(default_factory=list)


def bench_file(data_dir: Path, fmt: str, size_text: str) -> tuple[Path, str, int]:
    """The generated file of ``fmt`` at that size (cached), its marker and line count."""
    if fmt == "transcript-v1":
        return open_big.marked_transcript(data_dir, size_text)
    size = open_big.parse_size(size_text)
    gen = gen_claude_code if fmt == "claude-code" else gen_codex
    path = data_dir / f"scale-{SHORT[fmt]}-{size_text}-g{gen.GEN_VERSION}.jsonl"
    marker_path = path.with_suffix(".marker")
    if not (path.exists() and marker_path.exists()):
        data_dir.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        info = gen.generate(path, size, seed=7)
        marker_path.write_text(info["marker"])
        print(f"  generated {path.name} in {time.perf_counter() - t0:.1f} s", flush=True)
    with open(path, "rb") as fh:
        lines = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 24), b""))
    return path, marker_path.read_text(), lines


def _hwm(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_measured(argv: list[str], timeout: float) -> tuple[float, int, bytes]:
    """Wall seconds, peak RSS (bytes) and stdout of one process.

    The peak is the process's own VmHWM, sampled every 10 ms until it exits (``wait4``'s
    ``ru_maxrss`` would count this bench's own size: Linux carries it over the fork).
    """
    import threading

    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak = [0]

    def sample() -> None:
        while proc.returncode is None:
            peak[0] = max(peak[0], _hwm(proc.pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    chunks: list[bytes] = []
    assert proc.stdout is not None
    deadline = t0 + timeout
    while True:
        chunk = proc.stdout.read(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        if time.perf_counter() > deadline:
            proc.kill()
            break
    peak[0] = max(peak[0], _hwm(proc.pid))  # before the zombie is reaped: still there
    proc.wait()
    wall = time.perf_counter() - t0
    sampler.join()
    return wall, peak[0], b"".join(chunks)


def mb(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MB"


def measure(row: Row, marker: str, args: argparse.Namespace, tools: set[str]) -> None:
    row.loop = open_big.bare_loop(row.path)
    tailscope = os.environ.get("TAILSCOPE") or open_big.TAILSCOPE  # another build to compare
    wall, rss, out = run_measured([tailscope, "replay", str(row.path)], args.timeout)
    row.replay = (wall, rss)
    try:
        replayed = orjson.loads(out)
        if not replayed.get("messages"):
            row.problems.append("replay gave no messages")
        elif marker not in orjson.dumps(replayed["messages"][-1]).decode():
            row.problems.append("replay's last message is not the marker")
    except orjson.JSONDecodeError:
        row.problems.append("replay's output is not JSON")
    wall, rss, out = run_measured([tailscope, "check", str(row.path)], args.timeout)
    row.check = (wall, rss)
    if b": ok" not in out:
        row.problems.append(f"check did not say ok: {out[:200]!r}")
    if "viewer" in tools:
        seen, peak = open_big.watch(
            f"{tailscope} {row.path}", [marker, f"{row.lines:,} lines"], args.timeout
        )
        row.end, row.complete = seen
        row.peak = peak
    if "lnav" in tools and shutil.which("lnav"):
        seen, peak = open_big.watch(f"lnav {row.path}", [lnav_needle(row.path, marker)], 60.0)
        row.lnav, row.lnav_peak = seen[0], peak


def lnav_needle(path: Path, marker: str) -> str:
    """What lnav shows of the last line: the marker, when it is within the screen's width
    (lnav shows lines as they are, cut), else the start of the line (a Claude Code line
    begins with its unique ``parentUuid``)."""
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - (1 << 16)))
        last = fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1].decode()
    if marker in last[:140]:
        return marker
    return last[15:51]


def impossible(row: Row) -> list[str]:
    out = list(row.problems)
    for name, value in (("loop", row.loop), ("end on screen", row.end), ("complete", row.complete)):
        if value is None:
            out.append(f"{name}: not seen")
        elif value <= 0:
            out.append(f"{name}: {value} s")
    for name, pair in (("replay", row.replay), ("check", row.check)):
        if pair is None or pair[0] <= 0 or pair[1] < (1 << 20):
            out.append(f"{name}: impossible figure {pair}")
    if row.peak < (1 << 20):
        out.append(f"viewer peak RSS {row.peak}")
    return out


def secs(value: float | None) -> str:
    return f"{value:.2f} s" if value is not None else "not seen"


def table(rows: list[Row]) -> None:
    cols = (
        "format",
        "file",
        "lines",
        "orjson loop",
        "replay",
        "÷ loop",
        "replay RSS",
        "check",
        "÷ loop",
        "check RSS",
        "end on screen",
        "load complete",
        "÷ loop",
        "viewer peak RSS",
        "lnav end",
        "lnav RSS",
    )
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * 2 + "---:|" * (len(cols) - 2))
    for r in rows:
        rp = r.replay or (0.0, 0)
        ck = r.check or (0.0, 0)
        cells = [
            SHORT[r.fmt],
            r.size_text,
            f"{r.lines:,}",
            f"{r.loop:.2f} s",
            f"{rp[0]:.2f} s",
            f"{rp[0] / r.loop:.2f}×",
            f"{mb(rp[1])} ({rp[1] / r.size:.0%})",
            f"{ck[0]:.2f} s",
            f"{ck[0] / r.loop:.2f}×",
            f"{mb(ck[1])} ({ck[1] / r.size:.0%})",
            secs(r.end),
            secs(r.complete),
            f"{r.complete / r.loop:.2f}×" if r.complete else "—",
            f"{mb(r.peak)} ({r.peak / r.size:.0%})" if r.peak else "—",
            secs(r.lnav) if r.lnav_peak else "—",
            f"{mb(r.lnav_peak)} ({r.lnav_peak / r.size:.0%})" if r.lnav_peak else "—",
        ]
        print("| " + " | ".join(cells) + " |")


def growth(rows: list[Row], small: str) -> None:
    print("\ngrowth, time per MB from the smallest file to the biggest (1.00 = linear):")
    for fmt in FORMATS:
        mine = sorted((r for r in rows if r.fmt == fmt), key=lambda r: r.size)
        if len(mine) < 2 or mine[0].size_text != small:
            continue
        a, b = mine[0], mine[-1]

        def per_mb(value: float | None, row: Row) -> float | None:
            return None if not value else value / row.size

        parts = []
        for name, va, vb in (
            ("loop", a.loop, b.loop),
            ("replay", a.replay[0] if a.replay else None, b.replay[0] if b.replay else None),
            ("check", a.check[0] if a.check else None, b.check[0] if b.check else None),
            ("viewer load", a.complete, b.complete),
        ):
            pa, pb = per_mb(va, a), per_mb(vb, b)
            parts.append(f"{name} {pb / pa:.2f}" if pa and pb else f"{name} —")
        print(f"  {SHORT[fmt]} {a.size_text} → {b.size_text}: " + ", ".join(parts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100MB,1GB")
    parser.add_argument("--growth", default="10MB", help="the small size growth is taken from")
    parser.add_argument("--formats", default=",".join(FORMATS))
    open_big.viewer_options(parser, "viewer,lnav", 240.0, "small files, a time limit, checks")
    args = parser.parse_args(argv)
    if not open_big.have_tmux("model_scale"):
        return 1
    if args.smoke:
        args.sizes, args.growth, args.timeout = "2MB", "1MB", 30.0
        signal.signal(signal.SIGALRM, lambda *_: (print("smoke: over time"), os._exit(2)))
        signal.alarm(150)
    sizes = [s for s in [args.growth, *args.sizes.split(",")] if s]
    sizes = list(dict.fromkeys(sizes))
    tools = set(args.tools.split(",")) - ({"lnav"} if args.smoke else set())
    rows: list[Row] = []
    for size_text in sizes:
        for fmt in args.formats.split(","):
            path, marker, lines = bench_file(args.data_dir, fmt, size_text)
            row = Row(fmt, size_text, path, path.stat().st_size, lines)
            measure(row, marker, args, tools)
            rows.append(row)
            rp, ck = row.replay or (0, 0), row.check or (0, 0)
            print(
                f"{SHORT[fmt]} {size_text}: loop {row.loop:.2f} s, replay {rp[0]:.2f} s "
                f"{mb(rp[1])}, check {ck[0]:.2f} s {mb(ck[1])}, end {secs(row.end)}, "
                f"complete {secs(row.complete)}, peak {mb(row.peak)}, lnav {secs(row.lnav)}",
                flush=True,
            )
    print()
    table(rows)
    growth(rows, sizes[0])
    bad = [(r, impossible(r)) for r in rows]
    bad = [(r, p) for r, p in bad if p]
    for r, problems in bad:
        print(f"IMPOSSIBLE {SHORT[r.fmt]} {r.size_text}: {'; '.join(problems)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
