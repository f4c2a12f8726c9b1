"""``Session``: the one writer of a v1 transcript (create, load, append, read)."""

from __future__ import annotations

import contextlib
import copy
import math
import os
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

import orjson

from .codec import WHITE_SPACE, dump_line, new_id, not_finite, now_ts
from .errors import (
    RefusedAppendError,
    ReplayError,
    SessionClosedError,
    TranscriptError,
)
from .events import (
    CHANGED_UNDER_WRITER,
    Identity,
    file_identity,
    where_written,
    why_not_append,
    wrote_alone,
)
from .indexing import field_said
from .locking import create_locked, freed_when_dropped, open_locked, remove_made
from .message import Message
from .reader import empty_path, missing_file, replay_file
from .reader import path_of as _path
from .repair import repair_path, repair_tail
from .replay import KNOWN_TYPES, TOOL_OUTCOMES, ReplayState

PathLike = str | os.PathLike[str]


def _os_error(path: str, err: OSError, doing: str) -> TranscriptError:
    return TranscriptError(f"cannot {doing}: {err.strerror or err}", path=path)


class Session:
    """A transcript opened for appending. Thread-safe; one per file.

    Build one with ``Session.create`` or ``Session.load``.
    """

    def __init__(self, path: str, state: ReplayState, lock_fd: int, append_fd: int) -> None:
        self._path = path
        self._at = where_written(path)  # (checked on every append: still this file?)
        self._state = state
        self._fd = append_fd
        self._closed = False
        self._broken: str | None = None
        self._mutex = threading.RLock()
        # A line is read again from the file by its span: only while the file is as
        # this session left it, else the session refuses rather than hand back new bytes.
        # (Told through a weak reference: a session the state held would be freed only
        # by the cycle collector, its writer lock held until then.)
        lines = weakref.ref(state)

        def refuse(index: int) -> NoReturn:
            _changed_on_disk(path, lines(), index)

        state.events.refuse_changed = refuse
        self._pin(file_identity(append_fd))
        # Closed by ``close``, or when the session is dropped unclosed (nothing written);
        # unlocked, the file may grow by another writer's appends: that is no change to
        # the lines this session read. Registered last: until it is, the descriptors
        # are the caller's to close (one closed twice may by then be another file's).
        source = state.events.source
        self._release = freed_when_dropped(
            self,
            (lock_fd,) if append_fd == lock_fd else (append_fd, lock_fd),
            None if source is None else source.unpin,
        )

    def _pin(self, left: Identity) -> None:
        """Take the file as ``left`` (as it is now) as the file this session appends to:
        created or loaded, it appends only while no other program has written to it since."""
        self._left = left
        if self._state.events.source is not None:
            self._state.events.source.pin()

    # -- opening ----------------------------------------------------------

    @classmethod
    def create(cls, path: PathLike, meta: Mapping[str, Any] | None = None) -> Session:
        """A new transcript at ``path`` (which must be missing or empty), meta line written."""
        where = _path(path)
        if meta is not None and not isinstance(meta, Mapping):
            raise RefusedAppendError("meta must be a mapping (an object)", path=where)
        fd, made = create_locked(where, "transcript")
        session: Session | None = None
        try:
            if os.fstat(fd).st_size > 0:
                raise RefusedAppendError(
                    "already has content; a transcript is append-only, so load it to "
                    "continue (or pick another path)",
                    path=where,
                )
            session = cls(where, ReplayState(where), fd, fd)
            session._append("session-meta", dict(meta or {}))
        except BaseException:
            if made:
                remove_made(fd, where)
            if session is None:
                os.close(fd)
            else:
                session.close()
            raise
        return session

    @classmethod
    def load(cls, path: PathLike) -> Session:
        """Continue an existing transcript: lock, repair a crash tail, replay, open to append."""
        where = _path(path)
        if not where:
            raise empty_path()
        if not os.path.isfile(where):
            if os.path.exists(where):
                raise TranscriptError("is not a regular file, so not a transcript", path=where)
            raise TranscriptError(missing_file(where), path=where)
        # Opened to write before anything is repaired: a load refused (a read-only
        # file) must leave the file as it was, its crash tail too.
        lock_fd = open_locked(where, os.O_RDWR)
        try:
            stale = repair_path(where)
            if os.path.lexists(stale):
                os.unlink(stale)
            lock_fd, warnings = repair_tail(where, lock_fd)
            state = replay_file(where, tolerate_tail=False)
            state.warnings[:0] = warnings
            append_fd = os.open(where, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        except OSError as err:
            os.close(lock_fd)
            raise _os_error(where, err, "load the transcript") from None
        except TranscriptError as err:
            os.close(lock_fd)
            from .formats import of_another_format

            raise of_another_format(where, err, "transcript-v1", "Session.load") from None
        except BaseException:
            os.close(lock_fd)
            raise
        try:
            return cls(where, state, lock_fd, append_fd)
        except BaseException:  # (the descriptors are not yet the session's)
            os.close(append_fd)
            os.close(lock_fd)
            raise

    # -- writing ----------------------------------------------------------

    def _append(self, kind: str, payload: dict[str, Any], eid: str | None = None) -> str:
        envelope = {
            "id": eid or new_id(),
            "payload": payload,
            "ts": now_ts(),
            "type": kind,
            "v": 1,
        }
        try:
            line = dump_line(envelope)
        except (TypeError, orjson.JSONEncodeError) as err:
            raise RefusedAppendError(
                f"cannot encode the {kind} line: {err}", path=self._path
            ) from None
        unwritable = not_finite(payload, line)
        if unwritable is not None:
            raise RefusedAppendError(
                f"cannot encode the {kind} line: {unwritable}", path=self._path
            )
        # What is kept in memory is exactly what the file says.
        stored = orjson.loads(line)
        with self._mutex:
            if self._closed:
                raise SessionClosedError("the session is closed", path=self._path)
            if self._broken is not None:
                raise TranscriptError(self._broken, path=self._path)
            try:
                why = why_not_append(self._at, self._fd, self._left)
            except OSError as err:
                raise _os_error(self._path, err, "append to the transcript") from None
            if why is not None:  # (appended, the line would follow another program's bytes,
                raise TranscriptError(f"{why}; {LOAD_AGAIN}", path=self._path)  # or be lost)
            try:
                self._state.check(stored)
            except ReplayError as err:
                raise RefusedAppendError(err.reason, path=self._path) from None
            self._write(line)
            left, alone = wrote_alone(self._fd, self._left, len(line))
            self._pin(left)
            if not alone:  # (another program's bytes landed beside the line: said next)
                self._broken = CHANGED_ON_DISK
            self._state.feed(stored)
        return str(envelope["id"])

    def _write(self, line: bytes) -> None:
        view = memoryview(line)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except OSError as err:
            if len(view) != len(line):
                # Half a line is on disk: appending after it would bury the next line
                # inside it. Only a load (which repairs the tail) can go on from here.
                self._broken = "a write failed part-way; load the transcript again to repair it"
            else:
                self._pin_unwritten()
            raise _os_error(self._path, err, "append to the transcript") from None

    def _pin_unwritten(self) -> None:
        """A write that failed having written nothing (a full disk) still changes the
        file's modification time: the file as it is now is this session's again where it
        is the one it left, as long (else another program wrote: the next append says
        so)."""
        with contextlib.suppress(OSError):
            left, alone = wrote_alone(self._fd, self._left, 0)
            if alone:
                self._pin(left)

    def append_message(self, message: Message, extra: Mapping[str, Any] | None = None) -> str:
        self._need(isinstance(message, Message), "message must be a Message")
        self._need(extra is None or isinstance(extra, Mapping), "extra must be a mapping")
        # The spec's types (a replay would make another type what the reference makes of
        # it, so the file would not say what was appended: ``role`` null read "user").
        self._need(isinstance(message.role, str), "a message's role must be a string")
        self._need(isinstance(message.content, str), "a message's content must be a string")
        self._need(
            message.tool_call_id is None or isinstance(message.tool_call_id, str),
            "a message's tool_call_id must be a string",
        )
        self._need(message.depth is None or _is_int(message.depth), "depth must be an integer")
        self._need(
            isinstance(message.sticky, bool) and isinstance(message.sysprompt, bool),
            "sticky and sysprompt must be true or false",
        )
        calls = message.tool_calls
        self._need(
            calls is None  # (none, as an empty tuple)
            or (
                isinstance(calls, Sequence)
                and not isinstance(calls, str | bytes)
                and all(isinstance(call, Mapping) for call in calls)
            ),
            "a message's tool_calls must be a list of mappings",
        )
        for call in calls or ():  # (the spec's shape: a replay read a call of no id as "")
            function = call.get("function")
            self._need(
                isinstance(call.get("id"), str)
                and bool(call["id"])
                and call.get("type", "function") == "function"
                and isinstance(function, Mapping)
                and isinstance(function.get("name"), str)
                and bool(function["name"])
                and isinstance(function.get("arguments"), str),
                "a tool call is {id, type: function, function: {name, arguments}}, "
                "its id and name strings, its arguments a JSON string",
            )
        payload = dict(extra or {})
        payload.update(message.to_payload())  # a message key always wins over an extra
        return self._append("message", payload)

    def append_grants(self, grants: Iterable[Any]) -> str:
        self._need(
            isinstance(grants, Iterable) and not isinstance(grants, str | bytes | Mapping),
            "grants must be a list",
        )
        return self._append("grants", {"grants": list(grants)})

    def _need(self, holds: bool, why: str) -> None:
        """Refuse an append whose arguments are not of the types the format needs."""
        if not holds:
            raise RefusedAppendError(why, path=self._path)

    def append_compaction(
        self,
        summary: str,
        replaces_through_id: str,
        tokens_before: int | None = None,
        tokens_after: int | None = None,
        fallback: bool = False,
    ) -> str:
        self._need(isinstance(summary, str), "a compaction's summary must be a string")
        self._need(isinstance(replaces_through_id, str), "replaces_through_id must be an id")
        for name, value in (("tokens_before", tokens_before), ("tokens_after", tokens_after)):
            self._need(value is None or _is_int(value), f"{name} must be an integer")
        # (None is the default, as the reference's Bool parameter takes Nil; "no" is not false)
        self._need(fallback is None or isinstance(fallback, bool), "fallback must be true or false")
        payload: dict[str, Any] = {
            "summary": summary,
            "replaces-through-id": replaces_through_id,
            "fallback": bool(fallback),
        }
        if tokens_before is not None:
            payload["tokens-before"] = tokens_before
        if tokens_after is not None:
            payload["tokens-after"] = tokens_after
        return self._append("compaction", payload)

    def append_elision(self, items: Sequence[Mapping[str, Any]]) -> str:
        self._need(
            isinstance(items, Sequence) and not isinstance(items, str | bytes),
            "an elision's items must be a list of {id, stub} mappings",
        )
        if not items:
            raise RefusedAppendError(
                "an elision needs at least one item (one that stubs nothing changes nothing)",
                path=self._path,
            )
        rows = []
        for position, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise RefusedAppendError(
                    f"elision item {position} is not an {{id, stub}} mapping", path=self._path
                )
            ident, stub = item.get("id"), item.get("stub")
            # (a replay refuses an item without string id and stub: refused before it is
            # written, not made one by ``str``, as ``""`` or ``"3"``)
            self._need(
                isinstance(ident, str) and isinstance(stub, str),
                f"elision item {position} needs a string id and a string stub",
            )
            rows.append({"id": ident, "stub": stub})
        return self._append("elision", {"items": rows})

    def append_tool_dispatched(
        self,
        call_id: str,
        tool: str,
        arguments: str | Mapping[str, Any] | None,
        arguments_digest: str | None = None,
        idempotency: str | None = None,
        run_id: str | None = None,
        round: int | None = None,
    ) -> str:
        self._need(isinstance(call_id, str) and bool(call_id), "a dispatch needs a call id")
        self._need(isinstance(tool, str) and bool(tool), "a dispatch needs a tool name")
        self._need(
            arguments is None or isinstance(arguments, str | Mapping),
            "arguments must be a string or a mapping",
        )
        self._need(round is None or _is_int(round), "round must be an integer")
        payload: dict[str, Any] = {
            "call-id": call_id,
            "tool": tool,
            "arguments": dict(arguments) if isinstance(arguments, Mapping) else (arguments or ""),
        }
        for key, value in (
            ("arguments-digest", arguments_digest),
            ("idempotency", idempotency),
            ("run-id", run_id),
            ("round", round),
        ):
            if value is not None:
                payload[key] = value
        return self._append("tool-dispatched", payload)

    def append_tool_settled(
        self,
        op_id: str,
        outcome: str,
        reason: str | None = None,
        duration: float | None = None,
        result_digest: str | None = None,
        artifact: Mapping[str, Any] | None = None,
        error: str | None = None,
    ) -> str:
        if outcome not in TOOL_OUTCOMES:
            raise RefusedAppendError(
                f"outcome must be one of {', '.join(TOOL_OUTCOMES)}; got {outcome!r}",
                path=self._path,
            )
        self._need(isinstance(op_id, str), "op_id must be an operation's id")
        self._need(
            duration is None
            or (
                isinstance(duration, int | float)
                and not isinstance(duration, bool)
                and abs(duration) < 1e300  # (not NaN nor infinite, nor made so in µs)
            ),
            "duration must be a (finite) number of seconds",
        )
        for name, value in (("reason", reason), ("result_digest", result_digest), ("error", error)):
            self._need(value is None or isinstance(value, str), f"{name} must be a string")
        self._need(artifact is None or isinstance(artifact, Mapping), "artifact must be a mapping")
        payload: dict[str, Any] = {"op-id": op_id, "outcome": outcome}
        if reason is not None:
            payload["reason"] = reason
        if result_digest is not None:
            payload["result-digest"] = result_digest
        if error is not None:
            payload["error"] = error
        if artifact:
            payload["artifact"] = dict(artifact)
        if duration is not None:
            payload["duration"] = _seconds(duration)
        return self._append("tool-settled", payload)

    def resolve_tool_operation(self, op_id: str, outcome: str, reason: str | None = None) -> str:
        return self.append_tool_settled(op_id=op_id, outcome=outcome, reason=reason)

    def append_run_context(
        self,
        run_id: str,
        digest: str,
        facts: Iterable[Sequence[Any]] = (),
        sections: Iterable[Mapping[str, Any]] = (),
    ) -> str:
        if not isinstance(run_id, str) or not run_id.strip(WHITE_SPACE):
            raise RefusedAppendError("a run context needs a run-id", path=self._path)
        if not isinstance(digest, str) or not digest.strip(WHITE_SPACE):
            raise RefusedAppendError("a run context needs a digest", path=self._path)
        for name, listed in (("facts", facts), ("sections", sections)):
            self._need(
                isinstance(listed, Iterable) and not isinstance(listed, str | bytes | Mapping),
                f"{name} must be a list",
            )
        rows = []
        for index, fact in enumerate(facts):
            if isinstance(fact, str | bytes) or not isinstance(fact, Sequence) or len(fact) != 2:
                raise RefusedAppendError(
                    f"fact {index} is not a (key, value) pair: the order of facts is part "
                    "of what was rendered",
                    path=self._path,
                )
            rows.append([str(fact[0]), "" if fact[1] is None else str(fact[1])])
        records = []
        for index, section in enumerate(sections):
            if not isinstance(section, Mapping):
                raise RefusedAppendError(
                    f"section {index} is not a {{name, digest, rendered}} mapping", path=self._path
                )
            for key in ("name", "digest", "rendered"):
                value = section.get(key)
                if not isinstance(value, str) or (
                    key != "rendered" and not value.strip(WHITE_SPACE)
                ):
                    want = "a string" if key == "rendered" else "a non-blank string"
                    said = field_said(section, key, want)
                    raise RefusedAppendError(f"section {index} has {said}", path=self._path)
            records.append(section)
        eid = new_id()
        with self._mutex:
            carried: dict[str, str] = {}
            out = []
            for section in records:
                sdigest = section["digest"]
                carrier = self._state.section_carrier(sdigest) or carried.get(sdigest)
                if carrier is not None:
                    out.append({"name": section["name"], "digest": sdigest, "rendered-in": carrier})
                else:
                    out.append(
                        {
                            "name": section["name"],
                            "digest": sdigest,
                            "rendered": section["rendered"],
                        }
                    )
                    carried[sdigest] = eid
            payload = {"run-id": run_id, "digest": digest, "facts": rows, "sections": out}
            return self._append("run-context", payload, eid)

    def append_event(self, type: str, payload: Mapping[str, Any] | None = None) -> str:
        if not isinstance(type, str) or not type.strip(WHITE_SPACE):
            raise RefusedAppendError("an event needs a type", path=self._path)
        if type in KNOWN_TYPES:
            raise RefusedAppendError(
                f"{type!r} is a built-in type; use its append_* method", path=self._path
            )
        self._need(payload is None or isinstance(payload, Mapping), "payload must be a mapping")
        return self._append(type, dict(payload or {}))

    def close(self) -> None:
        with self._mutex:
            if self._closed:
                return
            self._closed = True
            self._release()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ----------------------------------------------------------

    @property
    def path(self) -> str:
        return self._path

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def state(self) -> ReplayState:
        """The live replay state (read-only by convention; the readers below copy)."""
        return self._state

    def messages(self) -> list[Message]:
        with self._mutex:
            return self._state.messages()

    def message_ids(self) -> list[str]:
        with self._mutex:
            return self._state.message_ids()

    def meta(self) -> dict[str, Any]:
        with self._mutex:
            return copy.deepcopy(self._state.meta)

    def grants(self) -> list[Any]:
        with self._mutex:
            return copy.deepcopy(self._state.grants)

    def events(self) -> list[dict[str, Any]]:
        with self._mutex:
            return copy.deepcopy(list(self._state.events))

    def warnings(self) -> list[str]:
        with self._mutex:
            return list(self._state.warnings)

    def pending_tool_operations(self) -> list[dict[str, Any]]:
        with self._mutex:
            return self._state.pending_tool_operations()

    def tool_operations(self) -> list[dict[str, Any]]:
        with self._mutex:
            return [copy.deepcopy(op) for op in self._state.tool_ops]

    def run_contexts(self) -> list[dict[str, Any]]:
        with self._mutex:
            return [copy.deepcopy(rc) for rc in self._state.run_contexts]

    def last_run_context(self) -> dict[str, Any]:
        with self._mutex:
            contexts = self._state.run_contexts
            return copy.deepcopy(contexts[-1]) if contexts else {}

    def run_context_section(self, digest: str) -> str | None:
        with self._mutex:
            return self._state.run_context_section(digest)

    def __len__(self) -> int:
        with self._mutex:
            return len(self._state.events)

    def __repr__(self) -> str:
        closed = ", closed" if self._closed else ""
        return (
            f"<Session {self._path} {len(self)} lines, {len(self._state.entries)} messages{closed}>"
        )


LOAD_AGAIN = "load the transcript again"
CHANGED_ON_DISK = f"{CHANGED_UNDER_WRITER}; {LOAD_AGAIN}"


def _changed_on_disk(path: str, state: ReplayState | None, index: int | None) -> NoReturn:
    raise TranscriptError(
        ("could not be read again: " if index is not None else "") + CHANGED_ON_DISK,
        path=path,
        line=None if index is None or state is None else int(state.event_lines[index]),
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seconds(duration: float) -> float | orjson.Fragment:
    """A settle's duration to the microsecond, half up, as the reference rounds it, and
    written as its JSON writer writes that decimal: ``0.000003``, where orjson would
    write ``3e-06``'s shortest form, ``3e-6`` (below 0.0001; above, the two agree)."""
    value = math.floor(float(duration) * 1e6 + 0.5) / 1e6
    if value and abs(value) < 1e-4:
        return orjson.Fragment(f"{value:.6f}".rstrip("0").encode())
    return value
