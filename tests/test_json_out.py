"""``session_core.json_out``: JSON of any value read from a transcript, never an error."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from session_core.indexing import RECURSION_LIMIT
from session_core.json_out import TOO_DEEP, compact_json, dumps


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "option",
    [0, orjson.OPT_INDENT_2, orjson.OPT_SORT_KEYS, orjson.OPT_APPEND_NEWLINE],
)
def test_what_orjson_writes_is_written_as_orjson_writes_it(option: int) -> None:
    value = {"b": [1, 2.5, None, True], "a": {"é": "😀"}}
    assert dumps(value, option) == orjson.dumps(value, option=option)


@pytest.mark.parametrize("pretty", [False, True])
def test_a_value_too_deep_for_orjson_is_written_by_the_standard_library(pretty: bool) -> None:
    value = {"z": 1, "a": nested(300)}  # orjson writes 254 levels
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(value)
    option = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
    option |= orjson.OPT_INDENT_2 if pretty else 0
    written = dumps(value, option)
    assert json.loads(written) == value
    assert written.endswith(b"\n") and written.isascii()
    assert written.index(b'"a"') < written.index(b'"z"')  # sorted
    assert (b"\n  " in written) is pretty


def test_a_value_too_deep_for_both_is_a_note_not_an_error() -> None:
    deeper = nested(RECURSION_LIMIT + 2000)  # (past the limit the CLI may have raised)
    assert json.loads(dumps(deeper)) == TOO_DEEP
    assert compact_json(deeper) == json.dumps(TOO_DEEP)


def test_compact_json_takes_keys_of_other_types_and_objects_that_are_not_json() -> None:
    assert compact_json({1: "a"}) == '{"1":"a"}'
    assert compact_json({"at": object}) == orjson.dumps({"at": str(object)}).decode()
