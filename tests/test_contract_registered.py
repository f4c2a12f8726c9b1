"""The contract suite over formats registered by a test, as a plugin would register one:
what it asks of a format is what the format states, not what the built-ins happen to
have."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_contract as contract
from model_toy import ToyFormat, toy_lines, toy_registered


def _without_compactions(path: Path) -> Path:
    lines = [line for line in toy_lines() if line.get("type") != "compact"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_format_with_no_compactions_says_so_and_lists_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = _without_compactions(tmp_path / "toy.jsonl")
    with toy_registered() as fmt:
        monkeypatch.setattr(ToyFormat, "has_compactions", False)
        contract.test_the_replay_json_names_each_compaction_by_its_line(fmt, sample)
        # A format that has them, whose sample shows none (its compactions no longer
        # read), still fails.
        monkeypatch.setattr(ToyFormat, "has_compactions", True)
        with pytest.raises(AssertionError, match="has one"):
            contract.test_the_replay_json_names_each_compaction_by_its_line(fmt, sample)
