"""Exports, diffs and peeks are written as they are built: a big file's export holds its
replay, not its document.

A v1 raw-view export of a 1 GB file held 3 GB (its whole document, every message's
text in dicts, then the page as one string); here each format's export of a file
a few MB big is held to a peak of traced memory under the file's own size, where
building the document whole took 5-15 times it. ``tailscope diff`` of that file held
567 MB (its every row, joined, then made inert, at once); it is written a batch of
lines at a time. ``tailscope peek`` held every record and message (six times the file);
it writes them as it reads them.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import bench_generators

from session_core.errors import TranscriptError
from session_core.events import strict_rereads
from session_core.export import export, export_chunks, export_into, open_export, write_export
from session_core.export_md import markdown_chunks
from session_core.exportdoc import Document, Note, Section, Table
from session_core.json_out import escape_c1
from session_core.peeking import peek, write_peek
from session_core.views import dump_json, format_for

GENERATORS: dict[str, Any] = bench_generators()
SIZE = 12_000_000


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("big")
    out = {}
    for name, gen in GENERATORS.items():
        path = folder / f"{name}.jsonl"
        gen.generate(path, SIZE, seed=3)
        out[name] = path
    small = folder / "warm.jsonl"  # every module imported before anything is measured
    for gen in GENERATORS.values():
        gen.generate(small, 200_000, seed=3)
        write_export(export_chunks(small, "html", "raw"), folder / "warm.html", small)
        small.unlink()
    return out


@pytest.mark.parametrize("fmt", ["html", "json"])
@pytest.mark.parametrize("name", list(GENERATORS))
def test_an_export_peaks_under_its_files_size(
    name: str, fmt: Any, big_files: dict[str, Path], tmp_path: Path
) -> None:
    """The JSON export too (it was ``replay``'s whole dict, dumped, decoded, escaped and
    encoded again: 1.8-8 times the file); agentgo's JSON holds its requests' messages
    as its replay does (1.5 times this small file; 11% of the 1 GB one)."""
    path = big_files[name]
    out = tmp_path / f"export.{fmt}"
    tracemalloc.start()
    try:
        with open_export(out, path) as fh:
            export_into(path, fmt, "raw" if fmt == "html" else "replayed", fh)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = path.stat().st_size
    assert out.stat().st_size > 100_000  # (a real export: every line's message is in it)
    limit = 2 * size if (name, fmt) == ("agentgo-v1", "json") else size
    assert peak < limit, f"{name}: {peak:,} bytes at the peak for a file of {size:,}"


@pytest.mark.parametrize("fmt", ["md", "html"])
@pytest.mark.parametrize("view", ["replayed", "raw"])
def test_the_pieces_are_the_export(
    fmt: Any, view: Any, big_files: dict[str, Path], tmp_path: Path
) -> None:
    path = big_files["transcript-v1"]
    pieces = list(export_chunks(path, fmt, view))
    assert len(pieces) > 10  # (written a piece at a time)
    assert "".join(pieces) == export(path, fmt, view)
    out = tmp_path / f"x.{fmt}"
    write_export(iter(pieces), out, path)
    assert out.read_text(encoding="utf-8") == "".join(pieces)


def test_markdown_pieces_end_in_one_newline_whatever_the_batch() -> None:
    """The page ends in exactly one newline, however the lines fall into pieces (the
    newlines at a piece's end are held back until more text follows them)."""
    notes = [Note(f"n{i}") for i in range(7)]
    doc = Document(
        "t", [("a", "b")], [Section("s", "s", notes), Section("empty", "e", [Table(["x"], [])])]
    )
    whole = "".join(markdown_chunks(doc, lines=10_000))
    assert whole.endswith("|---|\n") and not whole.endswith("\n\n")
    for lines in range(1, 12):
        assert "".join(markdown_chunks(doc, lines=lines)) == whole


@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_diff_is_written_in_pieces_of_whole_lines(name: str, big_files: dict[str, Path]) -> None:
    path = big_files[name]
    fmt = format_for(path)
    pieces = list(fmt.diff_chunks(path))
    assert "".join(pieces) == fmt.diff(path)
    assert all(piece.endswith("\n") for piece in pieces)
    if name != "agentgo-v1":  # (agentgo's head counts what its rows find: one piece)
        assert len(pieces) > 1


class _Digest:
    def __init__(self) -> None:
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return len(data)


@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_peek_is_written_as_it_is_read(name: str, big_files: dict[str, Path]) -> None:
    path = big_files[name]
    out = _Digest()  # (what is written is not kept: only its digest)
    tracemalloc.start()
    try:
        written = write_peek(path, out)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = path.stat().st_size
    assert peak < size, f"{name}: {peak:,} bytes at the peak for a file of {size:,}"
    whole = peek(path)
    assert out.digest.digest() == hashlib.sha256(escape_c1(dump_json(whole.to_json()))).digest()
    assert written.error is None and written.meta == whole.meta
    assert written.warnings == whole.warnings


def test_a_peek_that_fails_half_way_is_still_json_and_says_why(
    big_files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What was read is written; the error key says why the rest is not (the contract:
    a report, never an exception), as ``peek`` says it."""
    import session_core.peeking as peeking

    made = [0]
    real = peeking.message_from_payload

    def failing(payload: Any) -> Any:
        made[0] += 1
        if made[0] > 5:
            raise OSError("the disk went away")
        return real(payload)

    monkeypatch.setattr(peeking, "message_from_payload", failing)
    out = io.BytesIO()
    result = write_peek(big_files["transcript-v1"], out)
    value = orjson.loads(out.getvalue())
    assert len(value["messages"]) == 5 and value["envelopes"]
    said = f"{big_files['transcript-v1']}: could not be read: the disk went away"
    assert value["error"] == result.error == said  # (as every reader says it: PATH: reason)
    made[0] = 0
    assert peek(big_files["transcript-v1"]).error == result.error


def _cut_after_reading(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The export's document made (its replay read), then the file cut to a third: what
    is read again by span after that is no longer there."""
    import session_core.export as export_module

    real = export_module.document

    def document_then_cut(where: Any, view: Any) -> Document:
        doc = real(where, view)
        with open(where, "r+b") as fh:
            fh.truncate(path.stat().st_size // 3)
        return doc

    monkeypatch.setattr(export_module, "document", document_then_cut)


@pytest.mark.parametrize("name", list(GENERATORS))
def test_an_export_of_a_file_cut_under_it_fails_and_keeps_the_old_export(
    name: str, big_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written as it is read, an export of a file truncated meanwhile met lines it could
    not read again, wrote placeholders for them, exited 0 and replaced a good export.
    It fails now, naming the file, and the old export stays."""
    path = tmp_path / "t.jsonl"
    shutil.copy(big_files[name], path)
    out = tmp_path / "x.html"
    out.write_text("the old export")
    _cut_after_reading(path, monkeypatch)
    changed = pytest.raises(TranscriptError, match="changed on disk while it was being read")
    with changed, open_export(out, path) as fh:
        export_into(path, "html", "raw", fh)
    assert out.read_text() == "the old export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl", "x.html"]  # (no temp)


@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_diff_of_a_file_cut_under_it_fails(
    name: str, big_files: dict[str, Path], tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    shutil.copy(big_files[name], path)
    pieces = format_for(path).diff_chunks(path)  # (the file read)
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 3)
    if name == "agentgo-v1":  # (one piece, made whole before this returned)
        assert "".join(pieces)
        return
    with pytest.raises(TranscriptError, match="changed on disk"), strict_rereads(path):
        "".join(pieces)


def test_outside_a_command_a_line_changed_is_a_placeholder(
    big_files: dict[str, Path], tmp_path: Path
) -> None:
    """The viewer's way: it shows what it could not read again as such, and reloads."""
    path = tmp_path / "t.jsonl"
    shutil.copy(big_files["transcript-v1"], path)
    pieces = format_for(path).diff_chunks(path)
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 3)
    assert "changed on disk" in "".join(pieces)


def test_an_export_to_a_fifo_of_no_transcript_says_so_without_waiting(tmp_path: Path) -> None:
    """The target is opened at the first write: a FIFO nobody reads no longer holds the
    command before it has read (and refused) the transcript."""
    import os
    import subprocess

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for transcript in (tmp_path / "missing.jsonl", fifo.with_name("not.jsonl")):
        if transcript.name == "not.jsonl":
            transcript.write_text('{"hello": 1}\n')
        argv = [sys.executable, "-m", "viewer.cli", "export", str(transcript), "-o", str(fifo)]
        for fmt in ("md", "json"):
            done = subprocess.run(
                [*argv, "--format", fmt], capture_output=True, text=True, timeout=30
            )
            assert done.returncode == 1 and str(transcript) in done.stderr, done.stderr


def test_an_export_ended_by_sigterm_leaves_no_temporary_file(
    big_files: dict[str, Path], tmp_path: Path
) -> None:
    """Its temporary file lives as long as the export is written: SIGTERM ends it as an
    exception would, the temporary file removed and the old export kept."""
    import signal
    import subprocess
    import time

    out = tmp_path / "x.html"
    out.write_text("the old export")
    path = big_files["codex"]  # (its raw view is slow to write: time to be ended)
    argv = [sys.executable, "-m", "viewer.cli", "export", str(path), "--format", "html"]
    proc = subprocess.Popen([*argv, "--view", "raw", "-o", str(out)], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".tailscope-export-*")):
        assert proc.poll() is None and time.monotonic() < deadline, "no temporary file seen"
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.html"]
    assert out.read_text() == "the old export"


def test_a_peek_of_a_cut_compressed_file_says_it_could_not_be_read(
    big_files: dict[str, Path], tmp_path: Path
) -> None:
    """Taken for no format (its start decompresses to no record), a file whose reading
    then fails says that it could not be read, not that it is no transcript."""
    import zstandard

    whole = zstandard.ZstdCompressor().compress(big_files["transcript-v1"].read_bytes())
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(whole[:3000])
    out = io.BytesIO()
    written = write_peek(cut, out)
    assert written.error is not None and "could not be read" in written.error, written.error
    assert orjson.loads(out.getvalue())["error"] == written.error == peek(cut).error


@pytest.mark.parametrize("name", ["transcript-v1", "agentgo-v1"])
def test_a_peeks_passes_agree_on_a_file_written_to_meanwhile(
    name: str, big_files: dict[str, Path], tmp_path: Path
) -> None:
    """Its messages are read in a pass after its records: lines a writer appended in
    between are in neither (they were in the messages alone)."""
    from session_core.peeking import agentgo_source, v1_source

    path = tmp_path / "t.jsonl"
    shutil.copy(big_files[name], path)
    source = (v1_source if name == "transcript-v1" else agentgo_source)(str(path))
    source.meta()
    records = list(source.envelopes([]))
    kind = "message" if name == "transcript-v1" else "message_end"
    said = [r for r in records if r["type"] == kind]
    with path.open("ab") as fh:  # (five more messages)
        fh.write((orjson.dumps(said[-1]) + b"\n") * 5)
    assert len(list(source.messages())) == len(said)


def test_a_peek_of_a_file_cut_short_meanwhile_says_so(
    big_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v1 and agentgo peeks read the file through (nothing again by span): a file cut
    while they read ended their records early, with a warning at most, and exit 0."""
    import session_core.peeking as peeking

    path = tmp_path / "t.jsonl"
    shutil.copy(big_files["transcript-v1"], path)
    real = peeking.message_from_payload

    def cut_then(payload: Any) -> Any:
        if path.stat().st_size > 1000:
            with path.open("r+b") as fh:
                fh.truncate(path.stat().st_size // 2)
        return real(payload)

    monkeypatch.setattr(peeking, "message_from_payload", cut_then)
    out = io.BytesIO()
    result = write_peek(path, out)
    assert result.error == f"{path}: the file was cut short while it was being read"
    assert orjson.loads(out.getvalue())["error"] == result.error


def test_a_sigterm_as_the_temporary_file_is_made_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signal lands the moment the temporary file is made, before the export knew its
    name (the suite under load: SIGTERM sent as soon as the file was seen): it is removed
    all the same, the old export kept."""
    import os
    import signal

    from viewer.signal_end import ended_by_signals

    out = tmp_path / "x.md"
    out.write_text("the old export")
    real_open = os.open

    def open_then_signalled(path: Any, flags: int, mode: int = 0o777) -> int:
        fd = real_open(path, flags, mode)
        if ".tailscope-export-" in str(path):
            os.kill(os.getpid(), signal.SIGTERM)  # (its handler runs at the next bytecodes)
        return fd

    monkeypatch.setattr(os, "open", open_then_signalled)
    with pytest.raises(SystemExit), ended_by_signals(), open_export(out, tmp_path / "t.jsonl") as w:
        w.write(b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.md"]
    assert out.read_text() == "the old export"
