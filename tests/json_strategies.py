"""Hypothesis strategies the codex tests share: any JSON value, and a rollout's field names."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# The fields every rollout item may carry, first in both tests' lists of fields to vary.
ITEM_FIELDS = ["type", "role", "content", "text", "call_id", "id", "output", "arguments", "name"]


def json_values(
    *, ints: int, infinity: bool | None, width: int, key_size: int, leaves: int
) -> st.SearchStrategy[Any]:
    """Nested JSON values: integers in ``-ints..ints``, floats (never NaN; infinities as
    ``infinity`` says), texts up to 8 characters, lists and objects of up to ``width``
    entries (keys up to ``key_size`` characters), up to ``leaves`` leaves in all."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-ints, ints)
        | st.floats(allow_nan=False, allow_infinity=infinity)
        | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=width)
            | st.dictionaries(st.text(max_size=key_size), inner, max_size=width)
        ),
        max_leaves=leaves,
    )
