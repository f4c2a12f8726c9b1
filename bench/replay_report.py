"""How ``replay.py`` prints its figures: the markdown tables for docs/performance.md, the
figures no working build can produce, and the line saying where they were measured."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import orjson
from gen_transcript import GEN_VERSION

REPO = Path(__file__).resolve().parent.parent


def fmt_t(t: float | None) -> str:
    if t is None:
        return "error"
    if t < 0.1:
        return f"{t * 1000:.1f} ms"
    return f"{t * 1000:.0f} ms" if t < 10 else f"{t:.1f} s"


def ratio(a: float | None, b: float | None, suffix: str = "×") -> str:
    return "–" if a is None or b is None or b == 0 else f"{a / b:.2f}{suffix}"


def table(rows: list[dict[str, Any]]) -> str:
    base = rows[0]

    def lin(row: dict[str, Any], key: str) -> str:
        a, b = row[key], base[key]
        if a is None or b is None:
            return "–"
        return f"{(a / row['mb']) / (b / base['mb']):.2f}"

    head = (
        "| file | lines | orjson loop | `replay_file` | ÷ loop | `Session.load` | ÷ loop "
        "| `tailscope replay` | ÷ loop | time per MB vs smallest (loop / replay_file / load) |"
    )
    out = [head, "|" + "|".join(["---"] * 10) + "|"]
    for r in rows:
        out.append(
            f"| {r['label']} | {r['lines']:,} | {fmt_t(r['loop'])} | {fmt_t(r['replay'])} "
            f"| {ratio(r['replay'], r['loop'])} | {fmt_t(r['load'])} "
            f"| {ratio(r['load'], r['loop'])} | {fmt_t(r['cli'])} | {ratio(r['cli'], r['loop'])} "
            f"| {lin(r, 'loop')} / {lin(r, 'replay')} / {lin(r, 'load')} |"
        )
    return "\n".join(out)


def fmt_mb(n: int | None) -> str:
    return "error" if n is None else f"{n / 1e6:,.0f} MB"


def pct(n: float | None, of: float) -> str:
    return "–" if n is None or not of else f"{n / of:.0%}"


def memory_table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| file | `tailscope check` RSS | ÷ file | `Session.load` RSS | ÷ file "
        "| `tailscope replay` RSS | ÷ file |",
        "|" + "|".join(["---"] * 7) + "|",
    ]
    for r in rows:
        size = r["mb"] * 1e6
        out.append(
            f"| {r['label']} | {fmt_mb(r['rss_check'])} | {pct(r['rss_check'], size)} "
            f"| {fmt_mb(r['rss_load'])} | {pct(r['rss_load'], size)} "
            f"| {fmt_mb(r['rss_replay'])} | {pct(r['rss_replay'], size)} |"
        )
    return "\n".join(out)


def viewer_table(rows: list[dict[str, Any]]) -> str:
    def secs(value: float | None) -> str:
        return "not seen" if value is None else f"{value:.2f} s"

    out = [
        "| file | orjson loop | the end on screen | replay complete | ÷ loop | peak RSS | ÷ file |",
        "|" + "|".join(["---"] * 7) + "|",
    ]
    for r in rows:
        v = r.get("viewer")
        if not v:
            continue
        out.append(
            f"| {r['label']} ({v['bytes'] / 1e6:,.0f} MB) | {fmt_t(v['loop'])} "
            f"| {secs(v['first'])} | {secs(v['complete'])} | {ratio(v['complete'], v['loop'])} "
            f"| {fmt_mb(v['peak'])} | {pct(v['peak'], v['bytes'])} |"
        )
    return "\n".join(out)


def impossible(rows: list[dict[str, Any]]) -> list[str]:
    """Figures no working build can produce (the smoke run fails on them)."""
    bad = []
    for r in rows:
        size = r["mb"] * 1e6
        for key in ("loop", "replay", "load", "cli"):
            t = r.get(key)
            if t is None or not 0 < t < 600:
                bad.append(f"{r['label']}: {key} took {t!r} s")
        loop = r.get("loop") or 0
        for key in ("replay", "load"):
            t = r.get(key)
            if t is not None and loop and t < 0.05 * loop:
                bad.append(f"{r['label']}: {key} is {t / loop:.3f}× the loop: it skipped the file")
        for key in ("rss_check", "rss_load", "rss_replay"):
            n = r.get(key)
            if n is None or not 5e6 < n < 20 * size + 2e9:
                bad.append(f"{r['label']}: {key} is {n!r} bytes")
        v = r.get("viewer")
        if v is not None:
            if v["first"] is None or v["complete"] is None:
                bad.append(f"{r['label']}: the viewer never showed {v!r}")
            elif not (0 < v["first"] < 600 and 0 < v["complete"] < 600):
                bad.append(f"{r['label']}: viewer times out of range: {v!r}")
            if not 5e6 < v["peak"] < 20 * v["bytes"] + 2e9:
                bad.append(f"{r['label']}: viewer peak RSS {v['peak']!r}")
    return bad


def environment(repeat: int, seed: int, cli_floor: float | None) -> str:
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = "?"
    floor = fmt_t(cli_floor) if cli_floor is not None else "error"
    return (
        f"Best of {repeat}; generated with `bench/gen_transcript.py --seed {seed}` "
        f"(format v1, generator v{GEN_VERSION}). Python {platform.python_version()}, "
        f"orjson {orjson.__version__}, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs, commit {commit or '?'}. `tailscope replay` is the whole "
        f"process with its output sent to /dev/null; its start-up floor (a one-line "
        f"transcript) is {floor}."
    )
