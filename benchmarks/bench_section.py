"""Benchmark: the section search of theorylab._numerics.solvers.golden on omega.tilde_oplus (nested 1-D minimizations, one v
a call, as property tests call it), side by side in this process:

- k-section (the default for brackets of <= 64 elements: 16 interior points a call, 13 calls to 1e-12);
- golden section to the same 1e-12 (2 points a call, 58 calls), forced with SECTION_POINTS = 2;
- golden section with 90 steps (the fixed count before this change).

Figures are CPU seconds a call (process time: robust on a shared machine), medians over `repeats` rounds of the same
points, the ratios to the k-section, and the largest relative difference of each variant's values from the
k-section's (all three resolve the minimum to rounding). Run: python benchmarks/bench_section.py [--repeats 3]
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import time

import numpy as np

import theorylab
from theorylab._numerics import solvers as _solvers
from theorylab.derivations import omega_solver as _omega_solver

POINTS = [(0.3, "(z-1)**2", "exp(z-1)-z"), (2.0, "Abs(z-1)**(3/2)", "(z-1)**2"), (7.5, "exp(z-1)-z", "Abs(z-1)"),
          (40.0, "Abs(z-1)**4", "Abs(z-1)**(3/2) + 0.3*(exp(z-1)-z)")]


@contextlib.contextmanager
def variant(name: str):
    """The module settings that select the variant, restored afterwards."""
    # omega_solver binds `golden` by name (theorylab.authoring exports each solver by name): patch it there too
    original_points, original_golden = _solvers.SECTION_POINTS, _solvers.golden
    if name != "k-section (default)":
        _solvers.SECTION_POINTS = 2
    if name == "golden 90 steps":
        _solvers.golden = _omega_solver.golden = (
            lambda F, lo, hi, iters=None, shrink=1e-12, points=None: original_golden(F, lo, hi, iters=90, points=2))
    try:
        yield
    finally:
        _solvers.SECTION_POINTS, _solvers.golden = original_points, original_golden
        _omega_solver.golden = original_golden


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    entry = theorylab.get("omega.tilde_oplus")
    for v, o1, o2 in POINTS:  # omegas prepared (validated, lambdified) before timing
        entry(v=v, omega1=o1, omega2=o2)
    names = ["k-section (default)", "golden 1e-12", "golden 90 steps"]
    cpu = {n: [] for n in names}
    values = {}
    for _ in range(args.repeats):
        for name in names:  # interleaved rounds: a load change hits every variant alike
            with variant(name):
                t = time.process_time()
                values[name] = np.array([float(entry(v=v, omega1=o1, omega2=o2)) for v, o1, o2 in POINTS])
                cpu[name].append((time.process_time() - t) / len(POINTS))
    base = statistics.median(cpu[names[0]])
    print(f"omega.tilde_oplus, {len(POINTS)} points, one v a call; CPU s a call (median of {args.repeats} rounds)")
    for name in names:
        med = statistics.median(cpu[name])
        diff = float(np.max(np.abs(values[name] - values[names[0]]) / np.abs(values[names[0]])))
        print(f"  {name:22s} {med:8.4f} s   x{med / base:5.2f}   max rel. difference from k-section {diff:.1e}")


if __name__ == "__main__":
    main()
