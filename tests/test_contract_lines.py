"""The contract, continued: how every registered format reads a line orjson refuses that a
real writer writes (a lone surrogate escape; two records with no line break between them;
a value nested deeper than orjson reads), whole and followed, over
``session_core.formats.FORMATS`` (``contract_helpers``' fixtures)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from contract_helpers import assert_ids_unique, items_text, open_transcript
from helpers import follow_into, places

from session_core import TranscriptError, peek
from session_core.formats import TranscriptFormat, by_name, format_of
from session_core.indexing import CUT
from session_core.scan import scan_file
from session_core.views import dump_json
from viewer.cli import main


def _with_lone_surrogates(line: bytes) -> bytes | None:
    """``line`` with a lone surrogate escape (``\\ud83d``: Node's ``JSON.stringify`` of a
    string cut inside an emoji's pair) at the end of each of its texts (its strings with
    a space in them: words, not ids nor types); None when it has none."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    texts = {
        value
        for at in places(record)
        if isinstance(value := _at(record, at), str) and " " in value and '"' not in value
    }
    if not texts:
        return None
    out = line
    for text in texts:
        quoted = orjson.dumps(text)
        out = out.replace(quoted, quoted[:-1] + b'\\ud83d"')
    return out if out != line else None


def _at(value: Any, at: tuple[Any, ...]) -> Any:
    for key in at:
        value = value[key]
    return value


def test_a_lone_surrogate_escape_is_read_as_a_replacement_character(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """orjson refuses a lone surrogate escape; Node writes them (a string cut inside an
    emoji's pair). A line holding them is read, whole and followed, with U+FFFD in their
    place: nothing dropped, nothing warned of, nothing "changed on disk" when read again.
    Or, where the format's reference reads no such line (v1's: JSON::Fast refuses it),
    the file is refused at the first, as any line that is not JSON is."""
    lines = sample.read_bytes().split(b"\n")
    altered = [_with_lone_surrogates(line) or line for line in lines]
    assert sum(a != b for a, b in zip(altered, lines, strict=True)) >= 3
    path = tmp_path / f"surrogates{sample.suffix}"
    path.write_bytes(b"\n".join(altered))
    plain = open_transcript(sample)
    try:
        mended = open_transcript(path)
    except TranscriptError as err:
        first = next(n for n, (a, b) in enumerate(zip(altered, lines, strict=True), 1) if a != b)
        assert err.line == first and "surrogate" in str(err)
        assert main(["check", str(path)]) == 1
        assert f"line {first} could not be read" in " ".join(peek(path).warnings)
        return
    assert mended.warnings == plain.warnings
    assert len(mended.raw) == len(plain.raw) and len(mended.messages) == len(plain.messages)
    assert "\ufffd" in items_text(mended) and "changed on disk" not in items_text(mended)
    followed, followed_plain = (_followed(fmt, read) for read in (path, sample))
    assert len(followed.raw) == len(followed_plain.raw)
    assert followed.warnings == followed_plain.warnings
    assert peek(path).warnings == peek(sample).warnings


def _followed(fmt: TranscriptFormat, path: Path) -> Any:
    live = by_name(fmt.name).live(str(path))
    follow_into(live.apply, path, 1 << 20, live.format.parsed_updates)
    return live.transcript(writer_alive=False)


def test_every_item_has_an_id_of_its_own(fmt: TranscriptFormat, sample: Path) -> None:
    assert_ids_unique(open_transcript(sample))
    assert_ids_unique(_followed(fmt, sample))


def test_two_records_on_one_line_are_both_read_or_the_line_is_refused(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """``{…}{…}``: Claude Code writes a record straight after a line whose newline it
    never wrote (seen in its 2.0.76–2.1.17 files). A tolerant reader reads both records,
    whole and followed, and says so in a warning; a strict format (v1, agentgo: every
    complete line must parse) refuses the file at that line. Never a record dropped."""
    lines = sample.read_bytes().split(b"\n")
    k = next(
        at
        for at in range(1, len(lines) - 2)
        if lines[at].startswith(b"{") and lines[at + 1].startswith(b"{")
    )
    joined = [*lines[:k], lines[k] + lines[k + 1], *lines[k + 2 :]]
    path = tmp_path / f"joined{sample.suffix}"
    path.write_bytes(b"\n".join(joined))
    plain = open_transcript(sample)
    assert fmt.joins_lines == fmt.builder(str(path)).joins_lines  # (one word, two places)
    try:
        read = open_transcript(path)
    except TranscriptError as err:
        assert not fmt.joins_lines
        assert err.line == k + 1
        assert main(["check", str(path)]) == 1
        followed = _followed(fmt, path)  # the viewer's live read reads it no otherwise
        assert any(w.startswith((f"line {k + 1} ", f"line {k + 1}:")) for w in followed.warnings)
        assert not any("no line break" in w for w in followed.warnings)
        return
    assert fmt.joins_lines
    said = f"line {k + 1} holds 2 records with no line break between them; each was read"
    assert read.warnings == [*plain.warnings, said] or said in read.warnings
    assert len(read.raw) == len(plain.raw) and len(read.messages) == len(plain.messages)
    assert [i.kind for i in read.raw] == [i.kind for i in plain.raw]
    assert "changed on disk" not in items_text(read)
    assert_ids_unique(read)  # (its records' items told apart: L4, L4.2)
    followed = _followed(fmt, path)
    assert len(followed.raw) == len(plain.raw) and said in followed.warnings
    assert_ids_unique(followed)
    assert main(["check", str(path)]) == 0
    assert said in peek(path).warnings
    assert len(peek(path).envelopes) == len(peek(sample).envelopes)


def _deep_in_every_line(
    sample: Path, depth: int, inner: bytes = b""
) -> tuple[list[bytes], list[bytes]]:
    """The sample's lines, and each inner line with a field of its own (``zz``, which no
    typed decode names, so the index pass skips it) holding lists ``depth`` levels deep
    (``inner`` in the deepest)."""
    lines = sample.read_bytes().split(b"\n")
    deep = b"[" * depth + inner + b"]" * depth
    altered = [
        b'{"zz":' + deep + b"," + line[1:] if 0 < at < len(lines) - 1 and line[:1] == b"{" else line
        for at, line in enumerate(lines)
    ]
    return lines, altered


def _beside_its_companions(sample: Path, folder: Path) -> Path:
    """Where a copy of ``sample`` reads as the sample does: its own name, in ``folder``,
    beside its companion folder (a Claude Code session's ``<id>/subagents``), so that
    what ``check`` says of its subagents is alike."""
    folder.mkdir()
    companion = sample.parent / sample.name.split(".")[0]
    if companion.is_dir():
        (folder / companion.name).symlink_to(companion, target_is_directory=True)
    return folder / sample.name


@pytest.mark.parametrize(
    ("depth", "inner"),
    [
        (1_100, b""),
        (5_000, b""),
        (9_900, b""),  # (near the limit: the index pass and a read again alike, a review)
        (1_100, b"1e400"),  # (a number beyond a double too: msgspec refuses it, a review)
    ],
)
def test_a_value_nested_deeper_than_orjson_reads_is_read_alike_by_every_path(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path, depth: int, inner: bytes
) -> None:
    """orjson reads 1,024 levels; the index pass's msgspec skips a value as deep as
    Python's recursion limit lets it. A line holding a deeper one is read by every path
    alike (``indexing.deeper``), whole, followed, read again by its span, printed and
    exported: nothing warned of, no "changed on disk" (a line the index pass took was
    refused when read again, on a file nobody changed); where a value is shown, what lies
    past 1,024 levels is cut (``indexing.CUT``), so nothing walks deeper than orjson's."""
    from session_core.export import export

    _lines, altered = _deep_in_every_line(sample, depth, inner)
    path = _beside_its_companions(sample, tmp_path / "deep")
    path.write_bytes(b"\n".join(altered))
    os.utime(path, ns=(sample.stat().st_atime_ns, sample.stat().st_mtime_ns))  # (idle alike)
    plain, read = open_transcript(sample), open_transcript(path)
    assert read.warnings == plain.warnings
    assert len(read.raw) == len(plain.raw) and len(read.messages) == len(plain.messages)
    assert [op.state for op in read.tool_operations] == [op.state for op in plain.tool_operations]
    shown = items_text(read)  # (every item's text and detail, read again by its span)
    assert "changed on disk" not in shown
    followed, followed_plain = (_followed(fmt, at) for at in (path, sample))
    assert followed.warnings == followed_plain.warnings
    assert len(followed.raw) == len(followed_plain.raw)
    assert peek(path).warnings == peek(sample).warnings
    assert len(peek(path).envelopes) == len(peek(sample).envelopes)
    assert fmt.check(path).replace(str(path), "") == fmt.check(sample).replace(str(sample), "")
    replayed = dump_json(fmt.replay_json(path)).decode()
    assert "changed on disk" not in replayed
    assert fmt.diff(path).count("\n") == fmt.diff(sample).count("\n")
    for kind, view in (("md", "raw"), ("html", "replayed"), ("json", "replayed")):
        assert "changed on disk" not in export(path, kind, view)
    if fmt.name == "transcript-v1":  # (its payloads are kept: the value comes back cut)
        from session_core import Session

        with Session.load(path) as session:
            deepest: Any = session.events()[1]["zz"]
        for _ in range(1022):  # (the line itself is the first level, ``zz`` the second)
            deepest = deepest[0]
        assert deepest == [CUT]


def test_a_value_deeper_than_any_path_reads_is_said_by_its_line(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """Deeper than Python's recursion limit lets msgspec go (20,000 levels), neither the
    index pass nor the plain path reads the line: every path says so by its line, whole
    and followed, with why, and ``check`` calls it bad."""
    lines, altered = _deep_in_every_line(sample, 20_000)
    k = next(at for at, (a, b) in enumerate(zip(altered, lines, strict=True)) if a != b)
    one = [*lines[:k], altered[k], *lines[k + 1 :]]
    path = tmp_path / f"too-deep{sample.suffix}"
    path.write_bytes(b"\n".join(one))
    said = f"line {k + 1}"
    try:
        read = open_transcript(path)
    except TranscriptError as err:
        assert err.line == k + 1 and "nested deeper than this reader reads" in str(err)
    else:
        why = [w for w in read.warnings if w.startswith(said + " ")]
        assert why and "nested deeper than this reader reads" in why[0], read.warnings
    followed = _followed(fmt, path)
    assert any(w.startswith((said + " ", said + ":")) for w in followed.warnings)
    assert main(["check", str(path)]) == 1
    assert any(w.startswith(said + " ") for w in peek(path).warnings)


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_line_of_unicode_white_space_is_a_blank_line(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path, where: str
) -> None:
    """A line of white space that is not ASCII's (a no-break space, an ideographic one, a
    line separator) reads as a blank line does, in every format and by every path:
    detection skipped such a line and Claude Code's reader then called it damage; as a
    last line without its newline, agentgo's said "the writer's unfinished tail"."""
    lines = sample.read_bytes().rstrip(b"\n").split(b"\n")
    at = {"first": 0, "middle": len(lines) // 2, "last": len(lines)}[where]
    results = []
    for blank in (b"  ", "\u00a0\u3000\u2028".encode()):
        path = tmp_path / f"{where}-{len(blank)}{sample.suffix}"
        body = b"\n".join([*lines[:at], blank, *lines[at:]])
        path.write_bytes(body if where == "last" else body + b"\n")
        try:
            whole: Any = open_transcript(path)
            read = (whole.warnings, len(whole.raw), len(whole.messages), whole.lines)
        except TranscriptError as err:
            read = (err.reason, err.line)
        followed = _followed(fmt, path)
        row = scan_file(path, live_window=0)  # (the browser's row)
        results.append(
            (
                read,
                followed.warnings,
                len(followed.raw),
                peek(path).warnings,
                main(["check", str(path)]),
                (row.format, row.status, row.crash_tail, row.messages),
            )
        )
    assert results[0] == results[1]


def test_a_byte_order_mark_is_read_past_by_a_format_that_reads_one(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file led by UTF-8's byte order mark: a format that reads one (``reads_bom``: v1,
    whose reference's decoder drops it) reads it by every path as the file without it (it
    was refused); any other says so by its line 1 and claims it not (its browser row
    is its format's, damaged, so named)."""
    bom = tmp_path / f"bom{sample.suffix}"
    bom.write_bytes(b"\xef\xbb\xbf" + sample.read_bytes())
    st = sample.stat()
    os.utime(bom, ns=(st.st_atime_ns, st.st_mtime_ns))  # (its writer as long gone)

    def read(path: Path) -> Any:
        whole: Any = open_transcript(path)
        followed = _followed(fmt, path)
        row = scan_file(path, live_window=0)  # (the browser's row: whole, and windowed)
        windowed = scan_file(path, live_window=0, budget=100, window=path.stat().st_size // 2)
        seen = peek(path)
        return (
            (whole.warnings, items_text(whole), whole.lines, len(whole.messages)),
            (followed.warnings, items_text(followed), followed.lines),
            (seen.error, seen.meta, seen.envelopes, seen.messages, seen.warnings),
            main(["check", str(path)]),
            [
                (r.format, r.status, r.reason, r.messages, r.pending, r.crash_tail, r.title)
                for r in (row, windowed)
            ],
        )

    if not fmt.reads_bom:
        assert format_of(bom) is None
        assert main(["check", str(bom)]) == 1
        assert "line 1: is led by a byte order mark" in capsys.readouterr().out
        assert "byte order mark" in str(peek(bom).error)
        # the browser's row too: damage of its format, not "not a transcript" (an audit)
        row = scan_file(bom, live_window=0)
        assert (row.format, row.status) == (fmt.name, "damaged"), row.reason
        assert row.reason.startswith("line 1: is led by a byte order mark"), row.reason
        return
    assert format_of(bom) is fmt
    assert read(bom) == read(sample)
    for command in (["replay"], ["diff"], ["export", "--format", "md"]):
        capsys.readouterr()
        assert main([*command, str(sample)]) == 0
        plain = capsys.readouterr().out.replace(sample.name, bom.name)
        assert main([*command, str(bom)]) == 0
        out = capsys.readouterr().out
        assert out == plain.replace(f"{sample.stat().st_size:,}", f"{bom.stat().st_size:,}")
