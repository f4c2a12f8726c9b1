"""Which screen shows a file of each format: the one place the viewer decides it.

A format with a dedicated screen (transcript-v1) names its factory here; every other
registered format (agentgo-v1, claude-code, codex, a plugin's) is shown by the one
screen over the neutral model, ``ModelScreen`` (with the format's own panes, where it
names some: ``viewer.formats``). Screens are imported when first asked for: opening a
v1 file does not pay for the others.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen

from session_core.formats import V1, Format, detect_format

ScreenFactory = Callable[[str, bool], Screen[None]]  # (path, force_polling) -> screen


def _v1(path: str, force_polling: bool) -> Screen[None]:
    from .screens.transcript import TranscriptScreen

    return TranscriptScreen(path, force_polling=force_polling)


SCREENS: dict[Format, ScreenFactory] = {V1: _v1}


def register_screen(fmt: Format, factory: ScreenFactory) -> None:
    """Give a format its own screen (instead of the model screen)."""
    SCREENS[fmt] = factory


def screen_for(fmt: Format | None, path: str, *, force_polling: bool = False) -> Screen[None]:
    """The screen for a file of ``fmt``. Not known yet (an empty or missing file): v1's,
    which waits for the file and swaps itself once its first line names the format."""
    if fmt is None:
        return _v1(path, force_polling)
    factory = SCREENS.get(fmt)
    if factory is not None:
        return factory(path, force_polling)
    from .screens.model_screen import ModelScreen

    return ModelScreen.for_format(fmt)(path, fmt=fmt, force_polling=force_polling)


def open_file_screen(path: str, *, force_polling: bool = False) -> Screen[None]:
    """The screen for the file at ``path``, by the format its first line names."""
    return screen_for(detect_format(path), path, force_polling=force_polling)


__all__ = ["SCREENS", "ScreenFactory", "open_file_screen", "register_screen", "screen_for"]
