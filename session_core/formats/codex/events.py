"""The Codex builder's events layer (``CodexEvents``): an ``event_msg`` line (read as a
dict, or typed by ``feed_line``), an older writer's ``user_message`` / ``agent_message``
/ ``agent_reasoning`` events and a newer one's ``item_completed`` items."""

from __future__ import annotations

from typing import Any

from ...item_heights import shape_height, text_rows
from ...model import Item
from ...parts import Part
from ...text import str_or_none
from . import lines
from .completed import completed_tool
from .event_words import ERRORS, NOT_A_NAME, event_parts, thread_name
from .fork_copy import before_count
from .items import (
    completed_item,
)
from .responses import injected
from .rewrites import CodexRewrites
from .state import _PACKED, COMPLETED, EVENT
from .tools import compact

_LEGACY = {
    "user_message": "user",
    "agent_message": "assistant",
    "agent_reasoning": "assistant",
    "agent_reasoning_raw_content": "assistant",  # (the raw reasoning a reasoning item holds)
}
_THOUGHT = frozenset(("agent_reasoning", "agent_reasoning_raw_content"))  # their key: "text"
_ENDED: dict[str, Any] = {
    "task_complete": "finished",
    "turn_complete": "finished",
    "turn_aborted": "aborted",
}


class CodexEvents(CodexRewrites):
    # -- events -----------------------------------------------------------------------

    def _event(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        kind = str_or_none(payload.get("type"))
        if kind == "token_count":
            if self.fork_copy is not None:  # (a fork's: past its copy, its own count)
                before_count(self, line)
            self._token_count(self.tally.feed(payload, self.model, ts), line, ts)
            return
        if kind in _LEGACY:
            text = payload.get("text" if kind in _THOUGHT else "message")
            text = text if isinstance(text, str) else compact(text)
            self._legacy(kind, text, line, ts, injected(payload.get("kind")))
            return
        if kind == "thread_rolled_back":
            self._rolled_back(payload, line, ts)
            return
        if kind == "item_completed":
            shown = self._item_completed(payload, f"L{line}", line, ts)
            if shown is None:  # (in words where they are known: a sleep)
                parts, role = event_parts(kind, payload), "system"
            else:  # (kept: the parts are not what the line says as they are)
                parts, role = shown.parts, shown.role
            model = self.model if role == "assistant" else None  # (its turn's, as a response's)
            self._add(parts, line, role, "event", ts, keep=True, model=model)
            return
        if kind == "task_started":
            self._start_run(str_or_none(payload.get("turn_id")), line, ts)
        elif kind in _ENDED:
            turn, reason = str_or_none(payload.get("turn_id")), str_or_none(payload.get("reason"))
            self._end_run(_ENDED[kind], turn, line, ts, reason)
        elif kind in ("exec_command_end", "patch_apply_end", "mcp_tool_call_end"):
            self._late_outcome(kind, payload)
        elif kind == "image_generation_end":
            self._image_saved(payload)
        elif kind == "thread_name_updated" and payload.get("thread_id") in (
            None,
            self.meta.get("id"),
        ):
            # The name the user gave this thread (the latest: none where it was cleared; a
            # name that is no string changes nothing); a fork's copy of its parent's names
            # the parent.
            name = thread_name(payload)
            if name is not NOT_A_NAME:
                self.thread_name = name if isinstance(name, str) else None
        packed = self._by_span()
        parts = _PACKED if packed else event_parts(kind, payload)
        self._add(parts, line, "system", "error" if kind in ERRORS else "event", ts)

    def _typed_token_count(
        self, payload: lines.TokenCount, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        info = payload.info
        if info is None and payload.flat():
            return False  # usage flat on the event (2025): the dict path reads it
        if self.fork_copy is not None:  # (a fork's: past its copy, its own count)
            before_count(self, line)
        tally = self.tally
        tally.limits_json(bytes(payload.rate_limits))
        if info is None:
            said = tally.take(False, None, None, None, self.model, ts)
        else:
            said = tally.take(
                True,
                info.model_context_window,
                info.total_token_usage,
                info.last_token_usage,
                self.model,
                ts,
            )
        self._token_count(said, line, ts)
        return True

    def _typed_said(
        self,
        payload: lines.UserMessage | lines.AgentMessage,
        raw: bytes | memoryview,
        line: int,
        ts: str | None,
    ) -> bool:
        said = injected(payload.kind) if type(payload) is lines.UserMessage else False
        self._legacy(lines.TAG[type(payload)], payload.message, line, ts, said)
        return True

    def _typed_thought(
        self, payload: lines.AgentReasoning, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        self._legacy("agent_reasoning", payload.text, line, ts)
        return True

    def _typed_turn(
        self,
        payload: lines.TaskStarted | lines.Ended,
        raw: bytes | memoryview,
        line: int,
        ts: str | None,
    ) -> bool:
        if type(payload) is lines.TaskStarted:
            self._start_run(payload.turn_id, line, ts)
        else:
            reason = payload.reason if type(payload) is lines.TurnAborted else None
            self._end_run(_ENDED[lines.TAG[type(payload)]], payload.turn_id, line, ts, reason)
        self._packed(line, self.system, self.event, 0, ts, 2)
        return True

    def _legacy(
        self, kind: str, text: str, line: int, ts: str | None, injected: bool = False
    ) -> None:
        """An older writer's ``user_message`` / ``agent_message`` / ``agent_reasoning``;
        ``injected``: a user message Codex wrote of its own (no prompt, no turn)."""
        role = _LEGACY[kind]
        thought = kind in _THOUGHT
        if role == "assistant":
            self._spoken()  # (a model output: its report is no repeat)
        if kind == "user_message" and not injected:
            if self.open_run < 0 or self.implicit:  # a prompt outside a turn starts one
                if self.implicit:
                    self._end_implicit(self.runs[self.open_run])
                self._prompted(line, ts)
            self._prompt(text)
        if self.best < EVENT and self._by_span():
            # Shown from the response items: its item read again by span, its height that
            # of its one part (``folded_height``'s, without making the part).
            height = 2 if thought else shape_height(text_rows(text), 0)
            self._packed(line, self.raw.code(role), self.event, 0, ts, height)
            return
        part = Part("reasoning" if thought else "text", text)
        if self.best >= EVENT:
            self.best = EVENT
            self._shown(EVENT, Item(f"L{line}", role, [part], line, ts=ts))
            self.lazy([part])  # kept in that view: its long text stays in the file
        self._add([part], line, role, "event", ts)

    def _prompt(self, text: str) -> None:
        """What the person typed (a user_message, or 0.149+'s UserMessage item) is its
        turn's prompt: the turn's first user response item may be injected context."""
        run = self._run()
        if run is not None and self.open_run not in self.prompt_from_event:
            run.prompt, run.sealed = text, False
            self.prompt_from_event.add(self.open_run)

    def _item_completed(
        self, payload: dict[str, Any], item_id: str, line: int, ts: str | None
    ) -> Item | None:
        """A newer writer's completed item: the conversation's message or tool call it
        is (None: neither)."""
        item = payload.get("item")
        if not isinstance(item, dict):
            return None
        conversation = completed_item(item, item_id, line, ts)
        if conversation is not None:
            if conversation.role == "assistant":
                self._spoken()
                conversation.model = self.model  # (its turn's, as a response item's)
            if item.get("type") == "UserMessage":
                self._prompt("\n".join(p.text for p in conversation.parts if p.kind == "text"))
            if self.best >= COMPLETED:
                self._settle_source(COMPLETED)
                self._shown(COMPLETED, conversation)
            return conversation
        run = self._run()
        tool = completed_tool(item, item_id, line, ts, run.id if run is not None else None)
        if tool is None:
            return None
        shown, op = tool
        self._spoken()  # (the model's call)
        if self.best >= COMPLETED:
            self._settle_source(COMPLETED)
            # Sent as a call and its answer, as response items say the same: two messages.
            call = [p for p in shown.parts if p.kind != "tool-result"]
            answer = [p for p in shown.parts if p.kind == "tool-result"]
            self._shown(COMPLETED, Item(shown.id, "assistant", call, line, ts=ts, model=self.model))
            if answer:
                self._shown(COMPLETED, Item(f"{shown.id}.result", "tool", answer, line, ts=ts))
            self.tier_ops.append(op)
        return shown


__all__ = ["CodexEvents"]
