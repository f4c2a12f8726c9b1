"""Claude Code lines, fed in file order, kept compactly for the model.

What is kept: one item per conversation line (one per API response, however many
lines it was split over), one condensed item per run of adjacent ``progress`` lines
(their dicts are not kept: only counts and the latest bash output of a running call),
the chain's nodes as arrays, and small records of calls, runs and compactions.
``transcript()`` (``assemble.py``) puts the model together from these without
re-reading anything.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence
from sys import intern
from typing import TYPE_CHECKING, Any

import msgspec
import orjson

from ...item_column import ItemColumn
from ...model import Part, PartRef, Transcript
from ...times import seconds_between
from ..base import Builder, bad_line_reason
from . import blocks
from .bookkeeping import rare_line
from .lines import Line, Message, decode, line_of, result_facts, result_value, shape
from .records import Boundary, Call, Response, RunMark
from .sidechains import TASK_TOOLS, Sidechains
from .threading import ASSISTANT, PROGRESS, SYSTEM, USER, Threads
from .usage import SYNTHETIC, UsageBook

if TYPE_CHECKING:
    from .chain import Chain

SIDECHAIN, META = 1, 2  # raw item flags
_META_KEYS = {  # a Line's field -> the meta key
    "sessionId": "session-id",
    "cwd": "cwd",
    "gitBranch": "git-branch",
    "version": "version",
    "slug": "slug",
    "agentId": "agent-id",
    "timestamp": "started",
}
META_LINES = 1000  # the session's facts are looked for in its first lines (some never come)


_NO_MESSAGE = Message()


class ClaudeCodeBuilder(Builder):
    """Feeds Claude Code records; ``transcript()`` assembles them (see ``assemble``)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.threads = Threads()
        self.raw = ItemColumn("line-")  # an item without a uuid is "line-<n>"
        self.raw_node = array("i")  # the raw item's first node (-1: a line without uuid)
        self.raw_flags = bytearray()
        self.node_raw = array("i")  # node -> raw item
        self.responses: dict[str, Response] = {}
        self.response_at: dict[int, Response] = {}  # raw item -> its response
        self.calls: dict[str, Call] = {}
        self.unpaired: dict[
            str, tuple[Part | PartRef, bool, int, int, tuple[bool, str | None], str | None]
        ] = {}
        self.progress_out: dict[str, str] = {}  # call id -> latest bash output
        self.agent_of: dict[str, str] = {}  # call id -> agentId (agent_progress, results)
        self.agent_paths: dict[str, str | None] = {}  # agentId -> its file, if there
        self.agent_folders: tuple[str, ...] | None = None  # where they are looked for
        self.sides = Sidechains()  # in-file subagents (1.0.x): their roots, Task calls
        self.runs: list[RunMark] = []
        self.boundaries: list[Boundary] = []
        self.meta: dict[str, Any] = {"agent": "claude-code"}
        self._meta_missing = set(_META_KEYS)
        self.titles: dict[str, str] = {}  # "custom-title" / "ai-title" / "prompt"
        self.summaries: list[tuple[str | None, str]] = []  # summary lines: leafUuid, text
        self.type_counts: Counter[str] = Counter()
        self.progress_counts: Counter[str] = Counter()
        self.has_main = False
        self.leaf_main = -1  # the latest main-chain conversation node
        self.leaf_side = -1
        self.conv_main = -1  # the latest main-chain user/assistant node
        # The open run of adjacent progress lines: its item, part, first line and lines.
        self._progress_index = -1
        self._progress_part: Part | None = None
        self._progress_line = 0
        self._progress_lines = 0
        self._progress_kinds: dict[str, int] = {}
        self._progress_shared: dict[str, list[Part]] = {}  # text -> a closed run's parts
        self._progress_texts: dict[tuple[tuple[str, int], ...], str] = {}  # kinds -> text
        self._progress_side = False
        self.version = 0  # bumped by every feed (the assembly caches on it)
        self.chain: Chain | None = None  # the last assembly's (``assemble`` builds on it)
        self.usage = UsageBook()  # responses' usage, and the totals the assembly keeps
        self.answered: list[Call] = []  # calls answered since the last assembly
        self._raw: bytes | memoryview = b""  # the line being fed, when it came typed
        self._bad: tuple[int, str] | None = None  # the last line, when it was not JSON
        # The file's own side: its first conversation line's isSidechain (a subagent's
        # own file is all sidechain lines); a line of the other side is an in-file
        # sidechain (1.0.x subagents), on no turn of the file's and no compaction.
        self.home: bool | None = None
        self.off = False  # the line being fed is of the other side

    def set_source(self, source: Any) -> None:
        super().set_source(source)
        if self.part_source is not None:
            self.raw.source = self.part_source  # spans fed before stay readable

    # -- feeding ---------------------------------------------------------------------

    def feed_line(self, raw: bytes, line: int) -> None:
        if not self.rereadable():
            # Its parts are kept whole (a compressed file, a last line without its
            # newline): the dict path makes them.
            super().feed_line(raw, line)
            return
        try:
            facts = decode(raw)
        except msgspec.DecodeError:
            self.bad_line(line, raw, bad_line_reason(raw))
            return
        self._typed(facts, raw, line)

    def take_lines(
        self, raws: Sequence[bytes | memoryview], lines: Sequence[int], spans: Sequence[int]
    ) -> None:
        """A batch as ``take_line`` takes it (``spans`` empty: not known), in one loop: a
        line that can be read again is decoded where it is (a view into the block read),
        not copied first."""
        if not spans or self.part_source is None:
            for index, (raw, line) in enumerate(zip(raws, lines, strict=True)):
                if spans:
                    self.span, self.line_bytes = spans[index], len(raw)
                self.take_line(bytes(raw), line)
            return
        for raw, line, span in zip(raws, lines, spans, strict=True):
            self.span = span
            self.line_bytes = len(raw)
            if not span:  # (too long to be read again by span)
                self.take_line(bytes(raw), line)
                continue
            cut = raw[:-1] if raw and raw[-1] == 13 else raw  # its CR off, as take_line's
            try:
                facts = decode(cut)
            except msgspec.DecodeError:  # blank, torn or not JSON: as ``take_line`` says
                self.take_line(bytes(raw), line)
                continue
            self._typed(facts, cut, line)

    def _typed(self, facts: Line | None, raw: bytes | memoryview, line: int) -> None:
        """A line that can be read again, decoded typed (None: read as a dict, ``decode``
        says why)."""
        if facts is not None:
            self._raw = raw
            self._feed(facts, None, line)
        else:
            self._whole(raw, line)

    def _whole(self, raw: bytes | memoryview, line: int) -> None:
        """A line read as a dict: not a hot line, one with a field of another type, or a
        repeated one (shown as it is)."""
        super().feed_line(bytes(raw), line)

    def feed(self, record: dict[str, Any], line: int) -> None:
        self._feed(line_of(record), record, line)

    def bad_line(self, line: int, raw: bytes, why: str) -> None:
        """A line that is not a JSON object: a warning, and (once a line follows it: the
        last line may still be being written) a raw record where it was."""
        super().bad_line(line, raw, why)
        self.version += 1
        if line > self.lines:
            self.lines = line
        self._keep_bad()
        self._bad = (line, raw.decode("utf-8", "replace"))

    def _keep_bad(self) -> None:
        if self._bad is None:
            return
        self._close_progress()
        line, text = self._bad
        self._bad = None
        short = text if len(text) <= blocks.RECORD_TEXT else text[: blocks.RECORD_TEXT - 1] + "…"
        part = Part("other", text=short, name="not a JSON object")
        self.add_item([part], line, None, -1, False, role="system", kind="record", keep=True)

    def _feed(self, facts: Line, record: dict[str, Any] | None, line: int) -> None:
        """One line: its facts, and (a line type that is not hot) its record."""
        uuid = facts.uuid
        repeated = uuid is not None and uuid in self.threads.index
        if repeated and record is None:
            self._whole(self._raw, line)  # shown as it is: its record, whole
            return
        if self._bad is not None:
            self._keep_bad()
        self.version += 1
        if line > self.lines:
            self.lines = line
        kind = facts.type or "?"
        self.type_counts[kind] += 1
        if self._meta_missing and line <= META_LINES:
            self._take_meta(facts)
        side = facts.isSidechain is True
        if self.home is None and uuid is not None:
            self.home = side
        self.off = side if self.home is None else side is not self.home
        if repeated:
            uuid = None  # a repeated line: shown, but not a second node of the chain
            kind = "?duplicate"
        if kind == "progress":
            self._progress(facts, line, uuid, side)
            return
        self._close_progress()
        ts = facts.timestamp
        if kind == "assistant":
            self._assistant(facts, record is None, line, uuid, side, ts)
        elif kind == "user":
            self._user(facts, record is None, line, uuid, side, ts)
        else:
            record = record if record is not None else {}  # (hot lines come with none)
            rare_line(self, kind, record, facts, line, uuid, side, ts)
        run = self.runs[-1] if self.runs else None
        if run is not None and not self.off:
            run.last_line = line
            run.last_ts = ts or run.last_ts

    def _take_meta(self, facts: Line) -> None:
        for key in [k for k in _META_KEYS if k in self._meta_missing]:  # in a fixed order
            value = getattr(facts, key)
            if value:
                self.meta[_META_KEYS[key]] = value
                self._meta_missing.discard(key)

    def node_for(self, facts: Line, uuid: str | None, line: int, kind: int, side: bool) -> int:
        if uuid is None:
            return -1
        node = self.threads.add(uuid, facts.parentUuid, line, kind, side)
        self.node_raw.append(len(self.raw))  # the item appended next (split lines: re-pointed)
        if not side:
            self.has_main = True
        if kind in (USER, ASSISTANT, SYSTEM):
            if side:
                self.leaf_side = node
            else:
                self.leaf_main = node
                if kind != SYSTEM:
                    self.conv_main = node
        return node

    def add_item(
        self,
        parts: list[Part],
        line: int,
        uuid: str | None,
        node: int,
        side: bool,
        *,
        role: str,
        kind: str = "message",
        ts: str | None = None,
        model: str | None = None,
        meta: bool = False,
        keep: bool = False,
    ) -> int:
        """One raw item; its parts are read again by its line's span unless ``keep``
        (parts the builder made up)."""
        self.raw_node.append(node)
        self.raw_flags.append((SIDECHAIN if side else 0) | (META if meta else 0))
        return self.raw.append(
            parts,
            line,
            role=role,
            kind=kind,
            ts=ts,
            model=model,
            span=self.span,
            ident=uuid,
            keep=keep,
        )

    def _progress(self, facts: Line, line: int, uuid: str | None, side: bool) -> None:
        data = facts.data
        dtype = (data.type if data is not None else None) or "?"
        self.progress_counts[dtype] += 1
        call_id = facts.parentToolUseID
        if call_id is not None and data is not None:
            if dtype == "bash_progress":
                output = data.output
                call = self.calls.get(call_id)
                if output is not None and (call is None or call.result_line is None):
                    self.progress_out[call_id] = output
            elif dtype == "agent_progress":
                agent = data.agentId
                if agent:
                    self.agent_of.setdefault(call_id, agent)
        index = self._progress_index
        if (
            index >= 0
            and self._progress_side == side
            and self._progress_line + self._progress_lines == line
        ):
            if uuid is not None:
                self.threads.add(uuid, facts.parentUuid, line, PROGRESS, side)
                self.node_raw.append(index)
                self.has_main = self.has_main or not side
            self._progress_lines += 1
            kinds = self._progress_kinds
            kinds[dtype] = kinds.get(dtype, 0) + 1
            if dtype != "hook_progress" and len(kinds) == 2 and kinds[dtype] == 1:
                self.raw.set_kind(index, "progress")  # not hooks alone any more
            return
        self._close_progress()
        node = self.node_for(facts, uuid, line, PROGRESS, side)
        self._progress_kinds = {dtype: 1}
        self._progress_side = side
        part = Part("other", text=dtype, name="progress")
        self._progress_part = part
        self._progress_line = line
        self._progress_lines = 1
        self._progress_index = self.add_item(
            [part],
            line,
            uuid,
            node,
            side,
            role="system",
            kind="hook" if dtype == "hook_progress" else "progress",
            ts=facts.timestamp,
            keep=True,
        )

    def _close_progress(self) -> None:
        """The open run of progress lines ends."""
        index = self._progress_index
        if index < 0:
            return  # (none open: most lines)
        self._write_progress()
        if self._progress_part is not None:
            # A closed run's part is one of a few texts: one list for each, shared.
            text = self._progress_part.text
            shared = self._progress_shared.get(text)
            if shared is None:
                shared = self._progress_shared[text] = [self._progress_part]
            self.raw.parts[index] = shared
        self._progress_index = -1
        self._progress_part = None

    def _write_progress(self) -> None:
        """The open run's item says what it holds and how many lines (written when it
        ends or is shown, not per line: a run can be thousands of lines)."""
        index, part = self._progress_index, self._progress_part
        if index >= 0 and part is not None:
            # (a run's kinds and counts are one of a few: each text made once)
            kinds = tuple(self._progress_kinds.items())
            text = self._progress_texts.get(kinds)
            if text is None:
                text = self._progress_texts[kinds] = _progress_text(kinds)
            part.text = text
            if self._progress_lines > 1:
                self.raw.lines[index] = self._progress_lines
            self.raw.changed(index)

    def _parts(self, message: Message, typed: bool, answers: bool) -> list[Part]:
        """A line's parts: as far as feeding needs them (``shape``) from typed blocks, whole
        from parsed ones (``parts_of``). A typed line is read again by span when shown; its
        tool results' texts are read only where they may say the user interrupted (a user
        line's, ``answers``: nothing of an assistant line's is read from them)."""
        if typed:
            return shape(message.content, self._raw if answers else None)
        return blocks.parts_of(message.content)

    def _assistant(
        self, facts: Line, typed: bool, line: int, uuid: str | None, side: bool, ts: str | None
    ) -> None:
        message = facts.message or _NO_MESSAGE
        key = message.id or facts.requestId or uuid or f"line-{line}"
        parts = self._parts(message, typed, False)
        model = intern(message.model) if message.model is not None else None
        response = self.responses.get(key)
        node = self.node_for(facts, uuid, line, ASSISTANT, side)
        if response is not None and response.side == side:
            if typed and self.raw.parts[response.raw] is not None:
                # The item keeps its parts (its first line can not be read again): this
                # line's, whole, join them.
                whole = orjson.loads(self._raw).get("message")
                content = whole.get("content") if isinstance(whole, dict) else None
                self._extend(response, blocks.parts_of(content))
            else:
                self._extend(response, parts)
        else:
            index = self.add_item(
                parts, line, uuid, node, side, role=message.role or "assistant", ts=ts, model=model
            )
            replaced = self.responses.get(key)  # (another side's: this one takes its place)
            response = Response(
                id=uuid or f"line-{line}",
                side=side,
                raw=index,
                model=model,
                run=len(self.runs) - 1,
                order=len(self.responses) if replaced is None else replaced.order,
            )
            if replaced is not None:
                self.usage.replaced(replaced)
            self.responses[key] = response
            self.response_at[index] = response
            if not self.off and self.runs:
                run = self.runs[-1]
                run.items += 1
                run.responses.append(response)
            if model and model != SYNTHETIC and "model" not in self.meta:
                self.meta["model"] = model
        if node >= 0:
            response.nodes.append(node)
            self.node_raw[node] = response.raw
        if not self.off and self.runs:
            self.runs[-1].response_line = line
        if message.stop_reason is not None:
            response.stop = message.stop_reason
        if message.usage is not None:
            self.usage.report(response, message.usage, model)
        for index, part in enumerate(parts):
            if part.kind == "tool-call" and part.call_id and part.call_id not in self.calls:
                self._call(part, index, line, response, side, ts)

    def _extend(self, response: Response, parts: list[Part]) -> None:
        """A later line of a response: its blocks join the item's."""
        response.lines += 1
        self.raw.extend(response.raw, parts, self.span)
        self.raw.lines[response.raw] = response.lines

    def _ref(self, part: Part, index: int) -> Part | PartRef:
        """What a call keeps of its line's ``index``-th part: where it is, when the line
        can be read again (the part itself otherwise)."""
        if self.span and self.part_source is not None:
            return PartRef.at(self.part_source, self.span, index)
        return part

    def _call(
        self, part: Part, index: int, line: int, response: Response, side: bool, ts: str | None
    ) -> None:
        assert part.call_id is not None
        # (its fields in order: call_id, tool, part, line, message_id, side, run, started)
        call = Call(
            part.call_id,
            part.name or "?",
            self._ref(part, index),
            line,
            response.id,
            side,
            len(self.runs) - 1,
            ts,
        )
        self.calls[part.call_id] = call
        response.calls.append(part.call_id)
        if call.tool in TASK_TOOLS and not self.off:
            self.sides.tasks.append(call)
        waiting = self.unpaired.pop(part.call_id, None)
        if waiting is not None:
            self._answer(call, *waiting)

    def _user(
        self, facts: Line, typed: bool, line: int, uuid: str | None, side: bool, ts: str | None
    ) -> None:
        message = facts.message or _NO_MESSAGE
        parts = self._parts(message, typed, True)
        meta = facts.isMeta is True
        before = self.conv_main  # the last conversation node before this line
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
        node = self.node_for(facts, uuid, line, USER, side)
        ident = uuid or f"line-{line}"
        # Its text, while every part is whole (a prompt's or a summary's, kept).
        text = (
            "\n".join(p.text for p in parts if p.kind == "text")
            if plain and not (self.off or meta)
            else ""
        )
        result = facts.toolUseResult
        answers: list[tuple[int, tuple[bool, str | None]]] = []
        # A line read again when shown keeps its span alone: its tool result's detail
        # (often the largest value of the line) is not decoded, only its facts are.
        keep = not self.rereadable()
        detail: Any = None
        result_interrupted, agent = False, None
        for index, part in enumerate(parts):
            if part.kind == "tool-result" and part.call_id:
                if not answers:
                    result_interrupted, agent = result_facts(result)
                    if keep:
                        detail = blocks.detail(result_value(result))
                part.data = detail
                interrupted = result_interrupted or part.text.lstrip().startswith(
                    blocks.INTERRUPTED
                )
                answers.append((index, (interrupted, agent)))
        self.add_item(
            parts, line, uuid, node, side, role=message.role or "user", kind=kind, ts=ts, meta=meta
        )
        for index, said in answers:
            part = parts[index]
            call_id = part.call_id
            assert call_id is not None
            call = self.calls.get(call_id)
            if call is None:
                self.unpaired.setdefault(
                    call_id, (self._ref(part, index), part.is_error, line, node, said, ts)
                )
            elif call.result_line is None:
                self._answer(call, self._ref(part, index), part.is_error, line, node, said, ts)
        if self.off:
            if side and node >= 0 and facts.parentUuid is None:  # an in-file subagent's
                self.sides.root(len(self.raw) - 1, node, line, ident)
            return
        if kind == "compact-summary":
            for boundary in reversed(self.boundaries):
                if not boundary.elision and boundary.summary_item is None:
                    boundary.summary = text
                    boundary.summary_item = ident
                    head = boundary.head
                    if head >= 0 and uuid and self.threads.parent_of(head) == boundary.node:
                        # a preserved segment hung on the boundary follows its summary
                        self.threads.relink(head, uuid)
                    break
            else:
                if facts.parentUuid is None and before >= 0:
                    # before compact_boundary lines (1.0.x) the chain began again at the
                    # summary itself: it is the compaction, folding what came before
                    self.boundaries.append(
                        Boundary(
                            id=ident,
                            line=line,
                            node=node,
                            elision=False,
                            record={},
                            before=before,
                            ts=ts,
                            summary=text,
                            summary_item=ident,
                        )
                    )
            return
        if meta or not plain:
            if self.runs and not meta:
                self.runs[-1].items += 1
            return
        if blocks.is_interruption(parts) and self.runs:
            self.runs[-1].cut = True
        if kind in ("message", "command") and blocks.is_prompt(parts):
            self.runs.append(
                RunMark(id=ident, line=line, prompt=text, started=ts, command=kind == "command")
            )
            if "prompt" not in self.titles:  # a command as typed, not its XML wrapper
                title = blocks.command_title if kind == "command" else blocks.first_line
                self.titles["prompt"] = title(text)
        if self.runs:
            self.runs[-1].items += 1

    def _answer(
        self,
        call: Call,
        part: Part | PartRef,
        is_error: bool,
        line: int,
        node: int,
        facts: tuple[bool, str | None],
        ts: str | None,
    ) -> None:
        interrupted, agent = facts
        call.result_part = part
        call.result_line = line
        call.result_node = node
        self.answered.append(call)
        call.is_error = is_error
        call.interrupted = interrupted
        call.ended = ts
        call.duration = seconds_between(call.started, ts)
        if agent:
            call.agent = agent
        self.progress_out.pop(call.call_id, None)

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        from .assemble import assemble

        self._write_progress()
        self.usage.settle(self.raw)
        return assemble(self, writer_alive)

    # A user or assistant line's parts again (a lazy part's text and data).
    line_parts = staticmethod(blocks.line_parts)


def _progress_text(kinds: tuple[tuple[str, int], ...]) -> str:
    return ", ".join(f"{k}" if n == 1 else f"{k} ×{n}" for k, n in kinds)
