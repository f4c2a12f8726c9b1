"""The UI events a rollout keeps, each in one line of words for the raw view (where its
compact JSON was shown): a command's end its exit code and how long it took, a patch's
whether it applied and to which files, an MCP call's its tool and whether it answered,
a turn's start and end, a thread's new name, its goal, a review's start and end, a
subagent's activity, an image saved, a sleep. An event none of these knows, or one whose
fields are not what Codex writes, says None: its JSON is shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...parts import Part, WordedPart
from ...text import (
    command_line,
    count,
    duration_text,
    error_message,
    grouped,
    one_line,
    str_or_none,
)
from .tools import compact, marked_error, rust_seconds

_SHOWN_FILES = 3  # a patch's files named (then "+N more")
_CUT = 200  # characters of a text field shown (a command, a query, a name)
# A file change's kind, as ``git status --short`` writes it: Codex's own patch summary
# ("M Makefile") reads so.
_CHANGE = {"add": "A", "delete": "D", "update": "M"}


def _short(text: str) -> str:
    said = one_line(text)
    return said if len(said) <= _CUT else said[: _CUT - 1] + "…"


def _took(payload: dict[str, Any]) -> str:
    """`` in 1.5s`` from the event's Rust ``duration`` (empty where it has none)."""
    took = duration_text(rust_seconds(payload.get("duration")))
    return f" in {took}" if took else ""


def _exit_code(payload: dict[str, Any]) -> int | None:
    code = payload.get("exit_code")
    return code if type(code) is int else None


def _exec_end(payload: dict[str, Any]) -> str | None:
    code = _exit_code(payload)
    if code is None:
        return None
    command = command_line(payload.get("command"))
    head = f"{_short(command)}: " if command else ""
    return f"{head}exit {code}{_took(payload)}"


def file_change(change: Any) -> tuple[str | None, dict[str, Any]]:
    """A file's change as Codex writes it, ``{type: update, ...}`` (newer) or
    ``{update: {...}}`` (older writers): its kind (``add``, ``delete``, ``update``; None
    where it says none) and its fields (``content``, ``unified_diff``, ``move_path``)."""
    if not isinstance(change, dict):
        return None, {}
    kind = change.get("type")
    if not isinstance(kind, str) and len(change) == 1:
        kind, inner = next(iter(change.items()))
        change = inner if isinstance(inner, dict) else {}
    return (kind if isinstance(kind, str) else None), change


def _change(path: str, change: Any) -> str:
    """One file of a patch: ``M /repo/Makefile`` (a move: ``R old → new``)."""
    kind, fields = file_change(change)
    moved = str_or_none(fields.get("move_path"))
    if moved:
        return f"R {one_line(path)} → {one_line(moved)}"
    letter = _CHANGE.get(kind) if kind is not None else None
    if letter:
        return f"{letter} {one_line(path)}"
    return one_line(path)


def _patch_end(payload: dict[str, Any]) -> str | None:
    success = payload.get("success")
    if not isinstance(success, bool):
        return None
    said = "applied" if success else "not applied"
    changes = payload.get("changes")
    if isinstance(changes, dict) and changes:
        files = [_change(str(path), change) for path, change in changes.items()]
        more = len(files) - _SHOWN_FILES
        said += ": " + ", ".join(files[:_SHOWN_FILES]) + (f" (+{more:,} more)" if more > 0 else "")
    if not success:
        stderr = str_or_none(payload.get("stderr"))
        if stderr and stderr.strip():
            said += f" ({_short(stderr.strip())})"
    return said


def _mcp_end(payload: dict[str, Any]) -> str | None:
    invocation = payload.get("invocation")
    result = payload.get("result")
    if not isinstance(invocation, dict) or not isinstance(result, dict):
        return None
    server, tool = str_or_none(invocation.get("server")), str_or_none(invocation.get("tool"))
    name = ".".join(one_line(n) for n in (server, tool) if n) or "?"
    ok = result.get("Ok")
    if "Err" in result:
        err = result.get("Err")
        outcome = f"error: {_short(err)}" if isinstance(err, str) else "error"
    elif isinstance(ok, dict):
        outcome = "error" if marked_error(ok) else "ok"
    else:
        return None
    return f"{name}: {outcome}{_took(payload)}"


def _web_search_end(payload: dict[str, Any]) -> str | None:
    query = str_or_none(payload.get("query"))
    action = payload.get("action")
    if not query and isinstance(action, dict):
        query = str_or_none(action.get("query")) or str_or_none(action.get("url"))
    return f"searched: {_short(query)}" if query else None


def _view_image(payload: dict[str, Any]) -> str | None:
    path = str_or_none(payload.get("path"))
    return f"viewed {one_line(path)}" if path else None


def _turn(payload: dict[str, Any], what: str) -> str:
    turn = str_or_none(payload.get("turn_id"))
    return f"turn {one_line(turn)} {what}" if turn else f"turn {what}"


def _task_started(payload: dict[str, Any]) -> str:
    window = payload.get("model_context_window")
    said = _turn(payload, "started")
    if type(window) is int and window > 0:
        said += f" (context window {grouped(window)} tokens)"
    return said


def _task_complete(payload: dict[str, Any]) -> str:
    return _turn(payload, "complete")


def _turn_aborted(payload: dict[str, Any]) -> str:
    reason = str_or_none(payload.get("reason"))
    return _turn(payload, "aborted") + (f" ({one_line(reason)})" if reason else "")


def _context_compacted(payload: dict[str, Any]) -> str:
    return "context compacted"


NOT_A_NAME = object()  # (``thread_name``: a value no writer gives a name as)


def thread_name(payload: dict[str, Any]) -> str | object | None:
    """The name a ``thread_name_updated`` gives its thread: None where it clears it (Codex
    leaves a cleared name out; null, or blank, clears it too); ``NOT_A_NAME`` where its
    name is of another type (the event is of no shape Codex writes: it changes nothing)."""
    name = payload.get("thread_name")
    if name is None or (isinstance(name, str) and not name.strip()):
        return None
    return name if isinstance(name, str) else NOT_A_NAME


def _thread_named(payload: dict[str, Any]) -> str | None:
    name = thread_name(payload)
    if name is None:
        return "thread name cleared"
    return f"thread named: {_short(name)}" if isinstance(name, str) else None


def _error(payload: dict[str, Any]) -> str | None:
    """A failed turn's ``error``: its message (``unexpected status 401 Unauthorized``),
    else the kind of error Codex names (``codex_error_info``, where it is a word)."""
    said = error_message(payload) or str_or_none(payload.get("codex_error_info"))
    return _short(said) if said and said.strip() else None


def _stream_error(payload: dict[str, Any]) -> str | None:
    """A dropped stream Codex retries: its message (the retry, ``Reconnecting... 1/5``),
    then what dropped it (``additional_details``, newer writers)."""
    said = _error(payload)
    details = (str_or_none(payload.get("additional_details")) or "").strip()
    if not details or (said and details in said):
        return said
    return f"{said} ({_short(details)})" if said else _short(details)


def _int(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _image_end(payload: dict[str, Any]) -> str | None:
    """An image generation's end (``ImageGenerationEndEvent``): its status, where Codex
    saved the image (``saved_path``); never its ``result``, the image's base64."""
    status = str_or_none(payload.get("status"))
    if not status:
        return None
    path = str_or_none(payload.get("saved_path"))
    return f"image generation {one_line(status)}" + (f": saved {_short(path)}" if path else "")


def _sub_agent(payload: dict[str, Any]) -> str | None:
    """A V2 subagent's activity (``SubAgentActivityEvent``): ``subagent /root/worker
    started`` (``interacted``, ``interrupted``), by its path, else its thread's id."""
    kind = str_or_none(payload.get("kind"))
    who = str_or_none(payload.get("agent_path")) or str_or_none(payload.get("agent_thread_id"))
    return f"subagent {_short(who)} {one_line(kind)}" if kind and who else None


def _goal(payload: dict[str, Any]) -> str | None:
    """A thread's goal changed (``ThreadGoalUpdatedEvent``, camelCase): its status and
    objective, the tokens it used of its budget, and its time: ``goal active: fix all
    bugs (5,000 of 100,000 tokens, 12s)``."""
    goal = payload.get("goal")
    if not isinstance(goal, dict):
        return None
    status, objective = str_or_none(goal.get("status")), str_or_none(goal.get("objective"))
    if not status or objective is None:
        return None
    used, budget = _int(goal.get("tokensUsed")), _int(goal.get("tokenBudget"))
    said = []
    if used is not None:
        said.append(f"{used:,} of {budget:,} tokens" if budget is not None else f"{used:,} tokens")
    seconds = _int(goal.get("timeUsedSeconds"))
    if seconds:
        said.append(duration_text(seconds))
    tail = f" ({', '.join(said)})" if said else ""
    return f"goal {one_line(status)}: {_short(objective)}{tail}"


def _item_completed(payload: dict[str, Any]) -> str | None:
    """A completed item no conversation item says (the others are read as items): a
    ``Sleep`` (``SleepItem``: ``durationMs``; newer, its ``outcome`` and ``elapsedMs``)."""
    item = payload.get("item")
    if not isinstance(item, dict) or item.get("type") != "Sleep":
        return None
    asked = _int(item.get("durationMs"))
    if asked is None:
        return None
    said = f"slept {duration_text(asked / 1000)}"
    outcome = str_or_none(item.get("outcome"))
    if outcome and outcome != "completed":
        elapsed = _int(item.get("elapsedMs"))
        after = f" after {duration_text(elapsed / 1000)}" if elapsed is not None else ""
        said = f"sleep of {duration_text(asked / 1000)} {one_line(outcome)}{after}"
    return said


_REVIEWED = {"uncommittedChanges": "uncommitted changes"}


def _review_started(payload: dict[str, Any]) -> str | None:
    """A review began (``EnteredReviewMode(ReviewRequest)``): what it reviews, as the
    user was told (``user_facing_hint``), else its ``target`` (uncommitted changes, a
    base branch, a commit, custom instructions)."""
    hint = str_or_none(payload.get("user_facing_hint"))
    if hint:
        return f"review started: {_short(hint)}"
    target = payload.get("target")
    kind = str_or_none(target.get("type")) if isinstance(target, dict) else None
    if not isinstance(target, dict) or not kind:
        return None
    what = _REVIEWED.get(kind)
    if kind == "baseBranch" and str_or_none(target.get("branch")):
        what = f"changes against {one_line(target['branch'])}"
    elif kind == "commit" and str_or_none(target.get("sha")):
        title = str_or_none(target.get("title"))
        what = f"commit {one_line(target['sha'])[:12]}" + (f" {title}" if title else "")
    elif kind == "custom" and str_or_none(target.get("instructions")):
        what = target["instructions"]
    return f"review started: {_short(what or kind)}"


def _review_ended(payload: dict[str, Any]) -> str | None:
    """A review ended (``ExitedReviewModeEvent``): its verdict and how many findings;
    none (``review_output`` null): it was interrupted."""
    if "review_output" not in payload:
        return None
    output = payload.get("review_output")
    if output is None:
        return "review ended without a result"
    if not isinstance(output, dict):
        return None
    verdict = str_or_none(output.get("overall_correctness"))
    findings = output.get("findings")
    found = count(len(findings), "finding") if isinstance(findings, list) else None
    said = ", ".join(x for x in (verdict and _short(verdict), found) if x)
    return f"review ended: {said}" if said else "review ended"


_WORDS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "error": _error,
    "stream_error": _stream_error,
    "exec_command_end": _exec_end,
    "patch_apply_end": _patch_end,
    "mcp_tool_call_end": _mcp_end,
    "web_search_end": _web_search_end,
    "view_image_tool_call": _view_image,
    "task_started": _task_started,
    "task_complete": _task_complete,
    "turn_complete": _task_complete,
    "turn_aborted": _turn_aborted,
    "context_compacted": _context_compacted,
    "thread_name_updated": _thread_named,
    "image_generation_end": _image_end,
    "sub_agent_activity": _sub_agent,
    "thread_goal_updated": _goal,
    "item_completed": _item_completed,
    "entered_review_mode": _review_started,
    "exited_review_mode": _review_ended,
}


def event_words(kind: str | None, payload: dict[str, Any]) -> str | None:
    """An event's one line of words (None: none known for it; its JSON is shown)."""
    words = _WORDS.get(kind) if kind is not None else None
    return None if words is None else words(payload)


# The events that say something went wrong: error lines (the shared word), where ``e`` stops
# (``error``: a turn that failed, kept with the extended history; ``stream_error``: a
# dropped stream Codex retries, kept by no version seen, read as one if a writer keeps it).
ERRORS = frozenset(("error", "stream_error"))


def event_parts(kind: str | None, payload: dict[str, Any]) -> list[Part]:
    """An event line's part: a known event's its words (``event_words``: an error's
    message, as Claude Code's ``api_error`` reads; a command's exit code, a patch's
    files...) as its folded row, its JSON whole beside them (a stream error's cause, a
    command's stderr and cwd: expanded, exported as written, searched); any other
    event's, its JSON."""
    words = event_words(kind, payload)
    text = compact(payload)
    return [Part("other", text, name=str(kind)) if words is None else WordedPart(words, text, kind)]


__all__ = ["ERRORS", "NOT_A_NAME", "event_parts", "event_words", "file_change", "thread_name"]
