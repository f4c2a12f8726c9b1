"""transcript-v1's live model on the seam (``V1Live``): follow's raw lines applied by the
v1 index pass, the neutral model a ``V1Model`` kept between snapshots. Every snapshot of
a followed file equals the model made afresh from the replay at that point, and the last
equals what ``open`` reads."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import each_snapshot_afresh, follow_into, neutral

from session_core.formats import V1, by_name
from session_core.formats.v1 import V1Live
from session_core.formats.v1.model import V1Model
from session_core.model import Transcript

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_transcript


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A realistic v1 session: tool calls and their settles, elisions, compactions."""
    path = tmp_path_factory.mktemp("v1live") / "session.jsonl"
    gen_transcript.generate(path, 2_000_000, seed=3)
    return path


def test_each_snapshot_is_the_model_made_afresh(generated: Path) -> None:
    fmt = by_name(V1)
    live = fmt.live(str(generated))
    assert isinstance(live, V1Live)

    def afresh(alive: bool | None) -> Transcript:
        return V1Model(live.replay.state).transcript(str(generated), alive)

    assert each_snapshot_afresh(live, generated, afresh, 1 << 16) > 10
    last = live.transcript()
    assert any(c.kind == "compaction" for c in last.compactions)
    assert any(c.kind == "elision" for c in last.compactions)
    assert any("folded" in i.marks for i in last.raw)
    for alive in (None, True, False):
        assert neutral(live.transcript(alive)) == neutral(fmt.open(generated, writer_alive=alive))


def test_a_snapshot_reads_only_the_new_message_lines(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fmt = by_name(V1)
    live = fmt.live(str(generated))
    follow_into(live.apply, generated, 1 << 16, fmt.parsed_updates)
    live.transcript()
    events = type(live.replay.state.events)
    read: list[int] = []
    real = events.__getitem__

    def getitem(self: Any, index: int) -> Any:
        read.append(index)
        return real(self, index)

    monkeypatch.setattr(events, "__getitem__", getitem)
    live.transcript()
    assert read == []  # nothing new: no message line read again


def test_runs_come_from_the_run_context_lines(generated: Path) -> None:
    import orjson

    contexts: list[tuple[int, str]] = []
    sections: list[list[str]] = []
    bodies: dict[str, str] = {}
    messages: list[int] = []
    for number, line in enumerate(generated.read_bytes().splitlines(), 1):
        record = orjson.loads(line)
        if record["type"] == "run-context":
            contexts.append((number, record["payload"]["run-id"]))
            sections.append([s["name"] for s in record["payload"]["sections"]])
            for s in record["payload"]["sections"]:
                if "rendered" in s:
                    bodies[s["digest"]] = s["rendered"]
        elif record["type"] == "message":
            messages.append(number)
    transcript = by_name(V1).open(generated, writer_alive=False)
    runs = transcript.runs
    assert [(r.line, r.id) for r in runs] == contexts and len(runs) > 2
    for run, after in zip(runs, [*runs[1:], None], strict=True):
        end = after.line if after is not None else 1 << 62
        assert run.end_line == (after.line - 1 if after is not None else number)  # (its last)
        assert run.items == sum(1 for m in messages if run.line < m < end)
        assert run.context is not None and run.context.facts
        assert run.usage.reported > 0
    assert [[name for name, _ in r.context.sections] for r in runs if r.context] == sections
    found = {body for r in runs if r.context for _, body in r.context.sections}
    assert found <= set(bodies.values())  # each body the one its digest carries
    assert {r.state for r in runs} == {"finished"}  # every operation settled
    alive = by_name(V1).open(generated, writer_alive=True).runs
    assert [r.state for r in alive] == ["finished"] * (len(runs) - 1) + ["running"]


def test_the_first_snapshot_reads_no_message_line(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's first snapshot comes from the facts its replay took: no message, dispatch
    or settle line is read again (only the few lines whose items are what they did:
    run contexts, compactions, elisions)."""
    fmt = by_name(V1)
    live = fmt.live(str(generated))
    follow_into(live.apply, generated, 1 << 16, fmt.parsed_updates)
    events = type(live.replay.state.events)
    kinds = live.replay.state.events.kinds
    read: list[str] = []
    real = events.__getitem__

    def getitem(self: Any, index: int) -> Any:
        read.append(kinds[index])
        return real(self, index)

    monkeypatch.setattr(events, "__getitem__", getitem)
    transcript = live.transcript(writer_alive=False)
    assert set(read) <= {"run-context", "compaction", "elision"}
    ops = transcript.tool_operations
    assert len(ops) > 10 and not read.count("tool-dispatched")
    assert ops[0].tool and "tool-dispatched" in read  # a field only its lines hold: read


def test_items_measured_from_facts_are_as_tall_as_their_parts(generated: Path) -> None:
    """The folded height of an item appended unread (from its line's facts) is the one
    its parts have once read; and its timestamp, usage and marks are its line's."""
    import orjson

    from session_core.item_heights import folded_height

    transcript = by_name(V1).open(generated, writer_alive=False)
    from session_core.replay import KNOWN_TYPES

    # The lines that are items of the raw view: messages, compactions, elisions, and lines
    # of a type the reader does not know (kept as records, shown raw).
    shown = ("message", "compaction", "elision")
    stamps = {
        record["id"]: record.get("ts")
        for record in map(orjson.loads, generated.read_bytes().splitlines())
        if record["type"] in shown or record["type"] not in KNOWN_TYPES
    }
    raw = transcript.raw
    heights = raw.folded_heights()  # type: ignore[attr-defined]
    assert len(heights) == len(raw) == len(stamps) > 100
    for index, item in enumerate(raw):
        assert heights[index] == folded_height(item.parts), item
        assert item.ts == stamps[item.id]
    kinds = {item.kind for item in raw}
    assert kinds == {*shown, "record"}
    assert any(i.usage is not None and i.usage.tokens for i in raw)
    assert any(p.kind == "tool-result" for i in raw for p in i.parts)


def test_a_message_line_written_again_names_no_second_call(tmp_path: Path) -> None:
    """A message line written twice, its call dispatched between them: followed a line
    at a time, with a snapshot after each, the second copy's call was a second,
    "never dispatched" operation, where the whole read has one (the fuzzer)."""
    from session_core import Message, Session

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        call = {"id": "call_0", "function": {"name": "fs_read", "arguments": "{}"}}
        session.append_message(Message(role="assistant", content="", tool_calls=[call]))
        session.append_tool_dispatched("call_0", "fs_read", "{}")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + lines[1])  # (the message line again)
    whole = by_name(V1).open(path, writer_alive=False).tool_operations
    live = by_name(V1).live(str(path))

    def apply(update: Any) -> None:
        live.apply(update)
        live.transcript(writer_alive=False)  # (a snapshot after each: the viewer's)

    follow_into(apply, path, 64, by_name(V1).parsed_updates)  # (a line an update)
    followed = live.transcript(writer_alive=False).tool_operations
    assert [(op.call_id, op.state) for op in followed] == [(op.call_id, op.state) for op in whole]
    assert len(followed) == 1


def test_runs_are_counted_by_state_as_each_would_be_made(generated: Path) -> None:
    """``runs_in_state`` over a snapshot's runs (``V1Runs.count_state``, none made) says
    what making every run says, at every batch of a follow (calls in flight, a file cut
    off on no answer), with the writer alive, gone and unknown."""
    from session_core.runs import runs_in_state

    live = by_name(V1).live(str(generated))
    seen: set[tuple[str, int]] = set()

    def apply(update: Any) -> None:
        live.apply(update)
        for alive in (None, True, False):
            runs = live.transcript(writer_alive=alive).runs
            made = [run.state for run in runs]
            for state in ("finished", "running", "interrupted", "aborted", "failed"):
                assert runs_in_state(runs, state) == made.count(state), (state, alive)
                seen.add((state, made.count(state) > 0))

    follow_into(apply, generated, 1 << 15, by_name(V1).parsed_updates)
    assert {("running", True), ("interrupted", True), ("finished", True)} <= seen
    assert runs_in_state([], "failed") == 0  # (a plain list: each run's own state)


async def test_a_followed_draw_makes_no_run(
    generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header counts a v1 file's runs at every draw of a follow (its failed ones):
    each was made to ask its state, a read of its lines, so a draw cost what the file
    held (40 ms at 100 MB, 33,000 runs: a followed line's lag was 150 ms where the other
    formats' was 20). A draw after an append makes none."""
    from helpers import app_loaded, wait_for

    from viewer.screens.model_screen import ModelScreen
    from viewer.widgets.model_status import ModelStatus

    lines = generated.read_bytes().splitlines(keepends=True)
    cut = len(lines) * 2 // 3
    path = tmp_path / "followed.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    async with app_loaded(path, ModelScreen, (120, 40)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        made: list[int] = []
        real = V1Model.run

        def run(self: V1Model, at: int, runs: Any) -> Any:
            made.append(at)
            return real(self, at, runs)

        monkeypatch.setattr(V1Model, "run", run)
        with path.open("ab") as out:
            out.writelines(lines[cut:])
        await wait_for(pilot, lambda: screen.transcript.lines == len(lines), 30)
        assert len(screen.transcript.runs) > 20
        counts = [t.plain for t in screen.query_one(ModelStatus)._counts[1]]
        assert f"{len(screen.transcript.runs):,} runs" in counts  # (the header drawn)
        assert made == []


class _Searched(list[str]):
    """A run-context list that counts its searches (``index``)."""

    searches = 0

    def index(self, *args: Any) -> int:
        type(self).searches += 1
        return super().index(*args)


def test_a_snapshot_finds_a_superseded_runs_start_unsearched(tmp_path: Path) -> None:
    """An operation left unsettled in a run another followed is no longer running (its
    run's first line found, before its dispatch): each snapshot of a followed file asked
    it again by searching every run-context line's run id (0.7 ms an operation at 1 GB,
    each batch). The model keeps each run's first line; the states are as a read says."""
    from session_core import Message, Session

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        for k in range(30):
            session.append_run_context(f"run-{k}", f"d{k}")
            session.append_message(Message(role="user", content=f"go {k}"))
            call = {"id": f"c{k}", "function": {"name": "sh", "arguments": "{}"}}
            session.append_message(Message(role="assistant", content="", tool_calls=[call]))
            op = session.append_tool_dispatched(f"c{k}", "sh", {}, run_id=f"run-{k}")
            if k % 3 != 2:  # (every third left unsettled: its writer went on to another run)
                session.append_tool_settled(op, "completed", duration=0.1)
    fmt = by_name(V1)
    live = fmt.live(str(path))
    assert isinstance(live, V1Live)
    follow_into(live.apply, path, 256, fmt.parsed_updates)
    contexts = live.replay.state.run_contexts
    contexts.run_ids = _Searched(contexts.run_ids)
    for alive in (True, None, False):
        ops = live.transcript(writer_alive=alive).tool_operations
        read = fmt.open(path, writer_alive=alive).tool_operations
        assert [op.state for op in ops] == [op.state for op in read]
        if alive:  # the last run's is running; an earlier one's, interrupted
            assert [op.state for op in ops][2::3] == ["interrupted"] * 9 + ["running"]
    assert _Searched.searches == 0
