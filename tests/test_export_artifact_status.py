"""An export printed a v1 operation's artifact name as written (``artifact
../../etc/passwd``) where the viewer's operation detail said ``refused: not a plain file
name`` or ``not here any more`` (an audit). The export says the same state beside the
name, in the words the viewer uses (one rule: ``session_core.artifacts``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli
from panes_helpers import write_transcript

from session_core.artifacts import ARTIFACT_SAID, MISSING, REFUSED
from viewer.formats.v1 import ARTIFACT_STATES
from viewer.screens import artifact as artifact_screen


@pytest.mark.parametrize("form", ["md", "html"])
def test_an_export_says_each_artifacts_state_beside_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    path = tmp_path / "t.jsonl"
    write_transcript(path)
    code, out, _err = run_cli(capsys, "export", str(path), "--format", form)
    assert code == 0
    plain = out.replace("\\", "")  # (Markdown's escapes taken off)
    for name, said in (
        ("op-art.txt", "here"),
        ("op-gone.txt", MISSING),
        ("../../etc/passwd", REFUSED),
    ):
        assert f"artifact {name} ({said})" in plain, (name, plain)


def test_the_viewer_and_the_exports_use_one_set_of_words() -> None:
    assert artifact_screen.REFUSED is REFUSED and artifact_screen.MISSING is MISSING
    assert {k: v for k, v in ARTIFACT_STATES.items() if k != "here"} == {
        k: v for k, v in ARTIFACT_SAID.items() if k != "here"
    }
