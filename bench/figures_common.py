"""What every figure of ``figures.py`` shares: the headless screen's size, peak and
current RSS, how a size or a ratio is printed, and the child processes that each
measurement runs in (so that each peak RSS is its own)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

from proc_status import rss_bytes
from sanity import fail

WIDTH, HEIGHT = 160, 48
MB = 1 << 20
FIGURES_SCRIPT = Path(__file__).resolve().with_name("figures.py")  # its ``_child`` runs one


def peak_rss() -> int:
    """This process's peak RSS in bytes: VmHWM, which starts again at exec (ru_maxrss
    would carry over the RSS of the process this one was forked from)."""
    peak = rss_bytes()
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss() -> int:
    return rss_bytes(field="VmRSS") or 0


def mb(n: float) -> str:
    return f"{n / MB:,.0f} MB"


def mb1(n: float) -> str:
    return f"{n / MB:,.1f} MB"


def ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("nan")


def child(kind: str, *args: str, timeout: float) -> dict[str, Any]:
    """Run ``figures.py _child KIND ARGS`` and return the JSON it prints last."""
    command = [sys.executable, str(FIGURES_SCRIPT), "_child", kind, *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        fail(f"{kind} {' '.join(args)}: not done after {timeout:g} s")
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        fail(f"{kind} {' '.join(args)} exited {done.returncode}")
    lines = done.stdout.strip().splitlines()
    return dict(json.loads(lines[-1]))


def best_of(repeat: int, kinds: list[str], args: list[str], timeout: float) -> list[dict[str, Any]]:
    """Each kind ``repeat`` times, interleaved (noise hits them alike); the fastest run of each."""
    best: list[dict[str, Any]] = [{} for _ in kinds]
    for _ in range(repeat):
        for i, kind in enumerate(kinds):
            run = child(kind, *args, timeout=timeout)
            if not best[i] or run["seconds"] < best[i]["seconds"]:
                best[i] = run
    return best
