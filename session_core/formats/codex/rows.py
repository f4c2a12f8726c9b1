"""What the replay JSON writes of a packed tool operation's call and result, read again
from their lines typed (as ``lines`` reads the hot lines: msgspec ``Struct``s naming
only what is written, the rest skipped): a call's arguments, and a result that is its
output string as it is, copied from the line as the JSON orjson would write for it.

Each gives ``None`` when the line does not fit (another shape, another call's line):
the operation is then read from its parts (``CodexBuilder.line_parts``), as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import orjson

from ...parts import Part, PartSource
from . import lines
from .items import call_id_from, call_name_of, reasoning_parts_of, result_part
from .tools import decode_output, parse_arguments

_NO_VALUE = msgspec.Raw(b"")


class _Call(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    call_id: str | None = None
    id: str | None = None


class _Named(_Call):
    name: str | None = None
    namespace: str | None = None


class _FunctionCall(_Named, tag="function_call"):
    arguments: str | None = None  # (not a string: read from its parts)


class _CustomToolCall(_Named, tag="custom_tool_call"):
    input: str | None = None


class _Output(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    call_id: str | None = None
    output: msgspec.Raw = _NO_VALUE


class _FunctionCallOutput(_Output, tag="function_call_output"): ...


class _CustomToolCallOutput(_Output, tag="custom_tool_call_output"): ...


class _CallLine(msgspec.Struct, tag_field="type", tag="response_item", gc=False):
    payload: _FunctionCall | _CustomToolCall


class _OutputLine(msgspec.Struct, tag_field="type", tag="response_item", gc=False):
    payload: _FunctionCallOutput | _CustomToolCallOutput


_decode_call = msgspec.json.Decoder(_CallLine).decode
_decode_output = msgspec.json.Decoder(_OutputLine).decode
_decode_string = msgspec.json.Decoder(str).decode


def _payload(source: PartSource, span: int, decode: Callable[[bytes], Any]) -> Any:
    """The payload of the line at ``span`` as ``decode`` reads it; None: the line cannot
    be read again, or is not of that shape."""
    raw = source.line(span)
    if raw is None:
        return None
    try:
        return decode(raw).payload
    except msgspec.MsgspecError:
        return None


def call_arguments(source: PartSource, span: int, call_id: str) -> tuple[Any] | None:
    """The arguments of the call ``call_id`` on the line at ``span`` (in a tuple: they may
    be None), as its part's ``data`` gives them (``items.call_arguments``' rule for a
    function call or a custom tool call); None: read them from its part."""
    payload = _payload(source, span, _decode_call)
    if payload is None or call_id_from(payload.call_id, payload.id, "") != call_id:
        return None  # not that call's line (the file changed): its part says so
    if isinstance(payload, _FunctionCall):
        return (parse_arguments(payload.arguments),)
    return (payload.input,)


def output_json(
    source: PartSource, span: int, call_id: str, fragment: bool = True
) -> orjson.Fragment | str | None:
    """The ``output`` string of the output of ``call_id`` on the line at ``span``, for the
    replay JSON: (``fragment``) its bytes as the line has them where they are what orjson
    writes for it (escapes only of ``"``, ``\\``, ``\\b\\f\\n\\r\\t``), else the string;
    None: not such a line (read it from its part)."""
    payload = _payload(source, span, _decode_output)
    if payload is None or payload.call_id != call_id:
        return None
    value = bytes(payload.output)
    if value[:1] != b'"':
        return None  # not a string: decoded otherwise (``decode_output``)
    if not fragment or b"\\u" in value or b"\\/" in value:  # (escapes orjson writes otherwise)
        return _decode_string(value)
    return orjson.Fragment(value)


def shown_parts(raw: bytes) -> list[Part] | None:
    """The parts of a response item's line as the replay JSON's messages show them
    (``PartSource.shown_parts``), read typed (``lines``): a message's texts, a reasoning,
    a call (its id, tool and arguments: not its shown text), an output (its text and
    outcome); None for any other line, or one that does not fit (``line_parts`` reads it).
    Each by the rule its ``CodexBuilder`` feed uses."""
    decoded = lines.decode(raw)  # (its UTF-8 checked, as orjson's parse would)
    if type(decoded) is not lines.ResponseLine:
        return None
    payload = decoded.payload
    if isinstance(payload, lines.Message):
        texts = lines.text_blocks(payload.content)
        return None if texts is None else [Part("text", text) for text in texts]
    if isinstance(payload, lines.Reasoning):
        summary, content = lines.block_texts(payload.summary), lines.block_texts(payload.content)
        return reasoning_parts_of(summary, content, payload.encrypted_content)
    if isinstance(payload, lines.FunctionCallOutput | lines.CustomToolCallOutput):
        return [result_part(decode_output(payload.output), payload.call_id)]
    if not isinstance(payload, lines.FunctionCall | lines.CustomToolCall):
        return None
    try:
        call = _decode_call(raw).payload
    except msgspec.MsgspecError:
        return None
    if isinstance(call, _FunctionCall):
        arguments: Any = parse_arguments(call.arguments)
    else:
        arguments = call.input
    name = call_name_of(lines.TAG[type(payload)], call.name, call.namespace)
    return [Part("tool-call", "", call_id_from(call.call_id, call.id, ""), name, arguments)]


__all__ = ["call_arguments", "output_json", "shown_parts"]
