"""``steady_malloc``: glibc's mmap threshold stays fixed, so that a big buffer has a
mapping of its own (given back when freed), not a stretch of the heap (left as a hole)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# In a process of its own (the threshold is the process's): whether a 1 MB buffer made
# after a 2 MB one was freed is mapped on its own (glibc moves the threshold up to the
# size freed, unless it was fixed).
CHILD = """
import ctypes, sys
from session_core.malloc import steady_malloc
if sys.argv[1] == "fixed":
    assert steady_malloc()
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks",
                "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
info = ctypes.CDLL(None).mallinfo2
info.restype = Info
first = bytearray(2 << 20)
del first
before = info().hblkhd
second = bytearray(1 << 20)
print(info().hblkhd - before)
"""


def _mapped(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, check=True
    )
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_big_buffer_is_mapped_on_its_own_once_the_threshold_is_fixed() -> None:
    assert _mapped("moving") == 0  # (glibc's own way: from the heap)
    assert _mapped("fixed") >= 1 << 20
