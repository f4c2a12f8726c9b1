"""A Claude Code compaction's summary is read again from its summary line when asked
(an elision's, kept as UTF-8): a summary is tens of KB, and a ``str`` with one character
beyond Latin-1 (an emoji) takes 4 bytes a character (a 1 GB session's 520 summaries held
12.7 MB as ``str``)."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter, text
from helpers import follow_into

from session_core import open_transcript
from session_core.formats import by_name
from session_core.formats.claude_code.records import PackedSummary

FMT = by_name("claude-code")


def _summary(k: int) -> str:
    return f"Summary {k}: the café's naïve tests 🚀 passed.\n" * 50


def _session(path: Path, segments: int) -> Path:
    w = CCWriter()
    w.user("before the first compaction")
    w.assistant("m-old", [text("answer")])
    # A 1.0.x summary: no boundary, the chain begins again at the summary itself.
    w.user(_summary(-1), parent=None, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    for k in range(segments):
        if k:
            w.compaction(_summary(k - 1), 1000 + k)
        w.user(f"question {k}")
        w.assistant(f"m{k}", [text(f"answer {k}")])
    w.microcompact([])
    return w.write(path)


def _no_summary_str(*holders: object) -> None:
    """None of ``holders`` keeps a summary's text as a ``str`` (a slot each)."""
    for holder in holders:
        held = [v for v in gc.get_referents(holder) if isinstance(v, str) and len(v) > 200]
        assert held == [], type(holder).__name__


def test_a_summary_is_held_as_utf8_and_read_as_written(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", 4)
    whole = open_transcript(str(path))
    live = FMT.live(str(path))
    follow_into(live.apply, path, 512, FMT.parsed_updates)  # type: ignore[attr-defined]
    followed = live.transcript(writer_alive=False)  # type: ignore[attr-defined]
    for t in (whole, followed):
        compactions = [c for c in t.compactions if c.kind == "compaction"]
        assert [c.summary for c in compactions] == [_summary(k) for k in range(-1, 3)]
        for c in compactions:
            assert isinstance(c, PackedSummary)
            assert c.column is not None and c.utf8 == b""  # (its line read again)
            assert c.to_json()["summary"] == c.summary
            _no_summary_str(c)
        (elision,) = [c for c in t.compactions if c.kind == "elision"]
        assert isinstance(elision, PackedSummary)
        assert (elision.summary, elision.utf8) == (
            "Context microcompacted",
            b"Context microcompacted",
        )
    for bd in live.builder.boundaries:  # type: ignore[attr-defined]
        _no_summary_str(bd)


def test_a_summary_whose_line_changed_on_disk_says_so(tmp_path: Path) -> None:
    """The file written over after it was read (every line one down): each summary says
    its line changed, as its item does, and the export's summary block says it too; it
    was "", and its Diff row and export block went unsaid (review 1, item 3)."""
    from session_core.exportdoc import TextBlock
    from session_core.exportdoc_model import _compaction_items
    from session_core.parts import CHANGED

    path = _session(tmp_path / "s.jsonl", 2)
    t = open_transcript(str(path))
    path.write_bytes(b'{"type":"x"}\n' + path.read_bytes())
    compactions = [c for c in t.compactions if c.kind == "compaction"]
    assert compactions and all(c.summary == CHANGED for c in compactions)
    said = [b.body for b in _compaction_items(t) if isinstance(b, TextBlock)]
    assert said == [CHANGED] * len(compactions) + ["Context microcompacted"]  # (kept)
