"""A line kept as it is (a record of a type its reader does not know, a line that is no
record: torn, not UTF-8, a bare value) is exported whole by ``--view raw`` and shown whole
by its expanded row: read again by its span, the model keeping only the head its folded
row shows. A line that is no record is named by its warning's words, in every format."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text
from codex_writer import story
from helpers import run_cli
from model_screen_helpers import opened, until

from session_core import Message, Session
from session_core.formats import CLAUDE_CODE, CODEX, by_name
from session_core.parts import LINE_HEAD

IDLE = 1_700_000_000
LONG = "X" * 600 + "TAILEND"  # past a row's head
TORN = b'{"type":"user","note":"' + b"Y" * 600 + b"TORNEND"  # torn mid-string
BAD_UTF8 = b'{"type":"user","note":"' + b"Z" * 600 + b'\xe2\x82UTFEND"}'  # a cut euro sign
BARE = ("[" + ",".join(['"W"'] * 200) + ',"BAREEND"]').encode()  # JSON, not an object
ENDS = ("TAILEND", "TORNEND", "UTFEND", "BAREEND")  # what a cut at a row's head lost
# What each one's row is named: its type, or its warning's words (``check``'s).
DAMAGE = ("not valid JSON", "not valid UTF-8", "not a JSON object")
NAMES = {CLAUDE_CODE: ("future-thing", *DAMAGE), CODEX: ("future_thing", *DAMAGE)}


def cc_file(path: Path) -> Path:
    w = CCWriter()
    w.user("hello")
    w.env("future-thing", note=LONG)  # a line type newer than this reader
    w.assistant("m1", [text("hi")], stop="end_turn")
    w.user("bye")
    w.write(path)
    lines = path.read_bytes().split(b"\n")
    lines[3:3] = [TORN, BAD_UTF8, BARE]  # before the last prompt
    path.write_bytes(b"\n".join(lines))
    os.utime(path, (IDLE, IDLE))
    return path


def codex_file(path: Path) -> Path:
    w = story(path)
    w.write("future_thing", {"note": LONG})
    for raw in (TORN, BAD_UTF8, BARE):
        w.raw(raw + b"\n")
    w.message("user", "after")
    os.utime(path, (IDLE, IDLE))
    return path


def export_raw(capsys: pytest.CaptureFixture[str], path: Path, fmt: str) -> str:
    code, out, err = run_cli(capsys, "export", str(path), "--format", fmt, "--view", "raw")
    assert code == 0, err
    return out


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_claude_code_raw_export_has_each_kept_line_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out = export_raw(capsys, cc_file(tmp_path / "cc.jsonl"), fmt)
    for end in ENDS:
        assert end in out, end  # (a cut at 400 characters lost it)
    assert "X" * 600 in out and "Y" * 600 in out
    for name in NAMES[CLAUDE_CODE]:
        assert name in out, name
    if fmt == "md":  # each damaged line named by its warning's words, as ``check`` says them
        for name in DAMAGE:
            assert f"**{name}**" in out, name


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_codex_raw_export_names_a_damaged_line_as_its_warning_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out = export_raw(capsys, codex_file(tmp_path / "cx.jsonl"), fmt)
    for end in ENDS:
        assert end in out, end
    if fmt == "md":
        for name in DAMAGE:
            assert f"**{name}**" in out, name
        assert "\n**record**\n" not in out  # (a block's label: a damaged line's said no more)


@pytest.mark.parametrize(("make", "name"), [(cc_file, CLAUDE_CODE), (codex_file, CODEX)])
def test_the_model_keeps_a_kept_lines_head_and_reads_it_whole(
    tmp_path: Path, make: object, name: str
) -> None:
    """The row shows a short head; the text (export, expanded row, search) is the line as
    written, read again by its span, not a copy the model holds."""
    path = make(tmp_path / "t.jsonl")  # type: ignore[operator]
    t = by_name(name).open(path, writer_alive=False)
    kept = [i.parts[0] for i in t.raw if i.kind == "record"][-4:]
    assert tuple(p.name for p in kept) == NAMES[name]
    for part, end in zip(kept, ENDS, strict=True):
        assert len(part.head) <= LINE_HEAD and part.head.endswith("…")
        assert end in part.text and len(part.text) > LINE_HEAD
    raw = path.read_bytes()
    assert kept[1].text == TORN.decode()  # as written
    # Cut since it was read (the same file, written over): its head, and said so.
    path.write_bytes(raw.replace(TORN, TORN[:100]))
    assert kept[1].text.endswith("[changed on disk: only the start is shown]")


# A record of a type not known, written with spaces, escapes and a number no float holds.
WRITTEN = (
    b'{"type": "future-kind", "note": "caf\\u00e9 \\u2603", "n": 1.50, '
    b'"big": 123456789012345678901234567890}'
)


@pytest.mark.parametrize("name", [CLAUDE_CODE, CODEX])
def test_a_compressed_files_kept_line_is_as_written(tmp_path: Path, name: str) -> None:
    """A ``.jsonl.zst``'s line cannot be read again by its span: its line kept as it is
    holds its bytes, as written, as a plain file's reads them again (an audit: it was
    the parsed record as compact JSON, its big integer a float)."""
    from codex_writer import zst_copy

    plain = tmp_path / "t.jsonl"
    if name == CLAUDE_CODE:
        cc_file(plain)
        lines = plain.read_bytes().split(b"\n")
        plain.write_bytes(b"\n".join([*lines[:3], WRITTEN, *lines[3:]]))
    else:
        codex_file(plain)
        with open(plain, "ab") as fh:
            fh.write(WRITTEN + b"\n")
    packed = zst_copy(str(plain), str(tmp_path / "t.jsonl.zst"))
    for path in (plain, packed):
        t = by_name(name).open(path, writer_alive=False)
        (kept,) = [
            i.parts[0] for i in t.raw if i.kind == "record" and i.parts[0].name == "future-kind"
        ]
        assert kept.text == WRITTEN.decode(), path


def test_v1_raw_export_keeps_an_unknown_lines_envelope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A v1 line of a type the reader does not know is exported as written: its id, its
    time and a key a newer writer added beside the payload too, not its payload alone."""
    path = tmp_path / "v1.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hello"))
        s.append_message(Message(role="assistant", content="hi"))
    first = json.loads(path.read_bytes().split(b"\n")[0])
    line = {
        "extra_top": "TOPLEVELKEPT",
        "id": "zz-unknown-3",
        "payload": {"hello": "future", "big": "B" * 1000 + "BIGEND"},
        "ts": first["ts"],
        "type": "future-thing",
        "v": 1,
    }
    with open(path, "ab") as fh:
        fh.write(json.dumps(line).encode() + b"\n")
    for fmt in ("md", "html"):
        out = export_raw(capsys, path, fmt)
        for said in ("TOPLEVELKEPT", "zz-unknown-3", first["ts"], "BIGEND", "future-thing"):
            assert said in out, (fmt, said)
    md = export_raw(capsys, path, "md")
    assert json.dumps(line) in md  # the line as written, not re-indented


async def test_an_expanded_raw_row_shows_the_line_whole(tmp_path: Path) -> None:
    path = cc_file(tmp_path / "cc.jsonl")
    async with opened(path, size=(120, 30)) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("r")
        await until(pilot, lambda: view.mode == "raw", "the raw view")
        at = next(i for i, item in enumerate(view.items) if item.kind == "record")
        folded = "".join(line.plain for line in view.block_lines(at, 120))
        assert "future-thing" in folded and "TAILEND" not in folded
        view.move_to(at)
        await pilot.press("enter")
        await until(pilot, lambda: view.expanded, "the row expanded")
        unfolded = "".join(line.plain.strip() for line in view.block_lines(at, 120))
        assert "TAILEND" in unfolded and "X" * 600 in unfolded
