"""Shared timing helper of the benchmarks: the median wall time of repeated calls."""
from __future__ import annotations

import statistics
import time


def timed(fn, repeats: int) -> float:
    """Median of `repeats` wall-clock timings of fn() in seconds."""
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)
