"""The viewer on a followed pipe's copy (viewer/stdin_spool.py): its header once the
pipe has ended. (Keys from the terminal, the copy's removal: test_tmux, test_stdin.)"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from format_fixtures import FACTORIES
from helpers import app_on, wait_for

from viewer.stdin_spool import copy_as_it_comes, input_ended, spool_path
from viewer.widgets.model_status import ModelStatus


async def test_a_pipes_end_is_said_not_a_quiet_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the pipe ends the copy's age is its last line's (old here): the header said
    "● idle · quiet for 340d" of a writer that wrote seconds before; it says the input
    ended."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    written = FACTORIES["claude-code"](tmp_path / "run").read_bytes()
    assert len(written) < 65536  # (one write: a pipe's buffer holds it)
    with spool_path() as path:
        source, sink = os.pipe()
        copy = copy_as_it_comes(source, path, lambda *said: None)
        os.write(sink, written)
        async with app_on(path, (160, 30)) as (app, pilot):
            header = lambda: str(app.screen.query_one(ModelStatus).render())  # noqa: E731
            await wait_for(pilot, lambda: "● live" in header(), timeout=10)
            assert "input ended" not in header() and not input_ended(path)
            os.close(sink)  # the pipe ends
            await wait_for(pilot, lambda: not copy.is_alive(), timeout=10)
            await wait_for(pilot, lambda: "● idle" in header(), timeout=10)
            assert "input ended" in header() and "quiet for" not in header()
        assert input_ended(path)
    assert not input_ended(path)  # (the copy gone)
