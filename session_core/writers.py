"""Is a writer holding this transcript? Answered from /proc, without touching the file.

A writer holds a file by its lock (a flock, as ``Session`` writers take: /proc/locks) or by
keeping it open for writing (as Codex keeps its rollout open while the session runs:
another process's descriptor, from /proc/*/fd; ``open_for_writing``). ``LockTable`` is the
one reader of both: a directory scan reads it once for many files, ``writer_holds_lock``
once for one.
"""

from __future__ import annotations

import os
import threading
import time


class LockTable:
    """One read of /proc/locks, with the files other processes hold open for writing,
    asked about many files (a directory scan reads it once)."""

    def __init__(self, text: str | None, opened: OpenScan | None = None) -> None:
        self.known = text is not None
        self.opened = opened  # the files held open for writing: None where /proc does not say
        self.held: set[str] = set()
        for line in (text or "").splitlines():
            fields = line.split()
            # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; blocked waiters start with "->".
            if len(fields) >= 6 and fields[1] == "FLOCK":
                self.held.add(fields[5])

    @classmethod
    def read(cls, path: str = "/proc/locks") -> LockTable:
        try:
            with open(path, encoding="ascii", errors="replace") as fh:
                text: str | None = fh.read()
        except OSError:
            text = None
        return cls(text, open_for_writing())

    def holds(self, device: int, inode: int) -> bool | None:
        """True when a writer holds the file: its lock, or open for writing; None when
        neither table could be read."""
        if self.opened is not None and (device, inode) in self.opened.files:
            return True
        if not self.known:
            return None if self.opened is None else False
        return self._locked(device, inode)

    def holds_steadily(self, device: int, inode: int) -> bool:
        """A writer holds the file as one that keeps it does: its lock, or open for writing
        scan after scan (``OpenScan.steady``), not a write caught in its moment. Such a
        writer, seen and then gone, is gone (``note_held``); one that opens the file for
        each write may be between writes."""
        if self.opened is not None and (device, inode) in self.opened.steady:
            return True
        return self.known and self._locked(device, inode)

    def _locked(self, device: int, inode: int) -> bool:
        major, minor = os.major(device), os.minor(device)
        return any(
            key in self.held
            for key in (
                f"{major:02x}:{minor:02x}:{inode}",
                f"{major:x}:{minor:x}:{inode}",
                f"{major}:{minor}:{inode}",
            )
        )


# The files (path, device, inode) this process saw a writer's lock on: a writer seen to
# lock its file and gone is gone, for every read path of the process alike (the viewer's
# export said "running" of a call its screen said was interrupted, the lock it saw gone).
# The path too: an inode number is given again to a file made after one is removed.
_LOCKS_SEEN: set[tuple[str, int, int]] = set()


def writer_holds_lock(path: str | os.PathLike[str], locks: str = "/proc/locks") -> bool | None:
    """True when some process holds a flock on the file (as ``Session`` writers do), or
    another process holds it open for writing (``open_for_writing``).

    None when the kernel does not say (no /proc/locks, or the file is gone).
    Reading /proc takes no lock and opens nothing of the file. A writer found is
    remembered (``lock_seen``) where it holds the file as a keeper does (its lock, or open
    scan after scan: ``LockTable.holds_steadily``): once it lets the file go, it is gone.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    table = LockTable.read(locks)
    held = table.holds(st.st_dev, st.st_ino)
    if held and table.holds_steadily(st.st_dev, st.st_ino):
        note_held(path, st.st_dev, st.st_ino)
    return held


def note_held(path: str | os.PathLike[str], device: int, inode: int) -> None:
    """A writer was seen holding this file (``lock_seen`` from now on)."""
    _LOCKS_SEEN.add((os.path.realpath(path), device, inode))


def seen_held(path: str | os.PathLike[str], device: int, inode: int) -> bool:
    """``lock_seen`` of a file whose device and inode the caller has."""
    return bool(_LOCKS_SEEN) and (os.path.realpath(path), device, inode) in _LOCKS_SEEN


def lock_seen(path: str | os.PathLike[str]) -> bool:
    """Whether this process saw a writer hold this file (this inode): its lock, or open
    for writing."""
    if not _LOCKS_SEEN:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    return seen_held(path, st.st_dev, st.st_ino)


# -- files held open for writing --------------------------------------------------------

# A scan of every process's descriptors costs about 5 µs a descriptor (0.1 s on a desktop
# of 20,000): its answer is kept, and once older than this it is taken again in a thread
# of its own, the stale answer given meanwhile, so that a screen asking twice a second
# never waits on it. Only the first ask waits (a command asks once).
OPEN_SCAN_EVERY = 2.0
_IDLE_AFTER = 30.0  # the refreshing thread ends when nobody asked for this long
# A file held in this many scans in a row, over at least this long, is held by a writer
# that keeps it open (Codex's rollout), not one caught in the moment of a write.
STEADY_SCANS = 3
STEADY_SECONDS = 3.0

Key = tuple[int, int]  # a file's device and inode


class OpenScan:
    """A scan's files held open for writing, and those held so scan after scan."""

    __slots__ = ("files", "steady")

    def __init__(self, files: frozenset[Key], steady: frozenset[Key] = frozenset()) -> None:
        self.files = files
        self.steady = steady


class Streaks:
    """Since when, and in how many scans in a row, each file has been held."""

    def __init__(self) -> None:
        self.since: dict[Key, tuple[float, int]] = {}

    def scan(self, files: frozenset[Key] | None, now: float) -> OpenScan | None:
        if files is None:
            self.since.clear()
            return None
        before, self.since = self.since, {}
        for key in files:  # (a file let go is forgotten: its next hold starts again)
            first, scans = before.get(key, (now, 0))
            self.since[key] = (first, scans + 1)
        steady = frozenset(
            key
            for key, (first, scans) in self.since.items()
            if scans >= STEADY_SCANS and now - first >= STEADY_SECONDS
        )
        return OpenScan(files, steady)


class _OpenFiles:
    """The latest scan of /proc/*/fd, and the thread that takes it again."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: OpenScan | None = None
        self.streaks = Streaks()
        self.taken = -1.0  # monotonic time of the scan (-1: none yet)
        self.asked = 0.0
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def get(self) -> OpenScan | None:
        now = time.monotonic()
        with self.lock:
            self.asked = now
            if self.taken < 0:
                self.taken = time.monotonic()
                self.files = self.streaks.scan(scan_open_for_writing(), self.taken)
                return self.files
            if now - self.taken > OPEN_SCAN_EVERY:
                if self.thread is None or not self.thread.is_alive():
                    self.thread = threading.Thread(
                        target=self._refresh, name="tailscope-open-files", daemon=True
                    )
                    self.thread.start()
                self.wake.set()
            return self.files

    def _refresh(self) -> None:
        while self.wake.wait(_IDLE_AFTER):
            self.wake.clear()
            files = scan_open_for_writing()
            with self.lock:
                self.taken = time.monotonic()
                self.files = self.streaks.scan(files, self.taken)
                if self.taken - self.asked > _IDLE_AFTER:
                    break


_OPEN = _OpenFiles()


def open_for_writing() -> OpenScan | None:
    """The (device, inode) of every file another process holds open for writing, as of a
    scan at most about ``OPEN_SCAN_EVERY`` seconds old, and of those it held steadily;
    None where /proc does not say."""
    return _OPEN.get()


def scan_open_for_writing(proc: str = "/proc") -> frozenset[Key] | None:
    """One scan of every process's descriptors but this process's own (its own copy of
    standard input is told by its lock): a descriptor open for writing has the owner's
    write bit on its link, so only those are followed to their file. A process whose
    descriptors may not be read (another user's) is passed over."""
    try:
        names = os.listdir(proc)
    except OSError:
        return None
    me = str(os.getpid())
    held: set[Key] = set()
    for name in names:
        if not name.isdigit() or name == me:
            continue
        try:
            entries = os.scandir(f"{proc}/{name}/fd")
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.stat(follow_symlinks=False).st_mode & 0o200:
                        st = entry.stat()
                        held.add((st.st_dev, st.st_ino))
                except OSError:
                    continue  # (closed meanwhile)
    return frozenset(held)
