"""Monte Carlo estimates with standard errors: seeded, batched, reproducible.

A sampler draws a whole batch of independent samples at once (a leading axis); `estimate` accumulates
batches until the requested number of draws and reports the mean with its standard error.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["Estimate", "estimate", "rng_for"]


@dataclass(frozen=True)
class Estimate:
    """Sample mean, its standard error (sample std / sqrt(n)) and the number of samples."""

    mean: float
    stderr: float
    samples: int

    def interval(self, k: float = 4.0) -> tuple[float, float]:
        return self.mean - k * self.stderr, self.mean + k * self.stderr

    def __str__(self) -> str:
        return f"{self.mean:.6g} ± {self.stderr:.2g} (n={self.samples})"


def rng_for(seed: int, *keys: object) -> np.random.Generator:
    """An independent, reproducible generator for (seed, keys): SeedSequence with a spawn key per key."""
    spawn = tuple(zlib.crc32(repr(k).encode()) for k in keys)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=spawn))


def estimate(sampler: Callable[[np.random.Generator, int], np.ndarray], draws: int, *, seed: int = 0,
             key: object = "", batch: int = 4096, progress: bool = False, desc: str = "") -> Estimate:
    """Mean and standard error of `sampler(rng, size)` (an array of `size` i.i.d. samples) over `draws`.

    Batches are combined with Chan's parallel variance update, so the result does not depend on the
    batch size beyond rounding; the generator is derived from (seed, key), so runs are reproducible.
    """
    if draws < 2:
        raise ValueError(f"draws must be an integer >= 2; got draws={draws}")
    rng = rng_for(seed, key)
    n, mean, m2 = 0, 0.0, 0.0
    bar = None
    if progress:
        from tqdm.auto import tqdm  # lazy: tqdm.auto costs ~35 ms of start-up; only a shown bar needs it

        bar = tqdm(total=draws, desc=desc or "monte carlo", leave=False, unit="draw")
    while n < draws:
        size = min(batch, draws - n)
        x = np.asarray(sampler(rng, size), dtype=float).reshape(size, -1).mean(axis=1)
        b_mean, b_m2 = float(x.mean()), float(((x - x.mean()) ** 2).sum())
        delta = b_mean - mean
        total = n + size
        mean += delta * size / total
        m2 += b_m2 + delta * delta * n * size / total
        n = total
        if bar is not None:
            bar.update(size)
    if bar is not None:
        bar.close()
    return Estimate(mean, math.sqrt(m2 / (n - 1) / n), n)
