"""Shared helpers: medians of repeated timings, interleaved so that noise hits both sides."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_times(
    funcs: dict[str, Callable[[], object]], repeat: int = 15, warmup: int = 2
) -> dict[str, float]:
    """Median wall time (s) of each function; calls are interleaved round-robin."""
    for f in funcs.values():
        for _ in range(warmup):
            f()
    samples: dict[str, list[float]] = {k: [] for k in funcs}
    for _ in range(repeat):
        for k, f in funcs.items():
            t = time.perf_counter()
            f()
            samples[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in samples.items()}
