"""agentgo's skim of a big model_request (simdjson) takes exactly what orjson takes.

The skim validates a line and reads its envelope without building the messages and
tools it skips; the whole parse (orjson) is the rule. So whatever the skim takes, orjson
takes too, and the skim's record is what the view would have taken of orjson's: any line
the skim declines goes to orjson, which gives the error.
"""

from __future__ import annotations

import threading
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from session_core.agentgo.reader import SKIM_OVER, skim_request

ENVELOPE = ("type", "seq", "session_id", "run_id", "time", "execution")


def _request(**data: Any) -> bytes:
    record = {
        "seq": 7,
        "type": "model_request",
        "session_id": "s-1",
        "run_id": "r-1",
        "time": "2026-12-04T09:00:00Z",
        "execution": {"step": 3, "attempt": 1},
        "data": {
            "config": {"model": "m-1", "temperature": 0.25, "max_tokens": 1024},
            "messages": [{"role": "user", "content": 'héllo ✓ \\ " 𝄞 ' * 400}],
            "tools": [{"name": "read", "schema": {"type": "object"}}],
            **data,
        },
    }
    raw = orjson.dumps(record)
    assert len(raw) > SKIM_OVER
    return raw


LINE = _request()


def _as_the_view_takes(raw: bytes) -> dict[str, Any] | None:
    """What the view takes of orjson's parse of a model_request line."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict) or value.get("type") != "model_request":
        return None
    data = value.get("data")
    if not isinstance(data, dict):  # (missing or null too: misshapen, kept raw)
        return None
    record = {key: found for key in ENVELOPE if (found := value.get(key)) is not None}
    config = data.get("config")
    record["data"] = {} if config is None else {"config": config}
    return record


def test_a_request_is_skimmed_to_its_envelope_and_config() -> None:
    skimmed = skim_request(LINE)
    assert skimmed == _as_the_view_takes(LINE)
    assert skimmed is not None and set(skimmed["data"]) == {"config"}
    assert skim_request(memoryview(LINE)) == skimmed  # follow's lines are views


# What orjson refuses and a parser might take, and what it takes that one might refuse.
TRICKY = [
    b"\xef\xbb\xbf",  # a byte order mark: simdjson skips it
    b"1e400",  # beyond a double
    b'"\\ud800"',  # a lone surrogate escape
    b'"\\udc00x"',
    b"18446744073709551616",  # beyond 64 bits
    b"-9223372036854775809",
    b"18446744073709551615",
    b"-0",
    b"1.0e-400",
    b'"\\u0000"',
    b'"type":"model_response",',  # a repeated key: orjson keeps the last
    b'"data":null,',
    b'"config":[1],',
    b"\x00",
    b"\x01",
    b"\t",
    b"\r\n",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",  # a surrogate written as UTF-8
    b"\xf4\x90\x80\x80",  # beyond U+10FFFF
    b"[" * 1100,
    b",",
    b"}",
]


@settings(max_examples=400, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.integers(0, len(LINE)),
            st.one_of(st.sampled_from(TRICKY), st.binary(min_size=1, max_size=4)),
            st.integers(0, 3),  # bytes cut at the same place
        ),
        min_size=1,
        max_size=3,
    )
)
def test_the_skim_takes_only_what_orjson_takes(edits: list[tuple[int, bytes, int]]) -> None:
    raw = LINE
    for at, inserted, cut in edits:
        at = min(at, len(raw))
        raw = raw[:at] + inserted + raw[at + cut :]
    skimmed = skim_request(raw)
    if skimmed is not None:
        assert skimmed == _as_the_view_takes(raw)


def test_what_the_skim_declines_is_left_to_orjson() -> None:
    for raw in (
        b"\xef\xbb\xbf" + LINE,  # orjson refuses it
        LINE[:-1] + b',"type":"model_response"}',  # orjson keeps the last
        LINE.replace(b'"data":{', b'"data":{"config":null,', 1),  # data's key repeated
        LINE.replace(b'"config":{', b'"config":1e400,"x":{', 1),
        LINE.replace(b'"messages":[', b'"messages":[1e400,', 1),
        LINE.replace(b'"messages":[', b'"messages":["\\ud800",', 1),
        LINE.replace(b'"messages":[', b'"messages":["\xff",', 1),
        LINE.replace(b'"type":"model_request"', b'"type":"model_response"'),
        LINE.replace(b'"data":{', b'"data":[{', 1)[:-1] + b"]}",
        LINE.replace(b'"data":{', b'"data":null,"x":{', 1),  # misshapen: parsed whole
        LINE.replace(b'"data":{', b'"x":{', 1),  # no data: the same
    ):
        assert skim_request(raw) is None, raw[:80]


def test_each_thread_skims_with_a_parser_of_its_own() -> None:
    """The viewer's loader and its follower read at once: simdjson's parser may not be
    reused while a document of it is alive, so each thread has its own."""
    want = skim_request(LINE)
    found: list[bool] = []

    def skim_many() -> None:
        found.append(all(skim_request(LINE) == want for _ in range(200)))

    threads = [threading.Thread(target=skim_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [True] * 4
