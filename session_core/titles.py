"""A session's title, one rule for the browser's row and the export of every format:
the meta's title (one line), else what its first prompt asked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .agentgo.messages import message_text
from .replay import ReplayState, payload_of
from .text import prompt_title

if TYPE_CHECKING:
    from .model import Transcript


def session_title(title: object, first_prompt: str | None) -> str | None:
    """The meta's ``title`` as one line, else ``first_prompt`` (None: neither)."""
    said = prompt_title(title) if isinstance(title, str) else None
    return said or first_prompt


def model_first_prompt(transcript: Transcript) -> str | None:
    """What the first run was asked (a format knows its prompts from injected context),
    else the first user message's text. A run copied from a parent's history (a Codex
    fork's or subagent's) is the parent's: the first of the file's own is asked first.
    A prompt given encrypted (``Run.sealed``) says no words to title a session with."""
    own = [run for run in transcript.runs if not run.copied]
    for run in (*own, *transcript.runs):
        if run.prompt and run.prompt.strip() and not run.sealed:
            return prompt_title(run.prompt)
    for item in transcript.raw:
        if item.role == "user" and item.kind == "message" and item.text.strip():
            return prompt_title(item.text)
    return None


def v1_first_prompt(state: ReplayState) -> str | None:
    """A v1 replay's first user message's text."""
    events = state.events
    for position in state.message_events:
        prompt = v1_prompt(payload_of(events[position]))
        if prompt is not None:
            return prompt
    return None


def v1_prompt(payload: Mapping[str, Any]) -> str | None:
    """A v1 message payload's text where it is a user's that says something."""
    content = payload.get("content")
    if payload.get("role") == "user" and isinstance(content, str):
        return prompt_title(content)
    return None


def agentgo_prompt(message: dict[str, Any]) -> str | None:
    """An agentgo message's text where it is a user's that says something."""
    return prompt_title(message_text(message)) if message.get("kind") == "user" else None


def first_of(prompts: Iterable[str | None]) -> str | None:
    """The first prompt that says something."""
    return next((p for p in prompts if p), None)
