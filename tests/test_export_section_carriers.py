"""Two v1 run contexts carrying ``rendered`` text for one section digest, with different
texts (a file that breaks the digest rule): the Markdown export said of the second run
"the same body as printed for run r1", which the second line's own text contradicts
(an audit). It prints the second line's own text and says it differs; a body that is
the same is still printed once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import run_cli


def _line(n: int, kind: str, payload: dict[str, Any]) -> bytes:
    eid = f"00000000-0000-4000-8000-{n:012d}"
    envelope = {"id": eid, "payload": payload, "ts": "2026-08-09T13:10:08Z", "type": kind, "v": 1}
    return orjson.dumps(envelope) + b"\n"


def _contexts(path: Path, second: str, *more: str) -> Path:
    def context(n: int, run: str, text: str) -> bytes:
        section = {"digest": "sd", "name": "identity", "rendered": text}
        payload = {"digest": f"d{n}", "facts": [], "run-id": run, "sections": [section]}
        return _line(n, "run-context", payload)

    path.write_bytes(
        _line(1, "session-meta", {})
        + _line(2, "message", {"role": "user", "content": "hi"})
        + context(3, "r1", "FIRST TEXT")
        + context(4, "r2", second)
        + b"".join(context(5 + n, f"r{3 + n}", text) for n, text in enumerate(more))
    )
    return path


@pytest.mark.parametrize("form", ["md", "html"])
def test_a_second_carrier_with_other_text_is_printed_not_called_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    path = _contexts(tmp_path / "t.jsonl", "SECOND TEXT")
    code, out, _err = run_cli(capsys, "export", str(path), "--format", form)
    assert code == 0
    assert "FIRST TEXT" in out and "SECOND TEXT" in out
    assert "the same body as printed for run r1" not in out
    assert "differs from run r1" in out


def test_a_second_carrier_with_the_same_text_is_printed_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _contexts(tmp_path / "t.jsonl", "FIRST TEXT")
    code, out, _err = run_cli(capsys, "export", str(path), "--format", "md")
    assert code == 0 and out.count("FIRST TEXT") == 1
    assert "the same body as printed for run r1" in out


@pytest.mark.parametrize("form", ["md", "html"])
def test_a_third_carrier_of_the_second_ones_text_names_the_second(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """Every body printed under the digest is looked at, not the first alone: r3 carries
    r2's text, so it is printed once, and r3 names r2 (it was printed again, "differing
    from r1's")."""
    path = _contexts(tmp_path / "t.jsonl", "SECOND TEXT", "SECOND TEXT", "FIRST TEXT")
    code, out, _err = run_cli(capsys, "export", str(path), "--format", form)
    assert code == 0
    assert out.count("SECOND TEXT") == 1 and out.count("FIRST TEXT") == 1
    assert out.count("differs from run r1") == 1
    assert "the same body as printed for run r2" in out
    assert "the same body as printed for run r1" in out
