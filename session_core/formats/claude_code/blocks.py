"""Claude Code content blocks into the model's parts, and the line kinds read from text.

Untrusted text stays verbatim (escaping is the renderer's job). What is large and not
shown (image data, thinking signatures) is not kept; an unknown block keeps a short
compact-JSON text (a line kept as it is, its head: ``Builder.kept_line``).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from ...json_out import compact_json
from ...model import Part
from ...text import as_written, duration_text, error_message, one_line, timed_seconds, title_cut

RECORD_TEXT = 400  # characters of compact JSON kept for an unknown block, an attachment
CALL_TEXT = 2000  # characters of a call's arguments kept as its shown text (data is whole)

# A user line holding one of these is a slash command, its output, or bash mode.
COMMAND_TAGS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
)
# What a command wrote, not what was typed: a slash command's or a bash-mode (``!``)
# command's output (said as ``stdout: …``, ``readable``).
OUTPUT_TAGS = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")
# A user line that opens with one of these starts no run (``is_prompt``): it is part of
# its command's run, as is the caveat Claude Code writes about a command's output.
_NOT_PROMPTS = tuple(f"<{name}>" for name in (*OUTPUT_TAGS, "local-command-caveat"))
INTERRUPTED = "[Request interrupted by user"
# What a microcompact sends in place of each tool result it clears.
CLEARED = "[Old tool result content cleared]"


def compact(value: Any, limit: int = RECORD_TEXT) -> str:
    """Compact JSON of a value, cut to ``limit`` characters (with an ellipsis)."""
    text = compact_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def image_text(block: dict[str, Any]) -> str:
    """An image or document block without its bytes: what it is (``[image image/png]``,
    ``[document application/pdf: its title]``, a URL's address), a text document's text."""
    kind = "document" if block.get("type") == "document" else "image"
    source = block.get("source")
    source = source if isinstance(source, dict) else {}
    what = source.get("media_type") if source.get("type") != "url" else source.get("url")
    title = block.get("title")
    said = f"[{kind}{f' {what}' if isinstance(what, str) else ''}"
    said += f": {title}]" if isinstance(title, str) and title else "]"
    data = source.get("data")
    if source.get("type") == "text" and isinstance(data, str):
        return f"{said}\n{data}"
    return said


def flatten(content: Any) -> str:
    """A tool result's content as text: a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out: list[str] = []
        for block in content:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind == "text" and isinstance(block.get("text"), str):
                    out.append(block["text"])
                elif kind in ("image", "document"):
                    out.append(image_text(block))
                else:
                    out.append(compact(block))
        return "\n".join(out)
    if content is None:
        return ""
    return compact(content)


# A server tool's result block: the API's server ran the call (web search, a
# ``server_tool_use`` block) and wrote its result in the same response, paired by id.
# Both are ``other`` parts, said in their place among the response's blocks (the call
# named by its tool, the result by its type), and make an operation (``server_call``).
# Which is the call is said where the block is read (``Part.server_call``, by its type).
SERVER_RESULTS = frozenset({"web_search_tool_result", "web_fetch_tool_result"})


def server_call(part: Part) -> bool | None:
    """Is ``part`` a server tool's call (True), its result (False), or neither (None)?
    (Told by its block's type: one with no usable id is still one, and warned of.)"""
    if part.kind != "other":
        return None
    if part.server_call:
        return True
    return False if part.name in SERVER_RESULTS else None


def server_result(content: Any) -> tuple[str, bool]:
    """A server tool's result as text, and whether it failed: each search result on a
    line of its own, its title and address (its encrypted page text is no text); an
    error block, its code."""
    if isinstance(content, dict):  # {"type": "web_search_tool_result_error", "error_code"}
        kind = content.get("type")
        if isinstance(kind, str) and kind.endswith("_error"):
            code = content.get("error_code")
            return f"error: {code if isinstance(code, str) else compact(content)}", True
        return compact(content), False
    if not isinstance(content, list):
        return flatten(content), False
    out: list[str] = []
    for result in content:
        if isinstance(result, dict) and ("url" in result or "title" in result):
            title, url = result.get("title"), result.get("url")
            said = [str(v) for v in (title, url) if isinstance(v, str) and v]
            out.append(" — ".join(said) or compact(result))
        else:
            out.append(compact(result))
    return "\n".join(out), False


def call_text(name: str, data: Any) -> str:
    """What a tool call shows: a shell command as it is, other arguments as compact JSON."""
    if isinstance(data, dict):
        command = data.get("command")
        if isinstance(command, str) and name in ("Bash", "BashOutput", "PowerShell"):
            return command
    return compact(data, CALL_TEXT)


def part_of(block: Any) -> Part:
    """One content block as a part; an unknown block is kept as ``other`` (short text)."""
    if isinstance(block, str):
        return Part("text", text=block)
    if not isinstance(block, dict):
        return Part("other", text=compact(block), name=type(block).__name__)
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if isinstance(text, str):
            return Part("text", text=text)
        return Part("other", text=compact(block), name=kind)  # (no text: as written)
    if kind == "thinking":
        text = block.get("thinking")
        return Part("reasoning", text=text if isinstance(text, str) else "")
    if kind == "redacted_thinking":
        return Part("reasoning", text="[redacted thinking]", name="redacted_thinking")
    if kind == "server_tool_use":  # (said in its place among the blocks, by its tool)
        name = block.get("name")
        call_id = block.get("id")
        data = block.get("input")
        if not (isinstance(call_id, str) and call_id):  # (no operation: as written, raw)
            text = compact(block)
        elif "input" in block:
            text = compact(data, CALL_TEXT)
        else:  # (none written: no arguments shown, never a ``null`` the file did not write)
            text = ""
        return Part(
            "other",
            text=text,
            call_id=call_id if isinstance(call_id, str) else None,
            name=name if isinstance(name, str) else kind,
            data=data,
            server_call=True,
        )
    if kind == "tool_use":
        name = block.get("name")
        name = name if isinstance(name, str) else "?"
        call_id = block.get("id")
        data = block.get("input")
        return Part(
            "tool-call",
            # (no id a string: no operation, said raw in its message, ``said_in_content``)
            text=call_text(name, data) if isinstance(call_id, str) else compact(block),
            call_id=call_id if isinstance(call_id, str) else None,
            name=name,
            data=data,
        )
    if kind == "tool_result":
        call_id = block.get("tool_use_id")
        return Part(
            "tool-result",
            text=flatten(block.get("content")),
            call_id=call_id if isinstance(call_id, str) else None,
            is_error=block.get("is_error") is True,
        )
    if isinstance(kind, str) and kind in SERVER_RESULTS:  # (a server tool's result)
        call_id = block.get("tool_use_id")
        text, failed = server_result(block.get("content"))
        return Part(
            "other",
            text=text,
            call_id=call_id if isinstance(call_id, str) else None,
            name=kind,
            is_error=failed,
        )
    if kind == "image":
        return Part("image", text=image_text(block))
    if kind == "document":  # (a PDF: said inline as an image is, never its base64)
        return Part("image", text=image_text(block), name=kind)
    return Part("other", text=compact(block), name=kind if isinstance(kind, str) else None)


def parts_of(content: Any) -> list[Part]:
    """A message's content (a string or a list of blocks) as parts, in order."""
    if isinstance(content, str):
        return [Part("text", text=content)]
    if isinstance(content, list):
        return [part_of(block) for block in content]
    if content is None:
        return []
    return [Part("other", text=compact(content), name=type(content).__name__)]


def message_object(message: Any) -> dict[str, Any] | None:
    """A line's ``message`` as an object: any other value as its content, read as a
    content of that shape is, never dropped (a bare string, its text: other readers'
    types say ``message?: string | MessageContent``; a list, its blocks, anything in it
    not a block kept as written; a number, as written: ``parts_of``). None: none."""
    if isinstance(message, dict):
        return message
    return None if message is None else {"content": message}


def odd_message(line: int, message: Any) -> str | None:
    """The warning for a user or assistant line whose ``message`` is no object, nor the
    bare string other readers' types allow (None: it is one of those, or none)."""
    if message is None or isinstance(message, (dict, str)):
        return None
    if isinstance(message, list):  # (a list's items that are no block: as written)
        return f"line {line}: its message is a list, not an object: read as its content"
    return f"line {line}: its message is {as_written(message)}, not an object: shown as written"


def line_parts(record: dict[str, Any]) -> list[Part]:
    """A user or assistant line's parts, whole (as a line read again by span gives them):
    its tool results carry the tool's structured result (``detail``)."""
    message = message_object(record.get("message")) or {}
    parts = parts_of(message.get("content"))
    if record.get("type") == "user" and answers_alone(parts):
        result = detail(record.get("toolUseResult"))
        for part in parts:
            if part.kind == "tool-result" and part.call_id:
                part.data = result
    return parts


def answers_alone(parts: list[Part]) -> bool:
    """Do these parts answer one call alone (so the line's one ``toolUseResult``, a
    single tool's, is that call's)?"""
    return sum(1 for p in parts if p.kind == "tool-result" and p.call_id) == 1


def answers_one(record: dict[str, Any]) -> bool:
    """Does a line answer one call alone (so its ``toolUseResult`` is that call's)?"""
    message = message_object(record.get("message"))
    content = message.get("content") if message is not None else None
    if not isinstance(content, list):
        return False
    results = 0
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            results += 1
    return results == 1


def detail(result: Any) -> Any:
    """A tool's structured result, without the whole file an Edit carries beside its patch."""
    if isinstance(result, dict) and "originalFile" in result:
        return {k: v for k, v in result.items() if k != "originalFile"}
    return result


def is_command(parts: list[Part]) -> bool:
    """A slash command's wrapper, its output or a bash-mode line (its first text part)."""
    for part in parts:
        if part.kind == "text":
            return part.text.lstrip().startswith(COMMAND_TAGS)
        return False
    return False


def is_prompt(parts: list[Part]) -> bool:
    """A user line that starts a turn: it says something, and answers no tool call."""
    if any(p.kind == "tool-result" for p in parts):
        return False
    texts = [p for p in parts if p.kind in ("text", "image")]
    if not texts:
        return False
    first = texts[0].text.lstrip()
    if first.startswith(INTERRUPTED):
        return False
    return not first.startswith(_NOT_PROMPTS)


def is_interruption(parts: list[Part]) -> bool:
    return any(p.kind == "text" and p.text.lstrip().startswith(INTERRUPTED) for p in parts)


def system_text(record: dict[str, Any]) -> str:
    """A system line's shown text: its subtype and what it says."""
    subtype = record.get("subtype")
    head = subtype if isinstance(subtype, str) else "system"
    content = record.get("content")
    meta = record.get("compactMetadata", record.get("microcompactMetadata"))
    said = _boundary_said(meta) if isinstance(meta, dict) else ""
    if isinstance(content, str) and content:  # (a boundary's words, then what it says of it)
        return f"{head}: {content}{' · ' + said if said else ''}"
    duration = record.get("durationMs")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool):
        took = timed_seconds(duration / 1000)  # (as every duration is said; none: unknown)
        return f"{head}: {'unknown' if took is None else duration_text(took)}"
    if isinstance(meta, dict):
        return f"{head}: {said or compact(meta)}"
    if "error" in record:  # api_error: a failed call Claude Code retries
        said = _error_text(record.get("error"))
        attempt, most = record.get("retryAttempt"), record.get("maxRetries")
        if isinstance(attempt, int) and not isinstance(attempt, bool):
            retry = f"retry {attempt}/{most}" if isinstance(most, int) else f"retry {attempt}"
            said = f"{said} ({retry})" if said else retry
        return f"{head}: {said}" if said else head
    return head


def _boundary_said(meta: dict[str, Any]) -> str:
    """A compaction boundary's metadata in words, as the Diff tab says them: ``trigger
    auto · 170,251 tok before`` (``→ 9,000 tok`` where it says what was left, ``12,000
    tok saved`` an elision's); empty where it says none of these."""
    said: list[str] = []
    trigger = meta.get("trigger")
    if isinstance(trigger, str) and trigger:
        said.append(f"trigger {one_line(trigger)}")
    before, after, saved = (_count(meta.get(k)) for k in ("preTokens", "postTokens", "tokensSaved"))
    if after is not None:
        said.append(f"{'?' if before is None else f'{before:,}'} → {after:,} tok")
    elif before is not None:
        said.append(f"{before:,} tok before")
    if saved is not None:
        said.append(f"{saved:,} tok saved")
    return " · ".join(said)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def says_error(record: dict[str, Any]) -> bool:
    """A system line that says something went wrong (an error line: ``e`` stops at it):
    an API call that failed (``api_error``, retried), or a notice written at level error."""
    subtype = record.get("subtype")
    return record.get("level") == "error" or (
        isinstance(subtype, str) and subtype.endswith("_error")
    )


def _error_text(error: Any) -> str:
    """An API error's status and message, as far as it says them (else its JSON)."""
    said = error_message(error)
    return said if said or error is None or isinstance(error, str) else compact(error)


# The tags Claude Code wraps a command, its output and bash mode in that are read: those
# a command's words are read from, then those said as output (``stdout: …``).
_TYPED_TAGS = ("command-name", "command-args", "bash-input")
_WRAPPER_TAGS = (*_TYPED_TAGS, *OUTPUT_TAGS)
NOTICE = "<task-notification>"  # Claude Code's word to the model of a background task
_NOTICE_END = "</task-notification>"
_NOTICE_TAGS = ("status", "summary")


def elements(text: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(name, inner text)`` of each ``<name>…</name>`` in ``text`` whose name is one of
    ``names``, in order, the first closing tag ending each (what is inside one is not
    looked into). In one pass (linear: a 1 MB text of opening tags that none closes is
    read in milliseconds, where a ``<(a|b)>(.*?)</\\1>`` search took minutes): an
    opening tag is found by a pattern of literal words, its closing tag by ``str.find``,
    and a name whose closing tag is nowhere after one of its openings is looked for no
    more (none can close later)."""
    found: list[tuple[str, str]] = []
    left = names
    opening = _openings(left)
    at = 0
    while True:
        match = opening.search(text, at)
        if match is None:
            return found
        name = match.group(1)
        closing = f"</{name}>"
        end = text.find(closing, match.end())
        if end < 0:  # (never closed: no later opening of it is either)
            left = tuple(other for other in left if other != name)
            if not left:
                return found
            opening = _openings(left)
            at = match.end()
            continue
        found.append((name, text[match.end() : end]))
        at = end + len(closing)


@cache
def _openings(names: tuple[str, ...]) -> re.Pattern[str]:
    """The opening tags of ``names`` (literal words: no backtracking)."""
    return re.compile("<(" + "|".join(map(re.escape, names)) + ")>")


def command_typed(text: str) -> str:
    """A slash command or a bash-mode line as it was typed (``/init args``, ``! ls``),
    whole, not its XML wrapper; the text itself when it has neither."""
    return _typed(dict(elements(text, _WRAPPER_TAGS))) or text


def _typed(tags: dict[str, str]) -> str | None:
    name, args = tags.get("command-name", "").strip(), tags.get("command-args", "").strip()
    if name:
        name = name if name.startswith("/") else f"/{name}"  # (1.0.17 wrote "init")
        return f"{name} {args}" if args else name
    if "bash-input" in tags:
        return f"! {tags['bash-input'].strip()}"
    return None


def readable(text: str) -> str | None:
    """A user line's text in the words a person reads where Claude Code wrapped it in its
    XML (None: it did not): a slash command or a bash-mode line as typed (``/exit``), a
    command's output as its text, stdout or stderr said (``stdout: See ya!``), a
    background task's notice as its summary, its status where that does not say it
    (what follows the notice, Claude Code's word to the model, after it). Read only
    where the text opens with one of those tags, in time linear in its length
    (``elements``)."""
    start = text.lstrip()
    if start.startswith(NOTICE):
        end = start.find(_NOTICE_END, len(NOTICE))
        if end < 0:
            return None
        fields = dict(elements(start[len(NOTICE) : end], _NOTICE_TAGS))
        summary, status = fields.get("summary", "").strip(), fields.get("status", "").strip()
        said = summary or (f"background task {status}" if status else "")
        if not said:
            return None
        if status and status not in said:
            said = f"{said} [{status}]"
        rest = start[end + len(_NOTICE_END) :].strip()
        return f"{said}\n{rest}" if rest else said
    if not start.startswith(COMMAND_TAGS):
        return None
    tags = elements(start, _WRAPPER_TAGS)
    typed = _typed(dict(tags))
    if typed is not None:
        return typed
    outputs = [(tag, inner) for tag, inner in tags if tag in OUTPUT_TAGS]
    if not outputs:
        return None
    said_each = [
        f"{tag.rsplit('-', 1)[1]}: {inner.strip()}" for tag, inner in outputs if inner.strip()
    ]
    return "\n".join(said_each) or "(no output)"


# The kinds of user item whose text may be Claude Code's XML wrapper (``wrapped_text``).
READABLE_KINDS = frozenset({"command", "message", "queued"})


def wrapped_text(role: str, kind: str, parts: list[Part]) -> str | None:
    """``readable`` of an item's text where it may be a wrapper (a user line of one text
    that opens with a tag: a command, its output, bash mode, a background task's notice,
    queued or sent; read whole only then): ``ClaudeCodeFormat.readable_text``'s rule."""
    if role != "user" or kind not in READABLE_KINDS:
        return None
    found: Part | None = None
    for part in parts:
        if part.kind == "text":
            if found is not None:
                return None
            found = part
    if found is None or not found.head.lstrip().startswith("<"):
        return None
    return readable(found.text)


def command_title(text: str) -> str:
    """A prompt's first line as a session's or a run's title: a command as typed, a
    notice by its summary (``readable``), not its XML wrapper."""
    return title_cut((readable(text) or text).strip().split("\n", 1)[0])
