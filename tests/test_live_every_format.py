"""The README's "Following a live file" example follows a file of every format (it gave
0 messages and a warning on every line for agentgo, Claude Code and Codex: it fed each
into v1's ``LiveTranscript``), and ``LiveTranscript`` refuses a file of another format
at once, with one ``TranscriptError`` (not "has envelope version None" on every line)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest
from follow_helpers import records
from format_fixtures import BUILT_IN

from session_core import LiveTranscript, open_transcript
from session_core.errors import TranscriptError
from session_core.follow_update import FollowUpdate

README = Path(__file__).resolve().parent.parent / "README.md"


def _example() -> str:
    """The README's example, its last line (``asyncio.run``) left for the test to run."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Following a live file") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    body = code.group(1).rstrip().splitlines()
    assert body[-1].startswith("asyncio.run(watch(")
    return "\n".join(body[:-1])


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
def test_the_readmes_example_follows_every_format(tmp_path: Path, fmt: str) -> None:
    path = BUILT_IN[fmt](tmp_path)
    names: dict[str, Any] = {}
    exec(compile(_example(), "README.md", "exec"), names)
    out = io.StringIO()

    async def run() -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(names["watch"](str(path)), 2)

    with contextlib.redirect_stdout(out):
        asyncio.run(run())
    said = out.getvalue().splitlines()
    sent = len(open_transcript(path).messages)
    assert sent > 0 and said[-1] == f"{sent} messages would be sent next", said[-3:]


def test_live_transcript_refuses_another_format_at_once(tmp_path: Path) -> None:
    path = BUILT_IN["codex"](tmp_path)
    live = LiveTranscript(path)
    lines = records(path)
    update = FollowUpdate(
        envelopes=lines, lines=list(range(1, len(lines) + 1)), format="codex", initial=True
    )
    with pytest.raises(TranscriptError) as refused:
        live.apply(update)
    assert refused.value.line == 1 and "is codex, not transcript-v1" in str(refused.value)
    assert not live.state.warnings and not live.state.event_lines  # (nothing taken)


def test_the_readmes_example_says_no_reset_of_a_file_not_there_yet(tmp_path: Path) -> None:
    """The example printed "truncated or replaced" as it started on a path with no file
    yet (an audit): a first update of a missing file is a reset with nothing read. It
    says the file is not there, reads it once it is, and starts again once it is gone."""
    path = tmp_path / "run.jsonl"
    made = BUILT_IN["transcript-v1"](tmp_path / "made")
    names: dict[str, Any] = {}
    exec(compile(_example(), "README.md", "exec"), names)
    out = io.StringIO()
    sent = len(open_transcript(made).messages)

    async def run() -> None:
        watching = asyncio.ensure_future(names["watch"](str(path)))
        await asyncio.sleep(0.5)
        made.rename(path)  # (the file appears whole)
        for _ in range(100):
            await asyncio.sleep(0.05)
            if f"{sent} messages would be sent next" in out.getvalue():
                break
        path.unlink()
        for _ in range(100):
            await asyncio.sleep(0.05)
            if "starting again" in out.getvalue():
                break
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching

    with contextlib.redirect_stdout(out):
        asyncio.run(run())
    said = out.getvalue().splitlines()
    assert said[0] == f"note: {path} does not exist yet; waiting for it", said
    read = said.index(f"{sent} messages would be sent next")
    assert not any("again" in line or "replaced" in line for line in said[:read]), said
    assert said[-1] == "starting again from line 1", said
