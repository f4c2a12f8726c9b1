"""The browser follows what happens to its folders and files while it is open (audit D6,
D7): a folder made unreadable becomes an ``unreadable`` row (its sessions' rows gone), and
one made readable again lists its sessions again, on the browser's own refresh tick, no
``r`` needed; the footer counts such a folder apart from the files. A session compressed
or unpacked in place (``NAME.jsonl`` ↔ ``NAME.jsonl.zst``: one file to the viewer) keeps
the cursor."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import zstandard
from helpers import file_permissions_apply, said
from test_browser import QuickApp, browser, scanned, until
from textual.pilot import Pilot
from textual.widgets import Static

from session_core import Message, Session
from viewer.screens.browser import BrowserScreen

SIZE = (120, 30)


def _session(path: Path, n: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with Session.create(path, {"agent": f"agent{n}", "model": "m"}) as session:
        session.append_message(Message(role="user", content=f"prompt {n}"))
    stamp = time.time() - 3600 - n  # (finished, in a known order: s0 the newest)
    os.utime(path, (stamp, stamp))
    return path


def _warned(message: object) -> bool:
    """A notice that the folder ``proj`` cannot be watched, named as its row names it."""
    return str(message).startswith("1 folder cannot be watched (proj)")


def _footer(app: QuickApp) -> str:
    return str(browser(app).query_one("#browser-totals").render())


def _two_folders(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    """A root with a session in ``open`` and one in folder ``name``: the root, that folder
    and its session."""
    root = tmp_path / "runs"
    _session(root / "open" / "s0.jsonl", 0)
    inside = _session(root / name / "s1.jsonl", 1)
    return root, root / name, inside


@asynccontextmanager
async def _browsing(
    root: Path, folder: Path
) -> AsyncIterator[tuple[QuickApp, Pilot[None], BrowserScreen]]:
    """The browser on ``root`` once scanned, file permissions applied (and to the app's
    threads, made inside it); ``folder`` readable again after, whatever happened."""
    try:
        with file_permissions_apply():
            app = QuickApp(root)
            async with app.run_test(size=SIZE) as pilot:
                await scanned(pilot)
                yield app, pilot, browser(app)
    finally:
        os.chmod(folder, 0o755)


async def test_a_folder_made_unreadable_and_readable_again_is_said_on_its_own(
    tmp_path: Path,
) -> None:
    root, folder, inside = _two_folders(tmp_path, "proj")
    async with _browsing(root, folder) as (app, pilot, screen):
        assert str(inside) in screen.rows
        os.chmod(folder, 0)
        await until(pilot, lambda: str(folder) in screen.rows)
        row = screen.rows[str(folder)]
        assert row.status == "unreadable" and row.is_folder
        assert "cannot be listed" in (row.reason or "")
        assert str(inside) not in screen.rows and str(folder) in screen.order
        await until(pilot, lambda: any(_warned(n.message) for n in app._notifications))
        await pilot.pause(0.1)
        said = _footer(app)
        assert said.startswith("1 file ") and "1 folder unreadable" in said, said
        os.chmod(folder, 0o755)
        await until(pilot, lambda: str(inside) in screen.rows)
        assert str(folder) not in screen.rows
        await pilot.pause(0.1)
        assert _footer(app).startswith("2 files ") and "folder" not in _footer(app)
        # watched again: a session written there later appears
        _session(folder / "s2.jsonl", 2)
        await until(pilot, lambda: str(folder / "s2.jsonl") in screen.rows)


async def test_a_folder_unreadable_from_the_start_is_counted_apart_and_comes_back(
    tmp_path: Path,
) -> None:
    root, folder, inside = _two_folders(tmp_path, "closed")
    os.chmod(folder, 0)
    async with _browsing(root, folder) as (app, pilot, screen):
        assert screen.rows[str(folder)].is_folder
        said = _footer(app)
        assert said.startswith("1 file ") and "1 folder unreadable" in said, said
        os.chmod(folder, 0o755)
        await until(pilot, lambda: str(inside) in screen.rows)
        assert str(folder) not in screen.rows
        await pilot.pause(1.0)  # (its watch begun: the others' were one by one)
        _session(folder / "s2.jsonl", 2)
        await until(pilot, lambda: str(folder / "s2.jsonl") in screen.rows)


async def test_the_cursor_stays_on_a_session_compressed_or_unpacked_in_place(
    tmp_path: Path,
) -> None:
    root = tmp_path / "d"
    paths = [_session(root / f"s{n}.jsonl", n) for n in range(5)]
    plain = paths[2]
    packed = Path(f"{plain}.zst")
    app = QuickApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        screen = browser(app)
        await pilot.press("j", "j")
        assert screen._selected_path() == str(plain)
        stamp = plain.stat().st_mtime
        packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
        os.utime(packed, (stamp, stamp))  # (``zstd`` keeps the time: the row keeps its place)
        await pilot.pause(1.0)  # (its events handed on apart: a copy beside its plain file)
        plain.unlink()
        await until(pilot, lambda: str(packed) in screen.rows and str(plain) not in screen.rows)
        await pilot.pause(0.2)
        assert screen._selected_path() == str(packed)
        plain.write_bytes(zstandard.ZstdDecompressor().decompress(packed.read_bytes()))
        os.utime(plain, (stamp, stamp))
        packed.unlink()
        await until(pilot, lambda: str(plain) in screen.rows and str(packed) not in screen.rows)
        await pilot.pause(0.2)
        assert screen._selected_path() == str(plain)


async def test_the_root_made_unreadable_is_named_as_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tailscope runs`` whose ``runs`` becomes unreadable: its row, the detail and the
    notice name it ``runs`` (they said ``.``, ``runs/.``, "(.)"), as the title does; no
    other folder is watched, so live updates come once it can be read again."""
    root, folder, _inside = _two_folders(tmp_path, "proj")
    monkeypatch.chdir(tmp_path)
    async with _browsing(Path("runs"), root) as (app, pilot, screen):
        os.chmod(root, 0)
        await until(pilot, lambda: str(root) in screen.rows)
        assert screen.rows[str(root)].rel == "runs" and list(screen.rows) == [str(root)]
        await until(pilot, lambda: any(_said_closed(n.message) for n in app._notifications))
        await pilot.pause(0.1)
        detail = str(screen.query_one("#browser-detail", Static).render())
        assert detail.startswith("runs  a directory"), detail
        assert "1 folder unreadable" in _footer(app)
        os.chmod(root, 0o755)  # (and back: its sessions, then a new one, live again)
        await until(pilot, lambda: str(folder / "s1.jsonl") in screen.rows)
        _session(folder / "s2.jsonl", 2)
        await until(pilot, lambda: str(folder / "s2.jsonl") in screen.rows)


def _said_closed(message: object) -> bool:
    said = "1 folder cannot be watched (runs): live updates come once it can be read again."
    return str(message) == said


def test_a_root_given_as_a_way_up_is_named_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tailscope .`` (or ``..``): "." names nothing in a message, its path does."""
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    for given, path in ((".", tmp_path / "here"), ("..", tmp_path), ("./", tmp_path / "here")):
        screen = BrowserScreen(given, watch=False)
        assert screen._rel(str(path)) == str(path) and screen.root == given
    screen = BrowserScreen("../here", watch=False)
    assert screen._rel(str(tmp_path / "here")) == "../here"
    assert screen._rel(str(tmp_path / "here" / "a" / "s.jsonl")) == "a/s.jsonl"


async def test_a_folder_with_no_rows_made_unreadable_is_said_on_the_tick(
    tmp_path: Path,
) -> None:
    """A folder no row is in (no transcript in it: notes alone) made unreadable becomes an
    ``unreadable`` row on the tick, as a folder with rows does, no ``r`` needed; readable
    again, its row goes; and one made after the scan is looked at too."""
    root, _folder, _inside = _two_folders(tmp_path, "proj")
    notes = root / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("not a transcript")
    async with _browsing(root, notes) as (_app, pilot, screen):
        assert str(notes) not in screen.rows
        os.chmod(notes, 0)
        await until(pilot, lambda: str(notes) in screen.rows)
        assert screen.rows[str(notes)].status == "unreadable"
        os.chmod(notes, 0o755)
        await until(pilot, lambda: str(notes) not in screen.rows)
        later = root / "later"
        later.mkdir()
        await pilot.pause(1.0)  # (its event handed on: the watch lists it)
        try:
            os.chmod(later, 0)
            await until(pilot, lambda: str(later) in screen.rows)
        finally:
            os.chmod(later, 0o755)


async def test_a_folder_its_watch_heard_nothing_of_is_said_unreadable(tmp_path: Path) -> None:
    """The folders the tick looks at come from what lists the rows, not the watch's
    "added" events alone: a folder nested deep at the start, and one made while the
    watch's events were dropped (its batch held a name watchfiles cannot decode: the
    watch begun again lists what came meanwhile), each with no row in it, made
    unreadable, become ``unreadable`` rows."""
    root, _folder, _inside = _two_folders(tmp_path, "proj")
    deep = root / "a" / "b" / "c"
    deep.mkdir(parents=True)
    dropped = root / "dropped"
    async with _browsing(root, deep) as (app, pilot, screen):
        os.chmod(deep, 0)
        await until(pilot, lambda: str(deep) in screen.rows)
        os.chmod(deep, 0o755)
        await until(pilot, lambda: str(deep) not in screen.rows)
        # in one batch of the watch's, lost with it: a new folder, and a name not UTF-8
        dropped.mkdir()
        (dropped / "todo.txt").write_text("not a transcript")
        _session(Path(os.fsdecode(os.fsencode(root) + b"/odd\xff.jsonl")), 3)
        await until(pilot, lambda: said(app, "Not followed live"))
        await pilot.pause(1.0)  # (the watch begun again: what came meanwhile listed)
        try:
            os.chmod(dropped, 0)
            await until(pilot, lambda: str(dropped) in screen.rows)
            assert screen.rows[str(dropped)].status == "unreadable"
        finally:
            os.chmod(dropped, 0o755)


def test_a_folder_heard_of_while_a_scan_lists_outlasts_its_listing(tmp_path: Path) -> None:
    """A scan lists, then puts what it listed in place of the folders known: one the
    watch heard come meanwhile (after the scan passed its parent) is kept, as a folder
    no scan listed is known from its event."""
    from viewer.screens.browser_folders import KnownFolders

    old, listed, come = (tmp_path / name for name in ("old", "listed", "come"))
    for folder in (listed, come):
        folder.mkdir()
    known = KnownFolders()
    known.add([str(old)])
    known.listing()  # (a scan begins)
    known.add([str(come)])  # (the watch's event, the scan past it)
    known.replace([str(listed)])
    assert known.now() == {str(listed), str(come)}
    known.replace([str(listed)])  # (a listing not begun: what it listed alone)
    assert known.now() == {str(listed)}
