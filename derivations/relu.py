"""relu: the PT+FT penalty of a shallow ReLU network's hidden unit, via a quartic (seed 001, Sec. 1).

Entries quartic, stationary_points, penalty, penalty_aux, log_slope; the derivation of eqs (2)-(11) and the
claims of Sec. 1.2, with the seed's errata (the definition of rho, the divergence at u -> 0, the uniqueness of
the positive root, the log-derivative) checked as steps that must fail.
"""
from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from theorylab.derivation import Derivation, Erratum, Step
from theorylab.entry import Constraint, Entry, Source
from theorylab.params import DomainError, scalar

SEED = "001_47508cf19f540f71.txt"

# ------------------------------------------------------------------------------------------------------
# the numeric core: the global minimum of p(u) over u > 0, batched
#
# p(u) = (m/u - gamma)^2 + (u - a)^2 + C with a = m0 rho, C = m0^2 (1 - rho^2) (a sum of nonnegative terms),
# stationary where f(u) = u^4 - a u^3 + c u - M = 0 (c = gamma m, M = m^2), and p' has the sign of f.
# f'' = 6u(2u - a): f is concave on (0, a/2) and convex beyond. Descartes: one positive root unless a > 0 and
# c > 0; then f' = 4u^3 - 3a u^2 + c has the critical points u_L < a/2 < u_R (when c < a^3/4), and p's local
# minima are the root r1 in (0, u_L) (exists iff f(u_L) > 0) and the root r3 > u_R (iff f(u_R) < 0). Newton's
# method is monotone on both: from below on the concave increasing branch, from above on the convex one.
# ------------------------------------------------------------------------------------------------------

_SPLIT = 134217729.0   # 2^27 + 1, Dekker's splitting constant for float64
_CHUNK = 16384         # points per block: every temporary stays in cache (large temporaries cost page faults)
_TINY_M2 = 1e-250      # scaled m^2 below this leaves float64's joint range for the quartic: mpmath path
_MAXIT = 200           # Newton is monotone; near a multiple root it is linear, so allow many steps
TIE_RTOL = 1e-13       # two local minima this close (relative) are a tie for log_slope (values carry ~1e-15)


def _two_prod(x, y):
    """(p, e) with x*y = p + e exactly (Dekker's algorithm; no FMA in NumPy). |x|, |y| well inside range."""
    p = x * y
    t = _SPLIT * x
    xh = t - (t - x)
    xl = x - xh
    t = _SPLIT * y
    yh = t - (t - y)
    yl = y - yh
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _upper_bound(ap, an, cp, cn, M):
    """An upper bound on the positive roots of f, by sign pattern (a start for Newton from above).

    Fujiwara's 2 max(a+, c-^(1/3), (M/2)^(1/4)) always holds. Tighter: with a <= 0 and c >= 0 the root lies below
    each (M/b_j)^(1/j) of the positive terms b_j u^j; with a <= 0 and c < 0 below the u where the positive terms
    reach twice each negative one (each bounded by its smallest single-term solution); with a > 0 (and c <= 0)
    below a + (c- a + M)/a^3 (the root exceeds a and u - a = (c- u + M)/u^3 decreases) and below
    max(3a, (3c-)^(1/3), (3M)^(1/4)). fmin/fmax skip the 0/0 of absent terms. (For a > 0 and c > 0 the caller
    tightens the bound of the largest root with f(a).)
    """
    qM = np.sqrt(np.sqrt(M))
    cc = np.cbrt(cn)
    ca = np.cbrt(M / an)
    fuj = 2.0 * np.fmax(np.fmax(ap, cc), 0.8408964152537146 * qM)           # 2^(-1/4) M^(1/4)
    u1 = np.fmin(np.fmin(qM, ca), M / cp)
    # a <= 0, c < 0: u^4 + |a| u^3 >= 2 c- u once either positive term alone does, and >= 2M likewise
    u2 = np.fmax(np.fmin(1.2599210498948732 * cc, np.sqrt(2.0 * cn / an)),      # 2^(1/3)
                 np.fmin(1.189207115002721 * qM, 1.2599210498948732 * ca))      # 2^(1/4), 2^(1/3)
    # a > 0, c <= 0: f(a) < 0, so r > a and r - a = (c- r + M)/r^3 <= (c- a + M)/a^3
    ua = ap + (cn * ap + M) / (ap * ap * ap)
    u3 = np.fmin(ua, np.fmax(np.fmax(3.0 * ap, 1.4422495703074083 * cc), 1.3160740129524924 * qM))  # 3^(1/3), 3^(1/4)
    U = np.where(ap > 0, u3, np.where(cn > 0, u2, u1))
    return np.fmin(U, fuj)


def _newton(a, c, M, u, clamp, down: bool, tol: float = 1e-9):
    """Monotone Newton on f from the safe side of one root, clamped to the root's branch [u_R, oo) or (0, u_L];
    converged points leave the active set."""
    out = u.copy()
    ids = np.arange(u.size)
    a3 = 3.0 * a
    for _ in range(_MAXIT):
        if not ids.size:
            break
        u2 = u * u
        f = ((u - a) * u2 + c) * u - M
        fp = (4.0 * u - a3) * u2 + c
        with np.errstate(divide="ignore", invalid="ignore"):
            step = f / fp
        un = np.maximum(u - step, clamp) if down else np.minimum(u - step, clamp)
        prog = un < u if down else un > u
        u = np.where(prog, un, u)
        # after a step below tol u the quadratic convergence leaves an error ~tol^2 u
        done = ~prog | (np.abs(step) <= tol * u)
        ndone = int(np.count_nonzero(done))
        if ndone == done.size:
            out[ids] = u
            ids = ids[:0]
        elif ndone * 8 > done.size:  # compact when it pays; a converged point left active just stays put
            out[ids[done]] = u[done]
            keep = ~done
            ids, u, a, a3, c, M, clamp = ids[keep], u[keep], a[keep], a3[keep], c[keep], M[keep], clamp[keep]
    if ids.size:
        out[ids] = u
    return out


def _newton_convex(a, c, M, u, tol: float = 1e-9):
    """Newton from above where f is convex and increasing right of its only positive root (one sign change:
    m0 rho <= 0 or gamma m <= 0): no clamp needed, a step <= 0 means converged. The bulk of the work."""
    out = u.copy()
    ids = np.arange(u.size)
    a3 = 3.0 * a
    for _ in range(_MAXIT):
        if not ids.size:
            break
        u2 = u * u
        f = ((u - a) * u2 + c) * u - M
        fp = (4.0 * u - a3) * u2 + c
        with np.errstate(divide="ignore", invalid="ignore"):
            step = f / fp
        # a step <= 0 only happens at the rounding level of the root (f(u) <= 0 computed): taking it is harmless
        u = u - step
        done = ~(step > tol * u)
        ndone = int(np.count_nonzero(done))
        if ndone == done.size:
            out[ids] = u
            ids = ids[:0]
        elif ndone * 8 > done.size:
            out[ids[done]] = u[done]
            keep = ~done
            ids, u, a, a3, c, M = ids[keep], u[keep], a[keep], a3[keep], c[keep], M[keep]
    if ids.size:
        out[ids] = u
    return out


def _compensated(m, m0, m0lo, rho, g, C, u, steps: int = 2):
    """Newton on p'(u)/2 = B - A w/u, then p = A^2 + B^2 + C, with A = (m - gamma u)/u and B = u - m0 rho formed
    from exact products and u carried as u_hi + du: near the zero set (rho = 1, m = gamma m0) r~ ~ eps^2 m^2/k and
    u* must be resolved below one ulp (u_hi + du), or rounding u alone would change r~ at first order."""
    ahi, alo = _two_prod(m0, rho)
    alo = alo + m0lo * rho
    for _ in range(2):  # first bring u_hi to the float nearest the root (du must stay below an ulp or so)
        ph, pl = _two_prod(g, u)
        A = ((m - ph) - pl) / u
        B = (u - ahi) - alo
        w = m / u
        with np.errstate(divide="ignore", invalid="ignore"):
            un = u - (B - A * w / u) / (1.0 + w * (w + 2.0 * A) / (u * u))
        u = np.where((un > 0) & np.isfinite(un), un, u)
    ph, pl = _two_prod(g, u)
    N0 = (m - ph) - pl          # m - gamma u_hi, to eps |N0|
    B0 = (u - ahi) - alo        # u_hi - m0 rho, to eps |B0|
    du = np.zeros_like(u)
    for it in range(steps + 1):
        U = u + du
        A = (N0 - g * du) / U
        B = B0 + du
        w = m / U
        Gp = 1.0 + w * (w + 2.0 * A) / (U * U)
        if it == steps:
            break
        G = B - A * w / U
        with np.errstate(divide="ignore", invalid="ignore"):
            step = G / Gp
        du = np.where(np.isfinite(step) & (U - step > 0), du - step, du)
    # at the root A w/U = B, so A = B U/w too: take that form where u - m0 rho cancels less than m/u - gamma
    # (e.g. u* ~ m/gamma with m/u* - gamma ~ 1e-35 gamma: no float u resolves A directly, B has all its digits)
    A = np.where(np.abs(B * g) > np.abs(A * ahi), B * U / w, A)
    return A * A + B * B + C, A, w, u + du, Gp


def _core(m, m0, rho, g, m0sq, m0lo, full: bool = True, fine_u: bool = False):
    """One block in scaled units (max(sqrt|m|, m0, |gamma|) in [1/2, 1)).

    Returns value, u*, slope = d log r / d log|m|, gap (relative difference of the two local minima, inf when
    there is one), curvature g'(u*) = p''(u*)/2 (these three only with full=True), and a mask of points left to the
    mpmath path. With full=False and fine_u=False (only the value asked for) Newton stops at a step of 1e-6 u, which
    leaves u* within ~1e-12 relative and the value (stationary in u) within ~1e-24; fine_u keeps u* to ~1e-15.
    """
    n = m.size
    a = m0 * rho
    c = g * m
    M = m * m
    C = m0sq * ((1.0 - rho) * (1.0 + rho))
    value = np.full(n, np.nan)
    ustar = np.full(n, np.nan)
    slope = np.full(n, np.nan) if full else None
    gap = np.full(n, np.inf) if full else None
    curv = np.full(n, np.nan) if full else None
    zero = m == 0
    dead = M < _TINY_M2
    if dead.any():
        if zero.any():
            # m = 0: p = gamma^2 + (u - a)^2 + C, inf at u = a if a > 0, else the limit u -> 0+ (not attained)
            z = zero
            value[z] = g[z] * g[z] + np.where(a[z] > 0, C[z], m0sq[z])
            ustar[z] = np.where(a[z] > 0, a[z], np.nan)
        live = np.flatnonzero(~dead)
        dead &= ~zero
    else:
        live = None
    if live is None:
        mL, m0L, lo, rL, gL, aL, cL, ML, CL = m, m0, m0lo, rho, g, a, c, M, C
    elif live.size == 0:
        return value, ustar, slope, gap, curv, dead
    else:
        mL, m0L, lo, rL, gL, aL, cL, ML, CL = (x[live] for x in (m, m0, m0lo, rho, g, a, c, M, C))
    nl = mL.size
    # the value is stationary in u: a Newton step below 1e-6 u leaves u within ~1e-12 and p within ~1e-24 (points
    # where p'' u^2/p is large are the flagged ones, re-polished below); the slope and u* itself are first order in
    # u: 1e-9 (a step below 1e-9 u leaves an error ~1e-18 u, below float64's rounding)
    tol = 1e-9 if (full or fine_u) else 1e-6
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        U = _upper_bound(np.maximum(aL, 0.0), np.maximum(-aL, 0.0), np.maximum(cL, 0.0), np.maximum(-cL, 0.0), ML)
    bmask = (aL > 0) & (cL > 0)
    both = np.flatnonzero(bmask)
    best_u = np.empty(nl)
    il = both[:0]
    right_b = il
    if both.size:
        one = np.flatnonzero(~bmask)
        best_u[one] = _newton_convex(aL[one], cL[one], ML[one], U[one], tol)
        ab, cb, Mb = aL[both], cL[both], ML[both]
        with np.errstate(divide="ignore", over="ignore"):
            kap = cb / (ab * ab * ab)  # a^3 may underflow: kappa = inf is the monotone case, as it should be
        small = kap < 0.25
        # critical points u = a t: 4t^3 - 3t^2 + kappa = 0, t = 1/4 + cos(phi + 2 pi k/3)/2, cos(3 phi) = 1 - 8 kappa;
        # phi = (2/3) asin(2 sqrt(kappa)) and the product form of t_L avoid cancellation at small kappa
        phi = (2.0 / 3.0) * np.arcsin(2.0 * np.sqrt(np.minimum(kap, 0.25)))
        h = 0.5 * phi
        uLs = ab * np.where(small, np.sin(h + np.pi / 3.0) * np.sin(h), 0.5)
        uRs = ab * np.where(small, 0.25 + 0.5 * np.cos(phi), 0.5)
        fL = uLs * uLs * (uLs * (uLs - ab)) + (cb * uLs - Mb)
        fR = uRs * uRs * (uRs * (uRs - ab)) + (cb * uRs - Mb)
        lb = fL >= 0
        rb = (fR < 0) | ~lb  # exactly: f(u_L) > f(u_R), so at least one branch holds
        il = both[lb]
        right_b = both[rb]
        # f < 0 below min(M/(2c), (M/2)^(1/4)) (u^4 + c u < M there); f(u_L) = 0 exactly: u_L is the root
        Ll = np.minimum(np.minimum(Mb[lb] / (2.0 * cb[lb]), np.sqrt(np.sqrt(0.5 * Mb[lb]))), uLs[lb])
        Ll = np.where(fL[lb] == 0, uLs[lb], Ll)
        uleft = _newton(aL[il], cL[il], ML[il], Ll, uLs[lb], down=False, tol=tol)
        # largest root: below a if f(a) = c a - M > 0 (f increases beyond u_R < a), else within M/a^3 above a
        ar, cr, Mr = ab[rb], cb[rb], Mb[rb]
        fa = cr * ar - Mr
        with np.errstate(divide="ignore", over="ignore"):  # a^3 may underflow: then U stands
            Ur = np.minimum(U[right_b], np.where(fa > 0, ar, ar + Mr / (ar * ar * ar)))
        uright = _newton(aL[right_b], cL[right_b], ML[right_b], Ur, uRs[rb], down=True, tol=tol)
        best_u[right_b] = uright
        best_u[both[~rb]] = uleft[~rb[lb]]  # only the left root exists there
    else:
        best_u = _newton_convex(aL, cL, ML, U, tol)
    w = mL / best_u
    A = w - gL
    B = best_u - aL
    best = A * A + B * B + CL
    ggap = None
    if il.size and right_b.size:
        two = np.flatnonzero(lb & rb)
        i2 = both[two]
        if i2.size:  # both local minima exist: keep the smaller
            ul = uleft[rb[lb]]
            wl = mL[i2] / ul
            Al = wl - gL[i2]
            Bl = ul - aL[i2]
            vl = Al * Al + Bl * Bl + CL[i2]
            old = best[i2]
            take = vl < old
            low = np.minimum(vl, old)
            if full:
                ggap = (i2, np.abs(vl - old) / low)
            best[i2] = low
            best_u[i2] = np.where(take, ul, best_u[i2])
            A[i2] = np.where(take, Al, A[i2])
            w[i2] = np.where(take, wl, w[i2])
    # cancellation in m/u - gamma or in u - m0 rho loses digits of p (and in m/u - gamma of A, hence of the slope):
    # redo those points with exact products; elsewhere each term is within a few ulps and all terms are >= 0
    risk = np.abs(A * gL) + np.abs((best_u - aL) * aL) >= 16.0 * best  # >=: a computed 0 is always redone
    if full:
        risk |= np.abs(A) < 2.0**-10 * np.abs(gL)
    flag = np.flatnonzero(risk)
    Gp = None
    if full:
        Gp = 1.0 + w * (w + 2.0 * A) / (best_u * best_u)
    if flag.size:
        v2, A2, w2, u2, gp2 = _compensated(mL[flag], m0L[flag], lo[flag], rL[flag], gL[flag], CL[flag],
                                           best_u[flag])
        best[flag], A[flag], w[flag], best_u[flag] = v2, A2, w2, u2
        if full:
            Gp[flag] = gp2
    if live is None:
        value, ustar = best, best_u
    else:
        value[live] = best
        ustar[live] = best_u
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            sl = 2.0 * A * w / best
        gg = np.full(nl, np.inf)
        if ggap is not None:
            gg[ggap[0]] = ggap[1]
        if live is None:
            slope, gap, curv = sl, gg, Gp
        else:
            slope[live], gap[live], curv[live] = sl, gg, Gp
    return value, ustar, slope, gap, curv, dead


def minimize_p(m, m0, rho, gamma, *, m0sq=None, outputs=("value", "u", "slope", "gap", "curvature")):
    """The global minimum of p(u) over u > 0 for arrays of (m, m0, rho, gamma) (broadcast). Seed 001, eqs (6)-(11).

    Returns a dict of arrays (those named in `outputs`): "value" r~, "u" the minimizer (to a few ulps relative where
    it is well conditioned, p''(u*) u*^2 not small against p's terms; NaN where the infimum is not attained, m = 0
    and m0 rho <= 0), "slope" d log r~ / d log|m| = 2 (m/u* - gamma)(m/u*)/r~ (envelope theorem;
    NaN at m = 0), "gap" the relative difference between the two local minima (inf with one), "curvature"
    p''(u*)/2. `m0sq` (default m0^2) is the exact m0^2 where m0 = sqrt(m_aux) is rounded. Blocks of 16384 points,
    each point scaled by a power of two so that max(sqrt|m|, m0, |gamma|) lies in [1/2, 1).
    """
    arrs = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (m, m0, rho, gamma)))
    shape = arrs[0].shape
    m, m0, rho, g = (np.ascontiguousarray(x).ravel() for x in arrs)
    exact_sq = m0sq is not None
    if exact_sq:
        m0sq = np.ascontiguousarray(np.broadcast_to(np.asarray(m0sq, dtype=float), shape)).ravel()
    n = m.size
    keys = ("value", "u", "slope", "gap", "curvature")
    out = {k: np.empty(n) for k in keys if k in outputs}
    for s in range(0, n, _CHUNK):
        e = min(s + _CHUNK, n)
        mm, mm0, rr, gg = m[s:e], m0[s:e], rho[s:e], g[s:e]
        if exact_sq:
            # m0 = sqrt(m0sq) rounded: m0sq - m0^2 = r exactly, so the exact root is m0 + r/(2 m0) to ~eps^2
            sq = m0sq[s:e]
            ph, pl = _two_prod(mm0, mm0)
            with np.errstate(divide="ignore", invalid="ignore"):
                lo = np.where(mm0 > 0, ((sq - ph) - pl) / (2.0 * mm0), 0.0)
        else:
            sq, lo = mm0 * mm0, np.zeros(e - s)
        with np.errstate(invalid="ignore"):
            big = np.maximum(np.maximum(np.sqrt(np.abs(mm)), mm0), np.abs(gg))
        _, k = np.frexp(big)
        # multiplying by 2^-k twice is exact wherever the result is a normal float; a subnormal scaled m lies in
        # the mpmath regime (its original value is used there), a subnormal scaled m0 or gamma is negligible
        t = np.ldexp(1.0, -k)
        res = _core(mm * t * t, mm0 * t, rr, gg * t, sq * t * t, lo * t,
                    full=any(k in out for k in ("slope", "gap", "curvature")), fine_u="u" in out)
        inv = np.ldexp(1.0, k)
        with np.errstate(over="ignore", invalid="ignore"):
            if "value" in out:
                out["value"][s:e] = res[0] * inv * inv
            if "u" in out:
                out["u"][s:e] = res[1] * inv
        for key, j in (("slope", 2), ("gap", 3), ("curvature", 4)):
            if key in out:
                out[key][s:e] = res[j]
        for j in np.flatnonzero(res[5]):  # |m| < 1e-125 max(m0, |gamma|)^2: exact arithmetic, point by point
            i = s + j
            r = _mp_minimize(m[i], m0sq[i] if exact_sq else None, m0[i], rho[i], g[i])
            for key in out:
                out[key][i] = float(r[key])
    return {k: v.reshape(shape) for k, v in out.items()}


# ------------------------------------------------------------------------------------------------------
# high-precision references (mpmath): polyroots at a precision set by the spread of the root scales, then p at
# the real part of every root with Re > 0 (each is an upper bound; the minimizer is among them)
# ------------------------------------------------------------------------------------------------------


def _spread_digits(a, c, M) -> int:
    """Decimal digits between the largest and the smallest possible positive root (Fujiwara bounds)."""
    def lg(x):
        return float(mpmath.log10(x)) if x > 0 else None
    hi = [v for v in (lg(abs(a)), lg(abs(c)) / 3 if c else None, lg(M) / 4) if v is not None]
    lo = [v for v in (lg(M) - lg(abs(c)) if c else None, (lg(M) - lg(abs(a))) / 3 if a else None, lg(M) / 4)
          if v is not None]
    return max(0, int(math.ceil(max(hi) - min(lo))))


def _mp_roots(coeffs, dps: int):
    """All complex roots of a polynomial (mpf coefficients, highest first) at `dps` digits; the variable is
    rescaled so the largest root is about 1 (Durand-Kerner starts near the unit circle)."""
    scale = max(abs(c / coeffs[0]) ** (mpmath.mpf(1) / j) for j, c in enumerate(coeffs[1:], 1) if c) \
        if any(coeffs[1:]) else mpmath.mpf(1)
    scaled = [c / scale ** j for j, c in enumerate(coeffs)]
    # a multiple root makes Durand-Kerner linear: retry at lower precision (coarser tolerance); the callers
    # polish or only need candidate points (p is flat to fourth order at a triple root)
    for digits in (dps, dps // 2, dps // 4, 15):
        with mpmath.workdps(max(digits, 15)):
            try:
                roots = mpmath.polyroots(scaled, maxsteps=400, extraprec=2 * digits)
                return [r * scale for r in roots]
            except mpmath.libmp.NoConvergence:
                continue
    # still not converged (a multiple root): float64 eigenvalue seeds, which the callers polish by Newton
    return [mpmath.mpc(complex(r)) * scale for r in np.roots([float(c) for c in scaled])]


def _bracketed_positive_minima(f, p, spread: int, a, c, M, dps: int):
    """Positive roots of f where it changes sign from - to + (the local minima of p), bracketed on a log grid of
    8 points per decade over the Fujiwara bounds and refined by the Anderson-Bjorck method at `dps` digits."""
    def lg(x):
        return float(mpmath.log10(abs(x))) if x else None
    hi = max(v for v in (lg(a), lg(c) / 3 if c else None, lg(M) / 4) if v is not None) + 1
    lo = hi - spread - 2
    grid = [mpmath.mpf(10) ** (lo + mpmath.mpf(k) / 8) for k in range(int((hi - lo) * 8) + 1)]
    vals = [f(u) for u in grid]
    cands, minima = [], []
    for u0, u1, f0, f1 in zip(grid, grid[1:], vals, vals[1:]):
        if f0 < 0 <= f1:
            u = mpmath.findroot(f, (u0, u1), solver="anderson", verify=False)  # a bracket: no check needed
            cands.append(u)
            minima.append((p(u), u))
    return cands, minima


def _mp_minimize(m, m0sq, m0, rho, g, dps: int | None = None) -> dict[str, Any]:
    """min over u > 0 of p in mpmath (inputs exact: floats or mpf); also u*, the slope, the gap, p''/2."""
    with mpmath.workdps(30):
        mm, rr, gg = mpmath.mpf(m), mpmath.mpf(rho), mpmath.mpf(g)
        sq = mpmath.mpf(m0) ** 2 if m0sq is None else mpmath.mpf(m0sq)
        spread = 0 if mm == 0 else _spread_digits(mpmath.sqrt(sq) * rr, gg * mm, mm * mm)
    dps = max(dps or 0, 40 + 4 * spread)
    with mpmath.workdps(dps):
        mm, rr, gg = mpmath.mpf(m), mpmath.mpf(rho), mpmath.mpf(g)
        sq = mpmath.mpf(m0) ** 2 if m0sq is None else mpmath.mpf(m0sq)
        a = mpmath.sqrt(sq) * rr
        C = sq * (1 - rr) * (1 + rr)
        nan = mpmath.mpf("nan")
        if mm == 0:
            return {"value": gg**2 + (C if a > 0 else sq), "u": a if a > 0 else nan, "slope": nan,
                    "gap": mpmath.inf, "curvature": nan}
        c, M = gg * mm, mm * mm

        def p(u):
            return (mm / u - gg) ** 2 + (u - a) ** 2 + C

        def f(u):
            return ((u - a) * u * u + c) * u - M

        def fp(u):
            return (4 * u - 3 * a) * u * u + c

        cands, minima = [], []
        # roots more than 60 decades apart: Durand-Kerner loses the small cluster (and is slow trying), while
        # bracketing on a log grid resolves it directly
        for r in (_mp_roots([1, -a, 0, c, -M], dps) if spread <= 60 else []):
            u = mpmath.re(r)
            if u <= 0:
                continue
            cands.append(u)
            real = abs(mpmath.im(r)) <= mpmath.mpf(10) ** (-dps // 3) * abs(r)
            for _ in range(30):  # Newton polish on the real axis (accepted only if it stays positive)
                d = fp(u)
                if d == 0:
                    break
                un = u - f(u) / d
                if not un > 0:
                    break
                done = abs(un - u) <= mpmath.mpf(10) ** (-dps) * u
                u = un
                if done:
                    break
            cands.append(u)
            if real and fp(u) > 0:
                minima.append((p(u), u))
        if not cands:
            # the root finder lost a cluster of tiny roots (|m| ~ 1e-283: roots 190 decades apart); f(0) = -M < 0
            # and f -> +oo, so the positive roots are brackets of sign changes on a log grid over the bounds
            cands, minima = _bracketed_positive_minima(f, p, spread, a, c, M, dps)
        best, ubest = min((p(u), u) for u in cands)
        minima.sort()
        gap = abs(minima[1][0] - minima[0][0]) / minima[0][0] if len(minima) > 1 and minima[0][0] > 0 else mpmath.inf
        w = mm / ubest
        return {"value": best, "u": ubest, "slope": 2 * (w - gg) * w / best if best else nan, "gap": gap,
                "curvature": 1 + w * (w + 2 * (w - gg)) / ubest**2}


def _direct_minimize(m, m0, rho, gamma, *, m0sq=None, dps: int = 50) -> dict[str, Any]:
    """inf over u > 0 of p(u) = (m/u - gamma)^2 + (u - m0 rho)^2 + m0^2 (1 - rho^2), the defining problem (6),
    solved directly in mpmath: no quartic, no polynomial roots.

    The minimizer lies in [|m|/(|gamma| + sqrt P0), |m0 rho| + sqrt P0] with P0 = p(sqrt|m|) (each nonnegative
    term of p is at most p(u*) <= P0); p is evaluated on a log grid of 24 points per decade there, and every
    discrete local minimum is refined in its two grid cells: by bisection on the sign of p'(u)/2 = (u - m0 rho)
    - (m/u - gamma) m/u^2 (the derivative of p written out, not the quartic) where p' changes sign across them,
    else by golden-section search on p; the smallest p wins. The winner is refined again at a precision grown
    with log10(P0/r~), so a value near the zero set keeps its digits. m = 0: the infimum by definition,
    min(p(m0 rho) if m0 rho > 0, lim_(u->0+) p).
    """
    def setup(dps):
        mm, rr, gg = mpmath.mpf(m), mpmath.mpf(rho), mpmath.mpf(gamma)
        sq = mpmath.mpf(m0) ** 2 if m0sq is None else mpmath.mpf(m0sq)
        a = mpmath.sqrt(sq) * rr
        C = sq * (1 - rr) * (1 + rr)

        def p(x):
            return (mm / x - gg) ** 2 + (x - a) ** 2 + C

        def dp(x):
            return (x - a) - (mm / x - gg) * mm / x**2

        return mm, gg, a, C, p, dp

    def refine(p, dp, x0, x1, dps):
        if dp(x0) < 0 < dp(x1):  # bisection on the sign of p': robust at a multiple root
            while x1 - x0 > mpmath.mpf(10) ** (-dps) * x1:
                mid = (x0 + x1) / 2
                if dp(mid) < 0:
                    x0 = mid
                else:
                    x1 = mid
            return (x0 + x1) / 2
        g_ = (mpmath.sqrt(5) - 1) / 2  # golden section on p (unimodal in the bracket up to rounding)
        c, d = x1 - g_ * (x1 - x0), x0 + g_ * (x1 - x0)
        pc, pd = p(c), p(d)
        while x1 - x0 > mpmath.mpf(10) ** (-dps // 2) * x1:
            if pc <= pd:
                x1, d, pd = d, c, pc
                c = x1 - g_ * (x1 - x0)
                pc = p(c)
            else:
                x0, c, pc = c, d, pd
                d = x0 + g_ * (x1 - x0)
                pd = p(d)
        return c if pc <= pd else d

    with mpmath.workdps(dps):
        mm, gg, a, C, p, dp = setup(dps)
        if mm == 0:
            lim0 = gg**2 + a**2 + C
            return {"value": min(lim0, p(a)) if a > 0 else lim0, "u": a if a > 0 else mpmath.mpf("nan")}
        P0 = p(mpmath.sqrt(abs(mm)))
        lo = abs(mm) / (abs(gg) + mpmath.sqrt(P0)) / 2
        hi = (abs(a) + mpmath.sqrt(P0)) * 2
        n = max(8, int(mpmath.ceil(24 * mpmath.log10(hi / lo))))
        step = (hi / lo) ** (mpmath.mpf(1) / n)
        us = [lo * step**k for k in range(n + 1)]
        ps = [p(x) for x in us]
        best = min((ps[k], us[k], (us[max(k - 1, 0)], us[min(k + 1, n)])) for k in range(n + 1))
        for k in range(1, n):
            # a discrete local minimum (the left edge of a plateau of equal rounded values counts once)
            if ps[k] < ps[k - 1] and ps[k] <= ps[k + 1]:
                x = refine(p, dp, us[k - 1], us[k + 1], dps)
                best = min(best, (p(x), x, (us[k - 1], us[k + 1])))
        value, ustar, bracket = best
        # p at a point resolved to 10^-dps relative carries ~(P0/r~) 10^-dps relative error (cancellation)
        need = 40 + int(mpmath.ceil(mpmath.log10(P0 / value))) if value > 0 else dps
    for _ in range(8):  # each pass resolves more digits of a tiny r~; stop once the precision suffices
        if need <= dps:
            break
        dps = need + 10
        with mpmath.workdps(dps):
            mm, gg, a, C, p, dp = setup(dps)
            x = refine(p, dp, mpmath.mpf(bracket[0]), mpmath.mpf(bracket[1]), dps)
            value, ustar = min((p(x), x), (p(mpmath.mpf(ustar)), mpmath.mpf(ustar)))
            need = 40 + int(mpmath.ceil(mpmath.log10(P0 / value))) if value > 0 else dps
    return {"value": value, "u": ustar}


def penalty_reference(m, m0, rho, gamma, *, m0sq=None) -> float:
    """relu.penalty by the defining minimization (6) solved directly in mpmath (`_direct_minimize`: a bracketing
    grid in u, p' written out, no quartic and no polynomial roots), independent of the float64 solver and of the
    quartic route `_mp_minimize` that the solver uses below float64's range."""
    return float(_direct_minimize(m, m0, rho, gamma, m0sq=m0sq)["value"])


def log_slope_reference(m, m0, rho, gamma) -> float:
    """d log r~ / d log|m| by a central difference of the directly minimized penalty (`_direct_minimize`) in log|m|
    (step 1e-25 at 120+ digits: truncation ~1e-50), independent of the float64 solver. Where it agrees to 1e-40
    absolute with the envelope form 2 (m/u - gamma)(m/u)/p(u) at the direct minimizer (the same minimization), that
    value is returned, so exact zeros of the slope stay exact."""
    dps = 120
    with mpmath.workdps(dps):
        h = mpmath.mpf(10) ** -25
        mm = mpmath.mpf(m)
        hi = _direct_minimize(mm * mpmath.exp(h), m0, rho, gamma, dps=dps)["value"]
        lo = _direct_minimize(mm * mpmath.exp(-h), m0, rho, gamma, dps=dps)["value"]
        fd = (mpmath.log(hi) - mpmath.log(lo)) / (2 * h)
        res = _direct_minimize(mm, m0, rho, gamma, dps=dps)
        w = mm / res["u"]
        env = 2 * (w - mpmath.mpf(gamma)) * w / res["value"]
        return float(env if abs(fd - env) <= mpmath.mpf(10) ** -40 else fd)


# ------------------------------------------------------------------------------------------------------
# stationary points exactly: the inputs are rationals, so Sturm's theorem counts the distinct positive roots
# of the quartic exactly and its square-free part has only simple roots, found by mpmath
# ------------------------------------------------------------------------------------------------------


def _poly_divmod(num: list[Fraction], den: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    num = list(num)
    q = [Fraction(0)] * max(1, len(num) - len(den) + 1)
    while len(num) >= len(den) and any(num):
        coef = num[0] / den[0]
        shift = len(num) - len(den)
        q[len(q) - 1 - shift] = coef
        num = [x - coef * y for x, y in zip(num, den + [Fraction(0)] * shift)][1:]
    while num and num[0] == 0:
        num = num[1:]
    return q, num


def _poly_gcd(p: list[Fraction], q: list[Fraction]) -> list[Fraction]:
    while q and any(q):
        p, q = q, _poly_divmod(p, q)[1]
    return [x / p[0] for x in p]


def _sign_changes(values) -> int:
    signs = [v > 0 for v in values if v != 0]
    return sum(1 for s, t in zip(signs, signs[1:]) if s != t)


def _positive_root_count(poly: list[Fraction]) -> int:
    """Distinct roots in (0, oo) by Sturm's theorem (poly(0) != 0)."""
    deriv = [c * (len(poly) - 1 - i) for i, c in enumerate(poly[:-1])]
    seq = [poly, deriv]
    while len(seq[-1]) > 1:
        rem = _poly_divmod(seq[-2], seq[-1])[1]
        if not rem:
            break
        seq.append([-x for x in rem])
    return _sign_changes([s[-1] for s in seq]) - _sign_changes([s[0] for s in seq])


def stationary_points_exact(m: float, m0: float, rho: float, gamma: float) -> np.ndarray:
    """The distinct positive roots of eq (10), ascending (Seed 001, eq. (10)): exact count, mpmath values."""
    fm, fa = Fraction(m), Fraction(m0) * Fraction(rho)
    c, M = Fraction(gamma) * fm, fm * fm
    if M == 0:  # u^3 (u - a): the positive root a, if any
        return np.array([float(fa)]) if fa > 0 else np.zeros(0)
    f = [Fraction(1), -fa, Fraction(0), c, -M]
    deriv = [Fraction(4), -3 * fa, Fraction(0), c]
    g = _poly_gcd(f, deriv)
    sqf = _poly_divmod(f, g)[0] if len(g) > 1 else f
    count = _positive_root_count(sqf)
    if count == 0:
        return np.zeros(0)
    spread = _spread_digits(mpmath.mpf(fa.numerator) / fa.denominator, mpmath.mpf(c.numerator) / c.denominator,
                            mpmath.mpf(M.numerator) / M.denominator)
    dps = 40 + 4 * spread
    if spread > 60:  # roots hundreds of decades apart (m = 1e-300): exact sign changes separate them directly
        roots = _roots_by_bracketing(sqf, count)
        if roots is not None:
            return np.array(roots)
    for _ in range(4):
        with mpmath.workdps(dps):
            coeffs = [mpmath.mpf(x.numerator) / x.denominator for x in sqf]
            roots = sorted((r for r in _mp_roots(coeffs, dps) if mpmath.re(r) > 0),
                           key=lambda r: abs(mpmath.im(r)) / abs(r))[:count]
            if len(roots) == count and all(abs(mpmath.im(r)) <= mpmath.mpf(10) ** (-dps // 3) * abs(r) for r in roots):
                return np.array(sorted(float(mpmath.re(r)) for r in roots))
        dps *= 2
    roots = _roots_by_bracketing(sqf, count)
    if roots is None:
        raise RuntimeError("could not separate the positive roots")  # pragma: no cover
    return np.array(roots)


def _exact_sign(poly: list[Fraction], u: float) -> int:
    x = Fraction(u)
    v = Fraction(0)
    for c in poly:
        v = v * x + c
    return (v > 0) - (v < 0)


def _roots_by_bracketing(sqf: list[Fraction], count: int) -> list[float] | None:
    """The simple positive roots of a square-free polynomial by exact sign changes on a log grid over float64's
    range, each then bisected to adjacent floats (for roots spanning hundreds of decades, e.g. m = 1e-300, where
    polynomial root finders fail at any working precision); None if the grid does not separate `count` roots."""
    grid = [10.0 ** (k / 4) for k in range(-1292, 1233)]
    signs = [_exact_sign(sqf, u) for u in grid]
    roots = []
    for (a, sa), (b, sb) in zip(zip(grid, signs), zip(grid[1:], signs[1:])):
        if sa == 0:
            roots.append(a)
        elif sa * sb < 0:
            lo, hi = a, b
            while True:
                mid = math.sqrt(lo) * math.sqrt(hi)
                if not lo < mid < hi:
                    mid = lo + (hi - lo) / 2
                if not lo < mid < hi:
                    break
                if _exact_sign(sqf, mid) * sa > 0:
                    lo = mid
                else:
                    hi = mid
            roots.append(lo)  # lo and hi are adjacent floats around the root
    return sorted(roots) if len(roots) == count else None


def _stationary_reference(m, m0, rho, gamma) -> np.ndarray:
    """The positive real roots of p'(u), from p itself: SymPy differentiates p(u) = (m/u - gamma)^2 + u^2 + m0^2
    - 2 u m0 rho at the exact rational inputs, takes the numerator of p' and isolates its real roots exactly
    (CRootOf); positive roots, multiplicity dropped. Neither the quartic (10) as written nor Sturm/mpmath."""
    uu = sp.Symbol("u", positive=True)
    M, A, R, G = (sp.Rational(Fraction(x)) for x in (m, m0, rho, gamma))
    p_exact = (M / uu - G) ** 2 + uu**2 + A**2 - 2 * uu * A * R
    num = sp.numer(sp.together(sp.diff(p_exact, uu)))
    x = sp.Symbol("x")
    roots = sp.Poly(num.subs(uu, x), x).real_roots()
    pos = sorted({r for r in roots if r.is_positive}, key=lambda r: float(sp.N(r, 30)))
    return np.array([float(sp.N(r, 30)) for r in pos])


# ------------------------------------------------------------------------------------------------------
# parameters, strategies, entries
# ------------------------------------------------------------------------------------------------------


def _signed_magnitude(zero: bool = True):
    from hypothesis import strategies as st

    mag = st.floats(-8, 8).map(lambda e: 10.0**e)
    simple = st.sampled_from((1.0, 2.0, 3.0, 4.0, 0.5, 0.1))
    pos = st.one_of(mag, simple)
    signed = st.tuples(st.sampled_from((-1.0, 1.0)), pos).map(lambda t: t[0] * t[1])
    return st.one_of(st.just(0.0), signed) if zero else signed


def _rho_strategy():
    from hypothesis import strategies as st

    return st.one_of(st.sampled_from((1.0, -1.0, 0.0, 0.99, 0.9)), st.floats(-1.0, 1.0))


def _kwargs_strategy(m_name: str = "m", m0_name: str = "m0", nonzero_m: bool = False):
    """Valid inputs over the whole domain: signs of m and gamma, magnitudes 1e-8..1e8, rho in [-1, 1], simple
    values that hit the special points (ties, the triple root, the zero set)."""
    from hypothesis import strategies as st

    @st.composite
    def draw(d):
        m = d(_signed_magnitude(zero=not nonzero_m))
        m0 = abs(d(_signed_magnitude()))
        return {m_name: m, m0_name: m0 * m0 if m0_name == "m_aux" else m0, "rho": d(_rho_strategy()),
                "gamma": d(_signed_magnitude())}

    return draw()


m_p = scalar("m", "signed magnitude m_h = ||w_h^(1)|| w_h^(2) of the unit", tex="m")
m0_p = scalar("m0", "norm of the pretrained first-layer weights, ||w_0h^(1)||", low=0.0, tex="m_0")
rho_p = scalar("rho", "cosine between w_h^(1) and w_0h^(1)", low=-1.0, high=1.0, tex="rho")
gamma_p = scalar("gamma", "readout initialization (any real)", tex="gamma")
m_aux_p = scalar("m_aux", "pretraining coefficient of the feature; m0 = sqrt(m_aux)", low=0.0, tex="m^{aux}")
m_nonzero_p = scalar("m", "signed magnitude m_h (nonzero: log|m|)", exclude=(0.0,),
                     exclude_why="log|m| is undefined there", tex="m")
PARAMS = (m_p, m0_p, rho_p, gamma_p)

u = sp.Symbol("u", positive=True)
m, m0, rho, gamma = (p.symbol for p in PARAMS)
P_SEED = (m / u - gamma) ** 2 + u**2 + m0**2 - 2 * u * m0 * rho           # eq (8) (with the corrected rho)
P_STABLE = (m / u - gamma) ** 2 + (u - m0 * rho) ** 2 + m0**2 * (1 - rho) * (1 + rho)
DP_SEED = -2 * (m / u - gamma) * m / u**2 + 2 * u - 2 * m0 * rho          # eq (9)
QUARTIC_SEED = -m**2 + gamma * m * u - m0 * rho * u**3 + u**4              # eq (10)


def _quartic(m, m0, rho, gamma):
    m, m0, rho, gamma = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (m, m0, rho, gamma)))
    with np.errstate(over="ignore"):
        out = np.stack([np.ones_like(m), -(m0 * rho), np.zeros_like(m), gamma * m, -(m * m)], axis=-1)
    return out + 0.0  # no negative zeros


def _quartic_reference(m, m0, rho, gamma):
    """The coefficients of (u^3/2) p'(u) from p by exact rational polynomial arithmetic (fractions.Fraction): with
    P(u) = u^2 p(u) = (m - gamma u)^2 + u^2 (u^2 - 2 m0 rho u + m0^2), p = P/u^2 gives (u^3/2) p'(u) =
    (u P'(u) - 2 P(u))/2; the float inputs are exact rationals and each coefficient is rounded to float once."""
    def one(mm, a, r, g):
        mm, a, r, g = (Fraction(float(x)) for x in (mm, a, r, g))
        P = [mm * mm, -2 * mm * g, g * g + a * a, -2 * a * r, Fraction(1)]        # low degree first
        uP = [k * c for k, c in enumerate(P)]                                       # u P'(u)
        out = [(x - 2 * y) / 2 for x, y in zip(uP, P)][::-1]                        # highest degree first

        def flt(q):
            try:
                return float(q)
            except OverflowError:
                return math.inf if q > 0 else -math.inf  # (copysign would convert q to float again)
        return [flt(q) for q in out]

    b = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (m, m0, rho, gamma)))
    vals = [one(*t) for t in zip(*(x.ravel() for x in b))]
    return np.array(vals).reshape(b[0].shape + (5,)) + 0.0


def _scalars_only(values):
    for name in ("m", "m0", "rho", "gamma"):
        if np.ndim(values[name]) != 0:
            return (f"{name} must be a real number (relu.stationary_points takes scalars: the number of roots "
                    f"varies from point to point); got {name} of shape {np.shape(values[name])}")
    return None


def _stationary_points(m, m0, rho, gamma):
    return stationary_points_exact(m, m0, rho, gamma)


def _penalty(m, m0, rho, gamma):
    return minimize_p(m, m0, rho, gamma, outputs=("value",))["value"]


def _penalty_aux(m, m_aux, rho, gamma):
    return minimize_p(m, np.sqrt(m_aux), rho, gamma, m0sq=m_aux, outputs=("value",))["value"]


def _penalty_aux_reference(m, m_aux, rho, gamma):
    """relu.penalty_aux by the defining minimization (6) solved directly in mpmath (`_direct_minimize`), with
    m0^2 = m_aux exact and m0 = sqrt(m_aux) at the working precision (not the float64 solver)."""
    return penalty_reference(m, math.sqrt(m_aux), rho, gamma, m0sq=m_aux)


def _where(values: dict, index) -> str:
    return ", ".join(f"{k}={float(np.asarray(v)[index] if np.ndim(v) else v)!r}" for k, v in values.items())


def _log_slope(m, m0, rho, gamma):
    res = minimize_p(m, m0, rho, gamma)
    vals = {"m": m, "m0": m0, "rho": rho, "gamma": gamma}
    b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in vals.values()))
    vals = dict(zip(vals, b))
    zero = np.flatnonzero(np.asarray(res["value"]).ravel() == 0)
    if zero.size:
        i = np.unravel_index(zero[0], b[0].shape)
        raise DomainError(f"m, m0, rho, gamma must not give penalty 0 (rho = 1 and m = gamma*m0, the initialization "
                          f"itself: log 0 is undefined); got {_where(vals, i)}")
    tie = np.flatnonzero(np.asarray(res["gap"]).ravel() <= TIE_RTOL)
    if tie.size:
        i = np.unravel_index(tie[0], b[0].shape)
        raise DomainError(f"m, m0, rho, gamma must not tie the two local minima of p (the minimizer jumps between "
                          f"two roots of (10) and d log r/d log|m| is undefined); got {_where(vals, i)}")
    return res["slope"]


def _log_slope_strategy():
    """Inputs where the slope is defined: r~ > 0 and no tie (gap > 1e-6, so that the reference's central
    difference does not straddle the kink)."""
    def ok(kw):
        r = minimize_p(kw["m"], kw["m0"], kw["rho"], kw["gamma"], outputs=("value", "gap"))
        return bool(r["value"] > 0 and r["gap"] > 1e-6)

    return _kwargs_strategy(nonzero_m=True).filter(ok)


_DOMAIN_NOTE = ("m, m0, gamma of any size (each block is scaled by a power of two); points with |m| below "
                "1e-125 max(m0, |gamma|)^2, where the quartic leaves float64's joint range, go to mpmath")

quartic = Entry(
    id="relu.quartic", title="Coefficients of the stationarity quartic (10)", source=Source(SEED, "eq (10)"),
    doc=("[1, -m0 rho, 0, gamma m, -m^2], highest degree first: (u^3/2) p'(u) = u^4 - m0 rho u^3 + gamma m u - m^2. "
         "Array inputs give an array with a last axis of length 5."),
    params=PARAMS, lhs=r"\tfrac{u^3}{2}\,p'(u)", display=sp.latex(sp.expand(QUARTIC_SEED)),
    compute=_quartic, reference=_quartic_reference, value_doc="a vector of 5 coefficients",
    strategy_fn=lambda: _kwargs_strategy(),
)

stationary_points = Entry(
    id="relu.stationary_points", title="Positive stationary points of p: the positive roots of (10)",
    source=Source(SEED, "eq (10)"),
    doc=("The distinct positive real roots of u^4 - m0 rho u^3 + gamma m u - m^2, ascending (a double root once). "
         "One root unless m0 rho > 0 and gamma m > 0 (Descartes), then one or three. Counted exactly (Sturm's "
         "theorem on the rational inputs), values by mpmath on the square-free part; scalar inputs only."),
    params=PARAMS, lhs=r"\{u > 0 : p'(u) = 0\}", display=r"\{u>0 : " + sp.latex(sp.expand(QUARTIC_SEED)) + r" = 0\}",
    compute=_stationary_points, reference=_stationary_reference,
    constraints=(Constraint(_scalars_only, "scalar parameters"),),
    value_doc="a vector of 0 to 3 floats", strategy_fn=lambda: _kwargs_strategy(),
    examples=({"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0}, {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0},
              {"m": 0.0, "m0": 2.0, "rho": 0.5, "gamma": 1.0}, {"m": 0.0, "m0": 2.0, "rho": -0.5, "gamma": 1.0}),
)

penalty = Entry(
    id="relu.penalty", title="PT+FT penalty of one ReLU unit: min over u > 0 of p(u)",
    source=Source(SEED, "eqs (6), (8), (11)"),
    doc=("r~ = inf_{u>0} (m/u - gamma)^2 + u^2 + m0^2 - 2 u m0 rho: the smallest squared distance from the "
         "pretrained unit (w0, gamma) to a unit with direction cosine rho and magnitude m. The global minimum over "
         "all positive roots of (10) (up to three; the seed's 'unique' root is not, see the errata); for m = 0 the "
         "infimum gamma^2 + m0^2 (1 - max(rho, 0)^2) (not attained for rho <= 0). r~ is discontinuous at m = 0 "
         "when |gamma| > m0 max(rho, 0): a tiny m of gamma's sign costs only m0^2. " + _DOMAIN_NOTE + "."),
    params=PARAMS, lhs=r"\tilde r(m)",
    display=r"\inf_{u>0}\, \left(\frac{m}{u}-\gamma\right)^2 + u^2 + m_0^2 - 2u m_0\rho",
    compute=_penalty, reference=penalty_reference,
    strategy_fn=lambda: _kwargs_strategy(),
    examples=({"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0}, {"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 3.0},
              {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0}, {"m": 0.01, "m0": 0.1, "rho": 1.0, "gamma": 0.1},
              {"m": 1e-130, "m0": 1.0, "rho": 1.0, "gamma": 0.0}, {"m": 1e-200, "m0": 0.0, "rho": 0.3, "gamma": 1.0},
              {"m": 2.0 + 2**-51, "m0": 1.0, "rho": 1.0, "gamma": 2.0},
              {"m": 0.0, "m0": 1.0, "rho": -0.5, "gamma": 2.0},
              {"m": 1e150, "m0": 1e-150, "rho": -1.0, "gamma": 1e70}),
)

penalty_aux = Entry(
    id="relu.penalty_aux", title="Penalty after pretraining: m0 = sqrt(m_aux)", source=Source(SEED, "Sec. 1.2"),
    doc=("relu.penalty with m0 = sqrt(m_aux), the first-layer norm of a unit whose pretraining coefficient is m_aux "
         "(min-norm pretraining balances the layers). The rounding of sqrt(m_aux) is carried (m0 + r/(2 m0)), "
         "so points near the zero set rho = 1, m = gamma sqrt(m_aux) keep their digits."),
    params=(m_p, m_aux_p, rho_p, gamma_p), lhs=r"\tilde r(m)",
    display=r"\inf_{u>0}\, \left(\frac{m}{u}-\gamma\right)^2 + u^2 + m^{aux} - 2u \sqrt{m^{aux}}\rho",
    compute=_penalty_aux, reference=_penalty_aux_reference,
    strategy_fn=lambda: _kwargs_strategy(m0_name="m_aux"),
    examples=({"m": 1.0, "m_aux": 2.0, "rho": 1.0, "gamma": 2**-0.5},
              {"m": 1.0, "m_aux": 100.0, "rho": 0.9, "gamma": 0.0}),
)

log_slope = Entry(
    id="relu.log_slope", title="Log-slope d log r~ / d log|m| (about 1: l1-like, about 2: l2-like)",
    source=Source(SEED, "Sec. 1.2, Fig. 1b"),
    doc=("By the envelope theorem dr~/dm = dp/dm at the minimizer u*, so d log r~/d log|m| = 2 (m/u* - gamma)(m/u*)/r~ "
         "(= 2 u*(u* - m0 rho)/r~ at a stationary point), exact, not a finite difference. Undefined (DomainError) "
         "where r~ = 0 (rho = 1, m = gamma m0) and where two local minima tie (relative gap <= 1e-13): there the "
         "minimizer jumps between two roots of (10) and r~ has a kink (one-sided slopes exist; which side is "
         "meant is the caller's choice, so none is returned). Near the triple root of (10) (m0 rho = 2 sqrt(m), "
         "gamma m = 2|m|^(3/2), where p''(u*) = 0) u* is ill-conditioned, but the compensated polish keeps the "
         "slope within ~1e-13 (measured down to p''(u*) ~ 1e-7)."),
    params=(m_nonzero_p, m0_p, rho_p, gamma_p), lhs=r"\frac{d\log\tilde r}{d\log|m|}",
    display=r"\frac{2\,(m/u^* - \gamma)\, m/u^*}{\tilde r(m)}",
    compute=_log_slope, reference=log_slope_reference, strategy_fn=_log_slope_strategy,
    examples=({"m": 1.0, "m0": 1.0, "rho": 0.99, "gamma": 0.0}, {"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0},
              {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0}, {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0000001},
              {"m": -1.0, "m0": 1.0, "rho": 0.5, "gamma": -2.0}, {"m": 1e-130, "m0": 1.0, "rho": 1.0, "gamma": 0.0}),
)

ENTRIES = (quartic, stationary_points, penalty, penalty_aux, log_slope)


# ------------------------------------------------------------------------------------------------------
# derivation of eqs (2)-(11) as the seed writes them
# ------------------------------------------------------------------------------------------------------

theta = sp.Symbol("theta", real=True)          # direction of w_h^(1): w_hat = (cos theta, sin theta), d = 2
y1, y2 = sp.symbols("y_1 y_2", real=True)      # w_0h^(1)
W_HAT = sp.Matrix([sp.cos(theta), sp.sin(theta)])
W0 = sp.Matrix([y1, y2])
NORM_W0 = sp.sqrt(y1**2 + y2**2)


def _sq(v: sp.Matrix) -> sp.Expr:
    return (v.T * v)[0]


P_EQ6 = (m / u - gamma) ** 2 + _sq(u * W_HAT - W0)
P_EQ7 = (m / u - gamma) ** 2 + u**2 + _sq(W0) - 2 * u * (W_HAT.T * W0)[0]
RHO_SEED = _sq(W0) / (u * NORM_W0)                         # <w0, w0>/(||w_h|| ||w0||), ||w_h|| = u
RHO_TRUE = (W_HAT.T * W0)[0] / NORM_W0                     # <w_hat, w0>/||w0|| = <w_h, w0>/(||w_h|| ||w0||)


E_RHO = Erratum(
    "001-eq8-rho", SEED, "definition of rho_h before eq (8)",
    "rho_h := <w_0h^(1), w_0h^(1)> / (||w_h^(1)||_2 ||w_0h^(1)||_2)",
    "rho_h := <w_h^(1), w_0h^(1)> / (||w_h^(1)|| ||w_0h^(1)||) = <w_hat_h, w_0h^(1)>/||w_0h^(1)||, the cosine between "
    "the unit's direction and its pretrained weights. As written the numerator is ||w_0h||^2, so rho_h = m0/u "
    "depends on u and (8) would read (m/u - gamma)^2 + u^2 - m0^2, which is not (7).",
    "(9)-(11) differentiate (8) treating rho as independent of u, i.e. they use the corrected definition; so do "
    "the entries.")

E_DIVERGE = Erratum(
    "001-eq6-divergence", SEED, "text after eq (6)",
    "p diverges to infinity both for u -> infinity and u -> 0",
    "for m != 0; for m = 0, p(u) = gamma^2 + (u - m0 rho)^2 + m0^2 (1 - rho^2) tends to gamma^2 + m0^2 as u -> 0+, "
    "and when m0 rho <= 0 that limit is the infimum (not attained): r~(0) = gamma^2 + m0^2 (1 - max(rho, 0)^2).",
    "relu.penalty returns the infimum at m = 0. r~ is discontinuous there when |gamma| > m0 max(rho, 0): for m -> 0 "
    "with the sign of gamma, u = m/gamma -> 0 keeps the readout at gamma and costs only m0^2.")

E_UNIQUE = Erratum(
    "001-eq10-unique", SEED, "text after eq (10)",
    "select the (unique, in all empirical cases we explored) positive real root u* of (10)",
    "(10) has one positive root unless m0 rho > 0 and gamma m > 0 (Descartes' rule of signs), and then one or "
    "three; with three, p has two local minima (the smallest and the largest root) and r~ is the smaller value. "
    "Three roots need kappa = gamma sgn(m)/sqrt|m| > 2 and alpha = m0 rho/sqrt|m| > 2 (proved), and this is sharp: "
    "at m = rho = 1, m0 = gamma = t, (10) = (u^2 - 1)(u^2 - t u + 1) has three positive roots for every t > 2; "
    "t = 5/2 gives 1/2, 1, 2. Smallest integer case: (m, m0, rho, gamma) = (1, 3, 1, 3), roots (3 - sqrt5)/2, 1, "
    "(3 + sqrt5)/2 (a tie, p = 7, 8, 7); at (1, 3, 1, 4) the roots are 0.26236, 1.47726, 2.35567 with "
    "p = 7.5302, 13.3615, 13.1993: np.roots lists 2.35567 first, and (11) at that root is 75% above r~.",
    "In scale-free terms (u = sqrt|m| v) three roots need kappa in a window above 2 that widens with alpha (never at "
    "gamma = 0), so the seed's Fig. 1 range (gamma <= 0.01, m >= 0.01: kappa <= 0.1) never meets them. "
    "The error of a single-root choice is unbounded: at (m, m0, rho, gamma) = (1e-8, 0.01, 1, 1), r~ = 1.0e-4 "
    "(u* = 1e-8) while the largest root, which np.roots lists first, gives 0.99999.")

E_DLOG = Erratum(
    "001-sec1.2-dlog", SEED, "Sec. 1.2, the plotted derivative",
    "d log(r~)/dm: closer to 2 means l2-like, closer to 1 means l1-like",
    "the exponent is d log r~ / d log|m| = m d log r~/dm (2 for r = m^2, 1 for r = |m| at every m); "
    "d log(m^2)/dm = 2/m equals 2 only at m = 1. relu.log_slope is the log-log slope.", "")


# ------------------------------------------------------------------------------------------------------
# numeric sides: the paper's expressions evaluated on numbers, at the solvers' own output (the entries are called,
# so a mutated entry is seen)
# ------------------------------------------------------------------------------------------------------

EPS = float(np.finfo(float).eps)


def _mpf(x):
    return mpmath.mpf(float(x))


def _p_at(uu, mm, m00, rr, gg, *, dps: int = 50):
    """p(u) of eq (8) (with the cosine rho) at a float u, in mpmath (exact inputs, `dps` digits)."""
    with mpmath.workdps(dps):
        U, M, A, R, G = (_mpf(x) for x in (uu, mm, m00, rr, gg))
        return (M / U - G) ** 2 + U**2 + A**2 - 2 * U * A * R


def _solver_points():
    """Points for the solver steps: simple ones first (a small counterexample), the seed's three-root case, both
    signs, the regime of two local minima, then 24 random points over magnitudes 1e-4..1e4 (fixed seed)."""
    pts = [dict(m=1.0, m0=1.0, rho=0.5, gamma=0.0), dict(m=1.0, m0=3.0, rho=1.0, gamma=4.0),
           dict(m=-1.0, m0=1.0, rho=0.5, gamma=-2.0), dict(m=2.0, m0=1.0, rho=-0.5, gamma=1.0),
           dict(m=1e-3, m0=2.0, rho=0.9, gamma=0.01), dict(m=1e4, m0=1.0, rho=-0.5, gamma=3.0),
           dict(m=1e-8, m0=0.01, rho=1.0, gamma=1.0), dict(m=0.01, m0=1.0, rho=0.99, gamma=0.0)]
    rng = np.random.default_rng(20261122)
    for k in range(24):
        mm = float(rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-4, 4))
        if k % 3 == 0:  # the regime of three positive roots: alpha = m0 rho/sqrt|m|, kappa in (2, 8)
            r = float(rng.uniform(0.5, 1.0))
            pts.append(dict(m=mm, m0=float(rng.uniform(2, 8)) * math.sqrt(abs(mm)) / r, rho=r,
                            gamma=float(rng.uniform(2, 8)) * math.sqrt(abs(mm)) * math.copysign(1.0, mm)))
        else:
            pts.append(dict(m=mm, m0=float(10.0 ** rng.uniform(-2, 2)), rho=float(rng.uniform(-1, 1)),
                            gamma=float(rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-3, 2))))
    return pts


def _generic_points():
    """The solver points where r~ > 0, the two local minima do not tie (relative gap > 1e-2) and p''(u*) u*^2 is
    not small against p's terms (away from the triple root of (10), where u* is ill-conditioned)."""
    out = []
    for kw in _solver_points():
        r = minimize_p(**kw)
        if float(r["value"]) > 0 and float(r["gap"]) > 1e-2 and float(r["curvature"]) > 1e-2:
            out.append(kw)
    return out


def stationarity_residual(m, m0, rho, gamma):
    """p'(u*)/2 over the size of its terms, at the minimizer u* that relu.penalty's solver returns"""
    uu = float(minimize_p(m, m0, rho, gamma)["u"])   # the full solve (Newton to 1e-9 u, as log_slope uses it)
    with mpmath.workdps(50):
        U, M, A, G = _mpf(uu), _mpf(m), _mpf(m0) * _mpf(rho), _mpf(gamma)
        w = M / U
        dp = (U - A) - (w - G) * w / U                       # p'(u)/2, eq (9)
        d2 = 1 + (3 * w * w - 2 * G * w) / U**2              # p''(u)/2
        return dp / (U * abs(d2) + U + abs(A) + (abs(w) + abs(G)) * abs(w) / U)


def penalty_value(m, m0, rho, gamma):
    """relu.penalty (the entry's value)"""
    return penalty(m=m, m0=m0, rho=rho, gamma=gamma)


def p_at_solver_minimizer(m, m0, rho, gamma):
    """p(u*), eq (11), at the minimizer u* that the solver returns (50-digit mpmath)"""
    uu = float(minimize_p(m, m0, rho, gamma)["u"])
    return _p_at(uu, m, m0, rho, gamma)


def p_on_grid(m, m0, rho, gamma):
    """p(u) at 161 log-spaced u over eight decades around max(sqrt|m|, m0, |gamma|) (50-digit mpmath)"""
    scale = max(math.sqrt(abs(m)), m0, abs(gamma))
    return np.array([float(_p_at(x, m, m0, rho, gamma)) for x in scale * np.logspace(-4, 4, 161)])


def roots_of_stationary_points(m, m0, rho, gamma):
    """p'(r)/2 over the size of its terms at each root r that relu.stationary_points returns"""
    out = []
    for x in stationary_points(m=m, m0=m0, rho=rho, gamma=gamma):
        with mpmath.workdps(50):
            U, M, A, G = _mpf(x), _mpf(m), _mpf(m0) * _mpf(rho), _mpf(gamma)
            w = M / U
            dp = (U - A) - (w - G) * w / U
            d2 = 1 + (3 * w * w - 2 * G * w) / U**2
            out.append(float(dp / (U * abs(d2) + U + abs(A) + (abs(w) + abs(G)) * abs(w) / U)))
    return np.array(out)


def min_p_over_positive_roots(m, m0, rho, gamma):
    """(11) at every positive root of (10) (relu.stationary_points), the smallest value (50-digit mpmath)"""
    return min(_p_at(x, m, m0, rho, gamma) for x in stationary_points(m=m, m0=m0, rho=rho, gamma=gamma))


def positive_root_count(m, m0, rho, gamma):
    """the number of distinct positive roots of (10) (relu.stationary_points)"""
    return stationary_points(m=m, m0=m0, rho=rho, gamma=gamma).size


def quartic_value(m, m0, rho, gamma):
    """relu.quartic (the entry's coefficients)"""
    return quartic(m=m, m0=m0, rho=rho, gamma=gamma)


def quartic_from_p(m, m0, rho, gamma):
    """the coefficients of (u^3/2) p'(u): SymPy differentiates p at the exact rational point"""
    M, A, R, G = (sp.Rational(Fraction(float(x))) for x in (m, m0, rho, gamma))
    x = sp.Symbol("x", positive=True)
    expr = sp.cancel(x**3 / 2 * sp.diff((M / x - G) ** 2 + x**2 + A**2 - 2 * x * A * R, x))
    return np.array([float(c) for c in sp.Poly(expr, x).all_coeffs()])


def log_slope_value(m, m0, rho, gamma):
    """relu.log_slope (the entry's value)"""
    return log_slope(m=m, m0=m0, rho=rho, gamma=gamma)


_FD_H = 1e-3


def log_slope_by_differences(m, m0, rho, gamma):
    """Richardson-extrapolated central difference of log relu.penalty in log|m| (h = 1e-3)"""
    def d(h):
        up = penalty(m=m * math.exp(h), m0=m0, rho=rho, gamma=gamma)
        dn = penalty(m=m * math.exp(-h), m0=m0, rho=rho, gamma=gamma)
        return (math.log(up) - math.log(dn)) / (2 * h)
    return (4 * d(_FD_H) - d(2 * _FD_H)) / 3


def penalty_aux_value(m, m_aux, rho, gamma):
    """relu.penalty_aux (the entry's value)"""
    return penalty_aux(m=m, m_aux=m_aux, rho=rho, gamma=gamma)


def penalty_at_sqrt(m, m_aux, rho, gamma):
    """relu.penalty at m0 = sqrt(m_aux)"""
    return penalty(m=m, m0=math.sqrt(m_aux), rho=rho, gamma=gamma)


def _descartes_points():
    """Random points with m0 rho <= 0 or gamma m <= 0 (every sign pattern but the one excluded), fixed seed."""
    rng = np.random.default_rng(0)
    pts = [dict(m=1.0, m0=1.0, rho=-0.5, gamma=1.0), dict(m=1.0, m0=1.0, rho=0.5, gamma=-1.0),
           dict(m=-1.0, m0=3.0, rho=1.0, gamma=4.0), dict(m=1.0, m0=3.0, rho=0.0, gamma=4.0),
           dict(m=1.0, m0=3.0, rho=1.0, gamma=0.0)]
    while len(pts) < 80:
        mm, g = (float(x) for x in rng.choice([-1, 1], 2) * 10.0 ** rng.uniform(-2, 2, 2))
        m00, r = float(10.0 ** rng.uniform(-2, 2)), float(rng.uniform(-1, 1))
        if not (m00 * r > 0 and g * mm > 0):
            pts.append(dict(m=mm, m0=m00, rho=r, gamma=g))
    return pts


def _three_root_points():
    return [kw for kw in _solver_points() if stationary_points(**kw).size == 3]


kap_s, phi_s = sp.Symbol("kappa", positive=True), sp.Symbol("phi", positive=True)
t_of = lambda k: sp.Rational(1, 4) + sp.cos(phi_s + 2 * sp.pi * k / 3) / 2  # noqa: E731
KAPPA_OF_PHI = (1 - sp.cos(3 * phi_s)) / 8

mpos = sp.Symbol("m", positive=True)
D_P = sp.Derivative(P_SEED, u)                 # p'(u), unevaluated: the engine differentiates at check time
AT_INIT = ((rho, u, m), (1, m0, gamma * m0))
CURV_RHO1 = (sp.Derivative(P_SEED, m, 2) - sp.Derivative(P_SEED, m, u) ** 2 / sp.Derivative(P_SEED, u, 2))
w2s, w11, w12 = sp.symbols("w_2 w_11 w_12", real=True)
OBJ5 = (w2s - gamma) ** 2 + (w11 - y1) ** 2 + (w12 - y2) ** 2      # the objective of (5), d = 2


def _qcurv_step():
    from theorylab.derivations.qpenalty import Q_SEED, z as zq

    bb, kk = sp.Symbol("beta", real=True), sp.Symbol("k", positive=True)
    lhs = sp.Subs(sp.Derivative(kk * Q_SEED.subs(zq, 2 * bb / kk), bb, 2), bb, 0)
    return Step("seed 000's Q-penalty has the same curvature at its initialization: d^2/dbeta^2 k q(2 beta/k) "
                "= 2/k at beta = 0", lhs, 2 / kk)


# ------------------------------------------------------------------------------------------------------
# coverage (issue #14): (1), (3)-(4), the hypotheses at their edges (m = 0, m0 = 0, rho = -1, gamma = 0) and the
# sharp condition for three positive roots of (10)
# ------------------------------------------------------------------------------------------------------

a_s, z_s, w2_s = sp.Symbol("a", positive=True), sp.Symbol("z", real=True), sp.Symbol("w_2", real=True)
v_s, al_s, ka_s = sp.Symbol("v", positive=True), sp.Symbol("alpha", real=True), sp.Symbol("kappa", real=True)
t_s, Maux = sp.Symbol("t", positive=True), sp.Symbol("m_aux", positive=True)
G_SCALED = v_s**4 - al_s * v_s**3 + ka_s * v_s - 1          # (10) over m^2 at u = sqrt(m) v, m > 0


def _unit_objective(uu, what, w0, mm, gg):
    """the objective of (5) for one unit at w^(1) = u w_hat, w^(2) = m/u (float64, vectorized in u)"""
    uu = np.asarray(uu, dtype=float)[..., None]
    return (mm / uu[..., 0] - gg) ** 2 + np.sum((uu * what - w0) ** 2, axis=-1)


_R_UNITS = {  # two hidden units in d = 3: (w_hat, w0, m, gamma) per unit, keyed by a point name
    0: (((1.0, 0.0, 0.0), (1.0, 0.5, 0.0), 1.0, 0.0), ((0.0, 0.6, 0.8), (0.0, -1.0, 2.0), -2.0, 0.1)),
    1: (((0.0, 0.0, 1.0), (0.3, 0.3, 3.0), 1.0, 4.0), ((0.6, 0.0, -0.8), (2.0, 1.0, 0.5), 0.5, -0.3)),
    2: (((0.8, 0.6, 0.0), (-1.0, 2.0, 0.0), 3.0, 1.0), ((1.0, 0.0, 0.0), (0.01, 0.0, 0.0), 0.01, 0.0)),
}


def _units(k):
    return [(np.array(a_, dtype=float), np.array(b_, dtype=float), mm, gg) for a_, b_, mm, gg in _R_UNITS[k]]


def R_tilde_direct(k):
    """(3) for H = 2: R(w) minimized jointly over both units' u_h = ||w_h^(1)|| (w^(2)_h = m_h/u_h, w_hat_h fixed):
    a 2-D log grid (161^2 points over eight decades), then Nelder-Mead in log u, re-evaluated in 50-digit mpmath"""
    import scipy.optimize as so

    un = _units(int(k))
    grid = np.logspace(-4, 4, 161)
    vals = [_unit_objective(grid, *x) for x in un]
    tot = vals[0][:, None] + vals[1][None, :]
    i, j = np.unravel_index(int(np.argmin(tot)), tot.shape)

    def obj(s):
        return sum(float(_unit_objective(math.exp(si), *x)) for si, x in zip(s, un))

    res = so.minimize(obj, [math.log(grid[i]), math.log(grid[j])], method="Nelder-Mead",
                      options=dict(xatol=1e-11, fatol=0.0, maxiter=4000))
    with mpmath.workdps(50):
        tot50 = mpmath.mpf(0)
        for si, (what, w0, mm, gg) in zip(res.x, un):
            U = _mpf(math.exp(si))
            tot50 += (_mpf(mm) / U - _mpf(gg)) ** 2 + sum((U * _mpf(a_) - _mpf(b_)) ** 2 for a_, b_ in zip(what, w0))
        return tot50


def R_tilde_sum(k):
    """(4): the sum over units of relu.penalty at m0 = ||w0h||, rho = <w_hat, w0>/||w0||"""
    tot = 0.0
    for what, w0, mm, gg in _units(int(k)):
        n0 = float(np.linalg.norm(w0))
        tot += penalty(m=mm, m0=n0, rho=float(what @ w0) / n0, gamma=gg)
    return tot


def penalty_m0_zero(m, rho):
    """relu.penalty at m0 = 0, gamma = 0 (a freshly initialized unit)"""
    return penalty(m=m, m0=0.0, rho=rho, gamma=0.0)


def penalty_neg(m, m0, rho, gamma):
    """relu.penalty at -m, -gamma"""
    return penalty(m=-m, m0=m0, rho=rho, gamma=-gamma)


def infimum_at_m_zero(m0, rho, gamma):
    """gamma^2 + m0^2 (1 - max(rho, 0)^2): the infimum of (6) at m = 0 (exact rational arithmetic)"""
    M0, R, G = (Fraction(float(x)) for x in (m0, rho, gamma))
    return float(G * G + M0 * M0 * (1 - max(R, Fraction(0)) ** 2))


def penalty_at_m_zero(m0, rho, gamma):
    """relu.penalty at m = 0"""
    return penalty(m=0.0, m0=m0, rho=rho, gamma=gamma)


def _edge_points_rho_minus_one():
    return [dict(m=mm, m0=a_, rho=-1.0, gamma=g_) for mm in (1.0, -1.0, 1e-3, 50.0) for a_ in (0.0, 0.5, 1.0, 10.0)
            for g_ in (0.0, 1.0, -3.0)]


_EDGE_RTOL = ("u* = sqrt|m| by Newton to a step below 1e-9 u (error ~1e-18 u) then rounded; p is stationary there and "
              "its two terms are each within 3 ulps: 8 eps relative")

_ONE_ROUNDING = "each coefficient is one float64 product, correctly rounded: relative error <= 2^-53"
_STATIONARY_TOL = ("a float u* within 4 ulps of the root moves p'/2 by <= 4 eps u*|p''/2|; p'/2 at the float u* is "
                   "evaluated in 50-digit mpmath; the residual is divided by u*|p''/2| plus the sum of its terms' "
                   "sizes, so 8 eps bounds it")
_VALUE_RTOL = ("the float64 value: three nonnegative terms from compensated products, each within a few eps "
               "relative; p at the float u* in 50-digit mpmath, and p is stationary there (the rounding of u* moves "
               "it by p'' du^2 ~ eps^2 r~ at these points): 1e-13 relative")

DERIVATIONS_MAIN = Derivation(
    "relu.penalty", "The per-unit penalty (3)-(11): reduction to one dimension, the quartic, the global minimum",
    SEED, "Sec. 1.1, eqs (2)-(11)", ("relu.quartic", "relu.stationary_points", "relu.penalty", "relu.penalty_aux",
                                    "relu.log_slope"),
    (
        Step("(5) -> (6): w^(1) = u w_hat has norm u (u > 0)", sp.sqrt(_sq(u * W_HAT)), u,
             "every feasible (w^(1), w^(2)) of (5) is w^(1) = u w_hat, w^(2) = m/u with u = ||w^(1)|| > 0",
             cites=("(5)", "(6)")),
        Step("(5) -> (6): the objective of (5) at w^(1) = u w_hat, w^(2) = m/u is p(u)",
             sp.Subs(OBJ5, (w2s, w11, w12), (m / u, u * sp.cos(theta), u * sp.sin(theta))), P_EQ6,
             cites=("(2)", "(5)", "(6)")),
        Step("(7): ||u w_hat - w0||^2 = u^2 + ||w0||^2 - 2u <w_hat, w0> (||w_hat|| = 1)", P_EQ6, P_EQ7,
        cites=("(6)", "(7)")),
        Step("(8) with rho as the seed defines it, <w0, w0>/(||w_h|| ||w0||)", P_EQ7,
             sp.Subs(P_SEED, (m0, rho), (NORM_W0, RHO_SEED)),
             "m0 = ||w0||, ||w_h|| = u", erratum=E_RHO, cites=("(8)",)),
        Step("(8) with rho = <w_h, w0>/(||w_h|| ||w0||) = <w_hat, w0>/||w0||", P_EQ7,
             sp.Subs(P_SEED, (m0, rho), (NORM_W0, RHO_TRUE)), cites=("(7)", "(8)")),
        Step("(9): p'(u)", D_P, DP_SEED, cites=("(9)",)),
        Step("(10): (u^3/2) p'(u) is the quartic (same roots and sign for u > 0)", u**3 / 2 * D_P, QUARTIC_SEED,
             cites=("(9)", "(10)")),
        Step("(1): w2 (<w1, x>)_+ is unchanged by w2 -> a w2, w1 -> w1/a (a > 0), and equals m (<w_hat, x>)_+ with "
             "w1 = u w_hat (u = ||w1|| > 0), m = u w2: the redundancy that (3) removes",
             sp.Matrix([a_s * w2_s * sp.Max(0, z_s / a_s), w2_s * sp.Max(0, u * z_s)]),
             sp.Matrix([w2_s * sp.Max(0, z_s), (u * w2_s) * sp.Max(0, z_s)]), cites=("(1)", "(3)")),
        Step("(3) = (4): the joint minimum of R over two units (d = 3, 2-D grid then Nelder-Mead, 50-digit "
             "re-evaluation) is the sum of the per-unit minima relu.penalty", R_tilde_direct, R_tilde_sum, rtol=1e-12,
             tol_source="the polished log u_h are within ~1e-8 of the minimizers (Nelder-Mead on a float64 objective "
                        "whose rounding noise is 1e-16 p locates a minimum to sqrt(1e-16) relative at these points, "
                        "p'' u^2/p <= 1e2); the value is stationary there: p'' du^2/2 <= 1e-14 p; relu.penalty 1e-15",
             search=lambda: [dict(k=0), dict(k=1), dict(k=2)], cites=("(2)", "(3)", "(4)")),
        Step("relu.quartic: the entry's coefficients are those of (u^3/2) p'(u), SymPy at the exact point",
             quartic_value, quartic_from_p, rtol=2.0**-53, tol_source=_ONE_ROUNDING,
             search=lambda: [dict(m=2.0, m0=3.0, rho=0.5, gamma=-1.0)] + _solver_points(), cites=("(10)",)),
        Step("(11) in a float-stable form: p = (m/u - gamma)^2 + (u - m0 rho)^2 + m0^2 (1 - rho)(1 + rho), a sum of "
             "nonnegative terms (the expanded (8) cancels when u ~ m0 rho and rho ~ 1)", P_STABLE, P_SEED,
             cites=("(8)", "(11)")),
        Step("p -> oo as u -> oo (1/p -> 0; p > 0)", sp.Limit(1 / P_SEED, u, sp.oo), 0, cites=("(6)",)),
        Step("p -> oo as u -> 0+ for m != 0 (1/p -> 0, m > 0 and m < 0)",
             sp.Matrix([sp.Limit(1 / P_SEED.subs(m, s * mpos), u, 0, "+") for s in (1, -1)]), sp.Matrix([0, 0]),
             cites=("(6)",)),
        Step("p -> oo as u -> 0+ (as the seed states it, m = 0 included: 1/p -> 0)",
             sp.Limit(1 / P_SEED.subs(m, 0), u, 0, "+"), 0,
             erratum=dataclasses.replace(E_DIVERGE, at={gamma: 1, m0: 1, rho: 0}), cites=("(6)",)),
        Step("f'' = 6u(2u - m0 rho): the quartic is concave on (0, m0 rho/2) and convex beyond",
             sp.Derivative(QUARTIC_SEED, u, 2), 6 * u * (2 * u - m0 * rho)),
        Step("critical points of f: u = m0 rho t, 4t^3 - 3t^2 + kappa = 0 at t = 1/4 + cos(phi + 2 pi k/3)/2 with "
             "cos(3 phi) = 1 - 8 kappa, kappa = gamma m/(m0 rho)^3",
             (4 * t_of(0) ** 3 - 3 * t_of(0) ** 2 + KAPPA_OF_PHI), 0, domain={phi_s: (0.0, 1.0)}),
        Step("the same for the middle critical point (k = 1)", (4 * t_of(1) ** 3 - 3 * t_of(1) ** 2 + KAPPA_OF_PHI), 0,
             domain={phi_s: (0.0, 1.0)}),
        Step("t_L = 1/4 + cos(phi - 2pi/3)/2 = sin(phi/2 + pi/3) sin(phi/2) (no cancellation at small kappa)",
             t_of(-1), sp.sin(phi_s / 2 + sp.pi / 3) * sp.sin(phi_s / 2), domain={phi_s: (0.0, 1.0)}),
        Step("phi = (2/3) asin(2 sqrt(kappa)) solves cos(3 phi) = 1 - 8 kappa (accurate at small kappa)",
             sp.cos(2 * sp.asin(2 * sp.sqrt(kap_s))), 1 - 8 * kap_s, domain={kap_s: (0.001, 0.25)}),
        Step("one positive root of (10) unless m0 rho > 0 and gamma m > 0 (Descartes): the exact count of "
             "relu.stationary_points at 80 points of the other sign patterns", positive_root_count, sp.Integer(1),
             search=_descartes_points, cites=("(10)",)),
        Step("(10) in scale-free form (m > 0): f(sqrt(m) v) = m^2 (v^4 - alpha v^3 + kappa v - 1), "
             "alpha = m0 rho/sqrt(m), kappa = gamma/sqrt(m)",
             sp.Subs(QUARTIC_SEED, u, sp.sqrt(mpos) * v_s).subs(m, mpos),
             mpos**2 * G_SCALED.subs({al_s: m0 * rho / sp.sqrt(mpos), ka_s: gamma / sp.sqrt(mpos)}), cites=("(10)",)),
        Step("three positive roots need the left critical point v_L (kappa = v^2 (3 alpha - 4 v)) with g(v_L) > 0; "
             "there kappa = 3/(2v) + v^3/2 + (3/(2v)) g(v)", ka_s.subs(ka_s, v_s**2 * (3 * al_s - 4 * v_s)),
             sp.Subs(3 / (2 * v_s) + v_s**3 / 2 + 3 / (2 * v_s) * G_SCALED, ka_s, v_s**2 * (3 * al_s - 4 * v_s)),
             cites=("(10)",)),
        Step("3/(2v) + v^3/2 >= 2 for v > 0 (AM-GM, equality at v = 1): three positive roots need kappa > 2, and "
             "two critical points kappa < alpha^3/4, so alpha > 2 (never at gamma = 0; on Fig. 1's range kappa <= "
             "0.01/sqrt(0.01) = 0.1: the root is unique there for every m >= 0.01, not only at the plotted points)",
             3 / (2 * v_s) + v_s**3 / 2, sp.Integer(2), relation=">=", cites=("(10)",)),
        Step("the condition is sharp: at m = rho = 1, m0 = gamma = t, (10) is (u^2 - 1)(u^2 - t u + 1), three positive "
             "roots for every t > 2 (the smallest counterexample to uniqueness approaches (1, 2, 1, 2))",
             QUARTIC_SEED.subs({m: 1, rho: 1, m0: t_s, gamma: t_s}), sp.factor((u**2 - 1) * (u**2 - t_s * u + 1)),
             cites=("(10)",)),
        Step("(10): the positive root is unique (as the seed states it: 'select the (unique ...) positive real "
             "root')", positive_root_count, sp.Integer(1),
             erratum=dataclasses.replace(E_UNIQUE, at={"m": 1.0, "m0": 2.5, "rho": 1.0, "gamma": 2.5}),
             cites=("(10)",)),
        Step("relu.stationary_points: p'(r) = 0 at every root it returns (scaled residual)",
             roots_of_stationary_points, sp.Integer(0), tol=8 * EPS,
             tol_source="each root is the mpmath root rounded to float64 (half an ulp): " + _STATIONARY_TOL,
             search=_generic_points, cites=("(9)", "(10)")),
        Step("(11) with the smallest p over all positive roots of (10) is relu.penalty (the global minimum; with "
             "three roots the seed's single root can be the wrong one)", penalty_value, min_p_over_positive_roots,
             rtol=1e-13, tol_source=_VALUE_RTOL, search=_three_root_points, cites=("(11)",)),
        Step("relu.penalty's solver: p'(u*) = 0 at the minimizer it returns (scaled residual)",
             stationarity_residual, sp.Integer(0), tol=8 * EPS, tol_source=_STATIONARY_TOL, search=_generic_points,
             cites=("(9)", "(10)")),
        Step("relu.penalty = p(u*) at the solver's minimizer u*, eq (11)", penalty_value, p_at_solver_minimizer,
             rtol=1e-13, tol_source=_VALUE_RTOL, search=_generic_points, cites=("(11)",)),
        Step("relu.penalty <= p(u) for every u > 0 (a minimum): 161 u over eight decades", penalty_value, p_on_grid,
             relation="<=", rtol=1e-13, tol_source=_VALUE_RTOL.replace("p at the float u* in", "p(u) in"),
             search=_solver_points, cites=("(5)", "(6)", "(11)")),
        Step("relu.penalty_aux = relu.penalty at m0 = sqrt(m_aux) (perfect squares: sqrt(m_aux) and m_aux exact)",
             penalty_aux_value, penalty_at_sqrt,
             search=lambda: [dict(m=mm, m_aux=a_, rho=r_, gamma=g_) for mm in (1.0, -3.0, 0.01)
                             for a_ in (1.0, 4.0, 0.25, 100.0) for r_, g_ in ((1.0, 0.0), (0.9, 0.3), (-0.5, -2.0))]),
        Step("edge m = 0: relu.penalty is the infimum of (6), gamma^2 + m0^2 (1 - max(rho, 0)^2) (rho = -1, 0, 1 "
             "included)", penalty_at_m_zero, infimum_at_m_zero, rtol=4 * EPS,
             tol_source="three float64 products and sums of exact inputs: <= 4 eps relative",
             search=lambda: [dict(m0=a_, rho=r_, gamma=g_) for a_ in (0.0, 1.0, 3.0)
                             for r_ in (-1.0, -0.5, 0.0, 0.5, 1.0)
                             for g_ in (0.0, 2.0, -0.5)], cites=("(6)", "(11)")),
        Step("edge m0 = 0, gamma = 0 (a fresh unit): r~ = min (m/u)^2 + u^2 = 2|m|, exactly l1, for every rho",
             penalty_m0_zero, lambda m, rho: 2 * abs(m), rtol=8 * EPS, tol_source=_EDGE_RTOL,
             search=lambda: [dict(m=mm, rho=r_) for mm in (1.0, -2.0, 0.01, 100.0, 3.7, -1e-6)
                             for r_ in (-1.0, 0.0, 1.0)],
             cites=("(11)",)),
        Step("edge rho = -1: r~ > m0^2 (a unit pointing against its pretrained weights costs more than their whole "
             "norm), m0 = 0 and gamma = 0 included", penalty_value, lambda m, m0, rho, gamma: m0 * m0, relation=">",
             search=_edge_points_rho_minus_one, cites=("(11)",)),
        Step("p(m, gamma) = p(-m, -gamma) in (8)", sp.Subs(P_SEED, (m, gamma), (-m, -gamma)), P_SEED, cites=("(8)",)),
        Step("so relu.penalty(m, gamma) = relu.penalty(-m, -gamma), and r~ is even in m at gamma = 0", penalty_value,
             penalty_neg, search=lambda: [dict(m=mm, m0=a_, rho=r_, gamma=g_) for mm in (1.0, 0.01, 3.0)
                                         for a_ in (0.0, 1.0, 3.0) for r_ in (-1.0, 0.5, 1.0) for g_ in (0.0, 4.0)],
             cites=("(11)",)),
        Step("rho = 1, gamma = m0: p(m/u) = p(u), so two local minima always tie (the minimizer jumps)",
             P_SEED.subs({rho: 1, gamma: m0, u: mpos / u, m: mpos}), P_SEED.subs({rho: 1, gamma: m0, m: mpos})),
        Step("envelope theorem: dr~/dm = dp/dm at u* = 2 (m/u - gamma)/u", sp.Derivative(P_SEED, m),
             2 * (m / u - gamma) / u),
        Step("log-slope forms agree at stationary points: m dp/dm - 2u(u - m0 rho) = -u p'(u)",
             m * sp.Derivative(P_SEED, m) - 2 * u * (u - m0 * rho), -u * D_P),
        Step("relu.log_slope (envelope theorem at the solver's u*) = d log r~/d log|m| of relu.penalty by "
             "Richardson-extrapolated central differences", log_slope_value, log_slope_by_differences, tol=1e-9,
             tol_source="Richardson on central differences with h = 1e-3 in log|m|: truncation h^4 |d^5 log r~/"
                        "dt^5|/30 <= 3e-11 where that derivative is below 1e3 (points away from ties and the triple "
                        "root), plus rounding 2.5 delta/h = 2.5e-12 for the solver's relative error delta <= 1e-15",
             search=_generic_points),
    ))

FIG_GAMMAS = (0.0, 0.01)   # the readout initialization of Fig. 1 is not stated: gamma = 0 and a small gamma
FIG_M_NEAR_ONE = tuple(float(x) for x in np.linspace(0.5, 2.0, 16))


def aux_100(m, rho, gamma):
    """relu.penalty_aux at m_aux = 100"""
    return penalty_aux(m=m, m_aux=100.0, rho=rho, gamma=gamma)


def aux_001(m, rho, gamma):
    """relu.penalty_aux at m_aux = 0.01"""
    return penalty_aux(m=m, m_aux=0.01, rho=rho, gamma=gamma)


def aux_1(m, rho, gamma):
    """relu.penalty_aux at m_aux = 1"""
    return penalty_aux(m=m, m_aux=1.0, rho=rho, gamma=gamma)


def slope_aux_1(m, rho, gamma):
    """relu.log_slope at m0 = sqrt(m_aux) = 1"""
    return log_slope(m=m, m0=1.0, rho=rho, gamma=gamma)


def _l1_regime_points():
    """m in [1e-2, 1e3] (101 log-spaced) where relu.log_slope at m_aux = 1 is within 0.2 of 1 (the l1-like regime),
    for rho in (1, 0.99) and both Fig. 1 gammas."""
    def l1_like(x, r_, g_):
        try:
            return abs(float(slope_aux_1(x, r_, g_)) - 1) <= 0.2
        except DomainError:  # the zero set m = gamma m0 (rho = 1): the slope is undefined there
            return False

    ms = np.logspace(-2, 3, 101)
    return [dict(m=float(x), rho=r_, gamma=g_) for r_ in (1.0, 0.99) for g_ in FIG_GAMMAS for x in ms
            if l1_like(float(x), r_, g_)]


def figure_root_counts(m_aux, rho, gamma):
    """the number of positive roots of (10) (relu.stationary_points) at m0 = sqrt(m_aux), 9 log-spaced m in
    [1e-2, 1e2]"""
    return np.array([positive_root_count(float(x), math.sqrt(m_aux), rho, gamma) for x in np.logspace(-2, 2, 9)])


E_DLOG_AT = dataclasses.replace(E_DLOG, at={"m": 2})

DERIVATIONS_CLAIMS = Derivation(
    "relu.claims", "Sec. 1.2: the log-derivative, rho = 1 against seed 000's diagonal-network penalty",
    SEED, "Sec. 1.2", ("relu.log_slope", "relu.penalty", "relu.penalty_aux"),
    (
        Step("the plotted d log(r~)/dm is 2 for the l2 norm r = m^2", sp.Derivative(sp.log(mpos**2), mpos), 2,
             erratum=E_DLOG_AT),
        Step("the log-log slope m d log(r)/dm is 2 for r = m^2 and 1 for r = |m|",
             sp.Matrix([mpos * sp.Derivative(sp.log(mpos**2), mpos), mpos * sp.Derivative(sp.log(mpos), mpos)]),
             sp.Matrix([2, 1])),
        Step("Sec. 1.2: a pretrained unit of minimum parameter norm has m0 = sqrt(m_aux): (m_aux/u)^2 + u^2 >= 2 m_aux",
             (Maux / u) ** 2 + u**2, 2 * Maux, relation=">="),
        Step("... with equality at u = ||w_0h^(1)|| = sqrt(m_aux)", sp.Subs((Maux / u) ** 2 + u**2, u, sp.sqrt(Maux)),
             2 * Maux),
        Step("rho = 1: p = 0 at m = gamma m0, u = m0 (the initialization itself)", sp.Subs(P_SEED, *AT_INIT), 0),
        Step("rho = 1: p'(m0) = 0 there", sp.Subs(D_P, *AT_INIT), 0),
        Step("rho = 1: relu.penalty = 0 at m = gamma m0 (dyadic points, the product exact)", penalty_value,
             sp.Integer(0), search=lambda: [dict(m=g_ * a_, m0=a_, rho=1.0, gamma=g_)
                                            for a_, g_ in ((1.0, 2.0), (0.5, 3.0), (4.0, -0.25), (2.0, 0.0))]),
        Step("rho = 1: r~''(gamma m0) = p_mm - p_mu^2/p_uu = 2/(m0^2 + gamma^2) (implicit function theorem)",
             sp.Subs(CURV_RHO1, *AT_INIT), 2 / (m0**2 + gamma**2), domain={m0: (0.1, 3.0)}),
        _qcurv_step(),
        Step("Fig. 1a: rho = 1, m ~ 1 (m in [0.5, 2]): m_aux = 100 has a smaller penalty than m_aux = 0.01",
             aux_100, aux_001, relation="<",
             search=lambda: [dict(m=x, rho=1.0, gamma=g_) for g_ in FIG_GAMMAS for x in FIG_M_NEAR_ONE]),
        Step("Fig. 1a: rho = 0.9, m ~ 1 (m in [0.5, 2]): m_aux = 100 has a larger penalty than m_aux = 0.01 (the "
             "reversal)", aux_100, aux_001, relation=">",
             search=lambda: [dict(m=x, rho=0.9, gamma=g_) for g_ in FIG_GAMMAS for x in FIG_M_NEAR_ONE]),
        Step("Sec. 1.2 '(whereas if the weights are comparable in magnitude it will benefit)': rho = 0.9, m ~ m_aux = "
             "100 (m in [50, 200]): m_aux = 100 has a smaller penalty than m_aux = 0.01 (the reversal is for small m "
             "only)", aux_100, aux_001, relation="<",
             search=lambda: [dict(m=float(x), rho=0.9, gamma=g_) for g_ in FIG_GAMMAS
                             for x in np.linspace(50, 200, 16)]),
        Step("rho near 1 (1, 0.99): in the l1-like regime (log-slope within 0.2 of 1 at m_aux = 1) a gap remains: "
             "r~(m_aux = 0.01) > r~(m_aux = 1)", aux_001, aux_1, relation=">", search=_l1_regime_points),
        Step("rho = 0.9: l1-like at m ~ m_aux = 1 (m in [0.5, 2]): the log-slope is nearer 1 than 2 (below 1.5)",
             slope_aux_1, sp.Rational(3, 2), relation="<",
             search=lambda: [dict(m=x, rho=0.9, gamma=g_) for g_ in FIG_GAMMAS for x in FIG_M_NEAR_ONE]),
        Step("rho < 1 (0.99, 0.9): the log-slope stays below 2 for every m in [1e-3, 1e3] (gamma = 0)",
             slope_aux_1, sp.Integer(2), relation="<",
             search=lambda: [dict(m=float(x), rho=r_, gamma=0.0) for r_ in (0.99, 0.9)
                             for x in np.logspace(-3, 3, 121)]),
        Step("on Fig. 1's range p has a single local minimum (the seed's 'all empirical cases'): one positive root "
             "of (10) for m in [1e-2, 1e2] (9 log-spaced), each m_aux, rho and gamma of the figure (between them the "
             "proved condition kappa > 2 decides: kappa <= 0.1 on the whole range)",
             figure_root_counts, sp.Integer(1),
             search=lambda: [dict(m_aux=a_, rho=r_, gamma=g_) for a_ in (0.01, 1.0, 100.0)
                             for r_ in (1.0, 0.99, 0.9) for g_ in FIG_GAMMAS]),
    ))

DERIVATIONS = (DERIVATIONS_MAIN, DERIVATIONS_CLAIMS)
