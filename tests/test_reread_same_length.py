"""A line read again by its span that no longer parses is "changed on disk" only where
its length says so. Every parse failure was called a change: a valid line the second
parse refused (an integer of 4,301 digits, ``test_huge_integers``) ended ``replay``
with "changed on disk while it was being read", the file untouched. A line as long as
it was that is not read again is said in words that claim no change it cannot see (one
cut short still is: ``test_export_streams``' file truncated under an export)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from session_core.agentgo.reader import read_view
from session_core.errors import TranscriptError
from session_core.events import strict_rereads
from session_core.views import format_for

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_agentgo
import gen_transcript

UNREAD = r"could not be read again \(.*\), though it is as long as it was and holds"


def _written_over(path: Path, keep: bool) -> None:
    """Every line past the first, written over in place with as many bytes, none JSON:
    ``keep``, each line with its last byte (its closing brace) alone written over, so
    that it still says what it said; else all of it."""
    lines = path.read_bytes().split(b"\n")
    junk = [lines[0]] + [
        (line[:-1] + b"#" if keep else b"#" * len(line)) if line else line for line in lines[1:]
    ]
    with open(path, "r+b") as fh:  # (the same file: what was read is read again from it)
        fh.write(b"\n".join(junk))


def test_a_v1_line_as_long_as_it_was_is_not_said_changed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    gen_transcript.generate(path, 40_000, seed=3)
    pieces = format_for(path).diff_chunks(path)  # (the file read)
    _written_over(path, keep=True)
    with pytest.raises(TranscriptError, match=UNREAD) as said, strict_rereads(path):
        "".join(pieces)
    assert "changed on disk" not in str(said.value) and str(path) in str(said.value)


@pytest.mark.parametrize("name", ["transcript-v1", "agentgo-v1"])
def test_a_line_written_over_whole_is_still_said_changed(name: str, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    if name == "agentgo-v1":
        gen_agentgo.generate(path, 40_000, seed=3)
        view = read_view(path)
        _written_over(path, keep=False)
        with pytest.raises(TranscriptError, match="changed on disk"), strict_rereads(path):
            view.records.read(len(view.records) - 1)
        return
    gen_transcript.generate(path, 40_000, seed=3)
    pieces = format_for(path).diff_chunks(path)
    _written_over(path, keep=False)
    with pytest.raises(TranscriptError, match="changed on disk"), strict_rereads(path):
        "".join(pieces)


def test_an_agentgo_record_as_long_as_it_was_is_not_said_changed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    gen_agentgo.generate(path, 40_000, seed=3)
    view = read_view(path)
    _written_over(path, keep=True)
    last = len(view.records) - 1
    with pytest.raises(TranscriptError, match=UNREAD), strict_rereads(path):
        view.records.read(last)
    shown = view.records.read(last)  # (outside a command: a placeholder, in those words)
    assert "could not be read again" in str(shown["data"])
    assert "changed on disk" not in str(shown["data"])
