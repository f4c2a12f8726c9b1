"""Codex's hot lines as typed msgspec ``Struct``s: only what the builder reads of them.

A rollout line is mostly what the builder never reads at load time (a turn context's
instructions, a call's arguments, rate limits, encrypted reasoning is read but
little else): msgspec skips every field a ``Struct`` does not name without building
it, so these lines decode in a fraction of what a full parse takes. What is not
decoded stays in the file and is read again by span (``CodexBuilder.line_parts``)
when it is shown.

``decode`` gives ``None`` for every line that does not fit these shapes exactly (an
unknown type, a field of another type, a number orjson would not read as an int):
the builder then parses it with orjson and reads it as a dict, so nothing is lost.
Field types are the ones the dict path accepts without a second thought; anything
it would treat as odd makes the line fall back.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...int64 import Int  # (bigger ones fall back)
from ...utf8 import is_utf8
from .items import TEXT_BLOCKS

NO_VALUE = msgspec.Raw(b"")  # a Raw field that was not there


class TextBlock(msgspec.Struct, gc=False):
    """A content or summary block (which types are text is the reader's rule)."""

    type: str | None = None
    text: str | None = None


Blocks = list[TextBlock] | str | None


class _Payload(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    pass


# -- response items ---------------------------------------------------------------------


class Message(_Payload, tag="message"):
    role: str | None = None
    content: Blocks = None


class Reasoning(_Payload, tag="reasoning"):
    summary: Blocks = None
    content: Blocks = None
    encrypted_content: str | None = None


class _Call(_Payload):
    call_id: str | None = None
    id: str | None = None
    name: str | None = None
    namespace: str | None = None
    status: str | None = None


class FunctionCall(_Call, tag="function_call"): ...


class CustomToolCall(_Call, tag="custom_tool_call"): ...


class LocalShellCall(_Call, tag="local_shell_call"): ...


class WebSearchCall(_Call, tag="web_search_call"):
    action: msgspec.Raw = NO_VALUE  # what it did: read when no id names it (a search of old)


class _Output(_Payload):
    call_id: str | None = None
    id: str | None = None
    output: str | None = None  # a list or an object of content falls back


class FunctionCallOutput(_Output, tag="function_call_output"): ...


class CustomToolCallOutput(_Output, tag="custom_tool_call_output"): ...


Call = FunctionCall | CustomToolCall | LocalShellCall | WebSearchCall
Output = FunctionCallOutput | CustomToolCallOutput
ResponsePayload = Message | Reasoning | Call | Output

# -- events -----------------------------------------------------------------------------


class TokenInfo(msgspec.Struct, gc=False):
    total_token_usage: dict[str, Int] | None = None
    last_token_usage: dict[str, Int] | None = None
    model_context_window: Int | None = None


class TokenCount(_Payload, tag="token_count"):
    info: TokenInfo | None = None
    rate_limits: msgspec.Raw = NO_VALUE  # decoded only when asked for (the latest)
    # An older writer's usage, flat on the event: such a line takes the dict path (any
    # of ``usage._KEYS``, as ``usage.feed`` takes one: ``flat``).
    input_tokens: msgspec.Raw = NO_VALUE
    cached_input_tokens: msgspec.Raw = NO_VALUE
    output_tokens: msgspec.Raw = NO_VALUE
    reasoning_output_tokens: msgspec.Raw = NO_VALUE
    cache_write_input_tokens: msgspec.Raw = NO_VALUE

    def flat(self) -> bool:
        """Does it say a usage flat on the event (a key there, of any value)?"""
        return bool(
            self.input_tokens
            or self.cached_input_tokens
            or self.output_tokens
            or self.reasoning_output_tokens
            or self.cache_write_input_tokens
        )


class _Turn(_Payload):
    turn_id: str | None = None


class TaskStarted(_Turn, tag="task_started"): ...


class TaskComplete(_Turn, tag="task_complete"): ...


class TurnComplete(_Turn, tag="turn_complete"): ...


class TurnAborted(_Turn, tag="turn_aborted"):
    reason: Any = None  # (``interrupted``, ``replaced``, ``review_ended``: a str, as written)


class UserMessage(_Payload, tag="user_message"):
    message: str
    kind: str | None = None  # (0.2x–0.3x: what Codex injected is not "plain")


class AgentMessage(_Payload, tag="agent_message"):
    message: str


class AgentReasoning(_Payload, tag="agent_reasoning"):
    text: str


Ended = TaskComplete | TurnComplete | TurnAborted
Legacy = UserMessage | AgentMessage | AgentReasoning
EventPayload = TokenCount | TaskStarted | Ended | Legacy

# -- lines ------------------------------------------------------------------------------


class _Line(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    timestamp: str | None = None


class ResponseLine(_Line, tag="response_item"):
    payload: ResponsePayload


class EventLine(_Line, tag="event_msg"):
    payload: EventPayload


class ContextLine(_Line, tag="turn_context"):
    payload: msgspec.Raw  # hashed; parsed only the first time it is seen


Line = ResponseLine | EventLine | ContextLine


def _tags(*classes: type[msgspec.Struct]) -> dict[type, str]:
    found: dict[type, str] = {}
    for cls in classes:
        tag = cls.__struct_config__.tag
        if isinstance(tag, str):
            found[cls] = tag
        found.update(_tags(*cls.__subclasses__()))
    return found


TAG = _tags(_Payload)  # each payload Struct's type, as the line names it


def text_blocks(content: Blocks) -> list[str] | None:
    """A message's content as its texts; None when a block is not text (an image, a
    refusal: the dict path reads those)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for block in content:
        if block.text is None or block.type not in TEXT_BLOCKS:
            return None
        texts.append(block.text)
    return texts


def block_texts(blocks: Blocks) -> list[str]:
    """A summary's (or reasoning content's) texts, as ``items._texts`` reads them."""
    if blocks is None:
        return []
    if isinstance(blocks, str):
        return [blocks]
    return [block.text for block in blocks if block.text is not None]


_DECODER = msgspec.json.Decoder(Line)
_decode = _DECODER.decode


def decode(raw: bytes) -> Line | None:
    """A hot line, typed; None when it does not fit (the orjson dict path reads it)."""
    try:
        line = _decode(raw)
    except (msgspec.MsgspecError, RecursionError):  # (``indexing.IndexError_``)
        return None
    if type(line) is ContextLine or is_utf8(raw):  # a context's is checked by the builder
        return line
    return None


def decode_ascii(raw: bytes | memoryview) -> Line | None:
    """``decode`` of a line known to be ASCII (no UTF-8 to check), from its bytes or a
    view of them."""
    try:
        return _decode(raw)
    except (msgspec.MsgspecError, RecursionError):  # (``indexing.IndexError_``)
        return None


def rest_is_utf8(raw: bytes, payload: msgspec.Raw) -> bool:
    """Is a line valid UTF-8 outside its payload (whose bytes were checked otherwise)?"""
    end = len(raw) - 1
    start = end - len(payload)
    # The payload is last (as every writer puts it) and what comes before is ASCII.
    if raw[end:] == b"}" and raw.endswith(payload, 0, end) and raw[:start].isascii():
        return True
    return is_utf8(raw)


__all__ = [
    "TAG",
    "Blocks",
    "Call",
    "ContextLine",
    "Ended",
    "EventLine",
    "Legacy",
    "Line",
    "Message",
    "Output",
    "Reasoning",
    "ResponseLine",
    "TaskStarted",
    "TextBlock",
    "TokenCount",
    "TokenInfo",
    "block_texts",
    "decode",
    "decode_ascii",
    "rest_is_utf8",
    "text_blocks",
]
