"""viewer: the Textual app over session_core.

``TailscopeApp`` is imported lazily so that the text commands of the CLI
start without loading Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import TailscopeApp

__all__ = ["TailscopeApp"]


def __getattr__(name: str) -> Any:
    if name == "TailscopeApp":
        from .app import TailscopeApp

        return TailscopeApp
    raise AttributeError(name)
