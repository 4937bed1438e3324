"""Benchmark: the batched trainer (runs as a tensor axis) against a per-run loop over the same runs.

Both train the same R PT+FT diagonal networks (seed 000, App. A) for the same number of steps with the
same fixed step size, side by side in this process; the figure is the time ratio loop / batched and the
agreement of the results. Run: python benchmarks/bench_training.py [--runs 64] [--device cuda]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from theorylab.training import TrainConfig, resolve_device, train


def make(R, n, D, device, seed=0):
    gen = torch.Generator().manual_seed(seed)
    X = (torch.randn(R, n, D, generator=gen, dtype=torch.float64) / D**0.5).to(device)
    y = torch.randn(R, n, generator=gen, dtype=torch.float64).to(device)
    w = (0.5 + torch.rand(R, D, generator=gen, dtype=torch.float64)).to(device)
    return X, y, w


def run(X, y, w, steps, lr):
    p0 = {"a_p": w, "c_p": 0.5 * torch.ones_like(w), "a_m": w.clone(), "c_m": 0.5 * torch.ones_like(w)}

    def loss(p):
        beta = p["a_p"] * p["c_p"] - p["a_m"] * p["c_m"]
        return ((torch.einsum("rnd,rd->rn", X, beta) - y) ** 2).sum(1)

    res = train(p0, loss, TrainConfig(lr=lr, max_steps=steps, loss_tol=0.0))
    return res.params["a_p"] * res.params["c_p"] - res.params["a_m"] * res.params["c_m"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=64)
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args(argv)
    device = resolve_device(args.device)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    X, y, w = make(args.runs, args.n, args.dim, device)
    lr = 0.01
    run(X[:2], y[:2], w[:2], 10, lr)  # warm up
    t = time.perf_counter()
    batched = run(X, y, w, args.steps, lr)
    if device.type == "cuda":
        torch.cuda.synchronize()
    t_batched = time.perf_counter() - t
    t = time.perf_counter()
    looped = torch.cat([run(X[i:i + 1], y[i:i + 1], w[i:i + 1], args.steps, lr) for i in range(args.runs)])
    if device.type == "cuda":
        torch.cuda.synchronize()
    t_loop = time.perf_counter() - t
    diff = float((batched - looped).abs().max())
    steps_total = args.runs * args.steps
    print(f"{args.runs} runs x {args.steps} steps (n={args.n}, D={args.dim}) on {device}")
    print(f"batched: {t_batched:.2f} s ({steps_total / t_batched:,.0f} run-steps/s)")
    print(f"loop:    {t_loop:.2f} s ({steps_total / t_loop:,.0f} run-steps/s)")
    print(f"ratio loop/batched: {t_loop / t_batched:.1f}x; max |difference| of the results: {diff:.1e}")
    return t_loop / t_batched, diff


if __name__ == "__main__":
    main()
