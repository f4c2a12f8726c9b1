"""``-`` for standard input (viewer/stdin_spool.py): every text command reads a piped
transcript as it reads the file, in each format, compressed or not; the copy it reads is
removed afterwards. (The viewer following a pipe, keys from the terminal: test_tmux.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from format_fixtures import FACTORIES

from story import as_if_written_now

NAME = "stdin.jsonl"


def tailscope(*args: str, stdin: bytes, tmp: Path) -> subprocess.CompletedProcess[bytes]:
    """The real command, its standard input a pipe, its temporary folder ``tmp``."""
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.run(
        [sys.executable, "-m", "viewer.cli", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
    )


def same_copy(out: bytes) -> bytes:
    """A command's output with the copy's folder (``tailscope-`` and a random name, as the
    text escapes it) said alike, whichever copy it read."""
    return re.sub(rb"tailscope-[^/]*/" + NAME.encode(), b"tailscope-X/" + NAME.encode(), out)


@pytest.mark.parametrize("fmt", sorted(FACTORIES))
@pytest.mark.parametrize(
    "command",
    [["replay"], ["peek"], ["diff"], ["export", "--format", "md"], ["export", "--format", "json"]],
)
def test_a_piped_transcript_reads_as_its_file(fmt: str, command: list[str], tmp_path) -> None:
    """(Its calls in flight too: interrupted, as in the file, idle for months, though
    the copy was made a moment ago: its mtime is its last line's time.)"""
    run = FACTORIES[fmt](tmp_path)
    written = run.read_bytes()
    tmp = tmp_path / "tmp"
    path = tmp / "tailscope-direct" / NAME  # (named as the copy is: peek, export name it)
    path.parent.mkdir(parents=True)
    path.write_bytes(written)
    os.utime(path, (run.stat().st_atime, run.stat().st_mtime))  # (as old as the run)
    piped = tailscope(*command, "-", stdin=written, tmp=tmp)
    direct = tailscope(*command, str(path), stdin=b"", tmp=tmp)
    assert piped.returncode == direct.returncode == 0, piped.stderr
    assert piped.stderr == b""
    assert same_copy(piped.stdout) == same_copy(direct.stdout)
    assert len(piped.stdout) > 200
    assert list(tmp.iterdir()) == [path.parent]  # the copy went with the command


def test_check_reads_standard_input_once_for_every_dash(tmp_path: Path) -> None:
    from codex_writer import zst_copy

    path = FACTORIES["codex"](tmp_path)
    packed = Path(zst_copy(str(path), str(tmp_path / "rollout.jsonl.zst")))
    done = tailscope("check", "-", str(path), "-", stdin=packed.read_bytes(), tmp=tmp_path / "t")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 3
    said = [line.partition(": ")[2] for line in lines]
    assert said[0] == said[1] == said[2]  # the compressed pipe read as the file
    assert said[0].startswith("ok (codex,")
    assert lines[0].split(": ")[0] == lines[2].split(": ")[0]  # (one copy, read twice)
    assert lines[0].endswith(said[0]) and NAME in lines[0]


def test_bad_input_on_a_pipe_is_said_with_the_copy_it_was_read_from(tmp_path: Path) -> None:
    done = tailscope("replay", "-", stdin=b'{"not": "a transcript"}\n', tmp=tmp_path / "t")
    assert done.returncode == 1
    assert done.stdout == b""
    err = done.stderr.decode()
    assert err.startswith("tailscope: ") and NAME in err and "not a transcript" in err
    assert "Traceback" not in err
    empty = tailscope("check", "-", stdin=b"", tmp=tmp_path / "t")
    assert empty.returncode == 1 and b": bad: " in empty.stdout
    assert list((tmp_path / "t").iterdir()) == []


def test_a_command_ended_while_it_copies_removes_its_copy(tmp_path: Path) -> None:
    """SIGTERM (or SIGHUP) while standard input is still being copied: the copy goes."""
    tmp = tmp_path / "t"
    tmp.mkdir()
    command = [sys.executable, "-m", "viewer.cli", "check", "-"]
    env = {**os.environ, "TMPDIR": str(tmp)}
    with subprocess.Popen(command, stdin=subprocess.PIPE, env=env) as running:
        assert running.stdin is not None
        running.stdin.write(FACTORIES["transcript-v1"](tmp_path).read_bytes())
        running.stdin.flush()  # (and kept open: the copy waits for more)
        deadline = time.monotonic() + 30
        while not list(tmp.glob(f"tailscope-*/{NAME}")):
            assert time.monotonic() < deadline, "no copy was made"
            time.sleep(0.05)
        running.send_signal(signal.SIGTERM)
        assert running.wait(timeout=30) == 128 + signal.SIGTERM
        running.stdin.close()
    assert list(tmp.iterdir()) == []


@pytest.mark.parametrize("argv", [["-"], ["view", "-"], []])
def test_the_viewer_on_a_pipe_without_a_terminal_says_so(argv: list[str], tmp_path) -> None:
    """``cat X | tailscope`` (or ``-``) views the pipe; with no terminal to draw on it
    says so at once, as for a file (and does not list this machine's sessions instead)."""
    path = FACTORIES["transcript-v1"](tmp_path)
    done = tailscope(*argv, stdin=path.read_bytes(), tmp=tmp_path / "t")
    assert done.returncode == 1
    assert b"the viewer needs a terminal" in done.stderr
    assert b"standard error" in done.stderr  # (its input is the pipe, asked for no keys)
    assert list((tmp_path / "t").iterdir()) == []


def test_no_terminal_to_read_keys_from_is_said(monkeypatch, capsys, tmp_path) -> None:
    """Standard input is the transcript; the keys come from ``/dev/tty``. Without one
    (a process with no controlling terminal) the viewer says so and nothing is moved."""
    import viewer.cli as cli

    def no_tty() -> int:
        raise OSError(6, "No such device or address")

    class Piped:
        def isatty(self) -> bool:
            return False

    monkeypatch.setattr(cli, "no_terminal", lambda keys_from_tty=False: None)
    monkeypatch.setattr(cli, "keys_from_terminal", no_tty)
    monkeypatch.setattr(sys, "stdin", Piped())
    assert cli.main(["-"]) == 1
    err = capsys.readouterr().err
    assert "no terminal (/dev/tty) to read keys from: No such device or address" in err


def test_the_viewer_refuses_a_terminal_as_its_transcript(monkeypatch, capsys) -> None:
    import viewer.cli as cli

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(cli, "no_terminal", lambda keys_from_tty=False: None)
    monkeypatch.setattr(sys, "stdin", Terminal())
    assert cli.main(["-"]) == 1
    assert "standard input is the terminal: pipe a transcript in" in capsys.readouterr().err


def test_standard_input_closed_or_uncopyable_is_said_as_such(tmp_path: Path) -> None:
    """(Both read "standard output: cannot write": the copy's error taken for the
    output's.) A closed standard input is said in the viewer's words by the text
    commands too (an audit: theirs was "cannot be read: Bad file descriptor")."""
    import resource

    tmp = tmp_path / "t"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    closed_words = "standard input is closed: there is no transcript to read"
    for args, said in (
        ("check -", closed_words),
        ("replay -", closed_words),
        ("export - --format md", closed_words),
        ("-", closed_words),
    ):
        closed = subprocess.run(
            ["sh", "-c", f"exec {sys.executable} -m viewer.cli {args} <&-"],
            capture_output=True,
            env=env,
            timeout=60,
        )
        assert closed.returncode == 1
        assert closed.stderr.decode() == f"tailscope: {said}\n"

    def small_files() -> None:  # (a 4 KB limit on a file written: the copy's write fails)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))

    big = FACTORIES["codex"](tmp_path).read_bytes()
    assert len(big) > 4096
    full = subprocess.run(
        [sys.executable, "-m", "viewer.cli", "check", "-"],
        input=big,
        capture_output=True,
        env=env,
        preexec_fn=small_files,
        timeout=60,
    )
    assert full.returncode == 1 and full.stdout == b""
    said = full.stderr.decode()
    assert said.startswith("tailscope: standard input: cannot be copied into ")
    assert said.endswith("after 4.1 KB: File too large\n"), said
    assert list(tmp.iterdir()) == []


def test_a_file_on_standard_input_is_read_where_it_is(tmp_path: Path) -> None:
    path = FACTORIES["claude-code"](tmp_path)
    tmp = tmp_path / "t"
    tmp.mkdir()
    with path.open("rb") as given:
        done = subprocess.run(
            [sys.executable, "-m", "viewer.cli", "check", "-"],
            stdin=given,
            capture_output=True,
            env={**os.environ, "TMPDIR": str(tmp)},
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith(f"{path}: ok (claude-code")  # (no copy made)
    # a file already read in part is read from where it was left, as a pipe of the rest
    cut = subprocess.run(
        ["sh", "-c", f"{{ read -r first; exec {sys.executable} -m viewer.cli check -; }} < {path}"],
        capture_output=True,
        env={**os.environ, "TMPDIR": str(tmp)},
        timeout=60,
    )
    piped = subprocess.run(
        [sys.executable, "-m", "viewer.cli", "check", "-"],
        input=b"".join(path.read_bytes().splitlines(keepends=True)[1:]),
        capture_output=True,
        env={**os.environ, "TMPDIR": str(tmp)},
        timeout=60,
    )
    assert cut.stdout.partition(b": ")[2] == piped.stdout.partition(b": ")[2] != b""
    assert NAME.encode() in cut.stdout


def test_output_into_a_file_named_dash_is_no_read_into_itself(tmp_path: Path) -> None:
    """``replay - > ./-``: the file named ``-`` is not the transcript (standard input)."""
    written = FACTORIES["transcript-v1"](tmp_path).read_bytes()
    with (tmp_path / "-").open("wb") as out:
        done = subprocess.run(
            [sys.executable, "-m", "viewer.cli", "replay", "-"],
            input=written,
            stdout=out,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "-").read_bytes().startswith(b'{"format":"transcript-v1"')


@pytest.mark.parametrize(
    "command", [["peek"], ["replay"], ["check"], ["diff"], ["export", "--format", "md"]]
)
def test_a_read_of_standard_input_whose_output_is_that_file_refuses(
    command: list[str], tmp_path: Path
) -> None:
    """``replay - < X >> X`` appended the replay to the transcript it read (``-`` was never
    compared with standard output); refused as ``replay X >> X`` is, the file untouched,
    and so where the shell has read a line of it first (it is then copied, not named)."""
    from helpers import fingerprint

    path = FACTORIES["transcript-v1"](tmp_path)
    before = fingerprint(path)
    argv = [sys.executable, "-m", "viewer.cli", command[0], "-", *command[1:]]
    with path.open("rb") as given, path.open("ab") as into:
        done = subprocess.run(argv, stdin=given, stdout=into, stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == 1
    said = f"tailscope: {path}: is where standard output goes; a read never writes into it\n"
    assert done.stderr.decode() == said
    assert fingerprint(path) == before
    shell = f"{{ read -r first; exec {' '.join(argv)}; }} < {path} >> {path}"
    cut = subprocess.run(["sh", "-c", shell], capture_output=True, cwd=tmp_path, timeout=60)
    assert cut.returncode == 1 and b"is where standard output goes" in cut.stderr
    assert fingerprint(path) == before


def test_an_export_of_a_copy_of_standard_input_is_offered_in_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(It was offered beside the copy, in the folder that goes when the viewer ends.)"""
    from viewer.screens.export import suggested_output
    from viewer.stdin_spool import spool_path

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "t"))
    (tmp_path / "t").mkdir()
    with spool_path() as path:
        assert suggested_output(str(path), "html") == str(tmp_path / "stdin.html")
    other = tmp_path / "t" / "run.jsonl"
    assert suggested_output(str(other), "md") == str(tmp_path / "t" / "run.md")


def test_the_copy_goes_in_the_signal_handler_before_the_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGHUP (its terminal closed) removes the copy of standard input in the handler
    itself, then ends the viewer at once, as it ends the viewer of a file: an exception
    raised in the screen's thread left Textual's shutdown waiting on its output queue (a
    viewer stayed, in CI, its copy with it)."""
    import signal

    from viewer.signal_end import ended_by_signals
    from viewer.stdin_spool import is_spool, remove_spool, spool_path

    class Exited(Exception):
        pass

    def exit_now(code: int) -> None:
        assert not path.parent.exists() and not is_spool(path)  # (gone before the exit)
        raise Exited(code)

    monkeypatch.setattr(os, "_exit", exit_now)
    with spool_path() as path, ended_by_signals(lambda: remove_spool(path)):
        assert path.exists() and is_spool(path)
        handler = signal.getsignal(signal.SIGHUP)
        assert callable(handler)
        with pytest.raises(Exited) as ended:
            handler(signal.SIGHUP, None)
        assert ended.value.args == (128 + signal.SIGHUP,)


@pytest.mark.parametrize("fmt", sorted(FACTORIES))
@pytest.mark.parametrize("ago", [5.0, None])  # (None: the run's own, months old)
def test_a_pipe_s_end_says_nothing_of_its_writer_its_last_line_s_time_does(
    fmt: str, ago: float | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cat live.jsonl | tailscope -`` ends at once, its writer at work elsewhere; so
    does ``zstdcat old.jsonl.zst | tailscope -``, its writer long gone. While the pipe
    is open, the copy's lock says its writer may be at work; once it has ended, the copy
    is judged by its last line's time (its mtime, set to it), as a lock-less writer's
    file is by its age: a run written a moment ago may still be written (its calls
    running), one long past has no writer. (The pipe's end read as the writer's, every
    call in flight was interrupted at once, the run however fresh.)"""
    from session_core.formats import by_name
    from session_core.text import size_text
    from session_core.times import epoch
    from viewer.stdin_spool import copy_as_it_comes, spool_path

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    format_ = by_name(fmt)
    run = FACTORIES[fmt](tmp_path / "run")
    written = run.read_bytes()
    if ago is not None:
        written = as_if_written_now(written, format_.written_at(run) or 0.0, ago)
    told: list[tuple[str, bool]] = []
    with spool_path() as path:
        writer = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert writer.stdin is not None and writer.stdout is not None
        copy = copy_as_it_comes(
            os.dup(writer.stdout.fileno()), path, lambda *said: told.append(said)
        )
        writer.stdout.close()
        writer.stdin.write(written)
        writer.stdin.flush()
        deadline = time.monotonic() + 20
        while path.stat().st_size < len(written):
            assert time.monotonic() < deadline, "the copy did not come"
            time.sleep(0.02)
        assert format_.writer_alive(path) is True  # the pipe open: its lock held
        writer.stdin.close()  # the pipe ends
        copy.join(20)
        assert not copy.is_alive() and writer.wait(20) == 0
        assert told == [(f"standard input ended, after {size_text(len(written))}", False)]
        last = epoch(format_.open(path).last_time())
        assert last is not None and path.stat().st_mtime == pytest.approx(last, abs=1e-3)
        if ago is None:
            assert format_.writer_alive(path) is False  # long past: no writer
        else:
            assert format_.writer_alive(path) is None  # may be at work: not known


def _bare_rollout(calls: int, pad: int = 0) -> bytes:
    """A mid-2025 Codex rollout (its first Rust writer's): a bare header with a time,
    bare items that say none, its last shell call still without a result."""
    lines: list[dict[str, object]] = [
        {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-05-20T17:24:21.484Z"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
    ]
    for n in range(calls):
        call = {"type": "function_call", "name": "shell", "call_id": f"c{n}"}
        lines.append({**call, "arguments": '{"command":["ls"]}'})
        lines.append({"type": "function_call_output", "call_id": f"c{n}", "output": "x" * pad})
    lines.append({"type": "function_call", "name": "shell", "call_id": "open", "arguments": "{}"})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_a_piped_rollout_whose_header_alone_says_a_time_is_as_old_as_its_header(
    tmp_path: Path,
) -> None:
    """``zstdcat old-rollout.jsonl.zst | tailscope check -``: its items say no time, its
    header that it began in May 2025, the latest time it states: the copy is that old,
    its run over and its open call interrupted at once (it read "1 run running", the
    pipe's end taken for the writer's last write)."""
    from session_core.formats import by_name
    from session_core.times import epoch

    checked = tailscope("check", "-", stdin=_bare_rollout(2), tmp=tmp_path / "tmp")
    assert checked.returncode == 0, checked.stderr
    assert b"1 run not finished" in checked.stdout and b"running" not in checked.stdout
    replayed = tailscope("replay", "-", stdin=_bare_rollout(2), tmp=tmp_path / "tmp")
    read = json.loads(replayed.stdout)
    assert [run["state"] for run in read["runs"]] == ["interrupted"]
    assert [op["state"] for op in read["tool-operations"]][-1] == "interrupted"
    # A big one: the window of its end read for its time holds no line with one.
    big = tmp_path / "big.jsonl"
    big.write_bytes(_bare_rollout(600, pad=8000))
    assert big.stat().st_size > 4 << 20
    begun = epoch("2025-05-20T17:24:21.484Z")
    assert by_name("codex").written_at(big) == pytest.approx(begun)
