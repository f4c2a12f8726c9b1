"""Writing agentgo-v1: one handle per file, no application buffer, fsync at boundaries."""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time as _time
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from ..codec import not_finite
from ..errors import RefusedAppendError, SessionClosedError, TranscriptError
from ..events import CHANGED_UNDER_WRITER, file_identity, where_written, why_not_append, wrote_alone
from ..locking import create_locked, freed_when_dropped, open_locked, remove_made
from ..reader import empty_path, iter_lines, path_of
from .reader import VERSION, StrictReader, parse_record
from .shape import NEEDS_EXECUTION, execution_said

_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
# Records a session never holds: transient progress (token deltas, partial snapshots).
TRANSIENT = frozenset(
    ("message_start", "message_update", "model_stream", "tool_exec_update", "tool_progress")
)
# Written by their own methods so the lifecycle stays well-formed.
RESERVED = frozenset(("session_start", "run_start", "run_close", "checkpoint"))


def rfc3339_now() -> str:
    """UTC with nanoseconds and a ``Z``: 2026-08-09T13:10:08.542283123Z."""
    ns = _time.time_ns()
    seconds, fraction = divmod(ns, 1_000_000_000)
    return _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(seconds)) + f".{fraction:09d}Z"


def _new_id() -> str:
    return str(uuid.uuid4())


_STOPS = "the session stops recording: open it again"
_CHANGED = f"{CHANGED_UNDER_WRITER}; {_STOPS}"


class AgentGoSession:
    """The one writer of an agentgo-v1 file. Build it with ``create`` or ``open``."""

    def __init__(self, path: str, fd: int, session_id: str, next_seq: int) -> None:
        self.path = path
        self._at = where_written(path)  # (checked on every record: still this file?)
        self.session_id = session_id
        self._fd = fd
        self._seq = next_seq
        self._mutex = threading.RLock()
        self._error: TranscriptError | None = None
        self._closed = False
        self._run: AgentGoRun | None = None
        self._checkpoint: Any = None
        self._has_checkpoint = False
        self._dirty = False  # written since the last fsync
        # The file as this session left it: it appends only while no other program has
        # written to it since (``Session``'s rule).
        self._left = file_identity(fd)
        # Closed by ``close`` or, for a session dropped unclosed, when it is collected:
        # its lock freed, nothing written (no run_close). Registered last: until it is,
        # the descriptor is the caller's to close (closed twice, it may by then be
        # another file's).
        self._release = freed_when_dropped(self, (fd,))

    @classmethod
    def create(cls, path: str | os.PathLike[str]) -> AgentGoSession:
        where = path_of(path)  # (not a path: a TranscriptError, as Session's)
        fd, made = create_locked(where, "session")
        session: AgentGoSession | None = None
        try:
            if os.fstat(fd).st_size > 0:
                raise RefusedAppendError("already has content; open it to continue", path=where)
            session = cls(where, fd, _new_id(), 0)
            session._write("session_start", {"version": VERSION}, None, None, None)
        except BaseException:
            if made:
                remove_made(fd, where)
            if session is None:
                _close_quietly(fd)
            else:
                session._closed = True
                session._release()
            raise
        return session

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> AgentGoSession:
        """Validate the whole file, cut only an unfinished final line, continue its seq."""
        where = path_of(path)  # (not a path: a TranscriptError, as Session's)
        if not where:
            raise empty_path()
        if not os.path.isfile(where):
            raise TranscriptError("there is no session here", path=where)
        fd = open_locked(where, os.O_RDWR | os.O_APPEND)
        try:
            checker = StrictReader(where)
            keep = 0
            checkpoint: Any = None
            has_checkpoint = False
            with os.fdopen(os.dup(fd), "rb") as fh:
                for number, raw, ended in iter_lines(fh):
                    if not ended:
                        break  # the unfinished tail: removed below
                    record = parse_record(raw, number, where)
                    checker.check(record, number)
                    keep += len(raw) + 1
                    if record.get("type") == "checkpoint":
                        data = record.get("data")
                        checkpoint = data.get("snapshot") if isinstance(data, dict) else None
                        has_checkpoint = True
            if checker.session_id is None:
                raise TranscriptError(
                    "has no complete line; an agentgo session starts with session_start",
                    path=where,
                )
            if os.fstat(fd).st_size != keep:
                os.ftruncate(fd, keep)
                os.fsync(fd)
        except TranscriptError as err:
            os.close(fd)
            from ..formats import of_another_format

            raise of_another_format(where, err, "agentgo-v1", "AgentGoSession.open") from None
        except BaseException:
            os.close(fd)
            raise
        try:
            session = cls(where, fd, checker.session_id, checker.seq + 1)
        except BaseException:  # (the descriptor is not yet the session's)
            os.close(fd)
            raise
        session._checkpoint, session._has_checkpoint = checkpoint, has_checkpoint
        return session

    # -- writing --------------------------------------------------------------------

    def _write(
        self,
        kind: str,
        data: Mapping[str, Any] | None,
        run_id: str | None,
        execution: Mapping[str, Any] | None,
        when: str | None,
        sync: bool = False,
    ) -> int:
        with self._mutex:
            if self._error is not None:
                raise self._error
            if self._closed:
                raise SessionClosedError("the session is closed", path=self.path)
            if when is not None and not _is_utc_time(when):
                raise RefusedAppendError(
                    f"time must be an RFC 3339 UTC time (2026-08-09T13:10:08.5Z); got {when!r}",
                    path=self.path,
                )
            record: dict[str, Any] = {
                "data": dict(data or {}),
                "seq": self._seq,
                "session_id": self.session_id,
                "time": when or rfc3339_now(),
                "type": kind,
            }
            if run_id is not None:
                record["run_id"] = run_id
            if execution is not None:
                record["execution"] = dict(execution)
            try:
                line = orjson.dumps(record, option=_OPTS)
                unwritable = not_finite(record, line)
                if unwritable is not None:
                    raise TypeError(unwritable)
            except (TypeError, orjson.JSONEncodeError) as err:
                self._error = RefusedAppendError(
                    f"a {kind} record could not be encoded ({err}); the session stops recording",
                    path=self.path,
                )
                raise self._error from None
            try:
                why = why_not_append(self._at, self._fd, self._left)
                if why is not None:
                    # Appended, the record would follow another program's bytes, or be lost.
                    self._error = TranscriptError(f"{why}; {_STOPS}", path=self.path)
                    raise self._error
                view = memoryview(line)
                while view:
                    view = view[os.write(self._fd, view) :]
                self._dirty = True
                self._left, alone = wrote_alone(self._fd, self._left, len(line))
                if not alone:
                    # (another program's bytes landed beside the record: the next says so)
                    self._error = TranscriptError(_CHANGED, path=self.path)
                if sync:
                    self._sync()
            except OSError as err:
                self._error = TranscriptError(
                    f"a write failed ({err.strerror}); the session stops recording", path=self.path
                )
                raise self._error from None
            seq = self._seq
            self._seq += 1
            return seq

    def _sync(self) -> None:
        """fsync; a failure becomes the sticky error (the caller holds the mutex)."""
        try:
            os.fsync(self._fd)
        except OSError as err:
            self._error = TranscriptError(
                f"a sync failed ({err.strerror}); the session stops recording", path=self.path
            )
            raise self._error from None
        self._dirty = False

    def begin_run(self) -> AgentGoRun:
        """A fresh run id and its run_start; only one run may be open."""
        with self._mutex:
            if self._error is not None:
                raise self._error
            if self._run is not None and not self._run.closed:
                raise RefusedAppendError(
                    f"run {self._run.run_id} is still open; close it first", path=self.path
                )
            run = AgentGoRun(self, _new_id())
            self._write("run_start", {}, run.run_id, None, None)
            self._run = run
            return run

    def load_checkpoint(self) -> Any:
        """The latest explicit checkpoint's snapshot, or None when there is none."""
        with self._mutex:
            return self._checkpoint if self._has_checkpoint else None

    @property
    def error(self) -> TranscriptError | None:
        return self._error

    def close(self) -> None:
        """Close an open run, sync, release the file. A sticky error is reported here too."""
        with self._mutex:
            if self._closed:
                if self._error is not None:
                    raise self._error
                return
            try:
                if self._run is not None and not self._run.closed and self._error is None:
                    self._run.close()
                if self._error is None and self._dirty:
                    self._sync()
            except TranscriptError:
                pass  # sticky: raised below
            finally:
                self._closed = True
                self._release()
            if self._error is not None:
                raise self._error

    def __enter__(self) -> AgentGoSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AgentGoRun:
    """One loop invocation's recording scope."""

    def __init__(self, session: AgentGoSession, run_id: str) -> None:
        self.session = session
        self.run_id = run_id
        self.closed = False

    def record(
        self,
        type: str,
        data: Mapping[str, Any] | None = None,
        *,
        execution: Mapping[str, Any] | None = None,
        time: str | None = None,
    ) -> int:
        """Append one event of this run; returns its seq. ``time`` is the event's source time."""
        if self.session._error is not None:
            raise self.session._error
        if not isinstance(type, str) or not type:
            raise RefusedAppendError("a record needs a type", path=self.session.path)
        if type in TRANSIENT:
            raise RefusedAppendError(
                f"{type!r} is transient progress; a session never records it",
                path=self.session.path,
            )
        if type in RESERVED:
            raise RefusedAppendError(
                f"{type!r} is written by its own method (begin_run, close, save_checkpoint)",
                path=self.session.path,
            )
        if data is not None and not isinstance(data, Mapping):
            raise RefusedAppendError("data must be an object", path=self.session.path)
        if type == "message_end" and not (data and isinstance(data.get("message"), Mapping)):
            raise RefusedAppendError(
                "message_end records a committed message: its data.message is an object",
                path=self.session.path,
            )
        if type == "model_response" and not (data and isinstance(data.get("recovery"), Mapping)):
            raise RefusedAppendError(
                "model_response is recorded only with a length-recovery decision",
                path=self.session.path,
            )
        if execution is not None or type in NEEDS_EXECUTION:
            _check_execution(execution, type, self.session.path)
        with self.session._mutex:  # (closed and written as one: no record after run_close)
            self._open()
            return self.session._write(type, data, self.run_id, execution, time)

    def _open(self) -> None:
        """Refuse a write to a run closed already (asked under the session's mutex)."""
        if self.closed:
            raise RefusedAppendError("this run is closed", path=self.session.path)

    def save_checkpoint(self, snapshot: Any) -> int:
        """Append an explicit checkpoint and sync it with every record before it.

        ``load_checkpoint`` then returns it as written (a decoded copy, so later
        changes to ``snapshot`` do not reach it).
        """
        with self.session._mutex:
            self._open()
            seq = self.session._write(
                "checkpoint", {"snapshot": snapshot}, self.run_id, None, None, True
            )
            self.session._checkpoint = orjson.loads(orjson.dumps(snapshot))
            self.session._has_checkpoint = True
        return seq

    def close(self) -> int:
        """run_close (the recording scope closed, not proof of success), then sync."""
        with self.session._mutex:  # (one run_close, whichever thread asks first)
            if self.closed:
                raise RefusedAppendError("this run is closed already", path=self.session.path)
            seq = self.session._write("run_close", {}, self.run_id, None, None, True)
            self.closed = True
            return seq


_UTC_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d{1,9})?Z")


def _is_utc_time(when: Any) -> bool:
    """RFC 3339 in UTC (``Z``), as every record's ``time`` is: a real date and time."""
    found = _UTC_TIME.fullmatch(when) if isinstance(when, str) else None
    if found is None:
        return False
    try:
        datetime.strptime(f"{found[1]} {found[2]}", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return False
    return True


def _check_execution(execution: Mapping[str, Any] | None, kind: str, path: str) -> None:
    if execution is None:
        raise RefusedAppendError(f"a {kind} record needs an execution", path=path)
    if (why := execution_said(execution)) is not None:
        raise RefusedAppendError(why, path=path)


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):  # already gone (EBADF): nothing left to release
        os.close(fd)
