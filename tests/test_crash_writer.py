"""A real writer process, SIGKILLed at random moments: every line it said it wrote survives.

The child appends messages, tool operations, compactions and elisions as fast as it
can and prints each envelope id (flushed) only after its ``append_*`` returned. Then
``Session.load`` must succeed and hold every id printed, whatever moment the kill hit.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from session_core import Message, Session, TranscriptError, WriterLockedError

REPO = Path(__file__).resolve().parent.parent

WRITER = r"""
import os, sys
from session_core import Message, Session

path, half_after = sys.argv[1], int(sys.argv[2])
s = Session.create(path, meta={"agent": "crash-test"})

def say(eid):
    sys.stdout.write(eid + "\n")
    sys.stdout.flush()

i = 0
live = []
while True:
    i += 1
    mid = s.append_message(Message(role="user", content=f"turn {i} é€𝄞"))
    say(mid)
    live.append(mid)
    if i % 3 == 0:
        call = {"id": f"c{i}", "type": "function",
                "function": {"name": "fs_read", "arguments": '{"path":"a"}'}}
        say(s.append_message(Message(role="assistant", content="", tool_calls=(call,))))
        op = s.append_tool_dispatched(call_id=f"c{i}", tool="fs_read",
                                      arguments='{"path":"a"}', idempotency="read-only")
        say(op)
        say(s.append_message(Message(role="tool", content="x" * (i % 50), tool_call_id=f"c{i}")))
        if i % 2:
            say(s.append_tool_settled(op_id=op, outcome="completed", duration=0.001))
    if i % 10 == 0:
        say(s.append_compaction(summary=f"summary {i}", replaces_through_id=live[-2]))
        live = s.message_ids()
    if i % 7 == 0:
        say(s.append_elision([{"id": live[-1], "stub": "[stub]"}]))
    if i % 11 == 0:
        say(s.append_event(type="x-tick", payload={"i": i}))
    if half_after and i == half_after:
        # Half a line, by hand, cut inside a multi-byte character: a crash tail.
        with open(path, "ab") as fh:
            fh.write('{"id":"half","payload":{"content":"€'.encode()[:-1])
            fh.flush()
        sys.stdout.write("HALF\n")
        sys.stdout.flush()
        import time
        time.sleep(60)
"""


def start_writer(path: Path, half_after: int = 0) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(half_after)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO,
    )


def read_ids(proc: subprocess.Popen[str], count: int) -> list[str]:
    assert proc.stdout is not None
    ids = []
    while len(ids) < count:
        line = proc.stdout.readline()
        if not line:
            pytest.fail(f"the writer died early (exit {proc.wait()})")
        ids.append(line.strip())
    return ids


def kill_and_drain(proc: subprocess.Popen[str]) -> list[str]:
    """Kill the writer; the ids it printed but we had not read yet.

    Read through the same buffered reader (``communicate`` would read the raw pipe
    and miss what the buffer already holds).
    """
    proc.send_signal(signal.SIGKILL)
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return [line for line in out.splitlines() if line]


@pytest.mark.parametrize("seed", range(10))
def test_sigkill_at_a_random_moment_loses_nothing_it_reported(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    path = tmp_path / "t.jsonl"
    proc = start_writer(path)
    try:
        ids = read_ids(proc, rnd.randint(1, 300))
        time.sleep(rnd.uniform(0, 0.05))
    finally:
        ids += kill_and_drain(proc)
    assert ids
    with Session.load(path) as s:
        events = {e["id"] for e in s.events()}
        missing = [i for i in ids if i not in events]
        assert not missing, f"{len(missing)} of {len(ids)} reported ids are gone"
        # the envelopes are in the order they were reported
        order = [e["id"] for e in s.events() if e["id"] in set(ids)]
        assert order == ids
        assert all(m in events for m in s.message_ids())
        # and the file goes on: an append after the crash loads again
        new = s.append_message(Message(role="user", content="resumed"))
    with Session.load(path) as s:
        assert s.message_ids()[-1] == new


@pytest.mark.parametrize("seed", range(3))
def test_sigkill_after_half_a_line_is_repaired(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(100 + seed)
    path = tmp_path / "t.jsonl"
    proc = start_writer(path, half_after=rnd.randint(1, 40))
    try:
        assert proc.stdout is not None
        ids = []
        for line in proc.stdout:
            if line.strip() == "HALF":
                break
            ids.append(line.strip())
    finally:
        ids += kill_and_drain(proc)
    before = path.read_bytes()
    assert not before.endswith(b"\n")
    with Session.load(path) as s:
        events = {e["id"] for e in s.events()}
        assert all(i in events for i in ids)
        assert "half" not in events
        warnings = s.warnings()
        assert len(warnings) == 1 and "crash tail" in warnings[0]
        lines = before.count(b"\n")
        assert f"line {lines + 1}" in warnings[0]
    after = path.read_bytes()
    assert before.startswith(after) and after.endswith(b"\n")
    assert before[len(after) :].startswith(b'{"id":"half"')


HOLDER = r"""
import sys
from session_core import Message, Session
s = Session.create(sys.argv[1], meta={})
s.append_message(Message(role="user", content="mine"))
print("READY", flush=True)
sys.stdin.readline()
s.append_message(Message(role="user", content="still mine"))
s.close()
print("DONE", flush=True)
"""


def start_holder(path: Path, stderr: int | None = None) -> subprocess.Popen[str]:
    """HOLDER writing ``path`` in another process (its stdin and stdout piped)."""
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        cwd=REPO,
    )


def test_a_second_writer_in_another_process_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    proc = start_holder(path, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().strip() == "READY"
        before = path.read_bytes()
        with pytest.raises(WriterLockedError) as info:
            Session.load(path)
        assert str(path) in str(info.value)
        assert isinstance(info.value, TranscriptError)
        with pytest.raises(TranscriptError):
            Session.create(path, meta={})
        assert path.read_bytes() == before
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "DONE"
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with Session.load(path) as s:
        assert [m.content for m in s.messages()] == ["mine", "still mine"]


def test_the_lock_dies_with_its_process(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    proc = start_holder(path)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "READY"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with Session.load(path) as s:
        assert [m.content for m in s.messages()] == ["mine"]
