"""v1's index pass, a line per msgspec call against a block of lines per call.

    python bench/block_decode.py [FILE] [--reps 3]

Issue 15 asked to evaluate msgspec "ideally decoding a whole block of lines per call".
The lines of FILE (default: the generated 100 MB v1 file) are cut into 1 MB blocks, as
the readers cut them, held in memory, and decoded into ``indexing.LazyEnvelope`` four
ways, in turn each round: a ``decode`` call a line; one call a block, the block's lines
joined into a JSON array and decoded as ``list[LazyEnvelope]``; one ``decode_lines`` call
a block, over the block's own bytes as a reader holds them (msgspec's newline-delimited
decode: nothing joined, nothing copied); and ``orjson.loads`` a line, the yardstick. Only
blocks that the array decode takes whole are timed (a block with a line it refuses would
go line by line anyway).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import msgspec
import orjson

HERE = Path(__file__).resolve().parent
# This checkout's build, after a PYTHONPATH's: ``PYTHONPATH=/tmp/base python -P`` names
# the build measured (put first, this checkout's ran whatever PYTHONPATH said).
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
_AT = max((i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _GIVEN), default=0)
sys.path.insert(_AT, str(HERE.parent))

from session_core import indexing  # noqa: E402

BLOCK = 1 << 20


def blocks_of(path: Path) -> list[list[bytes]]:
    blocks: list[list[bytes]] = [[]]
    size = 0
    with path.open("rb") as fh:
        for line in fh:
            line = line.rstrip(b"\r\n")
            if not line:
                continue
            blocks[-1].append(line)
            size += len(line) + 1
            if size >= BLOCK:
                blocks.append([])
                size = 0
    return [block for block in blocks if block]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=HERE / "data/open-big-100MB.jsonl")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    if not args.file.exists():
        print(f"{args.file}: not there (bench/model_scale.py generates it)", file=sys.stderr)
        return 1
    line_decode = indexing.LAZY.decode
    array_decode = msgspec.json.Decoder(list[indexing.LazyEnvelope]).decode
    taken = []
    for block in blocks_of(args.file):
        try:
            array_decode(b"[" + b",".join(block) + b"]")
        except indexing.IndexError_:
            continue
        taken.append(block)
    lines = sum(len(block) for block in taken)
    lines_decode = msgspec.json.Decoder(indexing.LazyEnvelope).decode_lines
    raw_blocks = [b"\n".join(block) + b"\n" for block in taken]  # as read, not timed
    print(f"{args.file.name}: {len(taken)} blocks of {lines:,} lines decoded whole as arrays")

    def per_line() -> None:
        for block in taken:
            for line in block:
                line_decode(line)

    def per_block() -> None:
        for block in taken:
            array_decode(b"[" + b",".join(block) + b"]")

    def per_raw_block() -> None:
        for raw in raw_blocks:
            lines_decode(raw)

    def with_orjson() -> None:
        loads = orjson.loads
        for block in taken:
            for line in block:
                loads(line)

    for rep in range(args.reps):
        times = []
        for run in (per_line, per_block, per_raw_block, with_orjson):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        line_s, block_s, raw_s, orjson_s = times
        print(
            f"round {rep + 1}: a line a call {line_s:.3f} s, a block a call {block_s:.3f} s "
            f"({block_s / line_s:.2f}x), decode_lines a block {raw_s:.3f} s "
            f"({raw_s / line_s:.2f}x), orjson a line {orjson_s:.3f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
