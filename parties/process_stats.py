"""What the operating system says about this process's memory (for cost reports and benchmarks)."""

from __future__ import annotations

import os
import sys

__all__ = ["peak_rss_bytes", "rss_bytes"]


def rss_bytes() -> int:
    """Resident memory of this process now (bytes; 0 where ``/proc`` is missing)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # not Linux
        return 0


def peak_rss_bytes() -> int | None:
    """Peak resident memory of this process so far (``None`` where the OS does not say)."""
    try:
        import resource
    except ImportError:
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss) * (1 if sys.platform == "darwin" else 1024)  # bytes on macOS, KiB on Linux
