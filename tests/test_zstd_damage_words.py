"""A damaged ``.jsonl.zst`` is said in words of the file: the refusal repeated the zstd
library's own ("zstd decompress error: Destination buffer is too small"), which sounds
like a fault of tailscope's, not of the file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import zstandard
from helpers import run_cli

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_agentgo

DAMAGED = "its compressed data is damaged, and cannot be decompressed"
CHECKSUM = "what it decompresses to fails its checksum (damaged)"


def test_each_kind_of_damage_is_said_in_words_of_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain.jsonl"
    gen_agentgo.generate(plain, 30_000, seed=3)
    packed = zstandard.ZstdCompressor(write_checksum=True).compress(plain.read_bytes())
    said = set()
    for at in range(20, len(packed) - 8, max(1, len(packed) // 40)):
        bad = tmp_path / "bad.jsonl.zst"
        bad.write_bytes(
            packed[:at] + bytes(b ^ 0x5A for b in packed[at : at + 4]) + packed[at + 4 :]
        )
        code, out, _err = run_cli(capsys, "check", str(bad))
        if "corrupt zstd stream" not in out:  # (damage a decoder reads past, as a bad line)
            continue
        assert code == 1 and "zstd decompress error" not in out
        reason = out.split("a corrupt zstd stream: ", 1)[1].strip()
        assert reason in (DAMAGED, CHECKSUM), out
        said.add(reason)
    assert said == {DAMAGED, CHECKSUM}  # (both kinds met)
