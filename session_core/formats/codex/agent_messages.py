"""Another agent's message to this one, as upstream Codex gives it to the model.

An ``agent_message {author, recipient, content: [input_text | encrypted_content]}``
response item is input the model reads, as it reads a user's; an
``inter_agent_communication`` line (``{author, recipient, other_recipients, content,
encrypted_content?, trigger_turn}``) is one as it was delivered (``agent_message_of``):
a v2 subagent's task arrives only so.
"""

from __future__ import annotations

from typing import Any

from ...parts import Part
from .tools import compact

AGENT_MESSAGE = "agent_message"
ENCRYPTED = "encrypted_content"  # (an encrypted block's type, and its part's name)
HEADING = "agent_message_heading"  # (the harness's words before an encrypted block)


def agent_message_of(payload: dict[str, Any]) -> dict[str, Any]:
    """An ``inter_agent_communication`` line's payload as the ``agent_message`` the model
    is given (upstream's ``to_model_input_item``: its content as text; where it is
    encrypted, a heading of who sent what, then the encrypted block). Its
    ``other_recipients`` (the others the same message went to), which the model is not
    given, are kept beside it to be shown (``who_said``)."""
    author, recipient = payload.get("author"), payload.get("recipient")
    encrypted = payload.get(ENCRYPTED)
    blocks: list[dict[str, Any]]
    if isinstance(encrypted, str):
        task = "NEW_TASK" if payload.get("trigger_turn") is True else "MESSAGE"
        heading = (
            f"Message Type: {task}\nTask name: {_path(recipient)}\n"
            f"Sender: {_path(author)}\nPayload:\n"
        )
        blocks = [
            {"type": "input_text", "text": heading},
            {"type": ENCRYPTED, ENCRYPTED: encrypted},
        ]
    else:
        blocks = [{"type": "input_text", "text": payload.get("content")}]
    made = {"type": AGENT_MESSAGE, "author": author, "recipient": recipient, "content": blocks}
    others = payload.get("other_recipients")
    if others:  # (upstream's default: none, ``[]``)
        made["other_recipients"] = others
    return made


def who_said(payload: dict[str, Any]) -> str:
    """Who sent an agent message to whom: ``from /root/worker to /root``, and the others
    it went to where it names any, ``(also to /root/a, /root/b)``."""
    said = f"from {_path(payload.get('author'))} to {_path(payload.get('recipient'))}"
    others = payload.get("other_recipients")
    if not others:
        return said
    listed = others if isinstance(others, list) else [others]
    return f"{said} (also to {', '.join(_path(other) for other in listed)})"


def sealed_part(block: dict[str, Any]) -> Part:
    """An encrypted block, said as one: ``[agent message, encrypted, 812 chars]``."""
    text = block.get(ENCRYPTED)
    size = len(text) if isinstance(text, str) else 0
    return Part("other", f"[agent message, encrypted, {size:,} chars]", name=ENCRYPTED, data=block)


def sealed_prompt(parts: list[Part]) -> str | None:
    """What a turn says of its prompt where another agent's message gave it encrypted:
    that it is (its encrypted block's words), no words of it (None: none is)."""
    return next((p.text for p in parts if p.name == ENCRYPTED and p.kind == "other"), None)


def _path(value: Any) -> str:
    return value if isinstance(value, str) else compact(value)


__all__ = [
    "AGENT_MESSAGE",
    "ENCRYPTED",
    "HEADING",
    "agent_message_of",
    "sealed_part",
    "sealed_prompt",
    "who_said",
]
