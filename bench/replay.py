"""How fast does a transcript replay, next to the cost of just parsing its lines?

    python bench/replay.py [--sizes 10MB,100MB] [--repeat 3] [--data-dir bench/data] [--seed 1]
    python bench/replay.py --smoke          # 1MB, one repeat: the CI check

For each size it generates (or reuses, cached in --data-dir by size, seed and
generator version) a realistic transcript with ``bench/gen_transcript.py`` and
times, best of --repeat:

* **loop**: read the file in 4 MB blocks, split each into lines, ``orjson.loads``
  each one (streamed as the loader reads, never the whole file at once): the
  floor any reader pays, and the baseline of every ratio, measured in the same run;
* **replay_file**: ``session_core.reader.replay_file`` in-process (the read-only
  replay under ``check``, ``replay``, ``diff`` and ``export``);
* **load**: ``session_core.Session.load`` on a fresh copy of the file (load
  takes the writer lock and may repair, so it never sees the cached original),
  closed afterwards; only the load itself is timed;
* **replay**: the whole ``tailscope replay FILE > /dev/null`` process (the
  read-only replay of the CLI), interpreter start-up included; the start-up
  alone is measured on a one-line transcript and printed as the CLI floor.

Then, each in a process of its own, the peak RSS (``ru_maxrss``) of
``tailscope check FILE``, of ``Session.load`` and of ``tailscope replay``; and,
unless ``--no-viewer``, the viewer in tmux (``bench/open_big.py``'s machinery,
on its marked copy of the file): the end on screen, the replay complete, and
its peak RSS.

Before timing, the replayed view of both is compared with the reference replay
in ``v1_check.check`` (message ids, tool operations, pending operations,
run contexts), and the CLI must leave the file's bytes, inode and mtime alone.
A disagreement or an exception is reported under the table; the exit status is
then 1. The table at the end is markdown, ready for docs/performance.md.

The measures are in ``replay_measures.py``, the tables in ``replay_report.py``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_transcript as gen
from open_big import bare_loop
from replay_measures import Bench, viewer_figures
from replay_report import (
    environment,
    fmt_mb,
    fmt_t,
    impossible,
    memory_table,
    ratio,
    table,
    viewer_table,
)

HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------- setup


def import_session_core() -> Any:
    try:
        import session_core

        session_cls = session_core.Session
        session_cls.load  # noqa: B018
    except Exception as e:  # anything: a half-written package fails in many ways
        sys.exit(
            "bench/replay.py: session_core is not usable yet "
            f"({type(e).__name__}: {e}).\n"
            "Run this with the project's venv (.venv/bin/python bench/replay.py) once "
            "session_core.Session.load exists."
        )
    return session_cls


def tailscope_command() -> list[str]:
    """The venv's ``tailscope`` script, else the same entry point through this python."""
    script = Path(sys.executable).parent / "tailscope"
    if script.exists():
        return [str(script)]
    return [
        sys.executable,
        "-c",
        "import sys; from viewer.cli import main; sys.argv[0] = 'tailscope'; sys.exit(main())",
    ]


def cached_transcript(data_dir: Path, size: int, seed: int) -> tuple[Path, dict[str, Any]]:
    """The transcript for (size, seed) and its reference view, generated on first use."""
    data_dir.mkdir(parents=True, exist_ok=True)
    stem = f"v{gen.GEN_VERSION}-{gen.format_size(size)}-seed{seed}"
    path = data_dir / f"{stem}.jsonl"
    view_path = data_dir / f"{stem}.view.json"
    if path.exists() and view_path.exists():
        return path, orjson.loads(view_path.read_bytes())
    tmp = data_dir / f".{stem}.{os.getpid()}.tmp"
    try:
        t0 = time.perf_counter()
        stats = gen.generate(tmp, size, seed=seed)
        t1 = time.perf_counter()
        view = gen.check(tmp)
        t2 = time.perf_counter()
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    view_path.write_bytes(orjson.dumps(view))
    log(
        f"  generated {path.name}: {stats['bytes'] / 1e6:.1f} MB, {stats['lines']} lines "
        f"in {t1 - t0:.1f} s; reference check {t2 - t1:.1f} s"
    )
    return path, view


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10MB,100MB", help="comma-separated, e.g. 10MB,100MB,1GB")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measure; the best counts")
    ap.add_argument("--data-dir", type=Path, default=HERE / "data", help="transcript cache")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="1MB, one repeat, a hard time limit; fails on impossible figures (for CI)",
    )
    ap.add_argument("--no-verify", action="store_true", help="skip the correctness cross-check")
    ap.add_argument("--no-viewer", action="store_true", help="skip the viewer (tmux) figures")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per measured process")
    args = ap.parse_args(argv)
    if args.smoke:
        args.sizes, args.repeat, args.timeout = "1MB", 1, 30.0
        # A hard limit for the whole run: a hang fails CI instead of stalling it.
        signal.signal(signal.SIGALRM, _out_of_time)
        signal.alarm(90)
    try:
        sizes = sorted({gen.parse_size(s) for s in args.sizes.split(",") if s.strip()})
    except ValueError as e:
        ap.error(str(e))
    if not sizes or args.repeat < 1:
        ap.error("need at least one size and --repeat >= 1")
    viewer = not args.no_viewer and shutil.which("tmux") is not None

    session_cls = import_session_core()
    cli = tailscope_command()
    rows: list[dict[str, Any]] = []
    args.data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="scratch-", dir=args.data_dir) as tmp:
        b = Bench(session_cls, cli, Path(tmp))

        floor_file = Path(tmp) / "floor.jsonl"
        floor_file.write_bytes(
            orjson.dumps(
                {
                    "id": "00000000-0000-4000-8000-000000000000",
                    "payload": {"agent": "bench"},
                    "ts": "2026-08-09T00:00:00.000000Z",
                    "type": "session-meta",
                    "v": 1,
                },
                option=gen.OPTS,
            )
        )
        cli_floor = b.best("tailscope replay (floor)", b.cli_once, floor_file, args.repeat)

        for size in sizes:
            label = gen.format_size(size)
            log(f"{label}:")
            path, ref = cached_transcript(args.data_dir, size, args.seed)
            if not args.no_verify:
                b.verify_load(path, ref)
                b.verify_cli(path, ref)
            row: dict[str, Any] = {
                "label": label,
                "mb": path.stat().st_size / 1e6,
                "lines": ref["lines"],
            }
            row["loop"] = b.best("orjson loop", bare_loop, path, args.repeat)
            row["replay"] = b.best("replay_file", b.replay_once, path, args.repeat)
            row["load"] = b.best("Session.load", b.load_once, path, args.repeat)
            copy = b.fresh_copy(path)  # the CLI only reads, but never trust the cache to it
            row["cli"] = b.best("tailscope replay", b.cli_once, copy, args.repeat)
            for key, fn in (
                ("rss_check", b.rss_check),
                ("rss_replay", b.rss_replay),
                ("rss_load", b.rss_load),
            ):
                try:
                    row[key] = fn(path if key == "rss_load" else copy, args.timeout)
                except Exception as e:
                    b.errors.append(f"{key} on {path.name}: {type(e).__name__}: {e}")
                    row[key] = None
            copy.unlink(missing_ok=True)
            log(
                f"  loop {fmt_t(row['loop'])}, replay_file {fmt_t(row['replay'])} "
                f"({ratio(row['replay'], row['loop'])}), load {fmt_t(row['load'])} "
                f"({ratio(row['load'], row['loop'])}), tailscope replay {fmt_t(row['cli'])} "
                f"({ratio(row['cli'], row['loop'])}); RSS check {fmt_mb(row['rss_check'])}, "
                f"load {fmt_mb(row['rss_load'])}, replay {fmt_mb(row['rss_replay'])}"
            )
            if viewer:
                try:
                    row["viewer"] = viewer_figures(args.data_dir, label, args.timeout)
                    log(f"  viewer: {row['viewer']}")
                except Exception as e:
                    b.errors.append(f"viewer on {label}: {type(e).__name__}: {e}")
            rows.append(row)

    print()
    print(table(rows))
    print()
    print(memory_table(rows))
    if viewer:
        print()
        print(viewer_table(rows))
    print()
    print(environment(args.repeat, args.seed, cli_floor))
    if args.smoke:
        b.errors.extend(impossible(rows))
    if b.errors:
        print("\nErrors:")
        for e in b.errors:
            print(f"- {e}")
        return 1
    return 0


def _out_of_time(_signum: int, _frame: Any) -> None:
    print("bench/replay.py --smoke: over its time limit (90 s)", file=sys.stderr, flush=True)
    os._exit(1)


if __name__ == "__main__":
    sys.exit(main())
