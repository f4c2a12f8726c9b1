"""``tailscope demo``: the writers beside the viewer, and ``python -m viewer.demo write``."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

from session_core.formats import by_name
from session_core.formats.base import IDLE_SECONDS

from ..signal_end import ended_by_signals
from .recorders import DEMO_FILES, RECORDERS
from .script import simulate_run

# --- the command: the writer beside the viewer -------------------------------------------


def run_demo(speed: float = 1.0, keep: bool = False, format: str = "transcript-v1") -> int:
    """Write live simulated runs (every format) into a temporary directory; view one of them.

    One writer process a format writes the same story (``DEMO_FILES``: transcript v1,
    agentgo-v1, a Claude Code session and a Codex rollout, the last two laid out as
    under ``~/.claude`` and ``~/.codex``); the viewer opens the one of ``format``.
    """
    if format not in DEMO_FILES:
        print(
            f"tailscope demo: unknown format {format!r} (known: {', '.join(DEMO_FILES)})",
            file=sys.stderr,
        )
        return 2
    directory = tempfile.mkdtemp(prefix="tailscope-demo-")
    writers: list[subprocess.Popen[bytes]] = []
    # A terminal closed under it (SIGHUP), or SIGTERM: its writers and folder go in the
    # handler itself, then it ends at once (an exception raised in the screen's thread
    # can leave Textual's shutdown waiting for ever: ``ended_by_signals``).
    with ended_by_signals(lambda: _end_now(writers, directory, keep)):
        try:
            return _view_demo(directory, writers, speed, format)
        finally:
            for writer in writers:
                if writer.poll() is None:
                    writer.terminate()
            for writer in writers:
                try:
                    writer.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    writer.kill()
                    writer.wait()
            if keep:
                print(kept_said(directory))
            else:
                shutil.rmtree(directory, ignore_errors=True)


def _view_demo(
    directory: str, writers: list[subprocess.Popen[bytes]], speed: float, format: str
) -> int:
    """The writers started (into ``writers``, as each is), then the viewer on the file of
    ``format`` once every file has content: its exit code (1: the agent did not start)."""
    paths = {fmt: os.path.join(directory, name) for fmt, name in DEMO_FILES.items()}
    log_path = os.path.join(directory, "writer.log")
    with open(log_path, "ab") as log:
        for fmt, path in paths.items():
            command = [sys.executable, "-m", "viewer.demo", "write", path]
            command += ["--speed", str(speed), "--format", fmt]
            writers.append(
                subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,  # keep the terminal's signals for the viewer
                )
            )
    deadline = time.monotonic() + 10.0
    while not all(_has_content(p) for p in paths.values()):
        # A writer that is gone before its file has content never started (a fast
        # one may well have finished, and died, already).
        gone = [
            w.poll() is not None and not _has_content(p)
            for w, p in zip(writers, paths.values(), strict=True)
        ]
        if any(gone) or time.monotonic() > deadline:
            with open(log_path, "rb") as fh:
                detail = fh.read().decode("utf-8", "replace").strip()
            print(
                "tailscope demo: the simulated agent did not start"
                + (f":\n{detail}" if detail else ""),
                file=sys.stderr,
            )
            return 1
        time.sleep(0.02)
    from viewer.app import TailscopeApp

    app = TailscopeApp(paths[format])
    app.run()
    return app.return_code or 0  # (1: it ended on an error it showed)


def kept_said(directory: str) -> str:
    """The demo's parting line where its files are kept: where, and, its writers being
    dead (killed, as a crash is), until when a new read (``check``) of a file whose writer
    takes no lock still reads that writer as at work, its calls running: the one rule
    (``TranscriptFormat.writer_alive``) gives it ``IDLE_SECONDS`` of quiet. The viewer
    that watched it go already says it gone."""
    said = f"tailscope demo: the transcripts are kept in {directory}"
    quiet = []
    for fmt, name in DEMO_FILES.items():
        path = os.path.join(directory, name)
        # (not ``writer_alive``: this process saw the writers go, a new one did not)
        with contextlib.suppress(OSError):
            if not by_name(fmt).no_lock_no_writer(path):
                quiet.append(os.stat(path).st_mtime)
    if quiet:
        until = time.strftime("%H:%M:%S", time.localtime(max(quiet) + IDLE_SECONDS))
        said += (
            f"\ntheir writers are gone; until {until} (two minutes of quiet) a new read"
            " (tailscope check) of a file whose writer takes no lock still reads that writer as at"
            " work, its calls running"
        )
    return said


def _end_now(writers: list[subprocess.Popen[bytes]], directory: str, keep: bool) -> None:
    """From the SIGHUP or SIGTERM handler: the writers killed and reaped, then their folder
    removed (unless kept). Not through ``Popen.wait``: the main thread the handler
    interrupted may hold its lock, waiting for them itself (``run_demo``'s end)."""
    for writer in writers:
        if writer.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(writer.pid, signal.SIGKILL)
    for writer in writers:
        if writer.returncode is None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(writer.pid, 0)
    if not keep:
        shutil.rmtree(directory, ignore_errors=True)


def _has_content(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _die() -> None:
    """A real crash: no close, no flush, no atexit."""
    os.kill(os.getpid(), signal.SIGKILL)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m viewer.demo", description="the tailscope demo's simulated agent"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write a simulated run to PATH, then die by SIGKILL")
    w.add_argument("path")
    w.add_argument("--speed", type=float, default=1.0, help="pace multiplier; 0: no pauses")
    w.add_argument("--format", default="transcript-v1", choices=sorted(RECORDERS))
    w.add_argument("--no-crash", action="store_true", help="finish cleanly instead")
    args = parser.parse_args(argv)
    simulate_run(
        args.path,
        speed=args.speed,
        crash=not args.no_crash,
        format=args.format,
        at_crash=_die,
    )
    if not args.no_crash:
        _die()
    return 0
