"""Benchmark: omega.tilde on 1e5 values of v against a scipy.optimize.minimize_scalar loop and against the
seed code's grid method (minimum over z = 1 + logspace(-8, 8, 1000)), side by side in this process;
reports speed and the maximum relative error of each against the mpmath reference (on a subsample).
Run: python benchmarks/bench_omega.py
"""
from __future__ import annotations

import time

import numpy as np
import sympy as sp
from scipy.optimize import minimize_scalar

import theorylab
from theorylab._records.params import Z


def main(n: int = 100_000, loop_n: int = 500, ref_n: int = 200):
    tilde = theorylab.get("omega.tilde")
    rng = np.random.default_rng(0)
    v = 10.0 ** rng.uniform(-3, 3, n)
    for om in ("(z-1)**2", "Abs(z-1)**3"):
        f = sp.lambdify(Z, sp.sympify(om, locals={"z": Z}).subs(sp.Abs(Z - 1), Z - 1), "numpy")
        tilde(v=v[:10], omega=om)
        t = time.perf_counter()
        ours = tilde(v=v, omega=om)
        t_ours = time.perf_counter() - t
        t = time.perf_counter()
        loop = np.array([min(minimize_scalar(lambda zz, vv=vv: f(zz) + vv * vv / zz**2, bounds=(1, 1e4),
                                             method="bounded", options={"xatol": 1e-10}).fun, vv * vv)
                         for vv in v[:loop_n]])
        t_loop = (time.perf_counter() - t) * n / loop_n
        zg = 1 + np.logspace(-8, 8, 1000)
        t = time.perf_counter()
        grid = np.min(f(zg)[None, :] + (v[:, None] ** 2) / zg[None, :] ** 2, axis=1)
        t_grid = time.perf_counter() - t
        idx = rng.choice(n, ref_n, replace=False)
        ref = np.array(tilde.reference_value(v=v[idx], omega=om))
        err = lambda a: float(np.max(np.abs(a - ref) / ref))  # noqa: E731
        err_loop = float(np.max(np.abs(loop[: min(loop_n, ref_n)] - np.array(tilde.reference_value(
            v=v[: min(loop_n, ref_n)], omega=om))) / np.array(tilde.reference_value(v=v[: min(loop_n, ref_n)], omega=om))))
        print(f"omega = {om}: {n:.0e} values of v in [1e-3, 1e3]")
        print(f"  ours        {n / t_ours:12,.0f} values/s   max rel err {err(ours[idx]):.1e}")
        print(f"  scipy loop  {n / t_loop:12,.0f} values/s   max rel err {err_loop:.1e}   (ours is {t_loop / t_ours:,.0f}x faster;"
              f" loop timed on {loop_n} values)")
        print(f"  seed grid   {n / t_grid:12,.0f} values/s   max rel err {err(grid[idx]):.1e}   (ours is {t_grid / t_ours:.1f}x faster)")


if __name__ == "__main__":
    main()
