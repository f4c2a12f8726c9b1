"""Open a big transcript as a user would, and time it beside lnav and toolong.

    python bench/open_big.py [--sizes 100MB,1GB] [--tools tailscope,lnav,toolong] [--smoke]

Each tool is launched in tmux on the same file (a generated v1 transcript
whose last message carries a marker), and the screen is read every 20 ms:

* **first screen**: from launch until the marker (the file's last message) is
  on screen;
* **complete**: tailscope only, until its header counts every line of the file
  (the replayed view, tool table and run contexts are then whole), beside a
  bare ``orjson.loads``-per-line loop over the same file;
* **peak RSS**: the highest VmHWM of the tool's processes, sampled while it runs;
* **paging**: tailscope only, in-process (headless): 100 page-downs from the
  middle of the file, each rendered.

lnav (Debian package) and toolong (PyPI, in its own virtualenv, since it pins
its own Textual) are measured when found; set TOOLONG to its ``tl`` binary.
Each tool measured gets a "measured in this run" line (its version, the time),
and each one asked for but not found a "not measured" line, so that a table
row never passes off another run's figure as this one's.

Every wait has a deadline (``--timeout``): a tool that never shows the file's
end, or a tailscope that never completes its replay, fails the run (exit 1)
with a message, and so does a figure that cannot be (``sanity.Figures``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_transcript as gen  # noqa: E402
from proc_status import status_bytes  # noqa: E402
from sanity import Deadline, Figures, fail  # noqa: E402

TAILSCOPE = str(Path(sys.executable).with_name("tailscope"))
WIDTH, HEIGHT = 160, 48


def parse_size(text: str) -> int:
    units = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}
    for unit, factor in units.items():
        if text.upper().endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


def marked_transcript(data_dir: Path, size_text: str) -> tuple[Path, str, int]:
    """A generated transcript whose last line is a message with a unique marker."""
    size = parse_size(size_text)
    path = data_dir / f"open-big-{size_text}.jsonl"
    marker_path = path.with_suffix(".marker")
    if not (path.exists() and marker_path.exists()):
        data_dir.mkdir(parents=True, exist_ok=True)
        gen.generate(path, size, seed=7)
        marker = f"END-OF-FILE-MARKER-{uuid.uuid4().hex[:12]}"
        envelope = {
            "id": str(uuid.uuid4()),
            "payload": {"content": marker, "role": "user"},
            "ts": "2026-08-09T23:59:59.000000Z",
            "type": "message",
            "v": 1,
        }
        with open(path, "ab") as fh:
            fh.write(orjson.dumps(envelope, option=orjson.OPT_SORT_KEYS) + b"\n")
        marker_path.write_text(marker)
    return path, marker_path.read_text(), count_lines(path)


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 24), b""))


BLOCK = 1 << 22  # what the loader reads at a time (session_core.reader.CHUNK)


def bare_loop(path: Path) -> float:
    """The yardstick every bench measures against: read the file in 4 MB blocks, split
    each into lines, ``orjson.loads`` each non-empty one. Never holds the whole file."""
    t0 = time.perf_counter()
    loads = orjson.loads
    carry = b""
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            if carry:
                block = carry + block
            lines = block.split(b"\n")
            carry = lines.pop()
            for line in lines:
                if line.strip():
                    loads(line)
    if carry.strip():
        loads(carry)
    return time.perf_counter() - t0


def warm_loop(path: Path, rounds: int = 2) -> float:
    """The loop's best of ``rounds`` after one read that warms the page cache, so that
    no tool measured after it is flattered by a loop that read the file cold."""
    bare_loop(path)
    return min(bare_loop(path) for _ in range(rounds))


class Tmux:
    def __init__(self, command: str) -> None:
        self.socket = f"open-big-{uuid.uuid4().hex[:8]}"
        self.started = time.perf_counter()
        subprocess.run(
            [
                "tmux",
                "-L",
                self.socket,
                "new-session",
                "-d",
                "-s",
                "b",
                "-x",
                str(WIDTH),
                "-y",
                str(HEIGHT),
                command,
            ],
            check=True,
        )

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "b"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def pids(self) -> list[int]:
        out = subprocess.run(
            ["tmux", "-L", self.socket, "display-message", "-p", "-t", "b", "#{pane_pid}"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if not out.isdigit():
            return []
        found = [int(out)]
        for pid in found:  # grows while walking: children of children
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as fh:
                    found.extend(int(c) for c in fh.read().split())
            except OSError:
                continue
        return found

    def _procs(self, name: str) -> Iterator[str]:
        """``/proc/PID/name`` of each of the pane's processes still there."""
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/{name}") as fh:
                    yield fh.read()
            except OSError:
                continue

    def peak_rss(self) -> int:
        return max((status_bytes(status) or 0 for status in self._procs("status")), default=0)

    def cpu_seconds(self) -> float:
        """CPU seconds (user and system) the pane's processes have used so far."""
        ticks = 0
        for stat in self._procs("stat"):
            fields = stat.rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime (stat's 14th, 15th)
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], check=False)


def watch(
    command: str, until: list[str], timeout: float, cpu: list[float] | None = None
) -> tuple[list[float | None], int]:
    """Launch in tmux; seconds until each text in ``until`` was on screen; peak RSS.
    ``cpu``: given, the CPU seconds the tool used until then is appended to it (on a
    busy machine a steadier figure than the seconds)."""
    term = Tmux(command)
    seen: list[float | None] = [None] * len(until)
    peak = 0
    try:
        while time.perf_counter() - term.started < timeout:
            screen = term.screen()
            now = time.perf_counter() - term.started
            for i, text in enumerate(until):
                if seen[i] is None and text in screen:
                    seen[i] = now
            peak = max(peak, term.peak_rss())
            if all(s is not None for s in seen):
                if cpu is not None:
                    cpu.append(term.cpu_seconds())
                break
            time.sleep(0.02)
        time.sleep(0.3)
        peak = max(peak, term.peak_rss())
    finally:
        term.close()
    return seen, peak


async def replayed(app: Any, pilot: Any, lines: int, timeout: float = 600.0) -> None:
    """Wait (headless) until the app has replayed the file's ``lines``, its preview gone;
    fail the run if that takes more than ``timeout`` seconds."""
    screen = app.file_screen
    deadline = Deadline(timeout, f"the headless app replaying all {lines:,} lines")
    while screen.transcript.lines < lines or screen._previewing or not screen._loaded:
        deadline.check()
        await pilot.pause(0.05)


def paging(path: Path, lines: int, timeout: float = 600.0) -> float:
    """Seconds per page-down from the middle of the file, rendered (headless, in-process).

    Each step is the widget's own work: the page action, then every line of the
    screen rendered as the compositor would ask for it (Pilot's key delivery,
    which waits for idle, is left out).
    """
    from viewer.app import TailscopeApp
    from viewer.widgets.items_view import ItemsView

    async def run() -> float:
        app = TailscopeApp(path)
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            await replayed(app, pilot, lines, timeout)
            view = app.query_one(ItemsView)
            await pilot.press("r")  # the raw view: every line of the file
            await pilot.pause(0.5)
            view.move_to(len(view.items) // 2)
            await pilot.pause(0.2)
            height = view.size.height
            t0 = time.perf_counter()
            for _ in range(100):
                view.action_page(1)
                for y in range(height):
                    view.render_line(y)
            return (time.perf_counter() - t0) / 100

    return asyncio.run(run())


def mb(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MB"


def version(tool: str, command: str) -> str:
    """What the tool says its version is (the first line of ``--version`` / ``-V``)."""
    if tool == "tailscope":
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        try:
            return f"tailscope {dist_version('tailscope')}"
        except PackageNotFoundError:
            return "tailscope (this checkout)"
    flag = "-V" if tool == "lnav" else "--version"
    try:
        out = subprocess.run(
            [command.split()[0], flag], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return tool
    return (out.strip().splitlines() or [tool])[0]


def viewer_options(parser: argparse.ArgumentParser, tools: str, timeout: float, smoke: str) -> None:
    """The options of a bench that opens files in the viewer under tmux (``open_big``,
    ``model_scale``): the tools it races, its data folder, its time limit, its smoke run."""
    parser.add_argument("--tools", default=tools)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--timeout", type=float, default=timeout)
    parser.add_argument("--smoke", action="store_true", help=smoke)


def as_installed() -> None:
    """Our packages' bytecode compiled, as a wheel's install leaves it: without it (an
    editable install run with PYTHONDONTWRITEBYTECODE, as on these machines) each
    process measured would compile our modules again at start (about 50 ms)."""
    import compileall

    import session_core
    import viewer

    for package in (session_core, viewer):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def have_tmux(bench: str) -> bool:
    """tmux is there (else ``bench`` says it is needed)."""
    if shutil.which("tmux") is None:
        print(f"{bench}: tmux is needed", file=sys.stderr)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100MB,1GB")
    viewer_options(parser, "tailscope,lnav,toolong", 180.0, "2MB, tailscope only (for CI)")
    args = parser.parse_args(argv)
    if not have_tmux("open_big"):
        return 1
    as_installed()
    sizes = ["2MB"] if args.smoke else args.sizes.split(",")
    tools = ["tailscope"] if args.smoke else args.tools.split(",")
    toolong = os.environ.get("TOOLONG") or shutil.which("tl") or "/tmp/toolong-venv/bin/tl"
    rows = []
    figures = Figures()
    measured: dict[str, str] = {}  # tool -> its version, for the tools run
    missing: set[str] = set()
    for size_text in sizes:
        path, marker, lines = marked_transcript(args.data_dir, size_text)
        file_size = path.stat().st_size
        loop = bare_loop(path)
        figures.positive(f"{size_text}: the bare orjson loop", loop)
        for tool in tools:
            if tool == "tailscope":
                command = f"{TAILSCOPE} {path}"
                until = [marker, f"{lines:,} lines"]
            elif tool == "lnav":
                if shutil.which("lnav") is None:
                    missing.add(tool)
                    continue
                command, until = f"lnav {path}", [marker]
            elif tool == "toolong":
                if not os.path.exists(toolong):
                    missing.add(tool)
                    continue
                command, until = f"{toolong} {path}", [marker]
            else:
                fail(f"unknown tool {tool!r} (tailscope, lnav or toolong)")
            measured.setdefault(tool, version(tool, command))
            seen, peak = watch(command, until, args.timeout)
            first = seen[0]
            complete = seen[1] if len(seen) > 1 else None
            if first is None:
                fail(f"{size_text} {tool}: the file's end not on screen after {args.timeout:g} s")
            if tool == "tailscope" and complete is None:
                fail(
                    f"{size_text} tailscope: the header never counted all {lines:,} lines "
                    f"within {args.timeout:g} s"
                )
            page = (
                paging(path, lines, args.timeout)
                if tool == "tailscope" and not args.smoke
                else None
            )
            rows.append((size_text, tool, first, complete, loop, peak, file_size, page))
            where = f"{size_text} {tool}"
            figures.positive(f"{where}: the file's end on screen", first)
            figures.positive(f"{where}: peak RSS", peak)
            if tool == "tailscope":
                figures.positive(f"{where}: the replayed view complete", complete)
            if page is not None:
                figures.positive(f"{where}: a page-down", page)
            print(f"{size_text} {tool}: first screen {first}, complete {complete}, peak {mb(peak)}")
    print()
    columns = (
        "file",
        "tool",
        "first screen",
        "replayed view complete",
        "÷ orjson loop",
        "peak RSS",
        "RSS ÷ file",
        "ms per page",
    )
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for size_text, tool, first, complete, loop, peak, file_size, page in rows:

        def secs(value: float | None) -> str:
            return f"{value:.2f} s" if value is not None else "not seen"

        ratio = f"{complete / loop:.1f}×" if complete else "—"
        done = secs(complete) if tool == "tailscope" else "(no replay)"
        per_page = f"{page * 1000:.1f}" if page is not None else "—"
        ratio = ratio if tool == "tailscope" else "—"
        cells = (size_text, tool, secs(first), done, ratio, mb(peak), f"{peak / file_size:.0%}")
        print("| " + " | ".join(cells) + f" | {per_page} |")
    loops = {r[0]: r[4] for r in rows}
    print("\nbare orjson.loads loop: " + ", ".join(f"{k} {v:.2f} s" for k, v in loops.items()))
    when = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    for tool, said in measured.items():
        print(f"measured in this run ({when}): {tool} — {said}")
    for tool in sorted(missing):
        print(f"not measured in this run: {tool} (not installed; its row needs its own run)")
    return figures.verdict()


if __name__ == "__main__":
    sys.exit(main())
