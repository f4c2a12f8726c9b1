"""An elision line written twice (the same record id): each of its two items says what
its own line stubbed. A whole read gave both lines' records to the first ("line 3" twice)
and "stubbed: nothing" to the second, where a follow gave each its own (the fuzzer)."""

from __future__ import annotations

from pathlib import Path

from helpers import follow_into

from session_core import Message, Session, open_transcript
from session_core.formats import V1, by_name


def _elided_twice(path: Path) -> Path:
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
        tool = s.append_message(Message(role="tool", content="big result", tool_call_id="c1"))
        s.append_elision([{"id": tool, "stub": "[elided]"}])
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + lines[-1])  # (the elision line again, byte for byte)
    return path


def _stubbed(items: object) -> list[list[str]]:
    return [[p.text for p in i.parts] for i in items if i.kind == "elision"]  # type: ignore[attr-defined]


def test_each_elision_line_says_what_it_stubbed(tmp_path: Path) -> None:
    path = _elided_twice(tmp_path / "t.jsonl")
    whole = _stubbed(open_transcript(path).raw)
    assert whole == [["line 3 → [elided]"], ["line 3 → [elided]"]]
    fmt = by_name(V1)
    live = fmt.live(str(path))
    follow_into(live.apply, path, 200, fmt.parsed_updates)  # (a line or so an update)
    assert _stubbed(live.transcript(writer_alive=False).raw) == whole


def _summary_elided(path: Path) -> Path:
    """A compaction's summary stubbed by a later elision (the spec's elision takes any live
    entry by id, a summary's is its compaction's)."""
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
        last = s.append_message(Message(role="assistant", content="hello"))
        summary = s.append_compaction("SUMMARY", last)
        s.append_elision([{"id": summary, "stub": "[summary stub]"}])
        s.append_message(Message(role="user", content="next"))
    return path


def test_an_elided_summary_is_marked_elided_not_folded(tmp_path: Path) -> None:
    """The summary is sent, as its stub: its raw item is marked elided (it had no mark,
    and the raw view drew it ``[folded]``), and the elision line names its line (it
    named the summary's id, cut to 8 characters), read whole and followed alike."""
    path = _summary_elided(tmp_path / "t.jsonl")
    fmt = by_name(V1)
    live = fmt.live(str(path))
    follow_into(live.apply, path, 200, fmt.parsed_updates)
    for transcript in (open_transcript(path), live.transcript(writer_alive=False)):
        summary = next(i for i in transcript.raw if i.kind == "compaction")
        assert summary.marks == ["elided"] and summary.stub == "[summary stub]"
        assert _stubbed(transcript.raw) == [["line 4 → [summary stub]"]]
        sent = [i.stub or i.text for i in transcript.messages]
        assert sent == ["[summary stub]", "next"]


async def test_the_raw_view_draws_an_elided_summary_as_elided(tmp_path: Path) -> None:
    from helpers import app_loaded, screen_lines

    from viewer.screens.model_screen import ModelScreen

    path = _summary_elided(tmp_path / "t.jsonl")
    async with app_loaded(path, ModelScreen, (110, 30)) as (app, pilot):
        await pilot.press("r")
        await pilot.pause(0.2)
        row = next(line for line in screen_lines(app) if "compaction summary" in line)
        assert "[elided]" in row and "folded" not in row, row
