"""A message line's usage numbers, kept in int32 columns (``facts.FactsColumn``): a count
past them, or one of -2**31, is kept as it is and read back the same."""

from __future__ import annotations

import pytest

from session_core.events import Events
from session_core.facts import message_facts, payload_fields


@pytest.mark.parametrize(
    "tokens",
    [0, 1, 2**31 - 1, 2**31, -(2**31), -(2**31) + 1, 2**40, -(2**40), None],
)
def test_usage_numbers_read_back_as_given(tokens: int | None) -> None:
    events = Events()
    payloads = [
        {"role": "assistant", "content": "a", "usage": {"prompt-tokens": tokens, "cost": 0.5}},
        {"role": "assistant", "content": "b", "usage": {"completion-tokens": 7}},
        {"role": "user", "content": "c"},
    ]
    for n, payload in enumerate(payloads):
        envelope = {"v": 1, "type": "message", "id": f"m{n}", "payload": payload}
        events.append(envelope, "message", f"m{n}", payload_fields(payload, None))
    for n, payload in enumerate(payloads):
        assert events.facts.usage(n) == message_facts(payload).usage
        assert events.facts[n] == message_facts(payload)
    assert events.facts.usage(0).input == tokens  # type: ignore[union-attr]
