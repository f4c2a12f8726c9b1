"""A screen closed while it is still mounting its panes is removed once it is mounted."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.await_remove import AwaitRemove
from textual.screen import Screen


class RemovedOnceMounted(Screen[None]):
    """A screen whose removal waits for its mount. Closed while it mounts (a subagent's
    screen opened from the command palette and popped at once), its tabs met their own
    mount with their tabs already pruned: Textual's ``Tabs`` raised "No Tab with id",
    and the app ended. Its ``on_mount`` should then do nothing: it is out of the stack
    (``closed``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._removal: asyncio.Task[None] | None = None  # (a close asked while it mounts)

    @property
    def closed(self) -> bool:
        """Out of the app's screens: popped (perhaps before it finished mounting)."""
        return self not in self.app.screen_stack

    def remove(self) -> AwaitRemove:
        if self.is_mounted:
            return super().remove()
        remove = super().remove

        async def once_mounted() -> None:
            while not self.is_mounted and self.is_running:
                await asyncio.sleep(0.01)
            await remove()

        self._removal = asyncio.create_task(once_mounted())
        return AwaitRemove([self._removal])


__all__ = ["RemovedOnceMounted"]
