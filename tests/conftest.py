import gc
import sys
from collections.abc import Iterator
from pathlib import Path

# Test helpers (story.py) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))

# Fixtures shared across modules live with their helpers; a module that defines a
# fixture of the same name locally keeps its own. The agentgo tests' (story, finished,
# valid), the reference ports' sessions (fresh, opened, create, load) and hand-written
# transcripts (raw_transcript), the Codex tests' rollout, the contract suite's formats and
# their files (fmt, sample), and the follow tests' polling
# (a test that takes it runs twice: on file-system events, and polling).
# Hypothesis: one pinned profile per setting, so a red CI is reproducible. In CI (CI set)
# the examples are derandomised and no database carries failures between runs; elsewhere
# the default, or more examples with TAILSCOPE_HYPOTHESIS=thorough (a nightly-style run).
import os

import pytest
from codex_helpers import rollout  # noqa: F401
from contract_helpers import fmt, sample  # noqa: F401
from follow_helpers import polling  # noqa: F401
from hypothesis import settings
from ref_helpers import create, fresh, load, opened, raw_transcript  # noqa: F401

from agentgo_helpers import finished, story, valid  # noqa: F401

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.register_profile("dev")
settings.load_profile(
    os.environ.get("TAILSCOPE_HYPOTHESIS") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(autouse=True)
def truecolor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app drawn in truecolor, whatever the terminal running the tests (``TERM=xterm``
    and no ``COLORTERM`` is 16 colours, which the app draws otherwise: readable_colours)."""
    monkeypatch.setenv("COLORTERM", "truecolor")


@pytest.fixture
def gc_off() -> Iterator[None]:
    """Only reference counting frees an object (the cyclic collector paused, as while
    the viewer loads a file): what a dropped reader holds is freed at once, or not until
    the collector runs (which a test cannot wait for)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
