"""agentgo: what a context event did is known from the request of the loop after it. A
compaction as the file's last line has none yet: every surface showed the messages it
replaced as sent next with no word of it, and the Diff tab said "folded: 0 items" beside
its "replaced 4" (an audit of the compare job). Until a request follows, each surface says
the event is ``not sent yet: no model request since``, in those words, and nothing is
guessed from its ``replaced`` count."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from session_core.following import follow
from session_core.formats import AGENTGO, by_name
from session_core.model import UNSENT
from viewer.widgets.folding_lines import FoldingLines
from viewer.widgets.model_diff import ModelDiff


def _text(kind: str, text: str) -> dict[str, Any]:
    return {"kind": kind, "content": [{"type": "text", "text": text}]}


U1, A1 = _text("user", "U1 first question"), _text("assistant", "A1 first answer")
U2, A2 = _text("user", "U2 second question"), _text("assistant", "A2 second answer")
S1, S2 = _text("user", "S1 summary of U1 A1 U2 A2"), _text("user", "S2 summary of S1")
U3, A3 = _text("user", "U3 third question"), _text("assistant", "A3 third answer")


def _ask(run: Any, turn: int, sent: list[dict[str, Any]], reply: dict[str, Any]) -> None:
    execution = {"id": f"turn-{turn + 1}", "kind": "model", "attempt": 1, "turn_index": turn}
    run.record("model_request", {"messages": sent, "tools": [], "config": {}}, execution=execution)
    run.record("model_exec_end", {"message": reply}, execution=execution)
    run.record("message_end", {"message": reply})


def _compact(run: Any, ident: str, held: list[dict[str, Any]], summary: str, n: int) -> None:
    """A summary call and its ``context_compacted`` (the audit's ``ag_two_last`` shape)."""
    execution = {"id": ident, "kind": "compact", "attempt": 1}
    ask = [*held, _text("user", "Summarize")]
    run.record("model_request", {"messages": ask, "tools": [], "config": {}}, execution=execution)
    run.record("model_exec_end", {"message": _text("assistant", summary)}, execution=execution)
    data = {"summary": summary, "replaced": n, "tokens_before": 1000, "tokens_after": 100}
    run.record("context_compacted", data, execution=execution)


def _two_last(path: Path) -> Path:
    """U1 A1 U2 A2, then two compactions, the second of the first's summary: the file's
    last lines, no request of the loop after them."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": U1})
        _ask(run, 0, [U1], A1)
        run.record("message_end", {"message": U2})
        _ask(run, 1, [U1, A1, U2], A2)
        _compact(run, "compact-1", [U1, A1, U2, A2], "S1 summary of U1 A1 U2 A2", 4)
        _compact(run, "compact-2", [S1], "S2 summary of S1", 1)
    return path


def _request_follows(path: Path) -> None:
    with AgentGoSession.open(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": U3})
        _ask(run, 0, [S2, U3], A3)


def test_a_compaction_with_no_request_since_says_so(tmp_path: Path) -> None:
    path = _two_last(tmp_path / "s.jsonl")
    t = open_transcript(path)
    assert [m.text for m in t.messages] == [m["content"][0]["text"] for m in (U1, A1, U2, A2)]
    assert [(c.unsent, len(c.folded)) for c in t.compactions] == [(True, 0), (True, 0)]
    assert all(c.to_json()["unsent"] is True for c in t.compactions)
    rows = by_name(AGENTGO).diff(path).splitlines()
    assert rows[0].endswith(f"2 context events (2 {UNSENT})")
    events = [row for row in rows if row.startswith("# line") and "compacted" in row]
    assert events == [
        f"# line 14: compacted, replaced 4, tokens 1,000 → 100, {UNSENT}",
        f"# line 17: compacted, replaced 1, tokens 1,000 → 100, {UNSENT}",
    ]
    tab = [str(entry[1]) for entry in ModelDiff(t)]
    assert tab.count(UNSENT) == 2 and not [row for row in tab if row.startswith("folded:")]
    # the tab's first row counts them as the header does (it said "2 compactions" alone)
    assert tab[0].endswith("2 compactions, 0 elisions (2 compactions not sent yet)"), tab[0]
    replayed = export(path, "md", "replayed")
    assert f"Context events at lines 14, 17: {UNSENT}; the messages are" in replayed


def test_once_a_request_follows_it_folds_as_that_request_says(tmp_path: Path) -> None:
    path = _two_last(tmp_path / "s.jsonl")
    _request_follows(path)
    t = open_transcript(path)
    assert [c.unsent for c in t.compactions] == [False, False]
    assert "unsent" not in t.compactions[0].to_json()
    assert [len(c.folded) for c in t.compactions] == [4, 0]
    assert [m.text for m in t.messages] == [
        "S2 summary of S1",
        "U3 third question",
        "A3 third answer",
    ]
    rows = by_name(AGENTGO).diff(path).splitlines()
    assert UNSENT not in "\n".join(rows)
    tab = [str(entry[1]) for entry in ModelDiff(t)]
    assert UNSENT not in tab and "folded: 4 items" in tab and "not sent yet" not in tab[0]
    assert UNSENT not in export(path, "md", "replayed")


async def test_a_followed_file_says_it_until_the_request_comes(tmp_path: Path) -> None:
    """The viewer's follow makes its compactions once per event: one not sent yet is made
    again once records come after it (else it said "not sent yet" after the request)."""
    path = _two_last(tmp_path / "s.jsonl")
    fmt = by_name(AGENTGO)
    live = fmt.live(str(path))
    seen: list[list[tuple[bool, int]]] = []
    lines = FoldingLines()  # (the raw view's "folded by the compaction at line N")
    marked: list[list[int]] = []
    updates = follow(path, force_polling=True, poll_interval=0.02, parse=fmt.parsed_updates)
    try:
        async for update in updates:
            live.apply(update)
            if update.caught_up and update.offset == path.stat().st_size:
                t = live.transcript(writer_alive=False)
                seen.append([(c.unsent, len(c.folded)) for c in t.compactions])
                marked.append(sorted(lines.update(t.compactions).values()))
                if len(seen) == 2:
                    break
                _request_follows(path)
    finally:
        await asyncio.wait_for(updates.aclose(), 5)
    assert seen == [[(True, 0), (True, 0)], [(False, 4), (False, 0)]]
    assert marked == [[], [14] * 4]


async def test_the_header_says_what_is_sent_next_is_before_them(tmp_path: Path) -> None:
    from helpers import screen_lines
    from model_screen_helpers import opened

    path = _two_last(tmp_path / "s.jsonl")
    async with opened(path, (160, 30)) as (app, _pilot, _screen):
        header = "\n".join(screen_lines(app)[:6])
        assert "4 sent next (2 compactions not sent yet)" in header, header
