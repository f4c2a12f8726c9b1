"""Response items into the replayed view (``CodexResponses``): each one a raw item and an
entry of the view (its fingerprint beside it), its calls and outputs handed to the
pairing, typed (``lines``) or parsed; and ``_add``, the raw item every other line makes
(``_sent`` is it inline)."""

from __future__ import annotations

from typing import Any

import orjson

from ...item_heights import folded_height
from ...parts import Part
from ...text import str_or_none
from . import lines
from .agent_messages import AGENT_MESSAGE, sealed_prompt
from .calls import CodexCalls, no_call_id
from .items import (
    CALL_TYPES,
    NEEDS_CALL_ID,
    OUTPUT_TYPES,
    PROMPT_TYPES,
    SETTLED_BY_STATUS,
    STICKY_ROLES,
    call_id_from,
    call_key,
    call_name_of,
    carried_result,
    fingerprint,
    hosted_search,
    message_key,
    named,
    output_of,
    reasoning_key,
    reasoning_parts_of,
    response_item,
    result_part,
    sent_with,
    settled_by_status,
)
from .lines import block_texts, text_blocks
from .state import _PACKED, RESPONSE
from .tools import decode_output

_ANSWERS = ("assistant", "tool")
# What Codex injects as user messages (its context tags, a project's instructions): no prompt.
_INJECTED = ("<", "# AGENTS.md")


def injected(kind: object) -> bool:
    """Whether a ``user_message`` event's ``kind`` (0.2x–0.3x: ``plain``,
    ``user_instructions``, ``environment_context``, ...) says Codex wrote it itself."""
    return isinstance(kind, str) and kind not in ("plain", "user")


def prompt_of(parts: list[Part]) -> str | None:
    """What a person typed in a user message: its texts but those Codex injected (None:
    all of it was injected)."""
    texts = [
        p.text for p in parts if p.kind == "text" and not p.text.lstrip().startswith(_INJECTED)
    ]
    return (
        "\n".join(texts) if texts else None
    )  # what a run answers with (a prompt may come before its event)


class CodexResponses(CodexCalls):
    def _add(
        self,
        parts: list[Part],
        line: int,
        role: str,
        kind: str,
        ts: str | None,
        *,
        keep: bool = False,
        model: str | None = None,
        sticky: bool = False,
    ) -> int:
        """One raw item (its parts read again by span unless ``keep``); its index."""
        return self._append(
            parts,
            line,
            ts,
            role=role,
            kind=kind,
            model=model,
            sticky=sticky,
            span=self.span,
            keep=keep,
        )

    # -- response items ---------------------------------------------------------------

    def _response(
        self, payload: dict[str, Any], line: int, ts: str | None, metadata: Any = None
    ) -> None:
        """A response item; ``metadata``: the harness's, its line's beside the payload."""
        kind = payload.get("type")
        item_id = f"L{line}"
        if kind in OUTPUT_TYPES:
            outcome = decode_output(output_of(payload))
            written = payload.get("call_id")
            key = call_key(kind, str_or_none(written), str_or_none(payload.get("id")))
            part = result_part(outcome, written)
            index = self._sent(kind, [part], "tool", "message", False, key, line, ts)
            if kind == "tool_search_output" and hosted_search(payload):
                self._hosted_output(part.call_id, outcome, index, line, ts, part)
                return
            odd = None if isinstance(written, str) else written  # (a number: said as written)
            self._output(part.call_id, outcome, index, line, ts, part, written=odd)
            return
        item = response_item(payload, item_id, line, ts, metadata)
        if not sent_with(kind, metadata):
            if self.best != RESPONSE:
                self._settle_source(RESPONSE)
            self._add(item.parts, line, item.role, "record", ts)
            if not named(kind):  # (kept raw, not sent: listed as written)
                self.other_record(line, kind, payload)
            return
        key = message_key(item.role, item.parts) if kind == "message" else fingerprint(payload)
        # A call named by its line alone is kept whole: ``line_parts`` does not know it.
        keep = kind in CALL_TYPES and item.parts[0].call_id == item_id
        index = self._sent(kind, item.parts, item.role, item.kind, item.sticky, key, line, ts, keep)
        if kind in CALL_TYPES:
            part = item.parts[0]
            tool = part.name or "?"
            call_id = part.call_id or item_id
            if kind in NEEDS_CALL_ID and call_id != payload.get("call_id"):
                self.warnings.append(no_call_id(kind, payload, call_id, line))
            by_status = settled_by_status(payload)
            at = self._call(by_status, call_id, tool, payload.get("status"), index, line, ts, part)
            if kind == "tool_search_call" and by_status:
                self.hosted_search = at  # (its output, next: ``_hosted_output``)
            carried = carried_result(payload)
            if carried is not None:
                self._carried(call_id, carried, line)

    def _typed_output(
        self, payload: lines.Output, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        kind = lines.TAG[type(payload)]
        outcome = decode_output(payload.output)
        call_id = payload.call_id or None  # (a str or None: ``output_call_id``'s rule, inline)
        key = call_key(kind, payload.call_id, payload.id)
        index = self._sent(kind, _PACKED, "tool", "message", False, key, line, ts)
        self._output(call_id, outcome, index, line, ts, None, outcome.text is payload.output)
        return True

    def _typed_call(
        self, payload: lines.Call, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        kind = lines.TAG[type(payload)]
        if not payload.call_id and kind in NEEDS_CALL_ID:
            return False  # (named otherwise, and warned of: the dict path says as written)
        if not payload.call_id and not payload.id:  # named by its line: kept whole
            if type(payload) is not lines.WebSearchCall:
                return False  # its arguments are not decoded: the dict path reads it
            return self._web_search(payload, line, ts)
        call_id = call_id_from(payload.call_id, payload.id, "")
        key = call_key(kind, payload.call_id, payload.id)
        index = self._sent(kind, _PACKED, "assistant", "message", False, key, line, ts)
        tool = call_name_of(kind, payload.name, payload.namespace) or "?"
        by_status = kind in SETTLED_BY_STATUS  # (no tool search is typed)
        self._call(by_status, call_id, tool, payload.status, index, line, ts, None)
        return True

    def _web_search(self, payload: lines.WebSearchCall, line: int, ts: str | None) -> bool:
        """A web search that no id names (older writers), as the dict path reads it: its
        action is all it says beyond what was decoded."""
        record: dict[str, Any] = {"type": "web_search_call"}
        for key in ("call_id", "id", "name", "namespace", "status"):
            value = getattr(payload, key)
            if value is not None:
                record[key] = value
        if payload.action:
            try:
                record["action"] = orjson.loads(memoryview(payload.action))
            except orjson.JSONDecodeError:
                return False
        self._response(record, line, ts)
        return True

    def _typed_message(
        self, payload: lines.Message, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        texts = text_blocks(payload.content)
        if texts is None:
            return False  # a block that is not text: the dict path reads it
        role = payload.role or "user"
        parts = [Part("text", text) for text in texts]
        key = message_key(role, parts)
        self._sent("message", parts, role, "message", role in STICKY_ROLES, key, line, ts)
        return True

    def _typed_reasoning(
        self, payload: lines.Reasoning, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        summary = block_texts(payload.summary)
        encrypted = payload.encrypted_content
        parts = reasoning_parts_of(summary, block_texts(payload.content), encrypted)
        key = reasoning_key(encrypted, summary)
        self._sent("reasoning", parts, "assistant", "message", False, key, line, ts)
        return True

    def _sent(
        self,
        kind: Any,
        parts: list[Part],
        role: str,
        item_kind: str,
        sticky: bool,
        key: int,
        line: int,
        ts: str | None,
        keep: bool = False,
    ) -> int:
        """A response item the model sees: a raw item, and an entry of the replayed view
        (``key`` its fingerprint). Its index."""
        if self.best != RESPONSE:
            self._settle_source(RESPONSE)
        raw = self.raw
        span = self.span
        if span and not keep and raw.source is not None:  # ``_add``'s, packed
            index = raw.append_packed(  # (``_packed``'s, inline: once for every item)
                line,
                span,
                raw.code(role),
                self.message if item_kind == "message" else raw.code(item_kind),
                self.model_code if role == "assistant" else 0,
                None,
                2 if parts is _PACKED else folded_height(parts),
                len(parts),
                sticky,
                ts is not None,
            )
            if ts is not None:
                self.stamps.put(index, ts)
        else:
            index = self._append(
                parts,
                line,
                ts,
                role=role,
                kind=item_kind,
                model=self.model if role == "assistant" else None,
                sticky=sticky,
                span=span,
                keep=keep,
            )
        if role == "assistant":
            self.tally.spoke = True  # (a model output: its report is no repeat)
            if self.open_run >= 0:  # (``_spoken``'s, inline: for every item)
                self.runs[self.open_run].answered = True
            else:
                self._runless_spoken()
            early = self.early_usage
            if early is None:
                self.last_response = index
            else:  # its request's usage came first
                self.response_usage.set(index, early)
                self.early_usage = None
                self.usage_first = True
        self.view.codes.append(index)  # (``View.append``'s, for an index)
        self.view_keys.append(key)
        if self.open_run >= 0:
            run = self.runs[self.open_run]
            run.items += 1
            if self.implicit and role in _ANSWERS:  # a prompted run ends with its last
                self.answered = kind == "message" and role == "assistant"  # answer
                self.implicit_last = (line, ts)
            if role == "user" and run.prompt is None and kind in PROMPT_TYPES:
                run.prompt = prompt_of(parts)
                if run.prompt is None and kind == AGENT_MESSAGE:  # (given it encrypted)
                    run.prompt = sealed_prompt(parts)
                    run.sealed = run.prompt is not None
        else:  # (the run an end event makes takes it)
            self.runless_items += 1
        return index


__all__ = ["CodexResponses"]
