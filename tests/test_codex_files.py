"""``codex`` rollout files: torn, damaged, CRLF, read only, compressed, found in a
directory, and the real rollout."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import orjson
import pytest
from codex_helpers import CODEX, day_dir, opened
from codex_writer import story, zst_copy
from helpers import SAMPLES, fingerprint

from session_core import TranscriptError
from session_core.compressed import open_maybe_compressed
from session_core.file_lines import read_records
from session_core.formats import detect_format

# -- damaged files ----------------------------------------------------------------------


def test_torn_tail_is_a_warning(rollout: Path) -> None:
    before = len(opened(rollout).raw)
    with open(rollout, "ab") as fh:
        fh.write(b'{"timestamp":"x","type":"response_item","payload":{"type":"mess')
    t = opened(rollout)
    assert len(t.raw) == before  # (a crash tail is not read: no record of it)
    assert len(t.warnings) == 1 and "it is not read (a crash tail)" in t.warnings[0]
    assert CODEX.check(rollout).startswith("codex, ")


def test_damage_mid_file_is_refused_by_check(rollout: Path) -> None:
    lines = rollout.read_bytes().split(b"\n")
    lines[5] = b"{not json"
    rollout.write_bytes(b"\n".join(lines))
    assert len(opened(rollout).warnings) == 1  # open is tolerant
    with pytest.raises(TranscriptError) as err:
        CODEX.check(rollout)
    assert err.value.line == 6


def test_crlf_reads_the_same(tmp_path: Path, rollout: Path) -> None:
    crlf = tmp_path / "crlf.jsonl"
    story(crlf, crlf=True)
    assert b"\r\n" in crlf.read_bytes()
    a, b = opened(rollout).to_json(), opened(crlf).to_json()
    assert a["messages"] == b["messages"] and a["usage"] == b["usage"]
    assert a["tool-operations"] == b["tool-operations"] and b["warnings"] == []


def test_read_only(rollout: Path) -> None:
    os.utime(rollout, ns=(1_000_000_000, 1_000_000_000))
    before = fingerprint(rollout)
    detect_format(rollout)
    opened(rollout)
    CODEX.replay_json(rollout)
    CODEX.check(rollout)
    list(read_records(str(rollout)))
    assert fingerprint(rollout) == before


# -- compressed rollouts --------------------------------------------------------------------


def test_zst_reads_like_the_plain_file(rollout: Path, tmp_path: Path) -> None:
    packed = Path(zst_copy(str(rollout), str(tmp_path / "r.jsonl.zst")))
    os.utime(packed, ns=(1_000_000_000, 1_000_000_000))
    before = fingerprint(packed)
    assert detect_format(packed) is None or detect_format(packed) == "codex"  # until wired
    with open_maybe_compressed(packed) as fh:
        assert fh.read() == rollout.read_bytes()
    plain, unpacked = opened(rollout, alive=False).to_json(), CODEX.open(packed).to_json()
    plain.pop("subagents", None)
    assert unpacked["messages"] == plain["messages"] and unpacked["usage"] == plain["usage"]
    assert unpacked["tool-operations"] == plain["tool-operations"]  # a .zst's writer is gone
    assert fingerprint(packed) == before


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "header"])
def test_damaged_zst_is_a_transcript_error(rollout: Path, tmp_path: Path, damage: str) -> None:
    packed = tmp_path / "r.jsonl.zst"
    zst_copy(str(rollout), str(packed))
    data = packed.read_bytes()
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    elif damage == "corrupt":
        data = data[:40] + bytes(b ^ 0x5A for b in data[40:80]) + data[80:]
    else:
        data = data[:4] + b"\xff" * 16
    packed.write_bytes(data)
    with pytest.raises(TranscriptError) as err:
        CODEX.open(packed)
    assert str(packed) in str(err.value) and "zstd" in str(err.value)


def test_discover_prefers_the_plain_file(tmp_path: Path, rollout: Path) -> None:
    day = day_dir(tmp_path)
    zst_copy(str(rollout), str(rollout) + ".zst")
    other = day / "rollout-2026-02-23T13-00-00-019c0000-0000-7000-8000-00000000000f.jsonl"
    zst_copy(str(rollout), str(other) + ".zst")
    (day / "notes.jsonl").write_text("{}\n")
    archived = tmp_path / "archived_sessions"
    archived.mkdir()
    old = archived / "rollout-2025-01-01T00-00-00-019c0000-0000-7000-8000-0000000000aa.jsonl"
    old.write_bytes(rollout.read_bytes())
    found = CODEX.discover(str(tmp_path))
    assert found == sorted([str(old), str(rollout), str(other) + ".zst"])
    assert CODEX.discover(str(tmp_path / "sessions")) == [str(rollout), str(other) + ".zst"]
    assert CODEX.discover(str(day)) == [str(rollout), str(other) + ".zst"]
    assert CODEX.discover(str(tmp_path / "elsewhere")) is None


# -- the real rollout ----------------------------------------------------------------------


def sample() -> Path:
    found = sorted((SAMPLES / "codex").glob("sessions/*/*/*/rollout-*.jsonl"))
    if not found:
        pytest.skip("shared/samples/codex is not here")
    return found[0]


def test_sample_readme_facts() -> None:
    path = sample()
    before = fingerprint(path)
    assert detect_format(path) == "codex"
    t = CODEX.open(path, writer_alive=False)
    assert t.lines == len(t.raw) == 2722 and t.warnings == []
    paired = [op for op in t.tool_operations if op.tool != "web_search"]
    assert len(paired) == 365 and all(op.result_line is not None for op in paired)
    assert Counter(op.state for op in t.tool_operations) == {"completed": 372}
    assert t.extra["token-count-events"] == 573
    (c,) = t.compactions
    line = path.read_bytes().split(b"\n")[c.line - 1]
    assert len(orjson.loads(line)["payload"]["replacement_history"]) == 40
    assert len(c.kept) + sum(1 for m in t.messages if m.id.startswith(f"{c.id}.")) == 40
    assert t.messages[0].id in c.kept
    # the session total is the last total_token_usage, priced only when the model is known
    assert t.extra["total-token-usage"]["input_tokens"] == 33_810_485
    assert t.usage.input_tokens == 33_810_485 - 31_621_504
    assert t.usage.cache_read_tokens == 31_621_504 and t.usage.output_tokens == 133_999
    assert t.usage.reported == 286  # each response's total is reported twice
    assert len(t.runs) == 33 and {r.state for r in t.runs} == {"finished"}
    assert sum(r.usage.output_tokens or 0 for r in t.runs) == 133_999
    assert CODEX.check(path).startswith("codex, ")
    assert fingerprint(path) == before
