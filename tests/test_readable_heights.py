"""A row of a text its writer wrapped (Claude Code's ``/exit``, a command's output) is
as tall as what the conversation shows of it, not as its wrapper as written."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text

EXIT = (
    "<command-name>/exit</command-name>\n            <command-message>exit</command-message>"
    "\n            <command-args></command-args>"
)


def _exited(tmp_path: Path) -> Path:
    """A prompt and its answer, then ``/exit`` (line 3) and its output (line 4)."""
    w = CCWriter()
    w.user("Hello")
    w.assistant("m1", [text("Hi.")], stop="end_turn")
    w.user(EXIT)
    w.user("<local-command-stdout>See ya!</local-command-stdout>")
    return w.write(tmp_path / "s.jsonl")


async def test_a_wrapped_text_is_as_tall_as_its_readable_words(tmp_path: Path) -> None:
    from model_screen_helpers import IDLE, opened

    path = _exited(tmp_path)
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (_app, pilot, screen):
        view = screen.conversation

        def rows(line: int) -> tuple[list[str], int, int]:
            at = next(i for i, item in enumerate(view.items) if item.line == line)
            drawn = [t.plain for t in view.block_lines(at, 100)]
            heights = view.block_heights(len(view.items), 100)
            assert heights is not None
            return drawn, heights[at], view.block_height(at, 100)

        drawn, kept, measured = rows(3)
        # (its header, then ``/exit``: no blank rows where the wrapper's lines were)
        assert len(drawn) == 2 and drawn[1].strip() == "/exit", drawn
        assert kept == measured == 2
        drawn, kept, measured = rows(4)
        assert len(drawn) == kept == measured == 2
        # The raw view shows the wrapper as written: its three lines.
        await pilot.press("r")
        await pilot.pause()
        assert view.mode == "raw"
        drawn, kept, measured = rows(3)
        assert len(drawn) == kept == measured == 4
        assert "<command-name>/exit</command-name>" in drawn[1]
