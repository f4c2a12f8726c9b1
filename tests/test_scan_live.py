"""Live browser rows (``scan_live.LiveRows``): a file that grew is brought up to date from
what was appended, with the counts a fresh scan gives; one that did not change is not
read; one rewritten or truncated is read again whole."""

from __future__ import annotations

import dataclasses
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN

from session_core import scan_live
from session_core.scan import FileSummary, scan_file
from session_core.scan_live import LiveRows

NOW_PAST = 1e9  # a "now" long before any file here was written: every mtime is fresh


def split(path: Path) -> tuple[list[bytes], list[bytes]]:
    """The file's lines (with their newlines): its first part, and the rest to append."""
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 4, path
    half = max(2, len(lines) // 2)
    return lines[:half], lines[half:]


@pytest.fixture(params=sorted(BUILT_IN))
def growing(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, list[bytes]]]:
    """A file of each format holding its first lines (the rest to append), its writer's
    lock held (an agentgo file is live only while it is)."""
    path = BUILT_IN[request.param](tmp_path)
    head, rest = split(path)
    path.write_bytes(b"".join(head))
    with open(path, "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield path, rest


def fresh(path: Path) -> FileSummary:
    return scan_file(str(path), now=NOW_PAST)


def append(path: Path, lines: list[bytes]) -> None:
    with open(path, "ab") as out:
        out.write(b"".join(lines))


def same(row: FileSummary, other: FileSummary) -> None:
    assert dataclasses.asdict(row) == dataclasses.asdict(other)


class NoWholeRead:
    """``scan_file`` refused while it is on: the row must come from the fold."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def refuse(*_args: object, **_kwargs: object) -> FileSummary:
            raise AssertionError("read whole")

        monkeypatch.setattr(scan_live, "scan_file", refuse)


def kept_after_one_append(path: Path, rest: list[bytes]) -> tuple[LiveRows, FileSummary]:
    """A file's row scanned, one line appended, and the row brought up to date (its
    follow begun: the fold kept)."""
    rows = LiveRows()
    before = fresh(path)
    append(path, rest[:1])
    return rows, rows.summary(str(path), before, now=NOW_PAST)


def test_appends_give_the_counts_of_a_fresh_scan(
    growing: tuple[Path, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, rest = growing
    rows = LiveRows()
    row = fresh(path)
    assert row.status == "live", row
    append(path, rest[:1])
    row = rows.summary(str(path), row, now=NOW_PAST)  # (its follow begun: one whole read)
    same(row, fresh(path))
    assert rows.kept() == [str(path)]
    kept = rows._kept[str(path)]
    fed: list[int] = []
    apply = kept.fold.apply
    monkeypatch.setattr(kept.fold, "apply", lambda u: (fed.extend(u.lines), apply(u)))
    ended = [line for line in rest[1:] if line.endswith(b"\n")]  # (a fixture's torn
    with monkeypatch.context() as patched:  # last line: the last test's)
        NoWholeRead(patched)
        for line in ended:
            append(path, [line])
            os.utime(path, (time.time(), time.time() + len(fed)))  # (a new mtime each time)
            row = rows.summary(str(path), row, now=NOW_PAST)
    same(row, fresh(path))
    assert rows._kept[str(path)] is kept  # the same fold, fed only what was appended
    whole = len(path.read_bytes().splitlines())
    assert fed == list(range(whole - len(ended) + 1, whole + 1))


def test_an_unchanged_file_is_not_read(
    growing: tuple[Path, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, rest = growing
    rows, row = kept_after_one_append(path, rest)
    assert row.status == "live"
    assert rows.kept() == [str(path)]

    def no_read(*_args: object) -> bool:
        raise AssertionError("read")

    with monkeypatch.context() as patched:
        NoWholeRead(patched)
        patched.setattr(scan_live._Kept, "advance", no_read)
        again = rows.summary(str(path), row, now=NOW_PAST)
        same(again, row)
        # ...and its status told again: long after, with no lock, it is not live
        later = rows.summary(str(path), row, now=time.time() + 3600, locks=scan_live.LockTable(""))
    assert later.status in ("finished", "crashed")
    assert rows.kept() == []  # (gone quiet: its fold let go)


def test_a_rewritten_or_truncated_file_is_read_again_whole(
    growing: tuple[Path, list[bytes]],
) -> None:
    path, rest = growing
    rows, row = kept_after_one_append(path, rest)
    assert rows.kept() == [str(path)]
    head = path.read_bytes().splitlines(keepends=True)
    with open(path, "r+b") as out:  # truncated, then grown by other lines
        out.truncate(len(b"".join(head[:2])))
    append(path, rest[-1:])
    row = rows.summary(str(path), row, now=NOW_PAST)
    same(row, fresh(path))


def test_an_unfinished_last_line_is_said_as_a_fresh_scan_says_it(
    growing: tuple[Path, list[bytes]],
) -> None:
    path, rest = growing
    rows, row = kept_after_one_append(path, rest)
    append(path, [rest[1][: len(rest[1]) // 2]])
    row = rows.summary(str(path), row, now=NOW_PAST)
    same(row, fresh(path))
    assert row.crash_tail
    append(path, [rest[1][len(rest[1]) // 2 :]])
    row = rows.summary(str(path), row, now=NOW_PAST)
    same(row, fresh(path))
    assert not row.crash_tail


def test_a_subagent_written_meanwhile_is_counted_when_its_session_grows(
    tmp_path: Path,
) -> None:
    """The session's row links its subagents afresh each time it is brought up to date
    (not as they were a moment ago, as a followed screen may): its tokens are a fresh
    scan's."""
    path = BUILT_IN["claude-code"](tmp_path)
    head, rest = split(path)
    rest = [line for line in rest if line.endswith(b"\n")]
    path.write_bytes(b"".join(head))
    (agent,) = path.parent.glob("*/subagents/agent-*.jsonl")
    rows, row = kept_after_one_append(path, rest)
    assert rows.kept() == [str(path)]
    last = agent.read_bytes().splitlines(keepends=True)[-1]
    append(agent, [last.replace(b'"s2"', b'"s3"').replace(b"-000000000004", b"-000000000005")])
    append(path, rest[1:2])
    again = rows.summary(str(path), row, now=NOW_PAST)
    assert again.tokens != row.tokens
    same(again, fresh(path))


# -- the browser ---------------------------------------------------------------------


async def test_the_browser_reads_a_growing_session_by_what_was_appended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live session's row follows its appends, and no change nor periodic recheck
    reads the file whole again (a 62 MB session cost the browser 62% CPU that way)."""
    from test_browser import browser, scanned, until

    from viewer.app import TailscopeApp
    from viewer.screens import browser as browser_module

    path = BUILT_IN["claude-code"](tmp_path / "tree")
    head, rest = split(path)
    rest = [line for line in rest if line.endswith(b"\n")]
    path.write_bytes(b"".join(head))
    whole_reads: list[str] = []
    for module in (browser_module, scan_live):
        real = module.scan_file

        def counted(where: str, *args: object, real=real, **kwargs: object) -> FileSummary:  # type: ignore[no-untyped-def]
            whole_reads.append(where)
            return real(where, *args, **kwargs)

        monkeypatch.setattr(module, "scan_file", counted)
    monkeypatch.setattr(browser_module, "RECHECK_SECONDS", 0.3)
    app = TailscopeApp(tmp_path / "tree")
    async with app.run_test(size=(120, 40)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        where = str(path)
        assert screen.rows[where].status == "live"
        whole_reads.clear()
        for line in rest:
            append(path, [line])
            await pilot.pause(0.25)
        expected = fresh(path)
        await until(pilot, lambda: screen.rows[where].messages == expected.messages)
        await pilot.pause(1.0)  # (rechecks of the live row, its file unchanged)
        assert whole_reads == []
        shown = dataclasses.replace(screen.rows[where], rel="", status="live")
        same(shown, dataclasses.replace(scan_file(where), rel="", status="live"))
        assert screen.live_rows.kept() == [where]


def test_a_row_makes_few_of_its_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row's first and last times come from the items at each end, not from every item
    made (each read again from its file: most of a big live row's cost)."""
    from session_core import column_items
    from session_core.formats import by_name

    path = BUILT_IN["claude-code"](tmp_path)
    items = by_name("claude-code").open(str(path)).raw
    stamps = [item.ts for item in items if item.ts]
    last = max((item.end for item in items if item.end[1]), key=lambda end: end[0])[1]
    made: list[int] = []
    one = column_items.Items._one

    def counted(self: column_items.Items, index: int) -> object:
        made.append(index)
        return one(self, index)

    monkeypatch.setattr(column_items.Items, "_one", counted)
    row = scan_file(str(path))
    assert (row.started, row.last_ts) == (stamps[0], last)  # (the last line's: a run's end)
    assert len(made) <= 2, (len(made), len(items))  # (the title's prompt at most)


def test_a_row_that_could_not_be_read_is_read_again_though_unchanged(
    growing: tuple[Path, list[bytes]],
) -> None:
    """(A read that failed, out of descriptors, kept the file's size and time in its row,
    and the row stayed "damaged" until the file changed.)"""
    path, _rest = growing
    failed = dataclasses.replace(fresh(path), status="unreadable", reason="cannot be read: x")
    assert not failed.counts_known
    row = LiveRows().summary(str(path), failed, now=NOW_PAST)
    same(row, fresh(path))


def refused(tmp_path: Path) -> tuple[LiveRows, Path, FileSummary, list[bytes]]:
    """A v1 file's rows, the file refused (a line its fold could not read: read whole at
    each change), its first lines' row and the lines to write after them."""
    path = BUILT_IN["transcript-v1"](tmp_path)
    head, rest = split(path)
    path.write_bytes(b"".join(head))
    before = fresh(path)
    append(path, [b"{not json\n"])
    rows = LiveRows()
    rows.summary(str(path), before, now=NOW_PAST)
    assert str(path) in rows._refused and rows.kept() == []
    return rows, path, before, [*head, *rest]


def test_a_refused_file_stays_refused_while_it_only_grows(tmp_path: Path) -> None:
    rows, path, before, lines = refused(tmp_path)
    append(path, lines[-1:])
    same(rows.summary(str(path), before, now=NOW_PAST), fresh(path))
    assert str(path) in rows._refused and rows.kept() == []  # (not followed again)


def test_a_refusal_is_let_go_with_its_file(tmp_path: Path) -> None:
    """(One entry per damaged path was kept for the browser's life: a busy tree's paths,
    long gone, piled up.)"""
    rows, path, _before, _lines = refused(tmp_path / "removed")
    path.unlink()
    rows.summary(str(path), None, now=NOW_PAST)
    assert rows._refused == {}
    rows, path, _before, _lines = refused(tmp_path / "dropped")
    rows.drop(str(path))  # (the browser's row gone)
    assert rows._refused == {}


@pytest.mark.parametrize("how", ["replaced", "truncated"])
def test_a_rewritten_refused_file_is_followed_again(tmp_path: Path, how: str) -> None:
    rows, path, _before, lines = refused(tmp_path)
    clean = b"".join(lines[:2])
    if how == "replaced":  # (a new inode: a repair's rename)
        path.with_suffix(".new").write_bytes(clean)
        os.replace(path.with_suffix(".new"), path)
    else:  # (the same inode, cut shorter than was read and written again)
        with open(path, "r+b") as out:
            out.truncate(0)
        append(path, [clean])
    row = rows.summary(str(path), None, now=NOW_PAST)
    assert rows._refused == {}
    append(path, lines[2:3])
    same(rows.summary(str(path), row, now=NOW_PAST), fresh(path))
    assert rows.kept() == [str(path)]


def test_no_more_than_max_kept_rows_are_followed_at_once(tmp_path: Path) -> None:
    """A folder touched whole makes every row live: past ``MAX_KEPT`` the others are read
    whole (as a scan reads them), not followed (each a model and two descriptors)."""
    rows = LiveRows()
    paths = []
    for n in range(scan_live.MAX_KEPT + 3):
        path = BUILT_IN["transcript-v1"](tmp_path / f"f{n}")
        head, rest = split(path)
        path.write_bytes(b"".join(head))
        before = fresh(path)
        append(path, rest[:1])
        row = rows.summary(str(path), before, now=NOW_PAST)
        same(row, fresh(path))
        paths.append((path, row, rest))
    assert len(rows.kept()) == scan_live.MAX_KEPT
    for path, row, rest in paths:  # (followed or not, each row is a fresh scan's)
        append(path, rest[1:2])
        same(rows.summary(str(path), row, now=NOW_PAST), fresh(path))


def test_a_subagent_written_while_its_session_is_quiet_is_counted_when_asked(
    tmp_path: Path,
) -> None:
    """A session waits, quiet, on its subagent's work: the subagent's file changed, its
    row is made again though the session's own file did not."""
    path = BUILT_IN["claude-code"](tmp_path)
    (agent,) = path.parent.glob("*/subagents/agent-*.jsonl")
    rows = LiveRows()
    row = rows.summary(str(path), fresh(path), now=NOW_PAST)
    last = agent.read_bytes().splitlines(keepends=True)[-1]
    append(agent, [last.replace(b'"s2"', b'"s3"').replace(b"-000000000004", b"-000000000005")])
    assert rows.summary(str(path), row, now=NOW_PAST).tokens == row.tokens  # (not asked)
    again = rows.summary(str(path), row, now=NOW_PAST, linked_changed=True)
    assert again.tokens != row.tokens
    same(again, fresh(path))


def test_a_subagent_s_file_names_its_session() -> None:
    from session_core.scan import session_of

    base = "/h/.claude/projects/-p/5e55"
    assert session_of(f"{base}/subagents/agent-a1.jsonl") == f"{base}.jsonl"
    assert session_of(f"{base}/subagents/workflows/r1/agent-a2.jsonl") == f"{base}.jsonl"
    assert session_of("/h/.claude/projects/-p/agent-a3.jsonl") is None  # (its lines say)
    assert session_of("/h/.claude/projects/-p/5e55.jsonl") is None


async def test_the_browser_counts_a_subagent_written_while_its_session_is_quiet(
    tmp_path: Path,
) -> None:
    from test_browser import browser, scanned, until

    from viewer.app import TailscopeApp

    path = BUILT_IN["claude-code"](tmp_path / "tree")
    (agent,) = path.parent.glob("*/subagents/agent-*.jsonl")
    app = TailscopeApp(tmp_path / "tree")
    async with app.run_test(size=(120, 40)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        where = str(path)
        before = screen.rows[where].tokens
        last = agent.read_bytes().splitlines(keepends=True)[-1]
        new = last.replace(b'"s2"', b'"s3"').replace(b"-000000000004", b"-000000000005")
        append(agent, [new])
        expected = fresh(path).tokens
        assert expected != before
        await until(pilot, lambda: screen.rows[where].tokens == expected)
