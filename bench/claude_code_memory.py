"""Where a Claude Code file's model keeps its memory, and how much each way of reading it
takes at its peak.

    python bench/claude_code_memory.py FILE [--how open,live,check] [--top 25] [--trace]

For each way (``open``: ``fmt.open``, as replay does; ``live``: ``follow``'s raw
batches applied to ``fmt.live`` as the viewer's worker does, three snapshots along
the way; ``check``: ``fmt.check``), in a process of its own: its peak RSS (VmHWM) and
wall time, beside a bare ``orjson.loads`` loop over the same file in the same run (the
loop's own peak RSS too, as the floor an interpreter with orjson starts from). With
``--trace``, the process also takes a tracemalloc snapshot of what the model keeps
(once it is built, the file closed) and prints the top entries by file:line (tracing
makes it several times slower; its RSS is then not the figure).

``TAILSCOPE_TREE=/path/to/checkout`` measures another build the same way, for ratios
between two builds in one run (run the two alternately, and repeat: this machine is
noisy).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

_CHILD = r"""
import gc, os, sys, time, tracemalloc
how, path, trace, top = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
sys.path.insert(0, os.path.join(sys.argv[5], "bench"))
if trace:
    tracemalloc.start(1)
start = time.perf_counter()
if how == "loop":
    import orjson
    with open(path, "rb") as fh:
        for line in fh:
            orjson.loads(line)
    kept = None
else:
    from session_core.formats import by_name
    fmt = by_name("claude-code")
    if how == "open":
        kept = fmt.open(path, writer_alive=False)
    elif how == "check":
        kept = fmt.check(path)
    else:
        import model_dump
        kept = model_dump.live(path, "claude-code", 3)
wall = time.perf_counter() - start
with open("/proc/self/status") as fh:
    hwm = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:"))
print(f"RESULT {wall:.3f} {hwm}")
if trace:
    gc.collect()
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)]
    )
    stats = snap.statistics("lineno")
    total = sum(s.size for s in stats)
    print(f"traced {total / 2**20:.1f} MB kept")
    for s in stats[:top]:
        frame = s.traceback[0]
        name = "/".join(frame.filename.split("/")[-3:])
        print(f"{s.size / 2**20:8.1f} MB {s.count:>9} blocks  {name}:{frame.lineno}")
"""


def run(how: str, path: str, tree: str, trace: bool, top: int) -> tuple[float, int, str]:
    env = dict(os.environ, PYTHONPATH=tree)
    done = subprocess.run(
        [sys.executable, "-P", "-c", _CHILD, how, path, "1" if trace else "0", str(top), tree],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"{how}: failed\n{done.stderr[-2000:]}")
    result = next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))
    _, wall, hwm = result.split()
    rest = "\n".join(line for line in done.stdout.splitlines() if not line.startswith("RESULT"))
    return float(wall), int(hwm) * 1024, rest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--how", default="open,live,check")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args(argv)
    tree = os.environ.get("TAILSCOPE_TREE") or str(HERE.parent)
    size = os.path.getsize(args.file)
    print(f"{args.file}: {size / 2**20:,.0f} MB; tree {tree}; {time.strftime('%F %T %Z')}")
    loop_wall, loop_rss, _ = run("loop", args.file, tree, False, 0)
    print(f"  orjson loop: {loop_wall:.2f} s, peak RSS {loop_rss / 2**20:,.0f} MB")
    for how in args.how.split(","):
        wall, rss, detail = run(how, args.file, tree, args.trace, args.top)
        print(
            f"  {how}: {wall:.2f} s ({wall / loop_wall:.2f}x the loop), peak RSS "
            f"{rss / 2**20:,.0f} MB ({rss / size:.1%} of the file)"
        )
        if detail:
            print(detail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
