"""The agentgo session format (agentgo-v1): records with a session id and a contiguous seq.

``AgentGoSession`` writes it, ``read`` reads it strictly and streaming, and
``AgentGoView`` builds what a viewer shows (runs, calls, conversation,
checkpoints, timeline) one record at a time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .calls import Call, Run
from .reader import StrictReader, read, read_view
from .view import AgentGoView

if TYPE_CHECKING:
    from .live import LiveAgentGo
    from .writer import AgentGoRun, AgentGoSession


def __getattr__(name: str) -> Any:
    # The live view needs the follower (and asyncio), the writer its lock and ids (and
    # a regex compiled): plain reading, as opening a file is, imports neither.
    if name == "LiveAgentGo":
        from .live import LiveAgentGo

        return LiveAgentGo
    if name in ("AgentGoRun", "AgentGoSession"):
        from . import writer

        return getattr(writer, name)
    raise AttributeError(f"module 'session_core.agentgo' has no attribute {name!r}")


__all__ = [
    "AgentGoRun",
    "AgentGoSession",
    "AgentGoView",
    "Call",
    "LiveAgentGo",
    "Run",
    "StrictReader",
    "read",
    "read_view",
]
