"""Benchmark: the generated NumPy kernels of qpenalty.q and qpenalty.norm against hand-written NumPy.

Both run side by side in this process on the same 1e7 points; the figure reported is the time ratio
(kernel / hand-written), the median of several repeats. Run: python benchmarks/bench_qpenalty.py
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import theorylab
from _timing import timed


def hand_q(z):
    a = np.arcsinh(z / 2)
    return z * (a - np.tanh(a / 2))


def hand_norm(beta, w1, w2):
    a = np.arcsinh(beta / (w1 * w1 + w2 * w2))
    return float(np.sum(2 * beta * (a - np.tanh(a / 2))))




def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--points", type=float, default=1e7)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    n = int(args.points)
    rng = np.random.default_rng(0)
    z = rng.normal(size=n) * 10.0 ** rng.uniform(-6, 6, size=n)
    beta, w1, w2 = rng.normal(size=n), rng.uniform(0.1, 2, n), rng.normal(size=n)
    q = theorylab.get("qpenalty.q").numpy
    norm = theorylab.get("qpenalty.norm")
    q(z[:10]), hand_q(z[:10])  # build/warm up
    assert np.allclose(q(z), hand_q(z), rtol=1e-14, atol=0)
    qfull = theorylab.get("qpenalty.q")
    rows = [("q kernel", timed(lambda: q(z), args.repeats), timed(lambda: hand_q(z), args.repeats)),
            ("norm kernel", timed(lambda: norm.numpy(beta, w1, w2).sum(), args.repeats),
             timed(lambda: hand_norm(beta, w1, w2), args.repeats)),
            # the user-facing calls include domain validation (finiteness, bounds, k > 0) of every input
            ("q validated", timed(lambda: qfull(z=z), args.repeats), timed(lambda: hand_q(z), args.repeats)),
            ("norm validated", timed(lambda: norm(beta=beta, w1=w1, w2=w2), args.repeats),
             timed(lambda: hand_norm(beta, w1, w2), args.repeats))]
    print(f"{n:.0e} points, median of {args.repeats} repeats")
    print(f"{'kernel':16s} {'ours (s)':>10s} {'hand (s)':>10s} {'ratio':>7s} {'Mpoints/s':>10s}")
    for name, ours, hand in rows:
        print(f"{name:16s} {ours:10.3f} {hand:10.3f} {ours / hand:7.3f} {n / ours / 1e6:10.1f}")
    return rows


if __name__ == "__main__":
    main()
