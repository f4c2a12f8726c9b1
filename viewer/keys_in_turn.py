"""Keys handled one at a time: a key typed in a burst reaches what the key before it
opened (a dialog, the search bar), not what had the focus when it came.

Textual's app hands each key on to the focused widget as it comes, without waiting: in a
burst (``f`` then a space, ``/`` then a term, typed quickly or pasted) every key is handed
to the widget focused before the first was handled, and the dialog it pushed (focused once
mounted) or the bar it showed (``focus()`` is deferred) never saw them. Here the app holds
the keys (and pastes, in their place among them) that come while one is handled, and
hands the next on once the last has bubbled back (``_Handled``, posted behind it), gone
round behind what its handling posted (``ROUNDS``) and any screen it showed has mounted
and resumed (the note is posted to that screen too, behind its own mount and resume).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from textual import events, on
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

HELD_AT_MOST = 1.0  # seconds a key waits for the one before (a note lost: a widget gone)
# Trips the note makes behind the key's own messages, which bubble a widget a trip: enter
# on the operations' table posts RowSelected, whose handler posts the pane's Opened, whose
# handler shows the detail; a q behind it went to the table and quit mid-mount (a crash).
ROUNDS = 3


@dataclass
class _Handled(Message):
    """Behind a key, bubbling up to the app: the key ``turn`` was handled."""

    turn: int
    screen: Screen[Any]
    behind: bool = False  # posted again behind what the key's handling asked of the app
    rounds: int = 0  # trips made behind the key (its widgets' messages bubble one hop a trip)


class KeysInTurn(App[None]):
    """An app whose keys are handled in turn (this module's rule)."""

    def __init__(self) -> None:
        super().__init__()
        self._held: deque[events.Key | events.Paste] = deque()
        self._turn = 0  # the key being handled (0: none)
        self._turns = 0
        self._held_timer: Timer | None = None

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, (events.Key, events.Paste)) or event.is_forwarded:
            await super().on_event(event)
        elif self._turn:
            self._held.append(event)
        else:
            await self._hand_on(event)

    async def _hand_on(self, key: events.Key | events.Paste) -> None:
        self._turns += 1
        turn = self._turn = self._turns
        await super().on_event(key)  # (to the focused widget, or a binding of the app's)
        screen = self.screen
        (self.focused or screen).post_message(_Handled(turn, screen))
        if self._held_timer is not None:
            self._held_timer.stop()
        self._held_timer = self.set_timer(HELD_AT_MOST, lambda: self._next_key(turn))

    @on(_Handled)
    async def _key_handled(self, event: _Handled) -> None:
        event.stop()
        if event.turn != self._turn:
            return  # (an older key's, let go by its time)
        if not event.behind:  # (it bubbled up with the key: a binding's focus() and
            # call_later are the app's messages after it)
            self.post_message(_Handled(event.turn, event.screen, behind=True, rounds=event.rounds))
            return
        screen = self.screen
        if screen is not event.screen:  # (shown by the key: once it has mounted and resumed)
            screen.post_message(_Handled(event.turn, screen))
            return
        if event.rounds < ROUNDS:  # (a screen its messages ask for: ``ROUNDS``)
            (self.focused or screen).post_message(
                _Handled(event.turn, screen, rounds=event.rounds + 1)
            )
            return
        await self._next_key(event.turn)

    async def _next_key(self, turn: int) -> None:
        if turn != self._turn:
            return
        self._turn = 0
        if self._held:
            await self._hand_on(self._held.popleft())


__all__ = ["KeysInTurn"]
