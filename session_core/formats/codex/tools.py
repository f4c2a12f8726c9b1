"""Codex tool calls: how their arguments read, and what their outputs say of the outcome.

Writers vary: 0.5x writes a shell call's output as a JSON string
``{"output": ..., "metadata": {"exit_code", "duration_seconds"}}``; newer ones write
plain text headed by ``Exit code: N`` or ``Process exited with code N`` lines (and a
``Wall time: S seconds`` line), or a list of content items. Everything is read
tolerantly: what does not match a known shape is shown as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from ...json_out import compact_json
from ...text import command_line, timed_seconds

# ``^(?:Exit code:|Process exited with code)\s*(-?\d+)`` and ``^Wall time:\s*([0-9.]+)\s*
# seconds`` (MULTILINE), looked for as their words at a line's start, then the rest.
_EXIT = ("Exit code:", "Process exited with code")
_EXIT_REST = re.compile(r"\s*(-?\d+)")
_WALL = ("Wall time:",)
_WALL_REST = re.compile(r"\s*([0-9.]+)\s*seconds")
_HEAD = 1024  # the status lines sit at the top of an output: only its head is searched
# The head most shell outputs have (0.1x's ``Exit code: N`` over ``Wall time: S seconds``;
# newer ones' ``Chunk ID`` line, ``Wall time``, ``Process exited with code N``): its two
# status lines are the first at a line's start, so one match says what the two searches
# would (anything else is searched for as above).
_STATUS = "(?:Exit code:|Process exited with code)" + _EXIT_REST.pattern
_WALL_LINE = "Wall time:" + _WALL_REST.pattern
_USUAL_HEAD = re.compile(
    rf"(?:Chunk ID: [^\n]*\n)?(?:{_STATUS}\n{_WALL_LINE}|{_WALL_LINE}\n{_STATUS})"
)

# Outputs Codex itself writes when a call did not run (not the tool's own text).
_ERROR_PREFIXES = (
    "execution error",
    "failed in sandbox",  # "... with execution error: sandbox denied exec error, exit code: 1"
    "tool call error",  # an MCP call that failed (2025)
    "error: failed to",  # a patch that did not apply: "... find expected lines" (2025)
    "error: invalid patch",
    "apply_patch verification failed",
    "failed to parse function arguments",
    "unsupported call",
    "unsupported custom tool call",
    # a call the user declined to approve (codex-rs, since 2025; "edit" and the reason
    # after a colon in 2026), or that its guardian reviewer refused
    "exec command rejected by user",
    "patch rejected by user",
    "edit rejected by user",
    "this action was rejected due to unacceptable risk",
)
# An MCP call whose arguments did not parse (``err: <why>``): an error only in an output
# that reads no exit status, where no shell's own text can start so.
_MCP_ERROR = "err: "
_ABORTED = ("aborted", "aborted by user")


@dataclass(slots=True)
class Outcome:
    """What a call's output says: its text as the model saw it, and how it ended."""

    text: str
    failed: bool = False
    interrupted: bool = False  # the call was cut off (Codex answers ``aborted``)
    exit_code: int | None = None
    duration: float | None = None
    detail: dict[str, Any] | None = None


compact = compact_json  # (a record's payload, shown as it is)


def decode_output(output: Any) -> Outcome:
    """A ``function_call_output`` / ``custom_tool_call_output`` ``output`` value, decoded."""
    if isinstance(output, str):
        if output.startswith("{") and '"output"' in output:
            try:
                decoded = orjson.loads(output)
            except orjson.JSONDecodeError:
                decoded = None
            if isinstance(decoded, dict) and "output" in decoded:
                return _from_json_output(decoded)
        elif output.startswith("[{"):  # 2025's MCP results: their content list as JSON
            items = _content_items(output)
            if items is not None:
                return _from_text(content_items_text(items))
        return _from_text(output)
    if isinstance(output, list):
        return _from_text(content_items_text(output))
    if isinstance(output, dict):
        if isinstance(output.get("text"), str) and "type" in output:  # one content item
            return _from_text(content_items_text([output]))
        if "output" in output:
            return _from_json_output(output)
        if "content" in output:
            outcome = decode_output(output.get("content"))
            if output.get("success") is False or marked_error(output):
                outcome.failed = True
            return outcome
    if output is None:
        return Outcome("")
    return Outcome(compact(output))


def _content_items(text: str) -> list[Any] | None:
    """A JSON string that is a list of content items (each a ``{type, ...}``, some of
    them text), parsed; None for anything else."""
    try:
        decoded = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(decoded, list) or not all(
        isinstance(item, dict) and isinstance(item.get("type"), str) for item in decoded
    ):
        return None
    return decoded if any(isinstance(item.get("text"), str) for item in decoded) else None


def content_items_text(items: list[Any]) -> str:
    """The text of a list of content items (``input_text``, ``output_text``, images; a
    dynamic tool's ``inputText`` / ``inputImage``, camelCase)."""
    texts: list[str] = []
    for block in items:
        if isinstance(block, dict):
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
            elif str(block.get("type", "")).lower().endswith("image"):  # (``inputImage``)
                url = block.get("image_url")
                texts.append(image_text(url if url is not None else block.get("imageUrl")))
            elif str(block.get("type", "")).lower().endswith("audio"):  # (``inputAudio``)
                texts.append(image_text(audio_url(block), "audio"))
            else:
                texts.append(compact(block))
        elif isinstance(block, str):
            texts.append(block)
    return "\n".join(texts)


def image_text(url: Any, what: str = "image") -> str:
    """An image block's text: its address, or for one sent inline (a ``data:`` URL: a
    pasted image) or with none, what it is, as the other readers say it (``[image
    image/png]``, ``[image]``); ``what``: the kind of block (an audio clip's, ``[audio
    audio/wav]``: its base64 never shown)."""
    if not isinstance(url, str) or not url:
        return f"[{what}]"
    if not url.startswith("data:"):
        return url
    media = _MEDIA_TYPE.match(url, 5, 133)  # (the bytes after it may be megabytes)
    return f"[{what} {media.group()}]" if media else f"[{what}]"


def audio_url(block: dict[str, Any]) -> Any:
    """An audio block's address (upstream's ``input_audio {audio_url}``; a dynamic
    tool's ``inputAudio {audioUrl}``)."""
    url = block.get("audio_url")
    return url if url is not None else block.get("audioUrl")


_MEDIA_TYPE = re.compile(r"[\w.+-]+/[\w.+-]+")
# How an image's base64 starts (its format's magic bytes), by its media type: the formats
# an image generation call writes (``output_format``: png by default, jpeg, webp).
_BASE64_MAGIC = (
    ("iVBORw0KGgo", "image/png"),
    ("/9j/", "image/jpeg"),
    ("UklGR", "image/webp"),
    ("R0lGOD", "image/gif"),
)


def generated_image(base64: str) -> str:
    """An image given as bare base64 (an image generation's ``result``), as
    ``image_text`` says an image: ``[image image/png]`` (its type known by its first
    bytes), else ``[image]``."""
    for magic, media in _BASE64_MAGIC:
        if base64.startswith(magic):
            return f"[image {media}]"
    return "[image]"


def _from_json_output(decoded: dict[str, Any]) -> Outcome:
    body = decoded.get("output")
    text = body if isinstance(body, str) else compact(body)
    metadata = decoded.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    code = metadata.get("exit_code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    seconds = metadata.get("duration_seconds")
    duration = float(seconds) if isinstance(seconds, int | float) and seconds >= 0 else None
    outcome = Outcome(text, exit_code=code, duration=duration, detail=dict(metadata) or None)
    outcome.failed = (code is not None and code != 0) or _is_error_text(text)
    outcome.interrupted = _is_aborted(text)
    return outcome


def status_lines(head: str) -> tuple[str | None, str | None]:
    """What an output's head says of its exit code and wall time, as written (None: it
    does not say)."""
    usual = _USUAL_HEAD.match(head)
    if usual is not None:
        if usual.group(1) is not None:  # the exit code's line first
            return usual.group(1), usual.group(2)
        return usual.group(4), usual.group(3)
    return searched_status(head)


def searched_status(head: str) -> tuple[str | None, str | None]:
    """``status_lines`` by searching for each line at a line's start."""
    match = _at_line_start(head, _EXIT, _EXIT_REST)
    wall = _at_line_start(head, _WALL, _WALL_REST)
    return (
        match.group(1) if match is not None else None,
        wall.group(1) if wall is not None else None,
    )


def _from_text(text: str) -> Outcome:
    exit_text, seconds = status_lines(text[:_HEAD])
    code = int(exit_text) if exit_text is not None else None
    duration: float | None = None
    if seconds is not None:
        try:
            duration = float(seconds)
        except ValueError:
            duration = None
    failed = code != 0 if code is not None else text.startswith(_MCP_ERROR)
    return Outcome(  # made once, its fields given (one per output of a file)
        text,
        failed or _is_error_text(text),
        _is_aborted(text),
        code,
        duration,
        None if code is None else {"exit_code": code},
    )


def _at_line_start(
    text: str, words: tuple[str, ...], rest: re.Pattern[str]
) -> re.Match[str] | None:
    """The first of ``words`` that starts a line of ``text`` and is followed by ``rest``
    (what a MULTILINE ``^(?:words)rest`` search finds), found by ``str.find``."""
    found: re.Match[str] | None = None
    before = len(text)
    for word in words:
        start = 0
        while (at := text.find(word, start, before)) >= 0:
            if at == 0 or text[at - 1] == "\n":
                match = rest.match(text, at + len(word))
                if match is not None:
                    found, before = match, at
                    break
            start = at + 1
    return found


def _is_aborted(text: str) -> bool:
    """``text.strip() in _ABORTED``, without copying a long text that is not padded."""
    if len(text) > _ABORTED_LONGEST and not (text[:1].isspace() or text[-1:].isspace()):
        return False  # (most outputs: longer than the words, not padded)
    return text.strip() in _ABORTED


_ABORTED_LONGEST = max(map(len, _ABORTED))
_ERROR_FIRST = frozenset(p[0] for p in _ERROR_PREFIXES)  # (each starts with a letter)


def _is_error_text(text: str) -> bool:
    if text[:1].lower() not in _ERROR_FIRST:
        return False  # (most outputs: their first letter starts no error's words)
    return text[:64].lower().startswith(_ERROR_PREFIXES)


# -- arguments -------------------------------------------------------------------------


def parse_arguments(arguments: Any) -> Any:
    """A ``function_call``'s arguments as given: parsed when they are a JSON string."""
    if isinstance(arguments, str):
        stripped = arguments.lstrip()
        if stripped.startswith(("{", "[")):
            try:
                return orjson.loads(arguments)
            except orjson.JSONDecodeError:
                return arguments
    return arguments


def shown_arguments(name: str, arguments: Any, parsed: Any) -> str:
    """What a call's arguments read as: the command line, the patch, else as written."""
    if isinstance(parsed, dict):
        for key in ("cmd", "command"):
            line = command_line(parsed.get(key))
            if line is not None:
                return line
        if name == "apply_patch":
            for key in ("input", "patch"):
                value = parsed.get(key)
                if isinstance(value, str):
                    return value
    if isinstance(arguments, str):
        return arguments
    return compact(arguments)


def marked_error(value: dict[str, Any]) -> bool:
    """An MCP tool's result says it is an error (``isError``, or ``is_error``)."""
    return value.get("isError") is True or value.get("is_error") is True


def rust_seconds(value: Any) -> float | None:
    """A Rust ``Duration`` as Codex writes it (``{secs, nanos}``), in seconds; None where
    it is none (a count below 0 is none, as every count of a file's) or can be none
    (``timed_seconds``: past a year)."""
    if not isinstance(value, dict):
        return None
    secs, nanos = value.get("secs"), value.get("nanos", 0)
    if type(secs) is not int or secs < 0:
        return None
    return timed_seconds(secs + (nanos / 1e9 if type(nanos) is int and nanos >= 0 else 0.0))


__all__ = [
    "Outcome",
    "audio_url",
    "compact",
    "content_items_text",
    "decode_output",
    "generated_image",
    "image_text",
    "marked_error",
    "parse_arguments",
    "rust_seconds",
    "searched_status",
    "shown_arguments",
    "status_lines",
]
