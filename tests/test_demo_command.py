"""``tailscope demo`` run: the writer process dies by SIGKILL, ``run_demo`` opens (a fake)
viewer on each format's file and cleans up, the command line passes the format."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import pytest
from demo_helpers import pending_in_copy, run_write_command

from session_core import agentgo, peek
from session_core.artifacts import artifact_dir
from session_core.formats.base import IDLE_SECONDS
from viewer import demo
from viewer.cli import main as cli_main
from viewer.demo import command as demo_command

# --- the writer subprocess and run_demo -------------------------------------------------


def test_write_command_dies_by_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "agent-run.jsonl"
    run_write_command(path)
    assert peek(path).warnings == []
    assert pending_in_copy(path, tmp_path / "copy") == 2
    assert any(Path(artifact_dir(path)).iterdir())


def _recorded_writers(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    """The demo's writer processes, recorded as it starts them (its ``subprocess``)."""
    writers: list[subprocess.Popen[bytes]] = []

    def recording_popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc: subprocess.Popen[bytes] = subprocess.Popen(*args, **kwargs)
        writers.append(proc)
        return proc

    shim = types.SimpleNamespace(
        Popen=recording_popen,
        DEVNULL=subprocess.DEVNULL,
        TimeoutExpired=subprocess.TimeoutExpired,
    )
    monkeypatch.setattr(demo_command, "subprocess", shim)
    return writers


def _fake_viewer(monkeypatch: pytest.MonkeyPatch, opened: list[str]) -> None:
    """Stand-in for viewer.app: 'runs' until every writer the demo started has died.

    The demo's writer processes are recorded as it starts them; the viewer waits for
    each to end its story the way it does, by SIGKILL (the crash), and fails loudly
    should one still run at the deadline or end otherwise.
    """
    writers = _recorded_writers(monkeypatch)

    class FakeApp:
        return_code = 0  # (as Textual's app has it, once run)

        def __init__(self, path: str) -> None:
            self.path = path

        def run(self) -> None:
            opened.append(self.path)
            assert writers, "the demo started no writer"
            for writer in writers:
                try:
                    code = writer.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    raise AssertionError(
                        f"a demo writer still runs after 30 s: {writer.args}"
                    ) from None
                assert code == -signal.SIGKILL, f"a demo writer ended with {code}: {writer.args}"

    module = types.ModuleType("viewer.app")
    module.TailscopeApp = FakeApp  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "viewer.app", module)


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The paths the demo's (fake) viewer opens; the demo's temporary folders in tmp_path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    paths: list[str] = []
    _fake_viewer(monkeypatch, paths)
    return paths


def test_run_demo_cleans_up(opened: list[str]) -> None:
    assert demo.run_demo(speed=1000.0) == 0
    assert len(opened) == 1
    assert Path(opened[0]).name == "agent-run.jsonl"
    assert Path(opened[0]).parent.name.startswith("tailscope-demo-")
    assert not Path(opened[0]).parent.exists()


def test_run_demo_keep(
    opened: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo.run_demo(speed=1000.0, keep=True) == 0
    path = Path(opened[0])
    assert str(path.parent) in capsys.readouterr().out
    assert peek(path).warnings == []
    assert pending_in_copy(path, tmp_path / "copy") == 2


def test_the_kept_files_say_until_when_a_new_read_reads_their_writer_at_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The viewer that watched the demo's writers die says them gone; ``check`` on a kept
    file whose writer takes no lock read it at work (calls running) for two minutes yet,
    and the parting line did not say so. It says until when, by the latest such file
    (agentgo's writers all lock: its file is read ended at once, and does not count)."""
    v1 = tmp_path / "agent-run.jsonl"
    v1.write_text('{"type":"session-meta","ts":"2026-01-01T00:00:00Z","data":{}}\n')
    go = tmp_path / "agentgo-run.jsonl"
    go.write_text("{}\n")
    written = time.time() - 30
    os.utime(v1, (written, written))
    os.utime(go, (written + 20, written + 20))
    said = demo_command.kept_said(str(tmp_path))
    until = time.strftime("%H:%M:%S", time.localtime(written + IDLE_SECONDS))
    assert said.startswith(f"tailscope demo: the transcripts are kept in {tmp_path}\n")
    assert f"their writers are gone; until {until} (two minutes of quiet)" in said, said
    assert "(tailscope check)" in said


def test_run_demo_writes_both_formats(
    opened: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo.run_demo(speed=1000.0, keep=True, format="agentgo-v1") == 0
    path = Path(opened[0])
    assert path.name == "agentgo-run.jsonl"
    assert str(path.parent) in capsys.readouterr().out
    view = agentgo.read_view(path)
    assert len(view.gaps()) == 3 and view.checkpoints
    v1 = path.parent / "agent-run.jsonl"
    assert peek(v1).format == "transcript-v1" and peek(v1).warnings == []
    assert pending_in_copy(v1, tmp_path / "copy") == 2


def test_run_demo_default_opens_v1_and_refuses_unknown_formats(
    opened: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo.run_demo(speed=0) == 0
    assert Path(opened[0]).name == "agent-run.jsonl"
    assert demo.run_demo(format="nope") == 2
    assert "unknown format" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # both runs cleaned up (nothing was created)


def test_demo_command_passes_the_format(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(demo, "run_demo", lambda **kw: calls.append(kw) or 0)
    monkeypatch.setattr("viewer.cli.no_terminal", lambda: None)  # (a test has no terminal)
    assert cli_main(["demo", "--format", "agentgo-v1", "--speed", "3"]) == 0
    assert cli_main(["demo"]) == 0
    assert calls == [
        {"speed": 3.0, "keep": False, "format": "agentgo-v1"},
        {"speed": 1.0, "keep": False, "format": "transcript-v1"},
    ]
    with pytest.raises(SystemExit) as usage:
        cli_main(["demo", "--format", "v3"])
    assert usage.value.code == 2


def test_a_signal_kills_the_writers_and_removes_the_folder_before_ending_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """SIGHUP (its terminal closed) under the demo's viewer: its writers are killed and
    its folder removed in the handler itself, then the process ends at once, as the
    viewer of a file ends (a SystemExit raised wherever the screen's main thread was could
    leave Textual's shutdown waiting for ever, the writers and folder with it)."""
    import os

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    writers = _recorded_writers(monkeypatch)

    class Exited(Exception):
        pass

    def exit_now(code: int) -> None:
        for writer in writers:  # (killed and reaped: no process of its pid is left)
            assert not os.path.exists(f"/proc/{writer.pid}"), writer.args
        assert list(tmp_path.iterdir()) == []  # (the folder gone before the exit)
        raise Exited(code)

    class HungUpApp:
        return_code = 0

        def __init__(self, path: str) -> None:
            self.path = path

        def run(self) -> None:
            assert len(writers) == 4 and all(w.poll() is None for w in writers)
            assert Path(self.path).exists()
            handler = signal.getsignal(signal.SIGHUP)
            assert callable(handler)
            handler(signal.SIGHUP, None)

    module = types.ModuleType("viewer.app")
    module.TailscopeApp = HungUpApp  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "viewer.app", module)
    monkeypatch.setattr(os, "_exit", exit_now)
    before = signal.getsignal(signal.SIGHUP)
    with pytest.raises(Exited) as ended:
        demo.run_demo(speed=1.0)
    assert ended.value.args == (128 + signal.SIGHUP,)
    assert signal.getsignal(signal.SIGHUP) == before  # (put back as it unwound)
