"""The exports' time and peak RSS at scale, every format, beside the bare loop.

    python bench/export_memory.py [--sizes 100MB,1GB] [--formats ...] [--smoke]
                                  [--what html,md,raw,json,replay,diff]

For each generated file (``model_scale.bench_file``: the same files as the issue-15
table) it runs, each in a process of its own, ``tailscope export --format html`` (and
``md``, ``html --view raw``, ``json``) into a file under a temporary folder, and
``tailscope diff`` (and ``replay``, asked for): wall seconds ÷ the bare ``orjson`` loop
over the same file (``open_big``'s) and peak RSS (VmHWM, sampled) ÷ the file's size. An
export is written as it is built, so its peak should not grow with the file beyond the
replay it reads.

``--smoke`` runs on 2 MB files and fails where a run wrote nothing.

``TAILSCOPE=/path/to/tailscope`` (or ``TAILSCOPE="python -P -m viewer.cli"`` with
another ``PYTHONPATH``) measures another build the same way.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import model_scale  # noqa: E402
import open_big  # noqa: E402

WHAT = {
    "html": ["export", "--format", "html"],
    "md": ["export", "--format", "md"],
    "raw": ["export", "--format", "html", "--view", "raw"],
    "json": ["export", "--format", "json"],
    "replay": ["replay"],
    "diff": ["diff"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100MB")
    parser.add_argument("--formats", default=",".join(model_scale.FORMATS))
    parser.add_argument("--what", default="html,md,raw,json,diff")
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--smoke", action="store_true", help="2 MB files; fail on no output")
    args = parser.parse_args(argv)
    if args.smoke:
        args.sizes, args.timeout = "2MB", 60.0
    empty: list[str] = []
    tailscope = shlex.split(os.environ.get("TAILSCOPE") or open_big.TAILSCOPE)
    print("| format | file | loop | what | time, ÷ loop | peak RSS, ÷ file | output |")
    print("|---|---|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for size_text in args.sizes.split(","):
            for fmt in args.formats.split(","):
                path, _marker, _lines = model_scale.bench_file(args.data, fmt, size_text)
                size = path.stat().st_size
                loop = open_big.warm_loop(path)
                for what in args.what.split(","):
                    out = Path(tmp) / f"out-{what}"
                    argv_ = [*tailscope, *WHAT[what], str(path)]
                    if what not in ("diff", "replay"):
                        argv_ += ["-o", str(out)]
                    wall, peak, stdout = model_scale.run_measured(argv_, args.timeout)
                    written = out.stat().st_size if out.exists() else len(stdout)
                    out.unlink(missing_ok=True)
                    if not written or peak <= 0:
                        empty.append(f"{fmt} {size_text} {what}")
                    print(
                        f"| {model_scale.SHORT[fmt]} | {size_text} | {loop:.2f} s | {what} "
                        f"| {wall:.2f} s, {wall / loop:.2f}× "
                        f"| {peak / 2**20:.0f} MB, {100 * peak / size:.0f}% "
                        f"| {written / 2**20:.0f} MB |",
                        flush=True,
                    )
    if empty:
        print(f"nothing written, or no peak read: {', '.join(empty)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
