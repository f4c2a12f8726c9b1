"""What many test modules share: proving a file was not touched, and watching the app."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import hashlib
import html
import os
import re
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from session_core.following import FollowUpdate, follow

if TYPE_CHECKING:  # the core's tests use fingerprint without loading the app
    from textual.pilot import Pilot

    from session_core.model import Transcript
    from session_core.tail_reader import TailReader
    from viewer.app import TailscopeApp
    from viewer.screens.following import FollowingScreen
    from viewer.screens.model_screen import ModelScreen


def locks_on(path: Path, locks: str = "/proc/locks") -> tuple[tuple[str, str, int], ...]:
    """Every lock the kernel lists on this file, as (class, mode, pid), sorted.

    A read path takes none: the set is the same before and after it (a writer's own lock,
    in this process or another, is in both). Parsed here, not by the code under test.
    """
    st = path.stat()
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    found = []
    with open(locks, encoding="ascii", errors="replace") as fh:
        for line in fh:
            fields = line.split()
            if fields and fields[1] == "->":  # a waiter: "1: -> FLOCK ADVISORY WRITE ..."
                fields = [fields[0], *fields[2:]]
            # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"
            if len(fields) >= 6 and fields[5].lower() == inode:
                found.append((fields[1], fields[3], int(fields[4])))
    return tuple(sorted(found))


def locks_held_by(pid: int, path: Path) -> tuple[tuple[str, str, int], ...]:
    return tuple(lock for lock in locks_on(path) if lock[2] == pid)


def fingerprint(path: Path) -> tuple[str, int, int, tuple[tuple[str, str, int], ...]]:
    """A file's bytes, inode, mtime and the locks on it: equal before and after a read path,
    or it wrote (or took a lock and kept it)."""
    st = path.stat()
    return (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        st.st_ino,
        st.st_mtime_ns,
        locks_on(path),
    )


# Real transcripts beside the repository (../shared/samples), not in it: a test that
# reads them skips where they are absent. ``TAILSCOPE_SAMPLES`` names them elsewhere (a
# worktree that is not beside them).
SAMPLES = Path(
    os.environ.get("TAILSCOPE_SAMPLES")
    or Path(__file__).resolve().parents[2] / "shared" / "samples"
)


# -- permission errors, for root too --------------------------------------------------

_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _capabilities(data: ctypes.Array[_CapData] | None = None) -> ctypes.Array[_CapData]:
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    if data is None:
        data = (_CapData * 2)()
        if libc.capget(ctypes.byref(header), data) != 0:
            raise OSError(ctypes.get_errno(), "capget")
    elif libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")
    return data


@contextlib.contextmanager
def file_permissions_apply() -> Iterator[None]:
    """Within the block, file permissions stop this thread as they stop any user.

    As root, the thread's effective capabilities lose CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH and CAP_FOWNER (Linux capabilities are per thread, and the
    permitted set is kept, so they are raised again on the way out). A process
    started inside the block inherits the lowered set. Proven on the way in: a file
    of mode 000 must refuse to open, else the test fails (it never skips).
    """
    if os.geteuid() != 0:
        yield
        return
    saved = _capabilities()
    lowered = (_CapData * 2)()
    ctypes.memmove(lowered, saved, ctypes.sizeof(saved))
    drop = (1 << _CAP_DAC_OVERRIDE) | (1 << _CAP_DAC_READ_SEARCH) | (1 << _CAP_FOWNER)
    lowered[0].effective &= ~drop
    _capabilities(lowered)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            probe = Path(scratch) / "probe"
            probe.write_bytes(b"x")
            probe.chmod(0)
            try:
                probe.read_bytes()
            except PermissionError as err:
                assert err.errno == errno.EACCES
            else:
                raise AssertionError("root still reads a mode-000 file; the check is void")
            finally:
                probe.chmod(0o600)
        yield
    finally:
        _capabilities(saved)


def neutral(transcript: Transcript) -> dict[str, Any]:
    """Everything of a neutral snapshot a pane, an export or the replay reads (its items
    built now: their marks as they are), to compare two snapshots by."""
    out = transcript.to_json()
    out["items"] = [
        (
            i.id,
            i.role,
            i.line,
            i.kind,
            i.ts,
            i.end,
            i.marks,
            i.sticky,
            [(p.kind, p.text, p.call_id, p.name, p.data) for p in i.parts],
        )
        for i in transcript.raw
    ]
    out["replayed"] = [(i.id, i.role, i.marks, i.sticky) for i in transcript.messages]
    out["ops"] = [
        (op.to_json(), op.label, op.started, op.ended) for op in transcript.tool_operations
    ]
    out["run-objects"] = [repr(run) for run in transcript.runs]
    out["lines"], out["alive"] = transcript.lines, transcript.writer_alive
    out["last-time"] = transcript.last_time()
    return out


def each_snapshot_afresh(
    live: Any, path: str | os.PathLike[str], afresh: Callable[[bool | None], Transcript], batch: int
) -> int:
    """Follow the file into ``live`` (a format's live model) in batches of ``batch``
    bytes; after each, its snapshot must equal ``afresh(writer_alive)`` (the model made
    again from the same state), with the writer alive, gone and unknown in turn. How
    many snapshots were compared."""
    snapshots = 0

    def apply(update: FollowUpdate) -> None:
        nonlocal snapshots
        live.apply(update)
        alive = None if snapshots % 3 == 0 else snapshots % 3 == 1
        assert neutral(live.transcript(writer_alive=alive)) == neutral(afresh(alive))
        snapshots += 1

    follow_into(apply, path, batch, live.format.parsed_updates)
    return snapshots


async def panes_came(pilot: Pilot[None], screen: FollowingScreen) -> None:
    """Mount a file screen's hidden tabs' panes now (``_mount_panes``), and wait for them."""
    screen._mount_panes()
    await wait_for(pilot, lambda: screen.panes_ready)
    await pilot.pause(0.1)


async def wait_for(
    pilot: Pilot[None], predicate: Callable[[], object], timeout: float = 5.0
) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)
    await pilot.pause(0.05)


@contextlib.asynccontextmanager
async def app_on(
    path: str | os.PathLike[str], size: tuple[int, int]
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None]]]:
    """The app opened on ``path``, run headless at ``size``, and its pilot."""
    from viewer.app import TailscopeApp

    app = TailscopeApp(path)
    async with app.run_test(size=size) as pilot:
        yield app, pilot


# A snapshot taken while the app is still settling can differ from the stored one in the
# segments behind identical pixels (seen under a loaded CI machine, never alone): a failing
# snapshot comparison is taken again, twice at most. A real difference fails all three.
snapshot_rerun = pytest.mark.flaky(reruns=2)


@contextlib.asynccontextmanager
async def app_loaded(
    path: str | os.PathLike[str], kind: type[FollowingScreen], size: tuple[int, int]
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None]]]:
    """``app_on``, once the topmost ``kind`` screen has the file and its view settled."""
    async with app_on(path, size) as (app, pilot):
        await file_loaded(pilot, kind)
        yield app, pilot


def for_screen(
    kind: type[FollowingScreen], size: tuple[int, int]
) -> tuple[
    Callable[
        [str | os.PathLike[str]],
        contextlib.AbstractAsyncContextManager[tuple[TailscopeApp, Pilot[None]]],
    ],
    Callable[..., bool],
]:
    """``opened(path)``: the app on the file at ``size`` and its pilot, once the topmost
    ``kind`` screen has the file and its view settled (``app_loaded``);
    ``shows(snap_compare, path, *press)``: that screen on the file at ``size``, once
    loaded and the keys pressed, is the calling test's snapshot."""
    return partial(app_loaded, kind=kind, size=size), partial(snapshot_of, kind=kind, size=size)


def snapshot_of(
    snap_compare: Callable[..., bool],
    path: Path,
    *press: str,
    kind: type[FollowingScreen],
    size: tuple[int, int] = (120, 40),
) -> bool:
    """The app on ``path`` at ``size``, once its ``kind`` screen has the file and the keys
    ``press`` were pressed, against the calling test's snapshot."""
    from viewer.app import TailscopeApp

    async def loaded(pilot: Pilot[None]) -> None:
        await file_loaded(pilot, kind)

    return snap_compare(
        TailscopeApp(path), press=list(press), terminal_size=size, run_before=loaded
    )


def written(path: Path, write: Callable[..., object], **options: object) -> Path:
    """``path``, once ``write(path, **options)`` has written it."""
    write(path, **options)
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``tailscope ARGS`` in this process: its exit code, and what it printed to each stream."""
    from viewer.cli import main  # here, not above: the core's tests need not load the viewer

    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def follow_into(
    apply: Callable[[FollowUpdate], object], path: str | os.PathLike[str], batch: int, parse: bool
) -> None:
    """Follows the file as the viewer does (polling, even its first read in batches of
    ``batch`` bytes) until caught up, each update handed to ``apply``."""

    async def run() -> None:
        updates = follow(
            path, force_polling=True, initial_batches=True, batch_bytes=batch, parse=parse
        )
        try:
            async for update in updates:
                apply(update)
                if update.caught_up:
                    break
        finally:
            await updates.aclose()

    asyncio.run(run())


def notes_kept(app: TailscopeApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every notification ``app`` is given from now on, in order, kept: a toast expires (a
    search's count after 2 s), and one looked for among those showing after a wait under
    load may be gone already."""
    kept: list[str] = []
    notify = app.notify

    def keep(message: str, *args: Any, **kwargs: Any) -> None:
        kept.append(str(message))
        notify(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", keep)
    return kept


def said(app: TailscopeApp, text: str) -> bool:
    """A notification says ``text``."""
    return any(text in str(note.message) for note in app._notifications)


def agentgo_screen(app: TailscopeApp) -> ModelScreen:
    """The model screen of the open agentgo session (the one under any modal)."""
    screen = app.file_screen
    assert screen.format.name == "agentgo-v1", screen.format.name
    return screen


def screen_text(app: TailscopeApp) -> str:
    """The screen's SVG with its entities decoded (spaces are &#160; there)."""
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


def screen_lines(app: TailscopeApp) -> list[str]:
    """The screen as text, one string a row (the SVG's tags stripped; a row is one line)."""
    body = screen_text(app).split("</style>")[-1]
    rows = (re.sub(r"<[^>]+>", "", line).rstrip() for line in body.splitlines())
    return [row for row in rows if row.strip()]


async def file_loaded(pilot: Pilot[None], kind: type[FollowingScreen]) -> None:
    """Wait until the topmost ``kind`` screen has the file and its hidden tabs' panes
    (they come after the first screen), and let them lay it out (a loaded machine renders
    slowly). A load that stalls fails the test."""

    def loaded() -> bool:
        screens = [s for s in pilot.app.screen_stack if isinstance(s, kind)]
        return bool(screens and screens[-1]._loaded and screens[-1].panes_ready)

    deadline = asyncio.get_running_loop().time() + 15.0
    while not loaded():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for a {kind.__name__} to load its file")
        await pilot.pause(0.02)
    for _ in range(3):
        await pilot.pause(0.1)
        await pilot.wait_for_scheduled_animations()


def places(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Where each value of a parsed record is (a path of keys and indexes), the record's
    own fields first; a list's first three items only."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*at, key)
            yield from places(inner, (*at, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:3]):
            yield (*at, index)
            yield from places(inner, (*at, index))


def put_at(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the value at ``at`` (a path ``places`` gives) made ``new``."""
    if not at:
        return new
    value = value.copy()
    value[at[0]] = put_at(value[at[0]], at[1:], new)
    return value


def append_later(path: Path, data: bytes) -> None:
    """``data`` appended to ``path``, its mtime a second on (a coarse clock would not
    tell the append from what was there: the follower looks at the stat)."""
    with open(path, "ab") as out:
        out.write(data)
    stamp = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def tail_step(tail: TailReader) -> FollowUpdate:
    """A ``TailReader``'s next update, which must be there (something changed)."""
    update = tail.step(None)
    assert update is not None
    return update


def bench_generators() -> dict[str, Any]:
    """Each format's realistic generator under ``bench/`` (its module: ``generate(path,
    size, seed=...)``), by format name, for tests that want a file in each tool's shape."""
    import sys

    bench = str(Path(__file__).resolve().parent.parent / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import gen_agentgo
    import gen_claude_code
    import gen_codex
    import gen_transcript

    return {
        "transcript-v1": gen_transcript,
        "claude-code": gen_claude_code,
        "codex": gen_codex,
        "agentgo-v1": gen_agentgo,
    }
