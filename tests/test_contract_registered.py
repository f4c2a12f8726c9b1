"""The contract suite over formats registered by a test, as a plugin would register one:
what it asks of a format is what the format states, not what the built-ins happen to
have."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import test_contract as contract
import test_contract_lines as contract_lines
from model_toy import ToyFormat, toy_lines, toy_registered
from tiny_format import tiny_registered, write_tiny

from story import OLD_MTIME


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


def test_a_plain_builders_joined_line_names_its_records_items_apart(tmp_path: Path) -> None:
    """A builder that keeps its items in a list, each named by its line (``line_id``):
    ``{…}{…}`` gives ``L2`` and ``L2.2``, read whole and followed (both were ``L2``)."""
    sample = write_tiny(tmp_path / "tiny.jsonl")
    os.utime(sample, (OLD_MTIME, OLD_MTIME))
    with tiny_registered() as fmt:
        contract_lines.test_every_item_has_an_id_of_its_own(fmt, sample)
        contract_lines.test_two_records_on_one_line_are_both_read_or_the_line_is_refused(
            fmt, sample, tmp_path
        )
