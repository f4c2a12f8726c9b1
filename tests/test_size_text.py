"""Sizes are said in the units their labels name: 1 MB is 1,000,000 bytes."""

from __future__ import annotations

import pytest

from session_core.text import size_text


@pytest.mark.parametrize(
    ("size", "full", "compact"),
    [
        (0, "0 B", "0B"),
        (999, "999 B", "999B"),
        (1_000, "1.0 KB", "1.0K"),
        (10_533_209, "10.5 MB", "10.5M"),
        (981_047_580, "981.0 MB", "981.0M"),  # (it read "935.6 MB", counted in MiB)
        (1_073_756_006, "1.1 GB", "1.1G"),
        (5_000_000_000_000, "5000.0 GB", "5000.0G"),
    ],
)
def test_size_text(size: int, full: str, compact: str) -> None:
    assert size_text(size) == full
    assert size_text(size, compact=True) == compact
