"""The conversation lines: ``assistant`` (one API response, however many lines it was
split over, and the tool calls it makes) and ``user`` (prompts, commands, compaction
summaries and the tool results that answer calls, in either order), and the turns
they start and count.
"""

from __future__ import annotations

from sys import intern
from typing import TYPE_CHECKING, Any

import orjson

from ...indexing import field_said, loads_payload
from ...model import Part
from ...text import finish_mark
from . import blocks, teammates
from .lines import NOTHING_SAID, Line, Message, Said, TokenUsage, result_facts, result_value, shape
from .records import Boundary, RunMark
from .responses import FINISH_SAID, GAVE_UP, SIDE
from .sidechains import TASK_TOOLS
from .threading import ASSISTANT, USER
from .usage import SYNTHETIC

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder

_NO_MESSAGE = Message()
_NO_USAGE = TokenUsage()


def _parts(b: ClaudeCodeBuilder, message: Message, typed: bool, answers: bool) -> list[Part]:
    """A line's parts: as far as feeding needs them (``shape``) from typed blocks, whole
    from parsed ones (``parts_of``). A typed line is read again by span when shown; its
    tool results' texts are read only where they may say the user interrupted (a user
    line's, ``answers``: nothing of an assistant line's is read from them)."""
    if typed:
        return shape(message.content, b.line_raw if answers else None)
    return blocks.parts_of(message.content)


def assistant(
    b: ClaudeCodeBuilder,
    facts: Line,
    typed: bool,
    line: int,
    uuid: str | None,
    side: bool,
    ts: str | None,
) -> None:
    message = facts.message or _NO_MESSAGE
    key = message.id or facts.requestId or uuid or f"line-{line}"
    parts = _parts(b, message, typed, False)
    model = intern(message.model) if message.model is not None else None
    responses = b.responses
    found = responses.find(key)
    node = b.node_for(facts, uuid, line, ASSISTANT, side)
    gave_up = facts.isApiErrorMessage is True
    reused = found >= 0 and _reused(b, found, side) and not _continues(b, found, node)
    # (the same response written again where it was: it takes the earlier's place)
    again = reused and _written_where_it_was(b, found, node)
    if reused and not again:
        found = -1
    if found >= 0 and bool(responses.flags[found] & SIDE) == side and not again:
        response, item = found, responses.raw[found]
        if typed and b.raw.parts[item] is not None:
            # The item keeps its parts (its first line can not be read again): this
            # line's, whole, join them.
            whole = orjson.loads(b.line_raw).get("message")
            content = whole.get("content") if isinstance(whole, dict) else None
            _extend(b, item, blocks.parts_of(content), line, ts)
        else:
            _extend(b, item, parts, line, ts)
    else:
        # (Claude Code's own message that an API call failed for good, made up as
        # ``<synthetic>``: an error line, which it sends to no model: ``chain.taken``)
        kind = "error" if gave_up and model == SYNTHETIC else "message"
        item = b.add_item(
            parts, line, node, side, role=message.role or "assistant", kind=kind, ts=ts, model=model
        )
        # (``found``: another side's, or this side's written again; this one takes its
        # place, in its turn)
        turn = responses.run[found] if again else len(b.runs) - 1
        response = responses.add(key, item, side, turn, found, reused=reused)
        if found >= 0:
            _replaced(b, found)
        if not b.off and b.runs:
            run = b.runs[-1]
            run.items += 1
            if again:
                b.copy_of[response] = responses.raw[found]
                _in_turn(b, turn, found, response)
            else:
                run.responses.append(response)
        if model and model != SYNTHETIC and "model" not in b.meta:
            b.meta["model"] = model
    if node >= 0:
        responses.nodes.add(response, node)
        b.node_raw[node] = item
    if not b.off and b.runs:
        b.runs[-1].response_line = line
    if message.stop_reason is not None:
        responses.stop[response] = b.raw.code(message.stop_reason)
        _finish(b, responses.raw[response], message.stop_reason, model == SYNTHETIC)
    if gave_up:
        responses.flags[response] |= GAVE_UP
    if message.usage is not None or facts.costUSD is not None:
        b.usage.report(response, message.usage or _NO_USAGE, model, facts.costUSD)
    # (the item of the response this line is of, or the other side's it copies)
    copied = b.copy_of.get(response, responses.raw[found] if found >= 0 else item)
    for index, part in enumerate(parts):
        server = blocks.server_call(part) if part.kind == "other" else None
        if part.kind == "tool-call" or server:
            call_id = part.call_id
            if not call_id:  # (no result can name it: no operation, said)
                _no_call_id(b, message, index, line)
            elif not _written_again(b, call_id, item, copied):
                _call(b, part, index, line, response, item, side, ts)
            elif response in b.copy_of:  # (the copy on the chain: the call is its block)
                _moved(b, b.calls.find(call_id), item, line, index, part)
        elif server is False and not part.call_id:
            _no_result_id(b, message, index, line)
        elif server is False and part.call_id:
            # a server tool's result (web search), in the response that called it: its
            # item is the response's, its line and time this line's
            at = b.calls.find(part.call_id)
            if at >= 0 and b.calls.result[at] < 0:
                _answer(b, at, item, part, index, _span(b), NOTHING_SAID)
                b.calls.answered_on(at, line, ts)


def _no_call_id(b: ClaudeCodeBuilder, message: Message, index: int, line: int) -> None:
    """A call block (``tool_use``, ``server_tool_use``) whose id is left out or no
    non-empty string: shown as written, no tool operation made of it, and warned of."""
    _no_id(b, message, index, line, "id", "tool_use", "no tool operation is made of it")


def _no_result_id(b: ClaudeCodeBuilder, message: Message, index: int, line: int) -> None:
    """A result block (``tool_result``, a server tool's) whose ``tool_use_id`` is left out
    or no non-empty string names no call: shown in its message as written, the result of
    no tool operation (a call waiting for it stays unanswered), and warned of."""
    _no_id(b, message, index, line, "tool_use_id", "tool_result", "it is no call's result")


def _no_id(
    b: ClaudeCodeBuilder,
    message: Message,
    index: int,
    line: int,
    key: str,
    kind_else: str,
    made: str,
) -> None:
    """The warning for a block at ``index`` whose ``key`` is left out or no non-empty
    string, the id as written (a line read typed: its block read again, a ``null``
    decoded there as an id left out)."""
    content = message.content
    block: Any = content[index] if isinstance(content, list) else None
    if not isinstance(block, dict):
        try:
            block = loads_payload(bytes(b.line_raw))["message"]["content"][index]
        except (ValueError, LookupError, TypeError):
            block = {}
    kind = block.get("type") if isinstance(block, dict) else None
    said = field_said(block, key, "a non-empty string") if isinstance(block, dict) else f"no {key}"
    b.warnings.append(
        f"line {line}: a {kind if isinstance(kind, str) else kind_else} block has {said}: {made}"
    )


def _finish(b: ClaudeCodeBuilder, item: int, stop: str, synthetic: bool) -> None:
    """Keep why a model's response stopped, where it says it stopped otherwise than by
    ending its turn or calling a tool (``FINISH_SAID``): its item's ``[finish …]`` mark.
    (A stop reason a later line of the response says instead replaces it.)"""
    finish = finish_mark(stop) if stop in FINISH_SAID and not synthetic else None
    if b.finishes.get(item) == finish:
        return
    if finish is None:
        del b.finishes[item]
    else:
        b.finishes[item] = finish
    if b.chain is not None and item < b.chain.items:
        b.chain = None  # (marked already: marked again, from the start; rare)


def _written_again(b: ClaudeCodeBuilder, call_id: str, item: int, copied: int) -> bool:
    """Is a tool_use block with this id the latest call of its id written again? So it is
    in the same response (a line of it written twice), or in the other side's copy of
    it; a block of another response is a call of its own (a resumed or retried session
    uses an id again)."""
    calls = b.calls
    at = calls.find(call_id)
    return at >= 0 and calls.response[at] in (item, copied)


def _reused(b: ClaudeCodeBuilder, found: int, side: bool) -> bool:
    """Is the id of response ``found`` (of ``side``'s) used again by another response?
    So it is when a prompt came between them: a response's lines come within its turn,
    and a redacted file gives every response one placeholder id. (Another side's is
    the same response seen twice, as before; within the other side, turns are not kept.)"""
    responses = b.responses
    return (
        not b.off
        and bool(responses.flags[found] & SIDE) == side
        and responses.run[found] != len(b.runs) - 1
    )


def _continues(b: ClaudeCodeBuilder, found: int, node: int) -> bool:
    """Is this line the next of response ``found``'s lines (its parent is their last)?"""
    last = b.responses.nodes.last[found]
    return node >= 0 and last >= 0 and b.threads.parent_of(node) == last


def _written_where_it_was(b: ClaudeCodeBuilder, found: int, node: int) -> bool:
    """Is this line of a response whose id response ``found`` had, in an earlier turn,
    that response written again where it was (its first line's parent is this line's)?
    Claude Code 2.0.x, resuming after failed API calls, wrote a response again, split
    over lines, under the line it had answered: the same API call, its usage once. (A
    redacted file's placeholder id, used by every response, is under another line.)"""
    first = b.responses.nodes.first[found]
    if node < 0 or first < 0:
        return False
    threads = b.threads
    parent = threads.parent_of(node)
    return parent >= 0 and parent == threads.parent_of(first)


def _replaced(b: ClaudeCodeBuilder, found: int) -> None:
    """Response ``found`` had its place taken by a copy (written again where it was, or
    the other side's): its usage is counted with the copy's alone, and its item, which
    shows it as written, says so (``USAGE_WITH_COPY``)."""
    b.usage.replaced(found)
    earlier = b.responses.raw[found]
    b.counted_with_copy.add(earlier)
    if b.chain is not None and earlier < b.chain.items:
        b.chain = None  # (marked already: marked again, from the start; rare)


def _in_turn(b: ClaudeCodeBuilder, turn: int, old: int, new: int) -> None:
    """Response ``new`` takes ``old``'s place in turn ``turn``'s responses."""
    if 0 <= turn < len(b.runs):
        listed = b.runs[turn].responses
        for at, response in enumerate(listed):
            if response == old:
                listed[at] = new


def _moved(b: ClaudeCodeBuilder, at: int, item: int, line: int, index: int, part: Part) -> None:
    """Call ``at``'s block is written again in a response's copy (``item``): the call is
    that block, and its result the copy's, once it comes (an answered one's)."""
    b.calls.moved(at, item, line, _span(b), index, part)
    if b.calls.result[at] >= 0:
        b.moved_calls.add(at)


def _extend(b: ClaudeCodeBuilder, item: int, parts: list[Part], line: int, ts: str | None) -> None:
    """A later line of a response (whose item is ``item``): its blocks join the item's,
    the item ends at it."""
    raw = b.raw
    raw.extend(item, parts, b.span)
    raw.set_lines(item, raw.lines_of(item) + 1)
    raw.set_end(item, line, ts or raw.end_of(item)[1])


def _span(b: ClaudeCodeBuilder) -> int:
    """Where the line being fed is, when it can be read again (0: its parts are kept)."""
    return b.span if b.rereadable() else 0


def _call(
    b: ClaudeCodeBuilder,
    part: Part,
    index: int,
    line: int,
    response: int,
    item: int,
    side: bool,
    ts: str | None,
) -> None:
    """A tool_use block, the ``index``-th part of the line: a call of ``response`` (whose
    item is ``item``)."""
    call_id = part.call_id
    assert call_id is not None
    tool = part.name or "?"
    at = b.calls.add(call_id, tool, part, index, _span(b), line, item, side, len(b.runs) - 1, ts)
    b.responses.calls.add(response, at)
    if tool in TASK_TOOLS and not b.off:
        b.sides.tasks.append(at)
    waiting = b.unpaired.pop(call_id, None)
    if waiting is not None:
        _answer(b, at, *waiting)


def user(
    b: ClaudeCodeBuilder,
    facts: Line,
    typed: bool,
    line: int,
    uuid: str | None,
    side: bool,
    ts: str | None,
) -> None:
    message = facts.message or _NO_MESSAGE
    parts = _parts(b, message, typed, True)
    meta = facts.isMeta is True
    before = b.conv_main  # the last conversation node before this line
    # Most user lines answer a call and say nothing else: no text, command or prompt.
    plain = not (len(parts) == 1 and parts[0].kind == "tool-result")
    if facts.isCompactSummary is True:
        kind = "compact-summary"
    elif meta:
        kind = "meta"
    elif plain and blocks.is_command(parts):
        kind = "command"
    else:
        kind = "message"
    node = b.node_for(facts, uuid, line, USER, side)
    ident = uuid or f"line-{line}"
    # Its text, while every part is whole (a prompt's or a summary's, kept).
    text = (
        "\n".join(p.text for p in parts if p.kind == "text")
        if plain and not (b.off or meta)
        else ""
    )
    result = facts.toolUseResult
    answers: list[tuple[int, Said]] = []
    # A line read again when shown keeps its span alone: its tool result's detail
    # (often the largest value of the line) is not decoded, only its facts are.
    keep = not b.rereadable()
    detail: Any = None
    said = NOTHING_SAID
    alone = blocks.answers_alone(parts)
    for index, part in enumerate(parts):
        if part.kind == "tool-result" and not part.call_id:
            _no_result_id(b, message, index, line)
            if node >= 0 and b.idless_answers[-1:] != [node]:
                b.idless_answers.append(node)
        elif part.kind == "tool-result":
            if alone:
                said = result_facts(result)
                if keep:
                    detail = blocks.detail(result_value(result))
            part.data = detail
            if not said.interrupted and part.text.lstrip().startswith(blocks.INTERRUPTED):
                answers.append((index, said._replace(interrupted=True)))
            else:
                answers.append((index, said))
    item = b.add_item(
        parts, line, node, side, role=message.role or "user", kind=kind, ts=ts, meta=meta
    )
    span = _span(b) if answers else 0
    calls = b.calls
    for index, said in answers:
        part = parts[index]
        call_id = part.call_id
        assert call_id is not None
        at = calls.find(call_id)
        if at < 0:
            b.unpaired.setdefault(call_id, (item, part, index, span, said))
        elif calls.result[at] < 0:
            _answer(b, at, item, part, index, span, said)
        elif at in b.moved_calls:  # (its response's copy's result, written again too)
            b.moved_calls.discard(at)
            calls.answered_again(at, item, part, index, span, part.is_error)
            b.answered.append(at)
            b.chain = None  # (its first answer, on the chain: the chain made again; rare)
    if b.off:
        if side and node >= 0 and facts.parentUuid is None:  # an in-file subagent's
            b.sides.root(len(b.raw) - 1, node, line, ident)
        return
    if kind == "compact-summary":
        for boundary in reversed(b.boundaries):
            if not boundary.elision and boundary.summary_item is None:
                boundary.summary_at = item if text else -1  # (read again when asked)
                boundary.summary_item = ident
                head = boundary.head
                if head >= 0 and uuid and b.threads.parent_of(head) == boundary.node:
                    # a preserved segment hung on the boundary follows its summary
                    b.threads.relink(head, uuid)
                break
        else:
            if facts.parentUuid is None and before >= 0:
                # before compact_boundary lines (1.0.x) the chain began again at the
                # summary itself: it is the compaction, folding what came before
                b.boundaries.append(
                    Boundary(
                        id=ident,
                        line=line,
                        node=node,
                        elision=False,
                        record={},
                        before=before,
                        ts=ts,
                        summary_at=item if text else -1,
                        summary_item=ident,
                    )
                )
        return
    if meta or not plain:
        if b.runs and not meta:
            b.runs[-1].items += 1
        return
    if calls.teammate and text:  # (a teammate's message answers its spawn)
        teammates.heard(calls, text, ts)
    if blocks.is_interruption(parts) and b.runs:
        b.runs[-1].cut = True
    if kind in ("message", "command") and blocks.is_prompt(parts):
        b.runs.append(
            RunMark(id=ident, line=line, prompt=text, started=ts, command=kind == "command")
        )
        if "prompt" not in b.titles:  # a command as typed, not its XML wrapper
            b.titles["prompt"] = blocks.command_title(text)
    if b.runs:
        b.runs[-1].items += 1


def _answer(
    b: ClaudeCodeBuilder,
    at: int,
    item: int,
    part: Part,
    index: int,
    span: int,
    said: Said,
) -> None:
    """Call ``at`` is answered by ``part``, the ``index``-th of the raw item ``item`` (a
    user line at ``span``: its timestamp is the result's)."""
    calls = b.calls
    call_id = part.call_id
    assert call_id is not None
    calls.answer(at, call_id, item, part, index, span, part.is_error, said.interrupted)
    b.answered.append(at)
    run = calls.run[at]
    if 0 <= run < len(b.runs) - 1:  # an earlier turn's state may change with it
        b.usage.runs_touched.add(run)
    agent = said.agent
    if agent:
        calls.name_agent(at, agent)
    if said.launched or said.workflow or said.took is not None:
        calls.said_more(at, said)
    b.progress_out.pop(call_id, None)
    b.progress_at.pop(call_id, None)


__all__ = ["assistant", "user"]
