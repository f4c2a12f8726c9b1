"""A projection (``context_projected``) rewrites what the next request sends, in place;
the committed message stays as it was. A message it rewrote was shown twice, as
compacted away (``- not sent``) and its rewrite as a summary no message committed (``+``,
an item of its own in the conversation). It is one message, sent as its rewrite: ``~``,
marked elided with the rewrite as its stub, as a tool result aged to a stub is (v1's
elisions). A compaction's summary still stands for the messages it replaced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from agentgo_helpers import model, text
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from session_core.formats import by_name
from viewer.widgets.model_diff import ModelDiff

ASKED = text("user", "read the long file and summarize")
LONG = text("assistant", "Here is a very long answer. " * 5)
SHORT = text("assistant", "[answer elided]")
THANKS = text("user", "thanks, now the next one")


def _written(path: Path, event: str, data: dict[str, object]) -> Path:
    """Three committed messages, a context event, then the loop's request holding the
    assistant's answer rewritten."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        first = model("m1", turn_index=0)
        run.record(
            "model_request", {"messages": [ASKED], "tools": [], "config": {}}, execution=first
        )
        run.record("model_exec_end", {"message": LONG}, execution=first)
        for message in (ASKED, LONG, THANKS):
            run.record("message_end", {"message": message})
        run.record(event, data, execution={"id": "p1", "kind": "compact", "attempt": 1})
        request = {"messages": [ASKED, SHORT, THANKS], "tools": [], "config": {}}
        run.record("model_request", request, execution=model("m2", turn_index=1))
        run.record("agent_end", {})
    return path


def test_a_message_a_projection_rewrote_is_sent_as_its_rewrite(tmp_path: Path) -> None:
    path = _written(tmp_path / "p.jsonl", "context_projected", {"replaced": 1})
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "0 not sent, 0 sent as stubs, 1 rewritten, 1 context event" in rows[0]
    (line,) = [row for row in rows if "assistant" in row]
    assert line.startswith("~ line      7 assistant   Here is a very long answer.")
    assert line.endswith("[sent rewritten by a projection]")
    assert not [row for row in rows if row.startswith(("+", "-"))]
    t = open_transcript(path)
    shown = [(m.role, m.parts[-1].text, m.marks, m.stub) for m in t.messages]
    assert shown == [
        ("user", ASKED["content"][0]["text"], [], None),
        ("assistant", LONG["content"][0]["text"], ["elided"], "[answer elided]"),
        ("user", THANKS["content"][0]["text"], [], None),
    ]
    (elision,) = t.compactions
    assert elision.kind == "elision" and list(elision.folded) == ["seq-6"]


def test_a_compactions_summary_is_no_rewrite(tmp_path: Path) -> None:
    data = {"summary": "[answer elided]", "replaced": 1}
    path = _written(tmp_path / "c.jsonl", "context_compacted", data)
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "1 not sent, 0 sent as stubs, 1 context event" in rows[0]
    assert [row[:2] for row in rows if "assistant" in row] == ["- ", "+ "]
    t = open_transcript(path)
    assert [(m.role, m.kind) for m in t.messages] == [
        ("user", "message"),
        ("assistant", "summary"),
        ("user", "message"),
    ]


U1, A1 = text("user", "first question"), text("assistant", "first answer")
U2, U2_REWRITTEN = text("user", "LONG tool output " * 10), text("user", "[output elided]")
A2, U3 = text("assistant", "second answer"), text("user", "third question")
SUMMARY = "summary of the first exchange"


def _session(path: Path, steps: list[tuple[str, dict[str, Any]]]) -> Path:
    """A run: the first request, then each step (a message committed, a context event,
    a request of these messages)."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        turn = 0
        for kind, data in [("model_request", {"messages": [U1]}), *steps]:
            if kind == "model_request":
                request = {**data, "tools": [], "config": {}}
                run.record(kind, request, execution=model(f"m{turn}", turn_index=turn))
                turn += 1
            elif kind.startswith("context_"):
                run.record(kind, data, execution={"id": "c1", "kind": "compact", "attempt": 1})
            else:
                run.record(kind, data)
        run.record("agent_end", {})
    return path


def _committed(*messages: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [("message_end", {"message": m}) for m in messages]


def _signs(path: Path) -> list[str]:
    """``diff``'s rows of committed messages: sign and first words."""
    rows = by_name("agentgo-v1").diff(path).splitlines()
    signed = [row for row in rows if row[:2] in ("= ", "- ", "~ ", "+ ")]
    return [row[:2] + row[26:].split(" [")[0][:16] for row in signed]


def _conversation(path: Path) -> list[tuple[str, str, list[str], str | None]]:
    return [
        (m.role, m.parts[-1].text[:16], m.marks, m.stub) for m in open_transcript(path).messages
    ]


def test_a_rewrite_after_a_compaction_is_paired_past_the_folded_messages(
    tmp_path: Path,
) -> None:
    """A compaction folds U1 and A1 (its summary first in the next request), then a
    projection rewrites U2: ``diff`` shows U2 sent rewritten, the summary as ``+``, as
    the conversation marks U2 elided. (The folded messages stopped the pairing: U2 was
    shown not sent and its rewrite as a message of its own.)"""
    summary = text("user", SUMMARY)
    path = _session(
        tmp_path / "c.jsonl",
        [
            *_committed(U1, A1, U2, A2),
            ("context_compacted", {"summary": SUMMARY, "replaced": 2}),
            ("model_request", {"messages": [summary, U2, A2]}),
            *_committed(U3),
            ("context_projected", {"replaced": 1}),
            ("model_request", {"messages": [summary, U2_REWRITTEN, A2, U3]}),
        ],
    )
    head = by_name("agentgo-v1").diff(path).splitlines()[0]
    assert "2 not sent, 0 sent as stubs, 1 rewritten, 2 context events" in head
    assert _signs(path) == [
        "- first question",
        "- first answer",
        "~ LONG tool output",
        "= second answer",
        "= third question",
        "+ summary of the f",
    ]
    assert _conversation(path) == [
        ("user", SUMMARY[:16], [], None),
        ("user", "LONG tool output", ["elided"], "[output elided]"),
        ("assistant", "second answer", [], None),
        ("user", "third question", [], None),
    ]


def test_a_projection_that_drops_one_message_and_rewrites_the_next_pairs_the_rewrite(
    tmp_path: Path,
) -> None:
    """A projection drops A1 and rewrites U2 after it: U2 is sent rewritten, in ``diff``
    and in the conversation alike (the dropped one stopped the pairing: U2 was shown not
    sent, its rewrite a fifth message), and A1 is not sent."""
    path = _session(
        tmp_path / "p.jsonl",
        [
            *_committed(U1, A1, U2, A2),
            ("context_projected", {"replaced": 2}),
            ("model_request", {"messages": [U1, U2_REWRITTEN, A2]}),
        ],
    )
    head = by_name("agentgo-v1").diff(path).splitlines()[0]
    assert "1 not sent, 0 sent as stubs, 1 rewritten, 1 context event" in head
    assert _signs(path) == [
        "= first question",
        "- first answer",
        "~ LONG tool output",
        "= second answer",
    ]
    assert _conversation(path) == [
        ("user", "first question", [], None),
        ("user", "LONG tool output", ["elided"], "[output elided]"),
        ("assistant", "second answer", [], None),
    ]
    (elision,) = open_transcript(path).compactions
    assert (list(elision.folded), list(elision.dropped)) == (["seq-5", "seq-6"], ["seq-5"])


def test_a_message_a_projection_dropped_is_not_sent_next(tmp_path: Path) -> None:
    """A projection drops A1: ``diff`` says it is not sent, and so does every other
    surface: the conversation leaves it out, the raw view marks it folded, the elision
    names it dropped (the replay's compactions too), the raw export says by which line.
    (The conversation showed it as sent, the Diff tab said the elision stubbed nothing.)"""
    path = _session(
        tmp_path / "d.jsonl",
        [
            *_committed(U1, A1, U2, A2),
            ("context_projected", {"replaced": 1}),
            ("model_request", {"messages": [U1, U2, A2]}),
            *_committed(U3),
        ],
    )
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "1 not sent, 0 sent as stubs, 1 context event" in rows[0]
    (gone,) = [row for row in rows if row.startswith("- ")]
    assert gone.endswith("first answer [not sent: dropped by a projection]")
    assert _conversation(path) == [
        ("user", "first question", [], None),
        ("user", "LONG tool output", [], None),
        ("assistant", "second answer", [], None),
        ("user", "third question", [], None),
    ]
    t = open_transcript(path)
    assert [(m.id, m.marks) for m in t.raw if m.marks] == [("seq-5", ["folded"])]
    (elision,) = t.compactions
    assert elision.to_json()["folded"] == elision.to_json()["dropped"] == ["seq-5"]
    tab = [text for _style, text in ModelDiff(t)]  # (the Diff tab: it said "stubbed: 0")
    at = tab.index("stubbed: 0 items, dropped (not sent): 1 item")
    assert [row.strip() for row in tab[at + 1 :]] == [
        "− line 6 assistant: first answer",
        "sent: nothing (dropped)",
    ]
    replayed = orjson.loads(export(path, "json"))  # (``tailscope replay``'s)
    assert replayed["compactions"][0]["dropped"] == ["seq-5"]
    assert "dropped by the projection at line 9: not sent next" in export(path, "md", "raw")
    assert "first answer" not in export(path, "md", "replayed")


def test_a_message_a_projection_dropped_is_sent_again_when_a_later_request_holds_it(
    tmp_path: Path,
) -> None:
    """A projection changes what is sent, not the conversation: A1, dropped by the first
    projection, is sent again once the request after a second one holds it (unmarked,
    in its place); a compaction after a drop folds it for good, marked once."""
    first = [
        *_committed(U1, A1, U2, A2),
        ("context_projected", {"replaced": 1}),
        ("model_request", {"messages": [U1, U2, A2]}),
        *_committed(U3),
    ]
    again = _session(
        tmp_path / "again.jsonl",
        [
            *first,
            ("context_projected", {"replaced": 0}),
            ("model_request", {"messages": [U1, A1, U2, A2, U3]}),
        ],
    )
    assert [m[1] for m in _conversation(again)] == [
        "first question",
        "first answer",
        "LONG tool output",
        "second answer",
        "third question",
    ]
    t = open_transcript(again)
    assert [m.id for m in t.raw if m.marks] == []
    assert [list(c.dropped) for c in t.compactions] == [["seq-5"], []]
    assert not [row for row in by_name("agentgo-v1").diff(again).splitlines() if row[:2] == "- "]
    summary = text("user", SUMMARY)
    compacted = _session(
        tmp_path / "compacted.jsonl",
        [
            *first,
            ("context_compacted", {"summary": SUMMARY, "replaced": 2}),
            ("model_request", {"messages": [summary, U2, A2, U3]}),
        ],
    )
    t = open_transcript(compacted)
    assert [(m.id, m.marks) for m in t.raw if m.marks] == [
        ("seq-4", ["folded"]),
        ("seq-5", ["folded"]),
    ]
    assert [(c.kind, list(c.folded)) for c in t.compactions] == [
        ("elision", ["seq-5"]),
        ("compaction", ["seq-4", "seq-5"]),
    ]


A1_STUB = text("assistant", "[answer elided]")
_DROP_A1 = [("context_projected", {"replaced": 1}), ("model_request", {"messages": [U1, U2, A2]})]
_STUB_A1 = [
    ("context_projected", {"replaced": 1}),
    ("model_request", {"messages": [U1, A1_STUB, U2, A2]}),
]


async def test_the_raw_view_says_which_projection_dropped_a_message(tmp_path: Path) -> None:
    """The raw view marks a message a projection dropped with that projection's line,
    as the raw export does (it said a plain ``[folded]``); one a later request holds
    again is sent, unmarked (it stayed ``[folded]``), as is one a projection stubbed
    (it was marked ``[folded]``: a stub's id was read as folded by a compaction)."""
    from helpers import screen_lines
    from model_screen_helpers import opened, until

    first = [
        *_committed(U1, A1, U2, A2),
        ("context_projected", {"replaced": 1}),
        ("model_request", {"messages": [U1, U2, A2]}),
        *_committed(U3),
    ]
    again = [
        ("context_projected", {"replaced": 0}),
        ("model_request", {"messages": [U1, A1, U2, A2, U3]}),
    ]
    for name, steps, said in (
        ("dropped", first, "[dropped by the projection at line 9: not sent next]"),
        ("again", [*first, *again], None),
        ("stubbed-again", [*_committed(U1, A1, U2, A2), *_STUB_A1, *_committed(U3), *again], None),
    ):
        path = _session(tmp_path / f"{name}.jsonl", steps)
        async with opened(path, size=(120, 30)) as (app, pilot, screen):
            view = screen.conversation
            await pilot.press("r")
            await until(pilot, lambda view=view: view.mode == "raw", "the raw view")
            (row,) = [
                line for line in screen_lines(app) if "assistant  " in line and "line 6" in line
            ]
            assert ("[" in row) == (said is not None), row
            assert ("┃" in row) == (said is not None), row  # (a bar: not sent as written)
            assert said is None or said in row, row


def _tab_elisions(path: Path) -> dict[str, list[str]]:
    """The Diff tab's rows under each elision's ``◆`` row, by that row."""
    out: dict[str, list[str]] = {}
    rows: list[str] = []
    for _style, row in ModelDiff(open_transcript(path)):
        if row.startswith("◆"):
            rows = out.setdefault(row, [])
        elif row.strip():
            rows.append(row.strip())
    return out


def test_a_message_dropped_then_sent_again_as_a_stub_is_a_stub(tmp_path: Path) -> None:
    """A1 dropped by one projection, then sent as a stub by the next: it is a stub on
    every surface, and each elision's rows in the Diff tab say what that elision sent.
    (The tab said ``sent: nothing (dropped)`` under the second elision too, the raw
    export that it was stubbed at the line of the projection that dropped it.)"""
    path = _session(
        tmp_path / "ds.jsonl",
        [
            *_committed(U1, A1, U2, A2),
            *_DROP_A1,
            *_committed(U3),
            ("context_projected", {"replaced": 1}),
            ("model_request", {"messages": [U1, A1_STUB, U2, A2, U3]}),
        ],
    )
    assert _conversation(path)[1] == ("assistant", "first answer", ["elided"], "[answer elided]")
    t = open_transcript(path)
    assert [(m.id, m.marks, m.stub) for m in t.raw if m.marks] == [
        ("seq-5", ["elided"], "[answer elided]")
    ]
    assert [(list(c.folded), list(c.dropped)) for c in t.compactions] == [
        (["seq-5"], ["seq-5"]),
        (["seq-5"], []),
    ]
    assert _signs(path)[1] == "~ first answer"
    assert _tab_elisions(path) == {
        "◆ elision at line 9": [
            "stubbed: 0 items, dropped (not sent): 1 item",
            "− line 6 assistant: first answer",
            "sent: nothing (dropped)",
        ],
        "◆ elision at line 12": [
            "stubbed: 1 item",
            "− line 6 assistant: first answer",
            "sent: [answer elided]",
        ],
    }
    raw = export(path, "md", "raw")
    assert "elided at line 12: the model is sent a stub" in raw
    assert "dropped by the projection" not in raw and "at line 9:" not in raw


def test_a_message_stubbed_then_dropped_is_dropped(tmp_path: Path) -> None:
    """A1 sent as a stub by one projection, then dropped by the next: it is dropped on
    every surface, its stub gone with it, while the Diff tab's first elision still says
    the stub it sent; a third projection that sends it as a stub again names it again.
    (The raw view marked it folded and elided, the raw export said it was both dropped
    and sent a stub, the tab said the first elision sent nothing.)"""
    steps = [*_committed(U1, A1, U2, A2), *_STUB_A1, *_committed(U3)]
    dropped = [
        ("context_projected", {"replaced": 1}),
        ("model_request", {"messages": [U1, U2, A2, U3]}),
    ]
    path = _session(tmp_path / "sd.jsonl", [*steps, *dropped])
    assert "first answer" not in [m[1] for m in _conversation(path)]
    t = open_transcript(path)
    assert [(m.id, m.marks, m.stub) for m in t.raw if m.marks] == [("seq-5", ["folded"], None)]
    assert _signs(path)[1] == "- first answer"
    assert _tab_elisions(path) == {
        "◆ elision at line 9": [
            "stubbed: 1 item",
            "− line 6 assistant: first answer",
            "sent: [answer elided]",
        ],
        "◆ elision at line 12": [
            "stubbed: 0 items, dropped (not sent): 1 item",
            "− line 6 assistant: first answer",
            "sent: nothing (dropped)",
        ],
    }
    raw = export(path, "md", "raw")
    assert "dropped by the projection at line 12: not sent next" in raw
    assert "elided at line" not in raw and "is sent a stub" not in raw
    again = [
        ("context_projected", {"replaced": 1}),
        ("model_request", {"messages": [U1, text("assistant", "[gone]"), U2, A2, U3]}),
    ]
    path = _session(tmp_path / "sds.jsonl", [*steps, *dropped, *again])
    t = open_transcript(path)
    assert [(m.id, m.marks, m.stub) for m in t.raw if m.marks] == [("seq-5", ["elided"], "[gone]")]
    assert [list(c.folded) for c in t.compactions] == [["seq-5"]] * 3
    assert _tab_elisions(path)["◆ elision at line 14"][-1] == "sent: [gone]"
