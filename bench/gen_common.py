"""What every generator here shares: sizes, the command line, canonical lines and
digests, and the writers a format's generator starts from."""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from text_pools import build_pools

OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE  # a canonical line
CANON = orjson.OPT_SORT_KEYS  # canonical JSON, what a digest is over


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
        self.pools = build_pools(random.Random(seed + 1), 1 << 19)
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
    return hashlib.sha256(orjson.dumps(x, option=CANON)).hexdigest()


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


def write_timed(path: Path, write: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """A generator's run: ``path``'s folder made, the file opened with a big buffer and
    handed to ``write``; what it says of the file, between its path and the seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(path, "wb", buffering=8 << 20) as out:
        info = write(out)
    return {"path": str(path), **info, "seconds": round(time.perf_counter() - t0, 3)}
