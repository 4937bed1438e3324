"""Evidence for the measure family (seed 000, App. G): CKA against the HSIC formulation, the seed's ENSD
example on exact and on sampled data, and PR of Gaussian data with a known covariance spectrum.
"""
from __future__ import annotations

import math

import numpy as np

import theorylab
from theorylab.evidence import Check, Context, Evidence, compare, compare_mc


def _hsic_cka(X, Y):
    """CKA as HSIC(K, L)/sqrt(HSIC(K, K) HSIC(L, L)) with K = X X^T, L = Y Y^T, H = I - 11^T/n."""
    n = X.shape[0]
    H = np.eye(n) - 1 / n
    K, L = H @ X @ X.T @ H, H @ Y @ Y.T @ H
    return np.sum(K * L) / np.sqrt(np.sum(K * K) * np.sum(L * L))


def _checks(ctx: Context) -> list[Evidence]:
    rng = np.random.default_rng(ctx.seed)
    pr, ensd, cka = (theorylab.get(f"measure.{k}") for k in ("participation_ratio", "ensd", "cka"))
    out = []
    X, Y = rng.normal(size=(40, 6)), rng.normal(size=(40, 4))
    Y[:, 0] += X[:, 0]
    out.append(compare("measure.cka", "linear CKA vs the HSIC formulation (Gram matrices, centering matrix H)",
                       "numeric", _hsic_cka(X, Y), cka(X=X, Y=Y), rtol=1e-12,
                       source="two float64 evaluations of the same quantity: 1e-12 relative"))
    # the seed's example with exactly uncorrelated, equal-variance units: rows of a Hadamard-like orthogonal design
    n = 16
    H = np.array([[1.0]])
    while H.shape[0] < n:
        H = np.block([[H, H], [H, -H]])
    X10 = H[:, 1:11]  # 10 centered, mutually orthogonal columns of equal norm
    out.append(compare("measure.ensd", "seed App. G example: X = 10 uncorrelated units, Y = 5 of them -> ENSD = 5",
                       "numeric", 5.0, ensd(X=X10, Y=X10[:, :5]), rtol=1e-14, source="exact data: rounding only"))
    out.append(compare("measure.ensd", "seed App. G example: Y = 5 units uncorrelated with X -> ENSD = 0", "numeric",
                       0.0, ensd(X=X10, Y=H[:, 11:16]), atol=1e-14, source="exact data: rounding only"))
    # sampled data: ENSD of independent Gaussian units concentrates at 5 as n grows (Monte Carlo over datasets)
    reps = 200 if ctx.profile == "quick" else 2000
    vals = []
    for _ in range(reps):
        Z = rng.normal(size=(2000, 10))
        vals.append(ensd(X=Z, Y=Z[:, :5]))
    vals = np.array(vals)
    # finite-n bias: PR of n samples of p isotropic units is ~ p/(1 + p/n); for ENSD the bias is O(p/n) = 0.005
    out.append(compare_mc("measure.ensd", "seed example on sampled Gaussian units (n=2000)", 5.0, vals.mean(),
                          vals.std(ddof=1) / math.sqrt(reps), reps, bias=10 / 2000,
                          bias_source="O(p/n) sampling bias of the spectrum, p/n = 10/2000"))
    lam = np.array([4.0, 2.0, 1.0, 1.0, 0.5])
    pr_true = lam.sum() ** 2 / (lam**2).sum()
    vals = np.array([pr(X=rng.normal(size=(4000, 5)) * np.sqrt(lam)) for _ in range(reps)])
    out.append(compare_mc("measure.participation_ratio", f"PR of Gaussian data with spectrum {lam.tolist()} (n=4000)",
                          pr_true, vals.mean(), vals.std(ddof=1) / math.sqrt(reps), reps, bias=2 * 5 / 4000,
                          bias_source="O(p/n) sampling bias of the eigenvalues, 2p/n"))
    return out


CHECKS = (Check("measures", ("measure.participation_ratio", "measure.ensd", "measure.cka"), "numeric", _checks,
                "CKA vs HSIC, the seed's ENSD example exactly and on samples, PR with a known spectrum."),)
