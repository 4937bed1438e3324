"""A sweep task and driver used by tests/test_sweep.py (run as a separate, killable process)."""
from __future__ import annotations

import sys
import time

import numpy as np


def slow_task(a: int, b: float) -> dict:
    """A pure task: deterministic in its parameters (its own seeded generator), slow enough to kill midway."""
    time.sleep(0.15)
    rng = np.random.default_rng([a, int(b * 1000)])
    return {"value": float(rng.normal() + a * b)}


def main(path: str, workers: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from theorylab._numerics.sweep import grid, run_sweep

    tasks = grid(a=range(8), b=(0.5, 1.5, 2.5))
    with ThreadPoolExecutor(max_workers=workers) as ex:
        run_sweep(slow_task, tasks, path, executor=ex)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
