"""Opening an agentgo file is a read: it finds what its context events folded (the
model's conversation and compactions need it) but imports nothing of the ``diff``
report's drawing (``cells``: wcwidth's tables, a fifth of a 100 MB open's time) nor
the writer (its lock, ids and regex). Both were imported by every open of a file with
a context event. Nor v1's replay."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentgo_story import write_agentgo_story

REPO = Path(__file__).resolve().parent.parent

NOT_ON_OPEN = (
    "wcwidth",
    "session_core.cells",
    "session_core.diff_model",
    "session_core.agentgo.diff",
    "session_core.agentgo.writer",
    # v1's replay (its state, block pass, compactions and elisions): imported by the
    # views' and usage's type hints alone (13 M of the 383 M instructions of the import)
    "session_core.replay",
    "session_core.block_replay",
    "session_core.compactions",
    "session_core.elisions",
)

OPEN = r"""
import sys
import session_core
t = session_core.open_transcript(sys.argv[1])
print(len(t.messages), len(t.compactions), len(t.compactions[0].folded))
print(",".join(m for m in {names} if m in sys.modules))
"""


def test_opening_a_file_with_a_compaction_imports_no_drawing_and_no_writer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    write_agentgo_story(path)
    code = OPEN.replace("{names}", repr(NOT_ON_OPEN))
    proc = subprocess.run(
        [sys.executable, "-P", "-c", code, str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    found, imported = proc.stdout.splitlines()
    messages, compactions, folded = map(int, found.split())
    assert compactions >= 1 and folded >= 1 and messages >= 1  # (the folds were found)
    assert imported == ""


def test_the_writer_and_the_diff_report_are_still_there() -> None:
    from session_core.agentgo import AgentGoRun, AgentGoSession
    from session_core.agentgo.diff import ContextFolds, agentgo_diff
    from session_core.agentgo.folds import ContextFolds as Folds

    assert AgentGoSession.__name__ == "AgentGoSession" and AgentGoRun.__name__ == "AgentGoRun"
    assert ContextFolds is Folds and callable(agentgo_diff)
