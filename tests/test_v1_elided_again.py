"""v1 messages elided more than once: only the stub in force is sent, on every surface.
A message two elision lines stubbed was sent the first stub until the second line (the
md export said of both "the model is sent the stub"); one line that names a message
twice left one stub, its last (the Diff tab said "elided at lines 6, 6", the raw
export's note "elision of 2 message(s)"); a compaction summary elided, then folded,
says so in the Diff tab as a message does (and ``diff``). Files written by the
library's Session writer."""

from __future__ import annotations

import os
from pathlib import Path

from session_core import Message, Session
from session_core.diff import DiffRows, render_diff
from session_core.export import export
from session_core.reader import replay_file
from story import OLD_MTIME
from viewer.widgets.diff_view import row_fate


def elided_again(path: Path) -> dict[str, str]:
    """U1 A1 (line 3), A1 elided (4), U2 (5), A1 elided again and U2 twice (6); C1
    through U1 (7), its summary elided (8), C2 folding that summary (9), U3 (10)."""
    with Session.create(path, meta={"agent": "t"}) as s:
        ids = {"u1": s.append_message(Message(role="user", content="U1 first"))}
        ids["a1"] = s.append_message(Message(role="assistant", content="A1 long answer"))
        s.append_elision([{"id": ids["a1"], "stub": "[A1 stub one]"}])
        ids["u2"] = s.append_message(Message(role="user", content="U2 second"))
        s.append_elision(
            [
                {"id": ids["a1"], "stub": "[A1 stub two]"},
                {"id": ids["u2"], "stub": "[U2 stub x]"},
                {"id": ids["u2"], "stub": "[U2 stub y]"},
            ]
        )
        ids["c1"] = s.append_compaction("S1 of U1", ids["u1"], tokens_before=9, tokens_after=1)
        s.append_elision([{"id": ids["c1"], "stub": "[S1 stub]"}])
        ids["c2"] = s.append_compaction("S2 of S1", ids["c1"], tokens_before=5, tokens_after=1)
        ids["u3"] = s.append_message(Message(role="user", content="U3 third"))
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # its writer long gone
    return ids


def test_the_export_says_only_the_last_stub_is_sent(tmp_path: Path) -> None:
    path = tmp_path / "again.jsonl"
    elided_again(path)
    raw = export(str(path), "md", "raw")
    head = "elided by the elision at line {}: the content below is the original; the model "
    assert head.format(4) + "was sent the stub until the elision at line 6" in raw
    assert raw.count(head.format(6) + "is sent the stub") == 2  # A1's, U2's once
    assert "[U2 stub y]" in raw and "[U2 stub x]" not in raw  # (that line's last is sent)
    assert "line 6: elision of 2 message" in raw  # (A1, U2: three items)
    assert head.format(8) + "was sent the stub before that" in raw  # (S1, folded at 9)
    replayed = export(str(path), "md", "replayed")
    assert "elided by the elision at line 4: the model was sent its stub until the " in replayed
    assert replayed.count("the model is sent this stub") == 2
    assert replayed.count("elided by the elision at line 6") == 2


def test_the_diff_tab_and_diff_say_each_elision_line_once(tmp_path: Path) -> None:
    path = tmp_path / "again.jsonl"
    elided_again(path)
    state = replay_file(str(path), tolerate_tail=False)
    rows = DiffRows(state)
    fates = {row.line: row_fate(row, rows.summary_lines) for row in rows}
    assert fates[3] == "elided at lines 4, 6; stub sent instead of the original"
    assert fates[5] == "elided at line 6; stub sent instead of the original"
    # the summary elided, then folded: said as a message's is (it said nothing of it),
    # its fate first, then what its compaction did (kept N sticky, as ``diff`` says)
    assert fates[7] == (
        "compaction summary folded into the summary of the compaction at line 9 (elided 1× "
        "before that); it folded 1, kept 0 sticky, tokens 9 → 1, fallback no"
    )
    assert fates[9].startswith("compaction summary: folded 1, kept 0 sticky, tokens 5 → 1")
    text = "".join(render_diff(state, str(path)))
    assert "stub [U2 stub x]" not in text and "stub [U2 stub y]" in text
