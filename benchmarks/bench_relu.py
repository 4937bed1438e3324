"""Benchmark: relu.penalty's batched global minimum against the seed's per-point np.roots method.

Random (m, m0, rho, gamma) over the domain (signs of m and gamma; |m| over 6 decades, m0 over 4, |gamma| over 5;
rho uniform): the "domain" mix (about 2% of points have two local minima) and a "stress" mix with a quarter drawn in
the regime of three positive roots. The batched solver runs on all 1e6 points; the per-point loops (the seed's
recipe: np.roots and the first positive real root; and np.roots with the minimum over all positive roots) run on an
evenly spaced subsample in the same process and are scaled to points per second. Also reported: the largest
relative disagreement with the mpmath reference on a subsample, and how often the seed's choice is wrong.
Run: python benchmarks/bench_relu.py [--points 1e6] [--loop-points 2000] [--ref-points 300]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import theorylab
from _timing import timed
from theorylab.derivations.relu import minimize_p, penalty_reference
from theorylab.verify.relu import random_parameters, roots_global_min, seed_first_root




def run_mix(name: str, share: float, args) -> dict:
    n = int(args.points)
    rng = np.random.default_rng(0)
    m, m0, rho, gamma = random_parameters(rng, n, three_root_share=share)
    penalty = theorylab.get("relu.penalty")
    penalty(m=m[:1000], m0=m0[:1000], rho=rho[:1000], gamma=gamma[:1000])  # warm up
    t_batch = timed(lambda: penalty(m=m, m0=m0, rho=rho, gamma=gamma), args.repeats)
    values = penalty(m=m, m0=m0, rho=rho, gamma=gamma)

    idx = np.linspace(0, n - 1, args.loop_points).astype(int)
    sub = [(float(m[i]), float(m0[i]), float(rho[i]), float(gamma[i])) for i in idx]
    t_seed = timed(lambda: [seed_first_root(*t) for t in sub], args.repeats)
    t_loop = timed(lambda: [roots_global_min(*t) for t in sub], args.repeats)
    seed_vals = np.array([seed_first_root(*t) for t in sub])
    loop_vals = np.array([roots_global_min(*t) for t in sub])

    step = max(1, len(idx) // args.ref_points)
    ref_pos = np.arange(0, len(idx), step)[: args.ref_points]
    ref = np.array([penalty_reference(*sub[j]) for j in ref_pos])
    err_ours = float(np.max(np.abs(values[idx[ref_pos]] - ref) / ref))
    err_loop = float(np.max(np.abs(loop_vals[ref_pos] - ref) / ref))
    wrong = np.abs(seed_vals - loop_vals) > 1e-8 * loop_vals
    two = float(np.mean(np.isfinite(minimize_p(m, m0, rho, gamma, outputs=("gap",))["gap"])))
    r = {"batched": n / t_batch, "seed": len(sub) / t_seed, "loop": len(sub) / t_loop}
    print(f"\n[{name} mix] {n:.0e} points; {100 * two:.1f}% with two local minima; loops on {len(sub)} points, "
          f"scaled; medians of {args.repeats}")
    print(f"  {'method':44s} {'points/s':>12s}")
    print(f"  {'relu.penalty (validated, batched)':44s} {r['batched']:12.4g}")
    print(f"  {'seed: np.roots, first positive real root':44s} {r['seed']:12.4g}")
    print(f"  {'np.roots, min over all positive roots':44s} {r['loop']:12.4g}")
    print(f"  speed ratio vs the seed's loop: {r['batched'] / r['seed']:.0f}x; vs the global-min loop: "
          f"{r['batched'] / r['loop']:.0f}x")
    print(f"  max relative error vs mpmath ({len(ref)} points): relu.penalty {err_ours:.2e}, np.roots loop "
          f"{err_loop:.2e}")
    print(f"  seed's first-root choice wrong on {int(wrong.sum())} of {len(sub)} points (max relative excess "
          f"{float(np.max(seed_vals / loop_vals - 1)):.3g})")
    return {**r, "ratio_seed": r["batched"] / r["seed"], "ratio_loop": r["batched"] / r["loop"],
            "err_ours": err_ours, "err_loop": err_loop, "seed_wrong": int(wrong.sum())}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--points", type=float, default=1e6)
    ap.add_argument("--loop-points", type=int, default=2000)
    ap.add_argument("--ref-points", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    return {"domain": run_mix("domain", 0.0, args), "stress": run_mix("stress", 0.25, args)}


if __name__ == "__main__":
    main()
