"""Evidence for the measure family (seed 000, App. G): CKA against the HSIC formulation in exact arithmetic,
the seed's ENSD example on exact data (a Hadamard design and random orthonormal designs), PR of data with a
prescribed sample spectrum, and (reported only) the finite-n behaviour of PR on sampled Gaussian data.
"""
from __future__ import annotations

import math

import numpy as np

import theorylab
from theorylab.authoring import Check, Context, Evidence, Finding, compare

from theorylab.derivations.measure import _cka_reference

EPS = float(np.finfo(float).eps)


def _orthonormal_centered(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, float]:
    """k centered, orthonormal columns of length n (QR of centered Gaussian data) and their orthogonality
    defect delta = ||Q^T Q - I||_2 (measured: the data are exact only to it)."""
    Z = rng.normal(size=(n, k))
    Z -= Z.mean(axis=0)
    Q = np.linalg.qr(Z)[0]
    Q -= Q.mean(axis=0)  # re-center (QR of centered columns is centered up to rounding)
    return Q, float(np.linalg.norm(Q.T @ Q - np.eye(k), 2))


def _checks(ctx: Context) -> list[Evidence]:
    rng = np.random.default_rng(ctx.seed)
    pr, ensd, cka = (theorylab.get(f"measure.{k}") for k in ("participation_ratio", "ensd", "cka"))
    out = []
    n, p, q = 40, 6, 4
    X, Y = rng.normal(size=(n, p)), rng.normal(size=(n, q))
    Y[:, 0] += X[:, 0]
    # the entry's float64 rounding, absolute (CKA in [0, 1]): cross products 2n (pq)^(1/4) eps, Gram norms
    # 8n max(p, q) eps, scaling and quotient 32 eps (Higham ch. 3; the same bound as the derivation's step)
    tol = (2 * n * (p * q) ** 0.25 + 8 * n * max(p, q) + 32) * EPS
    out.append(compare("measure.cka", "linear CKA vs HSIC(K, L)/sqrt(HSIC(K, K) HSIC(L, L)) in exact rational "
                       f"arithmetic (n={n}, p={p}, q={q})", "numeric", _cka_reference(X, Y), cka(X=X, Y=Y), atol=tol,
                       source="float64 rounding bound of the entry: (2n (pq)^(1/4) + 8n max(p, q) + 32) eps"))
    # the seed's example with exactly uncorrelated, equal-variance units: a Hadamard design (entries +-1); the
    # centering, the scaling (by a power of 2) and every product and sum are exact integers below 2^53
    N = 16
    H = np.array([[1.0]])
    while H.shape[0] < N:
        H = np.block([[H, H], [H, -H]])
    X10 = H[:, 1:11]  # 10 centered, mutually orthogonal columns of equal norm
    exact = "exact: +-1 data, every intermediate an integer below 2^53 and the quotient exactly representable"
    out.append(compare("measure.ensd", "seed App. G example: X = 10 uncorrelated units of equal variance, Y = 5 of them -> "
                       "ENSD = 5 (Hadamard design; unequal variances: erratum 000-G-ensd-example)", "numeric", 5.0,
                       ensd(X=X10, Y=X10[:, :5]), source=exact))
    out.append(compare("measure.ensd", "seed App. G example: Y = 5 units uncorrelated with X -> ENSD = 0 (Hadamard)",
                       "numeric", 0.0, ensd(X=X10, Y=H[:, 11:16]), source=exact))
    # the same on random designs of n = 2000 samples: orthonormal centered columns, exact to their defect delta
    big = 2000
    Q, delta = _orthonormal_centered(rng, big, 15)
    rounding = (4 * 2 * big * 10 + 16) * EPS  # the entries' float64 rounding, (4np + 16) eps
    out.append(compare("measure.ensd", f"seed App. G example on a random orthonormal design (n={big}): 10 units of "
                       "equal variance, Y = 5 of them -> ENSD = 5", "numeric", 5.0, ensd(X=Q[:, :10], Y=Q[:, :5]),
                       rtol=rounding + 8 * delta + 8 * delta**2,
                       source=f"(4np + 16) eps float64 rounding + 8 delta + 8 delta^2: with Q^T Q = I + E, ||E|| = "
                              f"delta = {delta:.1e}, tr(X^TX), tr(Y^TY) move by <= delta relative and tr((X^TX)^2), "
                              "tr((Y^TY)^2), ||X^TY||_F^2 by <= 2 delta + delta^2"))
    out.append(compare("measure.ensd", f"seed App. G example on a random orthonormal design (n={big}): Y = 5 units "
                       "orthogonal to X -> ENSD = 0", "numeric", 0.0, ensd(X=Q[:, :10], Y=Q[:, 10:15]),
                       atol=1.1 * 50 * (delta + big * EPS) ** 2,
                       source="||X^T Y||_F^2 <= p q (delta + n eps)^2 (each entry of X^T Y is an off-diagonal entry of "
                              "Q^T Q, plus the float64 rounding n eps of the dot product), p q = 50, times the other "
                              "factors tr(X^TX) tr(Y^TY)/(tr((X^TX)^2) tr((Y^TY)^2)) = 1 + O(delta) <= 1.1"))
    # PR with a prescribed sample spectrum: X = Q diag(sqrt(lambda)) has C_X eigenvalues lambda / n exactly
    lam = np.array([4.0, 2.0, 1.0, 1.0, 0.5])
    pr_true = lam.sum() ** 2 / (lam**2).sum()
    Q5, d5 = _orthonormal_centered(rng, 4000, 5)
    rounding = (4 * 4000 * 5 + 8) * EPS
    out.append(compare("measure.participation_ratio", f"PR of data with sample covariance spectrum {lam.tolist()} "
                       "(n=4000, orthonormal design)", "numeric", pr_true, pr(X=Q5 * np.sqrt(lam)),
                       rtol=rounding + 4 * d5,
                       source=f"(4np + 8) eps float64 rounding + 4 delta (the eigenvalues of Q^T Q within delta = "
                              f"{d5:.1e} of 1 move tr C and tr C^2 by <= 2 delta relative each)"))
    # sampled Gaussian data: the population PR is approached as n grows; the finite-n bias is not computed here
    reps = ctx.pick(quick=50, paper=400)
    vals = np.array([pr(X=rng.normal(size=(4000, 5)) * np.sqrt(lam)) for _ in range(reps)])
    se = vals.std(ddof=1) / math.sqrt(reps)
    out.append(Finding(entry="measure.participation_ratio", check="PR of sampled Gaussian data (n=4000)",
                       kind="monte-carlo",
                       text=f"mean PR over {reps} Gaussian datasets with population spectrum {lam.tolist()}: "
                            f"{vals.mean():.5f} +- {se:.5f} (1 SE) vs the population PR {pr_true:.5f}; the difference "
                            "is the finite-n bias of the sample spectrum (order p/n), reported, not asserted",
                       values={"mean": float(vals.mean()), "stderr": float(se), "population": float(pr_true),
                               "reps": reps}))
    return out


CHECKS = (Check(name="measures", entries=("measure.participation_ratio", "measure.ensd", "measure.cka"),
                kind="numeric", run=_checks,
                doc="CKA vs HSIC (exact), the seed's ENSD example on exact designs, PR with a prescribed spectrum.",
                # the exact-arithmetic and designed parts are fixed; the sampled PR scales with its repetitions
                cost=lambda ctx: 50.0 + ctx.pick(quick=50, paper=400)),)
