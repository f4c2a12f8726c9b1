"""Which transcript format a file is, from its first non-blank line."""

from __future__ import annotations

import os
from typing import Any, Literal

import orjson

from .reader import open_regular

Format = Literal["transcript-v1", "agentgo-v1"]
V1: Format = "transcript-v1"
AGENTGO: Format = "agentgo-v1"


def detect_record(record: Any) -> Format | None:
    """The format a parsed first record belongs to, or None."""
    if not isinstance(record, dict):
        return None
    kind = record.get("type")
    if kind == "session-meta" and "v" in record:
        return V1
    if kind == "session_start" and "session_id" in record and "seq" in record:
        return AGENTGO
    return None


def detect_format(path: str | os.PathLike[str], limit: int = 1 << 24) -> Format | None:
    """Read up to the first complete non-blank line (bounded) and name its format."""
    try:
        with open_regular(path) as fh:
            buffered = b""
            while len(buffered) < limit:
                block = fh.read(1 << 16)
                if not block:
                    break
                buffered += block
                while b"\n" in buffered:
                    line, _, buffered = buffered.partition(b"\n")
                    if line.strip():
                        return _detect_bytes(line)
            return _detect_bytes(buffered) if buffered.strip() else None
    except OSError:
        return None


def _detect_bytes(line: bytes) -> Format | None:
    try:
        return detect_record(orjson.loads(line))
    except orjson.JSONDecodeError:
        return None
