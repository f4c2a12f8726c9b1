"""The figures of docs/performance.md that no other bench script prints, each beside its baseline.

    .venv/bin/python bench/figures.py FIGURE [--size 1GB] [--smoke] [--timeout S]

FIGURE is one of:

* ``load``: ``Session.load`` of the generated transcript, its time and peak
  RSS, with the cyclic collector paused (as shipped, ``session_core/gc_pause.py``)
  and with it on, beside a bare ``orjson.loads`` loop over the same file (its
  time and peak RSS: the interpreter, orjson and a line at a time). performance.md:
  3.6 s (the loop 1.8 s), peak RSS 1.2 GB at 1 GB; "GC on: twice as long".
* ``compaction``: 100,000 live messages and 400 compactions that fold a few
  (3 messages and the summary before) each, replayed from a file by the
  current code, beside a plain replay of the same number of lines with no
  compaction (every compaction line a message instead), and the re-indexing
  of every live message after each compaction that the code did before
  (``ReindexingReplay``, as ``tests/test_compaction_index.py`` has it); at
  half the size too, so that the growth shows. docs/performance.md: 0.34 s vs 2.5 s.
* ``long-line``: a transcript whose tool result is one 50 MB line:
  ``Session.load``, and the viewer (headless) from launch until the file is
  replayed and from there until that row is expanded and drawn, beside a bare
  ``orjson.loads`` of the file's lines. docs/performance.md: "loads in 0.3 s".
* ``datatable``: the tool-operations and diff tabs of the generated file,
  headless: the project's ``VirtualTable`` (``OpsPane``, over the model's
  operations) and ``DiffView``
  over ``DiffRows`` beside Textual's ``DataTable`` holding a row of the same
  cells for every operation / every diff row (and, for the diff, the list of
  every ``DiffRow`` built, as the view did before ``DiffRows``). Each in a
  process of its own: time until drawn, peak RSS. docs/performance.md: 38 s / 1.5 GB and
  8.8 s / 2.6 GB with ``DataTable``.
* ``memory``: the viewer's RSS at the end of a headless load of the file,
  split by structure (sizes of what the replayed state, v1's model, the
  screen's snapshot and its conversation hold, walked object by object: the
  packed ids, dicts, per-line columns, compaction records ...), beside the RSS
  of the same app on a two-line file (Python and Textual themselves). docs/performance.md
  (before ids were packed): ids 57 MB, dicts by id about 35 MB, per-line
  columns about 45 MB, Python and Textual about 60 MB.
* ``all``: each of them in turn.

The file is ``open_big.py``'s generated transcript (``--size``, default 1GB,
shared with it and ``views_big.py``). Each printed figure says what the
docs/performance.md says beside it. Every wait has a deadline (``--timeout``), and a figure
that cannot be (a zero time, a ratio below what must hold, a row count that
is not the file's) fails the run (exit 1), ``--smoke`` (2MB, 10,000 live
messages) included.

Each figure is in ``figures_<name>.py`` (its child processes' measurements too);
what they share (RSS, sizes printed, the children) in ``figures_common.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# This checkout's build, after a PYTHONPATH's: ``PYTHONPATH=/tmp/base python -P`` names
# the build measured (put first, this checkout's ran whatever PYTHONPATH said).
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
_AT = max((i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _GIVEN), default=0)
sys.path.insert(_AT, str(HERE.parent))

from figures_compaction import figure_compaction  # noqa: E402
from figures_datatable import TABLE_KINDS, figure_datatable, table_child  # noqa: E402
from figures_load import LOAD_KINDS, figure_load, load_child  # noqa: E402
from figures_long_line import figure_long_line, long_line_viewer  # noqa: E402
from figures_memory import MEMORY_KINDS, figure_memory, memory_child  # noqa: E402
from sanity import Figures  # noqa: E402

FIGURES = ("load", "compaction", "long-line", "datatable", "memory")


def child_main(kind: str, args: list[str]) -> dict[str, Any]:
    """One measurement, in a process of its own (``figures_common.child`` starts it)."""
    if kind in LOAD_KINDS:
        return load_child(kind, args)
    if kind in TABLE_KINDS:
        return asyncio.run(table_child(kind, Path(args[0]), float(args[1])))
    if kind in MEMORY_KINDS:
        return asyncio.run(memory_child(kind, Path(args[0]), int(args[1]), float(args[2])))
    if kind == "long-line-viewer":
        return asyncio.run(long_line_viewer(Path(args[0]), int(args[1]), float(args[2])))
    raise SystemExit(f"unknown child {kind!r}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_child"]:
        print(json.dumps(child_main(argv[1], argv[2:])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figure", choices=(*FIGURES, "all"))
    parser.add_argument("--size", default="1GB", help="the generated file (open_big.py's)")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per wait")
    parser.add_argument("--repeat", type=int, default=3, help="load: runs of each, the best kept")
    parser.add_argument("--smoke", action="store_true", help="2MB and small cases (for CI)")
    args = parser.parse_args(argv)
    size = "2MB" if args.smoke else args.size
    figures = Figures()
    chosen = FIGURES if args.figure == "all" else (args.figure,)
    print(f"bench/figures.py {' '.join(argv)}: {os.cpu_count()} CPUs, Python "
          f"{sys.version.split()[0]}, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")  # fmt: skip
    for name in chosen:
        if name == "load":
            figure_load(
                size, args.data_dir, args.timeout, figures, 1 if args.smoke else args.repeat
            )
        elif name == "compaction":
            figure_compaction(args.smoke, figures)
        elif name == "long-line":
            figure_long_line(args.smoke, args.timeout, figures)
        elif name == "datatable":
            figure_datatable(size, args.data_dir, args.timeout, figures)
        elif name == "memory":
            figure_memory(size, args.data_dir, args.timeout, figures)
        print()
    return figures.verdict()


if __name__ == "__main__":
    sys.exit(main())
