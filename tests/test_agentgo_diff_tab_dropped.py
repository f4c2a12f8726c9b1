"""The Diff tab's count of the raw view's marks says an item an agentgo projection dropped
(sent as nothing) as dropped, as the raw view marks it (``dropped by the projection at
line N``) and ``diff`` lists it (``not sent: dropped by a projection``): it counted it
among the folded, the items a compaction folded into a summary."""

from __future__ import annotations

from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use

from agentgo_helpers import projected
from session_core import open_transcript
from session_core.formats import by_name
from viewer.widgets.model_diff import ModelDiff


def _head(path: Path) -> list[str]:
    diff = ModelDiff(open_transcript(path))
    return [str(diff[at][1]) for at in range(2)]


def test_an_item_a_projection_dropped_is_counted_dropped_not_folded(tmp_path: Path) -> None:
    path = projected(tmp_path / "s.jsonl")
    head = _head(path)
    assert head[1] == (
        "marked in the raw view, items of every kind: 1 dropped by a projection, 2 elided"
    ), head
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "1 not sent, 2 sent as stubs" in rows[0]  # (the one dropped: diff's "not sent")
    assert [r for r in rows if r.endswith("[not sent: dropped by a projection]")], rows


def test_a_compactions_folded_items_are_still_folded(tmp_path: Path) -> None:
    """A Claude Code compaction folds: its items are counted folded, as before."""
    w = CCWriter(version="1.0.80")
    w.user("read files")
    w.assistant("m0", [tool_use("t0", "Read", file_path="f0")])
    w.result("t0", "CONTENT")
    w.compaction("the summary", 900)
    w.assistant("m1", [text("done")], stop="end_turn")
    head = _head(w.write(tmp_path / "cc.jsonl"))
    assert head[1].startswith("marked in the raw view, items of every kind: ")
    assert "folded" in head[1] and "dropped" not in head[1], head
