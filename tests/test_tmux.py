"""The real command in a real terminal (tmux): what a person sees, and what the terminal obeys."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from story import as_if_written_now, write_story

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

TAILSCOPE = str(Path(sys.executable).with_name("tailscope"))


class Tmux:
    def __init__(self, command: list[str], width: int = 130, height: int = 40) -> None:
        self.name = f"tailscope-test-{uuid.uuid4().hex[:8]}"
        self.socket = f"ts-{uuid.uuid4().hex[:8]}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        self._run(
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(width),
            "-y",
            str(height),
            " ".join(command),
            env=env,
        )

    def _run(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=env, timeout=20
        )
        return done.stdout

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        for key in keys:
            self._run("send-keys", "-t", self.name, key)
            time.sleep(0.15)

    def title(self) -> str:
        return self._run("display-message", "-p", "-t", self.name, "#{pane_title}").strip()

    def alive(self) -> bool:
        return (
            subprocess.run(
                ["tmux", "-L", self.socket, "has-session", "-t", self.name], capture_output=True
            ).returncode
            == 0
        )

    def wait_for(self, text: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{self.screen()}")

    def close(self) -> None:
        self._run("kill-server")

    def __enter__(self) -> Tmux:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


@pytest.fixture
def tmux_app(tmp_path: Path):  # type: ignore[no-untyped-def]
    sessions: list[Tmux] = []

    def start(path: Path) -> Tmux:
        session = Tmux([TAILSCOPE, str(path), "; sleep 5"])
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.close()


def test_a_person_opens_a_transcript_and_moves_around(tmux_app, tmp_path: Path) -> None:
    path = tmp_path / "story.jsonl"
    write_story(path)
    term = tmux_app(path)
    screen = term.wait_for("6 sent next")
    assert "story.jsonl" in screen and "transcript-v1" in screen
    term.wait_for("[interrupted]")  # drawn after the header
    term.keys("r")
    screen = term.wait_for("raw view")
    term.keys("g")
    screen = term.wait_for("folded by the compaction at line 15")
    term.keys("3")
    term.wait_for("completed, settle never landed")
    term.wait_for("never dispatched")
    term.keys("q")
    deadline = time.monotonic() + 10
    while "story.jsonl" in term.screen() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "story.jsonl" not in term.screen()  # the app quit and gave the terminal back


def test_escape_sequences_in_a_transcript_do_not_reach_the_terminal(tmux_app, tmp_path) -> None:
    path = tmp_path / "hostile.jsonl"
    write_story(path, hostile=True)
    term = tmux_app(path)
    term.wait_for("6 sent next")
    term.keys("r")
    term.wait_for("raw view")  # the keys after it go to the raw view, once it is drawn
    term.keys("g", "j")
    term.wait_for("␛[2J")
    term.wait_for("␛]0;pwned␇")
    term.wait_for("[bold red]markup[/]")
    assert "pwned" not in term.title()
    assert "6 sent next" in term.screen()  # the screen was not cleared by the file


def test_a_live_append_shows_up(tmux_app, tmp_path: Path) -> None:
    from session_core import Message, Session

    path = tmp_path / "story.jsonl"
    write_story(path)
    term = tmux_app(path)
    term.wait_for("6 sent next")
    with Session.load(path) as session:
        session.append_message(Message(role="user", content="a line appended while watching"))
    term.wait_for("a line appended while watching")
    term.wait_for("7 sent next")


def test_a_missing_file_is_waited_for_then_shown(tmux_app, tmp_path: Path) -> None:
    from session_core import Message, Session

    path = tmp_path / "later.jsonl"
    term = tmux_app(path)  # `tailscope later.jsonl` before the agent has started
    term.wait_for("does not exist")
    with Session.create(path, meta={}) as session:
        session.append_message(Message(role="user", content="the agent started after all"))
    term.wait_for("the agent started after all")


def test_a_run_piped_in_is_followed_and_keys_come_from_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tail -f -n +1 X | tailscope -`` (a run on another machine, over ssh): the viewer
    follows the pipe as it comes, reads its keys from the terminal, and removes its copy
    of the pipe when it quits."""
    from session_core import Message, Session

    path = tmp_path / "story.jsonl"
    write_story(path)
    spool = tmp_path / "tmp"
    spool.mkdir()
    monkeypatch.setenv("TMPDIR", str(spool))
    with Tmux(["tail", "-f", "-n", "+1", str(path), "|", TAILSCOPE, "-", "; sleep 5"]) as term:
        screen = term.wait_for("6 sent next")
        assert "stdin.jsonl" in screen and "transcript-v1" in screen
        assert len(list(spool.glob("tailscope-*/stdin.jsonl"))) == 1  # (the copy read)
        term.wait_for("● live")  # (the pipe open: its writer may be at work)
        with Session.load(path) as session:
            session.append_message(Message(role="user", content="appended on the far side"))
        term.wait_for("appended on the far side")
        term.wait_for("7 sent next")
        term.keys("3")  # a key from the terminal, not the pipe
        term.wait_for("apply_patch")
        assert "call id" in term.screen()
        term.keys("q")
        deadline = time.monotonic() + 10
        while "stdin.jsonl" in term.screen() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "stdin.jsonl" not in term.screen()
        assert list(spool.iterdir()) == []  # the copy went with the viewer


def test_the_end_of_a_pipe_and_a_failed_copy_are_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pipe closed (ssh gone, the writer done) is said; a copy that could not be
    written (a 4 KB file-size limit here, as a full disk) is said as an error, not left
    to read as the writer's crash."""
    path = tmp_path / "story.jsonl"
    write_story(path)
    assert path.stat().st_size > 4096
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with Tmux(["cat", str(path), "|", TAILSCOPE, "-", "; sleep 5"]) as term:
        term.wait_for("6 sent next")
        term.wait_for("standard input ended, after")
        term.wait_for("● idle")  # (its last line months old: its writer is done)
        assert "1 interrupted" in term.screen()
    with Tmux(["sh", "-c", f"'ulimit -f 8; cat {path} | {TAILSCOPE} -'", "; sleep 5"]) as limited:
        limited.wait_for("cannot be copied into")  # (a toast: its words wrap)
        limited.wait_for("too large; what came before is shown")
        limited.wait_for("6 sent next")  # (and what came before is)


def test_a_pipe_that_ends_at_once_leaves_a_fresh_run_s_calls_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cat live.jsonl | tailscope -``: the pipe ends at once, its writer at work
    elsewhere; its last line, written a moment ago, says so (its calls were read as
    interrupted, the pipe's end taken for the writer's)."""
    from session_core.formats import by_name

    story = tmp_path / "story.jsonl"
    write_story(story)
    path = tmp_path / "live.jsonl"
    last = by_name("transcript-v1").written_at(story) or 0.0
    path.write_bytes(as_if_written_now(story.read_bytes(), last, 2.0))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with Tmux(["cat", str(path), "|", TAILSCOPE, "-", "; sleep 5"]) as term:
        term.wait_for("standard input ended, after")
        screen = term.wait_for("1 running")
        assert "● live" in screen and "interrupted" not in screen


def test_a_file_given_as_standard_input_is_followed_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_core import Message, Session

    path = tmp_path / "story.jsonl"
    write_story(path)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "none"))  # (no copy: none is made)
    with Tmux([TAILSCOPE, "-", "<", str(path), "; sleep 5"]) as term:
        screen = term.wait_for("6 sent next")
        assert "story.jsonl" in screen and "stdin.jsonl" not in screen
        with Session.load(path) as session:
            session.append_message(Message(role="user", content="appended to the file given"))
        term.wait_for("appended to the file given")


def test_a_piped_run_s_copy_goes_when_the_terminal_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "story.jsonl"
    write_story(path)
    spool = tmp_path / "tmp"
    spool.mkdir()
    monkeypatch.setenv("TMPDIR", str(spool))
    term = Tmux(["tail", "-f", "-n", "+1", str(path), "|", TAILSCOPE, "-"])
    try:
        term.wait_for("6 sent next")
        assert list(spool.iterdir())
    finally:
        term.close()  # (the terminal goes: SIGHUP)
    deadline = time.monotonic() + 15
    while list(spool.iterdir()):
        assert time.monotonic() < deadline, "the copy of standard input stayed"
        time.sleep(0.1)


def test_a_path_whose_folder_is_missing_is_refused(tmp_path: Path) -> None:
    import subprocess

    missing = tmp_path / "no-such-folder" / "t.jsonl"
    done = subprocess.run([TAILSCOPE, str(missing)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == f"tailscope: {missing}: no such file or directory, nor its folder\n"


def test_the_demo_cleans_up_when_its_terminal_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its terminal closed (SIGHUP), ``tailscope demo`` stops its writers and removes
    its folder, as on ``q``: the writers, in sessions of their own, ran on and the
    folder stayed."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    term = Tmux([TAILSCOPE, "demo"])
    try:
        deadline = time.monotonic() + 20
        while not list(tmp_path.glob("tailscope-demo-*/*.jsonl")):
            assert time.monotonic() < deadline, "the demo never started"
            time.sleep(0.1)
        term.wait_for("live")
    finally:
        term.close()  # (the terminal goes: SIGHUP)
    deadline = time.monotonic() + 15
    while list(tmp_path.glob("tailscope-demo-*")):
        assert time.monotonic() < deadline, "the demo's folder stayed"
        time.sleep(0.1)
    writers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
    assert writers.stdout.strip() == ""


def test_a_kill_gives_the_terminal_back(tmp_path: Path) -> None:
    """SIGTERM ends the viewer at once (``signal_end``), and the terminal is as it was:
    out of the alternate screen, no mouse reports, echo on (Textual's own restoring is
    skipped by ending at once: a ``kill`` left the shell in the viewer's modes)."""
    import re
    import signal

    path = tmp_path / "story.jsonl"
    write_story(path)
    modes = tmp_path / "modes"
    term = Tmux([TAILSCOPE, str(path), f"; echo ended $?; stty -a > {modes}; sleep 30"])
    try:
        term.wait_for("6 sent next")
        found = subprocess.run(  # (the viewer, not the shell that runs it)
            ["pgrep", "-f", f"{TAILSCOPE} {path}$"], capture_output=True, text=True
        )
        os.kill(int(found.stdout.split()[0]), signal.SIGTERM)
        term.wait_for("ended 143")
        deadline = time.monotonic() + 10
        while not modes.exists() or not modes.read_text():
            assert time.monotonic() < deadline, "stty never ran"
            time.sleep(0.1)
        said = term._run(
            "display-message", "-p", "-t", term.name, "#{alternate_on} #{mouse_any_flag}"
        )
        assert said.split() == ["0", "0"], said
        assert re.search(r"(?<![-\w])echo\b", modes.read_text()), modes.read_text()
    finally:
        term.close()
