"""The C allocator told to keep big buffers in mappings of their own (glibc only).

glibc serves a buffer over its mmap threshold from a mapping of its own, given back
to the system when freed, and one under it from the heap. The threshold moves up to
the size of each such buffer freed: after a replay's first 1 MB batch, its next
batches and the growing per-line arrays came from the heap, and the holes they left
were 17 MB of a 1 GB file's viewer (resident, never given back). Fixed, the threshold
stays where it starts (an array that grows is moved by ``mremap``, not copied).
"""

from __future__ import annotations

import sys

M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
THRESHOLD = 128 * 1024  # glibc's own starting value


def steady_malloc() -> bool:
    """Fix glibc's mmap threshold for this process; False where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # (another C library: musl has no mallopt)
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD))
