"""``tailscope peek|replay|check|diff``: exit codes, JSON shapes (api.md) and the diff text."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from format_fixtures import FACTORIES
from helpers import run_cli

from session_core import Message, Session
from session_core.codec import section_digest
from viewer.cli import main

REPO = Path(__file__).resolve().parent.parent
REPLAY_KEYS = {
    "format",
    "meta",
    "messages",
    "grants",
    "tool-operations",
    "pending-tool-operations",
    "run-contexts",
    "compactions",
    "usage",
    "warnings",
    "other-records",  # (every format's: its records of a type the spec does not name)
}


@pytest.fixture
def story(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "story.jsonl"
    ids: dict[str, str] = {}
    with Session.create(path, meta={"agent": "sadna"}) as s:
        ids["sys"] = s.append_message(Message(role="system", content="be good", sysprompt=True))
        ids["u1"] = s.append_message(Message(role="user", content="first question"))
        call = {"id": "c1", "type": "function", "function": {"name": "fs_read", "arguments": "{}"}}
        ids["a1"] = s.append_message(
            Message(role="assistant", content="", tool_calls=(call,)), extra={"reasoning": "r"}
        )
        ids["op1"] = s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments="{}")
        ids["t1"] = s.append_message(
            Message(role="tool", content="a very long tool result", tool_call_id="c1")
        )
        s.append_tool_settled(op_id=ids["op1"], outcome="completed", duration=0.1234567)
        ids["op2"] = s.append_tool_dispatched(call_id="c2", tool="sh", arguments={"cmd": "ls"})
        s.append_grants([{"tool": "fs_read", "scope": "always"}])
        ids["u2"] = s.append_message(Message(role="user", content="second", depth=2))
        ids["el"] = s.append_elision([{"id": ids["t1"], "stub": "[tool result elided]"}])
        ids["c"] = s.append_compaction(
            summary="they asked, it read",
            replaces_through_id=ids["a1"],
            tokens_before=900,
            tokens_after=120,
        )
        s.append_run_context(
            run_id="r1",
            digest="d1",
            facts=[("date", "2026-08-09")],
            sections=[{"name": "id", "digest": section_digest("id", "me"), "rendered": "me"}],
        )
    return path, ids


def test_peek_prints_the_raw_file(story, capsys) -> None:
    path, _ids = story
    code, out, err = run_cli(capsys, "peek", str(path))
    assert code == 0 and err == ""
    result = orjson.loads(out)
    assert set(result) >= {"path", "size", "meta", "envelopes", "messages", "warnings"}
    assert "error" not in result
    assert result["path"] == str(path)
    assert result["size"] == path.stat().st_size
    assert result["meta"] == {"agent": "sadna"}
    assert result["envelopes"][0]["type"] == "session-meta"
    # raw: the folded and the elided messages are there as written
    assert [m["content"] for m in result["messages"]][:2] == ["be good", "first question"]
    assert "a very long tool result" in [m["content"] for m in result["messages"]]


def test_peek_exits_1_with_an_error(tmp_path: Path, capsys) -> None:
    code, out, _err = run_cli(capsys, "peek", str(tmp_path / "missing.jsonl"))
    assert code == 1
    assert "error" in orjson.loads(out)


def test_replay_prints_the_replayed_view(story, capsys) -> None:
    path, ids = story
    code, out, err = run_cli(capsys, "replay", str(path))
    assert code == 0 and err == ""
    view: dict[str, Any] = orjson.loads(out)
    assert set(view) == REPLAY_KEYS
    assert view["format"] == "transcript-v1"
    assert view["meta"] == {"agent": "sadna"}
    messages = view["messages"]
    assert [m["id"] for m in messages] == [ids["sys"], ids["c"], ids["t1"], ids["u2"]]
    assert messages[0] == {
        "id": ids["sys"],
        "role": "system",
        "content": "be good",
        "sysprompt": True,
    }
    assert messages[1] == {"id": ids["c"], "role": "user", "content": "they asked, it read"}
    assert messages[2] == {
        "id": ids["t1"],
        "role": "tool",
        "content": "[tool result elided]",
        "tool-call-id": "c1",
    }
    assert messages[3] == {"id": ids["u2"], "role": "user", "content": "second", "depth": 2}
    assert view["grants"] == [{"tool": "fs_read", "scope": "always"}]
    ops = view["tool-operations"]
    assert [op["op-id"] for op in ops] == [ids["op1"], ids["op2"]]
    assert ops[0]["settled"] is True and ops[0]["outcome"] == "completed"
    assert ops[0]["duration"] == 0.123457
    assert ops[1]["arguments"] == {"cmd": "ls"} and ops[1]["settled"] is False
    assert [op["op-id"] for op in view["pending-tool-operations"]] == [ids["op2"]]
    assert view["run-contexts"][0]["run-id"] == "r1"
    assert view["run-contexts"][0]["facts"] == [["date", "2026-08-09"]]
    assert view["warnings"] == []


def test_replay_pretty_is_the_same_json(story, capsys) -> None:
    path, _ = story
    _, plain, _ = run_cli(capsys, "replay", str(path))
    _, pretty, _ = run_cli(capsys, "replay", "--pretty", str(path))
    assert orjson.loads(plain) == orjson.loads(pretty)
    assert pretty.count("\n") > plain.count("\n")


def test_replay_reports_a_malformed_final_line_and_leaves_it(story, capsys) -> None:
    path, _ids = story
    with path.open("ab") as fh:
        fh.write(b'{"id":"cut","payload":{"role":"user","content":"ha')
    data = path.read_bytes()
    code, out, _err = run_cli(capsys, "replay", str(path))
    assert code == 0
    view = orjson.loads(out)
    assert len(view["warnings"]) == 1
    assert "line 14" in view["warnings"][0]
    assert "cut" not in [m["id"] for m in view["messages"]]
    assert path.read_bytes() == data


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.replace(b'"v":1}', b'"v":2}', 3),
        lambda d: d.split(b"\n", 1)[1],
        lambda d: d.replace(b"\n", b"\nnot json\n", 2),
        lambda d: b"",
    ],
)
def test_replay_refuses_with_one_line_and_exit_1(story, capsys, damage) -> None:
    path, _ = story
    data = damage(path.read_bytes())
    path.write_bytes(data)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("tailscope: ") and str(path) in err
    assert path.read_bytes() == data


def test_check(story, tmp_path: Path, capsys) -> None:
    path, _ = story
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0
    said = "ok (transcript-v1, 4 messages sent next, 2 tool operations, 1 tool operation pending"
    assert out.startswith(f"{path}: {said}")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"nope\n")
    code, out, _ = run_cli(capsys, "check", str(path), str(bad))
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{path}: ok")
    assert lines[1].startswith(f"{bad}: bad: ") and "line 1" in lines[1]


def test_diff_names_folds_and_elisions(story, capsys) -> None:
    path, ids = story
    code, out, _ = run_cli(capsys, "diff", str(path))
    assert code == 0
    lines = out.splitlines()
    assert "5 message lines in the file, 4 messages sent next" in lines[0]
    assert "1 compaction, 1 elision" in lines[0]
    # the folded messages, each with the compaction that folded it
    for key in ("u1", "a1"):
        row = next(i for i, line in enumerate(lines) if ids[key][:8] in line)
        assert lines[row].startswith("-")
        assert f"folded by compaction {ids['c'][:8]}" in lines[row + 1]
    # the sticky message survives as written
    assert next(line for line in lines if ids["sys"][:8] in line).startswith("=")
    # the elided message, with its original and its stub
    row = next(i for i, line in enumerate(lines) if ids["t1"][:8] in line)
    assert lines[row].startswith("~")
    block = "\n".join(lines[row : row + 4])
    assert "stub [tool result elided]" in block
    assert "original: a very long tool result" in block
    assert "sent:     [tool result elided]" in block
    # the compaction's summary row
    summary = next(i for i, line in enumerate(lines) if line.startswith("+"))
    assert "compaction through" in lines[summary] and "folded 2" in lines[summary]
    assert "tokens 900 -> 120" in lines[summary]
    assert "summary: they asked, it read" in lines[summary + 1]


def test_diff_of_a_bad_file_exits_1(tmp_path: Path, capsys) -> None:
    code, out, err = run_cli(capsys, "diff", str(tmp_path / "missing.jsonl"))
    assert code == 1 and out == "" and err.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [["peek"], ["replay"], ["diff"], ["check"], ["replay", "a", "b"], ["--no-such-flag"],
     ["peek", "--bogus", "x"]],
)  # fmt: skip
def test_usage_errors_exit_2(args: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2


def test_an_unknown_option_is_named_and_help_is_help(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tailscope --bogus`` said "the following arguments are required: command";
    ``tailscope help`` opened the viewer on a file named help (where there is none)."""
    with pytest.raises(SystemExit) as info:
        main(["--bogus"])
    assert info.value.code == 2 and "unrecognized option: --bogus" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["help"])
    assert info.value.code == 0 and "Watch, browse and compare" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "code"), [(["peek"], 2), (["replay", "/nonexistent/x.jsonl"], 1), (["check"], 2)]
)
def test_exit_codes_of_the_real_command(args: list[str], code: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "viewer.cli", *args], capture_output=True, cwd=REPO, timeout=60
    )
    assert proc.returncode == code
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_a_value_nested_as_deep_as_orjson_reads_is_never_a_traceback(
    name: str, tmp_path: Path
) -> None:
    """orjson reads a value nested 1,024 levels deep, past Python's own recursion limit:
    each line's middle string made such a value, every command says what it makes of the
    file (exit 0 or 1), and none ends in a traceback."""
    sample = FACTORIES[name](tmp_path)
    deep = b"[" * 1000 + b"]" * 1000
    lines = sample.read_bytes().split(b"\n")
    for at, line in enumerate(lines[1:-1], start=1):
        strings = list(re.finditer(rb'":\s*("(?:[^"\\]|\\.)*")', line))
        if len(strings) > 2:
            middle = strings[len(strings) // 2]
            lines[at] = line[: middle.start(1)] + deep + line[middle.end(1) :]
    path = tmp_path / f"deep{sample.suffix}"
    path.write_bytes(b"\n".join(lines))
    for command in (["peek"], ["replay"], ["check"], ["diff"], ["export", "--format", "html"]):
        done = subprocess.run(
            [sys.executable, "-m", "viewer.cli", *command, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, (command, done)


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_GETPIPE_SZ"), reason="Linux's pipes")
def test_output_to_a_pipe_gets_a_wide_buffer_and_anything_else_is_left_alone(
    tmp_path: Path,
) -> None:
    import fcntl

    from viewer.cli import PIPE_BYTES, _widen_pipe

    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb"), os.fdopen(write_end, "w") as pipe:
        assert fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ) < PIPE_BYTES
        _widen_pipe(pipe)
        assert fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ) == PIPE_BYTES
    with (tmp_path / "out").open("w") as regular:
        _widen_pipe(regular)  # not a pipe: nothing to do, nothing said
    _widen_pipe(io.StringIO())  # no file descriptor at all


def test_text_commands_print_a_transcripts_escapes_inert(tmp_path: Path, capsys) -> None:
    """diff rows, check notes and refusals hold the file's text: a terminal escape in it
    is shown, not acted on."""
    path = tmp_path / "esc.jsonl"
    s = Session.create(path, meta={"agent": "x"})
    s.append_message(Message(role="user", content="\x1b]0;pwned\x07\x1b[31mred\x9b2J"))
    s.close()
    with path.open("ab") as fh:
        fh.write(b'{"cut": "\x1b[2J')  # a crash tail whose excerpt a check names
    for args in (["diff", str(path)], ["check", str(path)]):
        code, out, err = run_cli(capsys, *args)
        assert code == 0, err
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
        assert "␛" in out or args[0] == "check"  # (a check names no excerpt of a tail)
    bad = tmp_path / "bad\x1b[31m.jsonl"
    bad.write_bytes(b"\x1b[2J not json\n")
    code, out, err = run_cli(capsys, "check", str(bad))
    assert code == 1 and "\x1b" not in out and "␛" in out
    code, out, err = run_cli(capsys, "replay", str(bad))
    assert code == 1 and "\x1b" not in err and "␛" in err


def test_json_printed_escapes_c1_controls(tmp_path: Path, capsysbinary: Any) -> None:
    """A C1 control (U+009B is a terminal's CSI) in a transcript's text is printed by the
    JSON commands escaped, ``\\u009b``: the same JSON string, nothing a terminal acts on."""
    from claude_code_writer import CCWriter, text

    from session_core.formats import by_name

    w = CCWriter()
    w.user("look \x9b31m red \x85 next")
    w.assistant("m1", [text("done \x9b0m")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    replayed = by_name("claude-code").replay_json(path)
    for args in (
        ["replay", str(path)],
        ["replay", str(path), "--pretty"],
        ["peek", str(path)],
        ["export", str(path), "--format", "json"],
    ):
        assert main(args) == 0, args
        out = capsysbinary.readouterr().out
        assert re.search(rb"\xc2[\x80-\x9f]", out) is None, args
        assert b"\\u009b" in out, args
        if args[0] != "peek":
            assert orjson.loads(out)["messages"] == replayed["messages"], args
    # An export written to a file (or by the library, or the viewer's palette through
    # ``export_into``) holds what ``replay`` prints, byte for byte.
    from session_core.export import export

    assert main(["replay", str(path)]) == 0
    printed = capsysbinary.readouterr().out
    written = tmp_path / "x.json"
    assert main(["export", str(path), "--format", "json", "-o", str(written)]) == 0
    assert written.read_bytes() == printed
    assert export(path, "json").encode() == printed


@pytest.mark.parametrize(
    "command",
    [
        ["export", "--format", "md"],
        ["export", "--format", "md", "-o", "-"],  # (a pipe named: it said "cannot write")
        ["diff"],
        ["replay"],
    ],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(
    command: list[str], tmp_path: Path
) -> None:
    """``tailscope export FILE | head -1``: the pipe closed under a command written as it
    is made ends it with 0 and says nothing (the export said "None: cannot write the
    export: Broken pipe" and 1)."""
    from story import write_story

    path = tmp_path / "big.jsonl"
    write_story(path)
    with path.open("ab") as fh:  # (more output than a pipe holds: 1 MB, widened)
        for n in range(12_000):
            line = {"v": 1, "type": "message", "id": f"m-{n}", "ts": "2026-12-05T00:00:00Z"}
            line["payload"] = {"role": "user", "content": "x" * 100}
            fh.write(orjson.dumps(line) + b"\n")
    argv = [sys.executable, "-m", "viewer.cli", command[0], str(path), *command[1:]]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    assert err == b""


@pytest.mark.parametrize(
    "command",
    [
        ["peek"],
        ["peek", "--pretty"],
        ["diff"],
        ["replay"],
        ["replay", "--pretty"],
        ["check"],
        ["export", "--format", "md"],
    ],
)
def test_output_that_cannot_be_written_is_said_in_one_line(
    command: list[str], tmp_path: Path
) -> None:
    """``> /dev/full``: each command said so in a traceback; now a line, and 1."""
    from story import write_story

    path = tmp_path / "s.jsonl"
    write_story(path)
    argv = [sys.executable, "-m", "viewer.cli", command[0], *command[1:], str(path)]
    with open("/dev/full", "wb") as full:
        done = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == "tailscope: standard output: cannot write: No space left on device\n"
    closed = subprocess.run(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(1),
    )
    assert closed.returncode == 1 and "standard output is closed" in closed.stderr
    assert "Traceback" not in closed.stderr


@pytest.mark.parametrize(
    "command", [["peek"], ["replay"], ["check"], ["diff"], ["export", "--format", "md"]]
)
def test_a_read_whose_output_is_its_transcript_refuses(command: list[str], tmp_path: Path) -> None:
    """``tailscope replay X >> X`` wrote the replay into the transcript it read."""
    from helpers import fingerprint

    from story import write_story

    path = tmp_path / "s.jsonl"
    write_story(path)
    before = fingerprint(path)
    argv = [sys.executable, "-m", "viewer.cli", command[0], str(path), *command[1:]]
    with path.open("ab") as into:
        done = subprocess.run(argv, stdout=into, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 1
    assert "is where standard output goes; a read never writes into it" in done.stderr
    assert fingerprint(path) == before


def test_an_export_to_a_file_runs_with_standard_output_closed(tmp_path: Path) -> None:
    """``-o FILE >&-``: it writes nothing to standard output, so a closed one is no
    reason to refuse (it was, with the check that every command writing there makes)."""
    from story import write_story

    path = tmp_path / "s.jsonl"
    write_story(path)
    out = tmp_path / "s.md"
    argv = [sys.executable, "-m", "viewer.cli", "export", str(path), "--format", "md"]
    done = subprocess.run(
        [*argv, "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("# ")


def test_check_stays_bad_when_its_reader_goes_away(tmp_path: Path) -> None:
    """``tailscope check BAD GOOD… | head -1``: the bad file was found and said, so the
    status is 1 however soon the reader went (it was 0: a closed pipe ends quietly)."""
    from story import write_story

    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"not a transcript at all\n")
    good = tmp_path / "good.jsonl"
    write_story(good)
    argv = [sys.executable, "-m", "viewer.cli", "check", str(bad), *[str(good)] * 3000]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert b"bad" in proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1, err
    assert b"Traceback" not in err


@pytest.mark.parametrize("command", [["diff"], ["check"]])
def test_text_output_in_an_encoding_without_its_characters(
    command: list[str], tmp_path: Path
) -> None:
    """Standard output in latin-1 (``PYTHONIOENCODING``, an old terminal): ``…`` and
    ``→`` are escaped, not a ``UnicodeEncodeError`` traceback."""
    from story import write_story

    path = tmp_path / "caf\u00e9 \u2192 \u2026.jsonl"
    write_story(path)
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    argv = [sys.executable, "-m", "viewer.cli", command[0], str(path)]
    done = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert "caf\u00e9 \\u2192 \\u2026".encode("latin-1") in done.stdout


@pytest.mark.parametrize("command", [["view"], [], ["demo"]])
def test_the_viewer_without_a_terminal_says_so(command: list[str], tmp_path: Path) -> None:
    """``tailscope FILE < /dev/null > out``: the viewer reads keys from a terminal and
    draws on one; without one it drew escapes into the file and spun on standard
    input's end for good. It says why, at once, and names what reads a file instead."""
    from story import write_story

    path = tmp_path / "t.jsonl"
    write_story(path)
    given = [str(path)] if command == ["view"] else []
    argv = [sys.executable, "-m", "viewer.cli", *command, *given]
    done = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert "the viewer needs a terminal" in done.stderr and "export" in done.stderr


def test_the_viewer_draws_on_standard_error_so_output_may_go_elsewhere() -> None:
    """Textual draws on standard error: ``tailscope X > out.txt`` is a terminal's viewer
    (standard output is not asked), ``tailscope X 2> err.txt`` has none to draw on."""
    import viewer.cli as cli

    class Stream(io.StringIO):
        def __init__(self, tty: bool) -> None:
            super().__init__()
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    saved = sys.stdin, sys.stdout, sys.__stderr__
    try:
        sys.stdin, sys.stdout, sys.__stderr__ = Stream(True), Stream(False), Stream(True)
        assert cli.no_terminal() is None
        sys.stdout, sys.__stderr__ = Stream(True), Stream(False)
        said = cli.no_terminal()
        assert said is not None and "standard error" in said
    finally:
        sys.stdin, sys.stdout, sys.__stderr__ = saved


def test_a_newline_in_a_file_name_stays_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check`` said ``new line.jsonl: ok``, as of another file named with a space, and
    ``diff``'s first line broke in two: a newline in a name is ``⏎``, every format."""
    for name, factory in FACTORIES.items():
        made = factory(tmp_path / name)
        path = made.with_name(f"new\nline-{made.name}")
        made.rename(path)
        assert main(["check", str(path)]) == 0, name
        out = capsys.readouterr().out
        assert out.startswith(f"{made.parent}/new⏎line-") and out.count("\n") == 1, out
        assert main(["diff", str(path)]) == 0, name
        head = capsys.readouterr().out.split("\n", 1)[0]
        assert head.startswith(f"{made.parent}/new⏎line-{made.name}: "), head
    # An error names it so too (a space read as another file's name).
    missing = tmp_path / "gone\nfile.jsonl"
    assert main(["replay", str(missing)]) == 1
    assert f"{tmp_path}/gone⏎file.jsonl" in capsys.readouterr().err


def test_a_viewer_that_ended_on_an_error_exits_1(monkeypatch, tmp_path, capsys) -> None:
    """Textual shows an error the app could not handle and ends it with 1; the command
    said 0, as if all were well."""
    from textual.app import App, ComposeResult

    import viewer.app
    import viewer.cli as cli

    class Broken(App[None]):
        def __init__(self, path: object) -> None:
            super().__init__()

        def compose(self) -> ComposeResult:
            raise RuntimeError("a pane no one gives")

        def run(self, *args: object, **kwargs: object) -> None:
            super().run(headless=True)

    monkeypatch.setattr(viewer.app, "TailscopeApp", Broken)
    monkeypatch.setattr(cli, "no_terminal", lambda keys_from_tty=False: None)
    monkeypatch.setattr(cli, "_steady_heap", lambda: None)
    path = FACTORIES["transcript-v1"](tmp_path)
    assert cli.main(["view", str(path)]) == 1
