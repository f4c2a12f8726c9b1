"""What the tests ported from the reference module share: sessions that are always
closed, fresh paths, reading a file back the way Raku's ``.lines`` does, and
hand-written envelope lines and transcripts (what the API cannot write)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_core import Message, Session, TranscriptError


def file_lines(path: Path) -> list[bytes]:
    """The file's lines as raw bytes, without their terminators (like Raku's ``.lines``)."""
    data = path.read_bytes()
    if not data:
        return []
    parts = data.split(b"\n")
    if parts[-1] == b"":
        parts.pop()
    return [p[:-1] if p.endswith(b"\r") else p for p in parts]


def call(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def written_last(path: Path, env_id: str, kind: str) -> dict[str, Any]:
    """The file's last line, parsed: the envelope just written, whose id (``env_id``,
    a non-empty string, as the append returned it) and type (``kind``) it carries."""
    assert isinstance(env_id, str)
    assert env_id
    line: dict[str, Any] = orjson.loads(file_lines(path)[-1])
    assert line["id"] == env_id
    assert line["type"] == kind
    return line


def reading() -> Message:
    """The assistant's turn that asks for one read (call c1: fs_read of "a")."""
    return Message(
        role="assistant", content="reading", tool_calls=(call("c1", "fs_read", '{"path":"a"}'),)
    )


def assert_names(err: pytest.ExceptionInfo[TranscriptError], path: Path, line: int) -> None:
    text = str(err.value)
    assert str(path) in text, text
    assert f"line {line}" in text, text


def assert_refused(load: Callable[[Path], Session], path: Path, line: int) -> None:
    """Loading the file fails, the error naming the file and ``line``."""
    with pytest.raises(TranscriptError) as err:
        load(path)
    assert_names(err, path, line)


@pytest.fixture
def fresh(tmp_path: Path) -> Callable[[], Path]:
    """A new transcript path on each call."""
    counter = itertools.count()

    def make() -> Path:
        return tmp_path / f"r{next(counter)}.jsonl"

    return make


@pytest.fixture
def opened() -> Iterator[list[Session]]:
    """Every session a test opens is closed afterwards, whatever happened."""
    sessions: list[Session] = []
    yield sessions
    for s in sessions:
        s.close()


@pytest.fixture
def create(fresh: Callable[[], Path], opened: list[Session]) -> Callable[..., tuple[Session, Path]]:
    def make(meta: dict[str, Any] | None = None, path: Path | None = None) -> tuple[Session, Path]:
        target = path if path is not None else fresh()
        s = Session.create(target, meta={} if meta is None else meta)
        opened.append(s)
        return s, target

    return make


@pytest.fixture
def load(opened: list[Session]) -> Callable[[Path], Session]:
    def make(path: Path) -> Session:
        s = Session.load(path)
        opened.append(s)
        return s

    return make


def role_content(s: Session) -> list[str]:
    return [f"{m.role}:{m.content}" for m in s.messages()]


def user(content: str) -> Message:
    return Message(role="user", content=content)


# --- hand-written lines ---------------------------------------------------------------

_auto_ids = itertools.count()


def envelope(type_: str, payload: Any, *, id: str | None = None, v: Any = 1) -> str:
    """One hand-written envelope line (no terminator), sorted keys, compact."""
    env = {
        "v": v,
        "type": type_,
        "id": id if id is not None else f"id-{next(_auto_ids)}",
        "ts": "2026-08-09T12:00:00.000000Z",
        "payload": payload,
    }
    return orjson.dumps(env, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def meta_line() -> str:
    """An empty session-meta line."""
    return envelope("session-meta", {})


def hello_line(**kw: Any) -> str:
    """A user's message line: "hello"."""
    return envelope("message", {"role": "user", "content": "hello"}, **kw)


@pytest.fixture
def raw_transcript(fresh):
    """A transcript written straight to disk: the API cannot produce a broken one.

    ``eol=False`` leaves the final separator off (what a crash mid-write leaves);
    ``nl`` picks the line ending.
    """

    def make(lines: list[str], *, nl: str = "\n", eol: bool = True) -> Path:
        path = fresh()
        path.write_bytes((nl.join(lines) + (nl if eol else "")).encode("utf-8"))
        return path

    return make
