"""A followed v1 file keeps every line it cannot apply (not JSON, not an object, another
version, before its session-meta) as it is: the raw view shows it at its line, the
warnings say why, and nothing of it is applied. They were said and then dropped: the raw
view, "every line of the file", skipped them, and a file no format claims showed
"0 lines" and nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import app_on, follow_into, screen_lines
from model_screen_helpers import IDLE, model_screen, until

from session_core import Message, Session
from session_core.events import REFUSED
from session_core.formats import by_name

V1 = by_name("transcript-v1")


def test_a_line_not_applied_is_kept_raw_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        session.append_message(Message(role="user", content="first"))
    body = path.read_bytes()
    last = body.splitlines(keepends=True)[1].replace(b"first", b"last")
    path.write_bytes(
        body
        + b'{"v":2,"type":"message","id":"x","payload":{}}\n'  # another version
        + b"not json \xff at all\n"  # nor UTF-8
        + b"\n"  # (blank: nothing, skipped and unsaid)
        + b"[1, 2]\n"  # JSON, not an object
        + last.replace(b'"id":"', b'"id":"2')
    )
    for batch in (1 << 16, 7):  # (whole, and cut mid-line at every turn)
        live = V1.live(str(path))
        follow_into(live.apply, path, batch, V1.parsed_updates)
        t = live.transcript(writer_alive=False)
        refused = [(i.line, i.parts[0].text) for i in t.raw if i.kind == "record"]
        assert refused == [
            (3, '{"v":2,"type":"message","id":"x","payload":{}}'),
            (4, "not json \\xff at all"),
            (6, "[1, 2]"),
        ]
        assert all(i.parts[0].name == REFUSED for i in t.raw if i.kind == "record")
        assert [m.text for m in t.messages] == ["first", "last"]  # nothing of them applied
        assert t.lines == 7  # (the last line read)
        said = [w for w in t.warnings if w.startswith(("line 3", "line 4", "line 6"))]
        assert len(said) == 3, t.warnings
        # The state keeps each as an envelope of its own type, its text as it is.
        events = live.replay.state.events  # type: ignore[attr-defined]
        said = "not json \\xff at all"
        assert events[3] == {"id": "(line 4, not applied)", "type": REFUSED, "line": said}
        assert events[2]["type"] == REFUSED and events[2]["line"].startswith('{"v":2,')


async def test_a_file_no_format_claims_shows_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\nhello\n')
    os.utime(path, (IDLE, IDLE))
    async with app_on(path, (120, 24)) as (app, pilot):
        await until(pilot, lambda: model_screen(app)._loaded, "the file read")
        screen = model_screen(app)
        await until(
            pilot,
            lambda: any("is not a transcript" in line for line in screen_lines(app)),
            "the banner",
        )
        assert any(line.lstrip().startswith("3 lines") for line in screen_lines(app))
        await pilot.press("r")  # the raw view: every line, as it is
        await until(pilot, lambda: screen.conversation.mode == "raw", "the raw view")
        shown = "\n".join(screen_lines(app))
        for text in ('(not applied): {"a": 1}', '(not applied): {"b": 2}', "(not applied): hello"):
            assert text in shown, shown


def test_the_lines_kept_are_bounded_and_named_as_no_writer_names_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file no format claims is all such lines: the first ``REFUSED_KEPT`` are kept (a
    180 MB log took 622 MB for them, against 338); and their ids are no message's, so a
    message named ``L8`` is not the line 8 kept (expanding one expanded the other)."""
    import session_core.replay as replay

    monkeypatch.setattr(replay, "REFUSED_KEPT", 3)
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        session.append_message(Message(role="user", content="first"))
    body = path.read_bytes()
    named = body.splitlines(keepends=True)[1].replace(b'"id":"', b'"id":"L8","x":"', 1)
    path.write_bytes(body + named + b"garbage\n" * 6)
    live = V1.live(str(path))
    follow_into(live.apply, path, 1 << 16, V1.parsed_updates)
    t = live.transcript(writer_alive=False)
    assert [i.line for i in t.raw if i.kind == "record"] == [4, 5, 6]
    said = [w for w in t.warnings if w.startswith("line ")]
    assert len(said) == 7  # (each line still said, and once that later ones are not kept)
    assert any("the 3th line not applied; later ones are said here" in w for w in said)
    ids = [i.id for i in t.raw]
    assert "L8" in ids and len(set(ids)) == len(ids)


def test_a_run_ends_at_its_last_line_applied(tmp_path: Path) -> None:
    """A followed file whose last line could not be applied (kept raw, with no time): the
    run ends, and lasts, as the whole read says, at the last line that has a time (its
    end and duration were empty)."""
    from session_core.formats import by_name as fmt

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        session.append_run_context("r1", "c1" * 32, [["date", "2026-08-09"]])
        session.append_message(Message(role="user", content="go"))
        session.append_message(Message(role="assistant", content="done"))
    with path.open("ab") as out:
        out.write(b'{"v":1,"type":"mess\n')  # (cut, with its newline: not applied)
    os.utime(path, (IDLE, IDLE))
    whole = fmt("transcript-v1").open(path, writer_alive=False).runs
    live = V1.live(str(path))
    follow_into(live.apply, path, 1 << 16, V1.parsed_updates)
    runs = live.transcript(writer_alive=False).runs
    assert [(r.ended, r.duration) for r in runs] == [(r.ended, r.duration) for r in whole]
    assert runs and runs[0].ended is not None


async def test_a_file_no_format_claims_is_followed_till_it_is_one(tmp_path: Path) -> None:
    """Not a transcript: its lines alone, no tabs of a format; replaced by a v1 file, it
    is shown as one, every tab back (an empty file is waited for, never said to be none)."""
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b"")
    os.utime(path, (IDLE, IDLE))
    async with app_on(path, (120, 24)) as (app, pilot):
        await until(pilot, lambda: model_screen(app)._loaded, "the file read")
        assert "unknown format" in " ".join(screen_lines(app))  # (empty: waited for)
        assert "not a transcript" not in " ".join(screen_lines(app))
        with path.open("ab") as fh:
            fh.write(b'{"a": 1}\n')
        await until(
            pilot, lambda: "not a transcript" in " ".join(screen_lines(app)), "said no transcript"
        )
        assert "Runs" not in " ".join(screen_lines(app))  # (no format's tabs)
        await pilot.press("d")  # (v1's diff: not there to be shown)
        await until(
            pilot,
            lambda: any("its lines alone" in str(n.message) for n in app._notifications),
            "said",
        )
        assert "Runs" not in " ".join(screen_lines(app))
        other = tmp_path / "other.jsonl"
        with Session.create(other, meta={"agent": "a"}) as session:
            session.append_message(Message(role="user", content="a transcript now"))
        os.replace(other, path)
        await until(pilot, lambda: "a transcript now" in " ".join(screen_lines(app)), "read")
        text = " ".join(screen_lines(app))
        assert "transcript-v1" in text and "not a transcript" not in text
        assert "Runs" in text and "1 sent next" in text
