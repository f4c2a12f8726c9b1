"""``peek``'s error names the file one way, ``PATH: reason``, as ``check`` and every
``TranscriptError`` do (some named it, some with no colon, some not at all)."""

from __future__ import annotations

from pathlib import Path

from session_core import peek


def test_every_peek_error_is_path_colon_reason(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    (tmp_path / "other.jsonl").write_bytes(b'{"not": "a transcript"}\n')
    said = {
        name: peek(tmp_path / name).error
        for name in ("missing.jsonl", "folder", "empty.jsonl", "other.jsonl")
    }
    for name, error in said.items():
        assert error is not None and error.startswith(f"{tmp_path / name}: "), said
        assert error.count(str(tmp_path / name)) == 1, error
