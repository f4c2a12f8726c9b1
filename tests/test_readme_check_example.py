"""The README's ``check`` example for the spotter sample is what ``check`` prints (audit P,
session 41: it left out the total with the subagents)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SAMPLES, run_cli

SPOT = SAMPLES / "claude-code" / "projects" / "-home-u-spotter"
NAME = "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.skipif(not (SPOT / NAME).is_file(), reason="../shared/samples is absent")
def test_the_spotter_check_example_is_what_check_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    example = next(
        line
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.startswith("…/4d5611e5-….jsonl: ok (claude-code")
    )
    _, out, _ = run_cli(capsys, "check", str(SPOT / NAME))
    assert out.rstrip("\n") == f"{SPOT / NAME}{example.removeprefix('…/4d5611e5-….jsonl')}"
