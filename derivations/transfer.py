"""transfer: transferability in deep linear networks and the RKHS picture of ReLU networks (seed 002).

Entries for the scratch, linear-transfer, ridge and fine-tuning risks, the negative-transfer region, the
KL divergence, the ReLU Gaussian kernel and RKHS residual; derivations of Theorems 3.6-3.9 and App. B-C.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from theorylab.derivation import Derivation, Erratum, Outcome, Step, claim
from theorylab.entry import Constraint, Entry, Source
from theorylab.params import DomainError, integer, matrix, scalar, vector

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
TRANSFERABILITY_STABLE = sp.Piecewise((sp.cos(th) ** 2 - g + _NOISE_OVER, g < sp.Rational(1, 2)),
                                      ((1 - g) - sp.sin(th) ** 2 + _NOISE_OVER, g < 1),
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
# sin(phi) - phi cos(phi), summed as its Taylor series for phi < 0.1 (remainder < 1e-20 relative).
_phi = sp.Symbol("phi", nonnegative=True)
_SERIES = sp.series(sp.sin(_phi) - _phi * sp.cos(_phi), _phi, 0, 13).removeO()
RELU_K_STABLE = sp.Piecewise((_SERIES, _phi < sp.Rational(1, 10)),
                             (sp.sin(_phi) - _phi * sp.cos(_phi), True)).subs(_phi, sp.acos(-u)) / (2 * sp.pi)


def relu_kernel_np(u_arr):
    """The kernel (150) in float64 (vectorized), from the stable form."""
    return RELU_KERNEL.numpy(u_arr)


# -- fine-tuning: the depth-dependent scale c ----------------------------------------------------------
def finetune_scale(gamma, sigma, depth):
    """c > 0 solving c^(2L/(L-1)) = gamma + sigma^2 gamma/(1-gamma) + c^2 (1-gamma), gamma < 1 (vectorized).

    Balanced rank-one layers keep (I - P_row(X)) W1 fixed during fine-tuning and scale the rest of the
    product by ||beta||^((L-1)/L); in the high-dimensional limit the norms concentrate (see the derivation).
    Newton's method on h(c) = c^e - a c^2 - K, e = 2L/(L-1), a = 1 - gamma, K = gamma(1 + sigma^2/(1-gamma)).
    """
    gamma, sigma, depth = np.broadcast_arrays(np.asarray(gamma, float), np.asarray(sigma, float),
                                              np.asarray(depth, float))
    e = 2 * depth / (depth - 1)
    a = 1 - gamma
    K = gamma + sigma**2 * gamma / (1 - gamma)
    # The root lies in [1, sqrt(K/gamma)]: h(1) = -gamma sigma^2/(1-gamma) <= 0, and at c0 = sqrt(K/gamma) =
    # sqrt(1 + sigma^2/(1-gamma)) >= 1, h(c0) = c0^2 (c0^(e-2) - a) - K >= c0^2 (1 - a) - K = 0. h is convex
    # for c >= 1 (e(e-1) > 2 > 2a), so Newton from c0 descends monotonically (no overflow as L -> oo, e -> 2).
    c = np.sqrt(K / gamma)
    for _ in range(200):
        h = c**e - a * c * c - K
        dh = e * c ** (e - 1) - 2 * a * c
        step = h / dh
        c = c - step
        if np.all(np.abs(step) <= 4e-16 * c):
            break
    return c


def _finetune_risk(gamma, theta, sigma, depth):
    gamma, theta, sigma, depth = np.broadcast_arrays(*(np.asarray(x, float) for x in (gamma, theta, sigma, depth)))
    sc = SCRATCH_ENTRY.numpy(gamma, sigma)
    under = gamma < 1
    c = np.where(under, finetune_scale(np.where(under, gamma, 0.5), sigma, depth), 1.0)
    # E R_sc + (1-g)(c^2 - 2c cos) = (1-g)((c - cos)^2 + sin^2) + sigma^2 g/(1-g): a sum of non-negative terms
    over = (1 - gamma) * ((c - np.cos(theta)) ** 2 + np.sin(theta) ** 2) + sigma**2 * gamma / np.where(under, 1 - gamma, 1.0)
    return np.where(under, over, sc)


def _finetune_transferability(gamma, theta, sigma, depth):
    gamma, theta, sigma, depth = np.broadcast_arrays(*(np.asarray(x, float) for x in (gamma, theta, sigma, depth)))
    under = gamma < 1
    c = np.where(under, finetune_scale(np.where(under, gamma, 0.5), sigma, depth), 1.0)
    return np.where(under, -(1 - gamma) * (c * c - 2 * c * np.cos(theta)), 0.0)


def _bisect_mp(f, lo, iters: int = 200):
    """The root of an increasing-through-zero f on [lo, oo) with f(lo) <= 0: doubling for a bracket, then
    bisection (200 halvings: below 1e-50 relative, whatever the bracket; no convergence test that can fail, as
    the Anderson-Bjorck finder did at gamma = 0.99999, where f spans 1e10 over the bracket)."""
    hi = 2 * lo
    while f(hi) <= 0:
        lo, hi = hi, 2 * hi
    for _ in range(iters):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) <= 0 else (lo, mid)
    return (lo + hi) / 2


def _ft_reference(gamma, theta, sigma, depth, transferability=False):
    def one(gm, tt, sg, dp):
        with mpmath.workdps(40):
            gm, tt, sg = mpmath.mpf(gm), mpmath.mpf(tt), mpmath.mpf(sg)
            if gm > 1:
                return 0.0 if transferability else float(sg**2 / (gm - 1))
            e = mpmath.mpf(2 * dp) / (dp - 1)
            K = gm + sg**2 * gm / (1 - gm)
            c = mpmath.mpf(1) if sg == 0 else _bisect_mp(lambda c: c**e - (1 - gm) * c**2 - K, mpmath.mpf(1))
            extra = (1 - gm) * (c**2 - 2 * c * mpmath.cos(tt))
            return float(-extra) if transferability else float(((1 - gm) ** 2 + gm * sg**2) / (1 - gm) + extra)

    arrs = np.broadcast_arrays(*(np.asarray(x, float) for x in (gamma, theta, sigma, depth)))
    out = np.array([one(*vals) for vals in zip(*(a.ravel() for a in arrs))]).reshape(arrs[0].shape)
    return float(out) if out.ndim == 0 else out


# -- negative transfer region ---------------------------------------------------------------------------
def _negative_region(theta, sigma):
    """gamma interval below 1 where T_lt < 0 and the gamma above which T_lt < 0 (text after eq 11)."""
    c = abs(math.cos(theta))
    c2 = c * c
    s2 = math.sin(theta) ** 2
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
    with mpmath.workdps(40):
        th_, sg = mpmath.mpf(theta), mpmath.mpf(sigma)
        c2, s2 = mpmath.cos(th_) ** 2, mpmath.sin(th_) ** 2
        B = 1 + c2 - sg**2
        disc = B * B - 4 * c2
        over = None
        if B > 0 and disc > 0:
            lo, hi = (B - mpmath.sqrt(disc)) / 2, min((B + mpmath.sqrt(disc)) / 2, 1)
            if lo < hi:
                over = [float(lo), float(hi)]
        under = None if float(s2) == 0 else float(1 + sg**2 / s2)
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


# -- entries --------------------------------------------------------------------------------------------
SCRATCH_ENTRY = Entry(
    id="transfer.scratch_risk", title="Generalization error of scratch training (minimum-norm), high-dim limit",
    source=Source(SEED, "eq (8), Theorem 3.6"),
    doc=("E R_sc = ((1-gamma)^2 + gamma sigma^2)/(1-gamma) for gamma < 1 and sigma^2/(gamma-1) for gamma > 1 "
         "(the excess risk ||beta_hat - beta_t||^2 with ||beta_t|| = 1, x ~ N(0, I)). gamma = 1 is singular."),
    params=(gamma_p, sigma_p), lhs=r"\mathbb{E}\,\mathcal{R}_{sc}", formula=SCRATCH,
    conditions=(r"\gamma \neq 1",))


def _finite_ok(values):
    nn, dd = values["n"], values["d"]
    if not (nn < dd - 1 or nn > dd + 1):
        return (f"n and d must satisfy n < d - 1 or n > d + 1 (the expected inverse-Wishart trace is infinite "
                f"otherwise); got n={nn}, d={dd}")
    return None


entries_ = [
    SCRATCH_ENTRY,
    Entry(id="transfer.scratch_risk_finite", title="Exact scratch risk at finite n, d for Gaussian X",
          source=Source(SEED, "beyond the seed: eq (92) with E||P beta||^2 = n/d and inverse-Wishart moments"),
          doc=("E R_sc = 1 - n/d + sigma^2 n/(d-n-1) for n < d-1 (E tr (X X^T)^{-1} = n/(d-n-1)) and "
               "sigma^2 d/(n-d-1) for n > d+1; its n = gamma d, d -> oo limit is eq (8) (a checked step)."),
          params=(n_any, d_p, sigma_p), lhs=r"\mathbb{E}\,\mathcal{R}_{sc}(n, d)", formula=SCRATCH_FINITE,
          stable_form=SCRATCH_FINITE_STABLE,
          constraints=(Constraint(_finite_ok, "n < d - 1 or n > d + 1"),),
          conditions=(r"n < d-1 \text{ or } n > d+1",)),
    Entry(id="transfer.linear_transfer_risk", title="Generalization error of linear transfer (exact in n)",
          source=Source(SEED, "eq (10), Theorem 3.7"),
          doc="E R_lt = sin^2 theta + (sigma^2 + sin^2 theta)/(n - 2), for features sparsified to beta_s (Thm 3.4).",
          params=(n_p, theta_p, sigma_p), lhs=r"\mathbb{E}\,\mathcal{R}_{lt}", formula=LINEAR_TRANSFER),
    Entry(id="transfer.linear_transferability", title="Linear transferability T_lt = E R_sc - E R_lt (n -> oo)",
          source=Source(SEED, "eq (11)"),
          doc="T_lt = E R_sc - sin^2 theta in the high-dimensional limit (the 1/(n-2) term vanishes).",
          params=(gamma_p, theta_p, sigma_p), lhs=r"\mathcal{T}_{lt}", formula=TRANSFERABILITY,
          stable_form=TRANSFERABILITY_STABLE,
          conditions=(r"\gamma \neq 1",)),
    Entry(id="transfer.ridge_transfer_risk", title="Ridge linear transfer risk as n -> oo",
          source=Source(SEED, "eq (13), Theorem 3.8"),
          doc=("lim_n E R_lt^lambda = 1 - (1+2 lambda)/(1+lambda)^2 cos^2 theta: increasing in lambda, strictly "
               "unless cos theta = 0 (the seed's 'strictly' fails at theta = pi/2; see the errata)."),
          params=(theta_p, lam_p), lhs=r"\lim_{n\to\infty}\mathbb{E}\,\mathcal{R}^{\lambda}_{lt}", formula=RIDGE,
          stable_form=RIDGE_STABLE),
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
          compute=_finetune_risk, reference=lambda gamma, theta, sigma, depth: _ft_reference(gamma, theta, sigma, depth),
          conditions=(r"\gamma \neq 1",)),
    Entry(id="transfer.finetune_transferability", title="Fine-tuning transferability T_ft = E R_sc - E R_ft",
          source=Source(SEED, "eq (15) (the seed's carries no sigma; corrected for sigma > 0 and depth)"),
          doc="T_ft = -(1-gamma)(c^2 - 2c cos theta) for gamma < 1 and 0 for gamma > 1; sigma = 0 gives (15).",
          params=(gamma_p, theta_p, scalar("sigma", "label-noise standard deviation", low=0, high=1e3, default=0.0,
                                           tex="sigma"), depth_p),
          lhs=r"\mathcal{T}_{ft}", display=r"-(1-\gamma)(c^2 - 2c\cos\theta)\ (\gamma<1),\quad 0\ (\gamma>1)",
          compute=_finetune_transferability,
          reference=lambda gamma, theta, sigma, depth: _ft_reference(gamma, theta, sigma, depth, True),
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
          value_doc='{"overparameterized": [gamma_minus, gamma_plus] or null, "underparameterized_from": gamma or null}'),
    Entry(id="transfer.kl_divergence", title="KL divergence of the label distributions of two regressions",
          source=Source(SEED, "eqs (28)-(31)"), doc="D_KL(p_f || p_g) = ||f - g||^2_{L2(p)} / (2 sigma^2).",
          params=(dist_p, sigma_pos), lhs=r"D_{KL}(p_f\|p_g)", formula=KL.subs(sp.Symbol("Delta", nonnegative=True),
                                                                                dist_p.symbol)),
]
RELU_KERNEL = Entry(
    id="transfer.relu_kernel", title="ReLU Gaussian kernel (arc-cosine kernel of order 1)",
    source=Source(SEED, "eq (150)"),
    doc=("E_x[relu(w_i.x) relu(w_j.x)] = (sqrt(1-u^2) + u (pi - arccos u)) / (2 pi) for unit w_i, w_j, x ~ N(0, I). "
         "Evaluated as (sin phi - phi cos phi)/(2 pi), phi = arccos(-u), with its Taylor series for phi < 0.1 "
         "(the formula cancels to O((1+u)^(3/2)) near u = -1)."),
    params=(u_p,), lhs=r"k(u)", formula=RELU_K, stable_form=RELU_K_STABLE,
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
          lhs=r"\mathbb{E}\,\|z\|^{-2}", formula=INV_CHI2),
    Entry(id="transfer.pinv_trace", title="lim E tr((X^+)^T X^+) for Gaussian X", source=Source(SEED, "eqs (94)-(99)"),
          doc="gamma/(1-gamma) for gamma < 1 and 1/(gamma-1) for gamma > 1 (X with i.i.d. N(0,1) entries).",
          params=(gamma_p,), lhs=r"\lim\mathbb{E}\,\mathrm{tr}((X^+)^TX^+)", formula=PINV_TRACE,
          conditions=(r"\gamma \neq 1",)),
]
ENTRIES = tuple(entries_)


# -- derivations ----------------------------------------------------------------------------------------
def _numeric(fn, method):
    """A claim checked by evaluating fn() -> (holds, detail) (numbers, limits at points, roots)."""
    return claim(fn, method)


# Theorem 3.6: the Stieltjes-transform limit (98)-(99) on the branch continuous from z -> 0 on the real axis
def _stieltjes_limit():
    worst = 0.0
    for gm in ("0.1", "0.5", "0.9"):
        with mpmath.workdps(60):
            gm = mpmath.mpf(gm)
            lp, lm = (1 + mpmath.sqrt(gm)) ** 2, (1 - mpmath.sqrt(gm)) ** 2
            for zz in (mpmath.mpf(-10) ** -25, mpmath.mpf(10) ** -25):
                gz = (zz - (1 - gm) - mpmath.sqrt(zz - lp) * mpmath.sqrt(zz - lm)) / (2 * gm * zz)
                worst = max(worst, float(abs(gz + 1 / (1 - gm))))
    return worst < 1e-20, f"max |g_C(+-1e-25) + 1/(1-gamma)| = {worst:.1e} at gamma = 0.1, 0.5, 0.9 (60 digits)"


def _p_row_seed():
    # (93) claims E||P_row(X) beta_t||^2 = gamma; for gamma > 1 the projector is I and the value is 1
    gm = 2.0
    return False, f"gamma = {gm}: the seed's (93) gives {gm}, but P_row(X) = I for n > d, so E||P beta_t||^2 = 1"


r_, t_ = sp.symbols("r t", positive=True)
nn = sp.Symbol("n", integer=True, positive=True)
S_n = 2 * sp.pi ** (nn / 2) / sp.gamma(nn / 2)  # surface area of the unit sphere in R^n


def _eq114_seed():
    n0 = 5
    val = sp.integrate(r_ ** (n0 - 3) * sp.exp(r_**2 / 2), (r_, 0, sp.oo))
    return False, f"n = {n0}: the integral of r^(n-3) e^(+r^2/2) over (0, oo) is {val} (diverges); the sign of the exponent is wrong"


def _ridge_strict():
    f = sp.lambdify((lam, th), RIDGE)
    a, b = f(0.0, math.pi / 2), f(1.0, math.pi / 2)
    return a < b, f"theta = pi/2: R(lambda=0) = {a:.6g} = R(lambda=1) = {b:.6g}; the risk is constant in lambda there"


def _ft_noise():
    # the seed's (14) against the balanced-rank-one law at gamma = 1/2, theta = pi/3, sigma = 1, L = 2
    seed = float(FT_SEED.subs({g: sp.Rational(1, 2), th: sp.pi / 3, s: 1}))
    true = float(_finetune_risk(0.5, math.pi / 3, 1.0, 2))
    return abs(seed - true) < 1e-12, (f"gamma = 1/2, theta = pi/3, sigma = 1, L = 2: (14) gives {seed:.6g}, the "
                                      f"fine-tuned network {true:.6g} (c = {float(finetune_scale(0.5, 1.0, 2)):.6g})")


def _ft_noiseless():
    worst = 0.0
    for gm in (0.1, 0.5, 0.9):
        for tt in (0.3, 1.0, 2.5):
            for dp in (2, 3, 10):
                seed = float(FT_SEED.subs({g: gm, th: tt, s: 0}))
                worst = max(worst, abs(seed - float(_finetune_risk(gm, tt, 0.0, dp))))
    return worst < 1e-12, f"max |(14) - fine-tuned risk| at sigma = 0 over gamma, theta, L grids: {worst:.1e} (c = 1)"


gp_, gm_ = sp.symbols("gamma_+ gamma_-")
Bq = 1 + sp.cos(th) ** 2 - s**2
GAMMA_PM = [(Bq + sgn * sp.sqrt(Bq**2 - 4 * sp.cos(th) ** 2)) / 2 for sgn in (1, -1)]


def _interval_order():
    vals = [float(x.subs({th: 1.2, s: sp.Rational(1, 5)})) for x in GAMMA_PM]
    return vals[0] < vals[1], (f"theta = 1.2, sigma = 0.2: gamma_+ = {vals[0]:.6g} > gamma_- = {vals[1]:.6g}, so the "
                               f"seed's interval (gamma_+, gamma_-) is empty; negative transfer is on (gamma_-, gamma_+)")


def _theta_range():
    T = sp.lambdify((g, th, s), TRANSFERABILITY)
    val = T(0.5, math.pi / 2, 0.2)
    return val >= 0, (f"theta = pi/2, gamma = 1/2, sigma = 0.2: T_lt = {val:.6g} < 0, outside the seed's theta range "
                      f"(arccos(1 - sigma), pi/2); T_lt depends on sin^2 theta, so the range is "
                      f"(arccos(1-sigma), pi - arccos(1-sigma))")


y_, f_, gg_ = sp.symbols("y f g_x", real=True)
sig = sigma_pos.symbol


def _dudley_25():
    # (24) -> (25) claims |e^{-s^2/2}/2 int (cos f - cos g) p| >= e^{-s^2/2}/2 int (f^2 + g^2) p; take f = g = 1
    lhs, rhs = 0.0, math.exp(-0.5) / 2 * 2
    return lhs >= rhs, f"f = g = 1, sigma = 1: the left side of (25) is {lhs}, the right side {rhs:.6g} > 0"


w1_, w2_ = sp.symbols("u_1 u_2", real=True)
# RKHS normalizations (151)-(156) with m = 2 model and m* = 2 teacher features (Gram entries as symbols)
Gs = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"G_{min(i, j)}{max(i, j)}", real=True))
Gt = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"H_{i}{j}", real=True))
cs_ = sp.Matrix(sp.symbols("c_1 c_2", real=True))
m_, ms_ = 2, 2
K_ = Gs / m_
Kt_ = Gt / sp.sqrt(m_ * ms_)
bvec_ = Gt * cs_ / ms_

DERIVATIONS = (
    Derivation("transfer.theorem36", "Scratch risk (Theorem 3.6): eqs (88)-(100) and the finite-size form",
               SEED, "App. B.5, eqs (88)-(100)", ("transfer.scratch_risk", "transfer.scratch_risk_finite",
                                                  "transfer.pinv_trace"), (
        Step("(89)-(92): 1 + E||b||^2 - 2E<b, beta_t> with b = P beta_t + X^+ eps",
             1 + (sp.Symbol("p") + s**2 * sp.Symbol("tau")) - 2 * sp.Symbol("p"),
             1 - sp.Symbol("p") + s**2 * sp.Symbol("tau"),
             "p = E||P beta_t||^2 = E beta_t^T P beta_t (P^T P = P), tau = E tr(X^+T X^+); cross terms have mean 0"),
        Step("(93) as written: E||P_row(X) beta_t||^2 = gamma for all gamma", erratum=Erratum(
            "002-eq93", SEED, "eq (93)", "E||P_row(X) beta_t||^2 = gamma",
            "= min(gamma, 1): n/d for n <= d and 1 for n >= d (P_row(X) = I). (100)'s gamma > 1 branch uses 1.",
            "No effect on (100); the Monte Carlo check of (93) uses min(gamma, 1)."),
             check_fn=_numeric(_p_row_seed, "counterexample (projector rank)")),
        Step("(95): sum_l 1/sigma_l^2 = (gamma/n) tr(C^-1), C = X X^T/d", 1 / (d * sp.Symbol("lambda_l", positive=True)),
             (n / d) / n / sp.Symbol("lambda_l", positive=True)),
        Step("(98)-(99): lim_{z->0} g_C(z) = -1/(1-gamma), gamma < 1",
             check_fn=_numeric(_stieltjes_limit, "numeric limit at z = +-1e-25, 60 digits")),
        Step("(100), gamma < 1: p = gamma, tau = gamma/(1-gamma)", 1 - g + s**2 * g / (1 - g),
             ((1 - g) ** 2 + g * s**2) / (1 - g)),
        Step("(100), gamma > 1: p = 1, tau = 1/(gamma-1)", 1 - 1 + s**2 / (g - 1), s**2 / (g - 1)),
        Step("finite n < d-1: E||P beta||^2 = n/d, E tr (XX^T)^-1 = n/(d-n-1) (inverse Wishart)",
             1 - n / d + s**2 * n / (d - n - 1), SCRATCH_FINITE.args[0][0]),
        Step("stable finite form", SCRATCH_FINITE_STABLE.args[0][0], SCRATCH_FINITE.args[0][0]),
        Step("finite form -> (8) as d -> oo with n = gamma d, gamma < 1",
             sp.Limit(SCRATCH_FINITE.args[0][0].subs(n, g * d), d, sp.oo), SCRATCH.args[0][0],
             domain={g: (0.05, 0.95)}),
        Step("finite form -> (8) as d -> oo with n = gamma d, gamma > 1",
             sp.Limit(SCRATCH_FINITE.args[1][0].subs(n, g * d), d, sp.oo), SCRATCH.args[1][0],
             domain={g: (1.05, 3.0)}),
        Step("pinv trace: finite n/(d-n-1) -> gamma/(1-gamma)", sp.Limit((g * d) / (d - g * d - 1), d, sp.oo),
             g / (1 - g), domain={g: (0.05, 0.95)}),
    )),
    Derivation("transfer.theorem37", "Linear transfer (Theorem 3.7): eqs (101)-(117)", SEED,
               "App. B.6, eqs (101)-(117)", ("transfer.linear_transfer_risk", "transfer.inverse_chi2_mean"), (
        Step("(108): ||b beta_s - beta_t||^2 = 1 + b^2 - 2 b cos(theta)",
             (sp.Symbol("b") - sp.cos(th)) ** 2 + sp.sin(th) ** 2, 1 + sp.Symbol("b") ** 2 - 2 * sp.Symbol("b") * sp.cos(th),
             "beta_t = cos(theta) beta_s + sin(theta) nu, nu ⟂ beta_s, all unit"),
        Step("(112): E b^2 = cos^2 + (sin^2 + sigma^2) E 1/||z||^2",
             sp.cos(th) ** 2 + (sp.sin(th) ** 2 * sp.Symbol("z2") + s**2 * sp.Symbol("z2")) / sp.Symbol("z2") ** 2,
             sp.cos(th) ** 2 + (sp.sin(th) ** 2 + s**2) / sp.Symbol("z2"),
             "conditionally on z: E (z.w)^2 = E (z.eps)^2/sigma^2 = ||z||^2 =: z2"),
        Step("(114) as written: S_(n-1)/(2pi)^(n/2) int r^(n-3) e^(+r^2/2) dr", erratum=Erratum(
            "002-eq114", SEED, "eq (114)", "E 1/||z||^2 = S_{n-1}/(2 pi)^{n/2} int_0^oo r^{n-3} e^{r^2/2} dr",
            "the exponent is -r^2/2 (as written the integral diverges); (115)-(117) use the right sign.", ""),
             check_fn=_numeric(_eq114_seed, "SymPy integration at n = 5")),
        Step("(115): t = r^2/2 in int r^(n-3) e^(-r^2/2) dr, with (2pi)^(-n/2)",
             sp.Integral(r_ ** (nn - 3) * sp.exp(-r_**2 / 2), (r_, 0, sp.oo)) / (2 * sp.pi) ** (nn / 2),
             sp.Integral(sp.exp(-t_) * t_ ** (nn / 2 - 2), (t_, 0, sp.oo)) / (4 * sp.pi ** (nn / 2)),
             domain={nn: (3, 12)}, symbolic=False, points=6),
        Step("(116)-(117): S_(n-1) Gamma(n/2 - 1)/(4 pi^(n/2)) = 1/(n-2)",
             S_n * sp.gamma(nn / 2 - 1) / (4 * sp.pi ** (nn / 2)), 1 / (nn - 2), domain={nn: (3, 40)}),
        Step("(10): 1 + E b^2 - 2 cos(theta) E b with E b = cos(theta)",
             1 + sp.cos(th) ** 2 + (sp.sin(th) ** 2 + s**2) / (n - 2) - 2 * sp.cos(th) ** 2, LINEAR_TRANSFER),
    )),
    Derivation("transfer.theorem38", "Ridge linear transfer (Theorem 3.8): eqs (118)-(138)", SEED,
               "App. B.7, eqs (118)-(138)", ("transfer.ridge_transfer_risk",), (
        Step("(138) from (125) with I1(n) -> 0, I1(n+2) -> 1/(1+lam)^2, I2(n) -> 1/(1+lam)",
             1 + sp.cos(th) ** 2 / (1 + lam) ** 2 + 0 - 2 * sp.cos(th) ** 2 / (1 + lam), RIDGE),
        Step("stable form of (13)", RIDGE_STABLE, RIDGE),
        Step("dR/dlambda = 2 lambda cos^2(theta)/(1+lambda)^3 >= 0", sp.diff(RIDGE, lam),
             2 * lam * sp.cos(th) ** 2 / (1 + lam) ** 3),
        Step("'strictly increasing in lambda >= 0 for any theta in [0, pi/2]'", erratum=Erratum(
            "002-thm38-strict", SEED, "after eq (138)", "a strictly increasing function in lambda >= 0 for any theta",
            "increasing, strictly only where cos(theta) != 0: at theta = pi/2 the limit risk is 1 for every lambda.",
            "lambda* = 0 remains optimal (not uniquely at theta = pi/2)."),
             check_fn=_numeric(_ridge_strict, "evaluation at theta = pi/2")),
    )),
    Derivation("transfer.theorem39", "Fine-tuning (Theorem 3.9), transferabilities (11), (15), negative transfer",
               SEED, "eqs (11), (14), (15), (139)-(141), text after (11)",
               ("transfer.finetune_risk", "transfer.finetune_transferability", "transfer.linear_transferability",
                "transfer.negative_transfer_region"), (
        Step("(11): T_lt = E R_sc - lim_n E R_lt", SCRATCH.args[0][0] - sp.Limit(LINEAR_TRANSFER, n, sp.oo), T_LT_OVER),
        Step("(15) from (14): T_ft = E R_sc - E R_ft, gamma < 1", SCRATCH.args[0][0] - FT_SEED_OVER,
             TFT_SEED.args[0][0]),
        Step("(139)/(14) with sigma = 0: the fine-tuned network's risk equals (14) (c = 1 for every depth)",
             check_fn=_numeric(_ft_noiseless, "evaluation on a grid of gamma, theta, L")),
        Step("(139)/(14) with label noise", erratum=Erratum(
            "002-thm39-depth", SEED, "eqs (139), (14), (15)",
            "lim beta_ft = beta_sc + (I - P_row(X)) beta_s; E R_ft = E R_sc + (1-gamma)(1 - 2 cos theta)",
            "beta_ft = X^+ y + c (I - P_row(X)) beta_s with c = ||beta_ft||^((L-1)/L): (I-P) W1 is frozen but the "
            "readout product rescales. In the high-dimensional limit c^(2L/(L-1)) = gamma + sigma^2 gamma/(1-gamma) "
            "+ c^2 (1-gamma) and E R_ft = E R_sc + (1-gamma)(c^2 - 2c cos theta): c = 1 only without label noise; "
            "with noise the risk depends on the depth L.",
            "Confirmed on trained 2-layer networks (verify: the law fits >= 20x better than c = 1)."),
             check_fn=_numeric(_ft_noise, "the seed's (14) vs the balanced rank-one law")),
        Step("gamma_pm solve T_lt = 0 (gamma < 1): gamma^2 - B gamma + cos^2 = 0",
             GAMMA_PM[0] ** 2 - Bq * GAMMA_PM[0] + sp.cos(th) ** 2, 0),
        Step("T_lt < 0 <=> gamma^2 - B gamma + cos^2 theta < 0 (times (1-gamma) > 0)",
             T_LT_OVER * (1 - g), g**2 - Bq * g + sp.cos(th) ** 2, domain={g: (0.05, 0.95)}),
        Step("stable form of (11), gamma < 1/2", TRANSFERABILITY_STABLE.args[0][0], T_LT_OVER),
        Step("stable form of (11), 1/2 <= gamma < 1", TRANSFERABILITY_STABLE.args[1][0], T_LT_OVER),
        Step("stable form of (11), gamma > 1", TRANSFERABILITY_STABLE.args[2][0], T_LT_UNDER),
        Step("fine-tuning risk as a sum of squares: E R_sc + (1-g)(c^2 - 2c cos) = (1-g)((c-cos)^2 + sin^2) + "
             "sigma^2 g/(1-g)", SCRATCH.args[0][0] + (1 - g) * (sp.Symbol("c") ** 2 - 2 * sp.Symbol("c") * sp.cos(th)),
             (1 - g) * ((sp.Symbol("c") - sp.cos(th)) ** 2 + sp.sin(th) ** 2) + s**2 * g / (1 - g)),
        Step("the seed's interval (gamma_+, gamma_-)", erratum=Erratum(
            "002-eq11-interval", SEED, "text after eq (11)", "gamma in (gamma_+, gamma_-), gamma_pm = [B pm sqrt(...)]/2",
            "gamma_+ > gamma_-: the interval is (gamma_-, gamma_+).", ""),
             check_fn=_numeric(_interval_order, "evaluation at theta = 1.2, sigma = 0.2")),
        Step("the seed's theta range (arccos(1 - sigma), pi/2)", erratum=Erratum(
            "002-eq11-theta", SEED, "text after eq (11)", "negative transfer when theta in (arccos(1 - sigma), pi/2)",
            "T_lt depends on theta through sin^2 theta: the range is (arccos(1-sigma), pi - arccos(1-sigma)), "
            "pi/2 included (there gamma in (0, 1 - sigma^2)).", ""),
             check_fn=_numeric(_theta_range, "evaluation at theta = pi/2")),
        Step("the discriminant B^2 - 4 cos^2 >= 0 <=> |cos theta| <= 1 - sigma (B > 0)",
             Bq**2 - 4 * sp.cos(th) ** 2, (1 + sp.cos(th) - s) * (1 - sp.cos(th) - s) * (1 + sp.cos(th) + s)
             * (1 - sp.cos(th) + s)),
        Step("sigma -> 0: gamma_+ -> 1", sp.Limit(GAMMA_PM[0], s, 0), 1, domain={th: (0.1, 1.5)}),
        Step("sigma -> 0: gamma_- -> cos^2 theta", sp.Limit(GAMMA_PM[1], s, 0), sp.cos(th) ** 2, domain={th: (0.1, 1.5)}),
        Step("underparameterized boundary: T_lt = 0 at gamma = 1 + sigma^2/sin^2 theta",
             T_LT_UNDER.subs(g, 1 + s**2 / sp.sin(th) ** 2), 0, domain={s: (0.05, 2.0), th: (0.1, 3.0)}),
    )),
    Derivation("transfer.divergences", "KL divergence (28)-(31) and the Dudley-metric bound (22)-(25)", SEED,
               "App. B.1, eqs (22)-(31)", ("transfer.kl_divergence",), (
        Step("(28) -> (29): the integrand", erratum=Erratum(
            "002-eq29", SEED, "eq (29)", "[(y-g)^2/(2 sigma^2) - (y-f)^2/(2 sigma^2)] = [g^2 - f^2 - 2yg + 2yf]",
            "the factor 1/(2 sigma^2) is dropped in (29) and reappears in (30)", ""),
             lhs=(y_ - gg_) ** 2 / (2 * sig**2) - (y_ - f_) ** 2 / (2 * sig**2), rhs=gg_**2 - f_**2 - 2 * y_ * gg_ + 2 * y_ * f_),
        Step("(30): E_{y ~ N(f, sigma^2)} of (28)'s integrand = (f - g)^2/(2 sigma^2)",
             sp.Integral(((y_ - gg_) ** 2 - (y_ - f_) ** 2) / (2 * sig**2) * sp.exp(-(y_ - f_) ** 2 / (2 * sig**2))
                         / sp.sqrt(2 * sp.pi * sig**2), (y_, -sp.oo, sp.oo)), (f_ - gg_) ** 2 / (2 * sig**2),
             symbolic=False, points=4, domain={sig: (0.3, 2.0), f_: (-2.0, 2.0), gg_: (-2.0, 2.0)}),
        Step("(24): E_{y ~ N(f, sigma^2)} cos(y)/2 = e^(-sigma^2/2) cos(f)/2",
             sp.Integral(sp.cos(y_) / 2 * sp.exp(-(y_ - f_) ** 2 / (2 * sig**2)) / sp.sqrt(2 * sp.pi * sig**2),
                         (y_, -sp.oo, sp.oo)), sp.exp(-sig**2 / 2) * sp.cos(f_) / 2, symbolic=False,
             domain={sig: (0.3, 2.0), f_: (-2.0, 2.0)}, points=2),
        Step("(25): the lower bound by int (f^2 + g^2) p", erratum=Erratum(
            "002-eq25", SEED, "eq (25)", "|e^{-s^2/2}/2 int (cos f - cos g) p| >= e^{-s^2/2}/2 int (f^2 + g^2) p",
            "cos z - cos x <= x^2 + z^2 bounds the difference from above, not below; with f = g the left side is 0. "
            "Theorem 2.2's Dudley-metric claim needs another argument.", ""),
             check_fn=_numeric(_dudley_25, "evaluation at f = g")),
    )),
    Derivation("transfer.relu_rkhs", "ReLU kernel (150) and RKHS projections (151)-(156)", SEED,
               "App. C, eqs (150)-(156)", ("transfer.relu_kernel", "transfer.rkhs_residual"), (
        Step("stable form equals (150)", RELU_K_STABLE, RELU_K, symbolic=False, domain={u: (-1.0, 1.0)}),
        Step("k(1) = E relu(g)^2 = 1/2", RELU_K.subs(u, 1), sp.Rational(1, 2)),
        Step("k(0) = (E relu(g))^2 = 1/(2 pi)", RELU_K.subs(u, 0), (1 / sp.sqrt(2 * sp.pi)) ** 2),
        Step("k(-1) = 0 (w_j = -w_i: the ReLUs never fire together)", RELU_K.subs(u, -1), 0),
        Step("(155): (1/m*) c*^T Kt^T K^-1 Kt c* = b^T G^-1 b, b = H c*/m* (m = m* = 2)",
             ((cs_.T * Kt_.T * K_.inv() * Kt_ * cs_) / ms_)[0], (bvec_.T * Gs.inv() * bvec_)[0],
             domain={sp.Symbol("G_00", real=True): (2.0, 3.0), sp.Symbol("G_11", real=True): (2.0, 3.0),
                     sp.Symbol("G_01", real=True): (-0.5, 0.5)}),
    )),
)
