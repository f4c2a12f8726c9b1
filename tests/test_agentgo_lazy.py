"""The compact agentgo view against the eager one, and the screen that opens on its end.

``AgentGoView`` keeps a record read from a file as its span and reads it again
when asked for; fed a dict without a span it keeps the dict (the eager way,
as it always did). Every way of building a view (``read_view``, the viewer's
raw follow in small batches, a parsed follow) must give exactly what the eager
view gives, on generated sessions (``bench/gen_agentgo.py``) and on damaged
ones; and the replay JSON must be what it was before the view went compact
(digests taken with the eager code, on the same generated files).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import (
    agentgo_screen,
    each_snapshot_afresh,
    file_loaded,
    follow_into,
    neutral,
    screen_text,
    wait_for,
)

from agentgo_story import write_agentgo_story
from session_core.agentgo import AgentGoSession
from session_core.agentgo import reader as reader_module
from session_core.agentgo import tail as tail_module
from session_core.agentgo.live import LiveAgentGo
from session_core.agentgo.reader import read, read_view, skim_request
from session_core.agentgo.records import CHANGED, Records
from session_core.agentgo.tail import read_tail
from session_core.agentgo.view import AgentGoView
from session_core.errors import TranscriptError
from session_core.following import FollowUpdate
from session_core.formats.agentgo import AgentGoFormat, AgentGoModel
from session_core.formats.base import tail_transcript
from session_core.model import Transcript, Usage
from session_core.usage import tally_agentgo
from viewer.agentgo_model import touched_calls
from viewer.app import TailscopeApp
from viewer.screens import following
from viewer.screens.model_screen import ModelScreen

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_agentgo

# (size, seed) -> digests of (to_json, the format's replay_json), taken with the eager view
# (before the records were kept as spans) on gen_agentgo's output, GEN_VERSION 1; the
# replay's since its tool operations said their result line and duration, both since they
# list the records of other types (``other-records``: none here; without the key they are
# what they were, fa1a…/2ab5…, 4397…/d75a…, 4f3f…).
# (the replay JSON of 2026-12-06: its tool operations name their messages, message-id)
GOLDEN = {
    # (runs' "state" added beside "status": the digests without it were unchanged)
    (300_000, 1): ("fb8d7b700edf5ed0", "f999dbd792b3e63a"),  # (input: its uncached part)
    (1_000_000, 2): ("d0b0243b880dce1c", "102049084c7da755"),
}
DAMAGED_GOLDEN = "db8fea5b2aa07b37"  # (600_000, seed 3, damaged): the followed view (JSON quotes)
SIZE = (120, 40)


def digest(value: Any) -> str:
    return hashlib.sha256(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


def generated(tmp_path: Path, size: int, seed: int, damage: bool = False) -> tuple[Path, dict]:
    path = tmp_path / f"agentgo-{seed}.jsonl"
    info = gen_agentgo.generate(path, size, seed, damage)
    assert info and path.stat().st_size > 0
    return path, info


def complete_records(path: Path) -> list[tuple[dict[str, Any], int]]:
    """Every complete line that is a JSON object, with its line number (what follow hands on)."""
    out = []
    for number, raw in enumerate(path.read_bytes().split(b"\n")[:-1], start=1):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append((value, number))
    return out


def eager(path: Path) -> AgentGoView:
    """The eager view: every record fed as the dict it is (no span), so every one is kept."""
    view = AgentGoView()
    for number, record in enumerate(read(path), start=1):
        view.feed(record, number)
    return view


def eager_live(path: Path) -> LiveAgentGo:
    """A live view fed every record as a dict, without spans (the eager way)."""
    live = LiveAgentGo(str(path))
    records = complete_records(path)
    live.apply(
        FollowUpdate(envelopes=[r for r, _ in records], lines=[n for _, n in records], reset=False)
    )
    return live


def followed(path: Path, parse: bool, batch: int = 1 << 16) -> LiveAgentGo:
    """The viewer's way (``parse=False``: raw lines, parsed as applied), in small batches."""
    live = LiveAgentGo(str(path))
    follow_into(live.apply, path, batch, parse)
    return live


def state(view: AgentGoView) -> dict[str, Any]:
    """Everything a pane or an export reads of a view."""
    calls = [view.calls[key] for key in view.call_order]
    return {
        "json": view.to_json(),
        "records": list(view.records),
        "lines": list(view.lines),
        "unknown": view.unknown,
        "touched": touched_calls(view, 0),
        "calls": [
            (
                c.key,
                c.name,
                c.status,
                c.args_differ,
                c.events,
                c.children,
                c.context,
                c.last_time,
                c.first_time,
            )
            for c in calls
        ],
        "messages": [(m.seq, m.line, m.run_id, m.time, m.message, m.lines) for m in view.messages],
        "checkpoints": [(c.seq, c.line, c.run_id, c.time, c.shape) for c in view.checkpoints],
        "runs": [
            (r.id, r.index, r.turns, r.records, view.run_status(r.id)) for r in view.runs.values()
        ],
        "warnings": view.warnings,
    }


class TestEquivalence:
    @pytest.mark.parametrize(("size", "seed"), sorted(GOLDEN))
    def test_every_way_gives_the_eager_view(self, tmp_path: Path, size: int, seed: int) -> None:
        path, _ = generated(tmp_path, size, seed)
        want = state(eager(path))
        assert digest(want["json"]) == GOLDEN[(size, seed)][0]
        assert state(read_view(path)) == want
        assert state(followed(path, parse=False).view) == want
        assert state(followed(path, parse=True, batch=1 << 12).view) == want
        assert state(eager_live(path).view) == want
        assert digest(AgentGoFormat().replay_json(path)) == GOLDEN[(size, seed)][1]

    def test_a_big_request_is_skimmed_and_read_again_whole(self, tmp_path: Path) -> None:
        path, _ = generated(tmp_path, 300_000, 1)
        lines = path.read_bytes().split(b"\n")
        big = [
            at
            for at, raw in enumerate(lines)
            if b'"model_request"' in raw and len(raw) > reader_module.SKIM_OVER
        ]
        assert big
        raw = lines[big[0]]
        skimmed = skim_request(raw)
        assert skimmed is not None and set(skimmed["data"]) == {"config"}
        assert skim_request(raw.replace(b'"model_request"', b'"model_response"')) is None
        view = read_view(path)
        at = list(view.lines).index(big[0] + 1)
        assert view.records[at] == orjson.loads(raw)  # the whole record, read again
        # bytes the skim skipped are still checked: bad UTF-8 there is refused, said so
        bad = raw.replace(b'"messages":[', b'"messages":["\xff",', 1)
        assert bad != raw and skim_request(bad) is None
        lines[big[0]] = bad
        path.write_bytes(b"\n".join(lines))
        with pytest.raises(TranscriptError, match=f"line {big[0] + 1}: is not valid UTF-8"):
            read_view(path)
        live = followed(path, parse=False)
        assert (
            f"line {big[0] + 1} could not be read (not valid UTF-8), and was skipped"
            in live.view.warnings
        )

    def test_damaged_file_gives_the_eager_view(self, tmp_path: Path) -> None:
        path, _ = generated(tmp_path, 600_000, 3, damage=True)
        want = state(eager_live(path).view)
        assert digest(want["json"]) == DAMAGED_GOLDEN
        assert len(want["warnings"]) == 2  # the foreign line and the seq gap
        assert state(followed(path, parse=False).view) == want
        assert state(followed(path, parse=True).view) == want
        with pytest.raises(TranscriptError, match="sequence numbers must be contiguous"):
            read_view(path)
        with pytest.raises(TranscriptError, match="sequence numbers must be contiguous"):
            AgentGoFormat().check(path)

    def test_bad_lines_are_said_as_follow_says_them(self, tmp_path: Path) -> None:
        path, _ = generated(tmp_path, 200_000, 4)
        lines = path.read_bytes().split(b"\n")
        lines[5:5] = [b"not json at all", b"[1, 2]", b""]
        path.write_bytes(b"\n".join(lines))
        raw, parsed = followed(path, parse=False).view, followed(path, parse=True).view
        assert state(raw) == state(parsed)
        assert "line 6 could not be read (not valid JSON), and was skipped" in raw.warnings
        assert "line 7 is not a JSON object, and was skipped" in raw.warnings

    def test_check_keeps_no_record_and_says_what_replay_says(self, tmp_path: Path) -> None:
        path, info = generated(tmp_path, 300_000, 1)
        counted = read_view(path, keep=False)
        assert len(counted.records) == info["records"]
        assert counted.records._kept == {} and not any(counted.records._spans)
        replay = AgentGoFormat().replay_json(path)
        note = AgentGoFormat().check(path)
        assert note.startswith(f"agentgo-v1, {len(replay['messages'])} messages")
        usage = replay["usage"]  # (its usage too: taken as each call's end was fed)
        tokens = (usage["input-tokens"] or 0) + (usage["output-tokens"] or 0)
        tokens += usage["cache-read-tokens"] or 0
        assert tokens and f"usage {tokens:,} tok" in note, (note, usage)
        assert len(counted.gaps()) == len(replay["gaps"])

    def test_a_record_changed_on_disk_reads_as_changed(self, tmp_path: Path) -> None:
        path, _ = generated(tmp_path, 200_000, 5)
        view = read_view(path)
        last = view.messages[-1]
        with open(path, "r+b") as fh:
            fh.truncate(os.path.getsize(path) // 2)  # under the view, in place
        view.records._cache.clear()
        assert last.message["content"][0]["text"] == CHANGED
        view.to_json()  # never raises
        first = view.messages[0].message  # still there
        assert first["kind"] == "user"


class TestTail:
    def test_the_last_messages_as_the_whole_view_has_them(self, tmp_path: Path) -> None:
        path, _ = generated(tmp_path, 400_000, 6)
        whole = eager(path)
        for want in (1, 5, 500):
            view, size = read_tail(path, want=want)
            assert view.partial and size == path.stat().st_size
            expect = whole.messages[-want:]
            assert [(m.seq, m.message) for m in view.messages] == [
                (m.seq, m.message) for m in expect
            ]

    def test_lines_longer_than_a_block_and_a_torn_tail(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path, _ = generated(tmp_path, 300_000, 7)
        whole = eager(path)
        torn = orjson.dumps({"data": {"message": {"kind": "user"}}, "type": "message_end"})
        with open(path, "ab") as fh:
            fh.write(torn)  # valid JSON without its newline: ignored
        monkeypatch.setattr(tail_module, "FIRST_BLOCK", 64)
        view, _ = read_tail(path, want=8)
        assert [m.seq for m in view.messages] == [m.seq for m in whole.messages[-8:]]
        few, _ = read_tail(path, want=8, budget=256)
        assert len(few.messages) < 8  # the budget read fewer: no error

    def test_a_file_without_messages(self, tmp_path: Path) -> None:
        path = tmp_path / "empty.jsonl"
        path.write_bytes(b"")
        view, size = read_tail(path)
        assert view.messages == [] and size == 0


async def test_opens_on_the_conversation_at_its_end(tmp_path: Path) -> None:
    path, info = generated(tmp_path, 300_000, 1)
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = agentgo_screen(app)
        assert screen.query_one("#tabs").active == "conversation"  # type: ignore[attr-defined]
        conversation = screen.conversation
        assert conversation.has_focus
        assert conversation.cursor == len(conversation.items) - 1 == info["messages"] - 1
        await wait_for(pilot, lambda: info["marker"] in screen_text(app))
        assert conversation.is_at_end


async def test_a_big_file_shows_its_end_before_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, info = generated(tmp_path, 600_000, 2)
    monkeypatch.setattr(following, "PREVIEW_FROM", 0)  # any file is "big"
    real_follow = ModelScreen.follow_file
    started: list[ModelScreen] = []
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: started.append(self))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(started))  # the end is shown: the load would start
        screen = agentgo_screen(app)
        conversation = screen.conversation
        assert screen._previewing and 0 < len(conversation.items) <= info["messages"]
        assert all(item.line == 0 for item in conversation.items)  # the end alone: no lines
        await pilot.pause(0.1)
        text = screen_text(app)
        assert info["marker"] in text
        assert "showing the file's end" in text
        assert conversation.cursor == len(conversation.items) - 1
        panes = screen.panes
        assert panes is not None and panes.status() == []  # its own panes: once it is read
        real_follow(screen)  # now the whole file
        await wait_for(pilot, lambda: not screen._previewing and screen._loaded)
        assert len(conversation.items) == info["messages"]
        assert conversation.items[-1].line > 0 and panes.status()
        assert conversation.cursor == info["messages"] - 1
        await pilot.pause(0.1)
        text = screen_text(app)
        assert info["marker"] in text and f"{info['messages']:,} messages" in text


@pytest.mark.parametrize("every", [0.0, 3600.0])
async def test_a_load_hands_on_few_batches_and_always_its_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every: float
) -> None:
    path, info = generated(tmp_path, 600_000, 2)
    real_follow = following.follow
    monkeypatch.setattr(
        following, "follow", lambda *a, **k: real_follow(*a, **k, batch_bytes=16384)
    )
    monkeypatch.setattr(following, "HAND_ON_EVERY", every)
    replayed: list[bool] = []
    told: list[bool] = []
    real_replay, real_receive = ModelScreen._replay, ModelScreen._receive
    monkeypatch.setattr(
        ModelScreen, "_replay", lambda self, u: replayed.append(u.caught_up) or real_replay(self, u)
    )
    monkeypatch.setattr(
        ModelScreen, "_receive", lambda self, u: told.append(u.caught_up) or real_receive(self, u)
    )
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = agentgo_screen(app)
        await wait_for(pilot, lambda: screen._loaded)
        assert len(screen.conversation.items) == info["messages"]
        assert len(replayed) > 20 and told[-1] is True
        if every:  # the first, then only the load's last
            assert told == [False, True]
        else:
            assert len(told) == len(replayed)


def test_args_differ_is_what_the_records_say_in_any_order(tmp_path: Path) -> None:
    """The fact kept as fed equals comparing the latest tool_exec_start and
    tool_invoke_start, whatever order they came in and however many there are."""
    orders = [
        ["start:a", "invoke:a"],
        ["start:a", "invoke:b"],
        ["invoke:b", "start:a"],
        ["invoke:a", "start:a"],
        ["start:a", "invoke:a", "invoke:b"],
        ["start:a", "invoke:b", "start:b"],
        ["start:a", "invoke:b", "start:b", "invoke:c"],
        ["start:a"],
        ["invoke:a"],
    ]
    path = tmp_path / "order.jsonl"
    for order in orders:
        records: list[dict[str, Any]] = [
            {"type": "session_start", "seq": 0, "session_id": "s", "data": {"version": 1}}
        ]
        for seq, step in enumerate(order, start=1):
            kind, args = step.split(":")
            records.append(
                {
                    "type": "tool_exec_start" if kind == "start" else "tool_invoke_start",
                    "seq": seq,
                    "session_id": "s",
                    "run_id": "r",
                    "execution": {"id": "t", "kind": "tool", "attempt": 1},
                    "data": {"args": {"path": args}, "tool": "read_file"},
                }
            )
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
        # As the viewer keeps them (spans, read again) and as dicts.
        for view in (read_view(path), eager(path)):
            call = view.calls[("r", "t", 1)]
            start, invoke = call.tool_start, call.tool_invoke
            expect = start is not None and invoke is not None and start["args"] != invoke["args"]
            assert call.args_differ == expect, order


# -- the neutral model of an agentgo view, kept a snapshot at a time -----------------------


class TestNeutralModel:
    """``AgentGoModel`` takes only what the view gained since its last snapshot: every
    snapshot of a followed file equals the model made afresh from the view at that point,
    and the last equals what ``open`` reads."""

    @pytest.mark.parametrize("damaged", [False, True])
    def test_each_snapshot_is_the_model_made_afresh(self, tmp_path: Path, damaged: bool) -> None:
        path, _ = generated(tmp_path, 400_000, 8, damage=damaged)
        fmt = AgentGoFormat()
        live = fmt.live(str(path))

        def afresh(alive: bool | None) -> Transcript:
            return AgentGoModel(live.view).transcript(str(path), alive)

        assert each_snapshot_afresh(live, path, afresh, 1 << 14) > 10
        assert lazy_items(live.transcript()) > 0  # the messages' parts stay in the file
        if not damaged:
            for alive in (None, True, False):
                assert neutral(live.transcript(alive)) == neutral(
                    fmt.open(path, writer_alive=alive)
                )

    def test_a_followed_file_is_taken_as_it_is_fed(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Messages and model calls' usage are taken from the records as they are parsed:
        the first snapshot of a followed file reads none of them again."""
        path, _ = generated(tmp_path, 400_000, 10)
        fmt = AgentGoFormat()
        live = fmt.live(str(path))
        follow_into(live.apply, path, 1 << 16, fmt.parsed_updates)
        assert len(live.builder.model.column) == len(live.view.messages) > 0
        fresh = neutral(AgentGoModel(live.view).transcript(str(path), None))
        read_again: list[int] = []
        real_read = Records.read

        def read(records: Records, index: int) -> dict[str, Any]:
            read_again.append(index)
            return real_read(records, index)

        monkeypatch.setattr(Records, "read", read)
        kept = live.transcript(writer_alive=None)
        assert read_again == []  # taken as fed: no record read again for the snapshot
        assert neutral(kept) == fresh  # (reading its items reads their lines again)

    def test_a_message_shows_its_thinking_its_failure_and_its_usage(self, tmp_path: Path) -> None:
        path = tmp_path / "story.jsonl"
        write_agentgo_story(path)
        with AgentGoSession.open(path) as s:
            run = s.begin_run()
            said = {"kind": "assistant", "content": "ok", "usage": {"input_tokens": 7}}
            run.record("message_end", {"message": said})
        raw = AgentGoFormat().open(path).raw  # (every committed message, and its records
        # of a type the spec does not name: the story's one, ``host_note``)
        assert [i.parts[0].name for i in raw if i.kind == "record"] == ["host_note"]
        items = [item for item in raw if item.kind != "record"]
        assistant = next(item for item in items if item.role == "assistant")
        assert [p.kind for p in assistant.parts][:2] == ["reasoning", "text"]
        assert assistant.parts[0].text == "The test imports divide; read it first."
        failed = [p for item in items for p in item.parts if p.kind == "tool-result" and p.is_error]
        assert [p.text for p in failed] == ["1 failed: ZeroDivisionError in test_divide_by_zero"]
        assert items[-1].usage is not None and items[-1].usage.input_tokens == 7
        # (the story's others report none of their own: its model calls' usage, shown)
        shown = [(item.role, item.usage and item.usage.tokens) for item in items[:-1]]
        assert shown == [
            ("user", None),
            ("assistant", 876),
            ("tool", None),
            ("tool", None),
            ("assistant", 1061),
            ("user", None),
        ]

    def test_the_tail_ends_as_the_whole_read(self, tmp_path: Path) -> None:
        path, _ = generated(tmp_path, 400_000, 9)
        fmt = AgentGoFormat()
        whole = fmt.open(path)
        end = tail_transcript(fmt, path)
        assert end is not None and end.messages
        assert all(item.line == 0 for item in end.raw)
        want = [m.to_json() for m in whole.messages[-len(end.messages) :]]
        assert [m.to_json() for m in end.messages] == want

    def test_usage_is_the_tally_of_every_model_call(self, tmp_path: Path) -> None:
        path, _ = generated(tmp_path, 300_000, 1)
        view = read_view(path)
        tally = tally_agentgo(view)
        transcript = AgentGoModel(view).transcript(str(path), None)
        assert transcript.usage == Usage.of_totals(tally.transcript)
        assert [run.usage for run in transcript.runs] == [
            Usage.of_totals(tally.runs[run_id]) for run_id in view.run_order
        ]


def lazy_items(transcript: Transcript) -> int:
    """How many items are kept as a span (their parts read again when asked for)."""
    column = transcript.raw._column  # type: ignore[attr-defined]
    return sum(1 for parts in column.parts if parts is None)


def test_a_committed_message_s_lines_are_read_again_when_asked(tmp_path: Path) -> None:
    """No read path asks a committed message's body lines: they are counted from its record
    read again (``Committed.lines``), not at every message fed; thinking, text and one a
    tool call, as the message's layout takes them."""
    path = tmp_path / "s.jsonl"
    parts = [
        {"type": "thinking", "text": "first\nsecond"},
        {"type": "text", "text": "one\ntwo\nthree"},
        {"type": "tool_call", "id": "c1", "name": "sh", "arguments": {}},
    ]
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": {"kind": "user", "content": "hi"}})
        run.record("message_end", {"message": {"kind": "assistant", "content": parts}})
    view = read_view(path)
    assert [m.lines for m in view.messages] == [1, 6]
