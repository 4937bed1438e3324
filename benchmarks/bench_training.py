"""Benchmark: batched training (independent runs as a leading tensor axis) against a per-run loop over the same runs.

Side by side in one process, for each trainer the checks use: the same R runs for the same number of steps with a
fixed step size, once as one batched problem and once one run at a time; the figure is the time ratio loop / batched
and the agreement of the results (the runs are independent, so both give the same numbers up to rounding).

  diagonal    theorylab._numerics.training.train, PT+FT diagonal networks (seed 000, App. A; R seeds)
  relu        relu_networks._fit (NumPy), shallow ReLU networks at Fig. 1c's paper sizes (seed 001; R grid cells)
  meanfield   theorylab._numerics.training.train on relu_transfer's population loss (seed 002, Sec. 4; R values of mu), at
              the quick profile's width m = 60 and at a wider m (the paper's is 1000: there batching stops paying)

--load holds one core with another process (`yes > /dev/null`) while it measures, as a shared machine does.
Run: python benchmarks/bench_training.py [--trainers diagonal,relu,meanfield] [--load] [--device cuda] [--json F]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import time

import numpy as np
import torch

from theorylab._numerics.training import TrainConfig, resolve_device, train


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def _timed(fn, device):
    _sync(device)
    t = time.perf_counter()
    out = fn()
    _sync(device)
    return out, time.perf_counter() - t


# -- diagonal networks (theorylab._numerics.training.train) -----------------------------------------------------------------

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


def bench_diagonal(device, runs=32, steps=500, n=40, dim=200):
    X, y, w = make(runs, n, dim, device)
    run(X[:2], y[:2], w[:2], 10, 0.01)  # warm up
    batched, tb = _timed(lambda: run(X, y, w, steps, 0.01), device)
    looped, tl = _timed(lambda: torch.cat([run(X[i:i + 1], y[i:i + 1], w[i:i + 1], steps, 0.01)
                                           for i in range(runs)]), device)
    return {"trainer": "diagonal", "what": f"PT+FT diagonal nets n={n}, D={dim}", "runs": runs, "steps": steps,
            "batched_s": tb, "loop_s": tl, "max_diff": float((batched - looped).abs().max())}


# -- shallow ReLU networks (relu_networks._fit) -------------------------------------------------------------------

def bench_relu(device, runs=40, steps=200, n=240, H=48, d=20):
    from theorylab.verify import relu_networks as rn

    gen = torch.Generator().manual_seed(1)
    X = torch.randn(runs, n, d, generator=gen, dtype=torch.float64)
    y = torch.randn(runs, n, generator=gen, dtype=torch.float64)
    mask = torch.ones(runs, n, dtype=torch.float64)
    W1, w2 = rn._small_init(gen, runs, H, d, 0.3, torch.device("cpu"))
    X, y, mask, W1, w2 = (t.to(device) for t in (X, y, mask, W1, w2))
    cfg = TrainConfig(lr_fraction=0.3, loss_tol=0.0, max_steps=steps, curvature_every=50)

    def fit(sl):
        return rn._fit(W1[sl], w2[sl], X[sl], y[sl], mask[sl], cfg).params["W1"]

    fit(slice(0, 2))
    batched, tb = _timed(lambda: fit(slice(None)), device)
    looped, tl = _timed(lambda: torch.cat([fit(slice(i, i + 1)) for i in range(runs)]), device)
    return {"trainer": "relu", "what": f"ReLU nets (NumPy _fit) n={n}, H={H}, d={d}", "runs": runs, "steps": steps,
            "batched_s": tb, "loop_s": tl, "max_diff": float((batched - looped).abs().max())}


# -- mean-field ReLU network on the population loss (relu_transfer) ----------------------------------------------

def bench_meanfield(device, m=60, d=10, m_star=6, runs=3, steps=300):
    from theorylab.verify import relu_transfer as rt

    mus = tuple(i / m_star for i in range(runs))  # |A| = mu m* an integer
    W_star, _, cs = rt.teacher(d, m_star, mus, 0)
    gen = torch.Generator().manual_seed(2)
    V = rt._unit(torch.randn(runs, m, d, generator=gen, dtype=torch.float64)).to(device)
    c = torch.full((runs, m), 1e-2, dtype=torch.float64, device=device)
    Ws, C = torch.as_tensor(W_star, device=device), torch.as_tensor(cs, device=device)

    def fit(sl):
        loss = rt._population_loss(Ws, C[sl])
        return train({"V": V[sl], "c": c[sl]}, loss, TrainConfig(lr=0.5, max_steps=steps, loss_tol=0.0)).params["V"]

    fit(slice(0, 1))
    batched, tb = _timed(lambda: fit(slice(None)), device)
    looped, tl = _timed(lambda: torch.cat([fit(slice(i, i + 1)) for i in range(runs)]), device)
    return {"trainer": "meanfield", "what": f"mean-field ReLU population loss m={m}, d={d}", "runs": runs,
            "steps": steps, "batched_s": tb, "loop_s": tl, "max_diff": float((batched - looped).abs().max())}


BENCHES = {
    "diagonal": lambda dev: [bench_diagonal(dev)],
    "relu": lambda dev: [bench_relu(dev)],
    "meanfield": lambda dev: [bench_meanfield(dev, m=60, d=10, runs=3, steps=200),
                              bench_meanfield(dev, m=400, d=100, runs=3, steps=10)],
}


@contextlib.contextmanager
def held_core(on: bool):
    """Another process busy on one core for the duration (`yes > /dev/null`)."""
    proc = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) if on else None
    try:
        yield
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trainers", default="diagonal,relu,meanfield")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (verify's tasks run with 1)")
    ap.add_argument("--load", action="store_true", help="also measure with one core held by `yes > /dev/null`")
    ap.add_argument("--json", default="", help="write the rows here")
    args = ap.parse_args(argv)
    device = resolve_device(args.device)
    torch.set_num_threads(args.threads)
    rows = []
    for load in ((False, True) if args.load else (False,)):
        with held_core(load):
            for name in args.trainers.split(","):
                for row in BENCHES[name](device):
                    row.update(device=str(device), load="one core held" if load else "idle",
                               ratio=row["loop_s"] / row["batched_s"])
                    rows.append(row)
                    print(f"{row['load']:14s} {row['what']:48s} {row['runs']:3d} runs x {row['steps']:5d} steps on "
                          f"{row['device']}: batched {row['batched_s']:7.2f} s, loop {row['loop_s']:7.2f} s, ratio "
                          f"loop/batched {row['ratio']:5.1f}x (max |difference| {row['max_diff']:.1e})", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return rows


if __name__ == "__main__":
    main()
