"""``LiveModel.read_ahead``: what a screen's first snapshot after a load would do on the UI
thread, done by the follower's worker instead: the first whole snapshot (once per load),
and ``index_now`` (v1's folded ids, Codex's call ids), so that the first draw's lookups
index nothing more. Claude Code's subagent files: ``test_claude_code_live_subagents``."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import follow_into
from tiny_format import tiny_registered

from session_core.compactions import FoldedIndex
from session_core.following import FollowUpdate
from session_core.formats import by_name, names
from session_core.formats.base import LiveModel
from session_core.packed_ids import PackedIds

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import model_scale


def followed(tmp_path: Path, fmt: str, calls: list[bool]) -> LiveModel:
    """The generated 2 MB file of ``fmt`` followed as the viewer's worker does, each
    snapshot noted (True: under the lock). A format the bench makes no file of (a
    plugin's) is skipped."""
    if fmt not in model_scale.GENERATORS:
        pytest.skip(f"the bench has no generator for {fmt}")
    path, _marker, _lines = model_scale.bench_file(tmp_path, fmt, "2MB")
    live = by_name(fmt).live(str(path))
    lock = threading.RLock()
    real = type(live).transcript

    def transcript(self: Any, writer_alive: bool | None = None) -> Any:
        calls.append(lock._is_owned())  # type: ignore[attr-defined]
        return real(self, writer_alive)

    def apply(update: FollowUpdate) -> None:
        with lock:
            live.apply(update)
        live.read_ahead(update, lock)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(type(live), "transcript", transcript)
        follow_into(apply, path, 1 << 16, by_name(fmt).parsed_updates)
        live.read_ahead(FollowUpdate(caught_up=True), lock)  # once a load, not again
    return live


@pytest.mark.parametrize("fmt", names())
def test_the_first_snapshot_is_made_once_at_the_load_s_end(tmp_path: Path, fmt: str) -> None:
    calls: list[bool] = []
    followed(tmp_path, fmt, calls)
    assert calls == [True]  # one, under the lock


def test_a_format_the_bench_has_no_generator_for_is_skipped_not_made_up(
    tmp_path: Path,
) -> None:
    """Not the Codex generator's file read as another format: a clear error, a skip."""
    with pytest.raises(LookupError, match="no generator for 'tiny-log'"):
        model_scale.bench_file(tmp_path, "tiny-log", "2MB")
    with tiny_registered(), pytest.raises(pytest.skip.Exception, match="tiny-log"):
        test_the_first_snapshot_is_made_once_at_the_load_s_end(tmp_path, "tiny-log")
    assert not any(tmp_path.iterdir())  # (nothing generated)


@pytest.mark.parametrize(
    ("fmt", "ids", "catch_up"),
    [
        ("transcript-v1", lambda live: live.replay.state.folded_ids, "index_now"),
        ("codex", lambda live: live.builder.op_items.ids, "_catch_up"),
    ],
)
def test_the_ids_a_first_draw_looks_up_are_indexed(
    tmp_path: Path, fmt: str, ids: Any, catch_up: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = followed(tmp_path, fmt, [])
    packed: PackedIds | FoldedIndex = ids(live)
    assert len(packed) > 0
    caught_up: list[int] = []
    real = getattr(type(packed), catch_up)
    monkeypatch.setattr(
        type(packed), catch_up, lambda self: caught_up.append(len(self)) or real(self)
    )
    assert packed.find(packed[len(packed) - 1]) >= 0
    assert caught_up == []  # nothing left to index
