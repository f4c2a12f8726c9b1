"""``bench/model_dump.py``, the tool that compares two builds' readers byte for byte, dumps
a model that holds an int orjson will not write (past 64 bits: a tool result's, read with
the standard library's parser where the line has a number beyond a double too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIG = "1180591620717411303424"  # 2**70

_LINES = [
    '{"parentUuid":null,"isSidechain":false,"sessionId":"s1","type":"user",'
    '"message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-02-02T02:40:00.000Z"}',
    '{"parentUuid":"u1","isSidechain":false,"sessionId":"s1","type":"assistant",'
    '"message":{"model":"claude-opus-4-6","id":"msg_1","role":"assistant","content":'
    '[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],'
    '"usage":{"input_tokens":3,"output_tokens":5}},"uuid":"a1",'
    '"timestamp":"2026-02-02T02:40:01.000Z"}',
    '{"parentUuid":"a1","isSidechain":false,"sessionId":"s1","type":"user","message":'
    '{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result",'
    '"content":"file.txt"}]},"toolUseResult":{"stdout":"file.txt","n":' + BIG + ',"x":1e400},'
    '"uuid":"r1","timestamp":"2026-02-02T02:40:02.000Z"}',
]


def test_an_int_past_64_bits_is_dumped_as_its_digits(tmp_path: Path) -> None:
    path, out = tmp_path / "s.jsonl", tmp_path / "s.dump"
    path.write_text("\n".join(_LINES) + "\n")
    done = subprocess.run(
        [sys.executable, "-P", str(ROOT / "bench" / "model_dump.py"), str(path), str(out)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f'"n":{BIG}' in out.read_text()
