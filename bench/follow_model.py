"""How long an appended line takes to reach the viewer's screen, for every format.

    python bench/follow_model.py [--source 100MB] [--rates 1000,10000] [--seconds 3]
                                 [--formats ...] [--view raw] [--smoke]

``follow_latency.py`` times ``follow`` alone; this times what a person watching a run
waits for: the line applied to the format's model and handed to the screen's panes.
For each format, its realistic generated file (``model_scale.py``'s, ``--source`` big)
is cut in two: the start is copied to a new file, which the viewer opens (headless,
``run_test``) and loads; then a writer process appends the rest of the file's lines, as
they are, at ``RATE`` lines/s, noting when it wrote each (``time.monotonic_ns``: one
clock for every process on the machine). The screen notes when each draw hands the
panes a model holding which lines (the model screen's ``_draw``, v1's
``_apply_update``). A line's lag is from its write to the first draw that holds it.

Printed: per format and rate, the file the viewer followed, p50/p99/max lag, and p99
over the last third beside the first (a lag that grows with the run would show there).
``--view raw`` follows in the raw view (``r``: every line, folded ones marked) rather
than the replayed one; ``--view TAB`` with that tab shown (``tools``, ``runs``, ``diff``,
or a format's own: v1's ``contexts``, agentgo's ``calls``, ``checkpoints``, ``timeline``;
a format without it follows in its conversation).
``--smoke`` runs a short version on small files and fails on figures that cannot be.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# This checkout's build, after a PYTHONPATH's: ``PYTHONPATH=/tmp/base python -P`` names
# the build measured (put first, this checkout's ran whatever PYTHONPATH said).
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
_AT = max((i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _GIVEN), default=0)
sys.path.insert(_AT, str(HERE.parent))

import model_scale  # noqa: E402

SIZE = (120, 40)


def writer_main(source: str, target: str, start: int, rate: float, count: int) -> None:
    """Append lines ``start`` .. ``start + count`` of ``source`` to ``target`` at ``rate``
    lines/s once ``go`` comes on stdin; print the write time of each (ns), one per line."""
    with open(source, "rb") as fh:
        lines = fh.readlines()[start : start + count]
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return
    stamps: list[int] = []
    fd = os.open(target, os.O_WRONLY | os.O_APPEND)
    begin = time.monotonic()
    for seq, line in enumerate(lines):
        delay = begin + seq / rate - time.monotonic()
        if delay > 0.0005:
            time.sleep(delay)
        os.write(fd, line)
        stamps.append(time.monotonic_ns())
    os.close(fd)
    sys.stdout.write("".join(f"{s}\n" for s in stamps))
    sys.stdout.flush()


@dataclass
class Run:
    fmt: str
    rate: int
    base_bytes: int
    base_lines: int
    written: int = 0
    lags_ms: list[float] = field(default_factory=list)
    missing: int = 0

    def pct(self, values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def install_hooks(drawn: list[tuple[int, int]]) -> None:
    """Note (time, lines held) each time the screen hands its panes a model (every
    format, v1 too, is shown by the model screen)."""
    from viewer.screens.model_screen import ModelScreen

    model_draw = ModelScreen._draw

    def draw(self: ModelScreen, *args: object, **kwargs: object) -> None:
        model_draw(self, *args, **kwargs)  # type: ignore[arg-type]
        drawn.append((time.monotonic_ns(), self.transcript.lines))

    ModelScreen._draw = draw  # type: ignore[method-assign]


async def follow_once(
    source: Path,
    lines: int,
    fmt: str,
    rate: int,
    seconds: float,
    work: Path,
    view: str = "replayed",
) -> Run:
    from viewer.app import TailscopeApp
    from viewer.screens.following import FollowingScreen
    from viewer.screens.model_screen import ModelScreen

    count = min(int(rate * seconds), lines * 2 // 5)
    start = lines - count
    target = work / f"{model_scale.SHORT[fmt]}-{rate}.jsonl"
    with open(source, "rb") as src, open(target, "wb") as dst:
        for _ in range(start):
            dst.write(src.readline())
    run = Run(fmt, rate, target.stat().st_size, start)
    drawn: list[tuple[int, int]] = []
    install_hooks(drawn)
    command = [sys.executable, __file__, "--writer", str(source), str(target)]
    writer = subprocess.Popen(
        [*command, str(start), str(rate), str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdin is not None and writer.stdout is not None
    app = TailscopeApp(str(target))
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.monotonic() + 120
        while not (drawn and drawn[-1][1] >= start):  # the start loaded and drawn
            if time.monotonic() > deadline:
                raise SystemExit(f"{fmt}: the viewer did not load the file's start")
            await pilot.pause(0.05)
        screen = app.screen
        assert isinstance(screen, FollowingScreen), screen
        if view != "replayed":
            assert isinstance(screen, ModelScreen), screen  # (every format's)
            tab = "changes" if view == "diff" and view not in screen._tab_ids else view
            if view == "raw":
                screen.action_toggle_mode()
            elif tab in screen._tab_ids:  # (v1's diff is its own tab: "changes")
                screen.action_show_tab(tab)
            await pilot.pause(0.5)
        if writer.stdout.readline().strip() != "ready":
            raise SystemExit("the writer did not start")
        writer.stdin.write("go\n")
        writer.stdin.flush()
        deadline = time.monotonic() + seconds * 3 + 30
        while drawn[-1][1] < start + count and time.monotonic() < deadline:
            await pilot.pause(0.02)
        await pilot.pause(0.2)
    stamps = [int(s) for s in writer.communicate(timeout=60)[0].split()]
    run.written = len(stamps)
    at = 0
    for seq, stamp in enumerate(stamps):
        line = start + seq + 1
        while at < len(drawn) and (drawn[at][1] < line or drawn[at][0] < stamp):
            at += 1  # draws are in time order and hold more lines as time goes on
        if at == len(drawn):
            run.missing = len(stamps) - seq
            break
        run.lags_ms.append((drawn[at][0] - stamp) / 1e6)
    return run


def report(runs: list[Run]) -> None:
    print(
        "| format | base (lines) | lines/s | lines | p50 ms | p99 ms | max ms "
        "| p99 first third | p99 last third |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        third = max(1, len(r.lags_ms) // 3)
        print(
            f"| {r.fmt} | {r.base_bytes / 1e6:.0f} MB ({r.base_lines:,}) | {r.rate:,} "
            f"| {r.written:,} | {r.pct(r.lags_ms, 0.5):.1f} | {r.pct(r.lags_ms, 0.99):.1f} "
            f"| {max(r.lags_ms, default=float('nan')):.1f} "
            f"| {r.pct(r.lags_ms[:third], 0.99):.1f} | {r.pct(r.lags_ms[-third:], 0.99):.1f} |"
        )


def impossible(runs: list[Run]) -> list[str]:
    out = []
    for r in runs:
        where = f"{r.fmt} at {r.rate:,} lines/s"
        if not r.written:
            out.append(f"{where}: the writer wrote no line")
        if r.missing:
            out.append(f"{where}: {r.missing} lines never reached the screen")
        if r.lags_ms and min(r.lags_ms) < 0:
            out.append(f"{where}: a line was drawn before it was written")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--writer"]:
        source, target, start, rate, count = argv[1:6]
        writer_main(source, target, int(start), float(rate), int(count))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", default="100MB", help="the generated file's size")
    parser.add_argument("--rates", default="1000,10000")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--formats", default=",".join(model_scale.FORMATS))
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--view", default="replayed", help="replayed, raw or a tab's id")
    parser.add_argument("--smoke", action="store_true", help="small files, a short run")
    args = parser.parse_args(argv)
    if args.smoke:
        args.source, args.rates, args.seconds = "2MB", "1000", 0.5
    rates = [int(r) for r in args.rates.split(",")]
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="follow-model-") as tmp:
        for fmt in [f.strip() for f in args.formats.split(",") if f.strip()]:
            source, _marker, lines = model_scale.bench_file(args.data_dir, fmt, args.source)
            for rate in rates:
                run = asyncio.run(
                    follow_once(source, lines, fmt, rate, args.seconds, Path(tmp), args.view)
                )
                runs.append(run)
                print(
                    f"{fmt} at {rate:,} lines/s: {run.written:,} lines, "
                    f"p99 {run.pct(run.lags_ms, 0.99):.1f} ms",
                    flush=True,
                )
    print(f"\nthe {args.view} view")
    report(runs)
    problems = impossible(runs)
    for problem in problems:
        print(f"impossible: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
