"""Benchmark: relu.penalty's batched global minimum against the seed's per-point np.roots method.

On 1e6 random (m, m0, rho, gamma) (a quarter in the regime of three positive roots) the batched solver runs on every
point; the per-point loops run on a subsample in the same process and are scaled to points per second. Reported:
points/s of each, the speed ratio, and the largest relative disagreement with the mpmath reference on a subsample.
Run: python benchmarks/bench_relu.py [--points 1e6] [--loop-points 2000] [--ref-points 300]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import theorylab
from derivations.relu import minimize_p, penalty_reference
from verify.relu import random_parameters, roots_global_min, seed_first_root


def timed(fn, repeats: int) -> float:
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--points", type=float, default=1e6)
    ap.add_argument("--loop-points", type=int, default=2000)
    ap.add_argument("--ref-points", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    n = int(args.points)
    rng = np.random.default_rng(0)
    m, m0, rho, gamma = random_parameters(rng, n)
    penalty = theorylab.get("relu.penalty")
    penalty(m=m[:1000], m0=m0[:1000], rho=rho[:1000], gamma=gamma[:1000])  # warm up
    t_batch = timed(lambda: penalty(m=m, m0=m0, rho=rho, gamma=gamma), args.repeats)
    t_core = timed(lambda: minimize_p(m, m0, rho, gamma), args.repeats)
    values = penalty(m=m, m0=m0, rho=rho, gamma=gamma)

    # the per-point loops on an evenly spaced subsample (same mix of regimes)
    idx = np.linspace(0, n - 1, args.loop_points).astype(int)
    sub = [(float(m[i]), float(m0[i]), float(rho[i]), float(gamma[i])) for i in idx]
    t_seed = timed(lambda: [seed_first_root(*t) for t in sub], 1)
    t_loop = timed(lambda: [roots_global_min(*t) for t in sub], 1)
    seed_vals = np.array([seed_first_root(*t) for t in sub])
    loop_vals = np.array([roots_global_min(*t) for t in sub])

    ref_idx = idx[:: max(1, len(idx) // args.ref_points)][: args.ref_points]
    ref = np.array([penalty_reference(m[i], m0[i], rho[i], gamma[i]) for i in ref_idx])
    err_ours = float(np.max(np.abs(values[ref_idx] - ref) / ref))
    err_loop = float(np.max(np.abs(loop_vals[:: max(1, len(idx) // args.ref_points)][: len(ref)] - ref) / ref))
    wrong = np.abs(seed_vals - loop_vals) > 1e-8 * loop_vals

    rate = lambda t, k: k / t  # noqa: E731
    rows = [("relu.penalty (validated, batched)", rate(t_batch, n)), ("minimize_p (batched core)", rate(t_core, n)),
            ("seed: np.roots, first positive root", rate(t_seed, len(sub))),
            ("np.roots loop, min over positive roots", rate(t_loop, len(sub)))]
    print(f"{n:.0e} points (batched, median of {args.repeats}); loops on {len(sub)} points, scaled")
    print(f"{'method':42s} {'points/s':>12s}")
    for name, r in rows:
        print(f"{name:42s} {r:12.4g}")
    print(f"speed ratio relu.penalty / seed's np.roots loop: {rows[0][1] / rows[2][1]:.0f}x")
    print(f"speed ratio relu.penalty / np.roots global-min loop: {rows[0][1] / rows[3][1]:.0f}x")
    print(f"max relative error vs mpmath on {len(ref)} points: relu.penalty {err_ours:.2e}, np.roots loop {err_loop:.2e}")
    print(f"seed's first-root choice wrong on {int(wrong.sum())} of {len(sub)} loop points "
          f"(max relative excess {float(np.max(seed_vals / loop_vals - 1)):.3g})")
    return {"rates": dict(rows), "ratio_seed": rows[0][1] / rows[2][1], "ratio_loop": rows[0][1] / rows[3][1],
            "err_ours": err_ours, "err_loop": err_loop}


if __name__ == "__main__":
    main()
