"""What a viewer that has opened and read a file holds no module of: each of these was
imported by every start, though only a screen or a command opened later uses it, and
each is RSS held by every viewer (of a 10 MB file's 62 MB, these were 2.7 MB):

* ``wcwidth`` (its tables, and the ``secrets``/``hashlib`` its textwrap imports): the
  Diff tab's module imported ``session_core.cells`` for ``diff``'s columns;
* ``hashlib`` (OpenSSL): ``session_core.codec``'s digests, a writer's and an export's;
* ``textual.widgets._text_area``: the unfinished-line screen's, imported with the
  warning's ``UnfinishedLine`` that the following screen reads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text

REPO = Path(__file__).resolve().parent.parent

NOT_HELD = ("wcwidth", "secrets", "hashlib", "textual.widgets._text_area")

LOADED = r"""
import asyncio, sys
from viewer.app import TailscopeApp

async def main() -> None:
    app = TailscopeApp(sys.argv[1])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.file_screen
        for _ in range(400):  # (as the tests' ``file_loaded``, whose helpers import more)
            if screen.transcript.lines >= 2 and screen._loaded and not screen._previewing:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        print(screen.transcript.lines)
        print(",".join(m for m in {names} if m in sys.modules))

asyncio.run(main())
"""


def _claude_code(path: Path) -> Path:
    w = CCWriter()
    w.user("fix it")
    w.assistant("m1", [text("Fixed. 修好了")], stop="end_turn")
    w.compact()
    w.user("and the tests")
    return w.write(path)


def _v1(path: Path) -> Path:
    from session_core import Message, Session

    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
    return path


@pytest.mark.parametrize("make", [_claude_code, _v1])
def test_a_viewer_that_has_read_a_file_holds_none_of_them(tmp_path: Path, make: object) -> None:
    assert callable(make)
    path = make(tmp_path / "s.jsonl")
    code = LOADED.replace("{names}", repr(NOT_HELD))
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)],  # (this tree first: the cwd)
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines, held = proc.stdout.splitlines()[-2:]
    assert int(lines) >= 2  # (the file was read)
    assert held == "", proc.stderr
