"""A key that leaves the end while a fast writer's appends are followed: each append
queued a scroll to the end for once the new height was laid out, and one still queued
when ``g`` (or PageUp) came threw the view back to the end, the cursor left on item 0
off screen (2 of 6 ``g`` failed following 2,000 lines/s). Driven deterministically here:
the append queues its scroll, and the key's action runs before it does, as it did then."""

from __future__ import annotations

import pytest
from model_screen_helpers import opened, toy
from test_line_list import ListApp, Numbers
from textual.pilot import Pilot

from viewer.widgets.line_list import LineList

__all__ = ["toy"]  # (the fixture, used by name)


def _leave_the_end(view: LineList, key: str) -> None:
    """What the binding of ``key`` runs (``LineList.BINDINGS``), called at once: before
    the queued scroll, which a real key press only sometimes beats."""
    if key == "g":
        view.action_first()
    else:
        view.action_page(-1)


def _cursor_on_screen(view: LineList) -> bool:
    top = view.heights.prefix(view.cursor)
    return view.scroll_y <= top < view.scroll_y + view.page_height


async def _settled(pilot: Pilot[None]) -> None:
    for _ in range(3):  # (the queued callbacks run after the next refreshes)
        await pilot.pause(0.05)


@pytest.mark.parametrize("key", ["g", "pageup"])
async def test_a_key_that_leaves_the_end_as_lines_arrive_stays_where_it_went(key: str) -> None:
    view = Numbers(200)
    app = ListApp(view)
    async with app.run_test(size=(40, 10)) as pilot:
        view.reset_items()
        await _settled(pilot)
        assert view.follows_end
        view.grow(5)  # (followed: a scroll to the end is queued)
        _leave_the_end(view, key)
        left_at = (view.cursor, view.scroll_y)
        await _settled(pilot)
        assert (view.cursor, view.scroll_y) == left_at and not view.follows_end
        assert _cursor_on_screen(view), (view.cursor, view.scroll_y)
        if key == "g":
            assert (view.cursor, view.scroll_y) == (0, 0)


async def test_the_list_still_reaches_its_new_end_when_no_key_came() -> None:
    view = Numbers(200)
    app = ListApp(view)
    async with app.run_test(size=(40, 10)) as pilot:
        view.reset_items()
        await _settled(pilot)
        for _ in range(3):
            view.grow(40)
        await _settled(pilot)
        assert view.cursor == 319 and view.scroll_y == view.max_scroll_y


@pytest.mark.parametrize("mode", ["raw", "replayed"])
async def test_g_in_a_followed_conversation_goes_to_the_first_item(toy: object, mode: str) -> None:
    """The conversation's and the raw view's own path: a new snapshot at the end queues
    its scroll (``BlockView.reload``), and ``g`` before it runs stays at the top."""
    async with opened(toy, size=(100, 14)) as (_app, pilot, screen):  # type: ignore[arg-type]
        view = screen.conversation
        if mode == "raw":
            await pilot.press("r")
            await _settled(pilot)
        assert view.mode == mode and view.follows_end and view.max_scroll_y > 0
        view.show(view.transcript)  # (a snapshot as an append brings one)
        view.action_first()
        await _settled(pilot)
        assert (view.cursor, view.scroll_y) == (0, 0)
        assert not view.follows_end
