"""The two places tailscope writes a file it did not create from nothing, both atomic.

- The crash repair (``Session.load`` of a file with a crash tail) copies what it keeps into
  ``<file>.repair`` and renames it over the transcript: a new inode with the old
  permissions, and a crash before the rename leaves the original exactly as it was.
- ``tailscope export -o`` writes a temporary file beside the target and renames it over:
  the target's inode changes, and a failure mid-write leaves the old target intact.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from session_core import Message, Session, TranscriptError
from session_core.export import write_export
from viewer.cli import main

CRASH_TAIL = b'{"id":"half","payload":{"content":"cut of'


def transcript(path: Path) -> Path:
    with Session.create(path, meta={"agent": "atomic"}) as s:
        s.append_message(Message(role="user", content="hello"))
        s.append_message(Message(role="assistant", content="hi"))
    return path


@pytest.fixture
def crashed(tmp_path: Path) -> Path:
    """A transcript whose writer died mid-line: the load repairs it."""
    path = transcript(tmp_path / "t.jsonl")
    with open(path, "ab") as fh:
        fh.write(CRASH_TAIL)
    return path


# -- the crash repair ------------------------------------------------------------------


def test_the_repair_replaces_the_file_by_rename(crashed: Path) -> None:
    before = crashed.stat().st_ino
    whole = crashed.read_bytes()[: -len(CRASH_TAIL)]
    with Session.load(crashed) as s:
        assert len(s.messages()) == 2
        assert any("crash tail" in w for w in s.warnings())
        assert crashed.stat().st_ino != before  # a new file renamed over, not rewritten
    assert crashed.read_bytes() == whole
    assert not Path(f"{crashed}.repair").exists()


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664])
def test_the_repair_keeps_the_permissions(crashed: Path, mode: int) -> None:
    crashed.chmod(mode)
    before = crashed.stat().st_ino
    with Session.load(crashed):
        pass
    st = crashed.stat()
    assert st.st_ino != before
    assert stat.S_IMODE(st.st_mode) == mode


def test_a_crash_before_the_rename_leaves_the_original_untouched(
    crashed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, inode = crashed.read_bytes(), crashed.stat().st_ino
    staged: list[bytes] = []

    def crash(src: str | os.PathLike[str], dst: str | os.PathLike[str], **kw: object) -> None:
        staged.append(Path(src).read_bytes())  # what the repair would have put in place
        raise OSError(5, "simulated crash before the rename")

    monkeypatch.setattr(os, "rename", crash)
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises((TranscriptError, OSError)):
        Session.load(crashed)
    monkeypatch.undo()
    assert staged == [data[: -len(CRASH_TAIL)]]  # the copy was made, and only the copy
    assert crashed.read_bytes() == data
    assert crashed.stat().st_ino == inode
    assert not Path(f"{crashed}.repair").exists()
    with Session.load(crashed) as s:  # and the next load repairs it as if nothing happened
        assert len(s.messages()) == 2


def test_a_file_that_needs_no_repair_keeps_its_inode(tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl")
    before = path.stat().st_ino
    with Session.load(path):
        pass
    assert path.stat().st_ino == before


# -- export -o -------------------------------------------------------------------------


@pytest.fixture
def old_target(tmp_path: Path) -> Path:
    target = tmp_path / "report.md"
    target.write_text("the old report\n")
    return target


def test_export_o_replaces_the_target_by_rename(tmp_path: Path, old_target: Path) -> None:
    path = transcript(tmp_path / "t.jsonl")
    before = old_target.stat().st_ino
    assert main(["export", str(path), "--format", "md", "-o", str(old_target)]) == 0
    assert old_target.stat().st_ino != before
    assert "hello" in old_target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md", "t.jsonl"]


def test_a_failed_encode_mid_write_leaves_the_old_target(tmp_path: Path, old_target: Path) -> None:
    path = transcript(tmp_path / "t.jsonl")
    inode = old_target.stat().st_ino
    text = "# a report\n" * 1000 + "\ud800"  # a lone surrogate: utf-8 cannot encode it
    with pytest.raises(UnicodeEncodeError):
        write_export(text, old_target, path)
    assert old_target.read_text() == "the old report\n"
    assert old_target.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md", "t.jsonl"]


def test_a_failed_sync_mid_write_leaves_the_old_target(
    tmp_path: Path, old_target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = transcript(tmp_path / "t.jsonl")
    inode = old_target.stat().st_ino

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        write_export("# the new report\n", old_target, path)
    monkeypatch.undo()
    assert old_target.read_text() == "the old report\n"
    assert old_target.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md", "t.jsonl"]


def test_export_o_writes_into_a_fifo_and_leaves_it_one(tmp_path: Path) -> None:
    """``-o`` a FIFO (or a device: ``/dev/stdout``) is written into, never replaced by a
    regular file (as root, ``-o /dev/null`` replaced /dev/null)."""
    import stat
    import threading

    path = transcript(tmp_path / "t.jsonl")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert main(["export", str(path), "--format", "md", "-o", str(fifo)]) == 0
    reader.join(10)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert b"hello" in got[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "t.jsonl"]


def test_export_o_refuses_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = transcript(tmp_path / "t.jsonl")
    (tmp_path / "reports").mkdir()
    assert main(["export", str(path), "--format", "md", "-o", str(tmp_path / "reports")]) == 1
    assert "is a directory" in capsys.readouterr().err
    assert list((tmp_path / "reports").iterdir()) == []


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_a_new_export_takes_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    path = transcript(tmp_path / "t.jsonl")
    old = os.umask(umask)
    try:
        assert main(["export", str(path), "--format", "md", "-o", str(tmp_path / "r.md")]) == 0
    finally:
        os.umask(old)
    assert (tmp_path / "r.md").stat().st_mode & 0o777 == mode


def test_an_export_over_a_file_keeps_its_mode(tmp_path: Path, old_target: Path) -> None:
    path = transcript(tmp_path / "t.jsonl")
    old_target.chmod(0o600)
    assert main(["export", str(path), "--format", "md", "-o", str(old_target)]) == 0
    assert old_target.stat().st_mode & 0o777 == 0o600
    assert "hello" in old_target.read_text()


def _export_to(path: Path, target: str, stdout: object) -> int:
    """``tailscope export PATH --format md -o TARGET`` in a process of its own, its
    standard output ``stdout`` (a pipe, or a file opened to append to)."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "viewer.cli", "export", str(path), "--format", "md", "-o", target],
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        cwd=repo,
        timeout=60,
    )
    assert b"Traceback" not in done.stderr
    return done.returncode


@pytest.mark.parametrize("target", ["/dev/stdout", "-"])
def test_export_o_standard_output_writes_to_it_as_it_was_opened(
    tmp_path: Path, target: str
) -> None:
    """``-o /dev/stdout`` (or ``-``) into a pipe, and into a file opened to append to:
    written as it was opened, never replaced (the file's head was lost), never refused
    (a pipe's path could not be resolved)."""
    path = transcript(tmp_path / "t.jsonl")
    read, write = os.pipe()
    with os.fdopen(write, "wb") as out:
        assert _export_to(path, target, out) == 0
    with os.fdopen(read, "rb") as pipe:
        assert b"hello" in pipe.read()
    report = tmp_path / "report.md"
    report.write_text("HEADER\n")
    with report.open("ab") as out:
        assert _export_to(path, target, out) == 0
    text = report.read_text()
    assert text.startswith("HEADER\n") and "hello" in text
    before = path.read_bytes()
    with path.open("ab") as out:  # the transcript itself: refused, untouched
        assert _export_to(path, target, out) == 1
    assert path.read_bytes() == before


def test_export_o_refuses_a_file_it_may_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rename replaced a read-only target all the same, where ``cp`` or ``>`` would
    refuse (the CLI audit). As root every file is writable, so the user's view of it is
    played here: ``os.access`` says no."""
    source = transcript(tmp_path / "t.jsonl")
    target = tmp_path / "out.md"
    target.write_text("keep me")
    target.chmod(0o444)
    real = os.access
    os_access = lambda path, mode: False if os.fspath(path) == str(target) else real(path, mode)  # noqa: E731
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "access", os_access)
        assert main(["export", str(source), "--format", "md", "-o", str(target)]) == 1
    assert "is not writable" in capsys.readouterr().err
    assert target.read_text() == "keep me"
