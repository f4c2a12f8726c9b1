"""JSON the viewer shows (a call's arguments, a record, an agentgo call's request, a
checkpoint's snapshot) writes a C1 control character as JSON does, ``\\u009b``, beside
ESC's ``\\u001b``: it showed ``\\x9b``, which is no JSON (the viewer audit). Inert either
way: no control character reaches the screen."""

from __future__ import annotations

import pytest

from session_core.json_out import json_text
from viewer.agentgo_detail import pretty_json
from viewer.agentgo_model import compact_json
from viewer.widgets.agentgo_checkpoints import snapshot_json
from viewer.widgets.items_view import as_json

VALUE = {"command": "echo A\x1b[31mRED I\x9b31mJ \x85 done"}


@pytest.mark.parametrize(
    "show",
    [as_json, pretty_json, compact_json, lambda v: snapshot_json(v).plain, json_text],
    ids=["as_json", "pretty_json", "compact_json", "snapshot_json", "json_text"],
)
def test_a_c1_control_is_written_as_json_writes_it(show: object) -> None:
    shown = show(VALUE)  # type: ignore[operator]
    assert "\\u009b31mJ" in shown and "\\u0085" in shown and "\\u001b[31m" in shown
    assert not any(0x80 <= ord(c) <= 0x9F or (ord(c) < 0x20 and c != "\n") for c in shown)
