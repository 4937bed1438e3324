"""Evidence for the qpenalty family: kernels against mpmath, the implicit-bias solver against SLSQP and
against the gradient flow of the +/- diagonal network integrated as an ODE (seed 000, App. A).
"""
from __future__ import annotations

import numpy as np
import theorylab
from theorylab.authoring import Check, Context, Evidence, Finding, compare, integrate, interpolating_minimum

from .diagonal_networks import CHECKS_QPENALTY as TRAINED_CHECKS


def _kernel_grid(ctx: Context) -> list[Evidence]:
    q = theorylab.get("qpenalty.q")
    # a log grid over the whole domain, denser (a third of the points) where q turns from z^2/4 to |z| log|z|
    n = ctx.pick(quick=150, paper=2000)
    mags = np.concatenate([np.logspace(-150, 300, n // 3), np.logspace(-4, 4, n // 2 - n // 3)])
    zs = np.concatenate([-mags, mags])
    ref = np.array([q.reference_value(z=z) for z in zs])
    got = q(z=zs)
    eps = float(np.finfo(float).eps)
    return [compare("qpenalty.q", f"NumPy kernel vs the quadrature of q' = asinh(z/2) (mpmath, 30 digits) on {zs.size} "
                    "log-spaced z in +-[1e-150, 1e300] (a third of them in +-[1e-4, 1e4])", "numeric", ref, got, rtol=8 * eps, elementwise=True,
                    source="q's stated accuracy (a few ulps: <= 4 eps relative for the stable form) + the reference "
                           "rounded to float64 (eps/2), within 8 eps")]


def _instance(rng: np.random.Generator, n: int, D: int, scale: float):
    X = rng.normal(size=(n, D))
    y = X @ rng.normal(size=D)
    w1 = scale * rng.uniform(0.5, 1.5, D)
    w2 = scale * rng.uniform(-1.0, 1.0, D)
    return X, y, w1, w2


def _penalty(beta, k):
    q = theorylab.get("qpenalty.q")
    return float(np.sum(k * q.numpy(2 * beta / k)))


def _against_slsqp(ctx: Context) -> list[Evidence]:
    """Direct constrained minimization; tolerance from strong convexity and SLSQP's optimality gap."""
    rng = np.random.default_rng(ctx.seed)
    ib, norm = theorylab.get("qpenalty.implicit_bias"), theorylab.get("qpenalty.norm")
    out = []
    for trial in range(ctx.pick(quick=3, paper=20)):
        X, y, w1, w2 = _instance(rng, 3, 6, scale=(0.3, 1.0, 2.0)[trial % 3])
        k = w1**2 + w2**2
        beta = ib(X=X, y=y, w1=w1, w2=w2)
        x, x_p = interpolating_minimum(lambda b: _penalty(b, k), lambda b: 2 * np.arcsinh(b / k), X, y,
                                       ftol=1e-15, maxiter=1000)
        # Q is strongly convex on the segment with modulus mu = min_d 2/sqrt(k_d^2 + b_max^2) (Q'' of
        # k q(2b/k) is 2/sqrt(k^2 + b^2)); a feasible point x with Q(x) - Q* = g lies within sqrt(2 g / mu)
        # of the minimizer. SLSQP's point is projected onto X b = y first (distance `proj`); Q* >= Q(ours) - eq,
        # eq = the float64 evaluation of (22) at both points (2 (4 + D) eps Q) and the first-order change of Q
        # from both points' rounding-level residuals (||grad Q|| ||X^+|| ||X b - y||).
        proj = float(np.linalg.norm(x - x_p))
        pinv = 1 / float(np.linalg.svd(X, compute_uv=False)[-1])
        gnorm = float(np.linalg.norm(2 * np.arcsinh(beta / k)))
        q_ours, q_slsqp = _penalty(beta, k), _penalty(x_p, k)
        eq = (2 * (4 + X.shape[1]) * np.finfo(float).eps * max(q_ours, q_slsqp)
              + gnorm * pinv * (np.linalg.norm(X @ beta - y) + np.linalg.norm(X @ x_p - y)))
        bmax = max(np.max(np.abs(beta)), np.max(np.abs(x)))
        mu = float(np.min(2 / np.sqrt(k**2 + bmax**2)))
        gap = max(q_slsqp - q_ours, 0.0) + eq
        tol = np.sqrt(2 * gap / mu) + proj
        out.append(compare("qpenalty.implicit_bias", f"vs SLSQP minimization, instance {trial} (n=3, D=6)",
                           "numeric", beta, x, atol=tol,
                           source="sqrt(2 gap/mu) from strong convexity (gap = Q(SLSQP projected) - Q(ours) + float64 "
                                  "evaluation and residual effects) + the distance of SLSQP's point to X b = y",
                           detail=f"objective ours {q_ours:.12g}, SLSQP (projected) {q_slsqp:.12g}"))
        # the tolerance above assumes ours is feasible (its residual enters only as rounding): assert it, or an
        # answer off X b = y widens its own tolerance (#25); and the entry qpenalty.norm is the objective (22)
        out.append(compare("qpenalty.implicit_bias", f"interpolates X beta = y, instance {trial}", "numeric", y,
                           X @ beta, rtol=1e-9, source="the dual Newton solve ends at rounding-level residuals "
                           "(~1e-15 relative); 1e-9 of max|y| leaves cond(X) up to 1e6"))
        out.append(compare("qpenalty.norm", f"(22) at ours and at SLSQP's point vs sum_d k_d q(2 b_d/k_d) (entry "
                           f"qpenalty.q), instance {trial}", "numeric", [q_ours, q_slsqp],
                           [norm(beta=beta, w1=w1, w2=w2), norm(beta=x_p, w1=w1, w2=w2)], rtol=1e-12,
                           source="two float64 sums of D = 6 terms each within a few eps: 1e-12 relative"))
    return out


def _gradient_flow(X, y, w1, w2, T: float) -> tuple[np.ndarray, np.ndarray]:
    """Integrate w' = -grad ||X beta - y||^2 for beta = w+1 w+2 - w-1 w-2 from w+(0) = w-(0) = (w1, w2), at
    (rtol, atol) = (1e-10, 1e-12) and ten times tighter (theorylab.authoring.integrate): beta(T) of the tighter solve
    and of the looser one (LSODA's error scales with its tolerance, so the tight run's error is below their
    difference)."""
    D = X.shape[1]

    def rhs(_, w):
        a_p, c_p, a_m, c_m = w.reshape(4, D)
        g = 2 * X.T @ (X @ (a_p * c_p - a_m * c_m) - y)  # d loss / d beta
        return -np.concatenate([g * c_p, g * a_p, -g * c_m, -g * a_m])

    flow = integrate(rhs, np.concatenate([w1, w2, w1, w2]), [0.0, T], rtol=1e-10, atol=1e-12, refine=10,
                     method="LSODA")

    def beta(w):
        a_p, c_p, a_m, c_m = w.reshape(4, D)
        return a_p * c_p - a_m * c_m

    return beta(flow.y[-1]), beta(flow.y_coarse[-1])


def _against_gradient_flow(ctx: Context) -> list[Evidence]:
    """eq (21): the flow's limit is the minimum-Q interpolant; tolerance from the flow's final residual.

    Near the solution beta(t) - beta* ~ J X^T (X J X^T)^{-1} r(t) with J = diag(d beta/d c) = diag(k cosh c),
    so the distance is bounded by ||J X^T (X J X^T)^{-1}|| ||r(T)|| (x2 for the linearization) + ODE error.
    """
    rng = np.random.default_rng(ctx.seed + 1)
    ib = theorylab.get("qpenalty.implicit_bias")
    out = []
    for trial, scale in enumerate(ctx.pick(quick=(0.5, 1.0), paper=(0.2, 0.5, 1.0, 2.0))):
        X, y, w1, w2 = _instance(rng, 2, 5, scale)
        X /= np.linalg.norm(X, 2)
        beta_star = ib(X=X, y=y, w1=w1, w2=w2)
        beta_T, beta_T_loose = _gradient_flow(X, y, w1, w2, T=400.0 / scale**2)
        ode = float(np.max(np.abs(beta_T - beta_T_loose)))
        k = w1**2 + w2**2
        J = np.diag(np.sqrt(k**2 + beta_star**2))
        M = J @ X.T @ np.linalg.inv(X @ J @ X.T)
        r = float(np.linalg.norm(X @ beta_T - y))
        tol = 2 * np.linalg.norm(M, 2) * r + ode
        out.append(compare("qpenalty.implicit_bias", f"vs integrated gradient flow of the +/- network, scale {scale}",
                           "numeric", beta_star, beta_T, atol=tol,
                           source="2 ||J X^T (X J X^T)^-1|| ||X beta(T) - y|| (the linearized distance to the "
                                  "interpolant, doubled) + the integration error (tight vs 10x looser LSODA run)",
                           detail=f"final residual {r:.2e}, integration error estimate {ode:.1e}"))
    return out


def _rich_limit(ctx: Context) -> list[Evidence | Finding]:
    """As the initialization scale shrinks, the minimum-Q interpolant tends to the minimum-l1 one.

    k q(2b/k) ~ 2|b| log(1/k) as k -> 0 (a checked derivation step), so the penalty becomes l1-like; the
    distance to argmin ||b||_1 s.t. Xb = y (scipy's linprog, HiGHS) must decrease monotonically.
    """
    from scipy.optimize import linprog

    rng = np.random.default_rng(ctx.seed + 7)
    n, D = 5, 12
    X = rng.normal(size=(n, D))
    y = X @ (rng.normal(size=D) * (rng.uniform(size=D) < 0.3))
    lp = linprog(np.ones(2 * D), A_eq=np.hstack([X, -X]), b_eq=y, bounds=(0, None), method="highs")
    l1 = lp.x[:D] - lp.x[D:]
    ib = theorylab.get("qpenalty.implicit_bias")
    scales = np.array([1.0, 1e-1, 1e-2, 1e-3, 1e-4])
    dist = np.array([np.linalg.norm(ib(X=X, y=y, w1=np.full(D, s), w2=np.zeros(D)) - l1) for s in scales])
    steps = np.diff(dist)
    return [Evidence(entry="qpenalty.implicit_bias",
                     check="rich limit: ||beta*(scale) - argmin l1|| decreases as the initialization scale shrinks "
                           "(1 .. 1e-4): successive differences <= 0", kind="numeric",
                     predicted=[0.0] * len(steps), observed=steps.tolist(), tolerance=0.0, relation="<=",
                     tolerance_source=f"none: a trend (the smallest change between scales is "
                                      f"{float(np.min(np.abs(steps))):.1e}, the solver's error ~1e-12 relative, so "
                                      "rounding cannot reverse a difference)",
                     detail="distances " + ", ".join(f"{d:.2e}" for d in dist)),
            _rich_rate(X, y, l1)]


def _rich_rate(X, y, l1) -> Finding:
    """The rate of the rich limit, derived: the off-support part of beta*(s) shrinks like s^(2(1 - rho)).

    With k = s^2 and the stationarity 2 asinh(beta/k) = X^T lam of (22): on the support S of the minimum-l1
    interpolant (|S| = n, a vertex) c = X^T lam/2 = sign(beta_S) log(1/k) + O(1), so lam/2 = nu log(1/k) + O(1)
    with nu the dual certificate X_S^T nu = sign(beta_S); off the support c_d = (X^T nu)_d log(1/k) + O(1) and
    beta_d = k sinh(c_d) ~ k^(1 - |X^T nu|_d). Hence ||beta*_off|| ~ C s^(2(1 - rho)), rho = max_off |X^T nu|.
    Not passed to compare_scaling: the values are deterministic (solver error ~1e-14 relative), and the next
    off-support term, s^(2(1 - rho_2)), decays relative to the leading one only like s^(2(rho - rho_2)) -- a
    single-power fit cannot meet a 1e-14 standard error at any float64-reachable s (k = s^2 >= 1e-300). The local
    slopes are reported against the derived order instead.
    """
    D = X.shape[1]
    supp = np.abs(l1) > 1e-9 * np.max(np.abs(l1))
    nu = np.linalg.lstsq(X[:, supp].T, np.sign(l1[supp]), rcond=None)[0]
    off = np.sort(np.abs(X.T @ nu)[~supp])
    order = 2 * (1 - off[-1])
    ib = theorylab.get("qpenalty.implicit_bias")
    scales = 10.0 ** -np.arange(2.0, 80.0, 8.0)
    dist = np.array([np.linalg.norm(ib(X=X, y=y, w1=np.full(D, s), w2=np.zeros(D))[~supp]) for s in scales])
    slopes = np.diff(np.log(dist)) / np.diff(np.log(scales))
    return Finding(entry="qpenalty.implicit_bias", check="rich limit: rate of ||beta*_off(s)|| vs the derived order "
                   "2(1 - rho)", kind="numeric",
                   text=(f"support size {int(supp.sum())} (n = {X.shape[0]}); rho = max_off |X^T nu| = {off[-1]:.4f}, "
                         f"next {off[-2]:.4f}: derived order 2(1 - rho) = {order:.4f} (the next term's "
                         f"{2 * (1 - off[-2]):.4f}); local slopes of log ||beta*_off|| vs log s over s = 1e-2 .. "
                         f"1e-74: {', '.join(f'{v:.4f}' for v in slopes)} -- they approach the derived order as the "
                         "next term dies out. Reported, not asserted (see the docstring: deterministic values, "
                         "a subleading power within 0.1 of the leading one)."),
                   values={"scales": scales.tolist(), "off_support_norm": dist.tolist(), "slopes": slopes.tolist(),
                           "derived_order": order, "rho": float(off[-1]), "rho_2": float(off[-2])})


CHECKS = TRAINED_CHECKS + (
    Check(name="rich limit", entries=("qpenalty.implicit_bias",), kind="numeric", run=_rich_limit,
          doc="The minimum-Q interpolant approaches the minimum-l1 interpolant as the initialization shrinks.",
          cost=lambda ctx: 1.0),
    Check(name="kernel grid", entries=("qpenalty.q",), kind="numeric", run=_kernel_grid,
          doc="NumPy kernel of q against the mpmath reference on a log grid spanning the whole domain.",
          cost=lambda ctx: float(ctx.pick(quick=150, paper=2000))),
    Check(name="implicit bias vs SLSQP", entries=("qpenalty.implicit_bias", "qpenalty.norm"), kind="numeric",
          run=_against_slsqp,
          doc="The dual-Newton solution against a generic constrained minimizer of (22).",
          cost=lambda ctx: float(ctx.pick(quick=3, paper=20))),
    Check(name="implicit bias vs gradient flow", entries=("qpenalty.implicit_bias",), kind="numeric",
          run=_against_gradient_flow,
          doc="The gradient flow (8)-(9) of the +/- network, integrated, against the minimum-Q interpolant.",
          cost=lambda ctx: float(sum(1 / s**2 for s in ctx.pick(quick=(0.5, 1.0), paper=(0.2, 0.5, 1.0, 2.0))))),
)
