"""Is a writer holding this transcript? Answered from /proc, without touching the file.

A writer holds a file by its lock (a flock, as ``Session`` writers take: /proc/locks) or by
having it open for writing (as Codex keeps its rollout open while the session runs:
another process's descriptor, from /proc/*/fd; ``open_for_writing``). ``LockTable`` is the
one reader of both: a directory scan reads it once for many files, ``writer_holds_lock``
once for one.

What was seen is remembered, so that a writer that went is known to be gone at once,
however fresh its file: a lock seen and let go (``lock_gone``: lock holders keep the lock
while they write), and the processes seen with the file open, once every one has exited
(``holders_gone``: a process that opens the file for each write, between two writes, is
not gone while it runs); until the file is written again, by a writer not seen.
"""

from __future__ import annotations

import os
import stat
import threading
import time

Key = tuple[int, int]  # a file's device and inode
Holder = tuple[int, int]  # a process: its pid and its start time (a pid is given again)


class LockTable:
    """One read of /proc/locks, with the files other processes hold open for writing,
    asked about many files (a directory scan reads it once)."""

    def __init__(self, text: str | None, opened: OpenScan | None = None) -> None:
        self.known = text is not None
        self.opened = opened  # the files held open for writing: None where /proc does not say
        self._holders: dict[Key, frozenset[Holder]] = {}  # (each file asked again once)
        self.held: set[str] = set()
        for line in (text or "").splitlines():
            fields = line.split()
            # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; blocked waiters start with "->".
            if len(fields) >= 6 and fields[1] == "FLOCK":
                self.held.add(fields[5])

    @classmethod
    def read(cls, path: str = "/proc/locks", opened: bool = True) -> LockTable:
        """``opened`` False: the locks alone, no scan of the files held open for writing
        (a format whose writers all lock: no lock, no writer)."""
        try:
            with open(path, encoding="ascii", errors="replace") as fh:
                text: str | None = fh.read()
        except OSError:
            text = None
        return cls(text, open_for_writing() if opened else None)

    def holds(self, device: int, inode: int) -> bool | None:
        """True when a writer holds the file: its lock, or open for writing; None when
        neither table could be read."""
        if self.holders(device, inode):
            return True
        if not self.known:
            return None if self.opened is None else False
        return self.locked(device, inode)

    def holders(self, device: int, inode: int) -> frozenset[Holder]:
        """The processes (but this one) that have the file open for writing: those of
        the scan that still do (a scan may be 2 s old: its holder gone since, or the
        file let go and its inode number given to another)."""
        if self.opened is None:
            return frozenset()
        key = (device, inode)
        found = self.opened.files.get(key)
        if not found:
            return frozenset()
        if key not in self._holders:
            self._holders[key] = frozenset(h for h in found if _still_holds(h, key))
        return self._holders[key]

    def locked(self, device: int, inode: int) -> bool:
        """Whether a process holds a flock on the file."""
        major, minor = os.major(device), os.minor(device)
        return any(
            key in self.held
            for key in (
                f"{major:02x}:{minor:02x}:{inode}",
                f"{major:x}:{minor:x}:{inode}",
                f"{major}:{minor}:{inode}",
            )
        )

    def note(self, path: str | os.PathLike[str], device: int, inode: int) -> None:
        """Remember who holds the file now: its lock (``lock_gone``), the processes that
        have it open (``holders_gone``)."""
        if self.known and self.locked(device, inode) and not is_pipe_copy(path):
            _LOCKS.note(_seen_key(path, device, inode))
        holders = self.holders(device, inode)
        if holders:
            _HOLDERS.note(_seen_key(path, device, inode), holders)


# A file as this process remembers it: the path too, since an inode number is given
# again to a file made after one is removed.
SeenKey = tuple[str, int, int]


def _seen_key(path: str | os.PathLike[str], device: int, inode: int) -> SeenKey:
    return (os.path.realpath(path), device, inode)


# The copies of a pipe this process makes (``tailscope -``), whose writer is out of sight:
# the copier's lock on one says the pipe is open, and its end nothing of the writer (the
# pipe of ``cat`` ends at once, the file it read still written, or long finished). Once
# the pipe has ended, the copy's mtime is its last line's time (the copier sets it), and
# it is judged as a lock-less writer's file is, by its age (``writer_alive``).
_PIPE_COPIES: set[str] = set()


def pipe_copy(path: str | os.PathLike[str], made: bool = True) -> None:
    """``path`` is a copy of a pipe (``made``), or is one no more (removed)."""
    where = os.path.realpath(path)
    if made:
        _PIPE_COPIES.add(where)
    else:
        _PIPE_COPIES.discard(where)


def is_pipe_copy(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a copy of a pipe this process makes (``pipe_copy``)."""
    return bool(_PIPE_COPIES) and os.path.realpath(path) in _PIPE_COPIES


class _Holders:
    """The processes seen with each file open for writing (the same way), and the file's
    size and mtime when they were first all found exited: a file written after that has
    a writer again, one not seen (a process that opens it for each write, started
    again), and is forgotten. Asked from the screen's thread and the workers' alike."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[SeenKey, frozenset[Holder]] = {}
        self.gone: dict[SeenKey, tuple[int, float]] = {}

    def note(self, key: SeenKey, holders: frozenset[Holder]) -> None:
        """``holders`` have the file open now: those seen before that have exited are
        let go (a shell's ``>>`` hands the file to each command it runs)."""
        with self.lock:
            before = self.seen.get(key, frozenset())
        kept = frozenset(holder for holder in before - holders if _running(holder))
        with self.lock:
            self.seen[key] = kept | holders
            self.gone.pop(key, None)

    def gone_now(self, key: SeenKey, size: int, mtime: float) -> bool:
        """Whether every process seen with the file open has exited, and nothing was
        written to it since that was first found (False where none was seen)."""
        with self.lock:
            holders = self.seen.get(key)
            if not holders:
                return False
            stamp = self.gone.get(key)
        if any(_running(holder) for holder in holders):
            return False
        with self.lock:
            if stamp is None:
                self.gone[key] = (size, mtime)
                return True
            if stamp != (size, mtime):
                self.seen.pop(key, None)
                self.gone.pop(key, None)
                return False
            return True

    def clear(self) -> None:
        with self.lock:
            self.seen.clear()
            self.gone.clear()


_HOLDERS = _Holders()


class _Locks:
    """The files this process saw a writer's lock on: a writer seen to lock its file and
    gone is gone, for every read path of the process alike (the viewer's export said
    "running" of a call its screen said was interrupted, the lock it saw gone). The
    file's size and mtime when the lock was first found let go are kept: a file written
    after that has a writer again, one that does not lock (a resumed run's other
    writer), and is forgotten, as ``_Holders`` forgets (it read gone for the process's
    life)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[SeenKey, tuple[int, float] | None] = {}  # (None: held when seen)

    def note(self, key: SeenKey) -> None:
        with self.lock:
            self.seen[key] = None

    def gone_now(self, key: SeenKey, size: int, mtime: float) -> bool:
        """Whether a lock was seen on the file, is let go (the caller knows none holds
        it), and nothing was written to it since that was first found."""
        with self.lock:
            if key not in self.seen:
                return False
            stamp = self.seen[key]
            if stamp is None:
                self.seen[key] = (size, mtime)
                return True
            if stamp != (size, mtime):
                del self.seen[key]
                return False
            return True

    def clear(self) -> None:
        with self.lock:
            self.seen.clear()


_LOCKS = _Locks()


def writer_holds_lock(
    path: str | os.PathLike[str], locks: str = "/proc/locks", opened: bool = True
) -> bool | None:
    """True when some process holds a flock on the file (as ``Session`` writers do), or
    (``opened``) another process has it open for writing (``open_for_writing``).

    None when the kernel does not say (no /proc/locks, or the file is gone).
    Reading /proc takes no lock and opens nothing of the file. What holds it is
    remembered (``LockTable.note``).
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    table = LockTable.read(locks, opened)
    held = table.holds(st.st_dev, st.st_ino)
    if held:
        table.note(path, st.st_dev, st.st_ino)
    return held


def _stat_key(path: str | os.PathLike[str]) -> tuple[SeenKey, os.stat_result] | None:
    """The file as this process remembers it, and its stat now (None: it is not there)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _seen_key(path, st.st_dev, st.st_ino), st


def lock_seen(path: str | os.PathLike[str]) -> bool:
    """Whether this process saw a writer hold this file's lock (this inode's), and it
    was not written since the lock was found let go (``_Locks``)."""
    found = _stat_key(path) if _LOCKS.seen else None
    return found is not None and found[0] in _LOCKS.seen


def lock_gone(path: str | os.PathLike[str]) -> bool:
    """Whether a writer seen holding this file's lock has let it go (the caller knows
    none holds it now), and nothing was written to the file since (``_Locks``)."""
    found = _stat_key(path) if _LOCKS.seen else None
    if found is None:
        return False
    key, st = found
    return _LOCKS.gone_now(key, st.st_size, st.st_mtime)


def seen_gone(
    path: str | os.PathLike[str], device: int, inode: int, size: int, mtime: float
) -> bool:
    """A writer seen holding this file (its lock, or open for writing) is gone: its lock
    let go, or every process seen with it open has exited (``_Holders.gone_now``). The
    caller knows none holds it now, and the file's size and mtime."""
    return _gone(_seen_key(path, device, inode), size, mtime)


def _gone(key: SeenKey, size: int, mtime: float) -> bool:
    """``seen_gone`` of the file as this process remembers it."""
    return _LOCKS.gone_now(key, size, mtime) or _HOLDERS.gone_now(key, size, mtime)


def holders_gone(path: str | os.PathLike[str]) -> bool:
    """Whether every process seen with this file open for writing has exited, and nothing
    was written to it since (False where none was seen)."""
    found = _stat_key(path) if _HOLDERS.seen else None
    if found is None:
        return False
    key, st = found
    return _HOLDERS.gone_now(key, st.st_size, st.st_mtime)


def writer_seen_gone(path: str | os.PathLike[str]) -> bool:
    """Whether a writer this process saw hold the file is gone, and nothing was written
    to it since: its lock let go (``lock_gone``), or every process seen with it open for
    writing exited (``holders_gone``). The caller knows none holds it now."""
    found = _stat_key(path) if _LOCKS.seen or _HOLDERS.seen else None
    if found is None:
        return False
    key, st = found
    return _gone(key, st.st_size, st.st_mtime)


def _running(holder: Holder, proc: str = "/proc") -> bool:
    pid, started = holder
    return _start_time(f"{proc}/{pid}") == started


def _still_holds(holder: Holder, key: Key, proc: str = "/proc") -> bool:
    """Whether ``holder`` runs and has the file ``key`` open for writing now (its own
    descriptors read again: a few)."""
    if not _running(holder, proc):
        return False
    try:
        entries = os.scandir(f"{proc}/{holder[0]}/fd")
    except OSError:
        return False
    with entries:
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_mode & 0o200:
                    st = entry.stat()
                    if (st.st_dev, st.st_ino) == key:
                        return True
            except OSError:
                continue
    return False


def _start_time(where: str) -> int | None:
    """A process's start time (in clock ticks since boot: ``stat``'s 22nd field), which
    tells it from a later process given its pid; None once it has exited (a zombie, whose
    parent has not reaped it yet, too: it writes nothing more)."""
    try:
        with open(f"{where}/stat", "rb") as fh:
            text = fh.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2 :].split()  # (after the name, which may hold spaces)
    try:
        return None if fields[0] in (b"Z", b"X") else int(fields[19])
    except (IndexError, ValueError):
        return None


# -- files held open for writing --------------------------------------------------------

# A scan of every process's descriptors costs about 5 µs a descriptor (0.1 s on a desktop
# of 20,000): its answer is kept, and once older than this (or than 20 times what the last
# scan took: at most a twentieth of a core) it is taken again in a thread of its own, the
# stale answer given meanwhile, so that a screen asking twice a second never waits on it.
# Only the first ask waits (a command asks once).
OPEN_SCAN_EVERY = 2.0
_SCAN_SHARE = 20
_IDLE_AFTER = 30.0  # the refreshing thread ends when nobody asked for this long


class OpenScan:
    """One scan's regular files held open for writing, each with the processes that do."""

    __slots__ = ("files",)

    def __init__(self, files: dict[Key, frozenset[Holder]]) -> None:
        self.files = files


class _OpenFiles:
    """The latest scan of /proc/*/fd, and the thread that takes it again."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.scan: OpenScan | None = None
        self.taken = -1.0  # monotonic time of the scan (-1: none yet)
        self.cost = 0.0  # what the last scan took, in seconds
        self.asked = 0.0
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def get(self) -> OpenScan | None:
        now = time.monotonic()
        with self.lock:
            self.asked = now
            if self.taken < 0:
                self.scan = scan_open_for_writing()
                self.taken = time.monotonic()
                self.cost = self.taken - now
                return self.scan
            if now - self.taken > max(OPEN_SCAN_EVERY, _SCAN_SHARE * self.cost):
                if self.thread is None or not self.thread.is_alive():
                    self.thread = threading.Thread(
                        target=self._refresh, name="tailscope-open-files", daemon=True
                    )
                    self.thread.start()
                self.wake.set()
            return self.scan

    def _refresh(self) -> None:
        while self.wake.wait(_IDLE_AFTER):
            self.wake.clear()
            began = time.monotonic()
            scan = scan_open_for_writing()
            with self.lock:
                self.scan, self.taken = scan, time.monotonic()
                self.cost = self.taken - began
                if self.taken - self.asked > _IDLE_AFTER:
                    break


_OPEN = _OpenFiles()


def open_for_writing() -> OpenScan | None:
    """The regular files other processes have open for writing, as of a scan at most
    about ``OPEN_SCAN_EVERY`` seconds old; None where /proc does not say."""
    return _OPEN.get()


def scan_open_for_writing(proc: str = "/proc") -> OpenScan | None:
    """One scan of every process's descriptors but this process's own (its own copy of
    standard input is told by its lock): a descriptor open for writing has the owner's
    write bit on its link, so only those are followed to their file, and a regular file's
    are kept with the process (its pid and start time). A process whose descriptors may
    not be read (another user's) is passed over."""
    try:
        names = os.listdir(proc)
    except OSError:
        return None
    me = str(os.getpid())
    files: dict[Key, set[Holder]] = {}
    for name in names:
        if not name.isdigit() or name == me:
            continue
        try:
            entries = os.scandir(f"{proc}/{name}/fd")
        except OSError:
            continue
        holder: Holder | None = None
        with entries:
            for entry in entries:
                try:
                    if not entry.stat(follow_symlinks=False).st_mode & 0o200:
                        continue
                    st = entry.stat()
                except OSError:
                    continue  # (closed meanwhile)
                if not stat.S_ISREG(st.st_mode):
                    continue  # (a socket, a pipe, a terminal)
                if holder is None:
                    started = _start_time(f"{proc}/{name}")
                    if started is None:
                        break  # (it exited meanwhile)
                    holder = (int(name), started)
                files.setdefault((st.st_dev, st.st_ino), set()).add(holder)
    return OpenScan({key: frozenset(holders) for key, holders in files.items()})
