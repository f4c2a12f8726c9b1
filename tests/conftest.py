import sys
from pathlib import Path

# Test helpers (story.py) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))

# Fixtures shared across modules live with their helpers; a module that defines a
# fixture of the same name locally keeps its own. The agentgo tests' (story, finished,
# valid) and the reference ports' sessions (fresh, opened, create, load):
from ref_helpers import create, fresh, load, opened  # noqa: F401

from agentgo_helpers import finished, story, valid  # noqa: F401
