"""The claude-code reader's two decoders agree: msgspec (hot lines, typed) and orjson.

Every line a file gives goes through ``feed_line``: a hot line (user, assistant,
progress) whose fields have the types ``lines.Line`` names is decoded by msgspec,
anything else by orjson into ``feed``. Both must make the same model, whatever the
types in the file.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_writer import CCWriter, story, text, tool_use, usage
from helpers import SAMPLES

from session_core.formats.claude_code import ClaudeCodeFormat, lines
from session_core.model import Transcript

FMT = ClaudeCodeFormat()
CLAUDE_CODE = SAMPLES / "claude-code"


def everything(t: Transcript) -> Any:
    """What a reader shows of a transcript: its replay JSON and every raw item."""
    raw = [
        (
            i.id,
            i.role,
            i.kind,
            i.line,
            i.lines,
            i.marks,
            i.ts,
            i.model,
            [(p.kind, p.text, p.call_id, p.name, p.data, p.is_error) for p in i.parts],
        )
        for i in t.raw
    ]
    ops = [
        (o.call_id, o.state, o.arguments, o.result, o.detail, o.progress) for o in t.tool_operations
    ]
    return t.to_json(), raw, ops, t.warnings, t.extra


def by_dict(path: Path, monkeypatch: pytest.MonkeyPatch) -> Transcript:
    """The file read with every line decoded by orjson (the typed decoder refuses all)."""
    with monkeypatch.context() as m:
        m.setattr(lines, "_LINE", _Refuses())
        m.setattr(lines, "_RAW_RESULT", _Refuses())
        return FMT.open(path, writer_alive=False)


class _Refuses:
    def decode(self, raw: bytes) -> lines.Line:
        import msgspec

        raise msgspec.ValidationError("every line through orjson")


def test_story_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = story(tmp_path / "projects" / "-p")
    assert everything(FMT.open(path, writer_alive=False)) == everything(by_dict(path, monkeypatch))


def test_hot_lines_go_through_msgspec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a test that cannot fail: the typed path is the one taken for a real file."""
    path = story(tmp_path / "projects" / "-p")
    typed = 0
    real = lines.decode

    def counting(raw: bytes) -> lines.Line | None:
        nonlocal typed
        found = real(raw)
        typed += found is not None
        return found

    monkeypatch.setattr("session_core.formats.claude_code.builder.decode", counting)
    FMT.open(path, writer_alive=False)
    assert typed > 10


@pytest.mark.skipif(not CLAUDE_CODE.is_dir(), reason="../shared/samples is not here")
def test_samples_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    for path in sorted(CLAUDE_CODE.glob("**/*.jsonl")):
        assert everything(FMT.open(path, writer_alive=False)) == everything(
            by_dict(path, monkeypatch)
        ), path


ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["a", "type", "id"]), st.text(max_size=3), max_size=2),
)
BLOCK_VALUES = [
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "image",
    "server_tool_use",
    "[Request interrupted by user for tool use]",
    "  [Request interrupted by user]\nmore",
    [{"type": "text", "text": "[Request interrupted by user]"}],
    [{"type": "image", "source": {"media_type": "image/png"}}, "x"],
    "<command-name>/clear</command-name>",
]
FIELDS = [
    "uuid",
    "parentUuid",
    "isSidechain",
    "isMeta",
    "timestamp",
    "requestId",
    "sessionId",
    "cwd",
    "parentToolUseID",
    "toolUseResult",
    "isCompactSummary",
    "agentId",
]
# What a toolUseResult may say of its call (a background launch, a Workflow run, a
# subagent's run time, the agent it names)
RESULT_FIELDS = ["interrupted", "agentId", "status", "isAsync", "runId", "totalDurationMs"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_odd_field_types_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: st.DataObject
) -> None:
    """Fields of unexpected types: the typed decoder refuses them, the dict path takes
    the same facts (a field of another type counts as absent)."""
    w = CCWriter()
    w.user("start")
    w.user([text("look"), {"type": "image", "source": {"media_type": "image/png"}}])
    w.assistant("m1", [text("calling"), tool_use("c1", "Bash", command="ls")], usage=usage(5, 6))
    w.progress("c1", {"type": "bash_progress", "output": "so far"})
    w.result("c1", "out", tool_use_result={"stdout": "out", "interrupted": False})
    w.bare({"type": "fork-context-ref", "agentId": "a1", "parentSessionId": w.session})
    w.assistant("m2", [text("done"), tool_use("c2", "Agent", prompt="p")], usage=usage(7, 8))
    launched = {"status": "async_launched", "isAsync": True, "agentId": "b1", "runId": "wf"}
    w.result("c2", "launched", tool_use_result={**launched, "totalDurationMs": 4000})
    records = w.lines
    for _ in range(data.draw(st.integers(1, 4))):
        record = records[data.draw(st.integers(0, len(records) - 1))]
        where = data.draw(st.sampled_from(["top", "message", "usage", "data", "block", "result"]))
        value = data.draw(ODD)
        if where == "result" and isinstance(record.get("toolUseResult"), dict):
            record["toolUseResult"][data.draw(st.sampled_from(RESULT_FIELDS))] = value
        elif where == "top":
            record[data.draw(st.sampled_from(FIELDS))] = value
        elif where == "message" and isinstance(record.get("message"), dict):
            record["message"][
                data.draw(st.sampled_from(["id", "role", "model", "stop_reason"]))
            ] = value
        elif where == "usage" and isinstance(record.get("message"), dict):
            record["message"]["usage"] = {"output_tokens": value, "input_tokens": 3}
        elif where == "block" and isinstance(record.get("message"), dict):
            content = record["message"].get("content")
            if isinstance(content, list) and content:
                block = content[data.draw(st.integers(0, len(content) - 1))]
                key = data.draw(
                    st.sampled_from(
                        ["type", "text", "id", "name", "tool_use_id", "is_error", "content"]
                    )
                )
                block[key] = data.draw(st.one_of(ODD, st.sampled_from(BLOCK_VALUES)))
        elif where == "data" and record.get("type") == "progress":
            record["data"][data.draw(st.sampled_from(["type", "output", "agentId"]))] = value
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    path = folder / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert everything(FMT.open(path, writer_alive=False)) == everything(by_dict(path, monkeypatch))


@pytest.mark.parametrize("status", [["async_launched"], {"a": 1}])
def test_a_result_status_of_another_type_counts_as_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: Any
) -> None:
    """A ``toolUseResult`` whose ``status`` is a list or an object (the odd-types search
    found it): the file is read, the call not taken as launched (it raised TypeError:
    unhashable, a traceback where a field of another type counts as absent)."""
    w = CCWriter()
    w.user("start")
    w.assistant("m1", [text("calling"), tool_use("c1", "Agent", prompt="p")], usage=usage(5, 6))
    w.result("c1", "done", tool_use_result={"status": status, "agentId": "a1"})
    path = w.write(tmp_path / "s.jsonl")
    typed = FMT.open(path, writer_alive=False)
    assert everything(typed) == everything(by_dict(path, monkeypatch))
    assert [op.state for op in typed.tool_operations] == ["completed"]


def test_split_responses_read_again_by_every_span(tmp_path: Path) -> None:
    """A response over several lines is one item whose parts are read again from each
    of its lines; its folded height is what its parts give."""
    from session_core.column_items import Items
    from session_core.item_heights import folded_height

    w = CCWriter()
    w.user("go")
    long = "x" * 3000
    blocks = [text(f"part {n}\n" + long) for n in range(11)]
    w.assistant("m1", [*blocks, tool_use("c1", "Bash", command="ls")], usage=usage(1, 2))
    w.result("c1", "done")
    path = tmp_path / "s.jsonl"
    w.write(path)
    t = FMT.open(path, writer_alive=False)
    raw = t.raw
    assert isinstance(raw, Items)
    [response] = [i for i in raw if i.role == "assistant"]
    assert response.lines == 12
    assert [p.text for p in response.parts[:11]] == [f"part {n}\n" + long for n in range(11)]
    assert response.parts[11].call_id == "c1"
    column = raw._column
    index = next(n for n in range(len(raw)) if raw[n].role == "assistant")
    assert column.parts[index] is None and len(column.more_spans(index)) == 11  # by span, kept none
    assert raw.folded_heights() == [folded_height(item.parts) for item in raw]


@pytest.mark.parametrize(
    "content",
    [
        "[Request interrupted by user for tool use]",
        "  \n[Request interrupted by user for tool use]",
        [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
    ],
)
def test_interrupted_by_its_text_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: Any
) -> None:
    """A tool result that says the user interrupted it (no structured result saying so):
    its operation is interrupted, read either way."""
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [tool_use("c1", "Bash", command="sleep 100")], usage=usage(1, 2))
    w.result("c1", content, is_error=True)
    w.result("c2", "[Request interrupted by user]")  # answers nothing: not a call's state
    path = tmp_path / "s.jsonl"
    w.write(path)
    typed, by_dicts = FMT.open(path, writer_alive=False), by_dict(path, monkeypatch)
    assert [op.state for op in typed.tool_operations] == ["interrupted"]
    assert everything(typed) == everything(by_dicts)


def test_meta_in_a_fixed_order(tmp_path: Path) -> None:
    """The session's facts come in one order, whatever the interpreter's hash seed."""
    from session_core.formats.claude_code.builder import _META_KEYS

    t = FMT.open(story(tmp_path / "projects" / "-p"), writer_alive=False)
    order = [_META_KEYS[k] for k in _META_KEYS]
    found = [key for key in t.meta if key in order]
    assert found == [key for key in order if key in found] and len(found) >= 4


def test_folded_mark_kept_as_a_flag_comes_and_goes() -> None:
    """An item marked folded and nothing else carries a flag (no marks entry); taking the
    flag off gives its other marks back exactly."""
    from session_core.item_column import FOLDED_MARK, ItemColumn
    from session_core.model import Part

    column = ItemColumn("line-")
    index = column.append([Part("text", text="hi")], 1, role="user", ident="u1")
    column.flag(index, FOLDED_MARK)
    assert column.item(index).marks == ["folded"] and index not in column.marks
    column.unflag(index, FOLDED_MARK)
    column.set_marks(index, ["branch"])
    assert column.item(index).marks == ["branch"]
    column.set_marks(index, [])
    assert column.item(index).marks == []


def _flattened(content: Any) -> str:
    from session_core.formats.claude_code.blocks import flatten

    return flatten(content).lstrip()


CONTENTS = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 5),
        st.text(alphabet=' \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u3000[\\"{}aé', max_size=6)
        | st.sampled_from(["[Request interrupted by user]", " \u3000[Request", "\\["]),
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "text"]), inner | st.just("text"), max_size=2)
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(content=CONTENTS, ascii_only=st.booleans())
def test_a_result_that_may_begin_with_a_bracket_is_read(content: Any, ascii_only: bool) -> None:
    """A tool result's text is read (for the words saying the user interrupted) unless
    its JSON shows it can not begin with them: never passed over when it does begin so,
    however the JSON writes its blanks (escaped or not)."""
    import msgspec

    raw = json.dumps(content, ensure_ascii=ascii_only).encode()
    if _flattened(content).startswith("["):
        assert lines._may_begin(msgspec.Raw(raw)), raw


def test_a_result_the_line_decoder_refuses_is_kept_undecoded() -> None:
    """A toolUseResult with facts of other types, or a number out of range: the line is
    still typed, its result undecoded (its facts read from it as far as they can be)."""
    import msgspec

    for result, facts in [
        (b'{"interrupted": "yes", "agentId": "a1"}', (False, "a1")),
        (b"1e400", (False, None)),
    ]:
        raw = b'{"type": "user", "uuid": "u1", "toolUseResult": ' + result + b"}"
        line = lines.decode(raw)
        assert line is not None and isinstance(line.toolUseResult, msgspec.Raw)
        assert lines.result_facts(line.toolUseResult)[:2] == facts
    # (what it does not name is passed over, as big as it may be)
    line = lines.decode(b'{"type": "user", "toolUseResult": {"interrupted": true, "n": 1e400}}')
    assert line is not None and isinstance(line.toolUseResult, lines.ResultFacts)
    assert lines.result_facts(line.toolUseResult)[:2] == (True, None)
