"""relu's numerics: the global minimum of p(u) over u > 0 (batched float64 Newton on the quartic (10)), its
high-precision references (mpmath) and the exact stationary points (Sturm counts on the rational quartic), seed 001.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from theorylab.authoring import (bisect, bisect_to_adjacent, exact_sign, golden_mp, iterate_active, square_free,
                                 sturm_positive_roots)

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
    def update(u, a, a3, c, M, clamp):
        u2 = u * u
        f = ((u - a) * u2 + c) * u - M
        fp = (4.0 * u - a3) * u2 + c
        with np.errstate(divide="ignore", invalid="ignore"):
            step = f / fp
        un = np.maximum(u - step, clamp) if down else np.minimum(u - step, clamp)
        prog = un < u if down else un > u
        u = np.where(prog, un, u)
        # after a step below tol u the quadratic convergence leaves an error ~tol^2 u
        return u, ~prog | (np.abs(step) <= tol * u)

    return iterate_active(update, u, (a, 3.0 * a, c, M, clamp), _MAXIT)


def _newton_convex(a, c, M, u, tol: float = 1e-9):
    """Newton from above where f is convex and increasing right of its only positive root (one sign change:
    m0 rho <= 0 or gamma m <= 0): no clamp needed, a step <= 0 means converged. The bulk of the work."""
    def update(u, a, a3, c, M):
        u2 = u * u
        f = ((u - a) * u2 + c) * u - M
        fp = (4.0 * u - a3) * u2 + c
        with np.errstate(divide="ignore", invalid="ignore"):
            step = f / fp
        # a step <= 0 only happens at the rounding level of the root (f(u) <= 0 computed): taking it is harmless
        u = u - step
        return u, ~(step > tol * u)

    return iterate_active(update, u, (a, 3.0 * a, c, M), _MAXIT)


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


def _core(m, m0, rho, g, m0sq, m0lo, full: bool = True, fine_u: bool = False, zero=None):
    """One block in scaled units (max(sqrt|m|, m0, |gamma|) in [1/2, 1)); `zero` marks m = 0 before scaling (a
    scaled m that underflowed to 0 is not m = 0: it belongs to the mpmath path).

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
    zero = m == 0 if zero is None else zero
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
            sq, lo = None, np.zeros(e - s)
        with np.errstate(invalid="ignore"):
            big = np.maximum(np.maximum(np.sqrt(np.abs(mm)), mm0), np.abs(gg))
        _, k = np.frexp(big)
        # multiplying by 2^-k twice is exact wherever the result is a normal float; a subnormal scaled m (or one
        # that underflowed to 0) lies in the mpmath regime (its original value is used there), a subnormal scaled
        # m0 or gamma is negligible. m0^2 is formed after scaling: m0 = 1e180 has m0^2 beyond float64's range.
        t = np.ldexp(1.0, -k)
        m0s = mm0 * t
        res = _core(mm * t * t, m0s, rr, gg * t, m0s * m0s if sq is None else sq * t * t, lo * t,
                    full=any(k in out for k in ("slope", "gap", "curvature")), fine_u="u" in out, zero=mm == 0)
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
            x0, x1 = bisect(lambda x: dp(x) < 0, x0, x1, None, rtol=mpmath.mpf(10) ** (-dps))
            return (x0 + x1) / 2
        # golden section on p (unimodal in the bracket up to rounding)
        return golden_mp(p, x0, x1, None, rtol=mpmath.mpf(10) ** (-dps // 2))[0]

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
        # the grid by running products: lo * step**k for each k was a third of the reference's time (an integer
        # power at 100-700 digits per point); the grid only brackets the minima, and n products drift by n ulps
        us = [lo]
        for _ in range(n):
            us.append(us[-1] * step)
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
    value is returned; the slope's exact zeros (m = gamma m0 rho with m/gamma > 0, rho < 1: u = m/gamma zeroes
    both squares of p) are decided on the rational inputs. The precision grows with the scale of p's constant
    part gamma^2 + m0^2 (at |gamma| = 1e180 the u-dependent terms are 1e-240 of it: 120 digits see only rounding)."""
    if (float(m) != 0 and float(rho) != 1.0 and (float(m) > 0) == (float(gamma) > 0)
            and Fraction(float(m)) == Fraction(float(gamma)) * Fraction(float(m0)) * Fraction(float(rho))):
        # exactly 0: u = m/gamma = m0 rho > 0 zeroes both squares of p, so p = m0^2 (1 - rho^2) > 0 there, p's
        # least value, and the factor m/u - gamma of the slope vanishes (the grid's minimizer is only within 10^-dps of
        # u, and its slope of ~10^-dps is relative error 1 against 0)
        return 0.0
    scale = max(abs(float(gamma)), abs(float(m0)), 1.0)
    dps = 120 + 2 * int(math.ceil(math.log10(scale)))
    with mpmath.workdps(dps):
        h = mpmath.mpf(10) ** -25
        mm = mpmath.mpf(m)
        hi = _direct_minimize(mm * mpmath.exp(h), m0, rho, gamma, dps=dps)["value"]
        lo = _direct_minimize(mm * mpmath.exp(-h), m0, rho, gamma, dps=dps)["value"]
        fd = (mpmath.log(hi) - mpmath.log(lo)) / (2 * h)
        res = _direct_minimize(mm, m0, rho, gamma, dps=dps)
        uu, gg, a = res["u"], mpmath.mpf(gamma), mpmath.mpf(m0) * mpmath.mpf(rho)
        w = mm / uu
        # at a stationary point (m/u - gamma) m/u^2 = u - m0 rho: the envelope form is 2 (m/u - gamma)(m/u)/p =
        # 2 u (u - m0 rho)/p; take the form whose difference cancels less (m/u ~ gamma = 1e60 with m/u - gamma
        # ~ 1e-120 needs 180 digits in the first form, none in the second)
        if abs(w - gg) * abs(a) >= abs(uu - a) * abs(gg):
            env = 2 * (w - gg) * w / res["value"]
        else:
            env = 2 * uu * (uu - a) / res["value"]
        return float(env if abs(fd - env) <= mpmath.mpf(10) ** -40 else fd)


# ------------------------------------------------------------------------------------------------------
# stationary points exactly: the inputs are rationals, so Sturm's theorem counts the distinct positive roots
# of the quartic exactly and its square-free part has only simple roots, found by mpmath
# ------------------------------------------------------------------------------------------------------


def _exact_quartic(m: float, m0: float, rho: float, gamma: float):
    """Eq (10) as u^4 - a u^3 + c u - M with exact rational a = m0 rho, c = gamma m, M = m^2: (a, c, M, its
    square-free part, its number of distinct positive roots by Sturm's theorem); the part is None when m = 0
    (then u^3 (u - a))."""
    fm, fa = Fraction(m), Fraction(m0) * Fraction(rho)
    c, M = Fraction(gamma) * fm, fm * fm
    if M == 0:
        return fa, c, M, None, int(fa > 0)
    sqf = square_free([Fraction(1), -fa, Fraction(0), c, -M])
    return fa, c, M, sqf, sturm_positive_roots(sqf)


def positive_root_count(m: float, m0: float, rho: float, gamma: float) -> int:
    """The number of distinct positive roots of eq (10) (Seed 001), exact: what stationary_points_exact returns
    the values of, without computing them."""
    return _exact_quartic(m, m0, rho, gamma)[-1]


def stationary_points_exact(m: float, m0: float, rho: float, gamma: float) -> np.ndarray:
    """The distinct positive roots of eq (10), ascending (Seed 001, eq. (10)): exact count, mpmath values."""
    fa, c, M, sqf, count = _exact_quartic(m, m0, rho, gamma)
    if sqf is None:  # u^3 (u - a): the positive root a, if any
        return np.array([float(fa)]) if fa > 0 else np.zeros(0)
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


def _roots_by_bracketing(sqf: list[Fraction], count: int) -> list[float] | None:
    """The simple positive roots of a square-free polynomial by exact sign changes on a log grid over float64's
    range, each then bisected to adjacent floats (for roots spanning hundreds of decades, e.g. m = 1e-300, where
    polynomial root finders fail at any working precision); None if the grid does not separate `count` roots."""
    grid = [10.0 ** (k / 4) for k in range(-1292, 1233)]
    signs = [exact_sign(sqf, u) for u in grid]
    roots = []
    for (a, sa), (b, sb) in zip(zip(grid, signs), zip(grid[1:], signs[1:])):
        if sa == 0:
            roots.append(a)
        elif sa * sb < 0:  # bisected to adjacent floats around the root
            roots.append(bisect_to_adjacent(lambda x: exact_sign(sqf, x) * sa > 0, a, b)[0])
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
