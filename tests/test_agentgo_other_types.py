"""An agentgo record of a type the spec does not name is kept and shown raw (the spec's
"anything else"), never dropped: an audit (session 41, F1) found one only in the replay's
``other-records`` and the timeline, not among the raw view's rows (``Transcript.raw``) and
not said by ``check``. It is a ``record`` row of the raw view, as v1's line of a type it
does not know is, after the messages committed before it, read whole and followed alike;
``check`` counts such records. It is no warning: the spec allows it (the demo writes its
own)"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import follow_into, for_screen, neutral, run_cli, screen_text

from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.formats import AGENTGO, by_name
from viewer.screens.model_screen import ModelScreen

opened, _shows = for_screen(ModelScreen, (120, 30))


def _text(kind: str, text: str) -> dict[str, object]:
    return {"kind": kind, "content": [{"type": "text", "text": text}]}


def written(path: Path) -> Path:
    """Two messages, a record of another type between them (its text Rich markup and an
    escape, shown inert), and another of that type last."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": _text("user", "hello")})
        run.record("x-fuzz-19", {"said": "[bold]a note[/] \x1b[31m"})
        run.record("message_end", {"message": _text("assistant", "hi")})
        run.record("x-fuzz-19", {"n": 2})
        run.close()
    return path


def test_a_record_of_another_type_is_a_row_of_the_raw_view(tmp_path: Path) -> None:
    path = written(tmp_path / "s.jsonl")
    t = open_transcript(path)
    rows = [(i.kind, i.role, i.line, i.parts[0].name) for i in t.raw]
    assert rows == [
        ("message", "user", 3, None),
        ("record", "system", 4, "x-fuzz-19"),
        ("message", "assistant", 5, None),
        ("record", "system", 6, "x-fuzz-19"),
    ]
    note = t.raw[1]
    assert note.id == "seq-3" and note.ts and '"[bold]a note[/] \\u001b[31m"' in note.parts[0].text
    assert [i.kind for i in t.messages] == ["message", "message"]  # (what is sent: no record)
    assert t.warnings == []  # (the spec names it: "anything else", kept and shown raw)
    replay = by_name(AGENTGO).replay_json(path)
    assert [o["line"] for o in replay["other-records"]] == [4, 6]


def test_check_counts_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = written(tmp_path / "s.jsonl")
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and "2 records of a type the spec does not name (kept raw)" in out


def test_followed_the_same(tmp_path: Path) -> None:
    path = written(tmp_path / "s.jsonl")
    fmt = by_name(AGENTGO)
    whole = fmt.open(path, writer_alive=False)
    for batch in (64, 1 << 12):
        live = fmt.live(str(path))
        follow_into(live.apply, path, batch, fmt.parsed_updates)
        assert neutral(live.transcript(False)) == neutral(whole)


async def test_the_timeline_and_the_raw_view_show_it(tmp_path: Path) -> None:
    path = written(tmp_path / "s.jsonl")
    async with opened(path) as (app, pilot):
        await pilot.press("5")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "x-fuzz-19" in text and "(unknown type, raw)" in text
        await pilot.press("3", "r")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "x-fuzz-19" in text and "[bold]a note[/]" in text
