"""Evidence for the l12 family (seed 000, App. B): the minimum parameter norms against direct numerical
minimization over network weights, and trained multi-task networks (verify/diagonal_networks.py).
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

import theorylab
from theorylab.evidence import Check, Context, Evidence, compare

from .diagonal_networks import CHECKS_L12 as TRAINED_CHECKS

RTOL = 1e-6  # SLSQP with ftol 1e-12 and constraint tolerance ~1e-10 reaches the optimum to ~1e-6 relative


def _diag_min(beta: np.ndarray, rng: np.random.Generator, starts: int) -> float:
    """min (26) over w+^(1), w-^(1) in R^D and w+^(2), w-^(2) in R^{OxD} subject to (25) = beta."""
    O, D = beta.shape

    def split(w):
        return w[:D], w[D:2 * D], w[2 * D:2 * D + O * D].reshape(O, D), w[2 * D + O * D:].reshape(O, D)

    def realized(w):
        a_p, a_m, c_p, c_m = split(w)
        return (c_p * a_p - c_m * a_m - beta).ravel()

    best = np.inf
    for _ in range(starts):
        res = minimize(lambda w: w @ w, rng.normal(size=2 * D + 2 * O * D), jac=lambda w: 2 * w, method="SLSQP",
                       constraints=[{"type": "eq", "fun": realized}], options={"ftol": 1e-14, "maxiter": 2000})
        if res.success and np.max(np.abs(realized(res.x))) < 1e-9:
            best = min(best, res.fun)
    return best


def _relu_min(m: np.ndarray, rng: np.random.Generator, starts: int, d: int = 3) -> float:
    """min sum_h ||w1_h||^2 + ||w2_h||^2 subject to w2_h ||w1_h|| = m_h (eq 32), per unit."""
    H, O = m.shape
    total = 0.0
    for h in range(H):
        def realized(w):
            return w[d:] * np.linalg.norm(w[:d]) - m[h]

        best = np.inf
        for _ in range(starts):
            res = minimize(lambda w: w @ w, rng.normal(size=d + O), jac=lambda w: 2 * w, method="SLSQP",
                           constraints=[{"type": "eq", "fun": realized}], options={"ftol": 1e-14, "maxiter": 2000})
            if res.success and np.max(np.abs(realized(res.x))) < 1e-9:
                best = min(best, res.fun)
        total += best
    return total


def _direct(ctx: Context) -> list[Evidence]:
    rng = np.random.default_rng(ctx.seed)
    mpn, rmpn = theorylab.get("l12.min_param_norm"), theorylab.get("l12.relu_min_param_norm")
    out = []
    for trial, (O, D) in enumerate(((1, 3), (2, 3), (3, 2)) if ctx.profile == "quick" else ((1, 5), (3, 5), (5, 4))):
        beta = rng.normal(size=(O, D))
        found = _diag_min(beta, rng, 8)
        out.append(compare("l12.min_param_norm", f"direct minimization of (26) over network weights, O={O}, D={D}",
                           "numeric", mpn(beta=beta), found, rtol=RTOL,
                           source="SLSQP (ftol 1e-14) best of 8 random starts, relative 1e-6"))
    m = rng.normal(size=(3, 2))
    out.append(compare("l12.relu_min_param_norm", "direct minimization over ReLU unit weights (d=3), H=3, O=2",
                       "numeric", rmpn(m=m), _relu_min(m, rng, 6), rtol=RTOL,
                       source="SLSQP (ftol 1e-14) best of 6 random starts per unit, relative 1e-6"))
    return out


CHECKS = TRAINED_CHECKS + (
    Check("direct minimization over weights", ("l12.min_param_norm", "l12.relu_min_param_norm"), "numeric", _direct,
          "The closed-form minimum parameter norms against constrained minimization over the network weights."),
)
