"""``tailscope export``'s options as the README gives them: ``--pretty`` indents the JSON
(it was refused, though "``--pretty`` indents the JSON" followed the command table),
byte for byte ``replay --pretty``; options that do not go together refused with 2 and
``tailscope:`` as every refusal says (one said ``tailscope export:``); an option a
command does not take refused with that command's usage (the top level's named none of
its options); ``-o - >> X`` refused naming X (it named ``-``). ``--help``'s usage
shows the forms people start with (``tailscope PATH``, ``DIR``, ``-``), not the commands
alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import fingerprint

from session_core.export import export
from viewer.cli import main


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
def test_a_pretty_json_export_is_what_replay_pretty_prints(
    fmt: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = BUILT_IN[fmt](tmp_path)
    assert main(["replay", "--pretty", str(path)]) == 0
    replayed = capsysbinary.readouterr().out
    assert main(["export", str(path), "--format", "json", "--pretty"]) == 0
    assert capsysbinary.readouterr().out == replayed
    out = tmp_path / "o.json"
    assert main(["export", str(path), "--format", "json", "--pretty", "-o", str(out)]) == 0
    assert out.read_bytes() == replayed
    assert export(path, "json", pretty=True).encode() == replayed
    assert replayed.startswith(b'{\n  "format": ')


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--format", "md", "--pretty"], "--pretty indents JSON; it goes with --format json"),
        (["--format", "json", "--view", "raw"], "--format json is the replayed view"),
    ],
)
def test_options_that_do_not_go_together_are_refused_as_every_refusal_is(
    options: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = BUILT_IN["transcript-v1"](tmp_path)
    assert main(["export", str(path), *options]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"tailscope: {said}") and err.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [["export", "x.jsonl", "--format", "md", "--bogus"], ["check", "--pretty", "x.jsonl"]],
)
def test_an_option_a_command_does_not_take_is_refused_with_its_usage(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith(f"usage: tailscope {args[0]} ")
    assert err.splitlines()[-1].startswith(f"tailscope {args[0]}: error: unrecognized arguments")


@pytest.mark.parametrize(("target", "where"), [("-", "standard output"), ("/dev/stdout",) * 2])
def test_an_export_into_standard_output_appending_its_transcript_names_the_transcript(
    target: str, where: str, tmp_path: Path
) -> None:
    path = BUILT_IN["transcript-v1"](tmp_path)
    before = fingerprint(path)
    argv = [sys.executable, "-m", "viewer.cli", "export", str(path), "--format", "md"]
    with path.open("ab") as into:
        done = subprocess.run(
            [*argv, "-o", target], stdout=into, stderr=subprocess.PIPE, text=True, timeout=60
        )
    assert done.returncode == 1
    assert done.stderr == f"tailscope: {path}: is where {where} goes; a read never writes into it\n"
    assert fingerprint(path) == before


def test_the_usage_shows_the_viewer_forms_before_the_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    usage = capsys.readouterr().out.splitlines()[:2]
    assert usage == [
        "usage: tailscope [PATH | DIR | -]",
        "       tailscope [-h] {peek,replay,check,diff,export,demo,view} ...",
    ]


@pytest.mark.parametrize("output", [[], ["-o", "-"]])
def test_options_that_do_not_go_together_are_a_usage_error_whatever_the_output(
    output: list[str], tmp_path: Path
) -> None:
    """(the review: appended to its own transcript, the refusal of standard output came
    first, 1, where ``-o -`` gave the usage error, 2)"""
    path = BUILT_IN["transcript-v1"](tmp_path)
    argv = [sys.executable, "-m", "viewer.cli", "export", str(path), "--format", "json"]
    with path.open("ab") as into:
        done = subprocess.run(
            [*argv, "--view", "raw", *output],
            stdout=into,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2 and "drop --view raw" in done.stderr


@pytest.mark.parametrize("more", [["ok.jsonl"], ["--pretty"], ["a", "b"]])
def test_a_word_that_is_no_command_nor_a_file_is_said_to_be_none(
    more: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``tailscope frobnicate ok.jsonl`` gave ``view``'s usage, "unrecognized arguments:
    ok.jsonl" (the word was taken for a file to view); a file of that name is viewed."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["frobnicate", *more])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.splitlines()[-1] == (
        "tailscope: error: frobnicate: no such command "
        "(peek, replay, check, diff, export, demo, view), nor a file to view"
    )
    assert "unrecognized arguments" not in err
    (tmp_path / "frobnicate").write_bytes(b"")  # (a file: the viewer's, which takes no more)
    with pytest.raises(SystemExit) as info:
        main(["frobnicate", *more])
    assert info.value.code == 2 and "usage: tailscope view" in capsys.readouterr().err
