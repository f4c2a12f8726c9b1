"""What ``replay.py`` measures and checks: ``Bench`` (the timed runs, each process's
peak RSS, the replayed views compared with the reference) and the viewer's figures."""

from __future__ import annotations

import gc
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import open_big
import orjson
from gen_common import data_digest


def ids_digest(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()


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
    """One run's measures, each of one file; what went wrong is kept in ``errors``."""

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
                if body is None or data_digest([sec["name"], body]) != sec["digest"]:
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


def viewer_figures(data_dir: Path, label: str, timeout: float) -> dict[str, Any]:
    """The viewer in tmux on ``open_big``'s marked copy of a generated file."""
    path, marker, lines = open_big.marked_transcript(data_dir, label)
    loop = open_big.bare_loop(path)
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
