"""The agentgo session format (agentgo-v1): records with a session id and a contiguous seq.

``AgentGoSession`` writes it, ``read`` reads it strictly and streaming, and
``AgentGoView`` builds what a viewer shows (runs, calls, conversation,
checkpoints, timeline) one record at a time.
"""

from __future__ import annotations

from .live import LiveAgentGo
from .reader import StrictReader, read, read_view
from .view import AgentGoView, Call, Run
from .writer import AgentGoRun, AgentGoSession

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
