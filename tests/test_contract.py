"""The contract every registered format keeps, run over ``session_core.formats.FORMATS``.

For each format, on a representative file (tests/format_fixtures.py): detection, read-only
use (bytes, inode, mtime and locks unchanged) across peek, replay, check, diff, export and
``open_transcript``, follow through truncation and replacement, every snapshot of a followed
file against a whole read of its lines so far, the browser's status (values no writer
wrote: test_contract_values).
A registered format with no fixture factory fails here.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from contract_helpers import open_transcript
from format_fixtures import FACTORIES
from helpers import fingerprint, follow_into

from session_core import peek
from session_core.formats import FORMATS, TranscriptFormat, detect_format, format_of
from session_core.model import op_states, op_tools
from session_core.scan import scan_file
from viewer.cli import main


def test_every_registered_format_has_a_fixture_factory() -> None:
    missing = [fmt.name for fmt in FORMATS if fmt.name not in FACTORIES]
    assert not missing, f"registered with no contract_sample (or format_fixtures.py): {missing}"


def test_detection(fmt: TranscriptFormat, sample: Path) -> None:
    assert detect_format(sample) == fmt.name
    found = format_of(sample)
    assert found is not None and found.name == fmt.name


def test_every_read_path_is_read_only(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = fingerprint(sample)
    result = peek(sample)
    assert result.error is None, result.error
    assert fingerprint(sample) == before
    out = tmp_path / "out.html"
    for args in (
        ["replay", str(sample)],
        ["check", str(sample)],
        ["diff", str(sample)],
        ["export", str(sample), "--format", "md"],
        ["export", str(sample), "--format", "json"],
        ["export", str(sample), "--format", "html", "-o", str(out)],
    ):
        code = main(args)
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        assert code == 0, (args, captured.err)  # (diff too: api.md, every format)
        assert captured.out or args[-2] == "-o"
        assert fingerprint(sample) == before, args
    assert out.stat().st_size > 0
    open_transcript(sample)
    assert fingerprint(sample) == before


async def test_a_path_given_as_bytes_is_the_file_of_that_name(
    fmt: TranscriptFormat, sample: Path
) -> None:
    """README: a path given as bytes is read as the file's name, by every entry point (a
    Claude Code or Codex file's reader, and every format's follow, raised ``TypeError``)."""
    import session_core
    from session_core import follow
    from session_core.export import export_into
    from session_core.views import replay_any

    name = os.fsencode(sample)
    whole = session_core.open_transcript(sample)
    assert len(session_core.open_transcript(name).raw) == len(whole.raw)
    assert replay_any(name) == replay_any(sample)
    for form in ("md", "json"):
        by_bytes, by_str = io.BytesIO(), io.BytesIO()
        export_into(name, form, "replayed", by_bytes)  # type: ignore[arg-type]
        export_into(sample, form, "replayed", by_str)
        assert by_bytes.getvalue() == by_str.getvalue(), form
    seen = peek(name)
    assert seen.error is None and len(seen.envelopes) == len(peek(sample).envelopes)
    updates = follow(name, force_polling=True, poll_interval=0.05)  # type: ignore[arg-type]
    try:
        async with asyncio.timeout(20):
            first = await anext(updates)
    finally:
        await updates.aclose()
    assert first.read == str(sample) and (first.envelopes or first.raw)


def test_a_compressed_copy_reads_as_its_lines(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex compresses idle rollouts; any format's file may be so kept (``zstd``): every
    read path reads its lines as the plain file's, never writing."""
    from codex_writer import zst_copy

    packed = Path(zst_copy(str(sample), f"{sample}.zst"))  # (beside it: its subagents too)
    before = fingerprint(packed)
    assert detect_format(packed) == fmt.name
    outputs: dict[str, list[str]] = {}
    for path in (sample, packed):
        for command in ("replay", "check", "diff"):
            assert main([command, str(path)]) == 0, (command, capsys.readouterr().err)
            outputs.setdefault(command, []).append(capsys.readouterr().out.replace(str(path), "F"))
        seen = peek(path).to_json()
        assert seen.pop("path") == str(path) and seen.pop("size") > 0
        outputs.setdefault("peek", []).append(repr(seen))
    for command, (plain, unpacked) in outputs.items():
        assert plain == unpacked, command
    assert fingerprint(packed) == before


def test_a_file_gone_or_compressed_in_place_has_no_writer(
    fmt: TranscriptFormat, sample: Path
) -> None:
    """Nothing can write a file that is gone, so its calls left open stay interrupted
    (``None``, "a writer may be at work", had them running); a file compressed in place
    (Codex's ``zstd --rm``) is read from its copy, whose writer is done."""
    import os

    from codex_writer import zst_copy

    os.utime(sample)  # (fresh: a writer that does not lock may be at work)
    assert fmt.writer_alive(sample) in (None, False)
    packed = Path(zst_copy(str(sample), f"{sample}.zst"))
    os.unlink(sample)
    assert fmt.writer_alive(sample) is False  # (its compressed copy: done)
    os.unlink(packed)
    assert fmt.writer_alive(sample) is False  # (gone)


def test_the_browser_reads_its_status(fmt: TranscriptFormat, sample: Path) -> None:
    before = fingerprint(sample)
    summary = scan_file(sample, live_window=1.0)
    assert summary.status not in ("not-a-transcript", "damaged"), summary
    assert fingerprint(sample) == before


def test_where_a_writer_went_on_is_looked_for_read_only(
    fmt: TranscriptFormat, sample: Path
) -> None:
    """Its own file is never where it went on; a file gone is no error; nothing written."""
    before = fingerprint(sample)
    assert str(sample) not in fmt.written_since(str(sample), 0.0)
    assert fmt.written_since(str(sample), time.time() + 3600) == []
    assert fmt.written_since(str(sample.parent / "gone" / "x.jsonl"), 0.0) == []
    assert fingerprint(sample) == before


def lines_of(updates: list[object]) -> int:
    return sum(len(u.envelopes) or len(u.raw) for u in updates)  # type: ignore[attr-defined]


async def test_follow_through_truncation_and_replacement(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    from session_core.following import follow

    data = sample.read_bytes()
    whole = len([line for line in data.splitlines() if line.strip()])
    agen = follow(sample, force_polling=True, poll_interval=0.05)
    seen: list[object] = []

    async def until(check: Callable[[], bool]) -> None:
        async with asyncio.timeout(20):
            while not check():
                seen.append(await anext(agen))

    try:
        await until(lambda: lines_of(seen) >= whole - 1)  # a torn last line may be held back
        # truncation: the file is cut to nothing, then written again
        mark = len(seen)
        with open(sample, "r+b") as fh:
            fh.truncate(0)
        await until(lambda: any(u.reset for u in seen[mark:]))  # type: ignore[attr-defined]
        sample.write_bytes(data)
        mark = len(seen)
        await until(lambda: lines_of(seen[mark:]) >= whole - 1)
        # replacement: another file renamed over it
        other = tmp_path / "other"
        other.mkdir()
        replacement = FACTORIES[fmt.name](other)
        mark = len(seen)
        os.replace(replacement, sample)
        await until(lambda: any(u.reset for u in seen[mark:]))  # type: ignore[attr-defined]
    finally:
        await agen.aclose()


def _comparable(transcript: Any, here: Path, there: Path) -> Any:
    """A model's JSON as two reads of the same lines must give it: without warnings
    (follow words its own) and subagents (linked only once a followed file caught up),
    ``there`` (a copy's folder) read as ``here``."""
    shown = transcript.to_json()
    subagents = ("usage-with-subagents-partial", "usage-with-subagents-said")
    for key in ("warnings", "subagents", "usage-with-subagents", *subagents):
        shown.pop(key, None)
    return orjson.loads(orjson.dumps(shown).replace(str(there).encode(), str(here).encode()))


@pytest.mark.parametrize("batch", [200, 1 << 16])
def test_every_snapshot_of_a_followed_file_is_its_lines_read_whole(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path, batch: int
) -> None:
    """The live model, however its updates fall and whether its writer is seen at work
    or gone, gives at each update what a whole read of the lines so far gives: nothing
    it keeps from one batch to the next (pending calls, usage already counted, links
    made) makes a snapshot differ."""
    lines = sample.read_bytes().split(b"\n")
    there = tmp_path / "prefix"
    there.mkdir()
    beside = sample.with_suffix("")  # a Claude Code session's subagents, as the original
    if beside.is_dir():
        shutil.copytree(beside, there / beside.name)
    prefix = there / sample.name
    live = fmt.live(str(sample))
    compared: list[int] = []

    def apply(update: Any) -> None:
        live.apply(update)
        if update.lines:
            upto = update.lines[-1]
            prefix.write_bytes(b"\n".join(lines[:upto]) + b"\n")
            alive = len(compared) % 3 != 1  # the writer seen at work, or gone, by turns
            whole = fmt.open(str(prefix), writer_alive=alive)
            mine = _comparable(live.transcript(writer_alive=alive), sample.parent, there)
            assert mine == _comparable(whole, sample.parent, there), f"after line {upto}"
            compared.append(upto)

    follow_into(apply, sample, batch, fmt.parsed_updates)
    assert compared and compared[-1] >= len(lines) - 2  # (a torn last line is held back)
    assert batch > 1000 or len(compared) > 5


def test_a_compressed_file_followed_is_its_whole_read(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """A ``.jsonl.zst`` followed as the viewer follows it gives what a whole read gives:
    its spans are into the unpacked copy, which nothing reads again (agentgo's followed
    operations lost their arguments and results: the fuzzer)."""
    from codex_writer import zst_copy

    packed = Path(zst_copy(str(sample), f"{sample}.zst"))
    live = fmt.live(str(packed))
    follow_into(live.apply, packed, 1 << 16, fmt.parsed_updates)
    whole = fmt.open(str(packed), writer_alive=False)
    mine = _comparable(live.transcript(writer_alive=False), sample.parent, sample.parent)
    assert mine == _comparable(whole, sample.parent, sample.parent)


def test_check_counts_what_replay_lists(fmt: TranscriptFormat, sample: Path) -> None:
    """``check``'s note counts the compactions and elisions ``replay`` lists, in every
    format (v1's said none of them: the API audit)."""
    from session_core.text import count
    from session_core.views import replay_any

    kinds = [c["kind"] for c in replay_any(sample)["compactions"]]
    note = fmt.check(sample)
    for kind in ("compaction", "elision"):
        if kind in kinds:
            assert count(kinds.count(kind), kind) in note, note
        else:
            assert f" {kind}" not in note.split(";")[0], note


def test_check_says_the_usage_replay_counts(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """``check``'s note gives the file's usage, its tokens and cost as ``replay``'s
    ``usage`` totals them (each response once); "usage unknown" where no line reports
    any, never 0."""
    from session_core.text import cost_text
    from session_core.views import replay_any

    usage = replay_any(sample)["usage"]
    kinds = ("input-tokens", "output-tokens", "cache-read-tokens", "cache-write-tokens")
    tokens = sum(usage[k] or 0 for k in kinds) + usage.get("total-only-tokens", 0)
    note = fmt.check(sample).split(";")[0]
    if usage["cost"] is None and not tokens:  # (a format whose sample reports none)
        assert note.endswith(", usage unknown"), note
        return
    assert f", usage {tokens:,} tok · {cost_text(usage['cost'])}" in note, note
    stripped = tmp_path / "no-usage" / sample.name
    stripped.parent.mkdir()
    lines = sample.read_bytes().splitlines(keepends=True)
    stripped.write_bytes(b"".join(map(_without_usage, lines)))
    assert replay_any(stripped)["usage"]["cost"] is None
    note = fmt.check(stripped).split(";")[0]
    # (then its subagents', where it has some: ``subagents_said``)
    assert ", usage unknown" in note and " 0 tok" not in note, note


USAGE_KEYS = {"usage", "total_token_usage", "last_token_usage", "cost"}  # (every format's)


def _without_usage(raw: bytes) -> bytes:
    """A line with every usage key gone (a line that is no JSON as it was)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in USAGE_KEYS}
        return [strip(v) for v in value] if isinstance(value, list) else value

    try:
        return orjson.dumps(strip(orjson.loads(raw))) + raw[len(raw.rstrip(b"\n")) :]
    except orjson.JSONDecodeError:
        return raw


def test_kinds_are_counted_without_making_items(fmt: TranscriptFormat, sample: Path) -> None:
    """``count_kind`` (the browser's message lines, the diff tab's) counts what the items
    made say, in the raw and the replayed view, whole and followed."""
    from session_core.column_items import count_kind

    live = fmt.live(str(sample))
    follow_into(live.apply, sample, 1 << 12, fmt.parsed_updates)
    for transcript in (fmt.open(str(sample), writer_alive=False), live.transcript(False)):
        for items in (transcript.raw, transcript.messages):
            kinds = {item.kind for item in items} | {"message", "no-such-kind"}
            for kind in kinds:
                assert count_kind(items, kind) == sum(item.kind == kind for item in items), kind


def test_an_operations_state_is_told_without_making_it(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """``op_states`` and ``op_tools`` (what the tools tab's ``e`` and its filter ask of
    every operation) say what each operation made says, of a whole read and of every
    snapshot of a followed file, with the writer at work or gone."""
    for alive in (True, False):
        told = fmt.open(str(sample), writer_alive=alive).tool_operations
        made = fmt.open(str(sample), writer_alive=alive).tool_operations
        states, tools = op_states(told), op_tools(told)
        assert [states(i) for i in range(len(told))] == [op.state for op in made]
        assert [tools(i) for i in range(len(told))] == [op.tool for op in made]
    live = fmt.live(str(sample))
    snapshots: list[int] = []

    def apply(update: Any) -> None:
        live.apply(update)
        ops = live.transcript(writer_alive=len(snapshots) % 2 == 0).tool_operations
        states, tools = op_states(ops), op_tools(ops)
        told = [states(i) for i in range(len(ops))]
        assert told == [op.state for op in ops] == [states(i) for i in range(len(ops))]
        assert [tools(i) for i in range(len(ops))] == [op.tool for op in ops]
        snapshots.append(len(ops))

    follow_into(apply, sample, 200, fmt.parsed_updates)
    assert snapshots and max(snapshots) > 0


def test_an_operation_names_the_message_that_asked_for_it(
    fmt: TranscriptFormat, sample: Path
) -> None:
    """Its ``message_id`` (``m`` on the tools tab goes there) is the first item whose
    tool-call part is its call, whole and followed (agentgo's named none: ``m`` found
    no message)."""
    live = fmt.live(str(sample))
    follow_into(live.apply, sample, 1 << 12, fmt.parsed_updates)
    for transcript in (fmt.open(str(sample), writer_alive=False), live.transcript(False)):
        callers: dict[str, str] = {}
        for item in transcript.raw:
            for part in item.parts:
                if part.kind == "tool-call" and part.call_id:
                    callers.setdefault(part.call_id, item.id)
        ops = transcript.tool_operations
        assert ops and callers
        for op in ops:
            if op.call_id in callers:
                assert op.message_id == callers[op.call_id], op.call_id


def test_a_format_that_records_no_run_contexts_gives_none(
    fmt: TranscriptFormat, sample: Path
) -> None:
    """A format that says it records no run contexts (``has_run_contexts``: a run's
    detail then says nothing of one missing) gives none."""
    if not fmt.has_run_contexts:
        assert all(run.context is None for run in open_transcript(sample).runs)


def test_the_replay_json_names_each_compaction_by_its_line(
    fmt: TranscriptFormat, sample: Path
) -> None:
    """Every compaction and elision in ``replay``'s JSON carries the line it stands at,
    the model's own (v1's said 0 for every one: its lines were never looked up). A
    format that has none says so (``has_compactions``) and lists none."""
    replayed = fmt.replay_json(sample)["compactions"]
    model = open_transcript(sample).compactions
    if fmt.has_compactions:
        assert replayed, "the sample of a format with compactions has one"
    else:
        assert not replayed and not model, "a format with no compactions lists none"
    assert [(c["id"], c["line"]) for c in replayed] == [(c.id, c.line) for c in model]
    lines = sample.read_bytes().split(b"\n")
    for c in replayed:
        assert 0 < c["line"] <= len(lines)
