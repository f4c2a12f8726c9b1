"""A Claude Code session whose subagents cannot all be known (audit a2, finding 5): its
``subagents/`` folder cannot be read (a mode-000 folder), or a subagent's file is empty.
Each is said in a warning, as an unreadable subagent file is, and the count is a lower
bound where it is one ("at least"), never fewer subagents said as if that were all."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import SAMPLES, run_cli

from session_core.formats import CLAUDE_CODE, by_name
from session_core.scan import scan_file

REPO = Path(__file__).resolve().parents[1]
SPOTTER = SAMPLES / "claude-code" / "projects" / "-home-u-spotter"
SPOT = "4d5611e5-241a-462a-8d15-5122611a9569"  # one Task subagent, one summariser
SCOUT = "agent-a2898e3.jsonl"
UNREAD = "cannot be read (Permission denied): a subagent only it holds is not known"
EMPTY = f"subagent {SCOUT}: its file is empty; its usage is unknown"

pytestmark = pytest.mark.skipif(
    not (SPOTTER / f"{SPOT}.jsonl").is_file(), reason="../shared/samples is absent"
)


def _copy(root: Path) -> tuple[Path, Path]:
    """The spotter session and its subagents' folder, copied, no writer at work."""
    path = Path(shutil.copy(SPOTTER / f"{SPOT}.jsonl", root / f"{SPOT}.jsonl"))
    folder = root / SPOT / "subagents"
    shutil.copytree(SPOTTER / SPOT / "subagents", folder)
    gone = time.time() - 86400
    for each in (path, *folder.iterdir()):
        os.utime(each, (gone, gone))
    return path, folder


def _as_a_user() -> list[str]:
    """A command prefix that reads files as their modes say: as root, its capabilities
    to read past them dropped (``setpriv``); nothing for another user."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root reads a mode-000 folder, and setpriv is not there to stop it")
    drop = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={drop}", f"--bounding-set={drop}"]


def test_an_unreadable_subagents_folder_is_said_and_counts_as_a_lower_bound(
    tmp_path: Path,
) -> None:
    """A real mode-000 folder, read by the CLI as a user reads it."""
    path, folder = _copy(tmp_path)
    prefix = _as_a_user()
    folder.chmod(0)
    try:
        run = [*prefix, sys.executable, "-m", "viewer.cli"]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        check = subprocess.run(
            [*run, "check", str(path)], capture_output=True, text=True, env=env, timeout=120
        )
        replay = subprocess.run(
            [*run, "replay", str(path)], capture_output=True, env=env, timeout=120
        )
    finally:
        folder.chmod(0o755)
    if "Operation not permitted" in check.stderr:  # (setpriv not allowed here)
        pytest.skip(check.stderr.strip())
    assert check.returncode == 0, check.stderr
    assert "at least 1 subagent, its file not read" in check.stdout
    assert f"subagents folder {folder} {UNREAD}" in check.stdout
    said = orjson.loads(replay.stdout)
    assert [f"subagents folder {folder} {UNREAD}" in w for w in said["warnings"]] == [True]
    assert said["usage-with-subagents-partial"] is True
    assert said["usage-with-subagents-said"] == "at least 1 subagent, its file not read"


def _folder_unreadable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``folder`` as a user finds a mode-000 one (root reads past its mode): it cannot be
    listed, nor a file in it looked at."""
    where = str(folder)
    listdir: Callable[..., Any] = os.listdir
    isfile: Callable[[Any], bool] = os.path.isfile

    def refused_listdir(path: Any = ".") -> list[str]:
        if os.fspath(path) == where:
            raise PermissionError(13, "Permission denied", where)
        names: list[str] = listdir(path)
        return names

    def refused_isfile(path: Any) -> bool:
        return not os.fspath(path).startswith(where + os.sep) and isfile(path)

    monkeypatch.setattr(os, "listdir", refused_listdir)
    monkeypatch.setattr(os.path, "isfile", refused_isfile)


def test_every_surface_says_the_folder_and_the_lower_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder refused where it is listed and looked in: the linked subagent's file
    is not said to be missing (it may be there), the summariser only the listing finds
    is not said to be gone, and the browser's row is a lower bound."""
    path, folder = _copy(tmp_path)
    _folder_unreadable(monkeypatch, folder)
    read = by_name(CLAUDE_CODE).open(path)
    assert read.subagents_unlisted == f"{folder} cannot be read (Permission denied)"
    assert [s.id for s in read.subagents] == ["a2898e3"]
    (scout,) = read.subagents
    assert scout.where == "its folder cannot be read, so whether its file is there is not known"
    assert read.with_subagents_text() == "at least 1 subagent, its file not read"
    assert read.subagents_left_out() == (
        "1 subagent not counted and more may be in a folder that cannot be read"
    )
    _, check, _ = run_cli(capsys, "check", str(path))
    assert f"subagents folder {folder} {UNREAD}" in check
    row = scan_file(path, live_window=0)
    assert row.tokens_partial and row.cost_partial  # (the row's ≥)


def test_some_subagents_read_and_the_folder_unread_say_at_least(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counted ones' total is "at least": ``1 of at least 1``, never ``1 subagent``."""
    path, folder = _copy(tmp_path)
    _folder_unreadable(monkeypatch, folder)
    monkeypatch.setattr(  # (the scout's file found, as a 2.0.x one beside the session)
        "session_core.formats.claude_code.subagents.path_for",
        lambda _b, agent: str(SPOTTER / SPOT / "subagents" / f"agent-{agent}.jsonl"),
    )
    read = by_name(CLAUDE_CODE).open(path)
    assert read.with_subagents_text() == "with at least 1 subagent"


def test_an_empty_subagent_file_is_said_once_its_writer_is_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, folder = _copy(tmp_path)
    scout = folder / SCOUT
    scout.write_bytes(b"")
    os.utime(scout, (1, 1))
    code, check, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and "with 1 of 2 subagents at least " in check
    assert EMPTY in check
    read = by_name(CLAUDE_CODE).open(path, writer_alive=True)  # (about to write: no news)
    assert not any(EMPTY in w for w in read.warnings)
    assert read.with_subagents_text().startswith("with 1 of 2 subagents")
