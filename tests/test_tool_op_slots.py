"""Every tool operation a format makes has every field of ``ToolOp`` set: formats that
make theirs by ``__new__`` (v1, agentgo, Codex's packed ones) set each slot by hand, and a
field added to ``ToolOp`` and missed by one was an ``AttributeError`` wherever it was read
(``launched``, read by ``open_work`` and the op's ``repr``). (``contract_helpers``'
fixtures: every registered format's sample.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from contract_helpers import open_transcript

from session_core.formats import TranscriptFormat
from session_core.tool_ops import ToolOp


def test_every_operation_has_every_field_of_a_tool_op(fmt: TranscriptFormat, sample: Path) -> None:
    ops = list(open_transcript(sample).tool_operations)  # type: ignore[attr-defined]
    assert ops, f"{fmt.name}'s sample has no tool operation to look at"
    names = [field.name for field in dataclasses.fields(ToolOp)]
    for op in ops:
        for name in names:
            getattr(op, name)  # (an unset slot raises AttributeError)
        repr(op)
