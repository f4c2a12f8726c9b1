"""Digest vectors, canonical JSON, and the artifact rules (naming, basenames, excerpts)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from session_core import (
    TranscriptError,
    arguments_digest,
    artifact_dir,
    artifact_path,
    artifact_status,
    canonical_arguments,
    canonical_json,
    data_digest,
    is_safe_basename,
)
from session_core.artifacts import excerpt, read_artifact, store_artifact, stored_marker
from session_core.codec import content_digest, section_digest


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    ("value", "canonical"),
    [
        ({"b": 1, "a": [1, 2, {"d": None, "c": True}]}, '{"a":[1,2,{"c":true,"d":null}],"b":1}'),
        ({"é": "€ 𝄞"}, '{"é":"€ 𝄞"}'),
        ("plain", '"plain"'),
        ('{"b":2, "a":1}', '"{\\"b\\":2, \\"a\\":1}"'),
        ([], "[]"),
        ({}, "{}"),
        (1.5, "1.5"),
        ("line\nbreak", '"line\\nbreak"'),
    ],
)
def test_canonical_json_and_data_digest(value, canonical: str) -> None:
    assert canonical_json(value) == canonical
    assert data_digest(value) == sha(canonical)


def test_data_digest_known_vector() -> None:
    # sha256('{"a":1}')
    assert (
        data_digest({"a": 1}) == "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"
    )


@pytest.mark.parametrize(
    ("arguments", "canonical"),
    [
        ('{"b":2, "a":1}', '{"a":1,"b":2}'),
        ('  {"z": [1, {"y": 2, "x": 1}]}  ', '{"z":[1,{"x":1,"y":2}]}'),
        ({"b": 2, "a": 1}, '{"a":1,"b":2}'),
        ("[3, 1]", "[3,1]"),
        ("not json", "not json"),
        ("{broken", "{broken"),
        ("", ""),
        (None, ""),
        ('{"é": "€"}', '{"é":"€"}'),
    ],
)
def test_canonical_arguments_and_their_digest(arguments, canonical: str) -> None:
    assert canonical_arguments(arguments) == canonical
    # the digest hashes the canonical *string*, JSON-encoded, quotes included
    assert arguments_digest(arguments) == data_digest(canonical)
    assert arguments_digest(arguments) == sha(canonical_json(canonical))


def test_arguments_digest_vector() -> None:
    expected = hashlib.sha256(b'"{\\"a\\":1,\\"b\\":2}"').hexdigest()
    assert arguments_digest('{"b":2, "a":1}') == expected
    assert arguments_digest('{"a":1,"b":2}') == expected


def test_section_digest() -> None:
    assert section_digest("identity", "I am é") == sha('["identity","I am é"]')
    assert section_digest("identity", "I am é") == data_digest(["identity", "I am é"])


def test_content_digest_is_plain_sha256_of_the_bytes() -> None:
    assert content_digest("€uro") == hashlib.sha256("€uro".encode()).hexdigest()


@pytest.mark.parametrize(
    ("transcript", "folder"),
    [
        ("a.jsonl", "a.artifacts"),
        ("a.b.jsonl", "a.b.artifacts"),
        ("dir/x/run.jsonl", "dir/x/run.artifacts"),
        ("noext", "noext.artifacts"),
    ],
)
def test_artifact_dir_naming(transcript: str, folder: str) -> None:
    assert artifact_dir(transcript) == folder
    assert artifact_path(transcript, "op.txt") == os.path.join(folder, "op.txt")


@pytest.mark.parametrize(
    "name",
    ["../x", "/etc/passwd", "a/b", "a\\b", "", "..", ".", "x/..", "..\\x", "a\x00b", None, 3],
)
def test_anything_but_a_basename_is_refused(tmp_path: Path, name: object) -> None:
    assert not is_safe_basename(name)
    with pytest.raises(TranscriptError):
        artifact_path(tmp_path / "t.jsonl", name)
    status = artifact_status(tmp_path / "t.jsonl", name)
    assert status.state == "refused" and status.path is None
    with pytest.raises(TranscriptError):
        read_artifact(tmp_path / "t.jsonl", name)


@pytest.mark.parametrize("name", ["op.txt", "a-b_c.1.txt", "résultat.txt", ".hidden"])
def test_plain_names_are_accepted(name: str) -> None:
    assert is_safe_basename(name)


def test_a_missing_artifact_is_not_here_any_more(tmp_path: Path) -> None:
    status = artifact_status(tmp_path / "t.jsonl", "gone.txt")
    assert status.state == "missing"
    assert status.detail == "not here any more"
    assert read_artifact(tmp_path / "t.jsonl", "gone.txt") is None


def test_excerpt_with_its_marker_line() -> None:
    content = "".join(chr(ord("a") + i % 26) for i in range(1000))
    marker = stored_marker(900, "op.txt", 1000, "d" * 64)
    assert marker == (
        f"[... elided 900 chars (1,000 bytes total); full result: op.txt sha256 {'d' * 64} ...]"
    )
    out = excerpt(content, 100, marker)
    head, mid, tail = out.split("\n")
    assert head == content[:75]
    assert mid == marker
    assert tail == content[-25:]
    assert excerpt("short", 100, marker) == "short"


def test_store_artifact_round_trip(tmp_path: Path) -> None:
    transcript = tmp_path / "run.jsonl"
    content = "€" * 4000
    text, record = store_artifact(transcript, "op-1", content, 400)
    assert record["file"] == "op-1.txt"
    assert record["bytes"] == 12000 and record["chars"] == 4000 and record["elided-chars"] == 3600
    assert record["digest"] == content_digest(content)
    assert (tmp_path / "run.artifacts" / "op-1.txt").read_bytes() == content.encode()
    lines = text.split("\n")
    assert lines[1].startswith(
        "[... elided 3,600 chars (12,000 bytes total); full result: op-1.txt"
    )
    assert artifact_status(transcript, "op-1.txt").state == "here"
    assert read_artifact(transcript, "op-1.txt") == content
