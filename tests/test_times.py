"""One reading of the formats' timestamps for every duration (``session_core.times``)."""

from __future__ import annotations

from session_core.times import epoch, seconds_between


def test_seconds_between_the_writers_timestamps() -> None:
    assert seconds_between("2026-08-09T13:10:09.250Z", "2026-08-09T13:10:43.050Z") == 33.8
    assert seconds_between("2026-08-09T13:10:09+02:00", "2026-08-09T11:10:19Z") == 10.0
    # agentgo writes nanoseconds: read to the microsecond
    assert seconds_between("2026-08-13T07:23:53.790485950Z", "2026-08-13T07:23:54Z") == 0.209515
    # two records at the same instant: a span of 0 s, known (not taken for clocks that disagree)
    assert seconds_between("2026-08-09T13:10:09Z", "2026-08-09T13:10:09Z") == 0.0


def test_what_cannot_be_a_duration_is_unknown_never_zero() -> None:
    assert seconds_between(None, "2026-08-09T13:10:09Z") is None
    assert seconds_between("2026-08-09T13:10:09Z", "") is None
    assert seconds_between("yesterday", "2026-08-09T13:10:09Z") is None
    assert seconds_between("2026-08-09T13:10:09", "2026-08-09T13:10:19Z") is None  # naive
    assert seconds_between("2026-08-09T13:10:19Z", "2026-08-09T13:10:09Z") is None  # backwards


def test_epoch_reads_each_way_a_writer_marks_utc() -> None:
    # 2026-08-09T13:10:09Z is 1786281009 s after the epoch (what a row's "active" sorts by)
    assert epoch("2026-08-09T13:10:09Z") == 1786281009.0
    assert epoch("2026-08-09T13:10:09z") == 1786281009.0  # RFC 3339 allows a small z
    assert epoch("2026-08-09T15:10:09+02:00") == 1786281009.0
    assert epoch(" 2026-08-09T13:10:09Z\n") == 1786281009.0  # (a field's stray blanks)
    # any number of fraction digits: agentgo's nanoseconds, read to the microsecond
    assert epoch("2026-08-09T13:10:09.790485950Z") == 1786281009.790485
    assert epoch("2026-08-09T13:10:09.5Z") == 1786281009.5


def test_epoch_of_no_time_is_unknown_never_zero() -> None:
    assert epoch(None) is None
    assert epoch("") is None
    assert epoch("yesterday") is None
    assert epoch("2026-08-09T13:10:09Zz") is None
