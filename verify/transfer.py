"""Evidence for the transfer family (seed 002): Monte Carlo simulation of the actual estimators with
standard errors, and trained 2-layer linear networks (verify/linear_networks.py).

Every Monte Carlo comparison holds |theory - mean| to 4 standard errors against a prediction at the simulated
size (the exact finite-size value, computed independently); a high-dimensional limit is checked separately,
as the limit of those exact finite-size values along a sequence of sizes within the known O(1/d) term.
"""
from __future__ import annotations

import contextlib
import math
import threading
import warnings

import numpy as np

import theorylab
from theorylab.authoring import Check, Context, Evidence, Finding, compare, compare_mc, compare_scaling
from theorylab.authoring import Estimate
from theorylab.authoring import estimate as _estimate

_HOOK = threading.local()


def estimate(sampler, draws, **kw) -> Estimate:
    """theorylab.authoring.estimate; while a check runs as parts (_mc_parts below), the part's stand-in."""
    hook = getattr(_HOOK, "fn", None)
    return _estimate(sampler, draws, **kw) if hook is None else hook(sampler, draws, **kw)

from theorylab.derivations.transfer_curves import ridge_finite

from .figures_002 import FIG1C, FIG6  # the figures' series (records tagged with Series.tag)
from .linear_networks import CHECKS as TRAINED_CHECKS
from .relu_transfer import CHECKS as RELU_TRAINED_CHECKS


def _draws(ctx: Context, quick: int, paper: int) -> int:
    return ctx.pick(quick=quick, paper=paper)


def min_norm_risk_sampler(n: int, d: int, sigma: float):
    """Risk ||X^+ y - beta||^2 of minimum-norm least squares on Gaussian data, all draws of a batch at once."""

    def sample(rng, size):
        X = rng.standard_normal((size, n, d))
        beta = np.zeros(d)
        beta[0] = 1.0  # the risk is rotation invariant: any unit beta_t
        y = X[:, :, 0] + sigma * rng.standard_normal((size, n))
        if n < d:  # X^+ y = X^T (X X^T)^{-1} y
            bhat = np.einsum("bnd,bn->bd", X, np.linalg.solve(X @ X.transpose(0, 2, 1), y[..., None])[..., 0])
        else:      # (X^T X)^{-1} X^T y
            bhat = np.linalg.solve(X.transpose(0, 2, 1) @ X, np.einsum("bnd,bn->bd", X, y)[..., None])[..., 0]
        return np.sum((bhat - beta) ** 2, axis=1)

    return sample


def _fss_sizes(ctx: Context) -> tuple[int, int, int]:
    """The sizes d of the scaling fits at n = gamma d (gamma d an integer for gamma = 0.5 and 2: a rounded n would
    move the finite-size mean off its 1/d law); the largest is the size compared with the exact finite value."""
    return ctx.pick(quick=(20, 50, 100), paper=(250, 500, 1000))


def _wishart_first_order(gamma: float) -> float:
    """Bound K(gamma) on d |E tr(G^-1) - lim| for G the Gram matrix of an n x d Gaussian X, n = gamma d, from
    the inverse-Wishart mean alone (not from eqs (8) or (94)-(99)): E tr((X X^T)^-1) = n/(d-n-1) for n < d-1,
    so at n = gamma d it is gamma/(1-gamma-1/d) = gamma/(1-gamma) + gamma/((1-gamma)(d(1-gamma)-1)), whose
    second term is at most 2 gamma/((1-gamma)^2 d) once d(1-gamma) >= 2; likewise d/(n-d-1) for n > d+1 with
    gamma -> 1 and 1-gamma -> gamma-1."""
    return 2 * (gamma if gamma < 1 else 1.0) / (1 - gamma) ** 2


def _limit_sequence(entry_id: str, check: str, finite, limit, bound, ds, detail: str = "",
                    extra: dict | None = None) -> Evidence:
    """A high-dimensional limit checked through its finite-size values: at each size d of `ds` the exact
    finite-size value (computed independently of the limit) must lie within bound/d of the limit, the bound
    coming from the known O(1/d) term. A wrong limit off by delta fails once d > bound/delta."""
    scaled = [d * abs(finite(d) - limit) for d in ds]
    return Evidence(entry=entry_id, check=check, kind="numeric", predicted=[bound] * len(ds), observed=scaled,
                    tolerance=0.0, relation="<=",
                    tolerance_source=(f"a-priori O(1/d) term: d |finite(d) - limit| <= {bound:.4g} at every d in "
                                      f"{tuple(ds)} (the bound is the record's prediction; no slack)"),
                    detail=(detail + "; " if detail else "") + "d |finite - limit|: "
                           + ", ".join(f"{v:.4g}" for v in scaled), extra=extra or {})


def _scratch(ctx: Context) -> list[Evidence]:
    """Simulated minimum-norm least squares against the exact finite-size risk (no bias term), and eq (8) as
    the limit of that exact finite-size risk along n = gamma d (its own record, error bound from the known
    O(1/d) inverse-Wishart term)."""
    fin, lim = theorylab.get("transfer.scratch_risk_finite"), theorylab.get("transfer.scratch_risk")
    out = []
    for n, d, sigma in ((10, 40, 0.5), (60, 30, 0.5)):
        est = estimate(min_norm_risk_sampler(n, d, sigma), _draws(ctx, 4000, 40000), seed=ctx.seed, key=("sc", n, d),
                       batch=1000)
        out.append(compare_mc("transfer.scratch_risk_finite", f"min-norm least squares, n={n}, d={d}, sigma={sigma}",
                              fin(n=n, d=d, sigma=sigma), est.mean, est.stderr, est.samples))
    d = ctx.pick(quick=100, paper=1000)
    sigma = 0.5
    for gamma in (0.5, 2.0):
        n = int(gamma * d)
        est = estimate(min_norm_risk_sampler(n, d, sigma), _draws(ctx, 400, 2000), seed=ctx.seed, key=("sc8", gamma),
                       batch=50)
        out.append(compare_mc("transfer.scratch_risk_finite", f"min-norm least squares at n={n}, d={d} "
                              f"(gamma={gamma}, sigma={sigma}) vs the exact finite-size risk", fin(n=n, d=d, sigma=sigma),
                              est.mean, est.stderr, est.samples,
                              detail=f"eq (8)'s limit {lim(gamma=gamma, sigma=sigma):.6g} is checked separately"))
        # eq (8) from simulation alone: the means at d/4, d/2, d (independent draws) fitted by lim + C/d
        smaller = [estimate(min_norm_risk_sampler(int(gamma * dd), dd, sigma), _draws(ctx, 1000, 4000), seed=ctx.seed,
                            key=("sc8-fss", gamma, dd), batch=100) for dd in _fss_sizes(ctx)[:2]]
        runs = smaller + [est]
        out += compare_scaling("transfer.scratch_risk", f"eq (8) at gamma={gamma}, sigma={sigma} from min-norm least "
                               f"squares simulated at n = gamma d", _fss_sizes(ctx), [r.mean for r in runs],
                               [r.stderr for r in runs], theory=lim(gamma=gamma, sigma=sigma), order=1.0, size_name="d",
                               detail="predicted order 1: the risk is sigma^2 E tr((X X^T)^-1) (+ the null-space part), "
                                      "whose inverse-Wishart mean differs from its limit by O(1/d)")
        # eq (8) = lim E R_sc(gamma d, d): the finite-size risk differs from its limit only through sigma^2 E tr
        ds = (100, 1000, 10_000, 100_000, 1_000_000)
        out.append(_limit_sequence("transfer.scratch_risk", f"eq (8) at gamma={gamma}, sigma={sigma} as the limit of "
                                   f"the exact finite-size risk at n = gamma d",
                                   lambda dd: fin(n=int(round(gamma * dd)), d=dd, sigma=sigma), lim(gamma=gamma, sigma=sigma),
                                   sigma**2 * _wishart_first_order(gamma), ds,
                                   detail=f"limit {lim(gamma=gamma, sigma=sigma):.6g}"))
    return out


def _linear_transfer(ctx: Context) -> list[Evidence]:
    """(10): rank-one features beta_s (Theorem 3.4): b = z.y/||z||^2 with z = X beta_s, exact in n."""
    lt = theorylab.get("transfer.linear_transfer_risk")
    out = []
    for n, theta, sigma in ((5, math.pi / 4, 0.3), (20, 1.2, 0.5)):
        def sample(rng, size, n=n, theta=theta, sigma=sigma):
            z, w, e = (rng.standard_normal((size, n)) for _ in range(3))
            y = math.cos(theta) * z + math.sin(theta) * w + sigma * e
            b = np.sum(z * y, axis=1) / np.sum(z * z, axis=1)
            return (b - math.cos(theta)) ** 2 + math.sin(theta) ** 2

        est = estimate(sample, _draws(ctx, 20000, 200000), seed=ctx.seed, key=("lt", n))
        out.append(compare_mc("transfer.linear_transfer_risk", f"rank-one linear transfer, n={n}, theta={theta:.4f}, "
                              f"sigma={sigma}", lt(n=n, theta=theta, sigma=sigma), est.mean, est.stderr, est.samples))
    return out


def _ridge_first_order(theta: float, sigma: float, lam: float) -> float:
    """Bound K on n |(125) - (13)|, from (125) alone. With t = r/n, r ~ chi2(n) (E t = 1, Var t = 2/n), (125) is
    1 + cos^2 E g1(t) - 2 cos^2 E g2(t) + (sin^2 + sigma^2)/n E t/(t+lam)^2 with g1 = t^2/(t+lam)^2, g2 = t/(t+lam);
    Taylor at t = 1 with Lagrange remainder gives |E g(t) - g(1)| <= sup|g''| Var(t)/2 = sup|g''|/n, with
    |g2''| = 2 lam/(t+lam)^3 <= 2/lam^2 and |g1''| = |2 lam^2 - 4 lam t|/(t+lam)^4 <= (2 + 27/64)/lam^2
    (t/(t+lam)^4 <= 27/(256 lam^3)); and t/(t+lam)^2 <= 1/(4 lam). The t = 1 values are the limit (13)."""
    c2, s2 = math.cos(theta) ** 2, math.sin(theta) ** 2
    return c2 * (2 + 27 / 64) / lam**2 + 2 * c2 * 2 / lam**2 + (s2 + sigma**2) / (4 * lam)


def _ridge(ctx: Context) -> list[Evidence]:
    """(13) as the limit n -> oo: simulation at finite n against the exact finite-n risk (125) (no bias term),
    and the exact finite-n risk approaching (13) within the a-priori O(1/n) bound (its own record)."""
    ridge = theorylab.get("transfer.ridge_transfer_risk")
    theta, sigma, lam = 0.8, 0.5, 0.5
    limit = ridge(theta=theta, lam=lam)
    out, means = [], []
    for n in (20, 200, 2000):
        def sample(rng, size, n=n):
            z, w, e = (rng.standard_normal((size, n)) for _ in range(3))
            y = math.cos(theta) * z + math.sin(theta) * w + sigma * e
            b = np.sum(z * y, axis=1) / (np.sum(z * z, axis=1) + n * lam)
            return 1 + b * b - 2 * b * math.cos(theta)

        exact = ridge_finite(n, theta, sigma, lam)
        est = estimate(sample, _draws(ctx, 4000, 40000), seed=ctx.seed, key=("ridge", n), batch=1000)
        means.append(est)
        out.append(compare_mc("transfer.ridge_transfer_risk", f"ridge transfer at n={n} (theta={theta}, sigma={sigma}, "
                              f"lambda={lam}) vs the exact finite-n risk (125)", exact, est.mean, est.stderr,
                              est.samples, detail=f"limit (13) = {limit:.6g}, checked separately"))
    out += compare_scaling("transfer.ridge_transfer_risk", f"(13) at theta={theta}, lambda={lam}, sigma={sigma} from "
                           "ridge transfer simulated at n = 20, 200, 2000", (20, 200, 2000), [m.mean for m in means],
                           [m.stderr for m in means], theory=limit, order=1.0, size_name="n",
                           detail="predicted order 1: (125) is a chi-square(n) expectation of smooth functions of "
                                  "||z||^2/n, whose variance is 2/n (see _ridge_first_order)")
    ns = (20, 200, 2000, 20_000, 200_000)
    out.append(_limit_sequence("transfer.ridge_transfer_risk", f"(13) at theta={theta}, lambda={lam} as the limit "
                               f"of the exact finite-n risk (125) (sigma={sigma})",
                               lambda n: ridge_finite(n, theta, sigma, lam), limit,
                               _ridge_first_order(theta, sigma, lam), ns, detail=f"limit (13) = {limit:.6g}"))
    return out


def _random_matrix(ctx: Context) -> list[Evidence]:
    """(93) E||P_row(X) beta||^2 = min(n, d)/d, (117) E 1/||z||^2, (94)-(99) E tr((X^+)^T X^+)."""
    out = []
    n, d = 12, 30

    def proj(rng, size):
        X = rng.standard_normal((size, n, d))
        v = X[:, :, 0]  # P beta for beta = e_1: X^T (X X^T)^-1 X e_1
        coef = np.linalg.solve(X @ X.transpose(0, 2, 1), v[..., None])[..., 0]
        pb = np.einsum("bnd,bn->bd", X, coef)
        return np.sum(pb**2, axis=1)

    est = estimate(proj, _draws(ctx, 4000, 40000), seed=ctx.seed, key="p93", batch=1000)
    # at sigma = 0 the min-norm estimator is P_row(X) beta, so its risk is 1 - ||P beta||^2, and for gamma < 1
    # eq (8) reads 1 - gamma exactly at every finite n = gamma d (E||P beta||^2 = n/d by rotation invariance,
    # (93)): the entry itself is the prediction, the simulated 1 - ||P beta||^2 the observation
    sc = theorylab.get("transfer.scratch_risk")
    out.append(compare_mc("transfer.scratch_risk", f"(8) at sigma=0, gamma={n}/{d}: 1 - E||P_row(X) beta||^2 "
                          f"simulated at n={n}, d={d} ((93): exact at finite n for gamma < 1)",
                          sc(gamma=n / d, sigma=0.0), 1.0 - est.mean, est.stderr, est.samples))
    inv = theorylab.get("transfer.inverse_chi2_mean")
    for nn in (8, 30):
        est = estimate(lambda rng, size, nn=nn: 1 / np.sum(rng.standard_normal((size, nn)) ** 2, axis=1),
                       _draws(ctx, 40000, 400000), seed=ctx.seed, key=("chi", nn))
        out.append(compare_mc("transfer.inverse_chi2_mean", f"(117) E 1/||z||^2, n={nn}", inv(n=nn), est.mean,
                              est.stderr, est.samples))
    pt = theorylab.get("transfer.pinv_trace")
    d = ctx.pick(quick=100, paper=1000)
    for gamma in (0.5, 2.0):
        n = int(gamma * d)

        def tr(rng, size, n=n):
            X = rng.standard_normal((size, n, d))
            G = X @ X.transpose(0, 2, 1) if n < d else X.transpose(0, 2, 1) @ X
            return np.trace(np.linalg.inv(G), axis1=1, axis2=2)

        finite = n / (d - n - 1) if n < d else d / (n - d - 1)
        est = estimate(tr, _draws(ctx, 400, 1000), seed=ctx.seed, key=("tr", gamma), batch=50)
        out.append(compare_mc("transfer.pinv_trace", f"E tr((X^+)^T X^+) at n={n}, d={d} (gamma={gamma}) vs the "
                              f"exact inverse-Wishart mean", finite, est.mean, est.stderr, est.samples,
                              detail=f"the limit (94)-(99) {pt(gamma=gamma):.6g} is checked separately"))

        def tr_at(dd):
            nn = int(round(gamma * dd))

            def f(rng, size):
                X = rng.standard_normal((size, nn, dd))
                G = X @ X.transpose(0, 2, 1) if nn < dd else X.transpose(0, 2, 1) @ X
                return np.trace(np.linalg.inv(G), axis1=1, axis2=2)

            return f

        runs = [estimate(tr_at(dd), _draws(ctx, 1000, 4000), seed=ctx.seed, key=("tr-fss", gamma, dd), batch=100)
                for dd in _fss_sizes(ctx)[:2]] + [est]
        out += compare_scaling("transfer.pinv_trace", f"(94)-(99) at gamma={gamma} from E tr((X^+)^T X^+) simulated at "
                               "n = gamma d", _fss_sizes(ctx), [r.mean for r in runs], [r.stderr for r in runs],
                               theory=pt(gamma=gamma), order=1.0, size_name="d",
                               detail="predicted order 1: the inverse-Wishart mean n/(d - n - 1) = gamma/(1 - gamma) "
                                      "+ O(1/d)")
        out.append(_limit_sequence("transfer.pinv_trace", f"(94)-(99) at gamma={gamma} as the limit of the exact "
                                   f"inverse-Wishart mean at n = gamma d",
                                   lambda dd: (lambda nn: nn / (dd - nn - 1) if nn < dd else dd / (nn - dd - 1))(
                                       int(round(gamma * dd))), pt(gamma=gamma), _wishart_first_order(gamma),
                                   (100, 1000, 10_000, 100_000, 1_000_000)))
    return out


def _relu(ctx: Context) -> list[Evidence]:
    """(150) by sampling x ~ N(0, I), and (156): sampled Gram matrix against the analytic one, and the
    residual's Monte Carlo estimate with the analytic projection coefficients."""
    k = theorylab.get("transfer.relu_kernel")
    out = []
    for u in (-0.9, 0.0, 0.5, 0.99):
        def sample(rng, size, u=u):
            a = rng.standard_normal(size)
            b = u * a + math.sqrt(1 - u * u) * rng.standard_normal(size)  # (w_i.x, w_j.x) with correlation u
            return np.maximum(a, 0) * np.maximum(b, 0)

        est = estimate(sample, _draws(ctx, 200000, 2000000), seed=ctx.seed, key=("k", u), batch=100000)
        out.append(compare_mc("transfer.relu_kernel", f"(150) E relu(w_i.x) relu(w_j.x) at u={u}", k(u=u), est.mean,
                              est.stderr, est.samples))
    rng = np.random.default_rng(ctx.seed)
    dd, m, ms = 5, 4, 3
    W, Ws, cs = rng.standard_normal((m, dd)), rng.standard_normal((ms, dd)), rng.standard_normal(ms)
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    Sn = Ws / np.linalg.norm(Ws, axis=1, keepdims=True)
    G = k(u=np.clip(Wn @ Wn.T, -1, 1))
    N = _draws(ctx, 200000, 2000000)
    X = rng.standard_normal((N, dd))
    Phi = np.maximum(X @ Wn.T, 0)
    Ghat = Phi.T @ Phi / N
    se = np.sqrt(np.var(Phi[:, :, None] * Phi[:, None, :], axis=0, ddof=1) / N)
    z = np.max(np.abs(Ghat - G) / se)
    # Bonferroni over the m(m+1)/2 distinct entries: 4.5 SE keeps the family-wise false alarm below 1e-4
    out.append(Evidence(entry="transfer.rkhs_residual", check=f"(151) sampled Gram matrix vs analytic, {N} samples, m={m}",
                        kind="monte-carlo", predicted=0.0, observed=float(z), tolerance=4.5, relation="<=",
                        tolerance_source="max over entries of |sampled - k(w_i.w_j)| / standard error <= 4.5 "
                                         "(Bonferroni over the 10 distinct entries)",
                        detail=f"max z-score {z:.2f}; max |difference| {float(np.max(np.abs(Ghat - G))):.3g}",
                        samples=N, extra={"analytic": G, "sampled": Ghat}))
    res = theorylab.get("transfer.rkhs_residual")
    b = k(u=np.clip(Wn @ Sn.T, -1, 1)) @ cs / ms
    alpha = np.linalg.pinv(G) @ b
    fstar = np.maximum(X @ Sn.T, 0) @ cs / ms
    r = (fstar - Phi @ alpha) ** 2
    out.append(compare_mc("transfer.rkhs_residual", f"(156) ||P_perp f*||^2 vs the sampled squared residual of the "
                          f"analytic projection (m={m}, m*={ms}, d={dd})", res(W=W, W_star=Ws, c_star=cs),
                          float(r.mean()), float(r.std(ddof=1) / math.sqrt(N)), N))
    return out


def _finetune_mc(ctx: Context) -> list[Evidence]:
    """(14) corrected: simulate beta_ft = X^+ y + c (I-P) beta_s with each draw's c at three sizes d; the limit is
    checked by a finite-size scaling fit (order 1/d, extrapolated value within 3 standard errors)."""
    ft = theorylab.get("transfer.finetune_risk")
    from .linear_networks import finetune_c

    gamma, theta, sigma = 0.5, math.pi / 3, 0.5
    means = []
    sizes = ctx.pick(quick=(50, 100, 200), paper=(200, 400, 800))
    for d in sizes:
        n = int(gamma * d)

        def sample(rng, size, n=n, d=d):
            X = rng.standard_normal((size, n, d))
            bs = np.zeros(d)
            bs[0] = 1.0
            bt = math.cos(theta) * bs
            bt[1] = math.sin(theta)
            y = X @ bt + sigma * rng.standard_normal((size, n))
            XXt = X @ X.transpose(0, 2, 1)
            bsc = np.einsum("bnd,bn->bd", X, np.linalg.solve(XXt, y[..., None])[..., 0])
            pbs = np.einsum("bnd,bn->bd", X, np.linalg.solve(XXt, X[:, :, 0][..., None])[..., 0])
            perp = bs - pbs
            c = np.array([finetune_c(float(a @ a), float(p @ p), 2) for a, p in zip(bsc, perp)])
            return np.sum((bsc + c[:, None] * perp - bt) ** 2, axis=1)

        means.append(estimate(sample, _draws(ctx, 200, 2000), seed=ctx.seed, key=("ft", d), batch=50))
    # the limit d -> oo by a finite-size scaling fit mean(d) = lim + C/d over the three sizes (independent draws
    # per size, standard errors from them); the predicted order 1 is the leading 1/d of the inverse-Wishart
    # moments the risk is made of
    pred = ft(gamma=gamma, theta=theta, sigma=sigma)
    return compare_scaling("transfer.finetune_risk", f"fine-tuned predictor (depth law, L=2) simulated at d = "
                           f"{', '.join(map(str, sizes))} (gamma={gamma}, theta={theta:.4f}, sigma={sigma})",
                           sizes, [m.mean for m in means], [m.stderr for m in means], theory=pred, order=1.0,
                           size_name="d",
                           detail=(", ".join(f"{m.mean:.5g} +- {m.stderr:.2g} (d={dd})" for m, dd in zip(means, sizes))
                                   + f"; the seed's (14) gives "
                                   f"{theorylab.get('transfer.scratch_risk')(gamma=gamma, sigma=sigma) + (1 - gamma) * (1 - 2 * math.cos(theta)):.6g}"))


SLICE_THETAS = (math.pi / 8, math.pi / 4, 3 * math.pi / 8)


def _rank_one_sampler(n: int, theta: float, sigma: float, lam: float = 0.0):
    """Risk of (ridge) linear transfer on the rank-one pretrained feature beta_s (Theorem 3.4), per draw."""

    def sample(rng, size):
        z, w, e = (rng.standard_normal((size, n)) for _ in range(3))
        y = math.cos(theta) * z + math.sin(theta) * w + sigma * e
        b = np.sum(z * y, axis=1) / (np.sum(z * z, axis=1) + n * lam)
        return 1 + b * b - 2 * b * math.cos(theta)

    return sample


def _slices_mc(ctx: Context) -> list[Evidence]:
    """Fig. 1(c) points by simulation: T_lt = R_sc - R_lt at n = gamma d, each risk simulated with its own draws
    (min-norm least squares at (n, d); rank-one transfer at n), against the exact finite-size prediction
    scratch_risk_finite - linear_transfer_risk; the high-dimensional (11) is what the figure draws as lines."""
    fin, lt = theorylab.get("transfer.scratch_risk_finite"), theorylab.get("transfer.linear_transfer_risk")
    tlt = theorylab.get("transfer.linear_transferability")
    d, sigma = ctx.pick(quick=100, paper=500), 0.2
    gammas = ctx.pick(quick=(0.25, 0.5, 0.75, 1.5, 2.0), paper=(0.1, 0.25, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0))
    out = []
    for gamma in gammas:
        n = int(round(gamma * d))
        sc = estimate(min_norm_risk_sampler(n, d, sigma), _draws(ctx, 200, 1000), seed=ctx.seed, key=("fig1c", n),
                      batch=50)
        for theta in SLICE_THETAS:
            tr = estimate(_rank_one_sampler(n, theta, sigma), _draws(ctx, 4000, 40000), seed=ctx.seed,
                          key=("fig1c-lt", n, round(theta, 6)))
            se = math.hypot(sc.stderr, tr.stderr)
            out.append(compare_mc("transfer.linear_transferability", f"Fig. 1(c) point by simulation: gamma={gamma}, "
                                  f"theta={theta:.4f} (d={d}, sigma={sigma})",
                                  fin(n=n, d=d, sigma=sigma) - lt(n=n, theta=theta, sigma=sigma), sc.mean - tr.mean,
                                  se, min(sc.samples, tr.samples),
                                  detail=f"prediction: exact finite-size; high-dim limit (11) "
                                         f"{tlt(gamma=gamma, theta=theta, sigma=sigma):.4g}",
                                  extra=FIG1C.tag(source="monte-carlo", gamma=gamma,
                                                         theta=theta, sigma=sigma, d=d)))
            # (11), the figure's line, as the limit of that exact finite-size prediction along n = gamma d
            out.append(_limit_sequence("transfer.linear_transferability", f"(11) at gamma={gamma}, theta={theta:.4f}, "
                                       f"sigma={sigma} as the limit of R_sc(gamma d, d) - R_lt(gamma d)",
                                       lambda dd, gamma=gamma, theta=theta: _t_lt_finite(gamma, theta, sigma, dd),
                                       tlt(gamma=gamma, theta=theta, sigma=sigma),
                                       _t_lt_first_order(gamma, theta, sigma, _T_LT_SIZES[0]), _T_LT_SIZES,
                                       detail=f"limit (11) {tlt(gamma=gamma, theta=theta, sigma=sigma):.6g}"))
    return out


_T_LT_SIZES = (100, 1000, 10_000, 100_000, 1_000_000)  # gamma d an integer for every gamma of Fig. 1(c)'s points


def _t_lt_finite(gamma: float, theta: float, sigma: float, d: int) -> float:
    """The exact finite-size T_lt at n = gamma d: scratch_risk_finite - linear_transfer_risk (both entries with
    their own Monte Carlo checks)."""
    n = int(round(gamma * d))
    fin, lt = theorylab.get("transfer.scratch_risk_finite"), theorylab.get("transfer.linear_transfer_risk")
    return float(fin(n=n, d=d, sigma=sigma)) - float(lt(n=n, theta=theta, sigma=sigma))


def _t_lt_first_order(gamma: float, theta: float, sigma: float, d0: int) -> float:
    """Bound on d |T_lt(gamma d, d) - lim| for d >= d0, from the finite-size forms alone (not from (11)): the
    scratch part differs from its limit only through sigma^2 E tr (inverse-Wishart, _wishart_first_order), the
    transfer part by (sigma^2 + sin^2)/(n - 2), and d/(gamma d - 2) decreases in d."""
    return sigma**2 * _wishart_first_order(gamma) + (sigma**2 + math.sin(theta) ** 2) * d0 / (gamma * d0 - 2)


def _ridge_sweep(ctx: Context) -> list[Evidence]:
    """Fig. 6 points: ridge linear transfer at gamma = 0.5 of d = 500 (n = 250) over lambda, simulated, against
    the exact finite-n risk (125); the figure draws the n -> oo limit (13) as the line."""
    theta, sigma, n = math.pi / 4, 0.2, 250
    ridge = theorylab.get("transfer.ridge_transfer_risk")
    out = []
    for lam in (0.0, 0.05, 0.1, 0.25, 0.5, 1.0):
        est = estimate(_rank_one_sampler(n, theta, sigma, lam), _draws(ctx, 4000, 40000), seed=ctx.seed,
                       key=("fig6", lam))
        out.append(compare_mc("transfer.ridge_transfer_risk", f"Fig. 6 point: ridge transfer at lambda={lam} "
                              f"(n={n}, theta=pi/4, sigma={sigma}) vs the exact finite-n risk (125)",
                              ridge_finite(n, theta, sigma, lam), est.mean, est.stderr, est.samples,
                              extra=FIG6.tag(source="monte-carlo", lam=lam, n=n,
                                             theta=theta, sigma=sigma)))
        # the figure's line (13) as the limit of that exact finite-n risk (125), within its a-priori O(1/n) term
        ns = (n, 10 * n, 100 * n, 1000 * n)
        bound = (_ridge_first_order(theta, sigma, lam) if lam > 0
                 else (math.sin(theta) ** 2 + sigma**2) * n / (n - 2))  # lambda = 0: (10)'s (sin^2+sigma^2)/(n-2)
        bound += ns[-1] * 1e-11  # (125)'s quadrature (epsrel 1e-12 on terms of size <= 1, a few terms), times n
        out.append(_limit_sequence("transfer.ridge_transfer_risk", f"Fig. 6 line: (13) at lambda={lam} (theta=pi/4) "
                                   f"as the limit of the exact finite-n risk (125) (sigma={sigma})",
                                   lambda m, lam=lam: ridge_finite(m, theta, sigma, lam), ridge(theta=theta, lam=lam),
                                   bound, ns, detail=f"limit (13) = {ridge(theta=theta, lam=lam):.6g}"))
    return out


def _hypothesis_edges(ctx: Context) -> list:
    """Theorem 3.7 with Assumption 3.1 (Gaussian inputs) dropped: Rademacher inputs and beta_s = e_1, nu = e_2.
    Then z = X beta_s has ||z||^2 = n exactly, so E b^2 = cos^2 + (sin^2 + sigma^2)/n and the risk is
    sin^2 theta + (sigma^2 + sin^2 theta)/n instead of (10)'s /(n - 2): the finite-n formula does not survive,
    its n -> oo limit sin^2 theta does. Reported as a finding (the theorem assumes Gaussian data)."""
    lt = theorylab.get("transfer.linear_transfer_risk")
    out = []
    for n, theta, sigma in ((5, math.pi / 4, 0.3), (20, 1.2, 0.5)):
        def sample(rng, size, n=n, theta=theta, sigma=sigma):
            z, w = (rng.choice((-1.0, 1.0), size=(size, n)) for _ in range(2))
            y = math.cos(theta) * z + math.sin(theta) * w + sigma * rng.standard_normal((size, n))
            b = np.sum(z * y, axis=1) / np.sum(z * z, axis=1)
            return (b - math.cos(theta)) ** 2 + math.sin(theta) ** 2

        est = estimate(sample, _draws(ctx, 20000, 200000), seed=ctx.seed, key=("lt-rademacher", n))
        gauss = float(lt(n=n, theta=theta, sigma=sigma))
        over_n = math.sin(theta) ** 2 + (sigma**2 + math.sin(theta) ** 2) / n
        out.append(Finding(
            entry="transfer.linear_transfer_risk", check=f"Theorem 3.7 without Gaussian inputs (Rademacher X), n={n}",
            kind="monte-carlo",
            text=(f"Rademacher inputs: simulated risk {est.mean:.5f} +- {est.stderr:.1g} against (10)'s "
                  f"{gauss:.5f} and sin^2 + (sigma^2 + sin^2)/n = {over_n:.5f}: the Gaussian hypothesis is needed "
                  f"for (10) at finite n; the limit sin^2 theta survives"),
            values={"n": n, "theta": theta, "sigma": sigma, "simulated": float(est.mean), "stderr": float(est.stderr),
                    "eq10": gauss, "over_n": over_n}))
    return out


def _kl(ctx: Context) -> list[Evidence]:
    """(28)-(31) by Monte Carlo of the log-likelihood ratio: x ~ N(0, I_3), f(x) = a.x, g(x) = b.x, y ~ N(f(x),
    sigma^2); E log p_f(y|x)/p_g(y|x) against the entry at ||f - g||^2_{L2} = ||a - b||^2."""
    kl = theorylab.get("transfer.kl_divergence")
    rng0 = np.random.default_rng(ctx.seed)
    out = []
    for sigma in (0.5, 2.0):
        a, b = rng0.normal(size=3), rng0.normal(size=3)

        def sample(rng, size, a=a, b=b, sigma=sigma):
            x = rng.standard_normal((size, 3))
            f, g = x @ a, x @ b
            y = f + sigma * rng.standard_normal(size)
            return ((y - g) ** 2 - (y - f) ** 2) / (2 * sigma**2)

        est = estimate(sample, _draws(ctx, 20000, 200000), seed=ctx.seed, key=("kl", sigma))
        out.append(compare_mc("transfer.kl_divergence", f"E log p_f/p_g simulated, linear f, g in d=3, sigma={sigma}",
                              kl(dist_sq=float(np.sum((a - b) ** 2)), sigma=sigma), est.mean, est.stderr,
                              est.samples))
    return out


def _mc_work(runs) -> float:
    """Work of Monte Carlo draws: each (draws, n, d) solves an n x d least-squares problem per draw (n d min(n, d)
    multiply-adds), draws its n d normals (~20 each) and pays a per-draw overhead (~1e4)."""
    return float(sum(k * (n * d * min(n, d) + 20 * n * d + 1e4) for k, n, d in runs))


def _cost_scratch(ctx: Context) -> float:
    d = ctx.pick(quick=100, paper=1000)
    runs = [(_draws(ctx, 4000, 40000), 10, 40), (_draws(ctx, 4000, 40000), 60, 30)]
    for g in (0.5, 2.0):
        runs += [(_draws(ctx, 400, 2000), int(g * d), d)]
        runs += [(_draws(ctx, 1000, 4000), int(g * dd), dd) for dd in _fss_sizes(ctx)[:2]]
    return _mc_work(runs)


def _cost_random_matrix(ctx: Context) -> float:
    d = ctx.pick(quick=100, paper=1000)
    runs = [(_draws(ctx, 4000, 40000), 12, 30), (2 * _draws(ctx, 40000, 400000), 1, 30)]
    for g in (0.5, 2.0):
        runs += [(_draws(ctx, 400, 1000), int(g * d), d)]
        runs += [(_draws(ctx, 1000, 4000), int(g * dd), dd) for dd in _fss_sizes(ctx)[:2]]
    return _mc_work(runs)


def _cost_finetune(ctx: Context) -> float:
    return _mc_work([(_draws(ctx, 200, 2000), d // 2, d) for d in ctx.pick(quick=(50, 100, 200), paper=(200, 400, 800))])


def _cost_slices_mc(ctx: Context) -> float:
    d = ctx.pick(quick=100, paper=500)
    gammas = ctx.pick(quick=(0.25, 0.5, 0.75, 1.5, 2.0), paper=(0.1, 0.25, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0))
    return _mc_work([(_draws(ctx, 200, 1000), int(g * d), d) for g in gammas]
                    + [(3 * _draws(ctx, 4000, 40000), int(g * d), 1) for g in gammas])


def _cost_draws(ctx: Context) -> float:
    """Checks whose work is their number of draws (the same sizes at both profiles)."""
    return float(ctx.pick(quick=1, paper=10))


_COSTS = {"Monte Carlo: scratch risk": _cost_scratch, "Monte Carlo: random matrices": _cost_random_matrix,
          "Monte Carlo: fine-tuning": _cost_finetune, "Monte Carlo: Fig. 1(c) points": _cost_slices_mc,
          "Monte Carlo: linear transfer": _cost_draws, "Monte Carlo: ridge transfer": _cost_draws,
          "Monte Carlo: ReLU kernel and RKHS": _cost_draws, "Monte Carlo: Fig. 6 points": _cost_draws,
          "Hypothesis edges: Theorem 3.7 without Gaussian inputs": _cost_draws,
          "Monte Carlo: KL divergence": _cost_draws}


def _with_cost(check: Check) -> Check:
    from dataclasses import replace

    return replace(check, cost=_COSTS[check.name]) if check.name in _COSTS and check.cost is None else check


# -- a Monte Carlo check as parts: its estimate() calls, the big ones in chunks of draws -------------------------
# The check's function is run as written; `estimate` (above) is hooked per part. Listing the parts runs it with
# stand-in estimates (no sampling) to see its calls in order; a part runs it until its own call, samples that (or a
# chunk of its draws, from its own stream (key, "draws", start)) and stops; combine runs it once more with every
# call answered by the parts' results (chunks merged by Chan's update), which makes the records. Quick: one part,
# every call sampled as one task would (the same numbers as without parts).

HEAVY_BATCH = 100      # calls batched by at most this many draws sample a matrix per draw: chunked at paper scale
CHUNK_BATCHES = 10     # a chunk of such a call: 10 batches of draws


class _Done(Exception):
    def __init__(self, value: dict):
        self.value = value


@contextlib.contextmanager
def _hooked(fn):
    _HOOK.fn = fn
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # stand-in estimates make degenerate fits; their records are dropped
            yield
    finally:
        _HOOK.fn = None


def _stand_in(sampler, draws, **kw) -> Estimate:
    return Estimate(1.0, 0.1, int(draws))


def _stats(e: Estimate) -> dict:
    return {"mean": e.mean, "stderr": e.stderr, "samples": e.samples}


def _merge(chunks: list[dict]) -> Estimate:
    """One estimate from the chunks' (mean, stderr, samples): Chan's parallel update of the sum of squares."""
    n, mean, m2 = 0, 0.0, 0.0
    for c in chunks:
        k, mk = int(c["samples"]), float(c["mean"])
        m2k = float(c["stderr"]) ** 2 * k * (k - 1)
        delta = mk - mean
        mean += delta * k / (n + k)
        m2 += m2k + delta * delta * n * k / (n + k)
        n += k
    return Estimate(mean, math.sqrt(m2 / (n - 1) / n), n)


def _mc_calls(fn, ctx: Context) -> list[dict]:
    calls: list[dict] = []

    def record(sampler, draws, *, key="", batch=4096, **kw):
        calls.append({"key": key, "draws": int(draws), "batch": int(batch)})
        return _stand_in(sampler, draws)

    with _hooked(record):
        fn(ctx)
    return calls


def _mc_parts(check: Check, fn) -> Check:
    """`check` (whose run is `fn`) declared with parts: see above."""
    from dataclasses import replace

    whole = check.cost

    def parts(ctx: Context) -> list[dict]:
        if not ctx.pick(quick=False, paper=True):
            return [{"calls": "all"}]
        out = []
        for i, c in enumerate(_mc_calls(fn, ctx)):
            per = c["draws"] if c["batch"] > HEAVY_BATCH else c["batch"] * CHUNK_BATCHES
            out += [{"stage": i, "key": repr(c["key"]), "draws": [a, min(a + per, c["draws"])]}
                    for a in range(0, c["draws"], per)]
        return out

    def run(ctx: Context, part: dict) -> dict:
        if part.get("calls") == "all":
            got: list[dict] = []

            def every(sampler, draws, **kw):
                e = _estimate(sampler, draws, **kw)
                got.append(_stats(e))
                return e

            with _hooked(every):
                fn(ctx)
            return {"estimates": got}
        seen = [0]

        def one(sampler, draws, *, seed=0, key="", batch=4096, **kw):
            i, seen[0] = seen[0], seen[0] + 1
            if i < part["stage"]:
                return _stand_in(sampler, draws)
            a, b = part["draws"]
            if (a, b) == (0, draws):  # the whole call: its own stream, as without parts
                raise _Done(_stats(_estimate(sampler, draws, seed=seed, key=key, batch=batch)))
            raise _Done(_stats(_estimate(sampler, b - a, seed=seed, key=(key, "draws", a), batch=batch)))

        try:
            with _hooked(one):
                fn(ctx)
        except _Done as done:
            return {"estimates": [done.value]}
        raise RuntimeError(f"the check made fewer than {part['stage'] + 1} estimates (its parts are out of date)")

    def combine(ctx: Context, results: list) -> list:
        plist = parts(ctx)
        if plist == [{"calls": "all"}]:
            ests = [Estimate(**e) for e in results[0]["estimates"]]
        else:
            by: dict[int, list] = {}
            for part, res in zip(plist, results):
                by.setdefault(part["stage"], []).append(res["estimates"][0])
            ests = [_merge(by[i]) for i in sorted(by)]
        it = iter(ests)
        with _hooked(lambda sampler, draws, **kw: next(it)):
            return fn(ctx)

    def cost(ctx: Context, part: dict) -> float:
        return float(part["draws"][1] - part["draws"][0]) if "draws" in part else float(whole(ctx))

    return replace(check, run=run, parts=parts, combine=combine, cost=cost)


_IN_PARTS = {"Monte Carlo: scratch risk": _scratch, "Monte Carlo: random matrices": _random_matrix,
             "Monte Carlo: fine-tuning": _finetune_mc, "Monte Carlo: Fig. 1(c) points": _slices_mc}


def _declared(check: Check) -> Check:
    check = _with_cost(check)
    return _mc_parts(check, _IN_PARTS[check.name]) if check.name in _IN_PARTS else check


CHECKS = TRAINED_CHECKS + tuple(_declared(c) for c in (
    Check(name="Monte Carlo: scratch risk", entries=("transfer.scratch_risk", "transfer.scratch_risk_finite"),
          kind="monte-carlo",
          run=_scratch, doc="Minimum-norm least squares on Gaussian data against (8) and its exact finite-size form."),
    Check(name="Monte Carlo: linear transfer", entries=("transfer.linear_transfer_risk",), kind="monte-carlo",
          run=_linear_transfer,
          doc="Rank-one linear transfer against (10), exact in n."),
    Check(name="Monte Carlo: ridge transfer", entries=("transfer.ridge_transfer_risk",), kind="monte-carlo", run=_ridge,
          doc="Ridge transfer at finite n against the exact finite-n risk, which approaches (13)."),
    Check(name="Monte Carlo: random matrices", entries=("transfer.scratch_risk", "transfer.inverse_chi2_mean",
                                           "transfer.pinv_trace"), kind="monte-carlo", run=_random_matrix,
          doc="(93), (117) and (94)-(99) by simulation."),
    Check(name="Monte Carlo: ReLU kernel and RKHS", entries=("transfer.relu_kernel", "transfer.rkhs_residual"),
          kind="monte-carlo",
          run=_relu, doc="(150) by sampling x; (151) and (156) with sampled Gram matrices."),
    Check(name="Monte Carlo: fine-tuning", entries=("transfer.finetune_risk",), kind="monte-carlo", run=_finetune_mc,
          doc="The corrected fine-tuned predictor simulated against the finetune_risk limit."),
    Check(name="Monte Carlo: Fig. 1(c) points", entries=("transfer.linear_transferability",), kind="monte-carlo",
          run=_slices_mc,
          doc="Linear transferability by simulation at finite d along the slices of Fig. 1(c)."),
    Check(name="Monte Carlo: Fig. 6 points", entries=("transfer.ridge_transfer_risk",), kind="monte-carlo",
          run=_ridge_sweep,
          doc="Ridge linear transfer by simulation over lambda at n = 250 (Fig. 6)."),
    Check(name="Monte Carlo: KL divergence", entries=("transfer.kl_divergence",), kind="monte-carlo", run=_kl,
          doc="(28)-(31): the log-likelihood ratio of two Gaussian regressions averaged by simulation."),
    Check(name="Hypothesis edges: Theorem 3.7 without Gaussian inputs", entries=("transfer.linear_transfer_risk",),
          kind="monte-carlo",
          run=_hypothesis_edges,
          doc="Rademacher inputs in rank-one linear transfer: (10)'s 1/(n-2) becomes 1/n (a finding)."),
)) + RELU_TRAINED_CHECKS
