import sys
from pathlib import Path

# Test helpers (story.py) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))

# The agentgo tests' fixtures (story, finished, valid) live with their helpers; modules
# that define a fixture of the same name locally keep their own.
from agentgo_helpers import finished, story, valid  # noqa: F401
