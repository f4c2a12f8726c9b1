"""Whether a line is valid UTF-8, as orjson requires: the one check every fast path makes.

msgspec does not check the UTF-8 of what a ``Struct`` skips, so a line decoded typed is
checked here, or it would be taken where orjson (the plain path) refuses it, and be found
"changed on disk" when read again by its span.

A big line is decoded a slice at a time: decoded whole, it made a string of up to four
times its size only to drop it, and in the viewer (``malloc.steady_malloc``) each such
string was a mapping of its own, faulted in page by page (v1's load of a 1 GB file:
628k page faults, now 293k; 6% of its time).
"""

from __future__ import annotations

import codecs

__all__ = ["BlockLines", "is_utf8"]

SLICE = 1 << 14  # bytes decoded at once

_Raw = bytes | bytearray | memoryview


def is_utf8(raw: _Raw) -> bool:
    """Whether ``raw`` is valid UTF-8."""
    if type(raw) is bytes and raw.isascii():
        return True
    if len(raw) <= SLICE:
        try:
            str(raw, "utf-8")
        except UnicodeDecodeError:
            return False
        return True
    view = memoryview(raw)
    decode = codecs.getincrementaldecoder("utf-8")().decode
    try:
        for at in range(0, len(view), SLICE):
            decode(view[at : at + SLICE])
        decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


class BlockLines:
    """``is_utf8`` for a batch's lines, where a line is a view into the block read
    (``follow``'s raw batches): an all-ASCII block (nearly every block) answers for all
    of its lines, checked once. One per batch: a block is known by its identity, and
    ``follow`` reads into a block again once no line of the last batch views it."""

    __slots__ = ("_ascii", "_block")

    def __init__(self) -> None:
        self._block: object = None
        self._ascii = False

    def ascii(self, raw: _Raw) -> bool:
        """Whether ``raw`` is known ASCII: itself, or the block it is a view into."""
        if type(raw) is memoryview:
            block = raw.obj
            if block is not self._block:
                self._block = block
                self._ascii = isinstance(block, (bytes, bytearray)) and block.isascii()
            return self._ascii
        return raw.isascii()

    def ok(self, raw: _Raw) -> bool:
        return self.ascii(raw) or is_utf8(raw)
