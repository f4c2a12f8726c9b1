"""``tailscope replay`` writes its JSON a message at a time, byte for byte what the whole
view dumped at once would be (and ``--pretty`` is that view, indented)."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest
from codex_writer import story
from format_fixtures import FACTORIES
from test_lazy_events import busy_transcript

from session_core.formats import by_name, names
from session_core.reader import replay_file
from session_core.views import dump_json, replay_json, write_replay
from story import write_story
from viewer.cli import main


@pytest.mark.parametrize("seed", range(3))
def test_the_streamed_replay_is_the_dumped_view(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "t.jsonl"
    busy_transcript(path, seed)
    state = replay_file(path, tolerate_tail=True)
    out = io.BytesIO()
    write_replay(state, out, writer_alive=False)
    assert out.getvalue() == dump_json(replay_json(state, writer_alive=False))
    assert orjson.loads(out.getvalue())["messages"]


def test_the_command_streams_and_pretty_indents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "story.jsonl"
    write_story(path)
    assert main(["replay", str(path)]) == 0
    streamed = capsys.readouterr().out
    assert main(["replay", "--pretty", str(path)]) == 0
    pretty = capsys.readouterr().out
    assert "\n  " not in streamed and "\n  " in pretty
    assert orjson.loads(streamed) == orjson.loads(pretty)
    state = replay_file(path, tolerate_tail=True)
    assert streamed.encode() == dump_json(replay_json(state, writer_alive=False))


@pytest.mark.parametrize("name", names())
def test_every_format_streams_its_replay_byte_for_byte(tmp_path: Path, name: str) -> None:
    path = FACTORIES[name](tmp_path)
    fmt = by_name(name)
    out = io.BytesIO()
    fmt.write_replay(path, out)
    assert out.getvalue() == dump_json(fmt.replay_json(path))
    assert set(orjson.loads(out.getvalue())) >= {
        "format",
        "meta",
        "messages",
        "tool-operations",
        "compactions",
        "usage",
        "warnings",
    }


def test_the_long_lists_are_written_an_element_at_a_time(tmp_path: Path) -> None:
    # A big file has 100,000s of tool operations: held as one list (and dumped as one
    # bytes object) they were most of a 1 GB replay's peak memory.
    from session_core.views import _replay_parts

    path = tmp_path / "t.jsonl"
    busy_transcript(path, 0)
    state = replay_file(path, tolerate_tail=True)
    parts = dict(_replay_parts(state, writer_alive=False))
    for key in ("messages", "tool-operations", "pending-tool-operations", "run-contexts"):
        assert not isinstance(parts[key], list), key
    assert list(parts["tool-operations"]), "the story has tool operations"
    for name in names():
        transcript = by_name(name).open(FACTORIES[name](tmp_path / name))
        shared = dict(transcript.json_parts())
        for key in ("messages", "tool-operations", "runs"):
            assert not isinstance(shared[key], list), (name, key)


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_written_lists_are_dumped_lists_across_chunks(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    # Elements are gathered into writes of about _CHUNK bytes: every cut between them
    # still gives dump_json's bytes (empty lists, one element, many).
    from session_core import views

    monkeypatch.setattr(views, "_CHUNK", chunk)
    values = {
        "none": [],
        "one": [{"a": 1}],
        "many": [{"i": i, "t": "x" * (i % 5)} for i in range(40)],
        "plain": [1, 2],
    }
    out = io.BytesIO()
    views.write_parts(((k, iter(v) if k != "plain" else v) for k, v in values.items()), out)
    assert out.getvalue() == views.dump_json(values)


@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_a_message_line_is_read_once_for_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    # The messages' rows read each line once: through the format's quicker reader where
    # it has one (Codex's), else its parts (not its bytes first, then its parts again).
    from session_core import events
    from session_core.model import rows_json

    reads: list[int] = []
    read = events.LineSource.read
    monkeypatch.setattr(
        events.LineSource, "read", lambda self, span: reads.append(span) or read(self, span)
    )
    path = FACTORIES[name](tmp_path) if name == "claude-code" else tmp_path / "r.jsonl"
    if name == "codex":
        story(path)  # (its items read again by span)
    transcript = by_name(name).open(path)
    reads.clear()
    rows = list(rows_json(transcript.messages, True))
    assert rows and reads and len(reads) == len(set(reads))
