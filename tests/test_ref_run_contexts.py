"""Run contexts read back: as data and never as a conversation, each section's body
written once and pointed at afterwards.

Ported scenario by scenario from the reference module's
``t/08-session-resume.rakutest`` (m-doughty/LLM-Agent).
"""

from __future__ import annotations

import orjson
from ref_helpers import envelope, file_lines, hello_line, meta_line, user

# --- run contexts -------------------------------------------------------------------


def test_a_run_context_replays_as_data_and_never_as_a_conversation(create, load) -> None:
    s, path = create()
    s.append_message(user("hello"))

    # The identity never changes, the instructions change once, the facts always.
    ids = []
    for n in (1, 2, 3):
        ids.append(
            s.append_run_context(
                run_id=f"run-{n}",
                digest=f"digest-{n}",
                facts=[("date", f"day-{n}"), ("cwd", "/srv")],
                sections=[
                    {"name": "identity", "digest": "d-identity", "rendered": "IDENTITY"},
                    {
                        "name": "instructions",
                        "digest": "d-instructions-" + ("a" if n < 3 else "b"),
                        "rendered": "AGENTS v1" if n < 3 else "AGENTS v2",
                    },
                ],
            )
        )
    s.close()

    # The file itself: bodies written once, pointed at afterwards.
    lines = [orjson.loads(line) for line in file_lines(path)[2:]]
    assert [line["id"] for line in lines] == ids
    assert [line["payload"] for line in lines] == [
        {
            "run-id": "run-1",
            "digest": "digest-1",
            "facts": [["date", "day-1"], ["cwd", "/srv"]],
            "sections": [
                {"name": "identity", "digest": "d-identity", "rendered": "IDENTITY"},
                {"name": "instructions", "digest": "d-instructions-a", "rendered": "AGENTS v1"},
            ],
        },
        {
            "run-id": "run-2",
            "digest": "digest-2",
            "facts": [["date", "day-2"], ["cwd", "/srv"]],
            "sections": [
                {"name": "identity", "digest": "d-identity", "rendered-in": ids[0]},
                {"name": "instructions", "digest": "d-instructions-a", "rendered-in": ids[0]},
            ],
        },
        {
            "run-id": "run-3",
            "digest": "digest-3",
            "facts": [["date", "day-3"], ["cwd", "/srv"]],
            "sections": [
                {"name": "identity", "digest": "d-identity", "rendered-in": ids[0]},
                {"name": "instructions", "digest": "d-instructions-b", "rendered": "AGENTS v2"},
            ],
        },
    ]

    replayed = load(path)
    assert [m.content for m in replayed.messages()] == ["hello"]
    assert len(replayed.message_ids()) == 1
    assert len(replayed.events()) == 5

    contexts = replayed.run_contexts()
    assert [c["run-id"] for c in contexts] == ["run-1", "run-2", "run-3"]
    assert [c["id"] for c in contexts] == ids
    assert [row[0] for row in contexts[0]["facts"]] == ["date", "cwd"]
    assert [list(row) for row in contexts[0]["facts"]] == [["date", "day-1"], ["cwd", "/srv"]]
    assert replayed.last_run_context()["digest"] == "digest-3"

    carried = [sum(1 for sec in c["sections"] if "rendered" in sec) for c in contexts]
    assert carried == [2, 0, 1]

    bodies = [
        [
            sec.get("rendered") or replayed.run_context_section(sec["digest"])
            for sec in c["sections"]
        ]
        for c in contexts
    ]
    assert bodies == [
        ["IDENTITY", "AGENTS v1"],
        ["IDENTITY", "AGENTS v1"],
        ["IDENTITY", "AGENTS v2"],
    ]

    pointing = next(sec for sec in contexts[1]["sections"] if "rendered-in" in sec)
    assert pointing["rendered-in"] == contexts[0]["id"]


def test_two_identical_sections_in_one_context_resolve_to_one_body(create, load) -> None:
    s, path = create()
    env_id = s.append_run_context(
        run_id="r",
        digest="d",
        facts=[],
        sections=[
            {"name": "first", "digest": "same", "rendered": "THE BODY"},
            {"name": "second", "digest": "same", "rendered": "THE BODY"},
        ],
    )
    s.close()

    assert orjson.loads(file_lines(path)[-1])["payload"]["sections"] == [
        {"name": "first", "digest": "same", "rendered": "THE BODY"},
        {"name": "second", "digest": "same", "rendered-in": env_id},
    ]

    replayed = load(path)
    sections = replayed.last_run_context()["sections"]
    assert sections[0]["rendered"] == "THE BODY"
    assert sections[1]["rendered-in"] == env_id
    assert replayed.run_context_section("same") == "THE BODY"


def test_a_context_body_the_transcript_no_longer_has_is_absent_not_fatal(
    load, raw_transcript
) -> None:
    # What a crash-tail repair can leave: the carrying line is gone, a later line
    # still points at it.
    path = raw_transcript(
        [
            meta_line(),
            hello_line(),
            envelope(
                "run-context",
                {
                    "run-id": "r2",
                    "digest": "d2",
                    "facts": [["date", "day-2"]],
                    "sections": [
                        {
                            "name": "identity",
                            "digest": "d-identity",
                            "rendered-in": "the-line-that-was-repaired-away",
                        },
                        {"name": "notes", "digest": "d-notes", "rendered": "STILL HERE"},
                    ],
                },
            ),
        ]
    )

    s = load(path)
    assert len(s.messages()) == 1
    assert list(s.warnings()) == []
    assert s.run_context_section("d-identity") is None
    identity = next(sec for sec in s.last_run_context()["sections"] if sec["name"] == "identity")
    assert identity["rendered-in"] == "the-line-that-was-repaired-away"
    assert s.run_context_section("d-notes") == "STILL HERE"
    assert s.run_context_section("never-heard-of-it") is None
