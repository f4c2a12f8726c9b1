"""One reading of the formats' timestamps for every duration (``session_core.times``)."""

from __future__ import annotations

from session_core.times import seconds_between


def test_seconds_between_the_writers_timestamps() -> None:
    assert seconds_between("2026-08-09T13:10:09.250Z", "2026-08-09T13:10:43.050Z") == 33.8
    assert seconds_between("2026-08-09T13:10:09+02:00", "2026-08-09T11:10:19Z") == 10.0
    # agentgo writes nanoseconds: read to the microsecond
    assert seconds_between("2026-08-13T07:23:53.790485950Z", "2026-08-13T07:23:54Z") == 0.209515


def test_what_cannot_be_a_duration_is_unknown_never_zero() -> None:
    assert seconds_between(None, "2026-08-09T13:10:09Z") is None
    assert seconds_between("2026-08-09T13:10:09Z", "") is None
    assert seconds_between("yesterday", "2026-08-09T13:10:09Z") is None
    assert seconds_between("2026-08-09T13:10:09", "2026-08-09T13:10:19Z") is None  # naive
    assert seconds_between("2026-08-09T13:10:19Z", "2026-08-09T13:10:09Z") is None  # backwards
