"""Benchmark: batched Monte Carlo estimators (all draws at once) against a per-draw loop, at d = 500.

Both compute the same estimator on the same draws' distribution, side by side in this process; reported:
draws per second for each, the speed ratio, and both estimates with their standard errors.
Run: python benchmarks/bench_montecarlo.py [--draws 2000]

At d = 500 an estimator that needs a fresh Gaussian X per draw is bound by the generator (identical work
in both versions) or by BLAS-sized solves, so batching alone gains little there (reported as measured);
the sampled Gram matrix (151) is where per-draw overhead dominates, and torch's float32 generator helps.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

D, THETA, SIGMA = 500, math.pi / 4, 0.5


def _targets():
    bs = np.zeros(D)
    bs[0] = 1.0
    bt = math.cos(THETA) * bs
    bt[1] = math.sin(THETA)
    return bs, bt


def linear_transfer_batched(rng, draws, n, chunk=100):
    bs, bt = _targets()
    out = []
    for s in range(0, draws, chunk):  # chunks keep X in cache; all draws of a chunk at once
        X = rng.standard_normal((min(chunk, draws - s), n, D))
        y = X @ bt + SIGMA * rng.standard_normal(X.shape[:2])
        z = X @ bs
        b = np.sum(z * y, axis=1) / np.sum(z * z, axis=1)
        out.append((b - math.cos(THETA)) ** 2 + math.sin(THETA) ** 2)
    return np.concatenate(out)


def linear_transfer_loop(rng, draws, n):
    bs, bt = _targets()
    out = np.empty(draws)
    for i in range(draws):
        X = rng.standard_normal((n, D))
        y = X @ bt + SIGMA * rng.standard_normal(n)
        z = X @ bs
        b = z @ y / (z @ z)
        out[i] = (b - math.cos(THETA)) ** 2 + math.sin(THETA) ** 2
    return out


def scratch_batched(rng, draws, n, chunk=50):
    _, bt = _targets()
    out = []
    for s in range(0, draws, chunk):
        X = rng.standard_normal((min(chunk, draws - s), n, D))
        y = X @ bt + SIGMA * rng.standard_normal(X.shape[:2])
        bhat = np.einsum("bnd,bn->bd", X, np.linalg.solve(X @ X.transpose(0, 2, 1), y[..., None])[..., 0])
        out.append(np.sum((bhat - bt) ** 2, axis=1))
    return np.concatenate(out)


def scratch_loop(rng, draws, n):
    _, bt = _targets()
    out = np.empty(draws)
    for i in range(draws):
        X = rng.standard_normal((n, D))
        y = X @ bt + SIGMA * rng.standard_normal(n)
        bhat = X.T @ np.linalg.solve(X @ X.T, y)
        out[i] = np.sum((bhat - bt) ** 2)
    return out


M = 100  # ReLU features for the sampled Gram matrix (151)


def _weights():
    W = np.random.default_rng(0).standard_normal((M, D))
    return W / np.linalg.norm(W, axis=1, keepdims=True)


def gram_batched(rng, draws, chunk=2000):
    """(151): the Monte Carlo Gram matrix (1/N) sum_x relu(Wx) relu(Wx)^T, all draws of a chunk at once;
    returns per-draw values of one entry (0, 1) for the standard error."""
    W = _weights()
    out = []
    for s in range(0, draws, chunk):
        F = np.maximum(rng.standard_normal((min(chunk, draws - s), D)) @ W.T, 0)
        G = F.T @ F  # the accumulated Gram matrix (as the estimator needs), plus one entry per draw
        out.append(F[:, 0] * F[:, 1])
    return np.concatenate(out)


def gram_loop(rng, draws):
    W = _weights()
    G = np.zeros((M, M))
    out = np.empty(draws)
    for i in range(draws):
        f = np.maximum(W @ rng.standard_normal(D), 0)
        G += np.outer(f, f)
        out[i] = f[0] * f[1]
    return out


def gram_torch(rng, draws, chunk=5000):
    """The batched estimator in torch: float32 samples (rounding 1e-7 relative, far below the Monte Carlo
    error ~1e-3), float64 accumulation of the Gram matrix."""
    import torch

    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    W = torch.tensor(_weights(), dtype=torch.float32)
    G = torch.zeros(M, M, dtype=torch.float64)
    out = []
    for s in range(0, draws, chunk):
        F = torch.relu(torch.randn(min(chunk, draws - s), D, generator=gen) @ W.T)
        G += (F.T @ F).double()
        out.append((F[:, 0] * F[:, 1]).double())
    return torch.cat(out).numpy()


def run(name, batched, loop, draws, **kw):
    batched(np.random.default_rng(0), 10, **kw)  # warm up: imports, thread pools, first allocations
    loop(np.random.default_rng(0), 10, **kw)
    t = time.perf_counter()
    a = batched(np.random.default_rng(1), draws, **kw)
    tb = time.perf_counter() - t
    t = time.perf_counter()
    b = loop(np.random.default_rng(2), draws, **kw)
    tl = time.perf_counter() - t
    se = lambda x: x.std(ddof=1) / math.sqrt(x.size)  # noqa: E731
    print(f"{name:32s} batched {draws / tb:10,.0f} draws/s | loop {draws / tl:10,.0f} draws/s | ratio {tl / tb:5.1f}x"
          f" | estimates {a.mean():.5f}±{se(a):.5f} vs {b.mean():.5f}±{se(b):.5f}")
    return tl / tb


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--draws", type=int, default=2000)
    args = ap.parse_args(argv)
    print(f"d = {D}, {args.draws} draws each")
    run("linear transfer (10), n=20", linear_transfer_batched, linear_transfer_loop, args.draws, n=20)
    run("scratch min-norm (8), n=250", scratch_batched, scratch_loop, max(args.draws // 10, 50), n=250)
    run(f"sampled Gram (151), m={M}", gram_batched, gram_loop, 20 * args.draws)
    run(f"sampled Gram (151), torch", gram_torch, gram_loop, 20 * args.draws)


if __name__ == "__main__":
    main()
