"""Canonical JSON and the writer's refusals where Python's defaults and the reference's
(m-doughty/LLM-Agent 0.6.1, ``LLM::Agent::Canonical`` / ``Session``) part: a Raku ``Int``
has no bound (JSON::Fast writes every digit of it), and Raku's ``.trim`` takes off
Unicode's White_Space, not Python's ``str.strip`` set (which has U+001C-U+001F too)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from session_core import (
    Message,
    RefusedAppendError,
    Session,
    arguments_digest,
    canonical_arguments,
    canonical_json,
    data_digest,
)

BIG = 123456789012345678901234567890


def test_an_integer_beyond_64_bits_is_canonical_json_digit_for_digit() -> None:
    """``canonical-json`` renders an Int by its digits; orjson alone refuses it."""
    assert canonical_json({"n": BIG, "m": [-(10**20), 1]}) == (
        '{"m":[-100000000000000000000,1],"n":123456789012345678901234567890}'
    )
    assert data_digest(BIG) == hashlib.sha256(str(BIG).encode()).hexdigest()


def test_arguments_with_an_integer_beyond_64_bits_keep_it_whole() -> None:
    """JSON::Fast reads ``123456789012345678901234567890`` as that Int; orjson read it as
    the float ``1.2345678901234568e+29``, which changed the arguments and their digest."""
    text = '{"n": 123456789012345678901234567890, "f": 1.5, "a": [2.0, 3]}'
    canonical = '{"a":[2.0,3],"f":1.5,"n":123456789012345678901234567890}'
    assert canonical_arguments(text) == canonical
    assert arguments_digest(text) == data_digest(canonical)


@pytest.mark.parametrize("edge", ["\x1c", "\x1d", "\x1e", "\x1f"])
def test_arguments_behind_what_is_not_unicode_white_space_stay_verbatim(edge: str) -> None:
    """``canonical-arguments`` trims with ``.trim``: U+001C-U+001F stay, so the text is
    not offered to the parser (in front) or does not parse (behind): its own key."""
    for text in (edge + '{"b":1,"a":2}', '{"b":1,"a":2}' + edge):
        assert canonical_arguments(text) == text
    # what Unicode calls white space is trimmed, as before
    assert canonical_arguments('\u2028{"b":1,"a":2}\xa0') == '{"a":2,"b":1}'


def test_the_writer_writes_integers_beyond_64_bits_as_the_reference_does(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, {"n": BIG}) as s:
        s.append_message(Message(role="user", content="x"), extra={"usage": {"cost": -BIG}})
    meta, message = path.read_bytes().splitlines()
    assert b'"payload":{"n":123456789012345678901234567890},' in meta
    assert b'"usage":{"cost":-123456789012345678901234567890}' in message
    with Session.load(path) as again:
        assert [m.content for m in again.messages()] == ["x"]


@pytest.mark.parametrize("name", ["\x1c", "\x1f\x1c"])
def test_names_the_reference_takes_are_not_refused(tmp_path: Path, name: str) -> None:
    """``append-run-context`` and ``append-event`` refuse only what ``.trim`` empties."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, {}) as s:
        s.append_run_context(name, name, sections=[{"name": name, "digest": name, "rendered": ""}])
        s.append_event(name, {})
        for blank in (" \u3000", "\u2028\t"):
            with pytest.raises(RefusedAppendError, match="run-id"):
                s.append_run_context(blank, "d")
            with pytest.raises(RefusedAppendError, match="type"):
                s.append_event(blank, {})
    with Session.load(path) as again:
        assert [e["type"] for e in again.events()] == ["session-meta", "run-context", name]
        assert again.run_contexts()[0]["run-id"] == name
        assert again.run_context_section(name) == ""
