"""Evidence and the figure of the minimum-norm least-squares paper: simulated regressions against the exact
finite-size risk, a finite-size scaling fit for the proportional limit, and the double-descent curve."""
from __future__ import annotations

import numpy as np

from theorylab.authoring import (Check, Figure, Series, compare_mc, compare_scaling, estimate, legend,
                                 pyplot)

from .entries import ENTRIES

RISK, FINITE, MOMENT = ENTRIES[:3]
CURVE = Series("minnorm-double-descent")   # the simulated risks the figure draws


def simulate(rng: np.random.Generator, size: int, n: int, d: int, r: float = 1.0, sigma: float = 1.0) -> np.ndarray:
    """||beta_hat - beta||^2 of `size` independent regressions: X (n x d) and noise Gaussian, beta_hat = X^+ y
    (normal equations on the side of the smaller Gram matrix). By rotation invariance beta = r e_1."""
    X = rng.standard_normal((size, n, d))
    y = r * X[:, :, 0] + sigma * rng.standard_normal((size, n))
    Xt = np.swapaxes(X, 1, 2)
    if n > d:
        beta_hat = np.linalg.solve(Xt @ X, Xt @ y[..., None])[..., 0]
    else:
        beta_hat = (Xt @ np.linalg.solve(X @ Xt, y[..., None]))[..., 0]
    beta_hat[:, 0] -= r
    return np.sum(beta_hat**2, axis=1)


def _finite_size(ctx):
    """Simulated risk at n = 40 along gamma = d/n, against the exact finite-size expectation (no bias to allow)."""
    draws = ctx.pick(quick=1500, paper=20000)
    out = []
    for d in (10, 20, 30, 60, 80, 160):
        n = 40
        est = estimate(lambda rng, size: simulate(rng, size, n, d), draws, seed=ctx.seed, key=("finite", n, d),
                       batch=500)
        out.append(compare_mc("minnorm.risk_finite", f"simulated risk at n = {n}, d = {d}",
                              FINITE(n=n, d=d, r=1.0, sigma=1.0), est.mean, est.stderr, est.samples, k=4.0,
                              extra=CURVE.tag(gamma=d / n, n=n)))
    return out


def _limit_parts(ctx):
    sizes = ctx.pick(quick=(8, 16, 32, 64), paper=(16, 32, 64, 128, 256))
    return [{"gamma": g, "m": m} for g in (0.5, 2.0) for m in sizes]


def _limit_part(ctx, part):
    """One size of the scaling fit: m = |n - d| - 1, the distance from the interpolation threshold
    (at gamma = 1/2: n = 2m + 2, d = m + 1; at gamma = 2: n = m + 1, d = 2m + 2)."""
    m, g = part["m"], part["gamma"]
    n, d = (2 * m + 2, m + 1) if g < 1 else (m + 1, 2 * m + 2)
    est = estimate(lambda rng, size: simulate(rng, size, n, d), ctx.pick(quick=1500, paper=8000), seed=ctx.seed,
                   key=("limit", n, d), batch=250)
    return {"n": n, "d": d, "mean": est.mean, "stderr": est.stderr, "samples": est.samples}


def _limit_combine(ctx, results):
    """The limit as m -> oo: a fit L + C m^-1 over the sizes; L must be minnorm.risk at gamma (and the order 1)."""
    out = []
    for g in (0.5, 2.0):
        rows = [(p["m"], res) for p, res in zip(_limit_parts(ctx), results) if p["gamma"] == g]
        out += compare_scaling("minnorm.risk", f"proportional limit at gamma = {g:g}", [m for m, _ in rows],
                               [res["mean"] for _, res in rows], [res["stderr"] for _, res in rows],
                               theory=RISK(gamma=g, r=1.0, sigma=1.0), order=1.0, size_name="m")
    return out


def _moment(ctx):
    """(1/d) tr (X^T X/n)^-1 simulated at n = 2d, against the entry times the exact finite-size factor
    (n - d)/(n - d - 1) (for Gaussian X, E (1/d) tr (X^T X/n)^-1 = n/(n - d - 1) = (1/(1 - gamma)) (n - d)/(n - d - 1))."""
    n, d = ctx.pick(quick=(60, 30), paper=(400, 200))

    def sampler(rng, size):
        X = rng.standard_normal((size, n, d))
        return np.trace(np.linalg.inv(np.swapaxes(X, 1, 2) @ X / n), axis1=1, axis2=2) / d

    est = estimate(sampler, ctx.pick(quick=2000, paper=20000), seed=ctx.seed, key=("moment", n, d), batch=500)
    return [compare_mc("minnorm.inverse_moment", f"(1/d) tr (X^T X/n)^-1 at n = {n}, d = {d}",
                       MOMENT(gamma=d / n) * (n - d) / (n - d - 1), est.mean, est.stderr, est.samples, k=4.0,
                       detail="predicted: the entry at gamma = d/n times the exact finite-size factor")]


CHECKS = (
    Check(name="simulated risk vs the exact finite-size risk", entries=("minnorm.risk_finite",), kind="monte-carlo",
          run=_finite_size),
    Check(name="proportional limit by finite-size scaling", entries=("minnorm.risk",), kind="monte-carlo",
          run=_limit_part,
          parts=_limit_parts, combine=_limit_combine),
    Check(name="Marchenko-Pastur inverse moment", entries=("minnorm.inverse_moment",), kind="monte-carlo", run=_moment),
)


def _draw(data):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    under, over = np.linspace(0.05, 0.9, 80), np.linspace(1.12, 5, 120)
    for g, label in ((under, "limit, Theorem 1"), (over, None)):
        ax.plot(g, RISK(gamma=g, r=1.0, sigma=1.0), color="C0", label=label)
    dd = np.array([d for d in range(2, 201) if abs(d - 40) > 1])
    exact = FINITE(n=40, d=dd, r=1.0, sigma=1.0)
    ax.plot(dd[dd < 40] / 40, exact[dd < 40], "--", color="C1", label="exact, n = 40")
    ax.plot(dd[dd > 40] / 40, exact[dd > 40], "--", color="C1")
    pts = data.points(CURVE)
    if pts:
        ax.errorbar([p["extra"]["gamma"] for p in pts], [p["observed"] for p in pts],
                    yerr=[4 * p["stderr"] for p in pts], fmt="o", color="C3", label="simulated (4 SE)")
    ax.set(xlabel=r"$\gamma = d/n$", ylabel="risk", ylim=(0, 6))
    ax.axvline(1, color="grey", lw=0.5)
    legend(ax)
    return fig


FIGURES = (Figure(family="minnorm", name="minnorm-double-descent", draw=_draw, draws=(CURVE,),
                  caption="Risk of minimum-norm least squares (r = sigma = 1): the limit, the exact risk at n = 40 "
                          "and simulated regressions."),)
