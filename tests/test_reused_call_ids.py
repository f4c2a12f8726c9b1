"""A call id a later message uses again (a writer that numbers its calls again in a new
run): the viewer's conversation drew the earlier call with the later call's state (a
Codex command aborted unanswered read "completed"). Its operation is the later call's:
the earlier says its state is not known, the later has its own."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers import app_loaded, screen_lines
from test_export_folded_calls import _claude_code_reusing, _codex_reusing

from viewer.screens.model_screen import ModelScreen
from viewer.widgets.items_view import REUSED_ID


@pytest.mark.asyncio
@pytest.mark.parametrize("make", [_codex_reusing, _claude_code_reusing])
async def test_an_earlier_call_of_a_reused_id_does_not_show_the_later_ones_state(
    tmp_path: Path, make: Any
) -> None:
    # (Claude Code's reader kept one operation per id, the first call's: the later call
    # showed the earlier one's state, the earlier one the later's result)
    path = make(tmp_path / "reuse.jsonl")
    old = path.stat().st_mtime - 3600  # (the writer long gone)
    os.utime(path, (old, old))
    async with app_loaded(path, ModelScreen, (140, 40)) as (app, pilot):
        await pilot.pause(0.2)
        rows = [row for row in screen_lines(app) if "→ " in row]
        assert len(rows) == 2, rows
        assert REUSED_ID in rows[0] and "completed" not in rows[0], rows
        assert "completed" in rows[1] and REUSED_ID not in rows[1], rows


def test_an_agentgo_execution_is_the_call_of_the_last_message_asking_before_it(
    tmp_path: Path,
) -> None:
    """Each operation names the message whose call it is (``m`` goes there, and the
    conversation reads its state by it): both were named by the first message asking."""
    from test_export_folded_calls import _agentgo_reusing

    from session_core import open_transcript

    t = open_transcript(_agentgo_reusing(tmp_path / "reuse.jsonl"))
    askers = {
        part.name: item.id for item in t.raw for part in item.parts if part.kind == "tool-call"
    }
    assert [(op.tool, op.message_id) for op in t.tool_operations] == [
        ("ls", askers["ls"]),
        ("cat", askers["cat"]),
    ]
