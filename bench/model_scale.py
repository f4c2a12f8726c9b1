"""Every format at scale, every figure of issue 15 beside its target, lnav beside it: one run.

    python bench/model_scale.py [--sizes 100MB,1GB] [--growth 10MB] [--formats ...]
                                [--follow 100MB] [--smoke]

For each format (transcript-v1, claude-code, codex, agentgo-v1) and size, on realistic
generated files (``gen_transcript.py``, ``gen_claude_code.py``, ``gen_codex.py``,
``gen_agentgo.py``) whose last message carries a marker, every figure beside a bare
``orjson.loads`` loop over the same file in the same run (``open_big.warm_loop``: 4 MB
blocks split into lines, as the loaders read them, the best of two after a warming read):

* **open**: the library's read-only replay, ``open_transcript(path)``, in a process of
  its own: its own seconds (start-up and imports left out) and peak RSS; for v1 also
  ``Session.load`` (the writer's replay), the same way;
* ``tailscope replay`` and ``tailscope check``: wall time and peak RSS, each a process of
  its own (its VmHWM, sampled);
* the viewer in tmux (``open_big``'s machinery): from launch until the end (the marker)
  is on screen, until the full load is done (the header counts every line), peak RSS;
* lnav's time to show the same file's end, where lnav is installed;
* growth: time per MB from the ``--growth`` size to the biggest, beside the loop's own
  (1.00 = linear);
* follow: a writer appends the ``--follow`` file's last lines at 10,000 lines/s to a copy
  of its start that the viewer follows (``follow_model.py``, headless): each line's lag
  from its write to the screen, p99 over the first and the last third.

Times are ratios to the loop, RSS to the file's size; last comes issue 15's table of
targets for the biggest size, each figure marked met or not.

``TAILSCOPE=/path/to/tailscope`` measures another build's CLI and viewer the same way.

``--smoke`` runs in seconds on small files (a hard time limit) and fails on impossible
figures (a marker never seen, a time ≤ 0, an RSS below 1 MB, a replay that is not JSON).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_agentgo  # noqa: E402
import gen_claude_code  # noqa: E402
import gen_codex  # noqa: E402
import open_big  # noqa: E402
from proc_status import rss_bytes  # noqa: E402

FOLLOW_RATE = 10_000  # lines/s, issue 15's follow figure


@dataclass
class Row:
    fmt: str
    size_text: str
    path: Path
    size: int
    lines: int
    loop: float = 0.0
    open: tuple[float, int] | None = None  # open_transcript: its own seconds, peak RSS
    load: tuple[float, int] | None = None  # v1's Session.load
    replay: tuple[float, int] | None = None
    check: tuple[float, int] | None = None
    end: float | None = None
    complete: float | None = None
    peak: int = 0
    lnav: float | None = None
    lnav_peak: int = 0
    problems: list[str] = field(default_factory=list)


Made = tuple[Path, str, int]  # a generated file, its marker, its line count


@dataclass(frozen=True)
class Generator:
    """How the bench makes a format's realistic file of a size (cached in a folder), and
    the short name its files and tables go by."""

    short: str
    make: Callable[[Path, str], Made]


def _v1(data_dir: Path, size_text: str) -> Made:
    return open_big.marked_transcript(data_dir, size_text)


def _agentgo(data_dir: Path, size_text: str) -> Made:
    info = gen_agentgo.marked_session(data_dir, size_text)
    path = data_dir / Path(info["path"]).name  # cached info may name it relatively
    return path, info["marker"], open_big.count_lines(path)


def _generated(gen: Any, short: str) -> Callable[[Path, str], Made]:
    """A generator module's ``generate(path, size, seed)``, its file cached by its version."""

    def make(data_dir: Path, size_text: str) -> Made:
        size = open_big.parse_size(size_text)
        path = data_dir / f"scale-{short}-{size_text}-g{gen.GEN_VERSION}.jsonl"
        marker_path = path.with_suffix(".marker")
        if not (path.exists() and marker_path.exists()):
            data_dir.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            info = gen.generate(path, size, seed=7)
            marker_path.write_text(info["marker"])
            print(f"  generated {path.name} in {time.perf_counter() - t0:.1f} s", flush=True)
        return path, marker_path.read_text(), open_big.count_lines(path)

    return make


# Every format the bench can make a file of, by its registered name: the one table.
GENERATORS: dict[str, Generator] = {
    "transcript-v1": Generator("v1", _v1),
    "claude-code": Generator("claude-code", _generated(gen_claude_code, "claude-code")),
    "codex": Generator("codex", _generated(gen_codex, "codex")),
    "agentgo-v1": Generator("agentgo", _agentgo),
}
FORMATS = tuple(GENERATORS)
SHORT = {fmt: made.short for fmt, made in GENERATORS.items()}


def generator(fmt: str) -> Generator:
    """The bench's generator of ``fmt``; a format it has none for is said so."""
    found = GENERATORS.get(fmt)
    if found is None:
        known = ", ".join(GENERATORS)
        raise LookupError(f"the bench has no generator for {fmt!r} (GENERATORS: {known})")
    return found


def bench_file(data_dir: Path, fmt: str, size_text: str) -> Made:
    """The generated file of ``fmt`` at that size (cached), its marker and line count."""
    return generator(fmt).make(data_dir, size_text)


def _hwm(pid: int) -> int:
    return rss_bytes(pid) or 0


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


# Run in a process of its own, so that its peak RSS is its own: prints its own seconds
# (start-up and imports left out) and how many messages the replay holds.
OPEN_CHILD = """
import sys, time
from session_core import Session, open_transcript
path, kind = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if kind == "load":
    s = Session.load(path)
    n = len(s.messages())
else:
    n = len(open_transcript(path).messages)
print(time.perf_counter() - t0, n)
"""


def run_open(path: Path, kind: str, timeout: float) -> tuple[float, int] | None:
    """``open_transcript`` (or v1's ``Session.load``, ``kind="load"``) in a child process:
    its own seconds and peak RSS, or None where it failed or held no message."""
    _wall, rss, out = run_measured([sys.executable, "-c", OPEN_CHILD, str(path), kind], timeout)
    try:
        seconds, messages = out.split()
    except ValueError:
        return None
    return (float(seconds), rss) if int(messages) > 0 else None


def measure(row: Row, marker: str, args: argparse.Namespace, tools: set[str]) -> None:
    row.loop = open_big.warm_loop(row.path)
    row.open = run_open(row.path, "open", args.timeout)
    if row.open is None:
        row.problems.append("open_transcript failed or held no message")
    if row.fmt == "transcript-v1":
        row.load = run_open(row.path, "load", args.timeout)
        if row.load is None:
            row.problems.append("Session.load failed or held no message")
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
    pairs = [("open", row.open), ("replay", row.replay), ("check", row.check)]
    if row.fmt == "transcript-v1":
        pairs.append(("Session.load", row.load))
    for name, pair in pairs:
        if pair is None or pair[0] <= 0 or pair[1] < (1 << 20):
            out.append(f"{name}: impossible figure {pair}")
    if row.peak < (1 << 20):
        out.append(f"viewer peak RSS {row.peak}")
    return out


def secs(value: float | None) -> str:
    return f"{value:.2f} s" if value is not None else "not seen"


def timed(pair: tuple[float, int] | None, row: Row) -> str:
    """A process's figure: its seconds ÷ the loop, and its peak RSS ÷ the file."""
    if pair is None:
        return "—"
    return f"{pair[0]:.2f} s, {pair[0] / row.loop:.2f}× ({mb(pair[1])}, {pair[1] / row.size:.0%})"


def table(rows: list[Row]) -> None:
    cols = (
        "format",
        "file",
        "lines",
        "orjson loop",
        "open_transcript",
        "Session.load",
        "tailscope replay",
        "tailscope check",
        "end on screen",
        "lnav end",
        "load complete",
        "viewer peak RSS",
    )
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * 2 + "---:|" * (len(cols) - 2))
    for r in rows:
        cells = [
            SHORT[r.fmt],
            r.size_text,
            f"{r.lines:,}",
            f"{r.loop:.2f} s",
            timed(r.open, r),
            timed(r.load, r),
            timed(r.replay, r),
            timed(r.check, r),
            secs(r.end),
            f"{secs(r.lnav)} ({mb(r.lnav_peak)})" if r.lnav_peak else "—",
            f"{secs(r.complete)}, {r.complete / r.loop:.2f}×" if r.complete else "—",
            f"{mb(r.peak)} ({r.peak / r.size:.0%})" if r.peak else "—",
        ]
        print("| " + " | ".join(cells) + " |")


def per_mb_growth(a: Row, b: Row) -> dict[str, float | None]:
    """Time per MB at ``b`` ÷ at ``a`` for each timed figure (1.00 = linear)."""

    def first(pair: tuple[float, int] | None) -> float | None:
        return pair[0] if pair else None

    out: dict[str, float | None] = {}
    for name, va, vb in (
        ("loop", a.loop, b.loop),
        ("open", first(a.open), first(b.open)),
        ("replay", first(a.replay), first(b.replay)),
        ("check", first(a.check), first(b.check)),
        ("viewer load", a.complete, b.complete),
    ):
        out[name] = (vb / b.size) / (va / a.size) if va and vb else None
    return out


def growth(rows: list[Row], small: str) -> dict[str, dict[str, float | None]]:
    print("\ngrowth, time per MB from the smallest file to the biggest (1.00 = linear):")
    found: dict[str, dict[str, float | None]] = {}
    for fmt in FORMATS:
        mine = sorted((r for r in rows if r.fmt == fmt), key=lambda r: r.size)
        if len(mine) < 2 or mine[0].size_text != small:
            continue
        a, b = mine[0], mine[-1]
        found[fmt] = ratios = per_mb_growth(a, b)
        parts = [f"{k} {v:.2f}" if v else f"{k} —" for k, v in ratios.items()]
        print(f"  {SHORT[fmt]} {a.size_text} → {b.size_text}: " + ", ".join(parts))
    return found


def follow_runs(formats: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """``follow_model``'s run at 10,000 lines/s for each format (headless, in this
    process: the viewer's screen is hooked to note each draw)."""
    import asyncio
    import tempfile

    import follow_model

    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="model-scale-follow-") as tmp:
        for fmt in formats:
            source, _marker, lines = bench_file(args.data_dir, fmt, args.follow)
            run = asyncio.run(
                follow_model.follow_once(
                    source, lines, fmt, FOLLOW_RATE, args.follow_seconds, Path(tmp)
                )
            )
            runs[fmt] = run
            print(
                f"{SHORT[fmt]} follow at {FOLLOW_RATE:,} lines/s: {run.written:,} lines, "
                f"p50 {run.pct(run.lags_ms, 0.5):.1f} ms, p99 {run.pct(run.lags_ms, 0.99):.1f} "
                f"ms, lost {run.missing}",
                flush=True,
            )
            if run.missing or not run.written:
                raise SystemExit(f"{fmt}: follow lost {run.missing} of {run.written} lines")
    return runs


def follow_bounded(run: Any) -> tuple[str, bool]:
    """The follow figure: p99 lag over the whole run, and the median over its first and
    its last third. Bounded when the last third's median is within twice the first
    third's (and 50 ms): a lag that grows with the run moves its median, where one stall
    of the machine (a 90 ms stall lags the 900 lines written meanwhile) moves a third's
    p99 alone."""
    third = max(1, len(run.lags_ms) // 3)
    first = run.pct(run.lags_ms[:third], 0.5)
    last = run.pct(run.lags_ms[-third:], 0.5)
    text = (
        f"p99 {run.pct(run.lags_ms, 0.99):.0f} ms (median: first third {first:.0f}, "
        f"last {last:.0f})"
    )
    return text, last <= max(2 * first, first + 50)


def targets(
    rows: list[Row],
    grown: dict[str, dict[str, float | None]],
    follows: dict[str, Any],
) -> None:
    """Issue 15's targets at the biggest size measured: each figure, met or not."""
    biggest = max(open_big.parse_size(r.size_text) for r in rows)
    big = {r.fmt: r for r in rows if open_big.parse_size(r.size_text) == biggest}
    fmts = [f for f in FORMATS if f in big]
    print(f"\nissue 15's targets at {big[fmts[0]].size_text} (each ratio to its own loop):")
    print("| figure | target | " + " | ".join(SHORT[f] for f in fmts) + " |")
    print("|---|---|" + "---:|" * len(fmts))

    def mark(text: str, ok: bool | None) -> str:
        return text if ok is None else f"{text} {'met' if ok else 'NOT met'}"

    def ratio_row(name: str, target: str, limit: float | None, pick: Any) -> None:
        cells = []
        for f in fmts:
            value = pick(big[f])
            ok = None if value is None or limit is None else value <= limit
            cells.append("—" if value is None else mark(f"{value:.2f}×", ok))
        print(f"| {name} | {target} | " + " | ".join(cells) + " |")

    def share_row(name: str, pick: Any) -> None:
        cells = []
        for f in fmts:
            value = pick(big[f])
            cells.append(
                "—"
                if not value
                else mark(f"{value / big[f].size:.0%}", value <= 0.15 * big[f].size)
            )
        print(f"| {name} | ≤ 15% of the file | " + " | ".join(cells) + " |")

    ratio_row(
        "read-only replay (`open_transcript`)",
        "≤ 1.0×",
        1.0,
        lambda r: r.open[0] / r.loop if r.open else None,
    )
    ratio_row("v1 `Session.load`", "≤ 1.0×", 1.0, lambda r: r.load[0] / r.loop if r.load else None)
    ratio_row(
        "`tailscope replay` (JSON written)",
        "—",
        None,
        lambda r: r.replay[0] / r.loop if r.replay else None,
    )
    ratio_row(
        "viewer, load complete",
        "≤ 1.5×",
        1.5,
        lambda r: r.complete / r.loop if r.complete else None,
    )
    cells = []
    for f in fmts:
        r = big[f]
        if r.end is None:
            cells.append("—")
            continue
        beside = f" (lnav {r.lnav:.2f} s)" if r.lnav is not None else ""
        cells.append(mark(f"{r.end:.2f} s{beside}", r.end < 0.5))
    print("| viewer, the end on screen | < 0.5 s | " + " | ".join(cells) + " |")
    share_row("viewer, peak RSS", lambda r: r.peak)
    share_row("`check` RSS", lambda r: r.check[1] if r.check else None)
    cells = []
    for f in fmts:
        g = grown.get(f)
        worst = max((v for k, v in g.items() if k != "loop" and v), default=None) if g else None
        cells.append("—" if worst is None else mark(f"worst {worst:.2f}", worst <= 1.25))
    print(
        "| growth, time per MB, smallest file → biggest | linear (≤ 1.25) | "
        + " | ".join(cells)
        + " |"
    )
    cells = []
    for f in fmts:
        if f not in follows:
            cells.append("—")
            continue
        text, ok = follow_bounded(follows[f])
        cells.append(mark(text, ok))
    print(f"| follow at {FOLLOW_RATE:,} lines/s | bounded lag | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100MB,1GB")
    parser.add_argument("--growth", default="10MB", help="the small size growth is taken from")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--follow", default="100MB", help="the followed file's size ('' : none)")
    parser.add_argument("--follow-seconds", type=float, default=3.0)
    open_big.viewer_options(parser, "viewer,lnav", 240.0, "small files, a time limit, checks")
    args = parser.parse_args(argv)
    if not open_big.have_tmux("model_scale"):
        return 1
    open_big.as_installed()
    if args.smoke:
        args.sizes, args.growth, args.timeout = "2MB", "1MB", 30.0
        args.follow, args.follow_seconds = "2MB", 0.5
        signal.signal(signal.SIGALRM, lambda *_: (print("smoke: over time"), os._exit(2)))
        signal.alarm(240)
    sizes = [s for s in [args.growth, *args.sizes.split(",")] if s]
    sizes = list(dict.fromkeys(sizes))
    formats = [f for f in args.formats.split(",") if f]
    tools = set(args.tools.split(",")) - ({"lnav"} if args.smoke else set())
    rows: list[Row] = []
    for size_text in sizes:
        for fmt in formats:
            path, marker, lines = bench_file(args.data_dir, fmt, size_text)
            row = Row(fmt, size_text, path, path.stat().st_size, lines)
            measure(row, marker, args, tools)
            rows.append(row)
            op, rp, ck = row.open or (0, 0), row.replay or (0, 0), row.check or (0, 0)
            print(
                f"{SHORT[fmt]} {size_text}: loop {row.loop:.2f} s, open {op[0]:.2f} s "
                f"{mb(op[1])}, replay {rp[0]:.2f} s {mb(rp[1])}, check {ck[0]:.2f} s "
                f"{mb(ck[1])}, end {secs(row.end)}, complete {secs(row.complete)}, "
                f"peak {mb(row.peak)}, lnav {secs(row.lnav)}",
                flush=True,
            )
    follows = follow_runs(formats, args) if args.follow else {}
    print()
    table(rows)
    grown = growth(rows, sizes[0])
    targets(rows, grown, follows)
    bad = [(r, impossible(r)) for r in rows]
    bad = [(r, p) for r, p in bad if p]
    for r, problems in bad:
        print(f"IMPOSSIBLE {SHORT[r.fmt]} {r.size_text}: {'; '.join(problems)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
