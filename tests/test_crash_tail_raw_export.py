"""A crash tail (a last line the writer left unfinished) in a raw-view export, by one rule
in every format: its warning quotes its start, and no format exports the line. v1 gave
a block of its own with the whole line (a 30 MB tail, 30 MB of export), where Claude
Code, Codex and agentgo gave the warning alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import bench_generators, run_cli

GENERATORS: dict[str, Any] = bench_generators()
TAIL = b'{"type":"message","tail":"TAILSTART' + b"a" * 400 + b"TAILLATER" * 20_000


@pytest.mark.parametrize("to", ["md", "html"])
@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_crash_tail_is_quoted_by_its_start_alone(
    name: str, to: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    GENERATORS[name].generate(path, 30_000, seed=3)
    with open(path, "ab") as fh:
        fh.write(TAIL)  # (no newline: torn, its writer gone)
    code, out, err = run_cli(capsys, "export", "--format", to, "--view", "raw", str(path))
    assert (code, err) == (0, "")
    assert out.count("TAILSTART") == 1  # (in its warning)
    assert "TAILLATER" not in out and "crash tail, as written" not in out
    assert len(out) < len(TAIL)
