"""A Codex ``token_count`` whose usage carries only some of its counts (lines posted for
0.147, trimmed to ``input_tokens`` and ``total_tokens``) read its usage all unknown. What
the line states is counted; what it leaves out is unknown (``null``), never 0: its total
is counted, as tokens of no named kind where it does not say how they split, and every
surface (``replay``, ``check``, the export, the viewer's header) says the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, usage

from session_core.export import export
from viewer.widgets.item_text import item_facts
from viewer.widgets.model_status import ModelStatus

MODEL = "gpt-5"  # (one the price table knows: a cost unknown is not for want of a price)


def _rollout(path: Path, reports: list[tuple[dict[str, Any], dict[str, Any]]]) -> Path:
    """One turn per report: a prompt, an answer, and a ``token_count`` of (total, last)."""
    w = RolloutWriter(path)
    w.session_meta()
    for n, (total, last) in enumerate(reports):
        w.task_started(f"t{n}")
        w.turn_context(f"t{n}", model=MODEL)
        w.message("user", f"prompt {n}")
        w.message("assistant", f"answer {n}")
        info = {"total_token_usage": total, "last_token_usage": last}
        w.event("token_count", info=info, rate_limits=None)
        w.task_complete(f"t{n}")
    return Path(w.path)


def _trimmed(inputs: int, total: int) -> dict[str, int]:
    return {"input_tokens": inputs, "total_tokens": total}


def _header(path: Path) -> str:
    shown: list[str] = []
    status = ModelStatus()
    status.update = lambda text: shown.append(str(text))  # type: ignore[method-assign]
    status.show(opened(path), name="r.jsonl", title="codex", size=1, live="ended", mode="replayed")
    return shown[0]


def test_a_count_of_input_and_total_alone_counts_both(tmp_path: Path) -> None:
    first, second = _trimmed(1000, 1050), _trimmed(2500, 2600)
    path = _rollout(tmp_path / "r.jsonl", [(first, first), (second, _trimmed(1500, 1550))])
    replayed = CODEX.replay_json(path)
    runs = [run["usage"] for run in replayed["runs"]]
    # Its input's cached part is not said: the input is not split (``input-tokens`` is the
    # uncached part), nor is its output: all of it tokens of no named kind, in part.
    for run, tokens in zip(runs, (1050, 1550), strict=True):
        assert run["total-only-tokens"] == tokens and run["reported"] == 1, run
        assert run["input-tokens"] is None and run["output-tokens"] is None, run
        assert run["cache-read-tokens"] is None and run["cost"] is None, run
    total = replayed["usage"]
    assert total["total-only-tokens"] == 2600 and total["reported"] == 2, total
    assert total["output-tokens"] is None and total["cost"] is None, total
    said = replayed["total-token-usage"]
    assert said["input_tokens"] == 2500 and said["output_tokens"] is None, said
    assert said["cached_input_tokens"] is None, said  # (left out: unknown, never 0)
    # one total, in one set of words, on every surface
    words = "2,600 tok"
    assert f"usage {words} · cost unknown" in CODEX.check(path)
    assert f"| usage | {words} \\(2,600 total only, split unknown\\) · cost unknown" in export(
        path, "md"
    )
    header = _header(path)
    assert f"usage {words}" in header and "cost unknown" in header, header
    assert "2 reported in part" in header, header


def test_a_count_with_its_cached_part_and_no_output_splits_its_input(tmp_path: Path) -> None:
    """It says its cached part: its input is split, its output is what its total holds
    past the input, said as no named kind, and unpriced (not priced as 0 out)."""
    count = {"input_tokens": 1000, "cached_input_tokens": 800, "total_tokens": 1060}
    path = _rollout(tmp_path / "r.jsonl", [(count, count)])
    (run,) = [run["usage"] for run in CODEX.replay_json(path)["runs"]]
    assert (run["input-tokens"], run["cache-read-tokens"]) == (200, 800), run
    assert run["output-tokens"] is None and run["total-only-tokens"] == 60, run
    assert run["cost"] is None and "reported-in-part" not in run, run
    raw = [part.text for item in opened(path).raw for part in item.parts]
    assert "1,060 tokens so far (1,000 in, 800 of them cached, unknown out)" in raw, raw


def test_a_whole_count_after_a_trimmed_one_is_read_by_its_own_last_usage(
    tmp_path: Path,
) -> None:
    whole = usage((1500, 500, 50, 0))
    path = _rollout(
        tmp_path / "r.jsonl",
        [
            (_trimmed(1000, 1050), _trimmed(1000, 1050)),
            (usage((2500, 500, 100, 0)), whole),
        ],
    )
    runs = [run["usage"] for run in CODEX.replay_json(path)["runs"]]
    assert runs[0]["total-only-tokens"] == 1050, runs
    assert (runs[1]["input-tokens"], runs[1]["cache-read-tokens"]) == (1000, 500), runs
    assert runs[1]["output-tokens"] == 50 and runs[1]["cost"] is not None, runs
    assert "total-only-tokens" not in runs[1], runs
    # the session's total is its last, whole: the trimmed one's tokens are in it once
    total = CODEX.replay_json(path)["usage"]
    assert (total["input-tokens"], total["cache-read-tokens"], total["output-tokens"]) == (
        2000,
        500,
        100,
    ), total


@pytest.mark.parametrize(
    ("count", "unknown"),
    [
        (_trimmed(1000, 1300), "output and cached split unknown"),
        (
            {"input_tokens": 1000, "cached_input_tokens": "some", "output_tokens": 5},
            "cached split unknown",
        ),
        (
            {"input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 5}
            | {"cache_write_input_tokens": "many"},
            "cache-write split unknown",
        ),
    ],
)
def test_a_response_with_its_input_stated_says_only_what_is_unknown(
    tmp_path: Path, count: dict[str, Any], unknown: str
) -> None:
    """Its input is stated (the raw row says ``1,000 in``): what is unknown is its
    output (where it is) and how the input splits, never the input, in the viewer's row
    as in the export's message line (``Usage.unreported``)."""
    path = _rollout(tmp_path / "r.jsonl", [(count, count)])
    (answer,) = [item for item in opened(path).messages if item.usage is not None]
    facts = item_facts(answer)
    assert unknown in facts and not any("input" in fact for fact in facts), facts
    said = export(path, "md").replace("\\", "")
    assert f"· {unknown} ·" in said and "input and output unknown" not in said, said
    raw = [part.text for item in opened(path).raw for part in item.parts]
    assert any("1,000 in," in text for text in raw), raw
