"""Codex's instructions (developer and system messages) are sticky: context its
compactions carry over. One a compaction's replacement history does not hold is folded
by it, as ``diff`` says; the raw view does not call it sticky too."""

from __future__ import annotations

from pathlib import Path

from codex_writer import RolloutWriter, message_payload
from helpers import app_on, screen_lines, wait_for

from viewer.widgets.items_view import ItemsView


def _rollout(path: Path) -> RolloutWriter:
    w = RolloutWriter(path)
    w.session_meta()
    w.message("developer", "old instructions")
    w.message("developer", "kept instructions")
    w.message("user", "hi")
    w.message("assistant", "hello")
    history = [
        message_payload("developer", "kept instructions"),
        message_payload("developer", "new instructions"),
        message_payload("user", "hi"),
        {"type": "compaction", "encrypted_content": "xyz"},
    ]
    w.compacted("", history)
    return w


async def test_a_folded_instruction_is_not_marked_sticky(tmp_path: Path) -> None:
    w = _rollout(tmp_path / "rollout.jsonl")
    async with app_on(w.path, (150, 40)) as (app, pilot):
        view = app.screen.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) > 0)
        await pilot.press("r")
        await wait_for(pilot, lambda: view.mode == "raw" and len(view.items) >= 6)
        await pilot.press("g")
        await pilot.pause()
        rows = [row for row in screen_lines(app) if "developer" in row]
        old = next(r for r in rows if "line 2 " in r)
        kept = next(r for r in rows if "line 3 " in r)
        assert "[folded by the compaction at line 6]" in old and "sticky" not in old
        assert "[sticky]" in kept
