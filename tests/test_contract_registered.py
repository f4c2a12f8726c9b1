"""The contract suite over formats registered by a test, as a plugin would register one:
what it asks of a format is what the format states, not what the built-ins happen to
have."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import test_contract as contract
import test_contract_lines as contract_lines
from format_fixtures import FACTORIES
from model_toy import ToyFormat, toy_lines, toy_registered
from tiny_format import NAME, tiny_registered, write_tiny

from session_core.formats import FORMATS
from story import OLD_MTIME

REPO = Path(__file__).resolve().parent.parent


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


def test_a_format_registered_alone_is_read_by_the_contract_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No fixture of its own in format_fixtures.py: the suite reads the format's own
    sample (``contract_sample``), its folder made and the file made old."""
    before = list(FORMATS)
    with tiny_registered() as fmt:
        assert NAME in FACTORIES and NAME in list(FACTORIES)
        sample = FACTORIES[NAME](tmp_path / "not" / "there")
        assert time.time() - sample.stat().st_mtime > 3600
        contract.test_every_registered_format_has_a_fixture_factory()
        contract.test_detection(fmt, sample)
        contract.test_every_read_path_is_read_only(fmt, sample, tmp_path, capsys)
        contract.test_check_counts_what_replay_lists(fmt, sample)
        contract.test_an_operations_state_is_told_without_making_it(fmt, sample, tmp_path)
        contract.test_an_operation_names_the_message_that_asked_for_it(fmt, sample)
        contract.test_the_replay_json_names_each_compaction_by_its_line(fmt, sample)
        contract_lines.test_every_item_has_an_id_of_its_own(fmt, sample)
    assert before == FORMATS and NAME not in FACTORIES


def test_a_format_registered_on_import_gets_the_whole_contract_suite(tmp_path: Path) -> None:
    """A plugin's format, registered as its package is imported, before the suite is
    collected: every parametrized contract test runs over it, and passes."""
    (tmp_path / "tiny_plugin.py").write_text(
        "from tiny_format import TinyFormat\n"
        "from session_core.formats import register\n"
        "register(TinyFormat())\n"
    )
    paths = [str(REPO), str(REPO / "tests"), str(tmp_path), os.environ.get("PYTHONPATH", "")]
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-p", "tiny_plugin", "-k", NAME),
            *("tests/test_contract.py", "tests/test_contract_values.py"),
            "tests/test_contract_lines.py",
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed and int(passed.group(1)) >= 30, proc.stdout[-2000:]
