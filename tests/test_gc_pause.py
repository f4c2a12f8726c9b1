"""The cyclic collector pauses while a file loads, and always runs again afterwards."""

from __future__ import annotations

import functools
import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import file_loaded

import viewer.screens.following as following_module
from session_core import TranscriptError, gc_pause
from session_core.following import FollowUpdate, follow
from session_core.reader import replay_file
from story import write_story
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    gc.enable()
    yield
    assert gc_pause._holders == 0
    gc.enable()


def test_pauses_nest_and_the_last_release_restarts_the_collector() -> None:
    gc_pause.hold()
    gc_pause.hold()
    assert not gc.isenabled()
    gc_pause.release()
    assert not gc.isenabled()
    gc_pause.release()
    assert gc.isenabled()
    gc_pause.release()  # one too many: harmless
    assert gc.isenabled() and gc_pause._holders == 0


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with gc_pause.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_pauses_from_threads() -> None:
    inside = threading.Barrier(2)
    leave = threading.Event()

    def load() -> None:
        with gc_pause.paused():
            inside.wait()
            leave.wait()

    other = threading.Thread(target=load)
    other.start()
    with gc_pause.paused():
        inside.wait()
    assert not gc.isenabled()  # the other load still runs
    leave.set()
    other.join()
    assert gc.isenabled()


def test_a_replay_that_fails_restarts_the_collector(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"v": 1}\n{broken\n{"v": 1}\n')
    with pytest.raises(TranscriptError):
        replay_file(path, tolerate_tail=False)
    assert gc.isenabled()


async def test_the_viewer_loads_without_the_collector_and_restarts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "story.jsonl"
    write_story(path)
    # Small batches: the load takes many updates, as a big file's does.
    monkeypatch.setattr(following_module, "follow", functools.partial(follow, batch_bytes=300))
    seen: list[tuple[bool, bool]] = []
    replay = following_module.FollowingScreen._replay

    def watched(self: following_module.FollowingScreen, update: FollowUpdate) -> bool:
        seen.append((update.caught_up, gc.isenabled()))
        return replay(self, update)

    monkeypatch.setattr(following_module.FollowingScreen, "_replay", watched)
    app = TailscopeApp(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await file_loaded(pilot, ModelScreen)
        assert len(seen) > 3
        assert not any(enabled for caught_up, enabled in seen if not caught_up)
        assert gc.isenabled() and gc_pause._holders == 0


def test_a_replay_nobody_holds_is_freed_without_the_collector(tmp_path: Path) -> None:
    """No reference cycle in a replay: one dropped during a paused load (a reset, the
    preview) is not left for a collector that will find it frozen."""
    path = tmp_path / "story.jsonl"
    write_story(path)
    gc.disable()
    state = replay_file(path, tolerate_tail=True)
    assert state.events.facts[state.message_events[0]] is not None  # taken lazily
    gone = weakref.ref(state)
    events = weakref.ref(state.events)
    del state
    assert gone() is None and events() is None
