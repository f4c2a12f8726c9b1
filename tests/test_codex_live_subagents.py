"""A followed Codex rollout with its subagents' rollouts (``CodexLive``, a ``LinkedLive``):
linked once the file has caught up, as a whole open links them; a child read again only
when it changed; the spawning call linked on every snapshot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from codex_helpers import CHILD, family
from codex_writer import SESSION, RolloutWriter
from helpers import follow_into

from session_core.export import export
from session_core.following import FollowUpdate
from session_core.formats import by_name
from session_core.formats.codex import CodexLive
from session_core.formats.codex.ops import OpColumn
from session_core.model import Transcript
from session_core.tool_ops import ToolOp

CODEX = by_name("codex")


def followed(path: Path) -> tuple[CodexLive, list[Transcript]]:
    live = CODEX.live(str(path))
    assert isinstance(live, CodexLive)
    seen: list[Transcript] = []

    def apply(update: FollowUpdate) -> None:
        live.apply(update)
        seen.append(live.transcript(writer_alive=False))

    follow_into(apply, path, 256, parse=False)
    return live, seen


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths Codex's reader reads from now on, in order (the reader still reads)."""
    reads: list[str] = []
    real = type(CODEX).read

    def counted(self: object, path: str, **kw: object) -> Transcript:
        reads.append(os.fspath(path))
        return real(self, path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(type(CODEX), "read", counted)
    return reads


def test_linked_once_caught_up_as_an_open_links_them(tmp_path: Path) -> None:
    parent, child = family(tmp_path)
    live, seen = followed(parent)
    assert len(seen) > 2 and not seen[0].subagents
    whole = CODEX.open(parent, writer_alive=False)
    last = live.transcript(writer_alive=False)
    assert [(s.id, s.path, s.call_id, s.usage) for s in last.subagents] == [
        (s.id, s.path, s.call_id, s.usage) for s in whole.subagents
    ]
    assert last.usage_with_subagents == whole.usage_with_subagents
    op = last.op_for_call("sp1")
    assert op is not None and op.subagent == str(child)


def test_a_child_is_read_again_only_when_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent, child = family(tmp_path)
    live, _ = followed(parent)
    monkeypatch.setattr(CodexLive, "REFRESH", 0.0)
    reads = counted_reads(monkeypatch)
    live.transcript(writer_alive=True)
    assert reads == []  # unchanged: the usage read before is kept
    more = RolloutWriter.__new__(RolloutWriter)  # append to the child as its writer would
    more.path, more.crlf, more.line, more.clock = str(child), False, 0, 100

    more.token_count((900, 100, 30, 0), (100, 0, 10, 0))  # (its new response)
    t = live.transcript(writer_alive=True)
    assert reads == [str(child)]
    (sub,) = t.subagents
    assert sub.usage.input_tokens == 800  # the child's new total (cached input apart)
    op = t.op_for_call("sp1")
    assert op is not None and op.subagent == str(child)


def test_linking_makes_only_the_calls_that_may_spawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent, child = family(tmp_path, others=5)
    made: list[str] = []
    real = OpColumn.make

    def counted(self: OpColumn, at: int) -> ToolOp:
        op = real(self, at)
        made.append(op.tool)
        return op

    monkeypatch.setattr(OpColumn, "make", counted)
    live, _ = followed(parent)
    assert made == ["spawn_agent"]  # the shell calls are not made to be looked at
    t = live.transcript(writer_alive=False)
    op = t.op_for_call("sp1")
    assert op is not None and op.subagent == str(child)
    assert len(t.tool_operations) == 6 and t.tool_operations[0].subagent is None


def test_read_ahead_reads_the_children_outside_the_lock_and_the_link_reads_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    parent, child = family(tmp_path)
    live = CODEX.live(str(parent))
    assert isinstance(live, CodexLive)
    lock = threading.RLock()
    reads: list[tuple[str, bool]] = []
    real = type(CODEX).read

    def counted(self: object, path: str, **kw: object) -> Transcript:
        reads.append((os.fspath(path), lock._is_owned()))  # type: ignore[attr-defined]
        return real(self, path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(type(CODEX), "read", counted)

    def apply(update: FollowUpdate) -> None:
        with lock:
            live.apply(update)
        live.read_ahead(update, lock)

    follow_into(apply, parent, 256, parse=False)
    assert reads == [(str(child), False)]  # read once, without the lock
    linked = live.transcript(writer_alive=False)
    assert len(reads) == 1  # the link found it read
    whole = CODEX.open(parent, writer_alive=False)
    assert [(s.id, s.usage, s.messages) for s in linked.subagents] == [
        (s.id, s.usage, s.messages) for s in whole.subagents
    ]


def test_a_child_over_the_bound_is_listed_not_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its usage is not read: the total with subagents says it counts none of them."""
    import session_core.formats.codex as codex

    parent, _child = family(tmp_path)
    (read,) = CODEX.open(parent).subagents
    assert read.counted and read.to_json()["usage-counted"] is True
    monkeypatch.setattr(codex, "SUBAGENT_LIMIT", 10)
    t = CODEX.open(parent)
    (sub,) = t.subagents
    assert not sub.counted and sub.usage.reported == 0
    assert t.subagents_text() == "0 of 1 subagent"


def test_a_child_that_reported_no_usage_is_read_not_counted(tmp_path: Path) -> None:
    """A child whose ``token_count`` info is null: its messages are read, its usage is
    unknown (one response that said none: not "0 of 0"), and the total with subagents
    says it leaves that child out, as it says of a child not read."""
    parent, child = family(tmp_path, usage=(900, 0, 100, 0))
    w = RolloutWriter(child)  # (the child again, its report without usage)
    spawn = {"parent_thread_id": SESSION, "depth": 1, "agent_nickname": "amy"}
    w.session_meta(CHILD, source={"subagent": {"thread_spawn": spawn}})
    w.task_started("s1")
    w.turn_context("s1")
    w.message("user", "look around")
    w.token_count(None)  # (rate limits, before the request's output: no response)
    w.message("assistant", "found it")
    w.token_count(None)
    w.token_count(None)  # (as Codex writes each report: twice)
    w.task_complete("s1")
    t = CODEX.open(parent, writer_alive=False)
    (sub,) = t.subagents
    assert sub.read and not sub.counted
    assert (sub.usage.reported, sub.usage.responses, sub.usage.tokens) == (0, 1, None)
    said = sub.to_json()
    assert said["usage-counted"] is False and said["messages"] == 2
    # (said one way, the header's, in the export and the browser: never "with 0 of 1")
    assert t.with_subagents_text() == "1 subagent, its usage unknown"
    md = export(parent, "md")
    assert f"| subagent {CHILD} | 0 of 1 | unknown |" in md
    assert "| with 1 subagent, its usage unknown | 1 of at least 2 | at least 1,000 tok" in md
    assert "0 of 1 subagent" not in md


def _aged(path: Path) -> None:
    """``path``'s folders with an mtime of an hour ago (a folder changed a moment ago is
    looked at as changed: its mtime is coarse)."""
    import time

    for folder in list(path.parents)[:4]:
        past = time.time() - 3600
        os.utime(folder, (past, past))


def test_a_child_that_comes_or_grows_while_the_parent_is_quiet_makes_a_snapshot_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parent waiting on its subagent writes nothing meanwhile: the child's rollout
    coming, then growing, makes a snapshot due (a stat of the folders and of the child,
    nothing read), and that snapshot links it as it is now."""
    parent, child = family(tmp_path)
    body = child.read_bytes()
    child.unlink()
    _aged(parent)
    live, _ = followed(parent)
    monkeypatch.setattr(CodexLive, "REFRESH", 0.0)
    assert live.transcript(writer_alive=True).subagents == []
    reads = counted_reads(monkeypatch)
    assert not live.snapshot_due() and not live.snapshot_due()  # (nothing changed)
    child.write_bytes(body)  # the child comes
    assert live.snapshot_due()
    (sub,) = live.transcript(writer_alive=True).subagents
    assert sub.path == str(child) and sub.usage.input_tokens == 200 and reads == [str(child)]
    assert live.snapshot_due()  # (its folder changed a moment ago: its mtime is coarse)
    _aged(child)
    live.transcript(writer_alive=True)
    assert not live.snapshot_due()
    more = RolloutWriter.__new__(RolloutWriter)  # the child goes on
    more.path, more.crlf, more.line, more.clock = str(child), False, 0, 100
    more.token_count((900, 100, 30, 0), (100, 0, 10, 0))
    assert live.snapshot_due()
    (sub,) = live.transcript(writer_alive=True).subagents
    assert sub.usage.input_tokens == 800 and reads == [str(child)] * 2
