"""Each build's first screen and load of the same files, launched in tmux in turn.

    python bench/first_screen.py --build old=ROOT --build new=. [--size 10MB] [--rounds 3]

For every format, ``model_scale``'s generated file of that size (made if missing) is
opened by each build's viewer in tmux (``open_big.watch``), the builds alternating in
each round: the seconds from launch until the file's last message (its marker) is on
screen, and until the header counts every line (the load complete). Builds are trees
holding ``session_core`` and ``viewer`` (run with that tree alone on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import model_scale  # noqa: E402
import open_big  # noqa: E402

FORMATS = ("transcript-v1", "claude-code", "codex", "agentgo-v1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", action="append", required=True, help="NAME=ROOT")
    parser.add_argument("--size", default="10MB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data-dir", default=str(HERE / "data"))
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    builds = [tuple(b.split("=", 1)) for b in args.build]
    files = {f: model_scale.bench_file(Path(args.data_dir), f, args.size) for f in FORMATS}
    seen: dict[tuple[str, str], list[list[float | None]]] = {}
    for round_ in range(args.rounds):
        for name, root in builds if round_ % 2 == 0 else builds[::-1]:
            tree = Path(root).resolve()
            for fmt, (path, marker, lines) in files.items():
                command = (
                    f"env PYTHONPATH={tree} {sys.executable} -P -c "
                    f"'from viewer.cli import main; main()' {path}"
                )
                times, _peak = open_big.watch(command, [marker, f"{lines:,} lines"], args.timeout)
                seen.setdefault((fmt, name), []).append(times)
    failed = False
    for fmt in FORMATS:
        for name, _root in builds:
            runs = seen[(fmt, name)]
            said = []
            for label, at in (("end", 0), ("complete", 1)):
                values = [r[at] for r in runs]
                failed |= None in values
                shown = ", ".join("-" if v is None else f"{v:.2f}" for v in values)
                said.append(f"{label} {shown}")
            print(f"{fmt:14} {name:8} " + " s; ".join(said) + " s")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
