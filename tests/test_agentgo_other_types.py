"""An agentgo record of a type the spec does not name is kept and shown raw (the spec's
"anything else"), never dropped: an audit (session 41, F1) found one only in the replay's
``other-records`` and the timeline, not among the raw view's rows (``Transcript.raw``) and
not said by ``check``. It is a ``record`` row of the raw view, as v1's line of a type it
does not know is, after the messages committed before it, read whole and followed alike;
``check`` counts such records. It is no warning: the spec allows it (the demo writes its
own)"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import orjson
import pytest
from helpers import follow_into, for_screen, neutral, run_cli, screen_text

from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.formats import AGENTGO, by_name
from session_core.model import Item
from session_core.times import epoch
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


def _ended_with(path: Path, last: str) -> Path:
    """Messages (one of them past the skim's size), then, written after the last of them,
    a record ``last``: of a type the reader does not know, misshapen (its data a list),
    a failed run's ``agent_end``, or a big record of a known type that makes no row."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start", {})
        for n in range(6):
            run.record("message_end", {"message": _text("user", f"ask {n} " + "x" * 9000 * n)})
        run.record("x-fuzz-19", {"n": 1})  # (one inside the window too)
        run.record("message_end", {"message": _text("assistant", "done")})
        if last == "unknown":
            run.record("x-fuzz-19", {"said": "y" * 20_000})
        elif last == "misshapen":
            run.record("turn_end", {"turn_index": 0})
        elif last == "failed":
            run.record("agent_end", {"error": "the model went away"})
        else:
            run.record("context_projected", {"messages": [_text("user", "z" * 20_000)]})
    if last == "misshapen":
        lines = path.read_bytes().splitlines(keepends=True)
        at = next(n for n, raw in enumerate(lines) if b'"turn_end"' in raw)
        record = orjson.loads(lines[at])
        record["data"] = ["w" * 20_000]  # (past the skim's size: its envelope says)
        lines[at] = orjson.dumps(record) + b"\n"
        path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize("last", ["unknown", "misshapen", "failed", "no row"])
def test_the_end_read_alone_has_the_whole_read_s_rows_and_last_time(
    tmp_path: Path, last: str
) -> None:
    """A big file's first screen reads its end alone (``tail``), and a piped copy's mtime is
    its ``written_at``: it read message_end lines only, so a record kept raw (or a failed
    run's row) written after the last message was not on it, and the file's last time
    was that message's, not the whole read's."""
    path = _ended_with(tmp_path / "s.jsonl", last)
    fmt = by_name(AGENTGO)
    whole = fmt.open(path)
    end = fmt.tail(path)
    assert end is not None

    def rows(items: Sequence[Item]) -> list[tuple[str, str, str, str | None, str]]:
        return [(i.id, i.kind, i.role, i.ts, i.parts[0].text) for i in items]

    assert rows(end.raw) == rows(whole.raw[-len(end.raw) :])
    assert len(end.raw) == len(whole.raw)  # (the window is the whole file here)
    kinds = {"unknown": "record", "misshapen": "record", "failed": "error", "no row": "message"}
    assert end.raw[-1].kind == kinds[last]
    assert end.last_time() == whole.last_time() == end.raw[-1].ts
    stamp = fmt.written_at(path)
    assert stamp is not None and stamp == pytest.approx(epoch(whole.last_time()), abs=1e-3)
