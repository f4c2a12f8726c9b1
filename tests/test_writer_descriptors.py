"""A writer that fails to be built (its first look at the file it opened fails) closes
each descriptor it opened once, and frees the file: its drop finalizer is registered
last (before, a half-built session's finalizer closed again, at its collection, a
descriptor the failed create had closed: by then, maybe another file's)."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest
from test_writer_refusals import written

from session_core import Session
from session_core.agentgo import AgentGoSession


def _closes_of_opened(
    monkeypatch: pytest.MonkeyPatch, module: Any, opener: str
) -> tuple[list[int], list[int]]:
    """The descriptors ``module.opener`` gives, and every ``os.close`` of any of them;
    ``module.file_identity`` (the writer's first look at the file it opened) fails once."""
    opened: list[int] = []
    closed: list[int] = []
    real_open, real_close = getattr(module, opener), os.close

    def opening(*args: Any) -> Any:
        got = real_open(*args)
        opened.append(got[0] if isinstance(got, tuple) else got)
        return got

    def closing(fd: int) -> None:
        if fd in opened:
            closed.append(fd)
        real_close(fd)

    calls: list[int] = []
    real_identity = module.file_identity

    def identity(fd: int) -> Any:
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(5, "Input/output error")
        return real_identity(fd)

    monkeypatch.setattr(module, opener, opening)
    monkeypatch.setattr(os, "close", closing)
    monkeypatch.setattr(module, "file_identity", identity)
    return opened, closed


@pytest.mark.parametrize("writer", ["v1", "agentgo"])
def test_a_create_that_fails_being_built_closes_its_descriptor_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    """The drop finalizer is registered last: a failure before it (the file's first
    fstat) left the half-built session's finalizer to close again, at its collection,
    the descriptor the failed create had closed (by then, maybe another file's)."""
    import session_core.agentgo.writer as agentgo_writer
    import session_core.session as v1_session

    module = v1_session if writer == "v1" else agentgo_writer
    opened, closed = _closes_of_opened(monkeypatch, module, "create_locked")
    path = tmp_path / "t.jsonl"
    with pytest.raises(OSError, match="Input/output error"):
        Session.create(path) if writer == "v1" else AgentGoSession.create(path)
    gc.collect()
    assert len(opened) == 1
    assert closed == opened  # (once)


@pytest.mark.parametrize("writer", ["v1", "agentgo"])
def test_a_load_that_fails_being_built_closes_its_descriptors_and_frees_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    import session_core.agentgo.writer as agentgo_writer
    import session_core.session as v1_session

    path = tmp_path / "t.jsonl"
    if writer == "v1":
        written(path)
    else:
        AgentGoSession.create(path).close()
    module = v1_session if writer == "v1" else agentgo_writer
    held = len(os.listdir("/proc/self/fd"))
    opened, closed = _closes_of_opened(monkeypatch, module, "open_locked")
    with pytest.raises(OSError, match="Input/output error"):
        Session.load(path) if writer == "v1" else AgentGoSession.open(path)
    gc.collect()
    assert closed == opened == opened[:1]  # (the lock's, once)
    assert len(os.listdir("/proc/self/fd")) == held  # (v1's appending one too)
    monkeypatch.undo()
    (Session.load(path) if writer == "v1" else AgentGoSession.open(path)).close()
