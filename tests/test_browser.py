"""The directory browser: scan statuses, the live table, opening files, and never writing."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import file_permissions_apply, said, screen_lines
from helpers import fingerprint as file_fingerprint
from textual.pilot import Pilot

from corpus import EXPECTED, write_agentgo, write_corpus, write_v1
from session_core import Message, Session, TranscriptError, open_transcript
from session_core.formats.base import IDLE_SECONDS
from session_core.scan import FileSummary, scan_dir, scan_file
from story import OLD_MTIME
from viewer.app import TailscopeApp
from viewer.screens.browser import BrowserScreen
from viewer.screens.model_screen import ModelScreen

SIZE = (120, 40)
LIVE = "live/v1-live.jsonl"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


@pytest.fixture
def live_session(corpus: Path) -> Iterator[Session]:
    """A v1 transcript whose writer is still running (it holds the lock)."""
    path = corpus / LIVE
    path.parent.mkdir()
    with Session.create(path, meta={"agent": "runner", "model": "kimi-k2"}) as session:
        session.append_message(Message(role="user", content="Keep going."))
        yield session


def fingerprint(root: Path) -> dict[str, tuple[str, int, int, tuple[tuple[str, str, int], ...]]]:
    """Every file's bytes, inode, mtime and locks (a scan takes no lock, and keeps none)."""
    return {str(path): file_fingerprint(path) for path in sorted(root.rglob("*")) if path.is_file()}


def by_rel(root: Path) -> dict[str, FileSummary]:
    return {s.rel: s for s in scan_dir(root)}


# -- the scanner -------------------------------------------------------------------------


class TestScan:
    def test_every_status_and_reason(self, corpus: Path, live_session: Session) -> None:
        found = by_rel(corpus)
        assert set(found) == {*EXPECTED, LIVE}
        for rel, (status, reason) in EXPECTED.items():
            assert found[rel].status == status, (rel, found[rel])
            if reason is None:
                assert found[rel].reason is None, rel
            else:
                assert reason in (found[rel].reason or ""), (rel, found[rel].reason)
        live = found[LIVE]
        assert live.status == "live" and live.locked is True

    def test_counts_usage_and_meta(self, corpus: Path) -> None:
        found = by_rel(corpus)
        v1 = found["v1-finished.jsonl"]
        assert (v1.format, v1.agent, v1.model) == ("transcript-v1", "sadna", "kimi-k2")
        assert (v1.messages, v1.tool_calls, v1.tokens) == (5, 1, 2552)
        assert v1.cost == pytest.approx(0.0058)
        assert v1.started == "2026-08-09T13:10:00.125000Z" and not v1.estimated
        go = found["agentgo/go-finished.jsonl"]
        assert (go.format, go.model, go.messages, go.tool_calls) == (
            "agentgo-v1",
            "gpt-5-mini",
            2,
            1,
        )
        assert (go.tokens, go.cost) == (960, pytest.approx(0.0012))
        # no model_exec_end said anything: unknown, never 0
        crashed = found["agentgo/go-crashed.jsonl"]
        assert crashed.tokens is None and crashed.cost is None
        assert crashed.reason == "1 model call without a response; 1 run not finished"
        # a damaged file still shows who wrote it
        damaged = found["v1-damaged.jsonl"]
        assert damaged.agent == "mangled" and damaged.messages is None

    def test_an_unlocked_file_is_live_only_within_the_live_window(self, corpus: Path) -> None:
        """The window is the one rule's, two minutes of quiet (``IDLE_SECONDS``), as the
        viewer's dot and every read path's: a row quiet for a minute was finished (its
        own 30 s) while the viewer read its writer as maybe at work."""
        path = corpus / "v1-finished.jsonl"
        os.utime(path)  # just written to, by a writer that does not lock
        assert scan_file(path).status == "live"
        assert scan_file(path, live_window=0).status == "finished"
        then = time.time() - 60
        os.utime(path, (then, then))
        assert scan_file(path).status == "live"
        then = time.time() - IDLE_SECONDS - 5
        os.utime(path, (then, then))
        assert scan_file(path).status == "finished"

    def test_big_files_are_read_as_head_and_tail(self, corpus: Path) -> None:
        found = {s.rel: s for s in scan_dir(corpus, budget=256, window=700)}
        for rel in ("v1-finished.jsonl", "v1-crashed-pending.jsonl", "agentgo/go-finished.jsonl"):
            assert found[rel].estimated, rel
        assert found["v1-finished.jsonl"].status == "finished"
        assert found["v1-finished.jsonl"].agent == "sadna"
        assert found["v1-crash-tail.jsonl"].status == "crashed"
        assert found["agentgo/go-crashed.jsonl"].status == "crashed"
        assert found["agentgo/go-finished.jsonl"].model == "gpt-5-mini"

    def test_symlink_loops_fifos_and_leftovers(self, tmp_path: Path) -> None:
        root = tmp_path / "odd"
        write_v1(root / "a" / "t.jsonl")
        os.symlink(root, root / "a" / "loop")  # a directory that contains itself
        os.mkfifo(root / "pipe.jsonl")  # must not block the scan
        (root / "t.jsonl.repair").write_bytes(b"leftover\n")
        (root / "empty.jsonl").write_bytes(b"")
        found = by_rel(root)
        assert set(found) == {"a/t.jsonl", "pipe.jsonl", "empty.jsonl"}
        assert found["pipe.jsonl"].status == "not-a-transcript"
        assert found["empty.jsonl"].reason == "empty"

    def test_a_link_to_nothing_is_unreadable_not_damaged(self, tmp_path: Path) -> None:
        """Nothing in a dangling symlink is damaged (an audit: "damaged: the file is
        gone"): it cannot be read, and says it links to nothing, as ``check`` does."""
        os.symlink(tmp_path / "moved.jsonl", tmp_path / "dangling.jsonl")
        found = by_rel(tmp_path)
        assert found["dangling.jsonl"].status == "unreadable"
        why = f"a link to nothing: {tmp_path / 'moved.jsonl'} is not there"
        assert found["dangling.jsonl"].reason == why
        with pytest.raises(TranscriptError) as err:
            open_transcript(tmp_path / "dangling.jsonl")
        assert err.value.reason == why

    def test_an_unreadable_directory_is_a_row_not_an_error(self, tmp_path: Path) -> None:
        root = tmp_path / "locked"
        write_v1(root / "closed" / "t.jsonl")
        os.chmod(root / "closed", 0)
        try:
            with file_permissions_apply():  # root too: permissions stop this thread
                found = by_rel(root)
        finally:
            os.chmod(root / "closed", 0o755)
        assert found["closed"].status == "unreadable"
        assert "cannot be listed" in (found["closed"].reason or "")

    def test_every_format_names_its_session_by_a_title(self, tmp_path: Path) -> None:
        """The meta's title, else the first prompt (a v1 or agentgo row had none)."""
        write_v1(tmp_path / "v1.jsonl")
        write_agentgo(tmp_path / "go.jsonl")
        with Session.create(tmp_path / "titled.jsonl", meta={"title": "  a\n titled  one "}):
            pass
        assert scan_file(tmp_path / "v1.jsonl").title == "Run the tests."
        assert scan_file(tmp_path / "go.jsonl").title == "Summarise the diff."
        assert scan_file(tmp_path / "titled.jsonl").title == "a titled one"

    def test_an_unreadable_file_is_listed_with_its_size_and_time(self, tmp_path: Path) -> None:
        path = tmp_path / "t.jsonl"
        write_v1(path)
        os.utime(path, (OLD_MTIME, OLD_MTIME))
        os.chmod(path, 0)
        try:
            with file_permissions_apply():
                row = scan_file(path)
        finally:
            os.chmod(path, 0o644)
        # Not "damaged": nothing is known to be wrong with its data (the d filter's)
        assert row.status == "unreadable" and "Permission denied" in (row.reason or "")
        assert not row.counts_known
        assert row.size == path.stat().st_size > 0 and row.mtime == OLD_MTIME  # (it said 0 B)

    def test_scanning_never_writes(self, corpus: Path, live_session: Session) -> None:
        before = fingerprint(corpus)
        list(scan_dir(corpus))
        list(scan_dir(corpus, budget=256, window=700))
        assert fingerprint(corpus) == before


# -- the browser -------------------------------------------------------------------------


class QuickApp(TailscopeApp):
    """The app on a directory, with a short live window so a stopped writer shows quickly."""

    def get_default_screen(self) -> BrowserScreen:
        return BrowserScreen(self.path, live_window=1.0)


def browser(app: TailscopeApp) -> BrowserScreen:
    for screen in app.screen_stack:
        if isinstance(screen, BrowserScreen):
            return screen
    raise LookupError("no browser")


async def scanned(pilot: Pilot[None]) -> None:
    """Wait until the scan finished and the table settled; a scan that stalls fails the test."""
    deadline = time.monotonic() + 15.0
    while not (isinstance(pilot.app.screen, BrowserScreen) and pilot.app.screen.scanned_at):
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the browser's scan to finish")
        await pilot.pause(0.02)
    await pilot.pause(0.2)


async def until(pilot: Pilot[None], check, seconds: float = 8.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


def shown_statuses(screen: BrowserScreen) -> dict[str, str]:
    return {screen.rows[path].rel: screen.cell_text(path, "status") for path in screen.order}


class TestBrowser:
    async def test_the_table_shows_every_status(self, corpus: Path, live_session: Session) -> None:
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            shown = shown_statuses(browser(app))
        labels = {"not-a-transcript": "other", "live": "● live"}
        assert shown == {
            **{rel: labels.get(status, status) for rel, (status, _) in EXPECTED.items()},
            LIVE: "● live",
        }

    async def test_a_narrow_screen_keeps_the_status(self, corpus: Path) -> None:
        """Too narrow for every column, the least needed go (the start time first), so
        each row's status is still on screen, not cut off at the right edge; widened
        again, every column is back."""
        app = TailscopeApp(corpus)
        async with app.run_test(size=(56, 30)) as pilot:
            await scanned(pilot)
            lines = screen_lines(app)
            header = next(line for line in lines if line.lstrip().startswith("session"))
            assert header.split() == ["session", "last", "active", "msgs", "status"]
            assert any(line.rstrip().endswith("crashed") for line in lines), lines
            # the title keeps the sort, the root giving way ("sorted by…" at 80 columns)
            await pilot.resize_terminal(80, 30)
            await until(
                pilot,
                lambda: any("sorted by last active" in line for line in screen_lines(app)[:3]),
            )

    async def test_the_sorted_by_column_stays_on_a_narrow_screen(self, corpus: Path) -> None:
        """At 80 columns ``s`` sorts by size, a column dropped there: it comes back (another
        goes), so the order can be seen; sorted by another, it goes again."""
        app = TailscopeApp(corpus)
        async with app.run_test(size=(80, 30)) as pilot:
            await scanned(pilot)
            screen = browser(app)

            def header() -> list[str]:
                lines = screen_lines(app)
                return next(line for line in lines if line.lstrip().startswith("session")).split()

            assert "size" not in header()
            await pilot.press("s")
            await pilot.pause(0.1)
            assert screen.sort.column == "size" and "size" in header(), header()
            first = screen.rows[screen.order[0]]
            biggest = screen.cell_text(first.path, "size")
            assert any(biggest in line for line in screen_lines(app)[3:6])
            await pilot.press("s", "s", "s")  # messages, tools, tokens
            await pilot.pause(0.1)
            assert screen.sort.column == "tokens"
            assert "tokens" in header() and "size" not in header(), header()
            assert len(screen_lines(app)[2].rstrip()) <= 80

    async def test_the_cursor_row_is_marked_not_by_colour_alone(self, corpus: Path) -> None:
        """A table's cursor row begins with ``▌``, as the conversation's does (its colour
        alone told it: the dialogs' audit, read as text)."""
        app = TailscopeApp(corpus)
        async with app.run_test(size=(140, 30)) as pilot:
            await scanned(pilot)
            marked = [line for line in screen_lines(app) if line.startswith("▌")]
            assert len(marked) == 1
            await pilot.press("down")
            await pilot.pause(0.1)
            again = [line for line in screen_lines(app) if line.startswith("▌")]
            assert len(again) == 1 and again != marked
            await pilot.resize_terminal(160, 30)
            await pilot.pause(0.2)
            header = next(line for line in screen_lines(app) if line.lstrip().startswith("session"))
            assert "started" in header and "tools" in header and "cost" in header

    async def test_status_keys_and_the_filter(self, corpus: Path) -> None:
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)
            await pilot.press("c")
            assert set(shown_statuses(screen).values()) == {"crashed"}
            assert screen.table.row_count == 3
            await pilot.press("a", "slash", *"go-", "enter")
            assert set(shown_statuses(screen)) == {
                "agentgo/go-finished.jsonl",
                "agentgo/go-crashed.jsonl",
                "agentgo/go-damaged.jsonl",
            }
            await pilot.press("slash", "ctrl+u", "enter")  # an empty filter shows everything
            assert screen.table.row_count == len(EXPECTED)
            # "a" (All) clears the text filter too, as "a shows all" says; esc clears it
            # and keeps a status filter
            for keys, rows in ((("a",), len(EXPECTED)), (("c", "escape"), 3)):
                await pilot.press("slash", *"go-", "enter")
                assert screen.table.row_count == 3
                await pilot.press(*keys)
                assert screen.needle == "" and screen.table.row_count == rows, keys
            await pilot.press("a")

    async def test_sorting_by_keys_and_headers(self, corpus: Path) -> None:
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)

            def order() -> list[str]:
                return [screen.rows[path].rel for path in screen.order]

            await pilot.press("s")  # last active -> size, biggest first
            sizes = [screen.rows[path].size for path in screen.order]
            assert sizes == sorted(sizes, reverse=True)
            await pilot.press("S")
            sizes = [screen.rows[path].size for path in screen.order]
            assert sizes == sorted(sizes)
            await pilot.click("#browser-table", offset=(3, 0))  # the "session" header
            await pilot.pause(0.1)
            # by what each session is about (its title; a file of none by its path)
            shown = [(summary.title or summary.rel).casefold() for summary in screen.rows.values()]
            assert order() != sorted(EXPECTED) and len(order()) == len(EXPECTED)
            titles = [
                (screen.rows[path].title or screen.rows[path].rel).casefold()
                for path in screen.order
            ]
            assert titles == sorted(shown)

    async def test_the_scan_ends_sorted_whatever_its_batches(
        self, corpus: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Rows come in batches, sorted at most twice a second; the scan's end sorts them
        all, even when its last batch brings none (last active, newest first)."""
        import viewer.screens.browser as browser_module
        from viewer.browser_cells import sort_key

        monkeypatch.setattr(browser_module, "BATCH_ROWS", 1)  # a batch a row: the last empty
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)
            key = sort_key(screen.sort.column, screen.sort.reverse)
            shown = [screen.rows[path] for path in screen.order if screen._depth.get(path, 0) == 0]
            assert [key(r) for r in shown] == sorted(map(key, shown), reverse=screen.sort.reverse)

    async def test_appending_changes_the_row(self, corpus: Path) -> None:
        app = QuickApp(corpus)
        path = str(corpus / "v1-crashed-pending.jsonl")
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)
            assert screen.rows[path].status == "crashed"
            assert screen.cell_text(path, "messages") == "3"
            session = Session.load(path)  # the writer comes back: lock held
            await until(pilot, lambda: screen.rows[path].status == "live")
            op = session.pending_tool_operations()[0]["op-id"]
            session.append_tool_settled(op_id=op, outcome="completed")
            session.append_message(Message(role="tool", content="ok", tool_call_id="call_1"))
            await until(pilot, lambda: screen.cell_text(path, "messages") == "4")
            assert screen.cell_text(path, "status") == "● live"
            # (the model's answer: a run can end there, where a result it never saw cannot)
            session.append_message(Message(role="assistant", content="done"))
            await until(pilot, lambda: screen.cell_text(path, "messages") == "5")
            session.close()  # no write, no file event: the periodic recheck notices
            await until(pilot, lambda: screen.rows[path].status == "finished")
            assert screen.cell_text(path, "status") == "finished"

    async def test_new_files_appear_and_gone_files_leave(self, corpus: Path) -> None:
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)
            write_agentgo(corpus / "later" / "new-run.jsonl")
            new = str(corpus / "later" / "new-run.jsonl")
            await until(pilot, lambda: new in screen.rows and screen.table.row_count == 10)
            # just written, by a writer that closed it: agentgo's writers all lock, so a
            # fresh file with no lock held is no live one
            assert screen.rows[new].status == "finished"
            os.unlink(corpus / "notes.jsonl")
            await until(pilot, lambda: screen.table.row_count == 9)
            assert str(corpus / "notes.jsonl") not in screen.rows

    async def test_a_name_that_is_not_utf8_stops_no_live_update(self, corpus: Path) -> None:
        """watchfiles gives up on a path it cannot decode: the browser watches again (and
        says so), so a file written after still appears; ``r`` lists the odd one (an
        audit: live updates were off for good, ``r`` brought them back for one scan)."""
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)
            odd = os.fsencode(corpus / "later") + b"/odd\xff.jsonl"
            os.makedirs(corpus / "later", exist_ok=True)
            write_agentgo(Path(os.fsdecode(odd)))
            await until(pilot, lambda: said(app, "Not followed live"))
            # in the app's words, the file named as its row names it (not watchfiles'
            # Rust spelling "Unable to decode path ... \\xFF"), short enough for 80 columns
            (note,) = [str(n.message) for n in app._notifications if "live" in str(n.message)]
            assert note == "Not followed live (name not UTF-8): later/odd\\udcff.jsonl. r rescans."
            long = os.fsdecode(os.fsencode(corpus / "later") + b"/" + b"\xfe" * 40 + b".jsonl")
            screen.post_message(screen.WatchRestarted([long, os.fsdecode(odd)]))
            await until(pilot, lambda: said(app, "1 more"))
            note = next(str(n.message) for n in app._notifications if "1 more" in str(n.message))
            assert note.endswith("\\udcfe.jsonl, 1 more. r rescans.") and len(note) <= 80, note
            write_agentgo(corpus / "later" / "new-run.jsonl")
            new = str(corpus / "later" / "new-run.jsonl")
            await until(pilot, lambda: new in screen.rows)
            await pilot.press("r")
            await until(pilot, lambda: os.fsdecode(odd) in screen.rows)

    async def test_enter_opens_and_escape_returns(self, corpus: Path) -> None:
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)
            newest = screen.order[0]
            await pilot.press(*"sssssss")  # last active, size, ... status, session
            assert screen.sort.column == "session"
            # the cursor stays on its file (go-finished, the newest) across the sort
            assert screen.order[screen.table.cursor_row] == newest
            crash_tail = screen.order.index(str(corpus / "v1-crash-tail.jsonl"))
            steps = crash_tail - screen.table.cursor_row
            await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps), "enter")
            await until(pilot, lambda: isinstance(app.screen, ModelScreen))
            transcript = app.screen
            assert transcript.path == str(corpus / "v1-crash-tail.jsonl")
            await until(pilot, lambda: bool(app.file_screen.transcript.messages))
            follower = next(w for w in app.workers if w.node is transcript)
            await pilot.press("slash", "escape")  # escape closes the search, not the file
            assert app.screen is transcript
            await pilot.press("escape")
            assert app.screen is screen
            await until(pilot, lambda: follower.is_finished)
            assert follower.is_cancelled
            await pilot.press("up", "up", "up", "enter")  # agentgo/go-finished
            await until(
                pilot,
                lambda: isinstance(app.screen, ModelScreen) and app.screen.FORMAT == "agentgo-v1",
            )
            await pilot.press("escape")
            assert app.screen is screen

    async def test_unknown_usage_and_the_reason_line_as_text(self, quiet_corpus: str) -> None:
        """What the snapshots show, pinned as screen text: a crashed agentgo run whose model
        calls never said their usage reads "unknown" (never 0) for tokens and cost, the
        footer counts it, and the line under the table gives the cursor's file's reason."""
        app = TailscopeApp(quiet_corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            screen = browser(app)
            lines = screen_lines(app)
            header = next(i for i, line in enumerate(lines) if line.startswith(" session "))
            assert "tokens" in lines[header] and "cost" in lines[header]
            order = [screen.rows[path].rel for path in screen.order]
            shown = dict(zip(order, lines[header + 1 : header + 1 + len(order)], strict=True))
            crashed = shown["agentgo/go-crashed.jsonl"]
            title = next(
                s.title for s in screen.rows.values() if s.rel.endswith("go-crashed.jsonl")
            )
            assert title and title[:12] in crashed and crashed.count("unknown") == 2, crashed
            assert [rel for rel, line in shown.items() if "unknown" in line] == [
                "agentgo/go-crashed.jsonl"
            ]
            assert "960" in shown["agentgo/go-finished.jsonl"]  # a known figure, for contrast
            summary = next(line for line in lines if line.startswith("9 files"))
            assert summary.endswith("(usage unknown in 1)"), summary
            reasons = {
                # (its message asks for a call its loop ended without: ``check``'s words)
                "agentgo/go-finished.jsonl": "finished: every run ended · 1 call never dispatched",
                "agentgo/go-crashed.jsonl": (
                    "crashed: 1 model call without a response; 1 run not finished"
                ),
                "v1-crashed-pending.jsonl": "crashed: 1 tool operation pending",
                "v1-crash-tail.jsonl": "crashed: a crash tail (malformed last line 9)",
                "agentgo/go-damaged.jsonl": (
                    "damaged: line 4: has seq 4 after seq 2; sequence numbers must be contiguous"
                ),
            }
            for rel, reason in reasons.items():
                screen.table.move_cursor(row=order.index(rel))
                await until(
                    pilot,
                    lambda reason=reason: any(  # type: ignore[misc]
                        line.startswith(reason) for line in screen_lines(app)
                    ),
                )

    async def test_the_browser_never_writes(self, corpus: Path, live_session: Session) -> None:
        before = fingerprint(corpus)
        app = TailscopeApp(corpus)
        async with app.run_test(size=SIZE) as pilot:
            await scanned(pilot)
            await pilot.press("c", "a", "s", "enter")
            await pilot.pause(0.5)
            await pilot.press("escape", "r")
            await scanned(pilot)
        assert fingerprint(corpus) == before


# -- snapshots -----------------------------------------------------------------------------


@pytest.fixture
def quiet_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The corpus, idle, named relative to the working directory (a stable title)."""
    write_corpus(tmp_path / "corpus")
    monkeypatch.chdir(tmp_path)
    for path in (tmp_path / "corpus").rglob("*"):
        os.utime(path, (OLD_MTIME, OLD_MTIME))
    return "corpus"


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
class TestBrowserSnapshots:
    def test_every_status(self, snap_compare, quiet_corpus: str) -> None:
        assert snap_compare(TailscopeApp(quiet_corpus), terminal_size=SIZE, run_before=scanned)

    def test_crashed_only(self, snap_compare, quiet_corpus: str) -> None:
        assert snap_compare(
            TailscopeApp(quiet_corpus), press=["c"], terminal_size=SIZE, run_before=scanned
        )

    def test_filtered_and_sorted_by_tokens(self, snap_compare, quiet_corpus: str) -> None:
        keys = ["s", "s", "s", "s", "slash", *"kimi", "enter", "down", "down"]
        assert snap_compare(
            TailscopeApp(quiet_corpus), press=keys, terminal_size=SIZE, run_before=scanned
        )


def test_an_agentgo_retry_opens_no_call(tmp_path: Path) -> None:
    """A failed attempt's end, its ``retry``, the next attempt's request and end: every
    call ended, so the session is finished, not "crashed" (the retry, written under the
    failed attempt's execution, had opened it again)."""
    from session_core.agentgo import AgentGoSession

    path = tmp_path / "go.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    first = {"kind": "model", "id": "turn-1", "attempt": 1}
    run.record("model_request", {"config": {"model": "m"}, "messages": []}, execution=first)
    run.record("model_exec_end", {"error": "overloaded"}, execution=first)
    run.record("retry", {"attempt": 2, "error": "overloaded"}, execution=first)
    second = {"kind": "model", "id": "turn-1", "attempt": 2}
    run.record("model_request", {"config": {"model": "m"}, "messages": []}, execution=second)
    run.record("model_exec_end", {"usage": {"input": 1, "output": 1}}, execution=second)
    run.close()
    session.close()
    found = scan_file(path)  # (just written: its writer closed, no lock, so not live)
    assert found.reason is None and found.status == "finished", (found.status, found.reason)


async def test_a_folder_that_cannot_be_read_leaves_the_others_watched(tmp_path: Path) -> None:
    """A recursive watch fails whole on one folder it may not read (watchfiles): the
    browser says which, and watches the others one by one; a file written to one of them
    later, and a folder made later, still appear."""
    root = tmp_path / "runs"
    (root / "open").mkdir(parents=True)
    write_v1(root / "open" / "first.jsonl")
    (root / "closed").mkdir()
    os.chmod(root / "closed", 0)
    try:
        with file_permissions_apply():  # (and the app's threads, made inside it)
            app = TailscopeApp(root)
            async with app.run_test(size=SIZE) as pilot:
                await scanned(pilot)
                screen = browser(app)
                await until(
                    pilot,
                    lambda: any(
                        "cannot be watched" in str(note.message) for note in app._notifications
                    ),
                )
                write_v1(root / "open" / "second.jsonl")
                await until(pilot, lambda: str(root / "open" / "second.jsonl") in screen.rows)
                (root / "later").mkdir()
                await pilot.pause(1.0)  # (the new folder seen, its watch begun)
                write_v1(root / "later" / "third.jsonl")
                await until(pilot, lambda: str(root / "later" / "third.jsonl") in screen.rows)
                assert not any("are off" in str(n.message) for n in app._notifications)
    finally:
        os.chmod(root / "closed", 0o755)
