"""What the API and the commands say of odd input: a byte order mark, a path that is no
path, a file that cannot be read (api.md: ``peek`` never raises; every refusal is a
``TranscriptError`` that names the file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from format_fixtures import FACTORIES
from helpers import file_permissions_apply, run_cli

from session_core import TranscriptError, detect_format, open_transcript, peek


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_a_byte_order_mark_is_named(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = FACTORIES[name](tmp_path)
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + sample.read_bytes())
    code, _out, err = run_cli(capsys, "replay", str(path))
    assert code == 1 and "byte order mark" in err and "UTF-8" not in err
    assert "byte order mark" in str(peek(path).error)


def test_a_path_that_is_no_path_is_refused_in_words() -> None:
    result = peek(123)  # type: ignore[arg-type]
    assert result.error == "a path is needed, not int"
    assert detect_format("a\x00b") is None
    with pytest.raises(TranscriptError, match="NUL"):
        open_transcript("a\x00b")


def test_peek_sizes_a_file_it_cannot_read(tmp_path: Path) -> None:
    path = FACTORIES["transcript-v1"](tmp_path)
    size = path.stat().st_size
    path.chmod(0)
    try:
        with file_permissions_apply():
            result = peek(path)
    finally:
        path.chmod(0o644)
    assert result.error is not None and "Permission denied" in result.error
    assert result.size == size > 0


def test_check_says_a_bad_middle_line_is_damage_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code and Codex: replay keeps such a line with a warning, check calls the file
    bad; its words say why, not "was kept as it is" beside "bad"."""
    for name in ("claude-code", "codex"):
        sample = FACTORIES[name](tmp_path / name)
        lines = sample.read_bytes().split(b"\n")
        lines[3] = b"{not json"
        sample.write_bytes(b"\n".join(lines))
        code, out, _err = run_cli(capsys, "check", str(sample))
        assert code == 1 and "line 4: is not valid JSON: damage" in out, out
        assert "kept as it is, " not in out and "was kept" not in out
