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
then 1. The table at the end is markdown, ready for the README.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_transcript as gen
from open_big import bare_loop

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


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


def ids_digest(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()


# --------------------------------------------------------------------------- the three measures

# Forks and execs its arguments, says the child's ru_maxrss on its last stderr line, then
# exits as the child did: the launcher's own RSS is tiny, so the child's ru_maxrss (which
# starts at its parent's RSS at the fork) is the child's own. The launcher's own figure
# would not do: it was forked from this bench and carries the bench's RSS.
_LAUNCH = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "sys.stderr.write(f'\\nmaxrss {usage.ru_maxrss}\\n')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


class Bench:
    def __init__(self, session_cls: Any, cli: list[str], work: Path) -> None:
        self.Session = session_cls
        self.cli = cli
        self.work = work  # scratch directory for the copies
        self.errors: list[str] = []

    def fresh_copy(self, path: Path) -> Path:
        copy = self.work / path.name
        for leftover in (copy, copy.with_name(copy.name + ".repair")):
            leftover.unlink(missing_ok=True)
        shutil.copyfile(path, copy)
        return copy

    def load_once(self, path: Path) -> float:
        copy = self.fresh_copy(path)
        gc.collect()
        t0 = time.perf_counter()
        s = self.Session.load(str(copy))
        t = time.perf_counter() - t0
        s.close()
        del s
        return t

    def cli_once(self, path: Path) -> float:
        t0 = time.perf_counter()
        r = subprocess.run(
            [*self.cli, "replay", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
        t = time.perf_counter() - t0
        if r.returncode != 0:
            why = r.stderr.decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"exit {r.returncode}: {why[-1] if why else '(no stderr)'}")
        return t

    def replay_once(self, path: Path) -> float:
        from session_core.reader import replay_file

        gc.collect()
        t0 = time.perf_counter()
        state = replay_file(str(path), tolerate_tail=True)
        t = time.perf_counter() - t0
        if state.last_line <= 0:
            raise RuntimeError("replay_file replayed no line")
        del state
        return t

    def peak_rss(self, argv: list[str], timeout: float) -> int:
        """The peak RSS (bytes) of a process running ``argv``; raises if it fails.

        Forked from a small launcher, not from this process: a child's ``ru_maxrss``
        starts at its parent's RSS at the fork (and an exec keeps it), so forked
        from a bench that replayed 1 GB in-process it would report that."""
        proc = subprocess.Popen(
            [sys.executable, "-S", "-c", _LAUNCH, *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout
        while True:
            pid, status, _usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                raise RuntimeError(f"{argv[-2:]} took over {timeout:.0f} s")
            time.sleep(0.01)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read() if proc.stderr else b""
        said = err.decode(errors="replace").strip().splitlines()
        if proc.returncode != 0:
            why = [line for line in said if not line.startswith("maxrss ")]
            raise RuntimeError(f"exit {proc.returncode}: {why[-1] if why else ''}")
        return int(said[-1].split()[1]) * 1024  # the launcher's report of its child

    def rss_check(self, path: Path, timeout: float) -> int:
        return self.peak_rss([*self.cli, "check", str(path)], timeout)

    def rss_replay(self, path: Path, timeout: float) -> int:
        return self.peak_rss([*self.cli, "replay", str(path)], timeout)

    def rss_load(self, path: Path, timeout: float) -> int:
        copy = self.fresh_copy(path)
        code = (
            "import sys; from session_core import Session; "
            "s = Session.load(sys.argv[1]); assert len(s) > 0; s.close()"
        )
        return self.peak_rss([sys.executable, "-c", code, str(copy)], timeout)

    def best(
        self, label: str, fn: Callable[[Path], float], path: Path, repeat: int
    ) -> float | None:
        times = []
        for _ in range(repeat):
            try:
                times.append(fn(path))
            except Exception as e:
                self.errors.append(f"{label} on {path.name}: {type(e).__name__}: {e}")
                return None
        return min(times)

    # ---- correctness, untimed

    def verify_load(self, path: Path, ref: dict[str, Any]) -> None:
        copy = self.fresh_copy(path)
        try:
            s = self.Session.load(str(copy))
        except Exception as e:
            self.errors.append(f"Session.load({path.name}): {type(e).__name__}: {e}")
            return
        try:
            got = {
                "messages": len(s.message_ids()),
                "message-ids-sha256": ids_digest(list(s.message_ids())),
                "tool-operations": len(s.tool_operations()),
                "pending-tool-operations": [o.get("op-id") for o in s.pending_tool_operations()],
                "run-contexts": len(s.run_contexts()),
                "meta": s.meta(),
                "grants": len(s.grants()) if s.grants() is not None else None,
            }
            if len(s.messages()) != got["messages"]:
                self.errors.append(
                    f"Session.load({path.name}): messages() and message_ids() differ in length"
                )
            if s.warnings():
                self.errors.append(f"Session.load({path.name}): warnings {s.warnings()!r}")
            # every section of the last run context resolves, through rendered-in if need be
            for sec in s.last_run_context().get("sections", ()):
                body = s.run_context_section(sec["digest"])
                if body is None or gen.data_digest([sec["name"], body]) != sec["digest"]:
                    self.errors.append(
                        f"Session.load({path.name}): run_context_section({sec['digest'][:12]}…) "
                        f"for section {sec['name']!r} returned {body!r:.60}"
                    )
        except Exception as e:
            self.errors.append(f"Session.load({path.name}) accessors: {type(e).__name__}: {e}")
            return
        finally:
            s.close()
        self.compare(f"Session.load({path.name})", got, ref)

    def verify_cli(self, path: Path, ref: dict[str, Any]) -> None:
        copy = self.fresh_copy(path)
        before = copy.stat()
        out = self.work / "replay-out.json"
        with open(out, "wb") as f:
            r = subprocess.run(
                [*self.cli, "replay", str(copy)], stdout=f, stderr=subprocess.PIPE, check=False
            )
        after = copy.stat()
        label = f"tailscope replay {path.name}"
        if (before.st_ino, before.st_size, before.st_mtime_ns) != (
            after.st_ino,
            after.st_size,
            after.st_mtime_ns,
        ):
            self.errors.append(f"{label}: the file was modified (inode, size or mtime changed)")
        if r.returncode != 0:
            why = r.stderr.decode(errors="replace").strip().splitlines()
            self.errors.append(f"{label}: exit {r.returncode}: {why[-1] if why else ''}")
            return
        try:
            view = orjson.loads(out.read_bytes())
            ids = [m["id"] for m in view["messages"]]
            got = {
                "messages": len(ids),
                "message-ids-sha256": ids_digest(ids),
                "tool-operations": len(view["tool-operations"]),
                "pending-tool-operations": [
                    o.get("op-id") for o in view["pending-tool-operations"]
                ],
                "run-contexts": len(view["run-contexts"]),
                "meta": view["meta"],
                "grants": len(view["grants"]) if view.get("grants") is not None else None,
            }
            if view.get("format") != "transcript-v1":
                self.errors.append(f"{label}: format is {view.get('format')!r}")
        except Exception as e:
            self.errors.append(f"{label}: unreadable output: {type(e).__name__}: {e}")
            return
        finally:
            out.unlink(missing_ok=True)
        self.compare(label, got, ref)

    def compare(self, label: str, got: dict[str, Any], ref: dict[str, Any]) -> None:
        for key, value in got.items():
            if value != ref.get(key):
                show = (lambda v: v) if key != "meta" else (lambda v: "...")
                self.errors.append(
                    f"{label}: {key} is {show(value)!r}, the reference replay says "
                    f"{show(ref.get(key))!r}"
                )


# --------------------------------------------------------------------------- report


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


def viewer_figures(data_dir: Path, label: str, timeout: float) -> dict[str, Any]:
    """The viewer in tmux on ``open_big``'s marked copy of a generated file."""
    import open_big

    path, marker, lines = open_big.marked_transcript(data_dir, label)
    loop = bare_loop(path)
    seen, peak = open_big.watch(
        f"{open_big.TAILSCOPE} {path}", [marker, f"{lines:,} lines"], timeout
    )
    return {
        "bytes": path.stat().st_size,
        "loop": loop,
        "first": seen[0],
        "complete": seen[1],
        "peak": peak,
    }


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
        f"(format v1, generator v{gen.GEN_VERSION}). Python {platform.python_version()}, "
        f"orjson {orjson.__version__}, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs, commit {commit or '?'}. `tailscope replay` is the whole "
        f"process with its output sent to /dev/null; its start-up floor (a one-line "
        f"transcript) is {floor}."
    )


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
