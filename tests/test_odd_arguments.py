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
    assert any("byte order mark" in warning for warning in peek(path).warnings)


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
