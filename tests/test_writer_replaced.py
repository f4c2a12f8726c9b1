"""A writer whose file is renamed over (an editor's save), moved away or removed refuses
its next append, naming the file: it went on writing into the old inode, which no name
reaches, and every later line was lost without a word (its descriptor's inode never
changes, so ``file_identity`` alone could not see it)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from session_core import Message, Session, TranscriptError
from session_core.agentgo import AgentGoSession

REPLACED = "was replaced or removed since this session last read or wrote it"


def editor_save(path: Path) -> None:
    """Same bytes, another inode: written beside, then renamed over it."""
    beside = path.with_suffix(".tmp")
    beside.write_bytes(path.read_bytes())
    os.replace(beside, path)


def moved_away(path: Path) -> None:
    path.rename(path.with_suffix(".old"))


def removed(path: Path) -> None:
    path.unlink()


CHANGES: dict[str, Callable[[Path], None]] = {
    "editor-save": editor_save,
    "mv": moved_away,
    "rm": removed,
}


def v1_loaded(path: Path) -> Callable[[], Any]:
    with Session.create(path, meta={"agent": "replaced"}) as made:
        made.append_message(Message(role="user", content="before"))
    session = Session.load(path)
    return lambda: session.append_message(Message(role="user", content="after"))


def v1_created(path: Path) -> Callable[[], Any]:
    session = Session.create(path, meta={"agent": "replaced"})
    return lambda: session.append_message(Message(role="user", content="after"))


def agentgo_created(path: Path) -> Callable[[], Any]:
    run = AgentGoSession.create(path).begin_run()
    return lambda: run.record("note", {"text": "after"})


def agentgo_opened(path: Path) -> Callable[[], Any]:
    AgentGoSession.create(path).close()
    run = AgentGoSession.open(path).begin_run()
    return lambda: run.record("note", {"text": "after"})


WRITERS: dict[str, Callable[[Path], Callable[[], Any]]] = {
    "v1-loaded": v1_loaded,
    "v1-created": v1_created,
    "agentgo-created": agentgo_created,
    "agentgo-opened": agentgo_opened,
}


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_whose_file_was_replaced_or_removed_refuses(
    writer: str, change: str, tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    append = WRITERS[writer](path)
    CHANGES[change](path)
    there = path.read_bytes() if path.exists() else None
    with pytest.raises(TranscriptError, match=REPLACED) as caught:
        append()
    assert caught.value.path == str(path)
    assert (path.read_bytes() if path.exists() else None) == there  # (nothing written)
    with pytest.raises(TranscriptError, match=REPLACED):  # (and so is the next)
        append()


def test_both_writers_say_a_replaced_file_in_one_wording(tmp_path: Path) -> None:
    said = set()
    for name in ("v1-created", "agentgo-created"):
        path = tmp_path / f"{name}.jsonl"
        append = WRITERS[name](path)
        editor_save(path)
        with pytest.raises(TranscriptError) as caught:
            append()
        said.add(caught.value.reason.split(";")[0])
    assert len(said) == 1 and REPLACED in said.pop()


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_opened_by_a_relative_path_appends_after_a_chdir(
    writer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path is looked at as it was opened: a ``chdir`` makes no other file of it."""
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path)
    append = WRITERS[writer](Path("t.jsonl"))
    os.chdir("elsewhere")
    append()
    assert b'"after"' in (tmp_path / "t.jsonl").read_bytes()


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_whose_folder_cannot_be_searched_a_moment_appends_on(
    writer: str, tmp_path: Path
) -> None:
    """A folder made unsearchable (mode 600) hides whether the path still leads to the
    file: that tells nothing of the file held, which is written (agentgo's writer said "a
    write failed" and stopped for good, v1's refused the append), then and after."""
    from helpers import file_permissions_apply

    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "t.jsonl"
    append = WRITERS[writer](path)
    with file_permissions_apply():
        folder.chmod(0o600)
        try:
            append()
        finally:
            folder.chmod(0o755)
    append()
    assert path.read_bytes().count(b'"after"') == 2
