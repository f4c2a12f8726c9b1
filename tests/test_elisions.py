"""A replay's elision records in columns (``elisions.Elisions``): read back as the records
applied, and by message id (``Elided``) as the dict of lists they stand for."""

from __future__ import annotations

import pytest

from session_core.elisions import Elided, Elision, Elisions


def test_elisions_read_as_the_records_added() -> None:
    elisions = Elisions()
    want: list[Elision] = []
    by_mid: dict[str, list[Elision]] = {}
    for line in range(40):
        eid, ts = f"e-{line}", f"2026-08-09T10:00:{line:02d}Z"
        elisions.start_line(eid, ts, 1000 + line)
        for k in range(line % 4):  # (a line of none, of one, of several)
            mid = f"{(line * 7 + k) % 23:08x}-1111-4222-8333-444455556666"
            at = None if k == 2 else line * 10 + k
            record = Elision(eid, ts, mid, f"[elided {line}.{k}]", at, 1000 + line)
            elisions.add(mid, record.stub, at)
            want.append(record)
            by_mid.setdefault(mid, []).append(record)
    assert list(elisions) == want and len(elisions) == len(want)
    assert [elisions.elision_id(i) for i in range(len(want))] == [r.elision_id for r in want]
    elided = Elided(elisions)
    assert dict(elided) == by_mid and list(elided) == list(by_mid)
    mid = next(m for m, found in by_mid.items() if len(found) > 1)
    assert elided[mid] == by_mid[mid] and mid in elided
    assert "not-elided" not in elided and elided.get("not-elided") is None
    with pytest.raises(KeyError):
        elided["not-elided"]
