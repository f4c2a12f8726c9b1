"""``export -o`` never writes over a transcript, one no format names for its damage too
(a byte order mark, a first line cut or written over, a single line still being
written): it replaced a Claude Code, Codex or agentgo file led by a byte order mark,
because only a file ``detect_format`` named was kept. An export of ours, or any other
text, it replaces."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN

from viewer.cli import main

DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "bom": lambda whole: b"\xef\xbb\xbf" + whole,
    "first-line-cut": lambda whole: b'{"broken\n' + whole.split(b"\n", 1)[1],
    "first-line-written-over": lambda whole: b"garbage\n" + whole.split(b"\n", 1)[1],
    "one-line-being-written": lambda whole: whole[:100],
}


def exported(tmp_path: Path) -> Path:
    """The transcript every export here is made of (a v1 story of its own folder)."""
    (tmp_path / "src").mkdir()
    return BUILT_IN["transcript-v1"](tmp_path / "src")


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("fmt", BUILT_IN)
def test_export_o_keeps_a_damaged_transcript_of_any_format(
    fmt: str, damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = exported(tmp_path)
    (tmp_path / "t").mkdir()
    target = BUILT_IN[fmt](tmp_path / "t")
    target.write_bytes(DAMAGE[damage](target.read_bytes()))
    before = target.read_bytes()
    assert main(["export", str(source), "--format", "md", "-o", str(target)]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"tailscope: {target}: ") and said.count("\n") == 1
    assert "an export never writes over one (name another file)" in said
    assert target.read_bytes() == before


@pytest.mark.parametrize(
    "old",
    [
        ["--format", "md"],
        ["--format", "html"],
        ["--format", "json"],
        ["--format", "json", "--pretty"],
    ],
)
def test_export_o_replaces_an_earlier_export(old: list[str], tmp_path: Path) -> None:
    source = exported(tmp_path)
    out = tmp_path / "out.txt"
    assert main(["export", str(source), *old, "-o", str(out)]) == 0
    assert main(["export", str(source), "--format", "md", "-o", str(out)]) == 0
    assert out.read_text().startswith("# ")


@pytest.mark.parametrize("text", [b"", b"old notes\n", b"\n\n  \n", b"# notes\n\n| {} |\n"])
def test_export_o_replaces_a_file_that_is_no_transcript(text: bytes, tmp_path: Path) -> None:
    source = exported(tmp_path)
    out = tmp_path / "out.md"
    out.write_bytes(text)
    assert main(["export", str(source), "--format", "md", "-o", str(out)]) == 0
    assert out.read_text().startswith("# ")


def test_export_o_says_a_file_it_cannot_read_is_kept_for_that(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A target that may be written but not read (mode 200) is kept, as it may be a
    transcript: said so, not as "a compressed file that cannot be read" (a review)."""
    from helpers import file_permissions_apply

    source = exported(tmp_path)
    out = tmp_path / "notes.md"
    out.write_text("my notes\n")
    out.chmod(0o200)
    with file_permissions_apply():
        code = main(["export", str(source), "--format", "md", "-o", str(out)])
    said = capsys.readouterr().err
    assert code == 1 and "cannot be read (Permission denied) to tell whether it is a " in said
    assert "compressed" not in said
    out.chmod(0o600)
    assert out.read_text() == "my notes\n"


@pytest.mark.parametrize("made_by", [["peek"], ["peek", "--pretty"], ["replay"]])
def test_export_o_replaces_another_commands_json(
    made_by: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``peek``'s (or ``replay``'s) output, a JSON object no format names, is no
    transcript: replaced (it was kept as one "may be", its first line beginning a JSON
    object)."""
    source = exported(tmp_path)
    out = tmp_path / "peeked.json"
    assert main([*made_by, str(source)]) == 0
    out.write_text(capsys.readouterr().out)
    assert out.read_text().startswith("{")
    assert main(["export", str(source), "--format", "md", "-o", str(out)]) == 0, capsys.readouterr()
    assert out.read_text().startswith("# ")


@pytest.mark.parametrize("text", [b'{"a": 1}\n', b'{"a": 1}', b'{\n  "a": 1\n}\n', b"[1, 2]\n"])
def test_export_o_replaces_json_no_format_names(text: bytes, tmp_path: Path) -> None:
    source = exported(tmp_path)
    out = tmp_path / "data.json"
    out.write_bytes(text)
    assert main(["export", str(source), "--format", "md", "-o", str(out)]) == 0
    assert out.read_text().startswith("# ")


@pytest.mark.parametrize("fmt", BUILT_IN)
def test_export_o_keeps_a_transcript_of_any_format_and_says_so(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole transcript, of every format, is kept, whatever the export's format."""
    source = exported(tmp_path)
    (tmp_path / "t").mkdir()
    target = BUILT_IN[fmt](tmp_path / "t")
    before = target.read_bytes()
    assert main(["export", str(source), "--format", "json", "-o", str(target)]) == 1
    said = capsys.readouterr().err
    refused = "is a transcript; an export never writes over one (name another file)"
    assert said == f"tailscope: {target}: {refused}\n", said
    assert target.read_bytes() == before
