"""A process's memory as Linux says it in ``/proc/PID/status``: VmHWM (its peak RSS,
which starts again at exec, where ``ru_maxrss`` carries over the RSS of the process it
was forked from) and VmRSS (now). The benches read no other source of RSS."""

from __future__ import annotations


def status_bytes(status: str, field: str = "VmHWM") -> int | None:
    """``field`` of a status text, in bytes (None: not in it)."""
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    return None


def rss_bytes(pid: int | str = "self", field: str = "VmHWM") -> int | None:
    """``field`` of a process (this one by default), in bytes (None: no such process,
    or a system without ``/proc``)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return status_bytes(fh.read(), field)
    except OSError:
        return None


__all__ = ["rss_bytes", "status_bytes"]
