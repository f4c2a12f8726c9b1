"""A browser row whose writer stops says what a fresh read of its file says at that
moment: work read *running* (a turn, a call) stands by the one rule every read path
tells a writer by (``TranscriptFormat.writer_alive``: two minutes without a lock), not by
the row's 30 s of freshness. An audit: a Claude Code session cut where its last response
talked (2.1.39 writes ``stop_reason: null`` on every line) read "crashed: 1 turn not
finished" from 30 s on, and stayed so (its file unchanged, never read again), while
``check``, ``replay`` and the viewer said its last run finished.

The clock is replaced (``time.time``), not waited on."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use, usage
from codex_writer import turnless_story
from helpers import SAMPLES

from session_core.formats import by_name
from session_core.scan import FileSummary, scan_file, settle_status
from session_core.scan_live import LiveRows

SPOTTER = "claude-code/projects/-home-u-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


class Clock:
    """``time.time`` moved on by ``shift`` seconds from the real one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.shift = 0.0
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() + self.shift)

    def at(self, path: Path, age: float) -> None:
        """Now is ``age`` seconds after the file was last written."""
        self.shift = 0.0
        self.shift = os.stat(path).st_mtime + age - time.time()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    yield Clock(monkeypatch)


def cc_talked_last(folder: Path) -> Path:
    """1.0.x: no ``stop_reason``, no ``turn_duration``: the last response only talks."""
    w = CCWriter(version="1.0.98")
    w.user("a prompt")
    w.assistant("m1", [text("looking"), tool_use("t1", "Bash", command="ls")], usage=usage(3, 9))
    w.result("t1", "a.py")
    w.assistant("m2", [text("there is a.py")], usage=usage(4, 5))
    return w.write(folder / "talked.jsonl")


def cc_called_last(folder: Path) -> Path:
    """The last response calls a tool that never answered."""
    w = CCWriter(version="1.0.98")
    w.user("a prompt")
    w.assistant("m1", [text("running"), tool_use("t1", "Bash", command="make")])
    return w.write(folder / "called.jsonl")


def codex_answered_last(folder: Path) -> Path:
    """0.5x: no task events; the last turn's last item is the assistant's answer."""
    return Path(turnless_story(folder / "rollout.jsonl").path)


def spotter_talked(folder: Path) -> Path:
    """The real 2.1.39 session (``stop_reason: null`` on every line) cut after its last
    response, which talks, before the Stop hooks' lines and ``turn_duration`` it wrote."""
    source = SAMPLES / SPOTTER
    if not source.is_file():
        pytest.skip("the samples are not here")
    path = folder / "cut.jsonl"
    with open(source, "rb") as whole, open(path, "wb") as out:
        out.writelines(line for _, line in zip(range(1495), whole, strict=False))
    return path


# (the file, what its row says while its writer may be at work, and once it is gone)
CASES: dict[str, tuple[Callable[[Path], Path], str, str | None]] = {
    "claude-code talked last": (cc_talked_last, "1 run running", None),
    "claude-code called last": (
        cc_called_last,
        "1 tool call running; 1 run running",
        "1 tool call without a result; 1 run not finished",
    ),
    "codex answered last": (codex_answered_last, "1 run running", None),
    "real 2.1.39 cut": (spotter_talked, "1 run running", None),
}


def fresh_read_says(path: Path) -> str:
    """The last run's state and ``check``'s note, as a fresh read gives them now."""
    fmt = by_name(by_name_of(path))
    last = fmt.open(path, writer_alive=fmt.writer_alive(path)).runs[-1].state
    return f"{last}: {fmt.check(path)}"


def by_name_of(path: Path) -> str:
    from session_core.formats import detect_format

    found = detect_format(str(path))
    assert found is not None
    return found


def no_path(row: FileSummary) -> dict[str, object]:
    """The row as shown (not its name, nor the states it keeps to settle again by)."""
    return dataclasses.asdict(dataclasses.replace(row, rel="", running=None, gone=None))


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_row_says_what_a_fresh_read_says_as_the_writer_goes(
    case: str, tmp_path: Path, clock: Clock
) -> None:
    make, at_work, gone = CASES[case]
    path = make(tmp_path)
    clock.at(path, 1.0)
    row = scan_file(path)
    assert (row.status, row.reason) == ("live", at_work)
    assert fresh_read_says(path).startswith("running")
    # Past the 30 s of freshness, within the two minutes: the writer may be at work, a
    # fresh read's last run is running, so is the row's (it was crashed)
    clock.at(path, 60.0)
    later = settle_status(dataclasses.replace(row))
    assert (later.status, later.reason) == ("live", at_work)
    assert fresh_read_says(path).startswith("running")
    assert no_path(later) == no_path(scan_file(path))
    # The writer is gone: the row says what the file read now says, not read again
    clock.at(path, 200.0)
    done = settle_status(dataclasses.replace(later))
    says = fresh_read_says(path)
    if gone is None:
        assert (done.status, done.reason, done.pending) == ("finished", None, 0)
        assert says.startswith("finished") and "not finished" not in says
    else:
        assert (done.status, done.reason) == ("crashed", gone)
        # (check's words: the row's, one rule, ``open_work``)
        assert says.startswith("interrupted") and gone.replace("; ", ", ") in says
    assert no_path(done) == no_path(scan_file(path))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_browsers_live_rows_follow_the_writer_out(
    case: str, tmp_path: Path, clock: Clock
) -> None:
    """``LiveRows`` (the browser's updates): a row followed as its file grew, then left
    unchanged, turns finished or crashed as a fresh read does, once the writer is gone."""
    make, at_work, gone = CASES[case]
    (tmp_path / "made").mkdir()
    source = make(tmp_path / "made")
    path = tmp_path / source.name
    lines = source.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    path.write_bytes(b"".join(lines[:half]))
    rows = LiveRows()
    clock.at(path, 1.0)
    row = rows.summary(str(path))
    assert row.status == "live"
    with open(path, "ab") as out:
        out.writelines(lines[half:])
    clock.at(path, 1.0)
    row = rows.summary(str(path), row)
    assert (row.status, row.reason) == ("live", at_work)
    assert rows.kept() == [str(path)]  # (from what was appended: its fold)
    clock.at(path, 60.0)
    row = rows.summary(str(path), row)
    assert (row.status, row.reason) == ("live", at_work)
    clock.at(path, 200.0)
    row = rows.summary(str(path), row)
    assert (row.status, row.reason) == (("finished", None) if gone is None else ("crashed", gone))
    assert no_path(row) == no_path(scan_file(path))
    assert rows.kept() == []


def test_a_windowed_row_of_an_old_file_reads_its_writer_gone(tmp_path: Path, clock: Clock) -> None:
    """A file over the whole-read budget is read as its head and a tail window (with no
    writer told): its last turn read running is finished once no writer may be at work,
    as its whole read says."""
    path = cc_talked_last(tmp_path)
    clock.at(path, 600.0)
    row = scan_file(path, budget=100, window=1 << 20)
    assert row.estimated
    assert (row.status, row.reason) == ("finished", None)
    assert scan_file(path).status == "finished"


async def test_the_browser_row_turns_finished_when_the_writer_is_gone(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the browser: live (so far: a run running) while the writer may be at work (no
    lock: for two minutes of quiet, how long so far said); finished once it is gone, by
    its periodic recheck (no file event: the file does not change)."""
    from test_browser import browser, scanned, until

    from viewer.app import TailscopeApp
    from viewer.browser_cells import detail
    from viewer.screens import browser as browser_module

    monkeypatch.setattr(browser_module, "RECHECK_SECONDS", 0.2)
    path = cc_talked_last(tmp_path)
    where = str(path)
    clock.at(path, 60.0)
    app = TailscopeApp(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        assert screen.cell_text(where, "status") == "● live"
        assert screen.rows[where].reason == "1 run running"
        said = detail(screen.rows[where], where).plain
        assert "live: its writer may still be at work (no lock; written to 1m ago, idle" in said
        await pilot.pause(0.5)  # (rechecked: the writer may still be at work)
        assert screen.rows[where].status == "live"
        clock.at(path, 200.0)
        await until(pilot, lambda: screen.rows[where].status == "finished")
        assert screen.cell_text(where, "status") == "finished"
        assert screen.rows[where].reason is None
