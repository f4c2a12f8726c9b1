"""A followed Claude Code session's snapshots build on the last (``chain.Chain``):
where new lines only extend the chain, the nodes and items before them keep their
statuses, marks and place, and only the new ones are taken; the usage totals of the
file and of each turn are kept folded, and folded again from where a response's usage
changed. Every snapshot must equal the one assembled afresh from the same builder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from claude_code_writer import story
from helpers import follow_into, neutral

from session_core import open_transcript
from session_core.following import FollowUpdate
from session_core.formats import CLAUDE_CODE, by_name

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_claude_code


def generated(folder: Path, seed: int) -> Path:
    path = folder / f"session-{seed}.jsonl"
    gen_claude_code.generate(path, 700_000, seed=seed)
    return path


@pytest.mark.parametrize("source", ["story", "generated-1", "generated-2"])
def test_each_snapshot_is_the_one_assembled_afresh(
    tmp_path: Path, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_core.formats.claude_code import chain

    built_on: list[bool] = []
    real = chain.unchanged

    def unchanged(*args: Any) -> int:
        start: int = real(*args)
        built_on.append(start >= 0)
        return start

    monkeypatch.setattr(chain, "unchanged", unchanged)
    if source == "story":
        path = story(tmp_path, torn=False)
        batch = 256  # a few lines a batch: the branch, the boundaries, each on its own
    else:
        path = generated(tmp_path, int(source[-1]))
        batch = 1 << 13
    fmt = by_name(CLAUDE_CODE)
    live = fmt.live(str(path))
    snapshots = 0

    def apply(update: FollowUpdate) -> None:
        nonlocal snapshots
        live.apply(update)
        builder: Any = live.builder
        kept = neutral(live.transcript(writer_alive=False))
        chain, prefix, runs = builder.chain, builder.usage.prefix, builder.usage.runs
        builder.chain = builder.usage.prefix = None  # the whole chain taken again, and
        builder.usage.runs = {}  # every usage total folded again
        made = _forget_made(builder)  # every run and compaction made again
        assert kept == neutral(live.transcript(writer_alive=False))
        if snapshots % 2:  # (and now and then what was built on, built on again)
            builder.chain, builder.usage.prefix, builder.usage.runs = chain, prefix, runs
            _restore_made(builder, made)
        snapshots += 1

    follow_into(apply, path, batch, fmt.parsed_updates)
    assert built_on.count(True) > built_on.count(False)  # mostly built on, not taken again


def _forget_made(builder: Any) -> tuple[list[Any], list[Any]]:
    """The runs and compactions a snapshot made, forgotten (made again by the next)."""
    made = (builder.made_runs, [(bd.made, bd.made_with) for bd in builder.boundaries])
    builder.made_runs = []
    for bd in builder.boundaries:
        bd.made = bd.made_with = None
    return made


def _restore_made(builder: Any, made: tuple[list[Any], list[Any]]) -> None:
    builder.made_runs = made[0]
    for bd, (compaction, summary_item) in zip(builder.boundaries, made[1], strict=False):
        bd.made, bd.made_with = compaction, summary_item


def _groups_compared(path: Path, groups: list[int]) -> None:
    """Feed the file's lines in groups of these sizes, a snapshot after each, each against
    the one assembled afresh."""
    from session_core.file_lines import read_lines

    builder: Any = by_name(CLAUDE_CODE).builder(str(path))
    lines = list(read_lines(str(path), builder))
    at = 0
    for size in groups:
        for number, raw, span in lines[at : at + size]:
            builder.lines, builder.span, builder.line_bytes = number, span, len(raw)
            builder.feed_line(raw, number)
        at += size
        kept = neutral(builder.transcript(writer_alive=False))
        chain, prefix, runs = builder.chain, builder.usage.prefix, builder.usage.runs
        builder.chain = builder.usage.prefix = None
        builder.usage.runs = {}
        made = _forget_made(builder)
        assert kept == neutral(builder.transcript(writer_alive=False)), f"after {at} lines"
        builder.chain, builder.usage.prefix, builder.usage.runs = chain, prefix, runs
        _restore_made(builder, made)
    assert at == len(lines)


def _grown_recorded(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each assembly from now on built on the last chain (``chain.grown``)."""
    from session_core.formats.claude_code import chain

    grown: list[bool] = []
    real = chain.grown

    def recorded(*args: Any) -> Any:
        found = real(*args)
        grown.append(found is not None)
        return found

    monkeypatch.setattr(chain, "grown", recorded)
    return grown


def test_parallel_calls_answered_beside_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One response over three lines (A1 text, A2 and A3 a call each); each call's result
    # hangs from its own line, and the next response from the last result: the chain
    # walked back misses the first result, which only the response's calls recover.
    from claude_code_writer import CCWriter, text, tool_use

    w = CCWriter()
    w.user("list and count")
    _a1, a2, a3 = w.assistant(
        "m1", [text("Both."), tool_use("t1", "Bash", command="ls"), tool_use("t2", "Bash")]
    )
    w.result("t1", "a\nb", parent=a2)
    r2 = w.result("t2", "2", parent=a3)
    w.assistant("m2", [text("Two files.")], parent=r2, stop="end_turn")
    w.user("again, the other way round")
    _b1, b2, b3 = w.assistant(
        "m3", [text("Again."), tool_use("t3", "Bash"), tool_use("t4", "Bash")]
    )
    r4 = w.result("t4", "4", parent=b3)  # the later call answered first
    w.result("t3", "3", parent=b2)
    w.assistant("m4", [text("Done.")], parent=r4, stop="end_turn")
    path = w.write(tmp_path / "parallel.jsonl")
    # after A3, then the two results of m1 at once (the chain from the second result
    # comes back to A3; the first result hangs from A2); line by line for m3
    grown = _grown_recorded(monkeypatch)
    _groups_compared(path, [4, 2, 1, 1, 3, 2, 1])
    _groups_compared(path, [1] * 14)
    assert grown.count(True) >= 8


@pytest.mark.parametrize("crlf", [False, True])
def test_followed_batches_read_as_the_file_opened(tmp_path: Path, crlf: bool) -> None:
    """A live batch is taken in one loop (``take_lines``: each line decoded where it lies
    in the block read): with CRLF endings, blank lines, a repeated line (shown as it is,
    no second node) and a line that is not JSON, the model is the one ``open`` reads."""
    path = story(tmp_path / "projects" / "-p", crlf=crlf, torn=False)
    end = b"\r\n" if crlf else b"\n"
    body = path.read_bytes().split(end)
    repeated = next(line for line in body if b'"type": "assistant"' in line)
    path.write_bytes(end.join([*body[:5], b"", repeated, b"{torn", *body[5:-1], repeated, b""]))
    fmt = by_name(CLAUDE_CODE)
    live = fmt.live(str(path))
    follow_into(live.apply, path, 1 << 10, fmt.parsed_updates)
    followed = neutral(live.transcript(writer_alive=False))
    opened = fmt.open(path, writer_alive=False)
    assert followed == neutral(opened)  # its subagents linked as the whole file's open does
    assert sum(item.kind == "record" for item in opened.raw) >= 3  # the repeats, the torn


def test_a_cycle_among_new_lines_is_walked_whole(tmp_path: Path) -> None:
    """Lines fed between two snapshots whose parents make a cycle (a -> b -> a) or name
    a line written later: the next snapshot walks the chain whole (cycle-guarded) instead
    of following the new nodes back (which never ended on a cycle), and equals the one
    assembled afresh."""
    import json
    import signal

    from claude_code_writer import CCWriter

    w = CCWriter()
    w.user("start")
    w.bare({"type": "user", "uuid": "a", "parentUuid": "b", "message": {"content": "A"}})
    w.bare({"type": "user", "uuid": "b", "parentUuid": "a", "message": {"content": "B"}})
    w.bare({"type": "user", "uuid": "c", "parentUuid": "d", "message": {"content": "C"}})
    w.bare({"type": "user", "uuid": "d", "parentUuid": "b", "message": {"content": "D"}})
    builder: Any = by_name(CLAUDE_CODE).builder(str(tmp_path / "s.jsonl"))

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError("the snapshot after the cycle did not end")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(10)
    try:
        for number, record in enumerate(w.lines, 1):
            builder.feed_line(json.dumps(record).encode(), number)
            if number % 2 == 0:
                continue  # (a snapshot after the first line, then after each two)
            kept = neutral(builder.transcript(writer_alive=False))
            builder.chain = builder.usage.prefix = None
            builder.usage.runs = {}
            assert kept == neutral(builder.transcript(writer_alive=False))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert {item.text for item in builder.transcript(writer_alive=False).raw} >= {"A", "B"}


def test_a_snapshots_operations_are_its_own_when_made_later(tmp_path: Path) -> None:
    # A snapshot makes an answered call's operation when asked for, after the builder
    # has moved on: it must read as it did then (a call unanswered then, still so).
    from session_core.file_lines import read_lines

    path = tmp_path / "session.jsonl"
    gen_claude_code.generate(path, 150_000, seed=3)
    fmt = by_name(CLAUDE_CODE)
    lines = list(read_lines(str(path), fmt.builder(str(path))))

    def fed(count: int) -> Any:
        builder: Any = fmt.builder(str(path))
        for number, raw, span in lines[:count]:
            builder.lines, builder.span, builder.line_bytes = number, span, len(raw)
            builder.feed_line(raw, number)
        return builder

    def ops(transcript: Any) -> list[Any]:
        return [(op.to_json(), op.label, op.started, op.ended) for op in transcript.tool_operations]

    running = 0
    for count in range(1, len(lines), 7):
        builder = fed(count)
        early = builder.transcript(writer_alive=True)
        for number, raw, span in lines[count:]:
            builder.lines, builder.span, builder.line_bytes = number, span, len(raw)
            builder.feed_line(raw, number)
        builder.transcript(writer_alive=False)
        then = ops(fed(count).transcript(writer_alive=True))
        assert ops(early) == then, f"after {count} lines"
        running += sum(label == "running" for _, label, _, _ in then)
    assert running > 0  # (some were answered after their snapshot)


def test_a_batch_ending_in_progress_lines_is_built_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot taken after a call's progress lines, before its result: the next one
    walks back through them to the last leaf and builds on the chain (most batches of a
    real file end so), equal to the one assembled afresh."""
    from claude_code_writer import CCWriter, text, tool_use

    w = CCWriter()

    def progress(data: dict[str, Any]) -> None:
        w.progress("t1", data)
        w.last = w.lines[-1]["uuid"]  # (as Claude Code chains them: the next line hangs on)

    w.user("build it")
    w.assistant("m1", [tool_use("t1", "Bash", command="make")])
    for n in range(3):
        progress({"type": "bash_progress", "output": f"step {n}"})
    w.result("t1", "built")
    w.assistant("m2", [text("Built.")], stop="end_turn")
    for _ in range(2):
        progress({"type": "hook_progress", "hookEvent": "Stop"})
    w.user("and test it")
    path = w.write(tmp_path / "progress.jsonl")
    grown = _grown_recorded(monkeypatch)
    _groups_compared(path, [5, 2, 2, 1])  # (after the progress lines, twice)
    assert grown == [True, True, True]


def test_an_earlier_turns_id_in_a_later_turn_is_followed_as_read(tmp_path: Path) -> None:
    # Turn 1's response id comes back after turn 3 has begun (a redacted file's
    # placeholder: real files never repeat an id past a prompt). It is another response,
    # of turn 3: each snapshot is the one assembled afresh, and turn 1 keeps its usage.
    from claude_code_writer import CCWriter, text, usage

    w = CCWriter()
    w.user("first")
    w.assistant("m1", [text("One.")], usage=usage(10, 5), stop="end_turn")
    w.user("second")
    w.assistant("m2", [text("Two.")], usage=usage(20, 7), stop="end_turn")
    w.user("third")
    w.assistant("m1", [text("One, more.")], usage=usage(10, 90), stop="end_turn")
    w.assistant("m3", [text("Three.")], usage=usage(30, 9), stop="end_turn")
    path = w.write(tmp_path / "late.jsonl")
    _groups_compared(path, [2, 2, 2, 1])
    runs = open_transcript(path).runs
    assert [(r.usage.output_tokens, r.usage.reported) for r in runs] == [(5, 1), (7, 1), (99, 2)]
