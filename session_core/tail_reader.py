"""The reading side of a follower: one inode, one offset, a held-back partial line
(``TailReader``), stepped by ``follow`` on every wake-up and by the browser's live rows
(``scan_live``) whenever a row's file changed. It never writes to the file.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import orjson

from .compressed import file_read, unpack_grown, unpack_whole
from .events import SPAN_BITS, SPAN_MAX, LineSource
from .follow_update import FollowUpdate, parse_records
from .formats import Format, HeadDetector
from .indexing import head_record
from .line_warnings import settled_line
from .read_only import open_read_only as _open_ro
from .read_only import unviewed as _unviewed
from .reader import BOM, bom_length, is_blank
from .tail_problems import complain, not_a_file, place, position, unreadable, vanish

_READ_BLOCK = 1 << 20
HELD_CHECK = 4096  # bytes of a held-back line compared with the file at each end
# Blocks kept to be read into again: a reader that lets go of each batch before the next
# read (``follow`` itself, the viewer's worker) reads into one; a reader that holds its
# last batch meanwhile, into two.
_SPARE_BLOCKS = 2


AGAIN = ": reading it again from line 1"  # the end of a reset's warning: why, first
WRITTEN_ON = "its last line, read whole once its writer was gone, was written on"


def _stamp(st: os.stat_result) -> tuple[int, ...]:
    """A file as it was looked at: an unpack of it stands while this does."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class TailReader:
    """The reading side of a follower: one inode, one offset, a held-back partial line.

    ``step(limit_bytes)`` reads what was appended since the last step (at most about
    ``limit_bytes``; None: all of it) and returns it as a ``FollowUpdate``, or None when
    nothing changed; a file replaced, truncated, rewritten or gone starts it again from
    line 1 (``reset``). ``follow`` steps one on every wake-up; the browser's live rows
    (``scan_live``) step one each whenever a row's file changed. After a step, ``offset``
    is how far it read, ``complete`` just past the last complete line, ``ino`` the
    (device, inode) read and ``source`` the file kept open to read lines again.
    ``close`` lets the file go (``source`` is the caller's to close).
    """

    def __init__(self, path: str, parse: bool = True) -> None:
        self.path = path
        self.parse = parse
        self.fd: int | None = None
        self.ino: tuple[int, int] | None = None
        self.offset = 0
        self.complete = 0  # offset just past the last complete line
        self.line = 0
        self.partial: list[bytes] = []
        self.first = b""  # the file's first ``HELD_CHECK`` bytes as read (``_start_intact``)
        self.bom = 0  # bytes of a byte order mark read past at the file's start (3 or 0)
        self.format: Format | None = None
        self.seen_first = False
        self.head = HeadDetector()  # (the format, from the first lines)
        self.head_line = 0
        self.vanished = False
        self.existed = False  # a file was opened at the path (else it only appeared)
        self.started = False  # an update has been produced
        self.problem: str | None = None  # the last "cannot be read" warning, said once
        # The file read was replaced by one that cannot be opened (not by something that
        # is no file): what was read stands till it can be, then said so (its reset).
        self.blocked = False
        self.source: LineSource | None = None  # the file read, for readers to read lines again
        # A zstd-compressed file (Codex's idle rollouts) is read as its lines: unpacked
        # once (it does not grow), and read again only when the file itself changes.
        self.unpacked: bytes | None = None
        self.packed_stamp: tuple[int, int] | None = None  # its (size, mtime) when unpacked
        self.damage: str | None = None  # why a damaged one was unpacked only so far
        self.damage_said: str | None = None  # ...as the warnings said it when it was opened
        self.blocks: list[bytearray] = []  # read into again (``_read_block``)
        # Codex compresses an idle rollout to ``<name>.zst`` and removes the plain file:
        # that copy is read while the plain file is not there (the plain file wins).
        self.packed_copy = path + ".zst" if path.endswith(".jsonl") else None
        self.reading = path  # the file read: ``path``, or its packed copy
        # The byte our last complete line ends with: a newline, or a settled line's last
        # (``settle``: read whole without one, its writer gone).
        self.ending = b"\n"
        self.refused = (0, 0)  # the held line ``settle`` last found not whole (where, end)
        self.size_said = 0  # the file's size as the last update that read it said

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def restart(self) -> None:
        self.close()
        self.source = None  # updates already sent keep theirs
        self.ino = None
        self.offset = 0
        self.complete = 0
        self.line = 0
        self.partial = []
        self.first = b""
        self.bom = 0
        self.format = None
        self.seen_first = False
        self.head = HeadDetector()
        self.unpacked = self.packed_stamp = None
        self.damage = self.damage_said = None
        self.ending = b"\n"
        self.refused = (0, 0)
        self.blocked = False
        self.size_said = 0  # (nothing read of the file to come: no size of the one let go)

    def _size(self, st: os.stat_result) -> int:
        """How many bytes of lines the file holds (a compressed one: once unpacked)."""
        return st.st_size if self.unpacked is None else len(self.unpacked)

    def _pread(self, fd: int, want: int, offset: int) -> bytes:
        if self.unpacked is not None:
            return self.unpacked[offset : offset + want]
        return os.pread(fd, want, offset)

    def _read_block(self, fd: int, want: int, offset: int) -> bytes | bytearray:
        """A full block read into a buffer read into before, once no view of it lives.

        Under the viewer's fixed mmap threshold (``malloc.steady_malloc``) a fresh 1 MB
        buffer is a mapping of its own, faulted in page by page and given back when the
        batch is done: a sixth of an agentgo load, 4% of the others'. Only the raw
        batches' lines are views into a block, and a bytearray that any view (a line, a
        ``msgspec.Raw`` decoded from one) still holds cannot be resized: that is the test.
        """
        if self.unpacked is not None or want != _READ_BLOCK:
            return self._pread(fd, want, offset)
        block = _unviewed(self.blocks)
        if block is None:
            block = bytearray(_READ_BLOCK)
            if len(self.blocks) < _SPARE_BLOCKS:
                self.blocks.append(block)
        got = os.preadv(fd, [block], offset)
        return block if got == len(block) else bytes(memoryview(block)[:got])

    def _unpack(
        self, fd: int, st: os.stat_result, known: tuple[bytes, str | None] | None = None
    ) -> None:
        """Unpack a zstd file whole, a damaged one as far as it goes (``unpack_whole``:
        ``damage`` says why no further; its last line cut is held back as a crash tail);
        ``known``: its unpack, already made (the file as ``st`` says it is)."""
        unpacked = known or unpack_whole(fd)
        if unpacked is None:
            return  # (no zstd file)
        self.unpacked, damage = unpacked
        self.damage = None if damage is None else f"{self.reading} cannot be read{damage}"
        self.packed_stamp = (st.st_size, st.st_mtime_ns)
        self.source = None  # spans would name unpacked offsets: readers keep the lines

    def _turned_zstd(self, st: os.stat_result) -> bool:
        """Whether a file read as plain before it held the 4 bytes of zstd's magic (it
        was empty, or held fewer) begins with them now: it is unpacked, from the start
        (its compressed bytes were read on as lines for good: the fuzzer)."""
        if self.unpacked is not None or self.complete or not self.offset < 4 <= st.st_size:
            return False
        from .compressed import is_zstd

        assert self.fd is not None
        try:
            return is_zstd(os.pread(self.fd, 4, 0))
        except OSError:
            return False

    def _start_intact(self, fd: int) -> bool:
        """Whether the file's first complete lines (up to ``HELD_CHECK`` bytes) are still
        what was read: a file truncated and written again between two reads, a newline
        back where our last line ended, passed every other check (an agentgo session
        begun again: its ``session_start`` line is the same length each time)."""
        want = min(len(self.first), self.complete)
        if want <= 0 or self.unpacked is not None:
            return True
        try:
            return os.pread(fd, want, 0) == self.first[:want]
        except OSError:
            return False

    def _boundary_intact(self, fd: int) -> bool:
        """Whether the byte before our last complete line's end is still its ending (a
        newline, or a settled line's last byte)."""
        end = self.complete
        if end <= self.bom or self.unpacked is not None:  # (no line ended yet)
            return True
        try:
            return os.pread(fd, 1, end - 1) == self.ending
        except OSError:
            return False

    def _settled_ends(self, fd: int, update: FollowUpdate) -> bool | None:
        """Whether what follows a settled line (``settle``) is its newline, or nothing yet:
        the newline (LF, or CRLF) is read past (the line was read already; its note, that
        it had none, withdrawn in ``update``); other bytes on that line make another line
        of it than the one read (the file is read again). None: a CR alone so far, left
        unread till its LF comes (taken in, it led the next line)."""
        if self.ending == b"\n":
            return True
        new = self._pread(fd, 2, self.offset)
        if new == b"\r":
            return None
        ended = 2 if new == b"\r\n" else 1 if new[:1] == b"\n" else 0
        if ended:
            self.offset += ended
            self.complete = self.offset
            self.ending = b"\n"
            update.withdrawn.append(settled_line(self.line))
        return bool(ended) or not new

    def settle(self) -> FollowUpdate | None:
        """The held-back last line as a line read, and a compressed file's cut end as
        damage, its writer gone (``tail_settle``)."""
        from .tail_settle import settle_cut, settle_held

        return settle_cut(self, settle_held(self))

    def _held_intact(self, fd: int) -> bool:
        """Whether the unfinished line held back is still what the file has there (its
        first and last ``HELD_CHECK`` bytes): a writer that cuts its torn tail off and
        writes the whole line before the next read leaves the size past ``offset`` and
        the boundary a newline, and the held bytes were joined to the new ones, a
        record the file never had (the fuzzer)."""
        held = self.offset - self.complete
        if not self.partial or held <= 0 or self.unpacked is not None:
            return True
        head = b""
        for piece in self.partial:  # (its first bytes alone: a long line is many pieces)
            head += piece[: HELD_CHECK - len(head)]
            if len(head) >= HELD_CHECK:
                break
        partial = self.partial
        try:
            if os.pread(fd, len(head), self.complete) != head:
                return False
            if held <= HELD_CHECK:
                return True
            tail = partial[-1][-HELD_CHECK:]
            return os.pread(fd, len(tail), self.offset - len(tail)) == tail
        except OSError:
            return False

    def step(self, limit_bytes: int | None) -> FollowUpdate | None:
        """Read what is new (at most about ``limit_bytes``); None when nothing changed."""
        where = file_read(self.path)
        update = FollowUpdate(read=where)
        try:
            st = os.stat(where)
        except FileNotFoundError:
            return vanish(self, update)
        except OSError as err:
            return complain(self, update, f"{where} cannot be read: {err.strerror}")
        if not stat.S_ISREG(st.st_mode):
            return not_a_file(self, update, st.st_mode)
        reason, news, owed_cr = None, False, False
        rewritten: tuple[tuple[bytes, str | None] | None, tuple[int, ...]] = (None, ())
        if self.fd is None:
            if self.vanished and self.existed:
                reason = "the file appeared again"
            elif self.problem is not None:  # (said why it could not be: it is no other file)
                reason = "the file can be read now"
            else:
                reason = ""
        elif where != self.reading:
            if where != self.path:
                reason = f"the file was compressed to {os.path.basename(where)}"
            elif self.packed_copy is not None and os.path.exists(self.packed_copy):
                reason = "the plain file is back beside its compressed copy"
            else:
                reason = f"the file was decompressed to {os.path.basename(where)}"
        elif (st.st_dev, st.st_ino) != self.ino:
            reason = "the file was replaced (a new inode, e.g. a repair's rename)"
        elif self.unpacked is not None and (st.st_size, st.st_mtime_ns) != self.packed_stamp:
            said = self.damage
            again, grown = unpack_grown(self.fd, self.unpacked)
            if not grown:  # (not frames appended alone)
                reason = "the compressed file was rewritten"
                rewritten = again, _stamp(st)  # (read from line 1 as unpacked here, once)
            else:
                # (a frame appended in part is no damage said in the warnings: it is
                # being written, as a plain file's held line; the banner says it, and the
                # warnings once its writer is gone: ``settle``)
                before = len(self.unpacked)
                self._unpack(self.fd, st, again)
                news = self.damage != said  # (cut short no more, or further on)
                update.growing = self.damage is not None
                if self.damage_said is not None and (
                    self.damage is None or len(self.unpacked) != before
                ):
                    # (the cut said is read past, its frame whole: it was being written,
                    # no damage; a frame cut after it is another's, being written)
                    update.withdrawn.append(self.damage_said)
                    self.damage_said = None
                # (a line settled before its frame was whole: its newline, unpacked now,
                # read past as a plain file's is, or more on that line read again)
                ends = self._settled_ends(self.fd, update)
                owed_cr = ends is None
                if ends is False:
                    reason = WRITTEN_ON
                    rewritten = again, _stamp(st)
        elif self._turned_zstd(st):
            reason = ""  # (nothing was shown of it: its first bytes are held, no line)
        elif self._size(st) < self.offset:
            reason = "the file was truncated"
        elif not (
            self._boundary_intact(self.fd)
            and self._held_intact(self.fd)
            and self._start_intact(self.fd)
        ):
            reason = "the file was rewritten under us"
        elif (ends := self._settled_ends(self.fd, update)) is None:
            return None
        elif not ends:
            reason = WRITTEN_ON
        if reason is not None:
            # Opened before anything is let go: a file that cannot be read leaves what
            # was read as it was (``_unreadable``), to be read from line 1 once it can.
            try:
                fd = _open_ro(where)
            except FileNotFoundError:
                return vanish(self, update)
            except OSError as err:
                return unreadable(self, update, f"{where} cannot be read: {err.strerror}", reason)
            fst = os.fstat(fd)
            if not stat.S_ISREG(fst.st_mode):
                os.close(fd)
                return not_a_file(self, update, fst.st_mode)
            if self.blocked:  # (its replacement was said, and why it was not read)
                reason = "the file can be read now"
            shown = position(self)  # (what was read stands if this one cannot be)
            self.restart()
            self.reading = where
            self.fd = fd
            self.existed = True
            self.ino = (fst.st_dev, fst.st_ino)
            self.source = LineSource(os.dup(fd))
            try:
                self._unpack(fd, fst, rewritten[0] if rewritten[1] == _stamp(fst) else None)
            except OSError as err:
                self.restart()
                self.started = True
                why = f"{where} cannot be read: {err.strerror}"
                return complain(self, update, why, shown)
            update.reset = self.started
            update.initial = True
            if reason:
                update.warnings.append(f"{reason}{AGAIN}")
            if self.damage is not None:  # (said once; each update says it stands)
                update.warnings.append(self.damage)
                self.damage_said = self.damage
            self.started = True
            self.vanished = False
            self.problem = None
            st = fst
        elif self.problem is not None:  # (the file read, that could not be looked at: said)
            update.warnings.append(f"{where} can be read again")
            self.problem, self.blocked = None, False
        elif self._size(st) == self.offset and not (news or update.withdrawn):
            return None
        elif owed_cr and not (news or update.withdrawn):
            return None  # (a settled line's CR unpacked alone: nothing new yet)
        try:
            if owed_cr:  # (its CR left unread, as a plain file's, till its LF comes)
                place(update, position(self))
            elif not self._read(update, limit_bytes) and not update.initial:
                return None  # (a byte order mark begun: nothing new until it is whole)
        except OSError as err:
            # EIO, ESTALE on a network file system, ...: start again from line 1 (what
            # was read stands till then: where it ended said, as read before the restart).
            at = position(self)
            self.restart()
            why = f"{self.reading} could not be read: {err.strerror}"
            return complain(self, update, why, at)
        update.size = self.size_said = max(self._size(st), self.offset)
        update.problem = self.damage  # (what was read is shown, and why no more is)
        update.growing = update.growing and update.problem is not None
        return update

    def _read(self, update: FollowUpdate, limit_bytes: int | None) -> bool:
        """Read on into ``update``; False: nothing read (``_past_bom``: a mark begun)."""
        assert self.fd is not None
        fd = self.fd
        if self.offset == 0 and not self._past_bom(fd):
            update.caught_up = True
            update.source = self.source
            return False
        end_goal = None if limit_bytes is None else self.offset + max(limit_bytes, 1)
        while True:
            want = _READ_BLOCK if end_goal is None else min(_READ_BLOCK, end_goal - self.offset)
            if self.parse:
                block: bytes | bytearray = self._pread(fd, want, self.offset)
            else:
                block = self._read_block(fd, want, self.offset)
            if not block:
                update.caught_up = True
                break
            start = self.offset
            if start == len(self.first) < HELD_CHECK:  # (the file's start, as read)
                self.first += bytes(block[: HELD_CHECK - start])
            self.offset += len(block)
            cut = block.rfind(b"\n")
            if cut < 0:
                self.partial.append(bytes(block))
            else:
                base = self.complete  # where the held-back partial line began
                self.complete = start + cut + 1
                if not self.parse:
                    self._pass_raw(block, cut, base, update)
                else:
                    assert isinstance(block, bytes)  # (read by ``_pread``)
                    # Split the block itself: no copy of it, only of its lines.
                    lines = block.split(b"\n")
                    carry = lines.pop()
                    if self.partial:
                        lines[0] = b"".join((*self.partial, lines[0]))  # (one copy)
                    self.partial = [carry] if carry else []
                    self._parse(lines, base, update)
            if end_goal is not None and self.offset >= end_goal:
                # Out of budget: caught up only if that happened to be the end.
                update.caught_up = self._size(os.fstat(fd)) <= self.offset
                break
        update.offset = self.offset
        update.held = self.offset - self.complete
        update.held_line = self.line + 1 if update.held else 0
        update.format = self.format
        update.source = self.source
        return True

    def _past_bom(self, fd: int) -> bool:
        """Start past a byte order mark at the file's start (kept in ``first``, which the
        file's start is checked against): its first line is read without it, as v1 reads
        it; only a format that reads one claims the file (``HeadDetector.bom``). False: only
        its first byte or two are there yet (read as line 1's, they would make it no JSON)."""
        start = self._pread(fd, len(BOM), 0)
        if 0 < len(start) < len(BOM) and BOM.startswith(start):
            return False
        self.bom = bom_length(start)
        if self.bom:
            self.first = BOM
            self.offset = self.complete = self.bom
            self.head.bom = True
        return True

    def _parse(self, lines: list[bytes], base: int, update: FollowUpdate) -> None:
        """Parse complete lines (their \n taken off), the first of them starting at ``base``."""
        loads = orjson.loads
        number = self.line
        envelopes = update.envelopes
        numbers = update.lines
        spans = update.spans
        at = base
        for raw in lines:
            number += 1
            start = at
            at += len(raw) + 1
            try:
                record = loads(raw)
            except orjson.JSONDecodeError:
                record = None
            if type(record) is not dict:
                # mended, or each record of a joined line, where the format reads so
                # (``mends_lines``, ``joins_lines``); or a warning that says why
                self._records(raw, number, start, update)
                continue
            if not self.seen_first:
                self._first(record, number, update)
            envelopes.append(record)
            numbers.append(number)
            spans.append(start << SPAN_BITS | len(raw) if len(raw) <= SPAN_MAX else 0)
        self.line = number

    def _records(self, raw: bytes, number: int, start: int, update: FollowUpdate) -> None:
        """A line orjson did not read as an object (starting at ``start`` in the file),
        as the file's format reads it."""
        from .formats import by_name

        fmt = None if self.format is None else by_name(self.format)
        records = parse_records(
            raw,
            number,
            update.warnings,
            mend=fmt is None or fmt.mends_lines,
            joins=fmt is None or fmt.joins_lines,
            blank_ok=fmt is None or fmt.blank_lines_ok,
        )
        one = len(records) == 1 and len(raw) <= SPAN_MAX  # (a joined line's span is no one's)
        for record in records:
            if not self.seen_first:
                self._first(record, number, update)
            update.envelopes.append(record)
            update.lines.append(number)
            update.spans.append(start << SPAN_BITS | len(raw) if one else 0)

    def _pass_raw(
        self, block: bytes | bytearray, cut: int, base: int, update: FollowUpdate
    ) -> None:
        """Hand on the complete lines of ``block`` (which ends its last at ``cut``) unparsed,
        as views into it: no line is copied (``parse=False``). Only the file's first
        record is parsed here, to know the format."""
        number = self.line
        numbers = update.lines
        spans = update.spans
        raw = update.raw
        view = memoryview(block).toreadonly()
        find = block.find
        at = base  # where the line starts in the file
        end = find(b"\n")
        line: bytes | memoryview = view[:end]
        if self.partial:
            line = b"".join((*self.partial, line))  # (one copy: a line may be 100s of KB)
        while True:
            number += 1
            size = len(line)
            if not self.seen_first:
                text = bytes(line)
                # (as detection reads it, the reader warns; a blank line is not parsed)
                record = head_record(text) if not is_blank(text) else None
                if type(record) is dict:
                    self._first(record, number, update)
            raw.append(line)
            numbers.append(number)
            spans.append(at << SPAN_BITS | size if size <= SPAN_MAX else 0)
            at += size + 1
            if end == cut:
                break
            start = end + 1
            end = find(b"\n", start)
            line = view[start:end]
        self.partial = [bytes(view[cut + 1 :])] if cut + 1 < len(block) else []
        self.line = number

    def _first(self, record: dict[str, Any], number: int, update: FollowUpdate) -> None:
        head = self.head
        if not head.skipped:
            self.head_line = number
        if not head.feed(record):
            return  # a line of a type no format claims: the next ones may tell
        self.seen_first = True
        self.format = head.format
        if self.format is None:
            led = " (led by a byte order mark)" if head.bom else ""  # (v1's alone may be)
            update.warnings.append(
                f"line {self.head_line} is not the start of a known transcript format{led}"
            )
