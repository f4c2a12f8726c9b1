"""Codex response items (what goes to and comes from the model) as conversation items.

One ``response_item`` line is one ``Item``; the same functions turn the items of a
compaction's ``replacement_history`` into the replayed view. ``fingerprint`` says when
a replacement item is an earlier item kept (the writer copies it as it was).
"""

from __future__ import annotations

from typing import Any

from ...model import Item
from ...parts import Part
from ...text import str_or_none
from .agent_messages import (
    AGENT_MESSAGE,
    ENCRYPTED,
    HEADING,
    agent_message_of,
    sealed_part,
    who_said,
)
from .configuration import CONFIGURATION, configuration_said, harness_authored, without_metadata
from .tools import (
    Outcome,
    audio_url,
    compact,
    decode_output,
    generated_image,
    image_text,
    parse_arguments,
    shown_arguments,
)

STICKY_ROLES = ("developer", "system")
CALL_TYPES = (
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "image_generation_call",
)
OUTPUT_TYPES = (
    "function_call_output",
    "custom_tool_call_output",
    "mcp_tool_call_output",
    "tool_search_output",
)
# Calls that say how they ended themselves (by their ``status``): no output answers them.
SETTLED_BY_STATUS = ("web_search_call", "image_generation_call")
# Calls an output answers by their ``call_id`` alone (upstream requires it: a
# ``local_shell_call``'s may be its ``id``, as Codex pairs it): one without is warned of.
NEEDS_CALL_ID = ("function_call", "custom_tool_call")
# Response items Codex never sends to the model (kept in the raw view only).
NOT_SENT = ("ghost_snapshot",)
# The encrypted compaction item (``compaction_summary``: its older name, which upstream
# still reads as it, ``#[serde(alias)]``; ``context_compaction``: the newer marker, its
# ``encrypted_content`` optional).
COMPACTION_TYPES = ("compaction", "compaction_summary", "context_compaction")
# The tools a turn adds to those the model may call (``additional_tools {role, tools}``).
ADDED_TOOLS = "additional_tools"
# The response items Codex sends to the model: what the replayed view holds.
_KINDS = ("message", "reasoning", AGENT_MESSAGE, ADDED_TOOLS)
SENT = frozenset((*_KINDS, *CALL_TYPES, *OUTPUT_TYPES, *COMPACTION_TYPES))
# The items whose text is a turn's prompt where the turn has none yet (a user's, or the
# task another agent gave: a v2 subagent's arrives so, and nothing else says it).
PROMPT_TYPES = ("message", AGENT_MESSAGE)


def sent(item_type: object) -> bool:
    """Whether Codex sends a response item of ``item_type`` to the model, at the top
    level or copied into a compaction's history: not an undo snapshot (``NOT_SENT``:
    upstream keeps it there so that ``/undo`` still works, and leaves it out of each
    request), nor an item of a type this reader does not name (upstream reads such an
    item as ``Other``, which no request holds: ``is_api_message``), kept and shown raw.
    ``SENT`` is the variants upstream's ``should_persist_response_item`` keeps."""
    return type(item_type) is str and item_type in SENT  # (a type written as a list: none)


def named(item_type: object) -> bool:
    """Is ``item_type`` a response item type this reader names (sent or not)?"""
    return type(item_type) is str and (
        item_type in SENT or item_type in NOT_SENT or item_type == CONFIGURATION
    )


def sent_with(item_type: object, metadata: Any) -> bool:
    """``sent``, for an item whose harness ``metadata`` (written beside it) may decide:
    a configuration update is sent only where the harness wrote it."""
    if item_type == CONFIGURATION:
        return harness_authored(metadata)
    return sent(item_type)


TEXT_BLOCKS = ("input_text", "output_text", "text", "summary_text", "Text")  # shown as text
AUDIO_BLOCKS = ("input_audio", "inputAudio")  # an audio clip (upstream's ``audio_url``)


def content_parts(content: Any) -> list[Part]:
    """A message's content blocks as parts, text verbatim."""
    if isinstance(content, str):
        return [Part("text", content)]
    parts: list[Part] = []
    if not isinstance(content, list):
        return parts
    for block in content:
        if not isinstance(block, dict):
            parts.append(Part("other", compact(block)))
            continue
        kind = block.get("type")
        text = block.get("text")
        if isinstance(text, str) and kind in TEXT_BLOCKS:
            parts.append(Part("text", text))
        elif kind == "refusal" and isinstance(block.get("refusal"), str):
            parts.append(Part("text", block["refusal"], name="refusal"))
        elif kind in ("input_image", "image", "localImage", "local_image"):
            url = block.get("image_url") or block.get("url") or block.get("path")
            parts.append(Part("image", image_text(url), name=str(kind), data=block))
        elif kind in AUDIO_BLOCKS:  # (an image part: said inline as one is, never its base64)
            parts.append(Part("image", image_text(audio_url(block), "audio"), name=str(kind)))
        else:
            parts.append(Part("other", compact(block), name=str(kind)))
    return parts


def reasoning_parts(payload: dict[str, Any]) -> list[Part]:
    """A reasoning item's summaries, then its raw content (``reasoning_text``, which some
    providers return beside a summary), as reasoning parts."""
    return reasoning_parts_of(
        _texts(payload.get("summary")),
        _texts(payload.get("content")),
        str_or_none(payload.get("encrypted_content")),
    )


def reasoning_parts_of(summary: list[str], content: list[str], encrypted: str | None) -> list[Part]:
    texts = summary + content
    data = {"encrypted_content": encrypted} if encrypted is not None else None
    if not texts:
        return [Part("reasoning", "", data=data)]
    return [Part("reasoning", text, data=data) for text in texts]


def reasoning_key(encrypted: str | None, summary: list[str]) -> int:
    """A reasoning item's fingerprint (see ``fingerprint``)."""
    return hash(("reasoning", encrypted, *summary))


def _texts(blocks: Any) -> list[str]:
    if isinstance(blocks, str):
        return [blocks]
    if not isinstance(blocks, list):
        return []
    out: list[str] = []
    for block in blocks:
        if isinstance(block, str):
            out.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            out.append(block["text"])
    return out


def call_id_of(payload: dict[str, Any], line_id: str) -> str:
    """A call's id: ``call_id``, else the item's ``id``, else its line (web searches)."""
    return call_id_from(payload.get("call_id"), payload.get("id"), line_id)


def call_id_from(call_id: Any, ident: Any, line_id: str) -> str:
    if isinstance(call_id, str) and call_id:
        return call_id
    return ident if isinstance(ident, str) and ident else line_id


def call_name(payload: dict[str, Any]) -> str:
    return call_name_of(payload.get("type"), payload.get("name"), payload.get("namespace"))


_CALL_NAMES = {
    "web_search_call": "web_search",
    "local_shell_call": "local_shell",
    "tool_search_call": "tool_search",
    "image_generation_call": "image_generation",
}


def call_name_of(kind: Any, name: Any, namespace: Any = None) -> str:
    """A call's tool: its name, within its namespace when it has one (newer writers name
    an MCP tool ``so_cli`` in ``mcp__so_agents``: ``mcp__so_agents__so_cli``, as older
    ones wrote it whole)."""
    named = _CALL_NAMES.get(kind) if isinstance(kind, str) else None
    if named is not None:
        return named
    if not isinstance(name, str):
        return str(kind)
    if isinstance(namespace, str) and namespace and not name.startswith(namespace):
        return namespace + name if namespace.endswith("_") else f"{namespace}__{name}"
    return name


def output_of(payload: dict[str, Any]) -> Any:
    """What an output item answers with (a tool search's: the tools it found)."""
    if payload.get("type") == "tool_search_output":
        return found_tools(payload.get("tools"))
    return payload.get("output")


def found_tools(tools: Any) -> Any:
    """A tool search's tools as their names, a line each (a group's as ``group/name``)."""
    if not isinstance(tools, list):
        return tools
    names: list[str] = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        inner = tool.get("tools") if isinstance(tool, dict) else None
        if isinstance(inner, list) and inner:
            for sub in inner:
                sub_name = sub.get("name") if isinstance(sub, dict) else None
                names.append(f"{name}/{sub_name}" if isinstance(name, str) else str(sub_name))
        elif isinstance(name, str):
            names.append(name)
        else:
            names.append(compact(tool))
    return "\n".join(names)


def call_arguments(payload: dict[str, Any]) -> tuple[Any, str]:
    """A call's arguments (as given, JSON strings parsed) and how they read."""
    kind = payload.get("type")
    name = call_name(payload)
    if kind == "custom_tool_call":
        value = payload.get("input")
        return value, value if isinstance(value, str) else compact(value)
    if kind == "tool_search_call":
        value = payload.get("arguments")
        query = value.get("query") if isinstance(value, dict) else None
        return value, query if isinstance(query, str) else compact(value)
    if kind == "image_generation_call":  # what it was asked: its image (base64) left out,
        # its id and status (its operation's call id and state) too
        prompt = payload.get("revised_prompt")
        value = {k: v for k, v in payload.items() if k not in _IMAGE_CALL_OWN}
        return value, prompt if isinstance(prompt, str) else compact(value)
    if kind in ("local_shell_call", "web_search_call"):
        action = payload.get("action")
        if isinstance(action, dict):
            shown = searched(action) if kind == "web_search_call" else None
            if shown is not None:
                return action, shown
            return action, shown_arguments(name, action, action)
        return action, "" if action is None else compact(action)
    raw = payload.get("arguments")
    parsed = parse_arguments(raw)
    return parsed, shown_arguments(name, raw, parsed)


_IMAGE_CALL_OWN = ("result", "type", "id", "status", "metadata")  # (metadata: no call's)


def carried_result(payload: dict[str, Any]) -> str | None:
    """What a call that carries its own result says of it (an ``image_generation_call``'s
    image, base64: ``[image image/png]``, never its bytes); None: it carries none."""
    if payload.get("type") != "image_generation_call":
        return None
    result = payload.get("result")
    return generated_image(result) if isinstance(result, str) and result else None


def hosted_search(payload: dict[str, Any]) -> bool:
    """A ``tool_search_call`` / ``tool_search_output`` that no output answers by its call
    id: one the server ran (``execution: server``), or one that names no call
    (upstream's ``call_id`` is an ``Option``). Upstream pairs neither by id (its
    ``tool_call_id`` / ``output_call_id`` read ``Some`` alone) and never drops such an
    output as an orphan (``remove_orphan_outputs``): the call says how it ended by its
    ``status``, and the server writes its output next (``_hosted_output``)."""
    return payload.get("execution") == "server" or output_call_id(payload.get("call_id")) is None


def settled_by_status(payload: dict[str, Any]) -> bool:
    """Does this call say how it ended by its own ``status`` (``SETTLED_BY_STATUS``, and
    a hosted tool search: ``hosted_search``)?"""
    kind = payload.get("type")
    return kind in SETTLED_BY_STATUS or (kind == "tool_search_call" and hosted_search(payload))


def searched(action: dict[str, Any]) -> str | None:
    """What a web search did: its query, the page it opened, what it looked for where."""
    query, url, pattern = action.get("query"), action.get("url"), action.get("pattern")
    if isinstance(query, str):
        return query
    if isinstance(pattern, str) and isinstance(url, str):
        return f"{pattern} in {url}"
    if isinstance(url, str):
        return url
    queries = action.get("queries")
    if isinstance(queries, list) and queries and all(isinstance(q, str) for q in queries):
        return "\n".join(queries)
    return None


def ghost_said(payload: dict[str, Any]) -> str:
    """An undo checkpoint (Codex's ``ghost_snapshot``: a commit of the worktree it can
    go back to): ``undo snapshot deadbeef``, its commit's id (the rest in its line)."""
    commit = payload.get("ghost_commit")
    ident = str_or_none(commit.get("id")) if isinstance(commit, dict) else None
    return f"undo snapshot {ident or '(no id)'}"


def response_item(
    payload: dict[str, Any], item_id: str, line: int, ts: str | None, metadata: Any = None
) -> Item:
    """One response item as a conversation item (unknown types kept as a raw record);
    ``metadata``: the harness's, written beside it."""
    kind = payload.get("type")
    if kind == "message":
        role = str_or_none(payload.get("role")) or "user"
        return Item(
            item_id,
            role,
            content_parts(payload.get("content")),
            line,
            ts=ts,
            sticky=role in STICKY_ROLES,
        )
    if kind == "reasoning":
        return Item(item_id, "assistant", reasoning_parts(payload), line, ts=ts)
    if kind == "ghost_snapshot":  # (its line kept whole: the raw views say the rest)
        part = Part("other", ghost_said(payload), name="ghost_snapshot", data=payload)
        return Item(item_id, "system", [part], line, kind="record", ts=ts)
    if kind in CALL_TYPES:
        arguments, shown = call_arguments(payload)
        part = Part(
            "tool-call",
            shown,
            call_id=call_id_of(payload, item_id),
            name=call_name(payload),
            data=arguments,
        )
        return Item(item_id, "assistant", [part], line, ts=ts)
    if kind in OUTPUT_TYPES:
        part = result_part(decode_output(output_of(payload)), payload.get("call_id"))
        return Item(item_id, "tool", [part], line, ts=ts)
    if kind in COMPACTION_TYPES:
        encrypted = payload.get("encrypted_content")
        said = (
            f"[compaction summary, encrypted, {_size(encrypted):,} chars]"
            if isinstance(encrypted, str) or kind != "context_compaction"
            else "[compaction marker, no content]"  # (its content is optional)
        )
        part = Part("other", said, name="compaction")
        part.data = payload
        return Item(item_id, "system", [part], line, kind="compaction", ts=ts)
    if kind == AGENT_MESSAGE:
        return Item(item_id, "user", agent_message_parts(payload), line, ts=ts)
    if kind == ADDED_TOOLS:
        role = str_or_none(payload.get("role")) or "developer"
        part = Part("other", tools_said(payload.get("tools")), name=ADDED_TOOLS, data=payload)
        return Item(item_id, role, [part], line, ts=ts, sticky=role in STICKY_ROLES)
    if kind == CONFIGURATION:  # (the harness's setting, kept by compactions as its
        # instructions are: a developer's, sticky, where it is sent)
        authored = harness_authored(metadata)
        said = configuration_said(payload, authored)
        part = Part("other", said, name=CONFIGURATION, data=payload)
        return Item(item_id, "developer", [part], line, ts=ts, sticky=authored)
    role = str_or_none(payload.get("role")) or "system"
    return Item(
        item_id, role, [Part("other", compact(payload), name=str(kind))], line, kind="record", ts=ts
    )


def _size(text: Any) -> int:
    return len(text) if isinstance(text, str) else 0


def agent_message_parts(payload: dict[str, Any]) -> list[Part]:
    """An agent message as parts: who sent it to whom (``who_said``), then its content,
    its text verbatim, an encrypted block said as one (its size). Where it holds an
    encrypted block, its text is the harness's heading of it (``Message Type: ...``,
    upstream's ``to_model_input_item``), no words of the sender's: said as the model is
    given it, never a prompt."""
    parts = [Part("other", who_said(payload), name=AGENT_MESSAGE)]
    content = payload.get("content")
    blocks = content if isinstance(content, list) else [content]
    sealed = any(isinstance(b, dict) and b.get("type") == ENCRYPTED for b in blocks)
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == ENCRYPTED:
            parts.append(sealed_part(block))
        elif block is not None:
            for part in content_parts(block if isinstance(block, str) else [block]):
                if sealed and part.kind == "text":
                    part = Part("other", part.text, name=HEADING)
                parts.append(part)
    return parts


def tools_said(tools: Any) -> str:
    """The tools an ``additional_tools`` item gives the model, by name (the rest of each
    in its line): ``tools added: lookup, mcp/search``."""
    names = found_tools(tools)
    if not isinstance(names, str):
        return f"tools added: {compact(tools)}"
    return f"tools added: {names.replace(chr(10), ', ') or '(none)'}"


def output_call_id(written: Any) -> str | None:
    """The call an output (or a call's end event) names: its ``call_id`` where that is a
    string that says something; ``""`` names no call, as none or a number does."""
    return written if isinstance(written, str) and written else None


def result_part(outcome: Outcome, written: Any) -> Part:
    """An output's part: its text as the model saw it, its outcome as data, named by the
    ``call_id`` written (``output_call_id``)."""
    return Part(
        "tool-result",
        outcome.text,
        call_id=output_call_id(written),
        is_error=outcome.failed,
        data=outcome.detail,
    )


def message_key(role: str, parts: list[Part]) -> int:
    """A message's fingerprint from its role and parts (as ``fingerprint`` makes it)."""
    return hash(("message", role, *(p.text for p in parts)))


def fingerprint(payload: dict[str, Any]) -> int:
    """Equal for a response item and its copy in a ``replacement_history``."""
    kind = payload.get("type")
    if kind == "message":
        role = str_or_none(payload.get("role")) or "user"
        return message_key(role, content_parts(payload.get("content")))
    if kind in CALL_TYPES or kind in OUTPUT_TYPES:
        return call_key(kind, str_or_none(payload.get("call_id")), str_or_none(payload.get("id")))
    if kind == "reasoning":
        encrypted = str_or_none(payload.get("encrypted_content"))
        return reasoning_key(encrypted, _texts(payload.get("summary")))
    if kind == AGENT_MESSAGE:  # (by what it says, not how its keys are ordered: one of an
        # ``inter_agent_communication`` line is made here)
        said = (payload.get("author"), payload.get("recipient"), payload.get("content"))
        return hash((kind, *(compact(value) for value in said)))
    return hash(compact(without_metadata(payload)))  # (as upstream reads it)


def call_key(kind: str, call_id: str | None, ident: str | None) -> int:
    """A call's or an output's fingerprint (see ``fingerprint``)."""
    return hash((kind, call_id, ident))


# -- newer writers' ``item_completed`` events (read when no response item says the same) --


def completed_item(item: dict[str, Any], item_id: str, line: int, ts: str | None) -> Item | None:
    """An ``item_completed`` conversation item (messages, reasoning); None for tool items."""
    kind = item.get("type")
    if kind == "UserMessage":
        return Item(item_id, "user", content_parts(item.get("content")), line, ts=ts)
    if kind == "AgentMessage":
        parts = content_parts(item.get("content"))
        if not parts and isinstance(item.get("text"), str):
            parts = [Part("text", item["text"])]
        return Item(item_id, "assistant", parts, line, ts=ts)
    if kind == "Reasoning":
        texts = _texts(item.get("summary_text")) or _texts(item.get("raw_content"))
        parts = [Part("reasoning", t) for t in texts] or [Part("reasoning", "")]
        return Item(item_id, "assistant", parts, line, ts=ts)
    if kind == "Plan" and isinstance(item.get("text"), str):
        return Item(item_id, "assistant", [Part("text", item["text"], name="plan")], line, ts=ts)
    return None


def field(item: dict[str, Any], snake: str) -> Any:
    """A field written snake_case or camelCase (writers differ)."""
    if snake in item:
        return item[snake]
    head, *rest = snake.split("_")
    return item.get(head + "".join(w.title() for w in rest))


__all__ = [
    "ADDED_TOOLS",
    "AGENT_MESSAGE",
    "CALL_TYPES",
    "COMPACTION_TYPES",
    "NEEDS_CALL_ID",
    "NOT_SENT",
    "OUTPUT_TYPES",
    "PROMPT_TYPES",
    "SENT",
    "SETTLED_BY_STATUS",
    "STICKY_ROLES",
    "TEXT_BLOCKS",
    "agent_message_of",
    "agent_message_parts",
    "call_arguments",
    "call_id_from",
    "call_id_of",
    "call_key",
    "call_name",
    "call_name_of",
    "carried_result",
    "completed_item",
    "content_parts",
    "field",
    "fingerprint",
    "found_tools",
    "hosted_search",
    "message_key",
    "named",
    "output_call_id",
    "output_of",
    "reasoning_key",
    "reasoning_parts",
    "reasoning_parts_of",
    "response_item",
    "result_part",
    "searched",
    "sent",
    "sent_with",
    "settled_by_status",
    "tools_said",
]
