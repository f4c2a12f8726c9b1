"""The ints a format's typed decode takes: the ones orjson, the dict path's parser, also
reads as ints, and a count column (int64) holds.

A bigger one makes msgspec refuse the line, which then goes to the dict path (orjson
reads an int past 64 bits as a float), where ``int64_or_none`` reads it as no number:
both paths read such a count as unknown, never as a count to add up or price.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

LEAST, MOST = -(1 << 63), (1 << 63) - 1
Int = Annotated[int, msgspec.Meta(ge=LEAST, le=MOST)]


def int64_or_none(value: Any) -> int | None:
    """A parsed value that is such an int (a bool is not), else None."""
    return value if type(value) is int and LEAST <= value <= MOST else None
