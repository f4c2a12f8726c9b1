"""The Codex raw items' timestamps, packed (``stamps``): each read back as it was put,
whatever its form; a rollout's items and operations tell them as the file says."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from codex_writer import RolloutWriter

from session_core.formats import by_name
from session_core.formats.codex import stamps
from session_core.formats.codex.stamps import Stamps, packed_run, text_of


def test_a_timestamp_of_the_form_is_nine_bytes_and_reads_back() -> None:
    key = packed_run("2026-02-13T16:26:40.099Z", 1)
    assert key is not None and len(key) == stamps.WIDTH
    assert text_of(key) == "2026-02-13T16:26:40.099Z"


@pytest.mark.parametrize(
    "ts",
    [
        "2026-02-13T16:26:40Z",  # no milliseconds
        "2026-02-13T16:26:40.099123Z",  # microseconds
        "2026-02-13T16:26:40.099+00:00",
        "2026-02-13 16:26:40.099Z",
        "2026-02-13T16:26:40.09ZZ",  # a Z where a digit is
        "2026-02-13T16:26:40.0 9Z",
        "2026-02-13T16:26:40.0a9Z",
        "2026-02-13T16:26:40.0٩9Z",  # a digit not ASCII
        "",
    ],
)
def test_any_other_form_is_not_packed_and_is_kept_as_it_is(ts: str) -> None:
    assert packed_run(ts, 1) is None
    column = Stamps()
    column.put(0, "2026-02-13T16:26:40.099Z")
    column.put(1, ts)
    column.put(2, "2026-02-13T16:26:41.100Z")
    assert [column.at(i) for i in range(3)] == [
        "2026-02-13T16:26:40.099Z",
        ts,
        "2026-02-13T16:26:41.100Z",
    ]


def test_batches_packed_and_indexes_skipped() -> None:
    column = Stamps()
    put = {}
    for index in range(0, 3 * stamps.BATCH, 3):  # two of three skipped
        day, hour, ms = 1 + index % 28, index % 24, index % 1000
        ts = f"2026-02-{day:02d}T{hour:02d}:{index % 60:02d}:07.{ms:03d}Z"
        if index == 6000:
            ts = "yesterday"
        column.put(index, ts)
        put[index] = ts
    assert len(column) == 3 * stamps.BATCH - 2
    assert all(column.at(index) == ts for index, ts in put.items())
    with pytest.raises(ValueError):
        column.put(3, "2026-02-13T16:26:40.099Z")


def test_a_rollouts_items_and_operations_tell_their_timestamps(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "list the files")
    w.function_call("shell", {"command": ["ls"]}, "c1")
    w.function_output("c1", "a.txt")
    w.token_count((900, 100, 30, 0))
    w.token_count((900, 100, 30, 0))  # (the same again: kept whole, not by its span)
    w.task_complete("t1")
    text = path.read_text().splitlines()
    text[4] = text[4].replace('"timestamp":"', '"timestamp":"at ', 1)  # another form
    for n in (6, 7):  # token counts without one
        record = orjson.loads(text[n])
        del record["timestamp"]
        text[n] = orjson.dumps(record).decode()
    path.write_text("\n".join(text) + "\n")
    said = [orjson.loads(line).get("timestamp") for line in text]
    t = by_name("codex").open(path, writer_alive=False)
    assert [item.ts for item in t.raw] == said and said[6] is None
    kept = t.raw._column.facts.stamps  # type: ignore[attr-defined]
    assert len(kept) == len(said)  # (every line's was kept there, read back from there)
    with pytest.raises(IndexError):
        kept.at(len(said))
    (op,) = t.tool_operations
    assert (op.started, op.ended) == (said[4], said[5])


def test_reading_changes_nothing() -> None:
    """The viewer reads a snapshot's timestamps while the reader puts more: ``at`` reads
    the tail as it is, it packs nothing."""
    column = Stamps()
    column.put(0, "2026-02-13T16:26:40.099Z")
    column.put(2, "at noon")
    before = list(column.tail)
    assert (column.at(0), column.at(2)) == ("2026-02-13T16:26:40.099Z", "at noon")
    assert column.tail == before
