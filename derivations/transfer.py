"""transfer: transferability in deep linear networks and the RKHS picture of ReLU networks (seed 002).

Entries for the scratch, linear-transfer, ridge and fine-tuning risks, the negative-transfer region, the
KL divergence, the ReLU Gaussian kernel and RKHS residual; derivations of Theorems 3.6-3.9 and App. B-C.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from theorylab.authoring import bisect
from theorylab.authoring import Amendment, Derivation, Erratum, Proportional, Step
from theorylab.authoring import Constraint, Entry, Source
from theorylab.authoring import DomainError, integer, matrix, scalar, vector

from .transfer_appendix_b import DERIVATIONS as APPENDIX_B_DERIVATIONS

SEED = "002_a6e10e5d8d1167fd.txt"

# -- parameters -------------------------------------------------------------------------------------
gamma_p = scalar("gamma", "gamma = n/d, samples per dimension", low=0, low_open=True, exclude=(1.0,),
                 exclude_why="the minimum-norm risk diverges at the interpolation threshold", tex="gamma",
                 strategy_fn=lambda dims: _gamma_strategy())
sigma_p = scalar("sigma", "label-noise standard deviation", low=0, high=1e3, tex="sigma")
theta_p = scalar("theta", "angle between beta_s and beta_t, radians", low=0, high=math.pi, tex="theta")
n_p = integer("n", "number of target samples", low=2, low_open=True, high=10**9, tex="n")
d_p = integer("d", "input dimension", low=1, high=10**9, tex="d")
n_any = integer("n", "number of samples", low=1, high=10**9, tex="n")
lam_p = scalar("lam", "ridge parameter lambda", low=0, high=1e12, tex="lambda")
depth_p = integer("depth", "number of layers L of the network (7)", low=2, high=10**6, default=2, tex="L")
u_p = scalar("u", "cosine between the unit weight vectors", low=-1, high=1, tex="u")
# bounds keep D_KL = dist_sq/(2 sigma^2) a normal float64 (<= 5e299): sigma^2 must not underflow
dist_p = scalar("dist_sq", "||f - g||^2 in L2(p)", low=0, high=1e100, tex="Delta")
sigma_pos = scalar("sigma", "label-noise standard deviation (> 0)", low=1e-100, high=1e100, tex="sigma")

g, s, th, n, d, lam, u, L = (p.symbol for p in (gamma_p, sigma_p, theta_p, n_p, d_p, lam_p, u_p, depth_p))


def _gamma_strategy():
    from hypothesis import strategies as st

    return st.one_of(st.floats(1e-6, 1 - 1e-6), st.floats(1 + 1e-6, 1e6)).filter(lambda x: x != 1.0)


# -- closed forms as the seed writes them -------------------------------------------------------------
SCRATCH = sp.Piecewise((((1 - g) ** 2 + g * s**2) / (1 - g), g < 1), (s**2 / (g - 1), True))  # eq (8)
SCRATCH_FINITE = sp.Piecewise((1 - n / d + s**2 * n / (d - n - 1), n < d - 1),              # from (92)
                              (s**2 * d / (n - d - 1), True))
SCRATCH_FINITE_STABLE = sp.Piecewise(((d - n) / d + s**2 * n / (d - n - 1), n < d - 1),
                                     (s**2 * d / (n - d - 1), True))
LINEAR_TRANSFER = sp.sin(th) ** 2 + (s**2 + sp.sin(th) ** 2) / (n - 2)                          # eq (10)
TRANSFERABILITY = SCRATCH - sp.sin(th) ** 2                                                      # eq (11)
T_LT_OVER = SCRATCH.args[0][0] - sp.sin(th) ** 2    # gamma < 1 branch of (11)
T_LT_UNDER = SCRATCH.args[1][0] - sp.sin(th) ** 2   # gamma > 1 branch
# gamma < 1: (1 - gamma) - sin^2 theta + gamma sigma^2/(1 - gamma) -- the seed's (1-gamma)^2/(1-gamma) cancelled
# by hand, so nothing ~1/(1-gamma) cancels; 1 - gamma is exact for gamma >= 1/2 (Sterbenz), and below 1/2 the
# equal cos^2 theta - gamma keeps theta ~ pi/2 accurate. The only cancellation left is the true zero of T_lt.
# gamma > 1: sigma^2/(gamma - 1) - sin^2 theta. Every branch is smooth, so torch gradients stay finite.
_NOISE_OVER = g * s**2 / (1 - g)
# Written in the order it is evaluated (hand-ordered: the kernels keep it and skip CSE): SymPy's own order,
# -gamma - sin^2 theta + 1, rounded sin^2 theta away against gamma ~ 1 (1e-9 relative where gamma -> 1-,
# theta -> pi-, sigma -> 0+ meet: the accuracy map's miss); (1 - gamma) first is exact, then - sin^2 theta.
_ONE_MINUS_G = sp.Add(1, -g, evaluate=False)
TRANSFERABILITY_STABLE = sp.Piecewise(
    (sp.Add(sp.cos(th) ** 2, -g, _NOISE_OVER, evaluate=False), g < sp.Rational(1, 2)),
    (sp.Add(sp.Add(_ONE_MINUS_G, -sp.sin(th) ** 2, evaluate=False), _NOISE_OVER, evaluate=False), g < 1),
    (s**2 / (g - 1) - sp.sin(th) ** 2, True))
RIDGE = 1 - (1 + 2 * lam) / (1 + lam) ** 2 * sp.cos(th) ** 2                                     # eq (13)
RIDGE_STABLE = sp.sin(th) ** 2 + sp.cos(th) ** 2 * lam**2 / (1 + lam) ** 2   # no cancellation at theta ~ 0
FT_SEED_OVER = SCRATCH.args[0][0] + (1 - g) * (1 - 2 * sp.cos(th))                               # eq (14), gamma <= 1
FT_SEED = sp.Piecewise((FT_SEED_OVER, g < 1), (SCRATCH.args[1][0], True))
TFT_SEED = sp.Piecewise(((g - 1) * (1 - 2 * sp.cos(th)), g <= 1), (0, True))                     # eq (15)
KL = sp.Symbol("Delta", nonnegative=True) / (2 * sigma_pos.symbol**2)                            # eq (31)
RELU_K = (sp.sqrt(1 - u**2) + u * (sp.pi - sp.acos(u))) / (2 * sp.pi)                           # eq (150)
INV_CHI2 = 1 / (n - 2)                                                                           # eq (117)
PINV_TRACE = sp.Piecewise((g / (1 - g), g < 1), (1 / (g - 1), True))                             # eqs (94)-(99)

# ReLU kernel near u = -1: sqrt(1-u^2) + u(pi - acos u) cancels to O((1+u)^(3/2)); with phi = acos(-u) it is
# sin(phi) - phi cos(phi), summed as its Taylor series for phi < 1 (terms to phi^23: remainder < 1e-19 relative),
# which removes the cancellation; phi itself is 2 asin(sqrt((1+u)/2)) for u < 0 (1 + u is exact there, where
# acos(-u) would lose digits near u = -1). A few ulps across [-1, 1] (the accuracy map; 7.5e-13 with the earlier
# switch at phi = 0.1).
_phi = sp.Symbol("phi", nonnegative=True)
_SERIES = sp.series(sp.sin(_phi) - _phi * sp.cos(_phi), _phi, 0, 25).removeO()
_PHI = sp.Piecewise((2 * sp.asin(sp.sqrt((1 + u) / 2)), u < 0), (sp.acos(-u), True))
RELU_K_SWITCHES = (-math.cos(1.0), 0.0)
RELU_K_STABLE = sp.Piecewise((_SERIES.subs(_phi, _PHI), u < -sp.cos(1)),
                             ((sp.sin(_phi) - _phi * sp.cos(_phi)).subs(_phi, _PHI), True)) / (2 * sp.pi)


def relu_kernel_np(u_arr):
    """The kernel (150) in float64 (vectorized), from the stable form."""
    return RELU_KERNEL.numpy(u_arr)


# -- fine-tuning: the depth-dependent scale c ----------------------------------------------------------
def finetune_scale(gamma, sigma, depth):
    """c > 0 solving c^(2L/(L-1)) = gamma + sigma^2 gamma/(1-gamma) + c^2 (1-gamma), gamma < 1 (vectorized).

    Balanced rank-one layers keep (I - P_row(X)) W1 fixed during fine-tuning and scale the rest of the
    product by ||beta||^((L-1)/L); in the high-dimensional limit the norms concentrate (see the derivation).
    c = 1 + finetune_scale_excess(...), which is computed without rounding c - 1."""
    return 1 + finetune_scale_excess(gamma, sigma, depth)


def finetune_scale_excess(gamma, sigma, depth):
    """c - 1 for the c of finetune_scale, by Newton's method on h in e = c - 1 (so e keeps its digits when it is far
    below 1: e ~ gamma sigma^2 / ((1-gamma)(2 gamma + delta)) for small sigma, 1e-70 at sigma = 1e-35).

    h(c) = c^2 (c^delta - a) - K, delta = e - 2 = 2/(L-1), a = 1 - gamma, K = gamma(1 + sigma^2/(1-gamma)). The root
    lies in [1, sqrt(K/gamma)]: h(1) = -gamma sigma^2/(1-gamma) <= 0, and at c0 = sqrt(K/gamma) >= 1,
    h(c0) >= c0^2 (1 - a) - K = 0; h is convex for c >= 1, so Newton from c0 descends monotonically. In e:
    h = (1+e)^2 expm1(delta log1p(e)) + gamma e (2 + e) - gamma sigma^2/(1-gamma), every term without cancellation
    (the form c^e - a c^2 - K lost five digits at depth 1e6, gamma 1e-6, and all of c - 1 at sigma = 1e-35)."""
    gamma, sigma, depth = np.broadcast_arrays(np.asarray(gamma, float), np.asarray(sigma, float),
                                              np.asarray(depth, float))
    delta = 2 / (depth - 1)  # formed directly: 2L/(L-1) - 2 loses it to rounding at large L
    r = sigma**2 / (1 - gamma)
    noise = gamma * r
    e = r / (np.sqrt(1 + r) + 1)  # sqrt(K/gamma) - 1 = sqrt(1 + r) - 1, without cancellation
    for _ in range(200):
        cd = np.expm1(delta * np.log1p(e))
        h = (1 + e) ** 2 * cd + gamma * e * (2 + e) - noise
        dh = (1 + e) * (2 * (cd + gamma) + delta * (1 + cd))
        step = np.where(dh > 0, h / np.where(dh > 0, dh, 1.0), 0.0)
        e = np.maximum(e - step, 0.0)
        if np.all(np.abs(step) <= 4e-16 * e):
            break
    return e


def _finetune_risk(gamma, theta, sigma, depth):
    gamma, theta, sigma, depth = np.broadcast_arrays(*(np.asarray(x, float) for x in (gamma, theta, sigma, depth)))
    sc = SCRATCH_ENTRY.numpy(gamma, sigma)
    under = gamma < 1
    # E R_sc + (1-g)(c^2 - 2c cos) = (1-g)((c - cos)^2 + sin^2) + sigma^2 g/(1-g): a sum of non-negative terms, with
    # c - cos theta = (c - 1) + 2 sin^2(theta/2) (exactly 0 at theta = 0, sigma = 0, where the risk is 0: the form
    # c - cos(theta) left 6.8e-33 there), and c - 1 solved for directly (theta = 1e-36, sigma = 1e-35)
    dc = _excess(gamma, sigma, depth, under) + 2 * np.sin(theta / 2) ** 2
    over = (1 - gamma) * (dc**2 + np.sin(theta) ** 2) + sigma**2 * gamma / np.where(under, 1 - gamma, 1.0)
    return np.where(under, over, sc)


def _scale(gamma, sigma, depth, under):
    """c of Theorem 3.9 where gamma < 1 (else 1): the root of c^(2L/(L-1)) = gamma + sigma^2 gamma/(1-gamma) +
    c^2 (1-gamma), which is exactly c = 1 without label noise (the solver's c there is 1 to rounding)."""
    return 1 + _excess(gamma, sigma, depth, under)


def _excess(gamma, sigma, depth, under):
    """c - 1 where gamma < 1 (else 0); exactly 0 without label noise."""
    return np.where(under, finetune_scale_excess(np.where(under, gamma, 0.5), sigma, depth), 0.0)


def _finetune_transferability(gamma, theta, sigma, depth):
    gamma, theta, sigma, depth = np.broadcast_arrays(*(np.asarray(x, float) for x in (gamma, theta, sigma, depth)))
    under = gamma < 1
    c = _scale(gamma, sigma, depth, under)
    return np.where(under, -(1 - gamma) * (c * c - 2 * c * np.cos(theta)), 0.0)


def _ft_excess_mp(gm, sg, dp):
    """c - 1 of Theorem 3.9's scale in mpmath (gamma < 1), returned with the working precision it needs.

    With E = 2L/(L-1), N = gamma sigma^2/(1-gamma) and F(e) = (1+e)^E - (1-gamma)(1+e)^2 - gamma (so F(0) = 0), c - 1
    is the root e of F(e) = N. F''(e) >= E(E-1) - 2(1-gamma) > 0 on e >= 0, so F(e) >= F'(0) e and the root lies in
    [0, N/F'(0)], F'(0) = E - 2(1-gamma) = 2/(L-1) + 2 gamma. F as written loses ~log10(1/e) digits (its O(1) terms
    cancel to O(e)), so it is evaluated at 40 digits beyond that (e = 1e-296 at gamma = 2.2e-308, sigma = 1e3,
    L = 1e6 needs ~340): bisection on e itself, bracket [0, N/F'(0)] (doubled should rounding leave F below N at its
    top), to 1e-45 relative; the precision starts from the bracket's top (within 3% of the root below e = 0.01) and
    is raised until it is at least 45 + log10(1/e). Independent of the kernel's float64 Newton on
    c^2 (expm1(delta log1p(e)) - a) - K."""
    with mpmath.workdps(30):
        N = mpmath.mpf(gm) * mpmath.mpf(sg) ** 2 / (1 - mpmath.mpf(gm))
        if N == 0:
            return mpmath.mpf(0), 40
        need = 50 + max(0, int(mpmath.ceil(-mpmath.log10(N / (mpmath.mpf(2) / (dp - 1) + 2 * mpmath.mpf(gm))))))
    dps = 0
    while dps < need:
        dps = need
        with mpmath.workdps(dps):
            g_, s_ = mpmath.mpf(gm), mpmath.mpf(sg)
            E = mpmath.mpf(2 * dp) / (dp - 1)
            N = g_ * s_**2 / (1 - g_)

            def F(e):
                c = 1 + e
                return c**E - (1 - g_) * c**2 - g_

            lo, hi = mpmath.mpf(0), N / (mpmath.mpf(2) / (dp - 1) + 2 * g_)
            while F(hi) < N:
                lo, hi = hi, 2 * hi
            lo, hi = bisect(lambda e: F(e) < N, lo, hi, None, rtol=mpmath.mpf(10) ** -45)
            e = (lo + hi) / 2
            need = 45 + max(0, int(mpmath.ceil(-mpmath.log10(e))))
    return e, dps


def _ft_reference(gamma, theta, sigma, depth, transferability=False):
    def one(gm, tt, sg, dp):
        if gm > 1:
            with mpmath.workdps(40):
                return 0.0 if transferability else float(mpmath.mpf(sg) ** 2 / (mpmath.mpf(gm) - 1))
        # c - 1 ~ gamma sigma^2 (tiny at sigma = 1e-35 or gamma = 2.2e-308): solved for directly, at 40 digits
        # beyond it (at a fixed 40 digits c - 1 = 1e-296 came out as 5.7e-36, the risk as 3.3e-71 against 2.2e-302)
        ex, dps = _ft_excess_mp(gm, sg, dp)
        with mpmath.workdps(dps):
            gm, tt, sg = mpmath.mpf(gm), mpmath.mpf(tt), mpmath.mpf(sg)
            c = 1 + ex
            if transferability:
                return float(-(1 - gm) * (c**2 - 2 * c * mpmath.cos(tt)))
            # E R_sc + (1-g)(c^2 - 2c cos) = (1-g)((c - cos)^2 + sin^2) + sigma^2 g/(1-g), with c - cos theta =
            # (c - 1) + 2 sin^2(theta/2): the sum 1 + c^2 - 2c cos theta cancels completely at 40 digits for
            # theta ~ 1e-60 (it gave 0 where the risk is 1e-120) and loses digits for c - 1 ~ sigma^2 ~ 1e-30
            gap = ex + 2 * mpmath.sin(tt / 2) ** 2
            return float((1 - gm) * (gap**2 + mpmath.sin(tt) ** 2) + gm * sg**2 / (1 - gm))

    arrs = np.broadcast_arrays(*(np.asarray(x, float) for x in (gamma, theta, sigma, depth)))
    out = np.array([one(*vals) for vals in zip(*(a.ravel() for a in arrs))]).reshape(arrs[0].shape)
    return float(out) if out.ndim == 0 else out


def _ft_risk_reference(gamma, theta, sigma, depth):
    """The scale c = 1 + e by bisection on e of (1+e)^(2L/(L-1)) - (1-gamma)(1+e)^2 - gamma = gamma sigma^2/(1-gamma)
    at 40 digits beyond e (mpmath, `_ft_excess_mp`), not Newton in float64; then E R_sc + (1-gamma)(c^2 - 2c cos
    theta), summed without cancellation (sigma^2/(gamma-1) for gamma > 1)."""
    return _ft_reference(gamma, theta, sigma, depth)


def _ft_transferability_reference(gamma, theta, sigma, depth):
    """The scale c = 1 + e by bisection on e at 40 digits beyond e (mpmath, `_ft_excess_mp`); T_ft = -(1-gamma)(c^2
    - 2c cos theta), 0 for gamma > 1."""
    return _ft_reference(gamma, theta, sigma, depth, True)


# -- negative transfer region ---------------------------------------------------------------------------
def _negative_region(theta, sigma):
    """gamma interval below 1 where T_lt < 0 and the gamma above which T_lt < 0 (text after eq 11)."""
    c = abs(math.cos(theta))
    s2 = math.sin(theta) ** 2
    # cos^2 from sin^2 where sin is small (theta near 0 or pi): |cos| rounds to 1 there and the interval's lower end
    # cos^2 theta = 1 - sin^2 theta would collapse onto its upper end 1 (theta = pi - 1e-8 gave no interval)
    c2 = 1 - s2 if s2 < 0.5 else c * c
    B = 1 + c2 - sigma**2
    # B^2 - 4 cos^2 = ((1+c)^2 - sigma^2)((1-c)^2 - sigma^2) with 1 - c = sin^2/(1 + c): the direct form cancels
    # completely near theta = 0 (it equals sin^4 theta at sigma = 0)
    one_minus_c = s2 / (1 + c)
    disc = ((1 + c) ** 2 - sigma**2) * (one_minus_c - sigma) * (one_minus_c + sigma)
    over = None
    if B > 0 and disc > 0:
        root = math.sqrt(disc)
        hi = (B + root) / 2
        lo = 2 * c2 / (B + root)  # = (B - root)/2 without cancellation
        hi = min(hi, 1.0)
        if lo < hi:
            over = [lo, hi]
    under = None if s2 == 0 else 1 + sigma**2 / s2
    return {"overparameterized": over, "underparameterized_from": under}


def _boundary_representable(values):
    th_, sg = values["theta"], values["sigma"]
    s2 = math.sin(th_) ** 2
    if sg > 0 and s2 > 0 and (s2 < 1e-300 or sg * sg / s2 > 1e300):
        return (f"theta must keep the boundary 1 + sigma^2/sin^2(theta) within float64 (sin^2(theta) >= sigma^2 "
                f"* 1e-300); got theta={th_!r} with sigma={sg!r}")
    return None


def _negative_region_reference(theta, sigma):
    """The sign changes of (11) itself, T_lt = ((1-gamma)^2 + gamma sigma^2)/(1-gamma) - sin^2 theta, found by
    bisection at 60+ digits (not the quadratic formula). On (0, 1), in e = 1 - gamma (so roots near gamma = 1 keep
    their digits), T_lt = e + sigma^2/e - sigma^2 - sin^2 theta is convex with its minimum at e = sigma,
    T_lt(e = 1) = cos^2 theta >= 0 and T_lt -> +oo as e -> 0 (sigma > 0); on (1, oo) T_lt decreases."""
    with mpmath.workdps(60 + (int(-math.log10(sigma)) if 0 < sigma < 1 else 0)):
        tt, sg = mpmath.mpf(theta), mpmath.mpf(sigma)
        s2 = mpmath.sin(tt) ** 2

        def T_over(e):   # gamma = 1 - e in (0, 1)
            return ((e * e + (1 - e) * sg**2) / e) - s2

        def T_under(gm):
            return sg**2 / (gm - 1) - s2

        def root(T, lo, hi, rising):   # T(lo), T(hi) of opposite signs; 260 halvings
            lo, hi = bisect(lambda x: (T(x) < 0) == rising, lo, hi, 260)
            return (lo + hi) / 2

        over = None
        if sg == 0:   # T_lt = e - sin^2 theta: negative for e below sin^2 theta, i.e. gamma in (cos^2 theta, 1)
            if s2 > 0:
                over = [float(1 - root(T_over, mpmath.mpf(0), mpmath.mpf(1), rising=True)), 1.0]
        elif sg < 1 and T_over(sg) < 0:
            e_lo_gamma = root(T_over, sg, mpmath.mpf(1), rising=True)    # e at the smaller gamma
            e_hi_gamma = root(T_over, mpmath.mpf(0), sg, rising=False)   # e at the larger gamma
            over = [float(1 - e_lo_gamma), float(1 - e_hi_gamma)]
        if over is not None and not over[0] < over[1]:   # non-empty, but no float64 lies inside (the entry: null)
            over = None
        under = None
        if float(s2) != 0:
            if sg == 0:
                under = 1.0
            else:
                top = mpmath.mpf(2)
                while T_under(top) >= 0:
                    top *= 2
                bottom = mpmath.mpf(1) + sg**2 / 4 ** 10   # T_under > 0 there (sin^2 <= 1)
                under = float(root(T_under, bottom, top, rising=False))
        return {"overparameterized": over, "underparameterized_from": under}


# -- RKHS residual ---------------------------------------------------------------------------------------
def _unit_rows(M, name):
    # scaled norms: np.linalg.norm squares its entries, which underflows for rows of norm ~1e-160
    big = np.max(np.abs(M), axis=1)
    safe = np.where(big > 0, big, 1.0)
    norms = big * np.sqrt(np.sum((M / safe[:, None]) ** 2, axis=1))
    if np.any(norms == 0):
        raise DomainError(f"{name} must have no zero row (rows are normalized to the sphere); got a zero row "
                          f"at index {int(np.argmin(norms))}")
    return M / norms[:, None]


def _grams(W, W_star, kernel):
    Wn, Sn = _unit_rows(W, "W"), _unit_rows(W_star, "W_star")
    clip = lambda x: np.clip(x, -1.0, 1.0)  # noqa: E731  rounding can leave |cos| a hair above 1
    return kernel(clip(Wn @ Wn.T)), kernel(clip(Wn @ Sn.T)), kernel(clip(Sn @ Sn.T))


def _rkhs_residual(W, W_star, c_star):
    """||P_perp f*||^2 = ||f*||^2 - b^T G^+ b (eqs 155-156), G = k(W W^T), b = k(W W*^T) c*/m*.

    Computed as the squared residual of a least-squares problem in the Cholesky/eigen basis of the joint
    Gram matrix, which is the orthogonal projection also when G is singular (pseudo-inverse).

    The rows of W and W_star are normalized to the unit sphere first (`_unit_rows`), so the result is that of the
    directions W/||W||, W*/||W*||: the paper constrains the hidden features to the unit sphere ("We constrain the
    hidden features in the model, source, and target to the d-dimensional unit sphere w_i, w_i^* in S^{d-1}",
    Sec. 4), and (150)'s kernel of u_ij is the overlap (149) only there (for general weights (149) is
    ||w_i|| ||w_j|| times (150): 1.0 against 0.5 at w_i = 2 e_1, w_j = e_1).
    """
    if W_star.shape[1] != W.shape[1]:
        raise DomainError(f"W_star must have d = {W.shape[1]} columns like W; got W_star of shape {W_star.shape}")
    if c_star.shape[0] != W_star.shape[0]:
        raise DomainError(f"c_star must have length m* = {W_star.shape[0]} (the rows of W_star); "
                          f"got length {c_star.shape[0]}")
    G, Gt, Gs = _grams(W, W_star, RELU_KERNEL.numpy)
    m_star = W_star.shape[0]
    b = Gt @ c_star / m_star
    f2 = c_star @ Gs @ c_star / m_star**2
    evals, evecs = np.linalg.eigh(G)
    keep = evals > evals.max() * G.shape[0] * np.finfo(float).eps
    proj = (evecs[:, keep].T @ b) ** 2 / evals[keep]
    return float(max(f2 - proj.sum(), 0.0))


def _rkhs_reference(W, W_star, c_star):
    """||f*||^2 - b^T G^+ b with the Gram matrices from the arc-cosine formula at 50 digits and the projection
    from mpmath's 50-digit symmetric eigen-decomposition (eighe), rows normalized in mpmath."""
    with mpmath.workdps(50):
        def unit(M):
            return [[mpmath.mpf(x) / mpmath.sqrt(sum(mpmath.mpf(y) ** 2 for y in row)) for x in row] for row in M]

        def k(a, b):
            uu = sum(x * y for x, y in zip(a, b))
            uu = max(min(uu, 1), -1)
            return (mpmath.sqrt(1 - uu**2) + uu * (mpmath.pi - mpmath.acos(uu))) / (2 * mpmath.pi)

        Wn, Sn = unit(W.tolist()), unit(W_star.tolist())
        cs = [mpmath.mpf(c) for c in c_star]
        ms = len(Sn)
        G = mpmath.matrix([[k(a, b) for b in Wn] for a in Wn])
        bvec = mpmath.matrix([sum(k(a, sb) * c for sb, c in zip(Sn, cs)) / ms for a in Wn])
        f2 = sum(cs[i] * cs[j] * k(Sn[i], Sn[j]) for i in range(ms) for j in range(ms)) / ms**2
        E, Q = mpmath.eighe(G)
        top = max(E)
        proj = mpmath.mpf(0)
        for i in range(len(E)):
            if E[i] > top * len(E) * mpmath.mpf(2) ** -52:
                comp = sum(Q[r, i] * bvec[r] for r in range(len(E)))
                proj += comp**2 / E[i]
        return float(max(f2 - proj, 0))


def _rkhs_strategy():
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    @st.composite
    def draw(dr):
        dd = dr(st.integers(2, 4))
        m = dr(st.integers(1, 3))
        ms = dr(st.integers(1, 3))
        el = st.floats(-1, 1, allow_subnormal=False)
        W = dr(hnp.arrays(np.float64, (m, dd), elements=el))
        Ws = dr(hnp.arrays(np.float64, (ms, dd), elements=el))
        c = dr(hnp.arrays(np.float64, (ms,), elements=st.floats(-3, 3, allow_subnormal=False)))
        return {"W": W, "W_star": Ws, "c_star": c}

    def well_posed(v):
        # the error bound cond(G) * (||f*||^2 / residual) * eps stays below 1e-9 on these draws
        try:
            G, Gt, Gs = _grams(v["W"], v["W_star"], lambda x: np.asarray(RELU_KERNEL.numpy(x)))
        except DomainError:
            return False
        f2 = v["c_star"] @ Gs @ v["c_star"] / len(v["c_star"]) ** 2
        if f2 < 1e-6:
            return False
        r = _rkhs_residual(v["W"], v["W_star"], v["c_star"])
        return np.linalg.cond(G) < 1e4 and r > 1e-2 * f2

    return draw().filter(well_posed)


# -- independent references (none reuses a kernel's SymPy expression) ------------------------------------
def _elementwise(fn):
    """Apply a scalar mpmath routine over broadcast arguments; a float for scalar input."""
    import functools

    @functools.wraps(fn)
    def wrapped(*args, **kw):
        names = list(kw)
        arrs = np.broadcast_arrays(*(np.asarray(a, float) for a in args), *(np.asarray(kw[k], float) for k in names))
        k = len(args)
        out = np.array([float(fn(*v[:k], **dict(zip(names, v[k:])))) for v in zip(*(a.ravel() for a in arrs))])
        out = out.reshape(arrs[0].shape)
        return float(out) if out.ndim == 0 else out
    return wrapped


def _inv_chi2_quad(k):
    """E[1/X], X ~ chi^2_k (k > 2), by quadrature of the chi-square density: with t = k e^v (dt/t = dv),
    int (1/t) p_k(t) dt = int p_k(k e^v) dv, peaked near v = 0 with width sqrt(2/k); 40 digits."""
    with mpmath.workdps(40):
        k = mpmath.mpf(int(k))
        logc = -(k / 2) * mpmath.log(2) - mpmath.loggamma(k / 2)
        lk = mpmath.log(k)

        def f(v):
            return mpmath.exp(logc + (k / 2 - 1) * (lk + v) - k * mpmath.exp(v) / 2)   # p_k(t), t = k e^v

        # finite limits where the integrand is below e^-1000 of its peak (quadrature nodes near +-oo would ask
        # mpmath for exp(-1e100), which it computes at great cost): log-density ~ -(k/4) v^2 near 0, ~ (k/2) v
        # as v -> -oo, ~ -k e^v/2 as v -> oo
        w = mpmath.sqrt(2 / k)
        lo, hi = -max(4000 / k, 60 * w), mpmath.log(1 + 60 * w + 4000 / k)
        pts = sorted({lo, hi, *(j * w for j in (-20, -6, -2, 0, 2, 6, 20) if lo < j * w < hi)})
        return mpmath.quad(f, pts)


def _mp_inverse_moment(ratio):
    """int x^-1 dMP_ratio(x) (Marchenko-Pastur law, ratio < 1, unit variance), by quadrature of its density
    sqrt((l+ - x)(x - l-))/(2 pi ratio x) in the angle x = 1 + ratio + 2 sqrt(ratio) cos(phi): (2/pi) int sin^2/x^2."""
    with mpmath.workdps(40):
        r = mpmath.mpf(ratio)
        sr = mpmath.sqrt(r)

        def f(phi):
            x = (1 - sr) ** 2 + 2 * sr * (1 + mpmath.cos(phi))   # = 1 + r + 2 sqrt(r) cos(phi), no cancellation
            return mpmath.sin(phi) ** 2 / x**2

        # near phi = pi the integrand peaks on a scale w = (1 - sqrt(r))/r^(1/4): split there
        w = (1 - sr) / mpmath.sqrt(sr)
        cuts = sorted({mpmath.pi - min(c * w, mpmath.pi) for c in (1000, 100, 10, 1, mpmath.mpf(1) / 10)} | {0, mpmath.pi})
        return 2 / mpmath.pi * mpmath.quad(f, cuts)


@_elementwise
def _pinv_trace_reference(gamma):
    """lim E tr((X^+)^T X^+): gamma int x^-1 dMP_gamma for gamma < 1 (tr (XX^T)^-1 = (n/d)(1/n) tr C^-1),
    (1/gamma) int x^-1 dMP_(1/gamma) for gamma > 1 (tr (X^T X)^-1); Marchenko-Pastur density by quadrature."""
    with mpmath.workdps(40):   # 1/gamma rounded to 53 bits would cost 1e-16/(1 - sqrt(1/gamma)) near gamma = 1
        if gamma < 1:
            return mpmath.mpf(gamma) * _mp_inverse_moment(gamma)
        return _mp_inverse_moment(1 / mpmath.mpf(gamma)) / gamma


def _scratch_mp(gamma, sigma):
    """E R_sc = 1 - E||P beta||^2 + sigma^2 E tr(X^+T X^+): bias 1 - min(gamma, 1) (a rank-min(n, d) projector,
    uniformly rotated) and the variance from the Marchenko-Pastur integral."""
    with mpmath.workdps(40):
        bias = 1 - mpmath.mpf(gamma) if gamma < 1 else mpmath.mpf(0)
        return bias + mpmath.mpf(sigma) ** 2 * _pinv_trace_reference.__wrapped__(gamma)


_scratch_reference = _elementwise(_scratch_mp)
_scratch_reference.__doc__ = _scratch_mp.__doc__


@_elementwise
def _scratch_finite_reference(n, d, sigma):
    """Finite n, d: 1 - n/d + sigma^2 n E[1/chi^2_(d-n+1)] for n < d-1, sigma^2 d E[1/chi^2_(n-d+1)] for n > d+1
    (diagonal of an inverse Wishart matrix, Bartlett), E 1/chi^2 by quadrature of the chi-square density."""
    n, d = int(n), int(d)
    with mpmath.workdps(40):
        if n < d:
            return mpmath.mpf(d - n) / d + mpmath.mpf(sigma) ** 2 * n * _inv_chi2_quad(d - n + 1)
        return mpmath.mpf(sigma) ** 2 * d * _inv_chi2_quad(n - d + 1)


@_elementwise
def _inv_chi2_reference(n):
    """E 1/||z||^2, z ~ N(0, I_n): quadrature of 1/t against the chi-square density with n degrees of freedom."""
    return _inv_chi2_quad(int(n))


@_elementwise
def _linear_transfer_reference(n, theta, sigma):
    """E R_lt = E ||b beta_s - beta_t||^2 = E (b - cos)^2 + sin^2, b - cos = z.(sin w + eps)/||z||^2 (z, w, eps
    Gaussian): (sin^2 + sigma^2) E 1/||z||^2 + sin^2, the chi-square expectation by quadrature."""
    with mpmath.workdps(40):
        s2 = mpmath.sin(mpmath.mpf(theta)) ** 2
        return s2 + (s2 + mpmath.mpf(sigma) ** 2) * _inv_chi2_quad(int(n))


@_elementwise
def _transferability_reference(gamma, theta, sigma):
    """T_lt = E R_sc - lim_n E R_lt: the scratch risk by the Marchenko-Pastur integral minus sin^2 theta."""
    with mpmath.workdps(40):
        return _scratch_mp(gamma, sigma) - mpmath.sin(mpmath.mpf(theta)) ** 2


@_elementwise
def _ridge_reference(theta, lam):
    """n -> oo ridge transfer: b = argmin_b E (y - b z)^2 + lam b^2 (E z^2 = 1, E z y = cos theta) found by
    mpmath.findroot on the numerical derivative, then the risk ||b beta_s - beta_t||^2 = (b - cos)^2 + sin^2.
    Precision grows with -log10(lam), -log10(theta) so (b - cos)^2 keeps its digits."""
    digits = 40 + int(max(0.0, -math.log10(lam) if lam > 0 else 0.0, -math.log10(theta) if theta > 0 else 0.0))
    with mpmath.workdps(digits):
        cs = mpmath.cos(mpmath.mpf(theta))
        lm = mpmath.mpf(lam)

        def objective(b):
            return 1 - 2 * b * cs + b * b + lm * b * b   # E y^2 = 1 + sigma^2 up to a constant

        b = mpmath.findroot(lambda b: mpmath.diff(objective, b), cs)
        return (b - cs) ** 2 + mpmath.sin(mpmath.mpf(theta)) ** 2


def _kl_quad(dist_sq, sigma):
    """D_KL(N(f, s^2) || N(g, s^2)) = int p_f log(p_f/p_g), (f - g)^2 = dist_sq, by Gauss-Hermite quadrature in
    t = (y - f)/s: int phi(t) [log phi(t) - log phi(t + delta)] dt, delta = sqrt(dist_sq)/sigma, the log-densities
    evaluated at each node in mpmath (digits grow with -log10 delta: the two logs agree to ~delta^2). 40 nodes,
    paired +-t: exact for integrands polynomial in t up to degree 79 (a Gaussian log-ratio is one)."""
    if dist_sq == 0:
        return mpmath.mpf(0)
    log10_delta = 0.5 * math.log10(dist_sq) - math.log10(sigma)
    digits = 40 + int(max(0.0, -2 * log10_delta))
    x, w = np.polynomial.hermite_e.hermegauss(40)   # weight e^(-t^2/2); symmetric nodes, no node at 0
    pos = x > 0
    with mpmath.workdps(digits):
        delta = mpmath.sqrt(mpmath.mpf(dist_sq)) / mpmath.mpf(sigma)

        def logphi(t):
            return -t * t / 2 - mpmath.log(2 * mpmath.pi) / 2

        def integrand(t):   # the log-ratio log p_f - log p_g at y = f + s t
            return logphi(t) - logphi(t + delta)

        total = mpmath.fsum(mpmath.mpf(float(wi)) * (integrand(mpmath.mpf(float(xi))) + integrand(-mpmath.mpf(float(xi))))
                            for xi, wi in zip(x[pos], w[pos]))
        return total / mpmath.fsum(mpmath.mpf(float(wi)) for wi in w)


_kl_reference = _elementwise(_kl_quad)


def _relu_kernel_quad(u):
    """E relu(w_i.x) relu(w_j.x), x ~ N(0, I_2), w_i.w_j = u: in polar coordinates the radial integral is
    int r^3 e^(-r^2/2) dr / (2 pi) = 1/pi and the angles where both fire form an arc of length beta = arccos(-u):
    (1/pi) int_0^beta sin(t) sin(beta - t) dt, by quadrature at 40 digits."""
    with mpmath.workdps(40):
        beta = mpmath.acos(-mpmath.mpf(u))
        if beta == 0:
            return mpmath.mpf(0)
        return mpmath.quad(lambda t: mpmath.sin(t) * mpmath.sin(beta - t), [0, beta]) / mpmath.pi


_relu_kernel_reference = _elementwise(_relu_kernel_quad)


# -- entries --------------------------------------------------------------------------------------------
SCRATCH_ENTRY = Entry(
    id="transfer.scratch_risk", title="Generalization error of scratch training (minimum-norm), high-dim limit",
    source=Source(SEED, "eq (8), Theorem 3.6"),
    doc=("E R_sc = ((1-gamma)^2 + gamma sigma^2)/(1-gamma) for gamma < 1 and sigma^2/(gamma-1) for gamma > 1 "
         "(the excess risk ||beta_hat - beta_t||^2 with ||beta_t|| = 1, x ~ N(0, I)). gamma = 1 is singular."),
    params=(gamma_p, sigma_p), lhs=r"\mathbb{E}\,\mathcal{R}_{sc}", formula=SCRATCH, reference=_scratch_reference,
    conditions=(r"\gamma \neq 1",))


def _finite_ok(values):
    nn, dd = np.asarray(values["n"]), np.asarray(values["d"])
    bad = ~((nn < dd - 1) | (nn > dd + 1))  # elementwise: the parameters broadcast
    if np.any(bad):
        i = np.unravel_index(np.argmax(bad), bad.shape) if bad.shape else ()
        nb, db = np.broadcast_arrays(nn, dd)
        return (f"n and d must satisfy n < d - 1 or n > d + 1 (the expected inverse-Wishart trace is infinite "
                f"otherwise); got n={nb[i]}, d={db[i]}")
    return None


entries_ = [
    SCRATCH_ENTRY,
    Entry(id="transfer.scratch_risk_finite", title="Exact scratch risk at finite n, d for Gaussian X",
          source=Source(SEED, "beyond the seed: eq (92) with E||P beta||^2 = n/d and inverse-Wishart moments"),
          doc=("E R_sc = 1 - n/d + sigma^2 n/(d-n-1) for n < d-1 (E tr (X X^T)^{-1} = n/(d-n-1)) and "
               "sigma^2 d/(n-d-1) for n > d+1; its n = gamma d, d -> oo limit is eq (8) (a checked step)."),
          params=(n_any, d_p, sigma_p), lhs=r"\mathbb{E}\,\mathcal{R}_{sc}(n, d)", formula=SCRATCH_FINITE,
          stable_form=SCRATCH_FINITE_STABLE, reference=_scratch_finite_reference,
          constraints=(Constraint(_finite_ok, "n < d - 1 or n > d + 1"),),
          conditions=(r"n < d-1 \text{ or } n > d+1",)),
    Entry(id="transfer.linear_transfer_risk", title="Generalization error of linear transfer (exact in n)",
          source=Source(SEED, "eq (10), Theorem 3.7"),
          doc="E R_lt = sin^2 theta + (sigma^2 + sin^2 theta)/(n - 2), for features sparsified to beta_s (Thm 3.4).",
          params=(n_p, theta_p, sigma_p), lhs=r"\mathbb{E}\,\mathcal{R}_{lt}", formula=LINEAR_TRANSFER,
          reference=_linear_transfer_reference),
    Entry(id="transfer.linear_transferability", title="Linear transferability T_lt = E R_sc - E R_lt (n -> oo)",
          source=Source(SEED, "eq (11)"),
          doc="T_lt = E R_sc - sin^2 theta in the high-dimensional limit (the 1/(n-2) term vanishes).",
          params=(gamma_p, theta_p, sigma_p), lhs=r"\mathcal{T}_{lt}", formula=TRANSFERABILITY,
          stable_form=TRANSFERABILITY_STABLE, reference=_transferability_reference,
          # the accuracy map's miss (9.9e-10 before the stable form kept (1 - gamma) first), pinned: tested every run
          examples=({"gamma": 0.9999999999, "theta": 3.1415926532756338, "sigma": 1e-30},),
          conditions=(r"\gamma \neq 1",)),
    Entry(id="transfer.ridge_transfer_risk", title="Ridge linear transfer risk as n -> oo",
          source=Source(SEED, "eq (13), Theorem 3.8"),
          doc=("lim_n E R_lt^lambda = 1 - (1+2 lambda)/(1+lambda)^2 cos^2 theta: increasing in lambda, strictly "
               "unless cos theta = 0 (the seed's 'strictly' fails at theta = pi/2; see the errata)."),
          params=(theta_p, lam_p), lhs=r"\lim_{n\to\infty}\mathbb{E}\,\mathcal{R}^{\lambda}_{lt}", formula=RIDGE,
          stable_form=RIDGE_STABLE, reference=_ridge_reference),
]

FT_DISPLAY = (r"\begin{cases} \mathbb{E}\mathcal{R}_{sc} + (1-\gamma)(c^2 - 2c\cos\theta) & \gamma < 1 \\ "
              r"\mathbb{E}\mathcal{R}_{sc} & \gamma > 1 \end{cases},\quad c^{2L/(L-1)} = \gamma + "
              r"\frac{\sigma^2\gamma}{1-\gamma} + c^2(1-\gamma)")
entries_ += [
    Entry(id="transfer.finetune_risk", title="Fine-tuning risk of an L-layer linear network (alpha -> 0, high-dim)",
          source=Source(SEED, "eq (14), Theorem 3.9 (corrected: depth-dependent scale c)"),
          doc=("The fine-tuned predictor is X^+ y + c (I - P_row(X)) beta_s, not the seed's (139) with c = 1: "
               "(I - P) W1 stays fixed but the readout product rescales by ||beta||^((L-1)/L). With sigma = 0, c = 1 "
               "and this equals the seed's (14); with label noise c > 1 and depends on the depth L."),
          params=(gamma_p, theta_p, sigma_p, depth_p), lhs=r"\mathbb{E}\,\mathcal{R}_{ft}", display=FT_DISPLAY,
          compute=_finetune_risk, reference=_ft_risk_reference,
          conditions=(r"\gamma \neq 1",),
          # an exact zero (theta = 0, sigma = 0): the kernel once returned 6.8e-33 there; depth 1e6 at gamma 1e-6,
          # where c^e - (1-gamma) c^2 cancelled to 2.6e-10 relative before expm1
          examples=({"gamma": 0.44784095904738147, "theta": 0.0, "sigma": 0.0, "depth": 21},
                    {"gamma": 1e-06, "theta": 0.0, "sigma": 1.0, "depth": 999998},
                    {"gamma": 0.125, "theta": 1e-36, "sigma": 1e-35, "depth": 6},
                    # c - 1 ~ 1e-296 (the joint neighbourhood gamma -> 0, sigma -> 1e3, L -> 1e6, #26): the risk is
                    # sigma^2 gamma = 2.2e-302; a reference at a fixed 40 digits saw only (c - 1)^2 ~ 3e-71
                    {"gamma": 2.2250738585072014e-308, "theta": 0.0, "sigma": 1000.0, "depth": 1000000})),
    Entry(id="transfer.finetune_transferability", title="Fine-tuning transferability T_ft = E R_sc - E R_ft",
          source=Source(SEED, "eq (15) (the seed's carries no sigma; corrected for sigma > 0 and depth)"),
          doc="T_ft = -(1-gamma)(c^2 - 2c cos theta) for gamma < 1 and 0 for gamma > 1; sigma = 0 gives (15).",
          params=(gamma_p, theta_p, scalar("sigma", "label-noise standard deviation", low=0, high=1e3, default=0.0,
                                           tex="sigma"), depth_p),
          lhs=r"\mathcal{T}_{ft}", display=r"-(1-\gamma)(c^2 - 2c\cos\theta)\ (\gamma<1),\quad 0\ (\gamma>1)",
          compute=_finetune_transferability,
          reference=_ft_transferability_reference,
          conditions=(r"\gamma \neq 1",)),
    Entry(id="transfer.negative_transfer_region", title="Where linear transfer is negative (T_lt < 0)",
          source=Source(SEED, "text after eq (11)"),
          doc=("overparameterized: (gamma_-, gamma_+) with gamma_pm = [B pm sqrt(B^2 - 4 cos^2 theta)]/2, "
               "B = 1 + cos^2 theta - sigma^2, non-empty iff |cos theta| < 1 - sigma (any theta in [0, pi]); "
               "underparameterized_from: 1 + sigma^2/sin^2 theta (null at sin theta = 0)."),
          params=(scalar("theta", "angle, radians", low=0, high=math.pi, tex="theta"),
                  scalar("sigma", "label-noise standard deviation", low=0, high=1e3, tex="sigma")),
          lhs=r"\{\gamma: \mathcal{T}_{lt} < 0\}",
          display=r"(\gamma_-, \gamma_+) \cup (1 + \sigma^2/\sin^2\theta, \infty)",
          compute=_negative_region, reference=_negative_region_reference,
          constraints=(Constraint(_boundary_representable, "1 + sigma^2/sin^2(theta) representable"),),
          value_doc='{"overparameterized": [gamma_minus, gamma_plus] or null, "underparameterized_from": gamma or null}',
          # theta a hair below pi, where |cos theta| rounds to 1: the interval (cos^2 theta, 1) was lost
          examples=({"theta": 3.141592643655205, "sigma": 0.0},)),
    Entry(id="transfer.kl_divergence", title="KL divergence of the label distributions of two regressions",
          source=Source(SEED, "eqs (28)-(31)"), doc="D_KL(p_f || p_g) = ||f - g||^2_{L2(p)} / (2 sigma^2).",
          params=(dist_p, sigma_pos), lhs=r"D_{KL}(p_f\|p_g)", formula=KL.subs(sp.Symbol("Delta", nonnegative=True),
                                                                                dist_p.symbol),
          reference=_kl_reference),
]
RELU_KERNEL = Entry(
    id="transfer.relu_kernel", title="ReLU Gaussian kernel (arc-cosine kernel of order 1)",
    source=Source(SEED, "eq (150)"),
    doc=("E_x[relu(w_i.x) relu(w_j.x)] = (sqrt(1-u^2) + u (pi - arccos u)) / (2 pi) for unit w_i, w_j, x ~ N(0, I). "
         "Evaluated as (sin phi - phi cos phi)/(2 pi), phi = arccos(-u), with its Taylor series for phi < 1 "
         "(the formula cancels to O((1+u)^(3/2)) near u = -1)."),
    params=(u_p,), lhs=r"k(u)", formula=RELU_K, stable_form=RELU_K_STABLE, reference=_relu_kernel_reference,
    switches={"u": RELU_K_SWITCHES},  # the Taylor branch (phi < 1) and the two routes to phi
    examples=({"u": -1.0}, {"u": -0.9999999}, {"u": -1 + 1e-12}, {"u": 1.0}, {"u": 0.0}))
entries_ += [
    RELU_KERNEL,
    Entry(id="transfer.rkhs_residual", title="Out-of-RKHS norm of a ReLU teacher, ||P_perp f*||^2",
          source=Source(SEED, "eqs (151)-(156)"),
          doc=("||f*||^2 - b^T K^+ b with K_jk = k(w_j.w_k), b_j = (1/m*) sum_i c*_i k(w_j.w*_i), rows of W and "
               "W_star normalized to the sphere; a singular K is handled by the pseudo-inverse (orthogonal projection)."),
          params=(matrix("W", "m", "d", "the model's first-layer weights"),
                  matrix("W_star", "m_star", "d", "the teacher's first-layer weights"),
                  vector("c_star", "m_star", "the teacher's readout weights")),
          lhs=r"\|P_\perp f_*\|^2_{L_2}",
          display=r"\frac{1}{m_*}c_*^T K_* c_* - \frac{1}{m_*} c_*^T \tilde K^T K^{+} \tilde K c_*",
          compute=_rkhs_residual, reference=_rkhs_reference, strategy_fn=_rkhs_strategy, rtol=1e-8,
          reference_rtol_note=("1e-8: a difference of two quadratic forms; with cond(K) < 1e4 and ||f*||^2/residual "
                               "< 1e2 (the strategy's draws) float64 error is below 1e4 * 1e2 * 1e-16 * m = 1e-9")),
    Entry(id="transfer.inverse_chi2_mean", title="E 1/||z||^2 for z ~ N(0, I_n)", source=Source(SEED, "eqs (113)-(117)"),
          doc="1/(n-2), n > 2 (the Gamma-function integral of (113)-(117)).", params=(n_p,),
          lhs=r"\mathbb{E}\,\|z\|^{-2}", formula=INV_CHI2, reference=_inv_chi2_reference),
    Entry(id="transfer.pinv_trace", title="lim E tr((X^+)^T X^+) for Gaussian X", source=Source(SEED, "eqs (94)-(99)"),
          doc="gamma/(1-gamma) for gamma < 1 and 1/(gamma-1) for gamma > 1 (X with i.i.d. N(0,1) entries).",
          params=(gamma_p,), lhs=r"\lim\mathbb{E}\,\mathrm{tr}((X^+)^TX^+)", formula=PINV_TRACE,
          reference=_pinv_trace_reference,
          conditions=(r"\gamma \neq 1",)),
]
ENTRIES = tuple(entries_)


# -- derivations ----------------------------------------------------------------------------------------
def _entry(entry_id):
    """The catalogue entry object (numeric sides call it, so a mutated entry is what gets checked)."""
    return next(e for e in ENTRIES if e.id == entry_id)


def _grid(**axes):
    """Points of a Cartesian grid, in the order given (simple values first)."""
    import itertools

    names = list(axes)
    return [dict(zip(names, vals)) for vals in itertools.product(*(axes[k] for k in names))]


# Theorem 3.6, (98)-(99): the Stieltjes transform of the Marchenko-Pastur law (ratio gamma < 1) at z near 0,
# on the branch continuous from z -> 0 along the real axis, at 60 digits
def _stieltjes_at(gamma, z):
    """g_C(z) = (z - (1 - gamma) - sqrt(z - lambda_+) sqrt(z - lambda_-)) / (2 gamma z), 60 digits"""
    with mpmath.workdps(60):
        gm, zz = mpmath.mpf(gamma), mpmath.mpf(z)
        lp, lm = (1 + mpmath.sqrt(gm)) ** 2, (1 - mpmath.sqrt(gm)) ** 2
        gz = (zz - (1 - gm) - mpmath.sqrt(zz - lp) * mpmath.sqrt(zz - lm)) / (2 * gm * zz)
        # z < lambda_- < lambda_+: both square roots are imaginary and their product is real (exactly: im = 0);
        # a complex value (another branch) is returned as is and cannot be compared
        return mpmath.re(gz) if mpmath.im(gz) == 0 else gz


def _minus_inv_one_minus(gamma, z):
    """-1/(1 - gamma) at 60 digits (a SymPy side would reach the comparison rounded to 53 bits)"""
    with mpmath.workdps(60):
        return -1 / (1 - mpmath.mpf(gamma))


def _p_row_norm(gamma):
    """||P_row(X) beta_t||^2 for one Gaussian X (d = 20, n = gamma d) and a unit beta_t: P_row = X^+ X"""
    dd = 20
    rng = np.random.default_rng(0)
    X = rng.standard_normal((int(round(gamma * dd)), dd))
    beta = rng.standard_normal(dd)
    beta /= np.linalg.norm(beta)
    return float(np.sum((np.linalg.pinv(X) @ X @ beta) ** 2))


r_, t_ = sp.symbols("r t", positive=True)
R_ = sp.Symbol("R", positive=True)
nn = sp.Symbol("n", integer=True, positive=True)
S_n = 2 * sp.pi ** (nn / 2) / sp.gamma(nn / 2)  # surface area of the unit sphere in R^n
# E 1/||z||^2 as the expectation of 1/t under the chi-square density with n degrees of freedom
m_b1_, m_b2_ = sp.Symbol("m_b1", real=True), sp.Symbol("m_b2", nonnegative=True)     # E b, E b^2 of (108)
INV_CHI2_EXPECTATION = sp.Integral(t_ ** (nn / 2 - 2) * sp.exp(-t_ / 2) / (2 ** (nn / 2) * sp.gamma(nn / 2)),
                                   (t_, 0, sp.oo))
l1_, dl_ = sp.symbols("lambda_1 delta", nonnegative=True)


# Theorem 3.9: the depth-dependent scale c read back from the entries' own output, and its defining equation
def _c_from_tft(gamma, theta, sigma, depth):
    """c recovered from the entry T_ft = -(1-gamma)(c^2 - 2c cos theta) (cos theta <= 0: no cancellation)"""
    q = -float(_entry("transfer.finetune_transferability")(gamma=gamma, theta=theta, sigma=sigma, depth=depth)) / (1 - gamma)
    cs = math.cos(theta)
    return q / (math.sqrt(cs * cs + q) - cs)  # the root c > 0 of c^2 - 2c cos - q = 0


def _c_from_ft(gamma, theta, sigma, depth):
    """c recovered from the entry E R_ft = E R_sc + (1-gamma)(c^2 - 2c cos theta) (cos theta <= 0)"""
    risk = float(_entry("transfer.finetune_risk")(gamma=gamma, theta=theta, sigma=sigma, depth=depth))
    q = (risk - ((1 - gamma) ** 2 + gamma * sigma**2) / (1 - gamma)) / (1 - gamma)
    cs = math.cos(theta)
    return q / (math.sqrt(cs * cs + q) - cs)


def _c_lhs(recover):
    def side(gamma, theta, sigma, depth):
        return recover(gamma, theta, sigma, depth) ** (2 * depth / (depth - 1))
    side.__doc__ = "c^(2L/(L-1)) with c read back from the entry's output"
    return side


def _c_rhs(recover):
    def side(gamma, theta, sigma, depth):
        c = recover(gamma, theta, sigma, depth)
        return gamma + sigma**2 * gamma / (1 - gamma) + c * c * (1 - gamma)
    side.__doc__ = "gamma + sigma^2 gamma/(1-gamma) + c^2 (1-gamma) with c read back from the entry's output"
    return side


# the search for the fine-tuning law: theta >= pi/2 (cos <= 0, so c is read back without cancellation),
# sigma > 0 (c > 1), several depths
_FT_POINTS = _grid(gamma=(0.5, 0.2, 0.8), theta=(math.pi / 2, 2.0, 3.0), sigma=(1.0, 0.5, 2.0), depth=(2, 3, 10))


def _ft_entry_risk(gamma, theta, sigma, depth):
    """the entry transfer.finetune_risk"""
    return _entry("transfer.finetune_risk")(gamma=gamma, theta=theta, sigma=sigma, depth=depth)


def _tft_entry(gamma, theta, sigma, depth):
    """the entry transfer.finetune_transferability"""
    return _entry("transfer.finetune_transferability")(gamma=gamma, theta=theta, sigma=sigma, depth=depth)


# negative transfer: the returned boundaries are sign changes of T_lt, evaluated at 50 digits from (11)
def _t_lt_mp(gamma, theta, sigma):
    with mpmath.workdps(50):
        gm, tt, sg = mpmath.mpf(gamma), mpmath.mpf(theta), mpmath.mpf(sigma)
        if gm < 1:
            return ((1 - gm) ** 2 + gm * sg**2) / (1 - gm) - mpmath.sin(tt) ** 2
        return sg**2 / (gm - 1) - mpmath.sin(tt) ** 2


_REL_SHIFT = 1e-12  # the boundary is located to 1e-12 relative: far above float64 rounding of the root (~1e-15)


def _sign_change(key, index):
    def side(theta, sigma):
        reg = _entry("transfer.negative_transfer_region")(theta=theta, sigma=sigma)
        x = reg[key] if index is None else reg[key][index]
        return _t_lt_mp(x * (1 - _REL_SHIFT), theta, sigma) * _t_lt_mp(x * (1 + _REL_SHIFT), theta, sigma)
    side.__doc__ = (f"T_lt(x(1 - 1e-12)) T_lt(x(1 + 1e-12)) at the entry's {key}"
                    + ("" if index is None else f"[{index}]") + " (a sign change there)")
    return side


def _t_lt_mid(theta, sigma):
    """T_lt at the midpoint of the entry's overparameterized interval"""
    lo, hi = _entry("transfer.negative_transfer_region")(theta=theta, sigma=sigma)["overparameterized"]
    return _t_lt_mp((lo + hi) / 2, theta, sigma)


_REGION_POINTS = _grid(theta=(1.2, 0.8, 1.5, 2.0, 2.5), sigma=(0.2, 0.05, 0.4))


# RKHS residual: the returned value against the defining least-squares problem
def _rkhs_points():
    rng = np.random.default_rng(1)
    pts = []
    for m, ms, dd in ((2, 2, 3), (3, 2, 4), (1, 3, 3), (4, 4, 5), (5, 2, 6)):
        pts.append({"W": rng.standard_normal((m, dd)), "W_star": rng.standard_normal((ms, dd)),
                    "c_star": rng.standard_normal(ms)})
    return pts


def _rkhs_entry(W, W_star, c_star):
    """the entry transfer.rkhs_residual"""
    return _entry("transfer.rkhs_residual")(W=W, W_star=W_star, c_star=c_star)


def _rkhs_lstsq(W, W_star, c_star):
    """min_a ||f* - sum_j a_j k(w_j, .)||^2 = ||f*||^2 - 2 a.b + a.G a at a = lstsq(G, b) (SVD), mpmath Grams
    (`_appc_lstsq`'s third value)"""
    return _appc_lstsq(W, W_star, c_star)[2]


gp_, gm_ = sp.symbols("gamma_+ gamma_-")
Bq = 1 + sp.cos(th) ** 2 - s**2
GAMMA_PM = [(Bq + sgn * sp.sqrt(Bq**2 - 4 * sp.cos(th) ** 2)) / 2 for sgn in (1, -1)]

y_, f_, gg_ = sp.symbols("y f g_x", real=True)
sig = sigma_pos.symbol

w1_, w2_ = sp.symbols("u_1 u_2", real=True)
# RKHS normalizations (151)-(156) with m = 2 model and m* = 2 teacher features (Gram entries as symbols)
Gs = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"G_{min(i, j)}{max(i, j)}", real=True))
Gt = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"H_{i}{j}", real=True))
cs_ = sp.Matrix(sp.symbols("c_1 c_2", real=True))
m_, ms_ = 2, 2
K_ = Gs / m_
Kt_ = Gt / sp.sqrt(m_ * ms_)
bvec_ = Gt * cs_ / ms_
# (155)-(156) in the print's own names at m = m* = 2 (notation_002 binds the printed K, K*, K~, c_*, m_* of those
# displays to these): the Gram matrices of (151)-(153) as symbols (K, K* symmetric), the widths m, m* as symbols (the
# identity (155) = b^T G^-1 b holds for every m, m*, so a slip 1/m for 1/m* shows)
Kc_ = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"K_{min(i, j)}{max(i, j)}", real=True))
Ktc_ = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"Kt_{i}{j}", real=True))
Ksc_ = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"Ks_{min(i, j)}{max(i, j)}", real=True))
mK_, msK_ = sp.Symbol("m", positive=True), sp.Symbol("m_s", positive=True)
GK_ = mK_ * Kc_                          # G = m K: the L2 overlaps <relu(w_i.x) relu(w_j.x)> by (151)
HK_ = sp.sqrt(mK_ * msK_) * Ktc_         # H = sqrt(m m*) K~: the overlaps <relu(w_i.x) relu(w*_j.x)> by (153)
bK_ = HK_ * cs_ / msK_                   # b_i = <relu(w_i.x), f*> for f* = (1/m*) sum_j c_j relu(w*_j.x) (143)


p_, tau_, Eb2_, Ebb_ = sp.symbols("p tau Eb2 Ebb", real=True)
sigl2_, lam_l = sp.Symbol("sigma_l^2", positive=True), sp.Symbol("lambda_l", positive=True)
RISK_92 = 1 - p_ + s**2 * tau_   # (92): 1 - E||P beta_t||^2 + sigma^2 E tr(X^+T X^+)
xg_ = sp.Symbol("x", positive=True)
PHI_ = sp.exp(-xg_**2 / 2) / sp.sqrt(2 * sp.pi)   # the standard normal density


def _inv_wishart_trace(n, d):
    """E tr (X X^T)^-1 = n E[1/chi^2_(d-n+1)] (Bartlett: 1/(W^-1)_ii ~ chi^2_(d-n+1)), by quadrature"""
    with mpmath.workdps(40):   # the product at 40 digits (outside, mpmath rounds it to 53 bits)
        return n * _inv_chi2_quad(d - n + 1)


def _inv_wishart_closed(n, d):
    """n/(d - n - 1) in exact rational arithmetic, rounded to 40 digits"""
    with mpmath.workdps(40):
        return mpmath.mpf(n) / (d - n - 1)


# App. B.5, (89)-(92) written out on one Gaussian X (n x d), a unit beta_t and label noise of sd 1/2
_SIGMA_B5 = 0.5
_SQUARE_SHAPES = [{"n": 5, "d": 5, "seed": 2}, {"n": 3, "d": 3, "seed": 5}, {"n": 8, "d": 8, "seed": 6}]


def _b5_setup(n, d, seed):
    r = np.random.default_rng(seed)
    X = r.standard_normal((n, d))
    bt = r.standard_normal(d)
    bt /= np.linalg.norm(bt)
    return X, np.linalg.pinv(X), bt, _SIGMA_B5 * r.standard_normal(n)


def _b5_cubature(n):
    """the 2n points +-sigma sqrt(n) e_i (weights 1/(2n)): mean 0 and covariance sigma^2 I_n, so the rule integrates
    every polynomial of degree <= 2 in eps ~ N(0, sigma^2 I_n) exactly"""
    E = _SIGMA_B5 * math.sqrt(n) * np.eye(n)
    return np.concatenate([E, -E])


def _b5_risk(n, d, seed):
    """(89) left: ||beta_t - beta_hat||^2 for one draw, beta_hat = X^+ (X beta_t + eps)"""
    X, Xp, bt, eps = _b5_setup(n, d, seed)
    return float(np.sum((bt - Xp @ (X @ bt + eps)) ** 2))


def _b5_eq89(n, d, seed):
    """(89) right: 1 + ||beta_hat||^2 - 2 <beta_hat, beta_t> for the same draw"""
    X, Xp, bt, eps = _b5_setup(n, d, seed)
    bh = Xp @ (X @ bt + eps)
    return float(1 + bh @ bh - 2 * bh @ bt)


def _b5_mean_risk(n, d, seed):
    """E_eps ||beta_t - X^+ (X beta_t + eps)||^2 for the draw's X, by the exact 2n-point rule"""
    X, Xp, bt, _ = _b5_setup(n, d, seed)
    return float(np.mean([np.sum((bt - Xp @ (X @ bt + e)) ** 2) for e in _b5_cubature(n)]))


def _b5_eq90(n, d, seed, cross):
    X, Xp, bt, _ = _b5_setup(n, d, seed)
    P = Xp @ X
    pts = _b5_cubature(n)
    return float(1 + bt @ P.T @ P @ bt + np.mean([e @ Xp.T @ Xp @ e for e in pts])
                 + 2 * np.mean([cross(e, Xp, P, bt) for e in pts])
                 - 2 * (bt @ P @ bt + np.mean([bt @ Xp @ e for e in pts])))


def _b5_eq90_printed(n, d, seed):
    """(90)-(91) as printed, E_eps by the exact 2n-point rule; the cross term eps^T (X^+X) beta_t needs n = d"""
    return _b5_eq90(n, d, seed, lambda e, Xp, P, bt: e @ P @ bt)


def _b5_eq90_amended(n, d, seed):
    """(90)-(91) with the cross term eps^T (X^+)^T (X^+X) beta_t (defined for every n, d)"""
    return _b5_eq90(n, d, seed, lambda e, Xp, P, bt: e @ Xp.T @ P @ bt)


def _b5_eq92(n, d, seed):
    """(92) right: 1 - ||P_row(X) beta_t||^2 + sigma^2 tr((X^+)^T X^+), P_row(X) = X^+ X"""
    X, Xp, bt, _ = _b5_setup(n, d, seed)
    Pb = Xp @ X @ bt
    return float(1 - Pb @ Pb + _SIGMA_B5**2 * np.trace(Xp.T @ Xp))


# (31) at constant f, g: the means f, g_x, with (f - g_x)^2 = 1, 1/4, 9 exactly in float64
_KL_MEANS = [{"f": 0.75, "g_x": -0.25}, {"f": 1.25, "g_x": 0.75}, {"f": -1.0, "g_x": 2.0}]


def _dudley_cos_witness(f, g_x, sigma):
    """(23)'s right side at constant f, g: |int cos(y)/2 [N(y; f, sigma^2) - N(y; g, sigma^2)] dy|, by quadrature"""
    with mpmath.workdps(30):
        v = mpmath.mpf(sigma) ** 2

        def dens(y, m):
            return mpmath.exp(-(y - m) ** 2 / (2 * v)) / mpmath.sqrt(2 * mpmath.pi * v)

        return abs(mpmath.quad(lambda y: mpmath.cos(y) / 2 * (dens(y, f) - dens(y, g_x)),
                               [-mpmath.inf, min(f, g_x) - 10 * sigma, max(f, g_x) + 10 * sigma, mpmath.inf]))


def _dudley_cos_closed(f, g_x, sigma):
    """(24)'s right side at constant f, g: |e^{-sigma^2/2}/2 (cos f - cos g)|"""
    with mpmath.workdps(30):
        return abs(mpmath.exp(-mpmath.mpf(sigma) ** 2 / 2) / 2 * (mpmath.cos(f) - mpmath.cos(g_x)))


def _chi2_mean(n, h):
    """E h(t) for t ~ chi^2_n (the law of ||z||^2, z ~ N(0, I_n)), mpmath quadrature at 30 digits"""
    with mpmath.workdps(30):
        k = mpmath.mpf(n)
        c = 1 / (2 ** (k / 2) * mpmath.gamma(k / 2))
        return mpmath.quad(lambda t: h(t) * c * t ** (k / 2 - 1) * mpmath.exp(-t / 2), [0, 1, k, 4 * k, mpmath.inf])


def _b2_mean_over_z(n, theta, sigma):
    """(112)'s left side: E_z of the conditional E b^2 = cos^2 + (sin^2 + sigma^2)/||z||^2"""
    with mpmath.workdps(30):
        c2, s2, v = mpmath.cos(theta) ** 2, mpmath.sin(theta) ** 2, mpmath.mpf(sigma) ** 2
        return _chi2_mean(n, lambda t: c2 + (s2 * t + v * t) / t**2)


def _b2_by_inverse_moment(n, theta, sigma, inv_z2_mean):
    """(112)'s right side: cos^2 + (sin^2 + sigma^2) E_z 1/||z||^2 (inv_z2_mean: E_z 1/||z||^2, the point's)"""
    with mpmath.workdps(30):
        return mpmath.cos(theta) ** 2 + (mpmath.sin(theta) ** 2 + mpmath.mpf(sigma) ** 2) * inv_z2_mean


def _ridge_mean_over_z(n, theta, sigma, lam):
    """E_z of (124)-(125)'s conditional risk: (cos Z2/(Z2 + n lam) - cos)^2 + sin^2 + (sin^2 + sigma^2) Z2/(Z2 + n lam)^2"""
    with mpmath.workdps(30):
        c, s2, v, nl = mpmath.cos(theta), mpmath.sin(theta) ** 2, mpmath.mpf(sigma) ** 2, n * mpmath.mpf(lam)
        return _chi2_mean(n, lambda t: (c * t / (t + nl) - c) ** 2 + s2 + (s2 + v) * t / (t + nl) ** 2)


def _ridge_by_i1_i2(n, theta, sigma, lam):
    """(125)'s right side: 1 + cos^2 I1(n+2) + (sin^2 + sigma^2) I1(n) - 2 cos^2 I2(n), the I's of (126)-(127)"""
    with mpmath.workdps(30):
        c2, s2, v, nl = mpmath.cos(theta) ** 2, mpmath.sin(theta) ** 2, mpmath.mpf(sigma) ** 2, n * mpmath.mpf(lam)
        i1_n2 = _chi2_mean(n, lambda t: t**2 / (t + nl) ** 2)
        i1_n = _chi2_mean(n, lambda t: t / (t + nl) ** 2)
        i2_n = _chi2_mean(n, lambda t: t / (t + nl))
        return 1 + c2 * i1_n2 + (s2 + v) * i1_n - 2 * c2 * i2_n


DERIVATIONS = (
    Derivation(key="transfer.theorem36", title="Scratch risk (Theorem 3.6): eqs (88)-(100) and the finite-size form",
               source=SEED, where="App. B.5, eqs (88)-(100)", entries=("transfer.scratch_risk", "transfer.scratch_risk_finite",
                                                  "transfer.pinv_trace"), steps=(
        Step("(89): ||beta_t - beta_hat||^2 = 1 + ||beta_hat||^2 - 2 <beta_hat, beta_t> for one draw (unit beta_t, "
             "beta_hat = X^+ y = X^+ X beta_t + X^+ eps)", lhs=_b5_risk, rhs=_b5_eq89, search=lambda: _SHAPES, rtol=1e-12,
             tol_source="float64 pinv and norms of size <= 50 with entries <= 10: a few hundred roundings of terms <= 1e2",
             why="a per-draw identity (||beta_t|| = 1, Assumption 3.2), so it holds in E_{X, eps}",
             cites=("(89)",), fidelity="as printed"),
        Step("(90)-(91) as printed, at n = d (where eps^T (X^+ X) beta_t is defined): E_eps ||beta_t - beta_hat||^2 = "
             "1 + beta_t^T (X^+X)^T (X^+X) beta_t + E eps^T (X^+)^T X^+ eps + 2 E eps^T (X^+X) beta_t - 2 (beta_t^T "
             "X^+X beta_t + E beta_t^T X^+ eps), X fixed", lhs=_b5_mean_risk, rhs=_b5_eq90_printed,
             search=lambda: _SQUARE_SHAPES, rtol=1e-10,
             tol_source=("the 2n-point rule eps = +-sigma sqrt(n) e_i has the mean and covariance of eps, so it "
                         "integrates these quadratics in eps exactly; float64 pinv of square Gaussian X with cond <= "
                         "1e3 here: <= 1e3 * 1e-15 relative"),
             why="E_X stays outside both sides (the identity holds for each X)", cites=("(90)", "(91)"),
             fidelity="as printed"),
        Step("(90)-(91) with the cross term 2 E eps^T (X^+)^T (X^+X) beta_t, every shape", lhs=_b5_mean_risk,
             rhs=_b5_eq90_amended, search=lambda: _SHAPES, rtol=1e-10,
             tol_source=("exact 2n-point rule for quadratics in eps (mean 0, covariance sigma^2 I); float64 pinv of "
                         "Gaussian matrices with cond <= 1e3 here: <= 1e3 * 1e-15 relative"),
             cites=("(90)", "(91)"), fidelity=Amendment(
                 key="002-eq90-cross", kind="typo fixed",
                 what="(90)'s cross term 2 E eps^T (X^+X) beta_t (eps in R^n against the d x d matrix X^+X: defined "
                 "only when n = d) read as 2 E eps^T (X^+)^T (X^+X) beta_t, the cross term of ||X^+X beta_t + X^+ eps||^2",
                 why="a dimension slip: both terms have mean 0 and (92) drops them; the printed display holds where it "
                 "is defined (n = d, the step before). No erratum beside it (#35): the printed cross term has no "
                 "value for n != d (a d x d matrix against eps in R^n), so there is no printed statement that fails, "
                 "only one that is not defined; the amendment records the reading", severity="typo")),
        Step("(92): E_eps ||beta_t - beta_hat||^2 = 1 - ||P_row(X) beta_t||^2 + sigma^2 tr((X^+)^T X^+), X fixed",
             lhs=_b5_mean_risk, rhs=_b5_eq92, search=lambda: _SHAPES, rtol=1e-10,
             tol_source=("exact 2n-point rule for quadratics in eps; float64 pinv and trace of Gaussian matrices with "
                         "cond <= 1e3 here: <= 1e3 * 1e-15 relative"),
             why="P_row(X) = X^+ X; E_X stays outside both sides", cites=("(92)",), fidelity="as printed"),
        Step("(89)-(92) in the symbols p = E||P beta_t||^2, tau = E tr(X^+T X^+): 1 + E||b||^2 - 2E<b, beta_t> "
             "with b = P beta_t + X^+ eps",
             lhs=sp.Subs(1 + Eb2_ - 2 * Ebb_, (Eb2_, Ebb_), (p_ + s**2 * tau_, p_)), rhs=RISK_92,
             why="p = E||P beta_t||^2 = E beta_t^T P beta_t (P^T P = P), tau = E tr(X^+T X^+); cross terms have mean 0 "
             "(theorylab's bookkeeping for (100); the displays themselves are the steps above)"),
        Step("(93) as written: E||P_row(X) beta_t||^2 = gamma for all gamma", lhs=_p_row_norm, rhs=g,
             why="evaluated on a Gaussian X with n = 2d: P_row(X) = X^+ X = I, so the value is 1 for every draw",
             erratum=Erratum(
                 key="002-eq93", source=SEED, where="eq (93)", says="E||P_row(X) beta_t||^2 = gamma",
                 truth="= min(gamma, 1): n/d for n <= d and 1 for n >= d (P_row(X) = I). (100)'s gamma > 1 branch uses 1.",
                 severity="typo",
                 note="Typo: the sentence before speaks of 'the n-dimensional subspace row(X)' in G_{n,d} (n <= d), "
                 "(94) splits min(n, d), and (100)'s gamma > 1 branch uses the value 1: nothing downstream uses the "
                 "misprint. The Monte Carlo check of (93) uses min(gamma, 1).", at={"gamma": 2.0}),
             tol=1e-12, tol_source="float64 pinv of a 40x20 Gaussian matrix: ||X^+ X - I|| ~ cond(X) * 1e-16 < 1e-14", cites=("(93)",)),
        Step("(95): sum_l 1/sigma_l^2 = (gamma/n) tr(C^-1), C = X X^T/d (eigenvalues lambda_l = sigma_l^2/d)",
             lhs=sp.Subs(1 / sigl2_, sigl2_, d * lam_l), rhs=sp.Subs(g / n / lam_l, g, n / d),
             why="term by term: (95) is the sum over the n eigenvalues (gamma < 1: sigma_l^2 = d lambda_l)",
             cites=("(95)",), fidelity="as printed"),
        Step("(98)-(99): lim_{z->0} g_C(z) = -1/(1-gamma), gamma < 1", lhs=_stieltjes_at, rhs=_minus_inv_one_minus,
             search=lambda: _grid(gamma=(0.5, 0.125, 0.875), z=(1e-25, -1e-25)),  # binary fractions: exact
             tol=1e-20, tol_source=("g_C(z) + 1/(1-gamma) = -z E lambda^-2 + O(z^2) with E lambda^-2 = (1-gamma)^-3 "
                                    "<= 512 at gamma <= 7/8: |difference| <= 1e-22 at |z| = 1e-25; 60-digit arithmetic"),
             why="(98)'s closed form at z = +-1e-25 (the limit z -> 0, branch continuous along the real axis) against "
             "(99)", cites=("(98)", "(99)"), fidelity="as printed"),
        Step("(100), gamma < 1: p = gamma, tau = gamma/(1-gamma)", lhs=sp.Subs(RISK_92, (p_, tau_), (g, g / (1 - g))),
             rhs=SCRATCH.args[0][0], why="(92) with (93) and (99); the right side is (100) = (8) as printed",
             cites=("(100)", "Theorem 3.6"), fidelity="as printed", conditions=(g < 1,), binds={r"\mathbb{E}_{\boldsymbol{X},\boldsymbol{\epsilon}}\mathcal{R}": "lhs"}),
        Step("(100), gamma > 1: p = 1, tau = 1/(gamma-1)", lhs=sp.Subs(RISK_92, (p_, tau_), (1, 1 / (g - 1))),
             rhs=SCRATCH.args[1][0], why="(92) with E||P beta_t||^2 = 1 (P_row(X) = I for n > d; erratum 002-eq93) and the "
             "transposed (95)-(97); the right side is (100) = (8) as printed", cites=("(100)", "Theorem 3.6"),
             fidelity="as printed", conditions=(g > 1,), binds={r"\mathbb{E}_{\boldsymbol{X},\boldsymbol{\epsilon}}\mathcal{R}": "lhs"}),
        Step("finite n < d-1: E tr (X X^T)^-1 = n/(d-n-1) (inverse Wishart, by chi-square quadrature)",
             lhs=_inv_wishart_trace, rhs=_inv_wishart_closed,
             search=lambda: [{"n": 2, "d": 10}, {"n": 5, "d": 7}, {"n": 50, "d": 200}, {"n": 1000, "d": 1002},
                             {"n": 10**6, "d": 3 * 10**6}],
             rtol=1e-20, tol_source="mpmath quadrature at 40 digits (its error estimate is below 1e-30)"),
        Step("finite n < d-1: (92) with E||P beta||^2 = n/d, E tr (XX^T)^-1 = n/(d-n-1)",
             lhs=sp.Subs(RISK_92, (p_, tau_), (n / d, n / (d - n - 1))), rhs=SCRATCH_FINITE.args[0][0]),
        Step("stable finite form", lhs=SCRATCH_FINITE_STABLE.args[0][0], rhs=SCRATCH_FINITE.args[0][0]),
        Step("finite form -> (8) as d -> oo with n = gamma d, gamma < 1",
             lhs=sp.Limit(SCRATCH_FINITE.args[0][0].subs(n, g * d), d, sp.oo), rhs=SCRATCH.args[0][0],
             domain={g: (0.05, 0.95)}, why="the printed (8) as the limit of the exact finite-size risk",
             cites=("(8)", "Theorem 3.6"), fidelity="as printed", binds={r"\mathbb{E}_{\mathcal{D}}\mathcal{R}": "lhs"}),
        Step("finite form -> (8) as d -> oo with n = gamma d, gamma > 1",
             lhs=sp.Limit(SCRATCH_FINITE.args[1][0].subs(n, g * d), d, sp.oo), rhs=SCRATCH.args[1][0],
             domain={g: (1.05, 3.0)}, why="the printed (8) as the limit of the exact finite-size risk",
             cites=("(8)", "Theorem 3.6"), fidelity="as printed", binds={r"\mathbb{E}_{\mathcal{D}}\mathcal{R}": "lhs"}),
        Step("pinv trace: finite n/(d-n-1) -> gamma/(1-gamma)", lhs=sp.Limit((g * d) / (d - g * d - 1), d, sp.oo),
             rhs=g / (1 - g), domain={g: (0.05, 0.95)}),
    )),
    Derivation(key="transfer.theorem37", title="Linear transfer (Theorem 3.7): eqs (101)-(117)", source=SEED,
               where="App. B.6, eqs (101)-(117)", entries=("transfer.linear_transfer_risk", "transfer.inverse_chi2_mean"), steps=(
        Step("(108): ||b beta_s - beta_t||^2 = 1 + b^2 - 2 b cos(theta)",
             lhs=(sp.Symbol("b") - sp.cos(th)) ** 2 + sp.sin(th) ** 2, rhs=1 + sp.Symbol("b") ** 2 - 2 * sp.Symbol("b") * sp.cos(th),
             why="beta_t = cos(theta) beta_s + sin(theta) nu, nu ⟂ beta_s, all unit: the left side is ||b beta_s - beta_t||^2 "
             "(107) in the basis (beta_s, nu); a per-draw identity, so (108) holds in E_{X, eps}",
             cites=("(108)",), fidelity="as printed"),
        Step("(108) in expectation: E (b - cos theta)^2 + sin^2 theta = 1 + E b^2 - 2 cos(theta) E b "
             "(m_b1 = E b, m_b2 = E b^2)",
             lhs=m_b2_ - 2 * sp.cos(th) * m_b1_ + sp.cos(th) ** 2 + sp.sin(th) ** 2,
             rhs=1 + m_b2_ - 2 * sp.cos(th) * m_b1_, domain={m_b1_: (-3.0, 3.0), m_b2_: (0.0, 10.0)},
             why="the E_{X, eps} of the per-draw identity above, term by term (linearity): (108)'s right side",
             cites=("(108)",), fidelity="as printed"),
        Step("(112): E b^2 = cos^2 + (sin^2 + sigma^2) E 1/||z||^2",
             lhs=sp.cos(th) ** 2 + (sp.sin(th) ** 2 * sp.Symbol("z2") + s**2 * sp.Symbol("z2")) / sp.Symbol("z2") ** 2,
             rhs=sp.cos(th) ** 2 + (sp.sin(th) ** 2 + s**2) / sp.Symbol("z2"),
             why="conditionally on z: b = cos + (sin z.w + z.eps)/z2 with E (z.w)^2 = E (z.eps)^2/sigma^2 = ||z||^2 =: z2 and "
             "mean-zero cross terms; (111)-(112) are E_z of this (the change of variables z = X beta_s, w = X nu)",
             cites=("(111)", "(112)"), fidelity="as printed"),
        Step("(112) in expectation over z: E_z of the conditional E b^2 above (||z||^2 ~ chi^2_n) = cos^2 + "
             "(sin^2 + sigma^2) E_z 1/||z||^2", lhs=lambda n, theta, sigma, inv_z2_mean: _b2_mean_over_z(n, theta, sigma),
             rhs=_b2_by_inverse_moment,
             search=lambda: [dict(p, inv_z2_mean=_chi2_mean(p["n"], lambda t: 1 / t))
                             for p in ({"n": 5, "theta": 0.7, "sigma": 0.5}, {"n": 12, "theta": 2.0, "sigma": 1.5})],
             rtol=1e-20, tol_source="mpmath quadrature at 30 digits on both sides (error estimates < 1e-25)",
             why="the step above is E_{w, eps} b^2 given z (z2 = ||z||^2); its mean under the chi-square law of "
             "||z||^2 is (112)'s right side (the density integrates to 1); E_z 1/||z||^2 (inv_z2_mean, (112)'s "
             "printed factor) is the point's, by quadrature of the same law", cites=("(112)",), fidelity="as printed"),
        Step("(114) as written: E 1/||z||^2 = S_(n-1)/(2pi)^(n/2) int_0^oo r^(n-3) e^(+r^2/2) dr, so "
             "E 1/||z||^2 >= S_(n-1)/(2pi)^(n/2) int_0^R r^(n-3) e^(+r^2/2) dr for every R (positive integrand)",
             lhs=INV_CHI2_EXPECTATION, rhs=S_n / (2 * sp.pi) ** (nn / 2) * sp.Integral(r_ ** (nn - 3) * sp.exp(r_**2 / 2), (r_, 0, R_)),
             relation=">=", erratum=Erratum(
                 key="002-eq114", source=SEED, where="eq (114)", says="E 1/||z||^2 = S_{n-1}/(2 pi)^{n/2} int_0^oo r^{n-3} e^{r^2/2} dr",
                 truth="the exponent is -r^2/2 (as written the integral diverges); (115)-(117) use the right sign.",
                 severity="typo",
                 note="Typo: a dropped minus sign; (113) before and (115) after carry e^{-r^2/2}. At n = 5 the seed's "
                 "integral cut at R = 10 already exceeds E 1/||z||^2 = 1/3.",
                 at={"n": 5, "R": 10}), cites=("(114)",)),
        Step("(115): t = r^2/2 in int r^(n-3) e^(-r^2/2) dr, with (2pi)^(-n/2)",
             lhs=sp.Integral(r_ ** (nn - 3) * sp.exp(-r_**2 / 2), (r_, 0, sp.oo)) / (2 * sp.pi) ** (nn / 2),
             rhs=sp.Integral(sp.exp(-t_) * t_ ** (nn / 2 - 2), (t_, 0, sp.oo)) / (4 * sp.pi ** (nn / 2)),
             domain={nn: (3, 12)}, symbolic=False, points=6,
             why="the left side is (114) with the exponent's sign of (113) (erratum 002-eq114); the right side is "
             "(115) without its common factor S_{n-1}", cites=("(115)",), fidelity="as printed"),
        Step("(113) = (115) around the misprinted (114) (erratum 002-eq114): E 1/||z||^2 = S_(n-1)/(4 pi^(n/2)) "
             "int_0^oo e^(-t) t^(n/2-2) dt",
             lhs=INV_CHI2_EXPECTATION,
             rhs=S_n / (4 * sp.pi ** (nn / 2)) * sp.Integral(sp.exp(-t_) * t_ ** (nn / 2 - 2), (t_, 0, sp.oo)),
             domain={nn: (3, 12)}, symbolic=False, points=6,
             why="the left side is E 1/||z||^2 under the chi^2_n law of ||z||^2 (not the print's integrals), the right "
             "side (115) as printed, S_(n-1) included", cites=("(115)",), fidelity="as printed"),
        Step("(116)-(117): S_(n-1) Gamma(n/2 - 1)/(4 pi^(n/2)) = 1/(n-2)",
             lhs=S_n * sp.gamma(nn / 2 - 1) / (4 * sp.pi ** (nn / 2)), rhs=1 / (nn - 2), domain={nn: (3, 40)},
             why="S_(n-1) = 2 pi^(n/2)/Gamma(n/2), the area of the unit sphere in R^n", cites=("(116)", "(117)"),
             fidelity="as printed"),
        Step("(113)-(117) against the chi-square law: E 1/||z||^2 = int (1/t) chi^2_n(t) dt = 1/(n-2)",
             lhs=INV_CHI2_EXPECTATION, rhs=1 / (nn - 2), domain={nn: (3, 30)}, symbolic=False, points=6,
             why="(113)'s Gaussian integral of 1/||z||^2 written with the law of ||z||^2 ~ chi^2_n",
             cites=("(113)", "(117)"), fidelity="as printed"),
        Step("(10): 1 + E b^2 - 2 cos(theta) E b with E b = cos(theta)",
             lhs=1 + sp.cos(th) ** 2 + (sp.sin(th) ** 2 + s**2) / (n - 2) - 2 * sp.cos(th) ** 2, rhs=LINEAR_TRANSFER,
             why="(108) with (110), (112) and (117); the right side is (10) as printed", cites=("(10)", "Theorem 3.7"),
             fidelity="as printed", binds={r"\mathbb{E}_{\mathcal{D}}\mathcal{R}_{\mathrm{lt}}": "lhs"}),
    )),
    Derivation(key="transfer.theorem38", title="Ridge linear transfer (Theorem 3.8): eqs (118)-(138)", source=SEED,
               where="App. B.7, eqs (118)-(138)", entries=("transfer.ridge_transfer_risk",), steps=(
        Step("(138) from (125) with I1(n) -> 0, I1(n+2) -> 1/(1+lam)^2, I2(n) -> 1/(1+lam)",
             lhs=1 + sp.cos(th) ** 2 / (1 + lam) ** 2 + 0 - 2 * sp.cos(th) ** 2 / (1 + lam), rhs=RIDGE,
             why="(125) with the limits (135)-(137); the right side is (138) = (13) as printed",
             cites=("(138)", "(13)", "Theorem 3.8"), fidelity="as printed",
             binds={r"\lim_{n \to \infty} \mathbb{E}_{\mathcal{D}} \mathcal{R}_{\mathrm{lt}}^{\lambda}": "lhs",
                    r"\lim_{n \to \infty} \mathbb{E}_{\boldsymbol{X}, \boldsymbol{\epsilon}} \mathcal{R}_{lt}^{\lambda}": "lhs"}),
        Step("stable form of (13)", lhs=RIDGE_STABLE, rhs=RIDGE),
        Step("dR/dlambda = 2 lambda cos^2(theta)/(1+lambda)^3 >= 0", lhs=sp.Derivative(RIDGE, lam),
             rhs=2 * lam * sp.cos(th) ** 2 / (1 + lam) ** 3),
        Step("'strictly increasing in lambda >= 0 for any theta in [0, pi/2]': R(lambda_1) < R(lambda_1 + delta), "
             "delta > 0", lhs=RIDGE.subs(lam, l1_), rhs=RIDGE.subs(lam, l1_ + dl_), relation="<", erratum=Erratum(
                 key="002-thm38-strict", source=SEED, where="after eq (138)",
                 says="a strictly increasing function in lambda >= 0 for any theta in [0, pi/2]",
                 truth="increasing, strictly only where cos(theta) != 0: at theta = pi/2 the limit risk is 1 for every lambda.",
                 severity="typo",
                 note="Typo: the closing bracket of [0, pi/2] (the main text restricts to 'useful features, i.e., those "
                 "with theta < pi/2'); lambda* = 0 remains optimal (not uniquely at theta = pi/2). The sentence is prose "
                 "after (138), not Theorem 3.8's statement (13), which holds.",
                 at={"theta": sp.pi / 2, "lambda_1": 0, "delta": 1})),
    )),
    Derivation(key="transfer.theorem39", title="Fine-tuning (Theorem 3.9), transferabilities (11), (15), negative transfer",
               source=SEED, where="eqs (11), (14), (15), (139)-(141), text after (11)",
               entries=("transfer.finetune_risk", "transfer.finetune_transferability", "transfer.linear_transferability",
                "transfer.negative_transfer_region"), steps=(
        Step("(11), gamma < 1: T_lt = E R_sc - lim E R_lt", lhs=SCRATCH.args[0][0] - sp.Limit(LINEAR_TRANSFER, n, sp.oo),
             rhs=T_LT_OVER, why="(5) with (8) and the n -> oo limit of (10); the right side is (11)'s gamma < 1 branch",
             cites=("(11)",), fidelity="as printed", conditions=(g < 1,)),
        Step("(11), gamma > 1: T_lt = E R_sc - lim E R_lt", lhs=SCRATCH.args[1][0] - sp.Limit(LINEAR_TRANSFER, n, sp.oo),
             rhs=T_LT_UNDER, why="(5) with (8) and the n -> oo limit of (10); the right side is (11)'s gamma > 1 branch",
             cites=("(11)",), fidelity="as printed", conditions=(g > 1,)),
        Step("(15) from (14): T_ft = E R_sc - E R_ft, gamma < 1", lhs=SCRATCH.args[0][0] - FT_SEED_OVER,
             rhs=TFT_SEED.args[0][0], why="(5) with the printed (14); the right side is (15)'s gamma <= 1 branch",
             cites=("(15)",), fidelity="as printed", conditions=(g < 1,)),
        Step("(139)/(14) with sigma = 0: the fine-tuned network's risk (the entry) equals (14) for every depth",
             lhs=_ft_entry_risk, rhs=FT_SEED,
             search=lambda: _grid(gamma=(0.5, 0.1, 0.9), theta=(1.0, 0.3, 2.5), sigma=(0.0,), depth=(2, 3, 10)),
             rtol=1e-13, tol_source=("float64: c = 1 to 1e-16 at sigma = 0 (Newton starts at c0 = 1 where h(1) = 0 up to rounding), then "
                                     "a sum of three terms of size <= 1/(1-gamma) <= 10: <= 8 roundings"),
             cites=("(139)", "(14)", "Theorem 3.9"), fidelity=Amendment(
                 key="002-thm39-noiseless", kind="hypothesis added",
                 what="label noise sigma = 0, where Theorem 3.9 assumes Assumption 3.1's Gaussian label noise of "
                 "variance sigma^2",
                 why="without noise the scale c of (I - P_row(X)) beta_s is 1 and (139)/(14) hold for every depth; with "
                 "noise they fail (erratum 002-thm39-depth, the step after)", severity="wrong-value",
                 root="002-thm39-depth")),
        Step("(139)/(14) with label noise: the fine-tuned network's risk (the entry) against (14)",
             lhs=_ft_entry_risk, rhs=FT_SEED, erratum=Erratum(
                 key="002-thm39-depth", source=SEED, where="eqs (139), (14), (15)",
                 says="lim beta_ft = beta_sc + (I - P_row(X)) beta_s; E R_ft = E R_sc + (1-gamma)(1 - 2 cos theta)",
                 truth="beta_ft = X^+ y + c (I - P_row(X)) beta_s with c = ||beta_ft||^((L-1)/L): (I-P) W1 is frozen but the "
                 "readout product rescales. In the high-dimensional limit c^(2L/(L-1)) = gamma + sigma^2 gamma/(1-gamma) "
                 "+ c^2 (1-gamma) and E R_ft = E R_sc + (1-gamma)(c^2 - 2c cos theta): c = 1 only without label noise; "
                 "with noise the risk depends on the depth L.",
                 severity="wrong-value",
                 note="Wrong value: the risk misses the noise- and depth-dependent scale c (a closed form, not a "
                 "constant). Confirmed on trained 2-layer networks (verify: the law fits >= 20x better than c = 1).",
                 at={"gamma": 0.5, "theta": math.pi / 3, "sigma": 1.0, "depth": 2}),
             rtol=1e-13, tol_source="float64 evaluation of the entry (<= 8 roundings of terms <= 10)",
             cites=("(139)", "(14)", "Theorem 3.9")),
        Step("(15) with label noise: the fine-tuning transferability (the entry) against (15)",
             lhs=_tft_entry, rhs=TFT_SEED, erratum=Erratum(
                 key="002-eq15-depth", source=SEED, where="eq (15)",
                 says="T_ft = (gamma - 1)(1 - 2 cos theta) for gamma <= 1",
                 truth="T_ft = -(1-gamma)(c^2 - 2c cos theta) with the depth-dependent c of 002-thm39-depth; (15) holds "
                 "only without label noise (c = 1).", severity="wrong-value", root="002-thm39-depth",
                 note="(15) is (5) applied to (14): the same missing scale c.",
                 at={"gamma": 0.5, "theta": math.pi / 3, "sigma": 1.0, "depth": 2}),
             rtol=1e-13, tol_source="float64 evaluation of the entry (a product of two terms <= 10)",
             cites=("(15)",)),
        Step("fine-tuning scale: c read back from the entry T_ft solves c^(2L/(L-1)) = gamma + sigma^2 gamma/(1-gamma) "
             "+ c^2 (1-gamma)", lhs=_c_lhs(_c_from_tft), rhs=_c_rhs(_c_from_tft), search=lambda: _FT_POINTS,
             rtol=1e-13, tol_source=("float64: Newton stops at |step| <= 4e-16 c; T_ft and c (cos theta <= 0: a sum "
                                     "of positive terms) carry <= 1e-15 relative error, c^e with e <= 4 <= 5e-15")),
        Step("fine-tuning scale: c read back from the entry E R_ft solves the same equation",
             lhs=_c_lhs(_c_from_ft), rhs=_c_rhs(_c_from_ft), search=lambda: _FT_POINTS,
             rtol=1e-12, tol_source=("float64: (E R_ft - E R_sc)/(1-gamma) >= c^2 >= 1 while E R_sc <= 4/(1-gamma)^2 "
                                     "<= 100 on these points: <= 1e2 * 1e-15 relative in c^2, times e <= 4")),
        Step("gamma_pm solve T_lt = 0 (gamma < 1): gamma^2 - B gamma + cos^2 = 0",
             lhs=GAMMA_PM[0] ** 2 - Bq * GAMMA_PM[0] + sp.cos(th) ** 2, rhs=0),
        Step("T_lt < 0 <=> gamma^2 - B gamma + cos^2 theta < 0 (times (1-gamma) > 0)",
             lhs=T_LT_OVER * (1 - g), rhs=g**2 - Bq * g + sp.cos(th) ** 2, domain={g: (0.05, 0.95)}),
        Step("the entry's gamma_- is a sign change of T_lt (11)", lhs=_sign_change("overparameterized", 0), rhs=0,
             relation="<", search=lambda: _REGION_POINTS),
        Step("the entry's gamma_+ is a sign change of T_lt (11)", lhs=_sign_change("overparameterized", 1), rhs=0,
             relation="<", search=lambda: _REGION_POINTS),
        Step("T_lt < 0 inside the entry's interval (its midpoint)", lhs=_t_lt_mid, rhs=0, relation="<",
             search=lambda: _REGION_POINTS),
        Step("the entry's underparameterized boundary is a sign change of T_lt (11)",
             lhs=_sign_change("underparameterized_from", None), rhs=0, relation="<", search=lambda: _REGION_POINTS),
        Step("stable form of (11), gamma < 1/2", lhs=TRANSFERABILITY_STABLE.args[0][0], rhs=T_LT_OVER),
        Step("stable form of (11), 1/2 <= gamma < 1", lhs=TRANSFERABILITY_STABLE.args[1][0], rhs=T_LT_OVER),
        # gamma > 1: the stable form's branch is the seed's sigma^2/(gamma - 1) - sin^2 theta itself (no step)
        Step("fine-tuning risk as a sum of squares: E R_sc + (1-g)(c^2 - 2c cos) = (1-g)((c-cos)^2 + sin^2) + "
             "sigma^2 g/(1-g)", lhs=SCRATCH.args[0][0] + (1 - g) * (sp.Symbol("c") ** 2 - 2 * sp.Symbol("c") * sp.cos(th)),
             rhs=(1 - g) * ((sp.Symbol("c") - sp.cos(th)) ** 2 + sp.sin(th) ** 2) + s**2 * g / (1 - g)),
        Step("the seed's interval (gamma_+, gamma_-) is non-empty: gamma_+ < gamma_-", lhs=GAMMA_PM[0], rhs=GAMMA_PM[1],
             relation="<", erratum=Erratum(
                 key="002-eq11-interval", source=SEED, where="text after eq (11)",
                 says="gamma in (gamma_+, gamma_-), gamma_pm = [B pm sqrt(...)]/2",
                 truth="gamma_+ > gamma_-: the interval is (gamma_-, gamma_+).", severity="typo",
                 note="Typo: the endpoints are swapped; the noiseless limit printed next, cos^2 theta < gamma < 1, "
                 "orders them right.",
                 at={"theta": sp.Rational(6, 5), "sigma": sp.Rational(1, 5)})),
        Step("the seed's theta range (arccos(1 - sigma), pi/2): outside it T_lt >= 0 for gamma < 1",
             lhs=T_LT_OVER, rhs=0, relation=">=", erratum=Erratum(
                 key="002-eq11-theta", source=SEED, where="text after eq (11)",
                 says="negative transfer when theta in (arccos(1 - sigma), pi/2)",
                 truth="T_lt depends on theta through sin^2 theta: the range is (arccos(1-sigma), pi - arccos(1-sigma)), "
                 "pi/2 included (there gamma in (0, 1 - sigma^2)).", severity="typo",
                 history=("was wrong-value; #35: T_lt depends on theta through sin^2 theta, and Theorem 3.8 takes theta "
                          "in [0, pi/2]; there the printed interval (arccos(1 - sigma), pi/2) is the true one but for "
                          "its endpoint pi/2 (open where it belongs), and beyond pi/2 the range is its mirror "
                          "theta -> pi - theta: an endpoint, not a wrong range",),
                 note="Wrong value: the range's upper end is pi - arccos(1 - sigma), not pi/2 (the text uses theta "
                 "beyond pi/2: Sec. 3.4's theta > pi/3, Theorem 3.8's restriction to [0, pi/2]). Counterexample "
                 "theta = pi/2 itself, gamma = 1/2, sigma = 1/5: T_lt = 0.54 - 1 < 0 (and theta = 2: 0.54 - sin^2 2 < 0).",
                 at={"gamma": sp.Rational(1, 2), "theta": sp.pi / 2, "sigma": sp.Rational(1, 5)})),
        Step("the discriminant B^2 - 4 cos^2 >= 0 <=> |cos theta| <= 1 - sigma (B > 0)",
             lhs=Bq**2 - 4 * sp.cos(th) ** 2, rhs=(1 + sp.cos(th) - s) * (1 - sp.cos(th) - s) * (1 + sp.cos(th) + s)
             * (1 - sp.cos(th) + s)),
        Step("sigma -> 0: gamma_+ -> 1", lhs=sp.Limit(GAMMA_PM[0], s, 0), rhs=1, domain={th: (0.1, 1.5)}),
        Step("sigma -> 0: gamma_- -> cos^2 theta", lhs=sp.Limit(GAMMA_PM[1], s, 0), rhs=sp.cos(th) ** 2, domain={th: (0.1, 1.5)}),
        Step("underparameterized boundary: T_lt = 0 at gamma = 1 + sigma^2/sin^2 theta",
             lhs=sp.Subs(T_LT_UNDER, g, 1 + s**2 / sp.sin(th) ** 2), rhs=0, domain={s: (0.05, 2.0), th: (0.1, 3.0)}),
    )),
    Derivation(key="transfer.divergences", title="KL divergence (28)-(31) and the Dudley-metric bound (22)-(25)", source=SEED,
               where="App. B.1, eqs (22)-(31)", entries=("transfer.kl_divergence",), steps=(
        Step("(28) = (29) as printed, at constant f, g (the values f(x), g(x) at one x): (1/sqrt(2 pi sigma^2)) "
             "int e^{-(y-f)^2/(2 sigma^2)} [(y-g)^2/(2 sigma^2) - (y-f)^2/(2 sigma^2)] dy = (1/sqrt(2 pi sigma^2)) "
             "int e^{-(y-f)^2/(2 sigma^2)} [g^2 - f^2 - 2yg + 2yf] dy", erratum=Erratum(
            key="002-eq29", source=SEED, where="eq (29)", says="[(y-g)^2/(2 sigma^2) - (y-f)^2/(2 sigma^2)] = [g^2 - f^2 - 2yg + 2yf]",
            truth="the factor 1/(2 sigma^2) is dropped in (29) and reappears in (30)", severity="typo",
            note="Typo: (28) before and (30) after carry the factor; nothing uses (29) without it. The step states "
            "the printed (28) = (29) (the y-integrals, p(x) a density at constant f, g): at f = 1, g = 0, sigma = 1 "
            "(28) is (f - g)^2/(2 sigma^2) = 1/2 and (29) is (f - g)^2 = 1.",
            at={"f": 1, "g_x": 0, "sigma": 1}),
             lhs=sp.Integral(((y_ - gg_) ** 2 / (2 * sig**2) - (y_ - f_) ** 2 / (2 * sig**2))
                             * sp.exp(-(y_ - f_) ** 2 / (2 * sig**2)) / sp.sqrt(2 * sp.pi * sig**2), (y_, -sp.oo, sp.oo)),
             rhs=sp.Integral((gg_**2 - f_**2 - 2 * y_ * gg_ + 2 * y_ * f_)
                             * sp.exp(-(y_ - f_) ** 2 / (2 * sig**2)) / sp.sqrt(2 * sp.pi * sig**2), (y_, -sp.oo, sp.oo)),
             symbolic=False, points=4, domain={sig: (0.3, 2.0), f_: (-2.0, 2.0), gg_: (-2.0, 2.0)},
             why="(28) and (29) are the p(x)-averages of these y-integrals; their brackets differ by the factor "
             "1/(2 sigma^2), so the integrals differ wherever f != g and sigma^2 != 1/2", cites=("(29)",)),
        Step("(30): E_{y ~ N(f, sigma^2)} of (28)'s integrand = (f - g)^2/(2 sigma^2)",
             lhs=sp.Integral(((y_ - gg_) ** 2 - (y_ - f_) ** 2) / (2 * sig**2) * sp.exp(-(y_ - f_) ** 2 / (2 * sig**2))
                         / sp.sqrt(2 * sp.pi * sig**2), (y_, -sp.oo, sp.oo)), rhs=(f_ - gg_) ** 2 / (2 * sig**2),
             symbolic=False, points=4, domain={sig: (0.3, 2.0), f_: (-2.0, 2.0), gg_: (-2.0, 2.0)},
             why="f, g: the values f(x), g(x) at one x; (28) and (30) are the p(x)-averages of the two sides "
             "((30)'s ||f||^2 + ||g||^2 - 2<f, g> = ||f - g||^2)", cites=("(28)", "(30)"), fidelity="as printed"),
        Step("(31): the entry D_KL(||f-g||^2, sigma) against the defining integral int p_f log(p_f/p_g)",
             lhs=lambda dist_sq, sigma, f, g_x: _entry("transfer.kl_divergence")(dist_sq=dist_sq, sigma=sigma),
             rhs=lambda dist_sq, sigma, f, g_x: _kl_quad((f - g_x) ** 2, sigma),
             search=lambda: [dict(fg, dist_sq=(fg["f"] - fg["g_x"]) ** 2, sigma=sg) for fg in _KL_MEANS
                             for sg in (1.0, 0.5, 3.0)],
             rtol=1e-13, tol_source=("float64 entry (2 roundings) against a Gauss-Hermite rule exact for the affine "
                                     "log-ratio, its float64 weights normalized by their sum (<= 1e-15 relative)"),
             why="constant f, g (their values f, g_x at one x: the x-average is trivial): dist_sq = ||f - g||^2_{L2(p)} "
             "is (f - g_x)^2, exactly in float64 at these points; the right side is the defining integral at the "
             "means f, g_x (it depends on f - g_x only), so (28) and (30)'s sides, in f, g_x, have the point's value "
             "too", cites=("(31)",), fidelity="as printed"),
        Step("(23) = (24): int cos(y)/2 [N(y; f, sigma^2) - N(y; g, sigma^2)] dy = e^(-sigma^2/2)/2 (cos f - cos g)",
             lhs=sp.Integral(sp.cos(y_) / 2 * (sp.exp(-(y_ - f_) ** 2 / (2 * sig**2)) - sp.exp(-(y_ - gg_) ** 2 / (2 * sig**2)))
                         / sp.sqrt(2 * sp.pi * sig**2), (y_, -sp.oo, sp.oo)),
             rhs=sp.exp(-sig**2 / 2) / 2 * (sp.cos(f_) - sp.cos(gg_)), symbolic=False,
             domain={sig: (0.3, 2.0), f_: (-2.0, 2.0), gg_: (-2.0, 2.0)}, points=2,
             why="f, g: the values f(x), g(x) at one x; (24) is the p(x)-average of the two sides inside |.| (the "
             "next step states it as printed, with the |.|)"),
        Step("(23) = (24) as printed, with the |.|: |int cos(y)/2 [N(y; f, sigma^2) - N(y; g, sigma^2)] dy| = "
             "|e^(-sigma^2/2)/2 (cos f - cos g)| (constant f, g)", lhs=_dudley_cos_witness, rhs=_dudley_cos_closed,
             search=lambda: [{"f": 0.3, "g_x": 1.2, "sigma": 0.7}, {"f": -1.0, "g_x": 0.5, "sigma": 1.5}], rtol=1e-20,
             tol_source="mpmath quadrature at 30 digits (error estimate < 1e-25) against the closed form",
             why="f, g: the values f(x), g(x) at one x (constant f, g: the p(x)-average is trivial)",
             cites=("(24)",), fidelity="as printed"),
        Step("(25): |e^{-s^2/2}/2 int (cos f - cos g) p| >= e^{-s^2/2}/2 int (f^2 + g^2) p, with constant f, g",
             lhs=sp.Abs(sp.exp(-sig**2 / 2) / 2 * (sp.cos(f_) - sp.cos(gg_))), rhs=sp.exp(-sig**2 / 2) / 2 * (f_**2 + gg_**2),
             relation=">=", erratum=Erratum(
                 key="002-eq25", source=SEED, where="eq (25)", says="|e^{-s^2/2}/2 int (cos f - cos g) p| >= e^{-s^2/2}/2 int (f^2 + g^2) p",
                 truth="cos z - cos x <= x^2 + z^2 bounds the difference from above, not below; with f = g the left side is 0. "
                 "Theorem 2.2's Dudley-metric claim needs another argument.", severity="false-statement",
                 root="002-thm22-dudley",
                 note="False inequality, not a slip: the printed identity cos(x) + x^2 >= cos(z) - z^2 gives the upper "
                 "bound only. It is the step by which the proof reaches the false Dudley half of Theorem 2.2 (the "
                 "root, 002-thm22-dudley): no lower bound of this kind can hold, since the Dudley metric is <= 2.",
                 at={"f": 1, "g_x": 1, "sigma": 1}), cites=("(25)",)),
    )),
    Derivation(key="transfer.relu_rkhs", title="ReLU kernel (150) and RKHS projections (151)-(156)", source=SEED,
               where="App. C, eqs (150)-(156)", entries=("transfer.relu_kernel", "transfer.rkhs_residual"), steps=(
        Step("stable form equals (150)", lhs=RELU_K_STABLE, rhs=RELU_K, symbolic=False, domain={u: (-1.0, 1.0)}),
        Step("k(1) = E relu(g)^2 = 1/2", lhs=sp.Subs(RELU_K, u, 1), rhs=sp.Integral(xg_**2 * PHI_, (xg_, 0, sp.oo))),
        Step("k(0) = (E relu(g))^2 = 1/(2 pi)", lhs=sp.Subs(RELU_K, u, 0), rhs=sp.Integral(xg_ * PHI_, (xg_, 0, sp.oo)) ** 2),
        Step("k(-1) = E relu(g) relu(-g) = 0 (w_j = -w_i: the ReLUs never fire together)", lhs=sp.Subs(RELU_K, u, -1), rhs=0),
        Step("(150) against the defining expectation E relu(w_i.x) relu(w_j.x) (angular quadrature)",
             lhs=lambda u: _entry("transfer.relu_kernel")(u=u), rhs=lambda u: _relu_kernel_quad(u),
             search=lambda: [{"u": x} for x in (0.0, 0.5, -0.5, 0.9, -0.9, -0.999999, 1.0, -1.0)],
             rtol=1e-13, tol_source="float64 kernel (a few ulps, series remainder < 1e-20) against 40-digit quadrature",
             why="(149) = (150) with u = u_ij for unit w_i, w_j (the entry is (150) in its stable form): the paper's "
                 "hypothesis, stated in Sec. 4 ('We constrain the hidden features in the model, source, and target to "
                 "the d-dimensional unit sphere w_i, w_i^* in S^{d-1}'); for general weights (149) is ||w_i|| ||w_j|| "
                 "times (150) (quadrature 1.0 against 0.5 at w_i = 2 e_1, w_j = e_1), so under the paper's own "
                 "hypothesis (150) is as printed, not an erratum (issue #35)",
             cites=("(150)",), fidelity="as printed"),
        Step("(155): (1/m*) c*^T K~^T K^-1 K~ c* = b^T G^-1 b, G = m K, b = H c*/m*, H = sqrt(m m*) K~ (2 x 2 Gram "
             "matrices, every m, m*)",
             lhs=((cs_.T * Ktc_.T * Kc_.inv() * Ktc_ * cs_) / msK_)[0], rhs=(bK_.T * GK_.inv() * bK_)[0],
             domain={sp.Symbol("K_00", real=True): (1.0, 2.0), sp.Symbol("K_11", real=True): (1.0, 2.0),
                     sp.Symbol("K_01", real=True): (-0.5, 0.5), mK_: (1.0, 10.0), msK_: (1.0, 10.0),
                     **{x: (-1.0, 1.0) for x in Ktc_}, **{x: (-2.0, 2.0) for x in cs_}},
             why="K = G/m (151), K~ = H/sqrt(m m*) (153) with G, H the L2 overlaps (149): the left side is (155)'s "
             "right side in its own names, the right side the squared norm of the L2 projection of f* (143) onto "
             "span{relu(w_j.x)} (b_j = <relu(w_j.x), f*>)", cites=("(155)",), fidelity="as printed"),
        Step("(156): the entry's (1/m*) c*^T K* c* - (1/m*) c*^T K~^T K^-1 K~ c* = ||f* - sum_j a_j k(w_j, .)||^2 at "
             "the least-squares a (the squared distance of f* to the span: ||P_perp f*||^2)", lhs=_rkhs_entry, rhs=_rkhs_lstsq,
             search=_rkhs_points,
             tol=1e-12, tol_source=("float64 eigen-solution of a Gram matrix with cond < 1e4 and entries <= 1/2: "
                                    "<= 1e4 * 1e-16 * ||f*||^2 (<= 10 here); the float64 least-squares a is off the "
                                    "minimizer by ~1e-12, which moves the residual by its square"),
             why="K is invertible at these points (m <= d, generic W), so the entry's pseudo-inverse is (156)'s K^-1",
             cites=("(156)",), fidelity="as printed"),
        Step("||P_perp f*||^2 >= 0 (a squared norm) at the entry's output", lhs=_rkhs_entry, rhs=0, relation=">=",
             search=_rkhs_points),
    )),
)

# -- seed 002 coverage (issue #14): the remaining labelled equations of App. B.1, B.5-B.8 and App. C ------------
def _rng(seed):
    return np.random.default_rng(seed)


_SHAPES = [{"n": 3, "d": 8, "seed": 0}, {"n": 8, "d": 3, "seed": 1}, {"n": 5, "d": 5, "seed": 2},
           {"n": 20, "d": 50, "seed": 3}, {"n": 50, "d": 20, "seed": 4}]


def _pinv_trace(n, d, seed):
    """(94) left side: tr((X^+)^T X^+) with numpy's pseudoinverse of a Gaussian n x d matrix"""
    Xp = np.linalg.pinv(_rng(seed).standard_normal((n, d)))
    return float(np.trace(Xp.T @ Xp))


def _inv_sv_sum(n, d, seed):
    """(94) right side: sum over the min(n, d) nonzero singular values of 1/sigma_l^2"""
    sv = np.linalg.svd(_rng(seed).standard_normal((n, d)), compute_uv=False)
    return float(np.sum(1.0 / sv**2))


def _transfer_setup(n, d, seed, theta=0.7, sigma=0.5):
    """X (n x d Gaussian), unit beta_s, unit nu orthogonal to it, beta_t = cos beta_s + sin nu, noise, unit v"""
    r = _rng(seed)
    X = r.standard_normal((n, d))
    Q, _ = np.linalg.qr(r.standard_normal((d, 3)))
    bs, nu, v = Q[:, 0], Q[:, 1], Q[:, 2]
    eps = sigma * r.standard_normal(n)
    bt = math.cos(theta) * bs + math.sin(theta) * nu
    return X, bs, nu, v, bt, eps


def _rank_one_pinv(n, d, seed):
    """(101) left side: numpy's pseudoinverse of Phi = (X beta_s) v^T"""
    X, bs, _, v, _, _ = _transfer_setup(n, d, seed)
    return np.linalg.pinv(np.outer(X @ bs, v))


def _rank_one_pinv_seed(n, d, seed):
    """(101) right side: v (X beta_s)^T / ||X beta_s||^2"""
    X, bs, _, v, _, _ = _transfer_setup(n, d, seed)
    a = X @ bs
    return np.outer(v, a) / (a @ a)


def _lt_beta(n, d, seed):
    """(102)-(103): W_1..W_{L-1} Phi^+ y_t with W_1..W_{L-1} = beta_s v^T (Theorem 3.4) and numpy's pinv"""
    X, bs, _, v, bt, eps = _transfer_setup(n, d, seed)
    y = X @ bt + eps
    return np.outer(bs, v) @ (np.linalg.pinv(X @ np.outer(bs, v)) @ y)


def _b105(X, bs, y):
    return (bs @ X.T @ y) / (bs @ X.T @ X @ bs)


def _lt_beta_seed(n, d, seed):
    """(104)-(105): b beta_s with b = beta_s^T X^T y_t / beta_s^T X^T X beta_s"""
    X, bs, _, _, bt, eps = _transfer_setup(n, d, seed)
    return _b105(X, bs, X @ bt + eps) * bs


def _b106(n, d, seed):
    """(106): b split into signal and noise parts, y_t = X beta_t + eps"""
    X, bs, _, _, bt, eps = _transfer_setup(n, d, seed)
    q = bs @ X.T @ X @ bs
    return (bs @ X.T @ X @ bt) / q + (bs @ X.T @ eps) / q


def _b105_at(n, d, seed):
    X, bs, _, _, bt, eps = _transfer_setup(n, d, seed)
    return _b105(X, bs, X @ bt + eps)


def _b_pair_mean(n, d, seed, theta):
    """(109)-(110): b averaged over a draw and its mirror image (X R, -eps), R = I - 2 nu nu^T: (z, w, eps) ->
    (z, -w, -eps) has the same law (z = X beta_s, w = X nu independent N(0, I_n)), so E b is this pair's mean"""
    X, bs, nu, _, _, eps = _transfer_setup(n, d, seed, theta=theta)
    bt = math.cos(theta) * bs + math.sin(theta) * nu
    R = np.eye(d) - 2 * np.outer(nu, nu)
    return 0.5 * (_b105(X, bs, X @ bt + eps) + _b105(X @ R, bs, X @ R @ bt - eps))


def _ridge_readout(n, d, seed, lam):
    """(118): W_L = (Phi^T Phi + n lam I_d)^-1 Phi^T y_t with Phi = (X beta_s) v^T"""
    X, bs, _, v, bt, eps = _transfer_setup(n, d, seed)
    Phi = np.outer(X @ bs, v)
    return Phi, X @ bt + eps, np.linalg.solve(Phi.T @ Phi + n * lam * np.eye(d), Phi.T @ (X @ bt + eps))


def _ridge_grad_norm(n, d, seed, lam):
    """gradient of the objective (12) at (118): Phi^T (Phi W - y)/n + lam W (its norm)"""
    Phi, y, W = _ridge_readout(n, d, seed, lam)
    return float(np.linalg.norm(Phi.T @ (Phi @ W - y) / n + lam * W))


def _ridge_beta(n, d, seed, lam):
    """(121): beta = W_1 .. W_{L-1} W_L with W_1 .. W_{L-1} = beta_s v^T (120) and W_L from (118)"""
    X, bs, _, v, _, _ = _transfer_setup(n, d, seed)
    return np.outer(bs, v) @ _ridge_readout(n, d, seed, lam)[2]


def _ridge_beta_seed(n, d, seed, lam):
    """(123): ((X beta_s)^T y_t / (||X beta_s||^2 + n lam)) beta_s"""
    X, bs, _, _, bt, eps = _transfer_setup(n, d, seed)
    a = X @ bs
    return (a @ (X @ bt + eps)) / (a @ a + n * lam) * bs


def _ridge_eq122(n, d, seed, lam):
    """(122) as printed: beta_s v^T ((||X beta_s||^2 + n lam) I_d)^-1 v (X beta_s)^T y_t"""
    X, bs, _, v, bt, eps = _transfer_setup(n, d, seed)
    a = X @ bs
    M = (a @ a + n * lam) * np.eye(d)
    return np.outer(bs, v) @ np.linalg.solve(M, v) * (a @ (X @ bt + eps))


def _ridge_min_scalar(Phi, y_t, n, lam=0.0):
    """the minimiser of (12)'s objective (1/(2n)) ||Phi W_L - y_t||^2 + (lam/2) ||W_L||^2 ((9)'s at lam = 0) in the
    scalar instance d = n = 1, computed numerically: least squares (SVD) of the stacked system
    [Phi/sqrt(n); sqrt(lam)] W = [y_t/sqrt(n); 0], whose squared residual is twice the objective"""
    A = np.array([[Phi / math.sqrt(n)], [math.sqrt(lam)]])
    b = np.array([y_t / math.sqrt(n), 0.0])
    return float(np.linalg.lstsq(A, b, rcond=None)[0][0])


def _b_lstsq(X, beta_s, y_t):
    """(102)-(105)'s b, the coefficient of beta_s in W_1 .. W_{L-1} Phi^+ y_t: the least-squares coefficient of y_t
    on X beta_s (Phi^+ = v (X beta_s)^T/||X beta_s||^2, (101)), in the scalar instance d = n = 1, computed
    numerically (SVD least squares of the 1x1 system (X beta_s) b = y_t)"""
    return float(np.linalg.lstsq(np.array([[X * beta_s]]), np.array([y_t]), rcond=None)[0][0])


_B_SCALAR_POINTS = [{"X": 0.8, "beta_s": 1.0, "beta_t": 0.6, "eps": 0.3},
                    {"X": -1.7, "beta_s": -1.0, "beta_t": -0.2, "eps": -0.9},
                    {"X": 2.5, "beta_s": 1.0, "beta_t": 1.0, "eps": 0.05}]


_RIDGE_SCALAR_POINTS = [{"Phi": 0.7, "y_t": 0.4, "n": 1, "lam": 0.5}, {"Phi": -1.3, "y_t": -1.1, "n": 1, "lam": 0.01},
                        {"Phi": 2.0, "y_t": 3.0, "n": 1, "lam": 2.0}, {"Phi": 0.3, "y_t": -2.5, "n": 1, "lam": 1.0}]


def _perp_pair_mean(n, d, seed):
    """(140)-(141): <nu, (I - P_row(X)) beta_s> averaged over X and its mirror X R (R = I - 2 nu nu^T: same law
    of X; P_row(XR) = R P R, R nu = -nu, R beta_s = beta_s, so the two values are opposite)"""
    X, bs, nu, _, _, _ = _transfer_setup(n, d, seed)
    R = np.eye(d) - 2 * np.outer(nu, nu)
    vals = [nu @ (bs - np.linalg.pinv(M) @ M @ bs) for M in (X, X @ R)]
    return float(0.5 * (vals[0] + vals[1]))


def _chi2_moment(n, lam, power, denom_power, dps=30):
    """E[||z||^power / (||z||^2 + n lam)^denom_power], z ~ N(0, I_n), by quadrature of the chi-square density"""
    with mpmath.workdps(dps):
        k = mpmath.mpf(n)
        logc = -(k / 2) * mpmath.log(2) - mpmath.loggamma(k / 2)
        f = lambda t: mpmath.exp(logc + (k / 2 - 1) * mpmath.log(t) - t / 2) * t ** (mpmath.mpf(power) / 2) \
            / (t + k * lam) ** denom_power
        sd = mpmath.sqrt(2 * k)
        pts = [0] + [max(k + j * sd, k / 2 ** (abs(j) + 1)) if j < 0 else k + j * sd for j in (-12, -4, 0, 4, 12)] \
            + [mpmath.inf]
        return mpmath.quad(f, sorted(set(pts)))


def _radial(n, m, lam, denom_power, dps=30):
    """S_{n-1}/(2 pi)^{n/2} int_0^oo r^{m+1} e^{-r^2/2} / (r^2 + n lam)^denom_power dr (spherical coordinates)"""
    with mpmath.workdps(dps):
        k = mpmath.mpf(n)
        S = 2 * mpmath.pi ** (k / 2) / mpmath.gamma(k / 2)
        return S / (2 * mpmath.pi) ** (k / 2) * mpmath.quad(
            lambda r: r ** (m + 1) * mpmath.exp(-r**2 / 2) / (r**2 + k * lam) ** denom_power, [0, 1, 5, mpmath.inf])


def _int_u(n, lam):
    """(128): 2^{n/2} int_0^oo u^{n/2} e^{-u} / (2u + n lam)^2 du"""
    with mpmath.workdps(30):
        return 2 ** (mpmath.mpf(n) / 2) * mpmath.quad(
            lambda x: x ** (mpmath.mpf(n) / 2) * mpmath.exp(-x) / (2 * x + n * lam) ** 2, [0, 1, 5, mpmath.inf])


def _int_t(n, lam):
    """(129): n (2n)^{n/2} int_0^oo t^{n/2} e^{-nt} / (2nt + n lam)^2 dt"""
    with mpmath.workdps(30):
        k = mpmath.mpf(n)
        return k * (2 * k) ** (k / 2) * mpmath.quad(
            lambda x: x ** (k / 2) * mpmath.exp(-k * x) / (2 * k * x + k * lam) ** 2, [0, 1 / k, 5 / k, mpmath.inf])


def _int_g_exp_nf(n, lam):
    """(130): n (2n)^{n/2} int_0^oo g(t) e^{n f(t)} dt with f(t) = log(t)/2 - t, g(t) = (2nt + n lam)^-2"""
    with mpmath.workdps(30):
        k = mpmath.mpf(n)
        return k * (2 * k) ** (k / 2) * mpmath.quad(
            lambda x: (2 * k * x + k * lam) ** -2 * mpmath.exp(k * (mpmath.log(x) / 2 - x)), [0, 1 / k, 5 / k, mpmath.inf])


_BIG_N = 10**6
_SD_BIG = math.sqrt(2 / _BIG_N)   # E|T - 1| <= sd(T) = sqrt(2/n) for T = ||z||^2/n


def _i1_saddle(n, lam):
    """(133)'s right side: S_{n-1}/(2 pi)^{n/2} sqrt(pi n) n^{n/2} e^{-n/2}/(n + n lam)^2, S_{n-1} = 2 pi^{n/2}/Gamma(n/2)
    (in logarithms: n^{n/2} overflows float64)"""
    with mpmath.workdps(30):
        k, lm = mpmath.mpf(n), mpmath.mpf(lam)
        log_s = mpmath.log(2) + (k / 2) * mpmath.log(mpmath.pi) - mpmath.loggamma(k / 2)
        return mpmath.exp(log_s - (k / 2) * mpmath.log(2 * mpmath.pi) + mpmath.log(mpmath.sqrt(mpmath.pi * k))
                          + (k / 2) * mpmath.log(k) - k / 2) / (k + k * lm) ** 2


def _hermite_risk(c1, c2):
    """E_x (x^T c)^2 for x ~ N(0, I_2) by a 3-node Gauss-Hermite rule per axis (exact for degree <= 5)"""
    xs, ws = np.polynomial.hermite_e.hermegauss(3)
    ws = ws / ws.sum()
    return float(sum(wi * wj * (xi * c1 + xj * c2) ** 2 for xi, wi in zip(xs, ws) for xj, wj in zip(xs, ws)))


def _hermite_f2(a_1, a_2):
    """(27)'s left side int f^2 p for f = a_1 phi_1 + a_2 phi_2 (phi_1 = x, phi_2 = (x^2 - 1)/sqrt 2, p = N(0, 1)) by a
    3-node Gauss-Hermite rule (exact for degree <= 5)"""
    xs, ws = np.polynomial.hermite_e.hermegauss(3)
    ws = ws / ws.sum()
    return float(sum(w * (a_1 * x + a_2 * (x * x - 1) / math.sqrt(2)) ** 2 for x, w in zip(xs, ws)))


def _bl_norm_cos_half(k):
    """||cos(y)/2||_BL = sup |d/dy cos(y)/2| + sup |cos(y)/2| over a grid of the period with 4k points (it contains
    the maximizers y = 0 and pi/2; cos is 2 pi periodic so the suprema over R are over one period)"""
    ys = [mpmath.pi * j / (2 * k) for j in range(4 * k)]
    return max(abs(mpmath.sin(y)) / 2 for y in ys) + max(abs(mpmath.cos(y)) / 2 for y in ys)


def _kl_paper_witness(f_norm2, sigma, delta, alpha):
    """Theorem 2.2's proof, KL half: D_KL(p_f || p_g) (the entry) at the printed witness g = -alpha f,
    ||f - g||^2 = (1 + alpha)^2 ||f||^2"""
    return _entry("transfer.kl_divergence")(dist_sq=(1 + alpha) ** 2 * f_norm2, sigma=sigma)


def _kl_scaled(f_norm2, sigma, delta):
    """Theorem 2.2, KL half: D_KL(p_f || p_g) (the entry) at g = c f, c = 1 + 2 sqrt(2 sigma^2 delta/||f||^2)"""
    c = 1 + 2 * math.sqrt(2 * sigma**2 * delta / f_norm2)
    return _entry("transfer.kl_divergence")(dist_sq=(c - 1) ** 2 * f_norm2, sigma=sigma)


def _mercer_residual(seed):
    """(154): with psi_l = sum_i (z_l)_i relu(w_i.x)/sqrt(m lambda_l^2), K z_l = lambda_l^2 z_l, K = G/m (151):
    T_k psi_l = (1/m) sum_i relu(w_i.x) <relu(w_i.x), psi_l> has coefficients G c/m; returns the largest
    |T_k psi_l - lambda_l^2 psi_l| coefficient and |<psi_l, psi_l> - 1| (c^T G c) over l, G from the entry (150)"""
    r = _rng(seed)
    m = 4
    W = r.standard_normal((m, 3))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    G = np.array(_entry("transfer.relu_kernel")(u=np.clip(W @ W.T, -1, 1)), dtype=float)
    K = G / m
    lam2, Z = np.linalg.eigh(K)
    worst = 0.0
    for l in range(m):
        c = Z[:, l] / math.sqrt(m * lam2[l])
        worst = max(worst, float(np.max(np.abs(G @ c / m - lam2[l] * c))), abs(float(c @ G @ c) - 1))
    return worst


def _rkhs_norms(seed):
    """(145) and (148) for f = sum_j alpha_j k(., z_j), k(x, x') = (1/m) sum_i relu(w_i.x) relu(w_i.x') (m = 4 unit
    w_i in R^3, 4 points z_j): returns ((145): alpha^T k(Z, Z) alpha, (148): sum_l c_l^2/lambda_l^2 with
    c_l = <f, psi_l>_{L2} through the Gram matrix G of the entry (150) and psi_l of (154))"""
    r = _rng(seed)
    m = 4
    W = r.standard_normal((m, 3))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    Zp, alpha = r.standard_normal((3, m)), r.standard_normal(m)
    S = np.maximum(W @ Zp, 0.0)                       # S_ij = relu(w_i . z_j)
    norm_145 = float(alpha @ (S.T @ S / m) @ alpha)
    a = S @ alpha                                      # f = (1/m) sum_i a_i relu(w_i . x)
    G = np.array(_entry("transfer.relu_kernel")(u=np.clip(W @ W.T, -1, 1)), dtype=float)
    lam2, Zl = np.linalg.eigh(G / m)
    coef = [(a @ G @ (Zl[:, l] / math.sqrt(m * lam2[l]))) / m for l in range(m)]
    return norm_145, float(sum(cl**2 / lam2[l] for l, cl in enumerate(coef)))


# == helper h5 (s32): App. C in the print's own names ((155)-(156) at m = m* = 2) ================================
class _AppCPoint(dict):
    """A point whose values `state_values` are computed from the same state as the step's sides (the fidelity
    comparison never credits a printed side made only of them); its other values are the point's inputs."""

    state_values: frozenset = frozenset()


def _appc_points():
    """m = m* = 2 unit-free weights in d = 3 (inputs W, W_star, c_star; the printed c_* = (c_1, c_2), m_* = m_s = 2),
    with the values of (156)'s printed names at them: K = G/m (151), K~ = H/sqrt(m m*) (153), K* = G*/m* (152)
    from the entry (150) in float64, and ||f*||^2, ||P_par f*||^2 of the least-squares projection (`_appc_lstsq`)"""
    rng = np.random.default_rng(11)
    pts = []
    for _ in range(4):
        W, Ws, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), rng.standard_normal(2)
        G, H, Gs = _grams(W, Ws, lambda x: np.asarray(RELU_KERNEL.numpy(x), dtype=float))
        K, Kt, Ks = G / 2, H / math.sqrt(2 * 2), Gs / 2
        f2, ppar, _ = _appc_lstsq(W, Ws, c)
        state = {**{f"K_{i}{j}": float(K[i, j]) for i, j in ((0, 0), (0, 1), (1, 1))},
                 **{f"Ks_{i}{j}": float(Ks[i, j]) for i, j in ((0, 0), (0, 1), (1, 1))},
                 **{f"Kt_{i}{j}": float(Kt[i, j]) for i in range(2) for j in range(2)},
                 "fs2": float(f2), "Ppar2": float(ppar)}
        pt = _AppCPoint(W=W, W_star=Ws, c_star=c, c_1=float(c[0]), c_2=float(c[1]), m_s=2, **state)
        pt.state_values = frozenset(state)
        pts.append(pt)
    return pts


def _appc_lstsq(W, W_star, c_star):
    """The L2(p) projection of f* = (1/m*) sum_j c*_j relu(w*_j.x) onto span{relu(w_i.x)} by least squares, Grams of
    the arc-cosine formula at 40 digits, rows normalized in mpmath: (||f*||^2, ||P_par f*||^2 = a.G a, ||f* - P_par
    f*||^2 = ||f*||^2 - 2 a.b + a.G a) at a = lstsq(G, b); the first minus the second equals the third only where the
    residual is orthogonal to the span (the normal equations), which nothing here imposes but the least squares"""
    with mpmath.workdps(40):
        def unit(M):
            return [[mpmath.mpf(float(x)) / mpmath.sqrt(sum(mpmath.mpf(float(y)) ** 2 for y in row)) for x in row]
                    for row in M]

        def k(a, b):
            uu = max(min(sum(x * y for x, y in zip(a, b)), 1), -1)
            return (mpmath.sqrt(1 - uu**2) + uu * (mpmath.pi - mpmath.acos(uu))) / (2 * mpmath.pi)

        Wn, Sn = unit(np.asarray(W)), unit(np.asarray(W_star))
        cs, ms = [mpmath.mpf(float(c)) for c in c_star], len(Sn)
        G = [[k(a, b) for b in Wn] for a in Wn]
        bv = [sum(k(a, sb) * c for sb, c in zip(Sn, cs)) / ms for a in Wn]
        f2 = sum(cs[i] * cs[j] * k(Sn[i], Sn[j]) for i in range(ms) for j in range(ms)) / ms**2
        a = [mpmath.mpf(float(x)) for x in np.linalg.lstsq(np.array(G, dtype=float), np.array(bv, dtype=float),
                                                           rcond=None)[0]]
        m = len(a)
        aGa = sum(a[i] * G[i][j] * a[j] for i in range(m) for j in range(m))
        return f2, aGa, f2 - 2 * sum(a[i] * bv[i] for i in range(m)) + aGa


def _appc_entry(W, W_star, c_star, **_):
    """the entry transfer.rkhs_residual ((156)'s right side, K^-1 as the pseudo-inverse)"""
    return _entry("transfer.rkhs_residual")(W=W, W_star=W_star, c_star=c_star)


def _appc_residual(W, W_star, c_star, **_):
    """||f* - P_par f*||^2 of the least-squares projection (`_appc_lstsq`)"""
    return _appc_lstsq(W, W_star, c_star)[2]
_MERCER_Z = (-1.1, 0.3, 1.7)                      # (145)'s points z_j of the rank-3 instance (M = 3)
_MERCER_X = tuple(np.linspace(-3.0, 3.0, 15))     # where f and the kernel sections are sampled


def _hermite_psi(x):
    """The orthonormal Hermite functions of L2(N(0, 1)): psi_1 = 1, psi_2 = x, psi_3 = (x^2 - 1)/sqrt(2) (rows)."""
    x = np.asarray(x, dtype=float)
    return np.stack([np.ones_like(x), x, (x**2 - 1) / math.sqrt(2)])


def _mercer_points():
    """Inputs of (148)'s instance: T_k's eigenvalues lambda_l^2 (lam_psi) and f's coefficients c_l (c_psi), rank 3"""
    rng = np.random.default_rng(5)
    return [_AppCPoint(c_psi=tuple(float(v) for v in rng.uniform(-2, 2, 3)),
                       lam_psi=tuple(float(v) for v in rng.uniform(0.3, 2.0, 3)), rank_k=3) for _ in range(4)]


def _norm_by_145(c_psi, lam_psi, **_):
    """||f||_k^2 by (145) for f = sum_l c_l psi_l and k(x, x') = sum_l lambda_l^2 psi_l(x) psi_l(x') (its Mercer
    eigenpairs {lambda_l^2, psi_l}, rank 3): f = sum_j alpha_j k(., z_j) with alpha from least squares on f's values
    at 15 points x (three sections k(., z_j) span the RKHS), then sum_ij alpha_i k(z_i, z_j) alpha_j"""
    lam2 = np.asarray(lam_psi, dtype=float) ** 2
    Px, Pz = _hermite_psi(_MERCER_X), _hermite_psi(_MERCER_Z)
    sections = Px.T @ (lam2[:, None] * Pz)        # k(x_s, z_j)
    alpha = np.linalg.lstsq(sections, Px.T @ np.asarray(c_psi, dtype=float), rcond=None)[0]
    return float(alpha @ (Pz.T @ (lam2[:, None] * Pz)) @ alpha)


def _spectral_sum(c_psi, lam_psi, **_):
    """sum_l c_l^2 / lambda_l^2 over the instance's rank"""
    return float(sum(c**2 / lam**2 for c, lam in zip(c_psi, lam_psi)))


# (147): T_k psi_l at a point x in the same Mercer instance (k = sum_l lambda_l^2 psi_l psi_l, Hermite psi_l)
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(10)   # weight e^(-t^2/2): exact for degree <= 19
_GH_W = _GH_W / math.sqrt(2 * math.pi)                   # ... as an expectation under p = N(0, 1)


_TOL147 = ("Gauss-Hermite with 10 nodes is exact for polynomials of degree <= 19 (the integrand's is <= 4); float64 "
           "rounding of its 10 x 3 terms, whose absolute values add up to <= sum_m lambda_m^2 |psi_m(x)| sum_i w_i "
           "|psi_m psi_l|(x_i) <= 3 * 4 * 2.2 * 1 at |x| <= 2, lambda <= 2: <= 30 * 27 * 1.2e-16 < 1e-13 absolute")


def _eig147_point(x, l, lam_psi):
    """A point of (147)'s instance: inputs x (where T_k psi_l is evaluated), the mode l (numbered from 1) and the
    lambda_l of the kernel's rank len(lam_psi); psi_x = (psi_1(x), ..., psi_r(x)) is computed from x (state)."""
    pt = _AppCPoint(x=float(x), l=int(l), lam_psi=tuple(float(v) for v in lam_psi),
                    psi_x=tuple(float(v) for v in _hermite_psi(x)[:len(lam_psi)]))
    pt.state_values = frozenset({"psi_x"})
    return pt


def _eig147_points():
    """(147)'s instance at rank 3: x in [-2, 2], each mode l = 1, 2, 3, lambda_l in [0.3, 2]"""
    rng = np.random.default_rng(147)
    return [_eig147_point(rng.uniform(-2.0, 2.0), 1 + i % 3, rng.uniform(0.3, 2.0, 3)) for i in range(6)]


def _tk_psi(x, l, lam_psi, **_):
    """(T_k psi_l)(x) by (146): int p(x') k(x, x') psi_l(x') dx' with p = N(0, 1) and k(x, x') = sum_m lambda_m^2
    psi_m(x) psi_m(x') (the kernel of the Mercer decomposition {lambda_l^2, psi_l} the text names before (147)), by
    Gauss-Hermite quadrature in x' (10 nodes: exact, the integrand k(x, x') psi_l(x') is a polynomial of degree <= 4
    in x'); the eigenvalue is not used, only the kernel and the quadrature"""
    lam2 = np.asarray(lam_psi, dtype=float) ** 2
    r = len(lam2)
    kx = (lam2[:, None] * _hermite_psi(x)[:r, None] * _hermite_psi(_GH_X)[:r]).sum(axis=0)    # k(x, x'_i)
    return float(np.sum(_GH_W * kx * _hermite_psi(_GH_X)[int(l) - 1]))


def _lam_psi_printed(x, l, lam_psi, psi_x, **_):
    """(147)'s right side as printed: lambda_l psi_l(x)"""
    return float(lam_psi[int(l) - 1] * psi_x[int(l) - 1])


def _lam2_psi(x, l, lam_psi, psi_x, **_):
    """(147)'s right side with the eigenvalue lambda_l^2 of the decomposition {lambda_l^2, psi_l}: lambda_l^2 psi_l(x)"""
    return float(lam_psi[int(l) - 1] ** 2 * psi_x[int(l) - 1])


def _rkhs145_points():
    """Inputs of (145)'s instance: m = 4 unit w_i in R^3 (the network kernel k(x, x') = (1/m) sum_i relu(w_i.x)
    relu(w_i.x'), the one of Sec. 4 and App. C), M = 3 points z_j and the coefficients alpha of f = sum_j alpha_j
    k(., z_j); the Gram matrix k_zz = k(z_i, z_j) is computed from them (state)"""
    rng = np.random.default_rng(7)
    pts = []
    for _ in range(4):
        W = rng.standard_normal((4, 3))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        Z, alpha = rng.standard_normal((3, 3)), rng.standard_normal(3)
        S = np.maximum(W @ Z, 0.0)                       # S_ij = relu(w_i . z_j)
        pt = _AppCPoint(W=W, Z=Z, alpha_k=tuple(float(a) for a in alpha), M=3, k_zz=S.T @ S / 4)
        pt.state_values = frozenset({"k_zz"})
        pts.append(pt)
    return pts


def _feature_norm(W, Z, alpha_k, **_):
    """||f||^2 of f = sum_j alpha_j k(., z_j) as the squared norm of its unique coefficients beta in the features
    relu(w_i.x)/sqrt(m) (the RKHS of k = their Gram kernel, Moore-Aronszajn), beta by least squares on f's values at
    40 Gaussian points x (the 4 features are linearly independent there)"""
    X = np.random.default_rng(3).standard_normal((40, 3))
    m = W.shape[0]
    FX, FZ = np.maximum(X @ W.T, 0.0) / math.sqrt(m), np.maximum(Z.T @ W.T, 0.0) / math.sqrt(m)
    fx = (FX @ FZ.T) @ np.asarray(alpha_k, dtype=float)      # f(x_s) = sum_j alpha_j k(x_s, z_j)
    beta = np.linalg.lstsq(FX, fx, rcond=None)[0]
    return float(beta @ beta)


def _gram_form(alpha_k, k_zz, **_):
    """sum_ij alpha_i k(z_i, z_j) alpha_j"""
    a = np.asarray(alpha_k, dtype=float)
    return float(a @ np.asarray(k_zz) @ a)


# == end of helper h5's helpers =====================================================================================


t_, Z2_ = sp.Symbol("t", positive=True), sp.Symbol("Z2", positive=True)
f_lap = sp.log(t_) / 2 - t_                       # (130): f(t) = log(t)/2 - t
g_lap = (2 * nn * t_ + nn * lam) ** -2            # (130): g(t) = (2nt + n lam)^-2
a1_, a2_, xh_ = sp.symbols("a_1 a_2 x_h", real=True)
l1_e, l2_e, l3_e, zz_ = sp.symbols("lambda_1 lambda_2 lambda_3 z", positive=True)
delta_ = sp.Symbol("delta", positive=True)

COVERAGE_DERIVATIONS = (
    Derivation(key="transfer.coverage_b1", title="Theorem 2.2 and App. B.1: the Dudley-metric and KL constructions", source=SEED,
               where="Theorem 2.2, eqs (23), (27)", entries=("transfer.kl_divergence",), steps=(
        Step("(23): h(x, y) = cos(y)/2 is in the BL unit ball: ||cos(y)/2||_BL = ||h||_L + ||h||_inf = 1 (the text "
             "after (25))", lhs=lambda k: _bl_norm_cos_half(k), rhs=1, search=lambda: [{"k": 1}, {"k": 50}], tol=1e-14,
             tol_source="mpmath sin, cos at the grid points y = 0, pi/2 (15 digits): |1 - value| <= 1e-15",
             why="(23) is (22)'s supremum bounded below by its value at this h: it needs ||h||_BL <= 1, printed as "
             "'= 1'", cites=("(23)",), fidelity="as printed"),
        Step("(27): int f^2 p = sum_i alpha_i^2 for f = sum alpha_i phi_i, orthonormal phi (Hermite: x, (x^2-1)/sqrt 2)",
             lhs=sp.Integral((a1_ * xh_ + a2_ * (xh_**2 - 1) / sp.sqrt(2)) ** 2 * sp.exp(-xh_**2 / 2) / sp.sqrt(2 * sp.pi),
                         (xh_, -sp.oo, sp.oo)), rhs=a1_**2 + a2_**2,
             domain={a1_: (-2.0, 2.0), a2_: (-2.0, 2.0)},
             why="M = 2 with the orthonormal Hermite basis of L2(N(0, 1)) for phi_i (the next step states the printed "
             "chain at two points, through its middle side)"),
        Step("(27) as printed at M = 2, p = N(0, 1), phi_1 = x, phi_2 = (x^2 - 1)/sqrt 2: int f^2 p = sum_{i,j} "
             "alpha_i alpha_j int p phi_i phi_j = sum_i alpha_i^2, the left side by Gauss-Hermite quadrature",
             lhs=_hermite_f2, rhs=lambda a_1, a_2: a_1**2 + a_2**2,
             search=lambda: [{"a_1": 0.3, "a_2": -1.2}, {"a_1": 1.7, "a_2": 0.4}, {"a_1": -0.9, "a_2": 2.0},
                             {"a_1": 0.0, "a_2": 1.0}], rtol=1e-14,
             tol_source="a 3-node Gauss-Hermite rule is exact for f^2 (degree 4 <= 5); float64 nodes and weights: "
                        "9 terms <= 10, <= 1e-15 relative",
             why="the instance of the step before, at points (numeric sides: the printed middle side, written out "
             "at M = 2 by the map, is evaluated at these points only)", cites=("(27)",), fidelity="as printed"),
        Step("Theorem 2.2 (KL): g = c f with c = 1 + 2 sqrt(2 sigma^2 delta/||f||^2) gives D_KL(p_f||p_g) >= delta "
             "(the entry (31))", lhs=_kl_scaled, rhs=lambda f_norm2, sigma, delta: delta, relation=">=",
             search=lambda: _grid(f_norm2=(1.0, 0.01, 100.0), sigma=(1.0, 0.1, 10.0), delta=(1.0, 1e-3, 1e3)),
             cites=("Theorem 2.2",), fidelity=Amendment(
                 key="002-thm22-kl-g", kind="statement replaced",
                 what="the proof's witness g = -alpha f, alpha > sigma delta^{1/2}/||f||, replaced by g = c f with "
                 "c = 1 + 2 sqrt(2 sigma^2 delta/||f||^2) (D_KL = 4 delta)",
                 why="the printed witness reaches only D_KL > delta/2 (erratum 002-thm22-kl-witness, the next step); "
                 "with this g the KL half of Theorem 2.2 holds as stated", severity="proof-gap",
                 root="002-thm22-kl-witness")),
        Step("Theorem 2.2's proof (KL): g = -alpha f with any alpha > sigma delta^{1/2}/||f||_{L2(p)} gives "
             "D_KL(p_f||p_g) >= delta (the entry (31))", lhs=_kl_paper_witness,
             rhs=lambda f_norm2, sigma, delta, alpha: delta, relation=">=", erratum=Erratum(
                 key="002-thm22-kl-witness", source=SEED, where="Theorem 2.2, proof (App. B.1, after (31))",
                 says="for any delta > 0 we can choose g = -alpha f with alpha > sigma delta^{1/2}/||f||_{L2(p)}",
                 truth="D_KL(p_f||p_{-alpha f}) = (1 + alpha)^2 ||f||^2/(2 sigma^2) > alpha^2 ||f||^2/(2 sigma^2) > "
                 "delta/2 only; alpha >= sigma sqrt(2 delta)/||f|| gives D_KL >= delta.", severity="proof-gap",
                 note="Proof gap: the KL half of the theorem holds (D_KL is unbounded in g); the printed threshold "
                 "misses a factor sqrt 2. At ||f||^2 = 1/100, sigma = delta = 1, alpha = 11 > 10: D_KL = 0.72 < 1.",
                 at={"f_norm2": 0.01, "sigma": 1.0, "delta": 1.0, "alpha": 11.0}),
             cites=("Theorem 2.2",)),
        Step("Theorem 2.2 (Dudley): gamma_beta(p_f, p_g) >= delta for some g; but ||h||_BL <= 1 forces |h| <= 1, so "
             "gamma_beta <= 2 TV(p_f, p_g) = 2 erf(|f - g|/(2 sqrt 2 sigma)) (constant f, g) and the claim needs "
             "2 erf(...) >= delta", lhs=2 * sp.erf(sp.Abs(f_ - gg_) / (2 * sp.sqrt(2) * sig)), rhs=delta_, relation=">=",
             erratum=Erratum(
                 key="002-thm22-dudley", source=SEED, where="Theorem 2.2 and its proof (App. B.1, after (27))",
                 says="for any f in Phi and any delta > 0 there exists g in Phi with gamma_beta(p_f, p_g) >= delta",
                 truth="the Dudley metric is at most 2 (|E_p h - E_q h| <= 2 ||h||_inf <= 2 on the BL unit ball): the claim "
                 "fails for every delta > 2, whatever g. The KL half of the theorem holds (D_KL = ||f-g||^2/(2 sigma^2) "
                 "is unbounded).",
                 severity="false-statement",
                 note="False statement (the root; 002-eq25 is the proof step that reached it): at f = 0, g = 10, "
                 "sigma = 1: 2 TV = 2 erf(10/(2 sqrt 2)) < 2 < delta = 3, and no g does better. The step states the "
                 "theorem through the bound gamma_beta <= 2 TV; the text's typos p_a, q for p_g, g are read as g.",
                 at={"f": 0, "g_x": 10, "sigma": 1, "delta": 3}),
             cites=("Theorem 2.2",)),
    )),
    Derivation(key="transfer.coverage_b5_b6", title="App. B.5-B.6: risk of a predictor, pseudoinverses, the linear-transfer "
               "coefficient b", source=SEED, where="eqs (88), (94), (96), (101)-(107), (109)-(110)",
               entries=("transfer.scratch_risk", "transfer.pinv_trace", "transfer.linear_transfer_risk"), steps=(
        Step("(88)/(107): E_x (x^T (beta_hat - beta_t))^2 = ||beta_hat - beta_t||^2 for x ~ N(0, I) (d = 2)",
             lhs=_hermite_risk, rhs=lambda c1, c2: c1**2 + c2**2,
             search=lambda: _grid(c1=(1.0, 0.0, -0.3, 2.5), c2=(0.0, 1.0, 0.7, -4.0)), rtol=1e-14,
             tol_source="Gauss-Hermite (3 nodes) exact for degree 2; float64 nodes/weights: 9 terms, <= 1e-15 relative",
             why="c = beta_hat - beta_t: the risk (6) of a linear predictor is ||beta_hat - beta_t||^2 for x ~ N(0, I), "
             "which (88), (107) and (124) state", cites=("(88)", "(107)", "(124)"), fidelity="as printed"),
        Step("(94): tr((X^+)^T X^+) = sum_{l <= min(n, d)} 1/sigma_l^2", lhs=_pinv_trace, rhs=_inv_sv_sum,
             search=lambda: _SHAPES, rtol=1e-10,
             tol_source="float64 pinv and SVD of Gaussian matrices with cond <= 1e2 here: relative error <= cond^2 "
                        "* 1e-15 = 1e-11", why="for one X; (94) is its E_X", cites=("(94)",), fidelity="as printed"),
        Step("(96): -lim_{z->0} (1/n) tr((z I - C)^-1) = (1/n) tr(C^-1) (C = Q diag(lambda) Q^T, n = 3)",
             lhs=sp.Limit(-(1 / (zz_ - l1_e) + 1 / (zz_ - l2_e) + 1 / (zz_ - l3_e)) / 3, zz_, 0),
             rhs=(1 / l1_e + 1 / l2_e + 1 / l3_e) / 3, domain={l1_e: (0.1, 5.0), l2_e: (0.1, 5.0), l3_e: (0.1, 5.0)},
             why="tr is basis-free, so the trace is the sum over C's eigenvalues; (96) is gamma E of it",
             cites=("(96)",), fidelity="as printed"),
        Step("(101): Phi^+ = v (X beta_s)^T/||X beta_s||^2 for Phi = (X beta_s) v^T, ||v|| = 1",
             lhs=_rank_one_pinv, rhs=_rank_one_pinv_seed, search=lambda: _SHAPES, tol=1e-12,
             tol_source="float64 pinv of a rank-one matrix with entries <= 10 (SVD cutoff far below its one "
                        "singular value): <= 1e-13 absolute", why="v = v_{L-1}, unit", cites=("(101)",),
             fidelity="as printed"),
        Step("(102)-(105): W_1 .. W_{L-1} Phi^+ y_t = b beta_s, b = beta_s^T X^T y_t / beta_s^T X^T X beta_s",
             lhs=_lt_beta, rhs=_lt_beta_seed, search=lambda: _SHAPES, tol=1e-11,
             tol_source="float64 pinv and products of size <= 50 with entries <= 10: <= 1e-12 absolute",
             why="W_1 .. W_{L-1} = beta_s v^T (Theorem 3.4's limit) and W_L = Phi^+ y_t, the minimum-norm solution of "
             "(9): the left side is (102)-(103), the right side (104) with (105)",
             cites=("(102)", "(103)", "(104)", "(105)"), fidelity="as printed"),
        Step("(106): b = beta_s^T X^T X beta_t/q + beta_s^T X^T eps/q (y_t = X beta_t + eps)", lhs=_b106, rhs=_b105_at,
             search=lambda: _SHAPES, rtol=1e-12, tol_source="float64: two quadratic forms of size <= 50, <= 1e-13",
             cites=("(106)",), fidelity="as printed"),
        Step("(105) at d = n = 1: the least-squares coefficient of y_t on X beta_s is "
             "beta_s^T X^T y_t/(beta_s^T X^T X beta_s)", lhs=_b_lstsq,
             rhs=lambda X, beta_s, y_t: beta_s * X * y_t / (beta_s * X * X * beta_s),
             search=lambda: [{"X": p["X"], "beta_s": p["beta_s"], "y_t": p["X"] * p["beta_t"] + p["eps"]}
                             for p in _B_SCALAR_POINTS], rtol=1e-12,
             tol_source="SVD least squares of a 1x1 system: relative error <= 1e-15",
             why="(105) in the scalar instance d = n = 1 (X, beta_s = +-1 (unit norm), y_t numbers; transposes are "
             "the numbers themselves): b computed by least squares, not from the formula", cites=("(105)",),
             fidelity="as printed"),
        Step("(106) at d = n = 1: b with y_t = X beta_t + eps is beta_s^T X^T X beta_t/q + beta_s^T X^T eps/q, "
             "q = beta_s^T X^T X beta_s", lhs=lambda X, beta_s, beta_t, eps, y_t: _b_lstsq(X, beta_s, y_t),
             rhs=lambda X, beta_s, beta_t, eps, y_t: (beta_s * X * X * beta_t / (beta_s * X * X * beta_s)
                                                      + beta_s * X * eps / (beta_s * X * X * beta_s)),
             search=lambda: [dict(p, y_t=p["X"] * p["beta_t"] + p["eps"]) for p in _B_SCALAR_POINTS], rtol=1e-12,
             tol_source="SVD least squares of a 1x1 system and one product: relative error <= 1e-15",
             why="(106) in the scalar instance d = n = 1, the target model y_t = X beta_t + eps (Assumption 3.1, the "
             "point's labels y_t): b by least squares of y_t on X beta_s on the left, so (105)'s side, in y_t, has "
             "the point's value too", cites=("(106)",), fidelity="as printed"),
        Step("(109)-(110): E b = cos theta (the mean of b over a draw and its mirror image (z, -w, -eps))",
             lhs=_b_pair_mean, rhs=lambda n, d, seed, theta: math.cos(theta),
             search=lambda: [{**p, "theta": t} for p in _SHAPES for t in (0.7, 1.5, 2.8)], tol=1e-12,
             tol_source="float64 quadratic forms of size <= 50: <= 1e-13 absolute",
             why="(z, w, eps) -> (z, -w, -eps) preserves the law of (109)'s variables, so the pair's mean is E b "
             "exactly where b - cos theta is odd in (w, eps), as it is", cites=("(109)", "(110)"),
             fidelity="as printed"),
    )),
    Derivation(key="transfer.coverage_b7", title="App. B.7: the ridge readout and the integrals I_1, I_2 (Theorem 3.8)", source=SEED,
               where="eqs (118), (121)-(137)", entries=("transfer.ridge_transfer_risk",), steps=(
        Step("(118): the gradient of (12) vanishes at W_L = (Phi^T Phi + n lam I)^-1 Phi^T y_t", lhs=_ridge_grad_norm, rhs=0,
             search=lambda: [{**p, "lam": l} for p in _SHAPES for l in (0.5, 0.01, 3.0)], tol=1e-11,
             tol_source="float64 solve with cond(Phi^T Phi + n lam I) <= 1e4 here, entries <= 1e3: <= 1e-12",
             why="(118) solves (12) iff the gradient of the strictly convex objective vanishes there",
             cites=("(118)",), fidelity="as printed"),
        Step("(12) = (118) at d = n = 1: the numerical minimiser of (1/(2n))(Phi W_L - y_t)^2 + (lam/2) W_L^2 is "
             "Phi y_t/(Phi^2 + n lam)", lhs=_ridge_min_scalar,
             rhs=lambda Phi, y_t, n, lam: Phi * y_t / (Phi**2 + n * lam), search=lambda: _RIDGE_SCALAR_POINTS,
             rtol=1e-12, tol_source="SVD least squares of a 2x1 system with cond <= 1e2: relative error <= 1e-14",
             why="(12)'s argmin and (118)'s closed form in the scalar instance d = n = 1 (Phi, y_t, W_L numbers: "
             "Phi^T = Phi, I_d = 1, ||x||_2^2 = x^2): the minimiser computed by least squares, not from the formula",
             cites=("(12)", "(118)"), fidelity="as printed", binds={r"\hat{\boldsymbol{W}}_{L}": "lhs"}),
        Step("(9) at d = n = 1: the numerical minimiser of (1/(2n))(Phi W_L - y_t)^2 is y_t/Phi (Phi != 0)",
             lhs=_ridge_min_scalar, rhs=lambda Phi, y_t, n: y_t / Phi,
             search=lambda: [{k: v for k, v in p.items() if k != "lam"} for p in _RIDGE_SCALAR_POINTS], rtol=1e-12,
             tol_source="SVD least squares of a 1x1 system: relative error <= 1e-15",
             why="(9)'s argmin in the scalar instance d = n = 1 (the unregularised readout Phi^+ y_t = y_t/Phi)",
             cites=("(9)",), fidelity="as printed", binds={r"\hat{\boldsymbol{W}}_{L}": "lhs"}),
        Step("(121)-(123): beta_s v^T W_L = ((X beta_s)^T y_t/(||X beta_s||^2 + n lam)) beta_s", lhs=_ridge_beta,
             rhs=_ridge_beta_seed, search=lambda: [{**p, "lam": l} for p in _SHAPES for l in (0.5, 0.01, 3.0)], tol=1e-11,
             tol_source="float64 solve (cond <= 1e4) and products of size <= 50: <= 1e-12 absolute",
             why="the left side is (121) with (118) and (120), the right side (123)", cites=("(121)", "(123)"),
             fidelity="as printed"),
        Step("(122): beta_s v^T (||X beta_s||^2 + n lam I_d)^-1 v (X beta_s)^T y_t = (121)", lhs=_ridge_eq122, rhs=_ridge_beta,
             search=lambda: [{**p, "lam": l} for p in _SHAPES for l in (0.5, 0.01, 3.0)], tol=1e-11,
             tol_source="float64 solve (cond <= 1e4) and products of size <= 50: <= 1e-12 absolute",
             why="the scalar ||X beta_s||^2 plus n lam I_d is (||X beta_s||^2 + n lam) I_d, as a scalar plus a matrix "
             "reads", cites=("(122)",), fidelity="as printed"),
        Step("(124)-(125): E_{w,eps} ||b beta_s - beta_t||^2 given Z2 = ||z||^2 (bias^2 + variance of "
             "b = (cos Z2 + z.w sin + z.eps)/(Z2 + n lam)) = 1 + cos^2 I1(n+2) + (sin^2 + sigma^2) I1(n) - 2 cos^2 I2(n) "
             "with the I's integrands", lhs=(sp.cos(th) * Z2_ / (Z2_ + nn * lam) - sp.cos(th)) ** 2 + sp.sin(th) ** 2
             + (sp.sin(th) ** 2 + s**2) * Z2_ / (Z2_ + nn * lam) ** 2,
             rhs=1 + sp.cos(th) ** 2 * Z2_**2 / (Z2_ + nn * lam) ** 2 + (sp.sin(th) ** 2 + s**2) * Z2_ / (Z2_ + nn * lam) ** 2
             - 2 * sp.cos(th) ** 2 * Z2_ / (Z2_ + nn * lam),
             why="the right side is (125) with I_1(n+2), I_1(n), I_2(n) replaced by their integrands (126)-(127) at "
             "Z2 = ||z||^2; (125) is its E_z (the next step, which states (125) as printed)"),
        Step("(125) in expectation over z: E_z of the conditional risk above (||z||^2 ~ chi^2_n) = 1 + cos^2 I1(n+2) + "
             "(sin^2 + sigma^2) I1(n) - 2 cos^2 I2(n), the I's the chi-square means (126)-(127)",
             lhs=_ridge_mean_over_z, rhs=_ridge_by_i1_i2,
             search=lambda: [{"n": 5, "theta": 0.7, "sigma": 0.5, "lam": 0.5},
                             {"n": 12, "theta": 2.0, "sigma": 1.5, "lam": 2.0}], rtol=1e-20,
             tol_source="mpmath quadrature at 30 digits on both sides (error estimates < 1e-25)",
             why="I1(n+2) = E Z2^2/(Z2 + n lam)^2, I1(n) = E Z2/(Z2 + n lam)^2, I2(n) = E Z2/(Z2 + n lam) by "
             "(126)-(127) at m = n + 2, n; the density integrates to 1", cites=("(125)",), fidelity="as printed"),
        Step("(126): I1(m, lam) = E_z ||z||^{m-n+2}/(||z||^2 + n lam)^2 (chi-square law) = S_{n-1}/(2pi)^{n/2} "
             "int r^{m+1} e^{-r^2/2}/(r^2 + n lam)^2 dr",
             lhs=lambda n, m, lam: _chi2_moment(n, lam, m - n + 2, 2), rhs=lambda n, m, lam: _radial(n, m, lam, 2),
             search=lambda: [{"n": 3, "m": 3, "lam": 0.5}, {"n": 3, "m": 5, "lam": 2.0}, {"n": 6, "m": 6, "lam": 0.5},
                             {"n": 6, "m": 9, "lam": 2.0}], rtol=1e-20,
             tol_source="mpmath quadrature at 30 digits on both sides (error estimates < 1e-25)",
             why="the expectation against the chi-square law of ||z||^2 on the left, the printed radial integral on "
             "the right", cites=("(126)",), fidelity="as printed"),
        Step("(127): I2(m, lam) = E_z ||z||^{m-n+2}/(||z||^2 + n lam) (chi-square law) = S_{n-1}/(2pi)^{n/2} "
             "int r^{m+1} e^{-r^2/2}/(r^2 + n lam) dr",
             lhs=lambda n, m, lam: _chi2_moment(n, lam, m - n + 2, 1), rhs=lambda n, m, lam: _radial(n, m, lam, 1),
             search=lambda: [{"n": 6, "m": 6, "lam": 0.5}, {"n": 6, "m": 9, "lam": 2.0}, {"n": 3, "m": 3, "lam": 0.5},
                             {"n": 3, "m": 5, "lam": 2.0}], rtol=1e-20,
             tol_source="mpmath quadrature at 30 digits on both sides (error estimates < 1e-25)",
             why="(126)'s step with the denominator's power 1 (one step per display: the step of both, whose first "
             "points were (126)'s, stated another relation than (127)'s print)", cites=("(127)",),
             fidelity="as printed"),
        Step("(128): I1(n, lam) ∝ 2^{n/2} int u^{n/2} e^{-u}/(2u + n lam)^2 du, the constant S_{n-1}/(2pi)^{n/2}",
             lhs=lambda n, lam: _radial(n, n, lam, 2), rhs=_int_u, relation=Proportional(S_n / (2 * sp.pi) ** (nn / 2)),
             search=lambda: [{"n": 3, "lam": 0.5}, {"n": 40, "lam": 2.0}], rtol=1e-20,
             tol_source="mpmath quadrature at 30 digits (error estimates < 1e-25)",
             why="the print's '∝' with the constant the text names: 'we ignore the coefficient S_{n-1}/(2 pi)^{n/2} "
             "while solving the integral and restore it at the end'; the left side is (126)'s I_1 at m = n",
             cites=("(128)",), fidelity="as printed"),
        Step("(129): ... = n (2n)^{n/2} int t^{n/2} e^{-nt}/(2nt + n lam)^2 dt", lhs=_int_u, rhs=_int_t,
             search=lambda: [{"n": 3, "lam": 0.5}, {"n": 40, "lam": 2.0}], rtol=1e-20,
             tol_source="mpmath quadrature at 30 digits (error estimates < 1e-25)", cites=("(129)",),
             fidelity="as printed"),
        Step("(130): t^{n/2} e^{-nt}/(2nt + n lam)^2 = g(t) e^{n f(t)}, f = log(t)/2 - t, g = (2nt + n lam)^-2",
             lhs=t_ ** (nn / 2) * sp.exp(-nn * t_) / (2 * nn * t_ + nn * lam) ** 2, rhs=g_lap * sp.exp(nn * f_lap),
             domain={t_: (0.01, 3.0), lam: (0.1, 3.0)},
             why="the integrands of (130): the next step compares the printed integrals"),
        Step("(130): n (2n)^{n/2} int_0^oo t^{n/2} e^{-nt}/(2nt + n lam)^2 dt = n (2n)^{n/2} int_0^oo g(t) e^{n f(t)} dt",
             lhs=_int_t, rhs=_int_g_exp_nf, search=lambda: [{"n": 3, "lam": 0.5}, {"n": 40, "lam": 2.0}], rtol=1e-20,
             tol_source="mpmath quadrature at 30 digits (error estimates < 1e-25)",
             why="f(t) = log(t)/2 - t, g(t) = (2nt + n lam)^-2 as the text after (131) defines them",
             cites=("(130)",), fidelity="as printed"),
        Step("(131)-(132): f'(t_0) = 0 at t_0 = 1/2", lhs=sp.Subs(sp.Derivative(f_lap, t_), t_, sp.Rational(1, 2)), rhs=0,
             why="the text after (131): t_0, the critical point of f(t) = log(t)/2 - t, is 1/2", cites=("(131)",),
             fidelity="as printed"),
        Step("(131) -> (132): n (2n)^{n/2} sqrt(2 pi/(n |f''(t_0)|)) g(t_0) e^{n f(t_0)} = sqrt(pi n) n^{n/2} "
             "e^{-n/2}/(n + n lam)^2", lhs=sp.Subs(nn * (2 * nn) ** (nn / 2) * sp.sqrt(2 * sp.pi / (nn * sp.Abs(
                 sp.Derivative(f_lap, t_, 2)))) * g_lap * sp.exp(nn * f_lap), t_, sp.Rational(1, 2)),
             rhs=sp.sqrt(sp.pi * nn) * nn ** (nn / 2) * sp.exp(-nn / 2) / (nn + nn * lam) ** 2,
             domain={nn: (3, 200), lam: (0.1, 3.0)}, why="(131)'s right side at t_0 = 1/2 against (132)'s",
             cites=("(131)", "(132)"), fidelity="as printed"),
        Step("(133) -> (135) by Stirling: S_{n-1}/(2pi)^{n/2} * (132) * n (1 + lam)^2 -> 1 as n -> oo",
             lhs=sp.Limit(S_n / (2 * sp.pi) ** (nn / 2) * sp.sqrt(sp.pi * nn) * nn ** (nn / 2) * sp.exp(-nn / 2)
                      / (nn + nn * lam) ** 2 * nn * (1 + lam) ** 2, nn, sp.oo), rhs=1, domain={lam: (0.1, 3.0)},
             why="the text's '~' as n -> oo: (133)'s right side over (135)'s tends to 1", cites=("(133)", "(135)"),
             fidelity="as printed"),
        Step("(133) for large n: I1(n, lam) (126) = S_{n-1}/(2pi)^{n/2} sqrt(pi n) n^{n/2} e^{-n/2}/(n + n lam)^2",
             lhs=lambda n, lam: _chi2_moment(n, lam, 2, 2), rhs=_i1_saddle,
             search=lambda: [{"n": float(_BIG_N), "lam": 1.0}, {"n": float(_BIG_N), "lam": 0.5},
                             {"n": float(_BIG_N), "lam": 2.0}], tol=(4 * _SD_BIG + 1e-6) / _BIG_N,
             tol_source="|I1 - 1/(n(1+lam)^2)| = |E h(T) - h(1)|/n <= sup|h'| sqrt(2/n)/n, h(t) = t/(t+lam)^2, "
                        "sup|h'| = 1/lam^2 <= 4 for lam >= 1/2; |(133) - 1/(n(1+lam)^2)| <= 1/(6 n^2) (Stirling's "
                        "relative error 1/(12 k) at k = n/2); n = 1e6",
             why="the text's 'for large n' (the saddle point (131)): at n = 1e6, within the saddle point's error; "
             "the left side is (126)'s I_1 at m = n by quadrature of the chi-square law", cites=("(133)",),
             fidelity="as printed"),
        Step("(135): n I1(n, lam) = E[T/(T + lam)^2] (T = ||z||^2/n) -> 1/(1 + lam)^2, so lim I1(n, lam) = 0",
             lhs=lambda lam: _BIG_N * _chi2_moment(_BIG_N, lam, 2, 2), rhs=lambda lam: 1 / (1 + lam) ** 2,
             search=lambda: [{"lam": 1.0}, {"lam": 0.5}, {"lam": 2.0}], tol=4 * _SD_BIG,
             tol_source="|E h(T) - h(1)| <= sup|h'| E|T - 1| <= sup|h'| sqrt(2/n), h(t) = t/(t+lam)^2, "
                        "sup_{t>=0} |h'| = 1/lam^2 <= 4 for lam >= 1/2, n = 1e6",
             why="(135) read as the text's n -> oo statement: n I_1(n, lam) -> 1/(1 + lam)^2, at n = 1e6",
             cites=("(135)",), fidelity="as printed"),
        Step("(136): I1(n+2, lam) = E[(T/(T + lam))^2] -> 1/(1 + lam)^2",
             lhs=lambda lam: _chi2_moment(_BIG_N, lam, 4, 2), rhs=lambda lam: 1 / (1 + lam) ** 2,
             search=lambda: [{"lam": 1.0}, {"lam": 0.5}, {"lam": 2.0}], tol=16 / 27 * _SD_BIG,
             tol_source="|E h(T) - h(1)| <= sup|h'| sqrt(2/n), h(t) = (t/(t+lam))^2, sup|h'| = 8/(27 lam) <= 16/27 "
                        "for lam >= 1/2, n = 1e6", why="'for large n': at n = 1e6", cites=("(136)",),
             fidelity="as printed"),
        Step("(137): I2(n, lam) = E[T/(T + lam)] -> 1/(1 + lam)",
             lhs=lambda lam: _chi2_moment(_BIG_N, lam, 2, 1), rhs=lambda lam: 1 / (1 + lam),
             search=lambda: [{"lam": 1.0}, {"lam": 0.5}, {"lam": 2.0}], tol=2 * _SD_BIG,
             tol_source="|E h(T) - h(1)| <= sup|h'| sqrt(2/n), h(t) = t/(t+lam), sup|h'| = 1/lam <= 2 for "
                        "lam >= 1/2, n = 1e6", why="'for large n': at n = 1e6", cites=("(137)",),
             fidelity="as printed"),
    )),
    Derivation(key="transfer.coverage_b8_c", title="App. B.8 (the vanishing cross term) and App. C (Mercer eigenfunctions)",
               source=SEED, where="eqs (140)-(141), (154)", entries=("transfer.relu_kernel",), steps=(
        Step("(140)-(141): E_X <nu, (I - P_row(X)) beta_s> = 0 (mean over X and its mirror X R)", lhs=_perp_pair_mean, rhs=0,
             search=lambda: _SHAPES, tol=1e-12,
             tol_source="float64 pinv projector of a Gaussian matrix (cond <= 1e2): <= 1e-13 absolute",
             why="(140)'s left side equals (141)'s 0, checked as the mean over X and its mirror X R, not through the "
             "paper's argument. Read, not checked: (140)'s middle sum runs to n - d where the sentence before says "
             "'the first d - n coordinates' (a typo: in this regime d > n, so the printed bound is negative and the "
             "sum empty; with d - n each term nu_k E(beta_s)_k is 0 as E(beta_s)_k = 0 for beta_s uniform on the "
             "sphere); the averaging (fix the subspace, average beta_s instead, by rotation invariance) swaps an "
             "expectation over X for one over beta_s, which holds for the pair (X, beta_s) jointly rotation invariant "
             "and is the paper's step, not this one's (issue #35: no longer endorsed here)",
             cites=("(140)", "(141)"), fidelity="as printed"),
        Step("(154): psi_l is a unit Mercer eigenfunction with eigenvalue lambda_l^2 (coefficients in the ReLU "
             "features, Gram matrix from the entry (150))", lhs=_mercer_residual, rhs=0,
             search=lambda: [{"seed": 0}, {"seed": 1}, {"seed": 2}], tol=1e-10,
             tol_source="float64 eigh of a 4x4 Gram matrix with smallest eigenvalue >= 1e-3 here: residuals "
                        "<= 1e-15/1e-3 relative",
             why="(154)'s psi_l with z_l an eigenvector of K (151) of eigenvalue lambda_l^2, in (147)'s equation with "
             "the eigenvalue lambda_l^2 as the text names it", cites=("(154)",), fidelity="as printed"),
        Step("(148): ||f||_k^2 (145) = sum_l c_l^2/lambda_l^2, c_l = <f, psi_l>_{L2} (eigenvalue lambda_l^2 of T_k, "
             "as in (154))", lhs=lambda seed: _rkhs_norms(seed)[0], rhs=lambda seed: _rkhs_norms(seed)[1],
             search=lambda: [{"seed": 0}, {"seed": 1}, {"seed": 2}, {"seed": 3}], rtol=1e-9,
             tol_source="float64 eigh of a 4x4 Gram matrix (smallest eigenvalue >= 1e-3 here): 1/lambda^2 amplifies "
                        "1e-16 rounding by <= 1e3 per term",
             why="the eigenvalue of T_k is lambda_l^2 as in the Mercer decomposition {lambda_l^2, psi_l} the text "
             "names before (147)", cites=("(148)",), fidelity="as printed"),
    )),
    # == helper h5 (s32): App. C in the print's own names ===========================================================
    Derivation(key="transfer.coverage_c", title="App. C: the RKHS norm (145), (148) and the projection (156) in the print's own names",
               source=SEED, where="App. C, eqs (145), (148), (156)", entries=("transfer.relu_kernel", "transfer.rkhs_residual"),
               steps=(
        Step("(156) at m = m* = 2: ||f*||^2 - ||P_par f*||^2 = (1/m*) c*^T K* c* - (1/m*) c*^T K~^T K^-1 K~ c* = the "
             "least-squares residual ||f* - sum_j a_j relu(w_j.x)||^2 (K, K~, K* of (151)-(153) from the entry (150))",
             lhs=_appc_entry, rhs=_appc_residual, search=_appc_points, tol=1e-12,
             tol_source=("float64 Grams (entries <= 1/2, cond(K) < 10 at these points) against 40-digit ones and a "
                         "float64 least-squares a (off the minimizer by ~1e-13, which moves the residual by its "
                         "square): <= 1e-13 absolute; the tolerance is ten times that"),
             why="the printed last side is evaluated from the points' K, K~, K* (the entry (150)'s Grams over m, "
             "sqrt(m m*), m*) and c*; the middle side from ||f*||^2 and the squared norm a.G a of the projection as "
             "the least squares computes them (no K there); K is invertible at these points (m = 2 <= d = 3)",
             cites=("(156)",), fidelity="as printed"),
        Step("(148) in a rank-3 instance: ||f||_k^2 by (145) (f = sum_j alpha_j k(., z_j), alpha by least squares on "
             "f's values) = sum_l c_l^2/lambda_l^2 for f = sum_l c_l psi_l, k = sum_l lambda_l^2 psi_l psi_l with the "
             "orthonormal Hermite psi_l of L2(N(0, 1)) (T_k's eigenvalue lambda_l^2, as the text names it before (147))",
             lhs=_norm_by_145, rhs=_spectral_sum, search=_mercer_points, rtol=1e-12,
             tol_source=("float64 least squares on a 15 x 3 system of condition <= cond(Psi(X)^T Psi(Z)) (lambda_max/"
                         "lambda_min)^2 <= 5 * 45 at these points: relative error <= 225 * 1e-15 < 1e-12"),
             why="the text's 'one can show by direct computation': (145)'s norm of f written in the kernel's sections "
             "is (148)'s spectral sum; the instance's kernel has rank 3, so the printed sum to infinity has no terms "
             "past l = 3 (f has no support on the zero-eigenvalue modes, as the text after (148) requires)",
             cites=("(148)",), fidelity="as printed"),
        Step("(147) as printed in the same instance: T_k psi_l = lambda_l psi_l at a point x ((T_k psi_l)(x) by "
             "(146): int p(x') k(x, x') psi_l(x') dx' by Gauss-Hermite quadrature, k = sum_m lambda_m^2 psi_m psi_m)",
             lhs=_tk_psi, rhs=_lam_psi_printed, search=_eig147_points, tol=1e-12,
             tol_source=_TOL147, cites=("(147)",), fidelity="as printed", erratum=Erratum(
                 key="002-eq147", source=SEED, where="eq (147)", says="T_k psi_l = lambda_l psi_l",
                 truth="T_k psi_l = lambda_l^2 psi_l: the eigenvalue of the decomposition {lambda_l^2, psi_l} named in "
                 "the sentence before, the one (148) and (154) use",
                 severity="typo",
                 note="Typo: the sentence before (147) names the Mercer decomposition of T_k {lambda_l^2, psi_l}; (148) "
                 "||f||_k^2 = sum_l c_l^2/lambda_l^2 holds only with the eigenvalue lambda_l^2, and (154) calls psi_l "
                 "'a Mercer eigenfunction with eigenvalue lambda_l^2 ... plugging the expression into the eigenvalue "
                 "equation (147)'. Nothing downstream uses the misprinted eigenvalue lambda_l. A single mode with "
                 "lambda_1 = 2 (k = 4 psi_1 psi_1, psi_1 = 1) already gives T_k psi_1 = 4 psi_1, not 2 psi_1; the "
                 "counterexample below takes the mode psi_2(x) = x (k = psi_1 psi_1 + 4 psi_2 psi_2, lambda_2 = 2) at "
                 "x = 3/2, where psi_l(x) is not 1, so that the comparison with the print sees psi_l too: "
                 "(T_k psi_2)(3/2) = 6, lambda_2 psi_2(3/2) = 3.",
                 at=_eig147_point(1.5, 2, (1.0, 2.0)))),
        Step("(147) with the eigenvalue lambda_l^2: T_k psi_l = lambda_l^2 psi_l at a point x ((T_k psi_l)(x) by "
             "Gauss-Hermite quadrature of (146))", lhs=_tk_psi, rhs=_lam2_psi, search=_eig147_points, tol=1e-12,
             tol_source=_TOL147, cites=("(147)",), fidelity=Amendment(
                 key="002-eq147-eigenvalue", kind="typo fixed",
                 what="(147)'s eigenvalue lambda_l read as lambda_l^2, the eigenvalue of the Mercer decomposition "
                 "{lambda_l^2, psi_l} the sentence before names",
                 why="erratum 002-eq147 (the step before): as printed the eigenvalue contradicts that sentence, (148) "
                 "and (154); with lambda_l^2 (147) holds and (148), (154) follow", severity="typo",
                 root="002-eq147")),
        Step("(145) for the network kernel k(x, x') = (1/m) sum_i relu(w_i.x) relu(w_i.x') (m = 4, d = 3, M = 3): the "
             "squared norm of f's unique coefficients in the features relu(w_i.x)/sqrt(m) (least squares on f's "
             "values) = sum_ij alpha_i k(z_i, z_j) alpha_j",
             lhs=_feature_norm, rhs=_gram_form, search=_rkhs145_points, rtol=1e-12,
             tol_source=("float64 least squares on a 40 x 4 feature matrix of condition <= 12 at these points: "
                         "relative error <= 12^2 * 1e-16 ~ 1e-14"),
             why="the RKHS of a kernel k = psi(x)^T psi(x') with linearly independent features psi_i is {beta^T psi} "
             "with ||beta^T psi||_k = ||beta|| (Moore-Aronszajn, as the text before (144) invokes); f = sum_j alpha_j "
             "k(., z_j) has beta = Psi(Z) alpha, which the step recovers from f's values alone",
             cites=("(145)",), fidelity="as printed"),
    )),
    # == end of helper h5's derivation =============================================================================
    Derivation(key="transfer.coverage_claims", title="The text's 'for all' claims on (10), (11), (15) attacked", source=SEED,
               where="Sec. 3.3 after (11), Sec. 3.4 after (15), Theorem 3.7", entries=("transfer.linear_transferability",), steps=(
        Step("'In the overparameterized regime, negative transfer only occurs when sigma < 1': T_lt (11) (the entry) "
             ">= 0 for sigma >= 1, gamma < 1, every theta",
             lhs=lambda gamma, theta, sigma: _entry("transfer.linear_transferability")(gamma=gamma, theta=theta, sigma=sigma),
             rhs=0, relation=">=", search=lambda: _grid(gamma=(0.5, 1e-6, 0.1, 0.3, 0.7, 0.9, 0.999999),
                                                    theta=(math.pi / 2, 0.0, 1.0, 2.0, math.pi),
                                                    sigma=(1.0, 1.5, 5.0)),
             why="the text's claim on the printed (11) (the entry is (11) in its stable form)", cites=("(11)",),
             fidelity="as printed"),
        Step("'For theta < pi/3 ... positive transfer': T_ft (15) > 0 for gamma < 1, theta < pi/3",
             lhs=TFT_SEED.args[0][0], rhs=0, relation=">", domain={g: (0.001, 0.999), th: (0.0, math.pi / 3 - 1e-3)}),
        Step("'For theta > pi/3 ... negative transfer': T_ft (15) < 0 for gamma < 1, theta > pi/3",
             lhs=TFT_SEED.args[0][0], rhs=0, relation="<", domain={g: (0.001, 0.999), th: (math.pi / 3 + 1e-3, math.pi)}),
        Step("Theorem 3.7 on the domain its proof implies (n >= 3): the risk (10) is at least the irreducible "
             "sin^2 theta", lhs=LINEAR_TRANSFER, rhs=sp.sin(th) ** 2, relation=">=", domain={n: (3, 10**6)},
             why="the text after Theorem 3.7: sin^2 theta is 'the best case risk given that the features cannot "
             "change'"),
    ), withdrawn=(
        Erratum(key="002-thm37-small-n", source=SEED, where="Theorem 3.7, eq (10)",
                says="E_D R_lt = sin^2 theta + (sigma^2 + sin^2 theta)/(n - 2) for the dataset size n",
                truth="holds for n >= 3 only: E 1/||z||^2 = E 1/chi^2_n is infinite for n <= 2, so the risk is infinite "
                "there, while (10) gives a negative value at n = 1 and divides by zero at n = 2.",
                severity="missing-hypothesis",
                note="The theorem states no restriction on n; (113)-(117) need n > 2.",
                withdrawn="not an error: n > 2 is implied by the text, not missing from it. (10) itself divides by "
                "n - 2, (116) is Gamma(n/2 - 1) (the integral (115) converges only for n > 2), and Sec. 3 works in "
                "the limit n, d -> oo with gamma = n/d fixed. A display's own domain is a note (docs/authoring.md), "
                "and the entry's n already starts above 2."),
    )),
)

DERIVATIONS = DERIVATIONS + COVERAGE_DERIVATIONS + APPENDIX_B_DERIVATIONS


# entries with no evidence check, and why (theorylab mutate --view coverage)
NO_EVIDENCE = {
    "transfer.negative_transfer_region": ("a set of gamma (where T_lt < 0), not a quantity a simulation estimates; "
                                          "its boundaries are the zeros of transfer.linear_transferability, whose "
                                          "values are checked by simulation (Fig. 1(c) points)"),
}
