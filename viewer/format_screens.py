"""Which screen shows a file of each format: the one place the viewer decides it.

Every registered format (transcript-v1, agentgo-v1, claude-code, codex, a plugin's) is
shown by the one screen over the neutral model, ``ModelScreen``, with the format's own
panes where it names some (``viewer.formats``: v1's diff and run contexts, agentgo's
call tree, checkpoints and timeline). A format may still register a screen of its own
(``register_screen``). The model screen is imported when first asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from textual.app import App
from textual.screen import Screen

from session_core.formats import V1, Format, detect_format

ScreenFactory = Callable[[str, bool], Screen[None]]  # (path, force_polling) -> screen

SCREENS: dict[Format, ScreenFactory] = {}
# A file whose format is not known yet (empty or missing) is read as this one meanwhile:
# its screen waits for the first line, and swaps to another format's if that names one.
WAITING_AS: Format = V1


def register_screen(fmt: Format, factory: ScreenFactory) -> None:
    """Give a format its own screen (instead of the model screen)."""
    SCREENS[fmt] = factory


def screen_for(fmt: Format | None, path: str, *, force_polling: bool = False) -> Screen[None]:
    """The screen for a file of ``fmt`` (None: not known yet, see ``WAITING_AS``)."""
    known = fmt is not None
    fmt = fmt or WAITING_AS
    factory = SCREENS.get(fmt)
    if factory is not None:
        return factory(path, force_polling)
    from .screens.model_screen import ModelScreen

    return ModelScreen.for_format(fmt)(path, fmt=fmt, force_polling=force_polling, known=known)


def open_file_screen(path: str, *, force_polling: bool = False) -> Screen[None]:
    """The screen for the file at ``path``, by the format its first line names."""
    return screen_for(detect_format(path), path, force_polling=force_polling)


def open_linked(
    app: App[object], path: str | None, *, force_polling: bool = False, why: str | None = None
) -> bool:
    """A file another one links (a subagent's) opened on its own screen, over the one
    that links it (escape goes back); False, and the user told, where it is not there
    (``why`` it has none, where that is known)."""
    if not path or not os.path.isfile(path):
        said = f"The subagent has no file: {why}." if why and not path else None
        app.notify(said or "The subagent's file is not there.", severity="warning")
        return False
    app.push_screen(open_file_screen(path, force_polling=force_polling))
    return True


__all__ = [
    "SCREENS",
    "WAITING_AS",
    "ScreenFactory",
    "open_file_screen",
    "open_linked",
    "register_screen",
    "screen_for",
]
