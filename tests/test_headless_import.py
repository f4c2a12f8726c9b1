"""session_core is headless: importing it (all of it) loads no UI toolkit, and neither
does ``tailscope replay``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

IMPORT_ALL = r"""
import importlib, pkgutil, sys
import session_core
names = ["session_core"]
for info in pkgutil.walk_packages(session_core.__path__, "session_core."):
    importlib.import_module(info.name)
    names.append(info.name)
ui = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
print(len(names), ",".join(ui))
"""


def test_session_core_and_every_submodule_import_without_a_ui() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    count, _, ui = proc.stdout.strip().partition(" ")
    assert int(count) >= 10
    assert ui == ""


def test_tailscope_replay_does_not_import_textual(tmp_path: Path) -> None:
    from session_core import Message, Session

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "viewer.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "session_core" in imported
    assert "textual" not in imported
    assert "rich" not in imported


def test_importing_the_cli_in_process_does_not_import_textual() -> None:
    code = (
        "import sys, viewer.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# What the viewer's start must not pay for when it opens one file: the other formats'
# readers, the writer, peek, exports, the browser and the artifact viewer.
NOT_AT_START = (
    "session_core.formats.claude_code.builder",
    "session_core.formats.claude_code.subagents",
    "session_core.formats.claude_code.usage",
    "session_core.formats.codex.builder",
    "session_core.agentgo.view",
    "session_core.session",
    "session_core.peeking",
    "session_core.export",
    "viewer.screens.browser",
    "viewer.screens.export",
    "viewer.screens.artifact",
)

START_OF_A_FILE = r"""
import sys
import viewer.app, viewer.cli
from viewer.app import TailscopeApp
app = TailscopeApp(sys.argv[1])
screen = app.get_default_screen()
app.check_action("close_file", ())
print(type(screen).__name__)
print(",".join(m for m in {names} if m in sys.modules))
"""


def test_opening_a_v1_file_imports_only_what_its_screen_needs(tmp_path: Path) -> None:
    from session_core import Message, Session

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
    code = START_OF_A_FILE.replace("{names}", repr(NOT_AT_START))
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    screen, loaded = proc.stdout.split("\n")[:2]
    assert screen == "V1PanesScreen"  # the model screen, with v1's own panes
    assert loaded == ""
