"""``tailscope demo``: a simulated coding agent writing a live transcript, and the viewer on it.

No network and no model: a scripted agent ("quill") fixes a failing test in a
small repository ("tinycalc") and writes everything a real agent loop writes,
in the order a real loop writes it (see the seed document on
``LLM::Agent::Session``):

* run 1: grants, a run context, the system prompt and the user's request,
  then rounds of assistant turns with tool calls that complete, fail and
  hang (settled ``outcome-unknown``, reason ``timeout``), an oversized result
  stored as an artifact, an elision of old tool results and a compaction;
* run 2: a second run context (two sections repeated, so they are written
  ``rendered-in``; ``AGENTS.md`` changed), more rounds, and finally a crash
  that leaves one tool call in each of the three crash states.

The agent speaks to a :class:`Recorder`, not to a file format: the transcript
v1 writer is :class:`TranscriptV1Recorder`; the agentgo-v1 one is
``viewer.demo.agentgo_recorder.AgentGoRecorder``; ``claude_code_recorder`` and
``codex_recorder`` write the story as Claude Code and Codex would have (a session
under ``.claude/projects/``, a rollout under ``.codex/sessions/``). ``DEMO_FORMATS``
names them all (see ``RECORDERS``).

``python -m viewer.demo write PATH [--speed S]`` runs the agent and then kills
its own process with SIGKILL (the session is never closed): that is the
writer ``run_demo`` starts beside the viewer.
"""

from .command import main, run_demo
from .recorders import DEMO_FILE, DEMO_FILES, RECORDERS, Recorder, TranscriptV1Recorder
from .script import simulate_run

# Every format the demo writes, in the order ``tailscope demo --format`` lists them.
DEMO_FORMATS: tuple[str, ...] = tuple(DEMO_FILES)

__all__ = [
    "DEMO_FILE",
    "DEMO_FILES",
    "DEMO_FORMATS",
    "RECORDERS",
    "Recorder",
    "TranscriptV1Recorder",
    "main",
    "run_demo",
    "simulate_run",
]
