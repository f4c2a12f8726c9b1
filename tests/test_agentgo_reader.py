"""agentgo-v1: the strict streaming reader, and its properties under mutation."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import fingerprint
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgo_helpers import (
    dump_records,
    records_of,
    write_story,
)
from session_core import TranscriptError, peek
from session_core.agentgo import (
    AgentGoSession,
    AgentGoView,
    read,
    read_view,
)
from session_core.errors import (
    InvalidLineError,
)
from session_core.line_warnings import unfinished_line

# --- the strict reader ----------------------------------------------------------------------


class TestStrictReader:
    def _broken(self, valid: Path, change: Any) -> Path:
        records = records_of(valid)
        change(records)
        valid.write_bytes(dump_records(records))
        return valid

    def _fails(self, path: Path, line: int | None, match: str) -> TranscriptError:
        with pytest.raises(TranscriptError, match=match) as caught:
            list(read(path))
        assert caught.value.line == line
        assert caught.value.path == str(path)
        with pytest.raises(TranscriptError):
            read_view(path)
        return caught.value

    def test_a_valid_file_reads(self, valid: Path) -> None:
        assert [r["type"] for r in read(valid)] == [
            "session_start", "run_start", "agent_start", "model_request", "model_exec_end",
            "message_end", "agent_end", "run_close",
        ]  # fmt: skip

    @pytest.mark.parametrize(
        ("change", "line", "match"),
        [
            pytest.param(lambda rs: rs.pop(3), 4, "seq 4 after seq 2", id="gap_in_seq"),
            pytest.param(lambda rs: rs[4].update(seq=3), 5, "contiguous", id="repeated_seq"),
            pytest.param(
                lambda rs: rs[5].update(session_id="someone-else"),
                6,
                "someone-else",
                id="other_session_id",
            ),
            pytest.param(
                lambda rs: rs[0]["data"].update(version=2), 1, "version 2", id="version_2"
            ),
            pytest.param(
                lambda rs: rs[0].update(data={}), 1, "no format version", id="version_missing"
            ),
            pytest.param(
                lambda rs: rs.pop(0),
                1,
                'starts with a "run_start"',
                id="first_record_is_not_session_start",
            ),
            pytest.param(lambda rs: rs[0].update(seq=7), 1, "not 0", id="first_seq_is_not_zero"),
            pytest.param(lambda rs: rs[2].update(seq="2"), 3, "integer seq", id="no_integer_seq"),
            pytest.param(
                lambda rs: rs[3].update(type="session_start", data={"version": 1}),
                4,
                "a second session_start",
                id="second_session_start",
            ),
        ],
    )
    def test_a_broken_record_fails_naming_its_line(
        self, valid: Path, change: Any, line: int, match: str
    ) -> None:
        self._fails(self._broken(valid, change), line, match)

    @pytest.mark.parametrize(
        ("middle", "match"),
        [
            (b'{"data":{},"seq":3,"ty', "not valid JSON"),
            (b"", "blank"),
            (b"   ", "blank"),
            (b"[1,2,3]", "not a JSON object"),
            (b"\xff\xfe garbage", "not valid UTF-8"),
        ],
    )
    def test_corrupt_middle_line_names_its_line(
        self, valid: Path, middle: bytes, match: str
    ) -> None:
        lines = valid.read_bytes().split(b"\n")
        lines[3] = middle
        valid.write_bytes(b"\n".join(lines))
        error = self._fails(valid, 4, match)
        assert isinstance(error, InvalidLineError)
        assert "line 4" in str(error)

    @pytest.mark.parametrize("middle", [b"", b"   ", b"\r", b'{"data":{},"seq":3,"ty', b"\xff"])
    def test_a_bad_middle_line_is_said_by_peek_and_a_follow_too(
        self, valid: Path, middle: bytes
    ) -> None:
        """Where the strict read refuses a line (a blank one too: every complete line
        must be a record), ``peek`` and the viewer's follow, which read on, say so by its
        line (they said nothing of a blank line; an audit)."""
        from helpers import follow_into

        from session_core.formats import AGENTGO, by_name

        lines = valid.read_bytes().split(b"\n")
        lines[3] = middle
        valid.write_bytes(b"\n".join(lines))
        self._fails(valid, 4, "line 4")
        assert [w for w in peek(valid).warnings if w.startswith("line 4 ")]
        fmt = by_name(AGENTGO)
        live = fmt.live(str(valid))
        follow_into(live.apply, valid, 1 << 20, fmt.parsed_updates)
        assert [w for w in live.transcript(writer_alive=False).warnings if w.startswith("line 4 ")]

    def test_records_before_the_break_stream_out_first(self, valid: Path) -> None:
        path = self._broken(valid, lambda rs: rs[5].update(session_id="x"))
        seen: list[int] = []
        with pytest.raises(TranscriptError):
            for record in read(path):
                seen.append(record["seq"])
        assert seen == [0, 1, 2, 3, 4]

    @pytest.mark.parametrize(
        "tail",
        [
            "valid-next-record",
            b'{"data":{},"seq":',
            b"not json at all",
            b'{"seq": 99, "type": "weird"}',
        ],
    )
    def test_a_final_line_without_newline_is_ignored(self, valid: Path, tail: Any) -> None:
        records = list(read(valid))
        if tail == "valid-next-record":  # valid JSON, even the right seq: still ignored
            nxt = dict(records[-1], seq=len(records), type="agent_start", data={})
            tail = orjson.dumps(nxt)
        with valid.open("ab") as fh:
            fh.write(tail)
        assert list(read(valid)) == records
        view = read_view(valid)
        # ... and said to be left out (api.md: a malformed final line is in the warnings)
        number = len(records) + 1
        said = f"line {number} has no newline: the writer left it unfinished, and it is not"
        assert view.warnings == [unfinished_line(number, len(tail), tail)]  # (every format's)
        assert view.warnings[0].startswith(f"{said} read (a crash tail); its ")
        view.warnings.clear()
        assert view.to_json() == read_view_of(records).to_json()

    def test_empty_and_tail_only_files_fail(self, tmp_path: Path, valid: Path) -> None:
        empty = tmp_path / "empty.jsonl"
        empty.write_bytes(b"")
        self._fails(empty, None, "no complete line")
        first = valid.read_bytes().split(b"\n")[0]
        tail_only = tmp_path / "tail.jsonl"
        tail_only.write_bytes(first)  # a whole session_start, without its newline
        self._fails(tail_only, None, "no complete line")

    def test_missing_directory_and_fifo(self, tmp_path: Path) -> None:
        self._fails(tmp_path / "nope.jsonl", None, "there is no such file")
        self._fails(tmp_path, None, "directory")
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        self._fails(fifo, None, "not a regular file")  # and it did not block

    def test_read_never_writes(self, valid: Path) -> None:
        os.utime(valid, ns=(1_000_000_000, 1_000_000_000))
        before = fingerprint(valid)
        list(read(valid))
        read_view(valid)
        assert fingerprint(valid) == before


def read_view_of(records: list[dict[str, Any]]) -> AgentGoView:
    view = AgentGoView()
    for number, record in enumerate(records, start=1):
        view.feed(record, number)
    return view


# --- properties of the strict reader ---------------------------------------------------------


def _sample() -> bytes:
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "s.jsonl"
        s = write_story(path)
        s.close()
        return path.read_bytes()


SAMPLE = _sample()
SAMPLE_RECORDS = [orjson.loads(line) for line in SAMPLE.splitlines()]
PROPERTY = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(SAMPLE)
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        where = draw(st.integers(0, max(len(data) - 1, 0)))
        if action == "flip" and data:
            data[where] = draw(st.sampled_from([*b'{}[]":,0123456789\n \\', 0xFF, 0x00]))
        elif action == "delete" and data:
            del data[where : where + draw(st.integers(1, 40))]
        elif action == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=12))
        else:
            del data[where:]
    return bytes(data)


@contextmanager
def file_of(data: bytes) -> Iterator[Path]:
    """``data`` as a file in a fresh temporary folder (a hypothesis test has no tmp_path)."""
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "m.jsonl"
        path.write_bytes(data)
        yield path


@PROPERTY
@given(mutated())
def test_mutated_files_read_or_fail_with_a_transcript_error(blob: bytes) -> None:
    with file_of(blob) as path:
        try:
            view = read_view(path)
        except TranscriptError as err:
            assert err.path == str(path)
        else:
            # Read, so it keeps the rules: each complete line (parsed here) a record, in
            # order, of one session from seq 0 with no gap; the unfinished tail left out.
            complete = blob[: blob.rfind(b"\n") + 1].split(b"\n")[:-1]
            records = [orjson.loads(line) for line in complete]
            assert records and all(isinstance(r, dict) for r in records)
            assert records[0]["type"] == "session_start"
            assert records[0]["data"]["version"] == 1
            assert [r["seq"] for r in records] == list(range(len(records)))
            assert {r["session_id"] for r in records} == {records[0]["session_id"]}
            assert list(read(path)) == records
            assert list(view.records) == records
            assert list(view.lines) == list(range(1, len(records) + 1))
            runs = [r["run_id"] for r in records if isinstance(r.get("run_id"), str)]
            named = set(runs)
            assert [r for r in view.run_order if r in named] == list(dict.fromkeys(runs))
            orjson.dumps(view.to_json())
            closed = {r.get("run_id") for r in records if r["type"] == "run_close"}
            unclosed = [run for run in view.run_order if run not in closed]
            gaps = view.gaps()  # one line per gap, every run without its run_close among them
            assert all(isinstance(g, str) for g in gaps)
            assert all(any(run in g for g in gaps) for run in unclosed)
            for run in view.run_order:
                assert all(call.run_id == run for call in view.root_calls(run))
        result = peek(path)  # never raises
        assert isinstance(result.envelopes, list)


@settings(max_examples=60, deadline=None)
@given(mutated())
def test_open_on_a_mutated_file_refuses_untouched_or_cuts_only_the_tail(blob: bytes) -> None:
    with file_of(blob) as path:
        try:
            s = AgentGoSession.open(path)
        except TranscriptError:
            assert path.read_bytes() == blob
            return
        s.close()
        after = path.read_bytes()
        cut = blob.rfind(b"\n") + 1
        assert after == blob[:cut]


@PROPERTY
@given(
    st.one_of(
        st.binary(min_size=1, max_size=200).filter(lambda b: b"\n" not in b),
        st.builds(
            lambda seq, kind: orjson.dumps(dict(SAMPLE_RECORDS[-1], seq=seq, type=kind, data={})),
            st.integers(0, 200),
            st.sampled_from(["agent_start", "run_close", "checkpoint", "model_exec_end"]),
        ),
    )
)
def test_a_final_line_without_newline_is_always_ignored(tail: bytes) -> None:
    with file_of(SAMPLE + tail) as path:
        assert list(read(path)) == SAMPLE_RECORDS
        view = read_view(path)
        assert len(view.warnings) == (1 if tail.strip() else 0)  # (said to be left out)
        view.warnings.clear()
        assert view.to_json() == read_view_of(SAMPLE_RECORDS).to_json()


async def test_a_follow_says_the_same_warnings_in_the_same_order_however_the_file_grew(
    tmp_path: Path,
) -> None:
    """Within one update a line skipped was said before a rule another line broke, so the
    same file followed in one write and in two said them in two orders (an audit)."""
    import asyncio

    from session_core.following import follow
    from session_core.formats import AGENTGO, by_name

    head = (
        b'{"data":{"version":1},"seq":0,"session_id":"s1","time":"2026-08-11T00:08:11Z",'
        b'"type":"session_start"}\n'
        b'{"data":{},"run_id":"r1","seq":1,"session_id":"s1","time":"2026-08-11T00:13:00Z",'
        b'"type":"run_start"}\n'
        b'{"data":{},"run_id":"r1","se\n'
        b'{"data":{},"run_id":"r1","seq":5,"session_id":"s1","time":"2026-08-11T00:13:01Z",'
        b'"type":"agent_start"}\n'
    )
    tail = b'{"data":{},"run_id":"r1","se\n'
    fmt = by_name(AGENTGO)

    async def warnings(cut: int | None) -> list[str]:
        path = tmp_path / f"cut-{cut}.jsonl"
        path.write_bytes(head + tail if cut is None else head)
        live = fmt.live(str(path))
        updates = follow(path, force_polling=True, poll_interval=0.02, parse=fmt.parsed_updates)
        try:
            async for update in updates:
                live.apply(update)
                if update.caught_up and update.offset == path.stat().st_size:
                    if cut is None:
                        break
                    with path.open("ab") as fh:
                        fh.write(tail)
                    cut = None
        finally:
            await asyncio.wait_for(updates.aclose(), 5)
        return list(live.transcript(writer_alive=False).warnings)

    whole, grown = await warnings(None), await warnings(len(head))
    assert whole == grown and len(whole) == 3
    assert [w.split(" ", 2)[1].rstrip(":") for w in whole] == ["3", "4", "5"]


def test_peek_says_a_broken_sequence_as_the_viewer_does(tmp_path: Path) -> None:
    """A seq gap and a line of another session: ``check`` refuses the file at the first,
    the viewer's follow says each by its line, and ``peek`` said nothing of either."""
    from agentgo_story import write_agentgo_story

    path = tmp_path / "s.jsonl"
    write_agentgo_story(path)
    lines = path.read_bytes().splitlines(keepends=True)
    gap = orjson.loads(lines[5])
    gap["seq"] += 2
    other = orjson.loads(lines[9])
    other["session_id"] = "another-session"
    lines[5], lines[9] = orjson.dumps(gap) + b"\n", orjson.dumps(other) + b"\n"
    path.write_bytes(b"".join(lines))
    said = [w for w in peek(path).warnings if w.startswith("line ")]
    assert len(said) == 2, said  # (one a break: the next line is the new baseline)
    assert said[0].startswith("line 6: has seq") and "contiguous" in said[0]
    assert said[1].startswith('line 10: belongs to session "another-session"')


def test_a_session_start_of_another_version_is_said_once(tmp_path: Path) -> None:
    """``peek`` of a version-2 file said its version, then "line 2: starts with a
    'run_start' record", which it does not (the API audit): the session_start starts its
    session all the same, for ``peek`` and the viewer's follow; ``check`` refuses it."""
    from agentgo_story import write_agentgo_story
    from session_core.formats import by_name

    path = tmp_path / "v2.jsonl"
    write_agentgo_story(path)
    lines = path.read_bytes().splitlines(keepends=True)
    first = orjson.loads(lines[0])
    first["data"]["version"] = 2
    path.write_bytes(orjson.dumps(first) + b"\n" + b"".join(lines[1:]))
    said = [w for w in peek(path).warnings if w.startswith("line ")]
    assert said == ["line 1: declares format version 2; this reader reads version 1"]
    live = by_name("agentgo-v1").live(str(path))
    from helpers import follow_into

    follow_into(live.apply, path, 1 << 16, False)
    assert [w for w in live.view.warnings if w.startswith("line ")] == said
    assert len(live.view.messages) == 6  # (shown as it is, with its warning)
    with pytest.raises(TranscriptError, match="line 1: declares format version 2"):
        by_name("agentgo-v1").check(path)


def test_a_run_without_its_close_took_to_its_last_record(tmp_path: Path) -> None:
    """A run a later run began after (no run_close), and the last one once its writer is
    gone: each ended at its last record's line and time, and took from its first to then
    (both were empty, as Claude Code's are not), whether read whole or followed."""
    from helpers import follow_into, neutral

    from agentgo_story import write_agentgo_story
    from session_core.formats import by_name
    from session_core.times import seconds_between

    path = tmp_path / "s.jsonl"
    write_agentgo_story(path)  # run 2 has no run_close; run 3 follows it
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    order = list(dict.fromkeys(r["run_id"] for r in records if r.get("run_id")))
    mine = [n for n, r in enumerate(records, 1) if r.get("run_id") == order[1]]
    first, last = records[mine[0] - 1]["time"], records[mine[-1] - 1]["time"]
    fmt = by_name("agentgo-v1")
    cut = tmp_path / "cut.jsonl"  # the file as its writer left it when it died in run 2
    cut.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[: mine[-1]]))
    for source in (path, cut):
        run = fmt.open(source, writer_alive=False).runs[1]
        assert (run.id, run.state, run.line) == (order[1], "interrupted", mine[0])
        assert (run.end_line, run.ended) == (mine[-1], last)
        assert run.duration == seconds_between(first, last) and run.duration
        live = fmt.live(str(source))
        follow_into(live.apply, source, 1 << 12, False)
        for alive in (False, None):
            assert neutral(live.transcript(writer_alive=alive)) == neutral(
                fmt.open(source, writer_alive=alive)
            )
    running = fmt.open(cut, writer_alive=None).runs[1]  # (its writer may be at it)
    assert (running.state, running.end_line, running.duration) == ("running", None, None)
