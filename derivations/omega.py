"""omega: effective penalties of adaptive tangent features (seed 003): omega-tilde (12), the joint penalty
(11), Theorem 1 (8)-(9), Propositions 3-4, App. A.1.

omega is a SymPy expression in z, strictly quasi-convex with omega(1) = 0; only z >= 1 matters, where it
must be strictly increasing (validated on a grid and said so in the error).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy as sp

from theorylab.derivation import Derivation, Erratum, Step, claim
from theorylab.entry import Constraint, Entry, Source
from theorylab.params import Z, DomainError, expression, matrix, scalar, vector

SEED = "003_682109963104011b.txt"
GRID = np.unique(np.concatenate([1 + np.logspace(-9, 0, 200), np.logspace(0.31, 6, 400)]))  # z > 1, sorted
EXAMPLES = ("(z-1)**2", "Abs(z-1)", "Abs(z-1)**3", "exp(z-1)-z", "(z-1)**2 + Abs(z-1)", "Abs(z-1)**(3/2)")


# -- omega as input -------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def prepare(expr: sp.Expr, name: str = "omega"):
    """Validate omega and return (expr on z >= 1, vectorized float function, polynomial or None).

    On z >= 1, Abs(z - 1) is z - 1 and Abs(1 - z) is z - 1, so |z-1|^p with integer p is a polynomial there.
    """
    z = Z
    on = expr.subs({sp.Abs(z - 1): z - 1, sp.Abs(1 - z): z - 1})
    at1 = sp.simplify(on.subs(z, 1))
    if at1.is_number and at1 != 0 and (not at1.is_real or abs(complex(at1)) > 1e-12):
        raise DomainError(f"{name} must satisfy {name}(1) = 0 (minimized at z = 1); got {name}(1) = {sp.N(at1, 6)} "
                          f"for {name}={expr}")
    # the checks run in 30-digit arithmetic: float rounding near z = 1 (exp(z-1) - z) is not a violation
    fmp = sp.lambdify(z, on, modules="mpmath")
    with mpmath.workdps(30):
        try:
            vals = [fmp(mpmath.mpf(float(x))) for x in GRID]
            f1 = fmp(mpmath.mpf(1))
        except (ValueError, ZeroDivisionError, TypeError, OverflowError):
            raise DomainError(f"{name} must be defined on z >= 1; got {name}={expr}") from None
        bad = [i for i, x in enumerate(vals) if isinstance(x, mpmath.mpc) and abs(x.imag) > 1e-20 * (1 + abs(x.real))]
        if bad or isinstance(f1, mpmath.mpc) and abs(f1.imag) > 0:
            where = GRID[bad[0]] if bad else 1.0
            raise DomainError(f"{name} must be real on z >= 1; it is not at z = {where:.4g} for {name}={expr}")
        vals = [mpmath.re(x) for x in vals]
        if abs(mpmath.re(f1)) > mpmath.mpf(10) ** -12:
            raise DomainError(f"{name} must satisfy {name}(1) = 0; got {name}(1) = {float(mpmath.re(f1)):.3g} "
                              f"for {name}={expr}")
        prev = mpmath.re(f1)
        for x, val in zip(GRID, vals):
            if not val > prev:
                raise DomainError(f"{name} must be strictly quasi-convex with its minimum at z = 1, i.e. strictly "
                                  f"increasing on z >= 1 (checked on a grid of {GRID.size} points up to 1e6); it is "
                                  f"not near z = {x:.4g} for {name}={expr}")
            prev = val
    from sympy.codegen.rewriting import optimize, optims_c99

    # evaluated in x = z - 1 (exact for z near 1), rewritten with expm1/log1p: exp(z-1) - z = expm1(x) - x
    x = sp.Symbol("x", nonnegative=True)
    fx = sp.lambdify(x, optimize(sp.expand(on.subs(z, x + 1)) if on.is_polynomial(z) else on.subs(z, x + 1),
                                 optims_c99), modules=["scipy", "numpy"])

    def fn(zz):
        # omega is only used on z >= 1; rounding (v/z for z ~ v) must not reach x < 0, where x^(3/2) is NaN
        return fx(np.maximum(np.asarray(zz, dtype=float) - 1.0, 0.0))
    poly = sp.Poly(sp.expand(on), z) if on.is_polynomial(z) else None
    return on, fn, poly


def _omega_param(name: str, doc: str):
    def strategy(dims):
        from hypothesis import strategies as st

        return st.sampled_from(EXAMPLES)

    return expression(name, doc, strategy_fn=strategy)


def _check_omega(*names):
    def check(values):
        for nm in names:
            prepare(values[nm], nm)  # raises DomainError naming the parameter
        return None

    return Constraint(check, f"{', '.join(names)}: omega(1) = 0, strictly increasing on z >= 1")


# -- the scalar effective penalty (12) --------------------------------------------------------------------
def _objective(fn, z, v):
    with np.errstate(all="ignore"):
        return np.asarray(fn(z), dtype=float) + v * v / (z * z)


@functools.lru_cache(maxsize=256)
def _convex_on_ray(poly_expr: sp.Expr) -> bool:
    """omega'' >= 0 on z >= 1 (checked on the grid in 30-digit arithmetic): then F = omega + v^2/z^2 is convex
    with one stationary point, the root of the increasing h(z) = omega'(z) z^3 - 2 v^2."""
    f2 = sp.lambdify(Z, sp.diff(poly_expr, Z, 2), "mpmath")
    with mpmath.workdps(30):
        return all(f2(mpmath.mpf(float(x))) >= 0 for x in np.concatenate([[1.0], GRID]))


def _tilde_newton(poly: sp.Poly, fn, v: np.ndarray):
    """Convex polynomial omega: Newton on the stationarity condition, written in x = z - 1 >= 0,
    h(x) = omega'(1 + x) (1 + x)^3 = 2 v^2, vectorized.

    h(0) = omega'(1+); where 2 v^2 <= h(0) the minimum is at z = 1. When h has nonnegative coefficients in x
    (|z-1|^p, (z-1)^2 and their sums), h is increasing and convex on x >= 0 and every monomial bounds the
    root from above: x* <= ((2v^2 - h_0)/h_k)^(1/k). Newton started from the smallest of these bounds
    decreases monotonically to x* and converges quadratically (a handful of steps, no bracketing); working
    in x keeps the root's relative accuracy when z* is within rounding of 1 (small v, where in z the root
    is nearly double). Other convex polynomials take the bracketed route."""
    x = sp.Symbol("x")
    h = sp.Poly(sp.expand((sp.diff(poly.as_expr(), Z) * Z**3).subs(Z, x + 1)), x)
    c = np.array([float(a) for a in h.all_coeffs()])  # highest power first
    if np.any(c < 0) or c.size < 2:
        return _tilde_bracketed(poly, fn, v)
    d = np.polyder(c)
    v2 = v * v
    rhs = 2 * v2 - c[-1]
    inner = rhs > 0
    powers = np.arange(c.size - 1, 0, -1)
    xx = np.zeros_like(v)
    if inner.any():
        r = rhs[inner]
        with np.errstate(divide="ignore"):
            bounds = [(r / ck) ** (1.0 / k) for ck, k in zip(c[:-1], powers) if ck > 0]
        xi = np.minimum.reduce(bounds)
        idx = np.arange(xi.size)
        for _ in range(200):
            hv = np.polyval(c, xi[idx]) - c[-1] - r[idx]
            dv = np.polyval(d, xi[idx])
            # h' = 0 only at x = 0 when r underflows the bound to 0: x = 0 is then the answer to rounding
            step = np.divide(hv, dv, out=np.zeros_like(hv), where=dv > 0)
            new = np.maximum(xi[idx] - step, 0.0)
            done = np.abs(new - xi[idx]) <= 4e-16 * new
            xi[idx] = new
            idx = idx[~done]
            if idx.size == 0:
                break
        xx[inner] = xi
    zz = 1.0 + xx
    # z = 1 is always a candidate (and the answer where the stationarity condition has no root x > 0)
    at_one = _objective(fn, np.ones_like(v), v)
    found = _objective(fn, zz, v)
    return np.where(at_one <= found, at_one, found), np.where(at_one <= found, 1.0, zz)


def _tilde_bracketed(poly: sp.Poly, fn, v: np.ndarray):
    """Convex polynomial omega: bracketed Newton on h(z) = omega'(z) z^3 - 2 v^2 over [1, z_hi], vectorized.

    h(1) = omega'(1) - 2v^2; where h(1) >= 0 the minimum is at z = 1. Otherwise the bracket [1, z_hi] with
    h(z_hi) > 0 is found by doubling, and Newton steps that leave the bracket are replaced by bisection."""
    z = Z
    c = np.array([float(a) for a in sp.Poly(sp.diff(poly.as_expr(), z) * z**3, z).all_coeffs()])
    d = np.polyder(c)
    v2 = v * v
    h1 = np.polyval(c, 1.0) - 2 * v2
    # start near the root: the leading term alone puts it near (2 v^2/c_0)^(1/deg); doubling makes it a bracket
    lo, hi = np.ones_like(v), np.maximum(2.0, 2 * (2 * v2 / c[0]) ** (1.0 / (len(c) - 1)))
    for _ in range(1100):
        up = (np.polyval(c, hi) - 2 * v2 <= 0) & (h1 < 0)
        if not up.any():
            break
        lo, hi = np.where(up, hi, lo), np.where(up, hi * 2, hi)
    zz = hi.copy()
    with np.errstate(all="ignore"):
        for _ in range(100):
            h = np.polyval(c, zz) - 2 * v2
            lo, hi = np.where(h < 0, zz, lo), np.where(h >= 0, zz, hi)
            nz = zz - h / np.polyval(d, zz)
            bad = ~((nz >= lo) & (nz <= hi))  # at convergence nz sits on the bracket's end: keep it
            nz = np.where(bad, (lo + hi) / 2, nz)
            if np.all(np.abs(nz - zz) <= 4e-16 * zz):
                zz = nz
                break
            zz = nz
    zz = np.where(h1 >= 0, 1.0, zz)
    # the boundary z = 1 is always a candidate: for tiny v the root lies within rounding of 1, where h has a
    # near-double root and Newton converges only linearly
    at_one = _objective(fn, np.ones_like(v), v)
    found = _objective(fn, zz, v)
    return np.where(at_one <= found, at_one, found), np.where(at_one <= found, 1.0, zz)


def _tilde_poly(poly: sp.Poly, fn, v: np.ndarray):
    """Exact route: omega polynomial on z >= 1. Stationarity omega'(z) z^3 - 2 v^2 = 0 is a polynomial in z;
    its real roots >= 1 and the boundary z = 1 are the candidates (batched companion-matrix eigenvalues,
    one Newton polish)."""
    z = Z
    dp = sp.Poly(sp.diff(poly.as_expr(), z) * z**3, z)
    coeffs = np.array([float(c) for c in dp.all_coeffs()])
    deg = len(coeffs) - 1
    v2 = v * v
    best_z = np.ones_like(v)
    best = _objective(fn, best_z, v)
    if deg >= 1:
        with np.errstate(all="ignore"):
            C = np.broadcast_to(coeffs, v.shape + (deg + 1,)).copy()
            C[..., -1] -= 2 * v2  # the constant term
            lead = C[..., 0:1]
            comp = np.zeros(v.shape + (deg, deg))
            comp[..., 0, :] = -C[..., 1:] / lead
            comp[..., np.arange(1, deg), np.arange(0, deg - 1)] = 1.0
            roots = np.linalg.eigvals(comp) if deg > 1 else -C[..., 1:] / lead
            real = roots.real
            ok = (np.abs(roots.imag) <= 1e-6 * (1 + np.abs(real))) & (real >= 1 - 1e-9)
            r = np.where(ok, np.maximum(real, 1.0), 1.0)
            # one Newton step on the stationarity polynomial polishes the eigenvalue roots to full precision
            d1 = np.polyder(coeffs)
            for _ in range(2):
                pv = np.polyval(coeffs, r) - 2 * v2[..., None]
                dv = np.polyval(d1, r)
                step = np.where(np.abs(dv) > 0, pv / dv, 0.0)
                r = np.where(ok, np.maximum(r - step, 1.0), r)
            vals = np.where(ok, _objective(fn, r, v[..., None]), np.inf)
            k = np.argmin(vals, axis=-1)
            cand = np.take_along_axis(vals, k[..., None], -1)[..., 0]
            zc = np.take_along_axis(r, k[..., None], -1)[..., 0]
            better = cand < best
            best = np.where(better, cand, best)
            best_z = np.where(better, zc, best_z)
    return best, best_z


def _tilde_search(fn, v: np.ndarray, on=None):
    """Numeric route for any strictly increasing omega on z >= 1: the minimizer lies in [1, z_max] with
    omega(z_max) >= v^2 (F(1) = v^2 bounds the minimum); a log grid locates it and golden-section search
    refines it (the value is then exact to rounding: its error is quadratic in the argmin's)."""
    v2 = v * v
    zmax = np.full_like(v, 2.0)
    for _ in range(200):
        low = np.asarray(fn(zmax), dtype=float) < v2
        if not np.any(low):
            break
        zmax = np.where(low, zmax * 2, zmax)
    t = np.linspace(0, 1, 257)
    grid = 1 + (zmax[..., None] - 1) * (np.expm1(t * 12) / np.expm1(12))  # dense near z = 1
    vals = _objective(fn, grid, v[..., None])
    k = np.argmin(vals, axis=-1)
    lo = np.take_along_axis(grid, np.maximum(k - 1, 0)[..., None], -1)[..., 0]
    hi = np.take_along_axis(grid, np.minimum(k + 1, grid.shape[-1] - 1)[..., None], -1)[..., 0]
    g = (math.sqrt(5) - 1) / 2
    for _ in range(90):
        a = hi - g * (hi - lo)
        b = lo + g * (hi - lo)
        left = _objective(fn, a, v) <= _objective(fn, b, v)
        hi = np.where(left, b, hi)
        lo = np.where(left, lo, a)
    zs = np.clip((lo + hi) / 2, 1.0, None)
    vals = np.minimum(_objective(fn, zs, v), _objective(fn, np.ones_like(v), v))
    zs = np.where(_objective(fn, np.ones_like(v), v) <= _objective(fn, zs, v), 1.0, zs)
    return vals, zs


def tilde(omega: sp.Expr, v, name: str = "omega"):
    """omega-tilde(v) = min_{z >= 1} omega(z) + v^2/z^2 (eq 12) and its smallest minimizer, vectorized."""
    on, fn, poly = prepare(omega, name)
    v = np.abs(np.asarray(v, dtype=float))
    if poly is not None:
        if _convex_on_ray(poly.as_expr()):
            return _tilde_newton(poly, fn, v)
        return _tilde_poly(poly, fn, v)
    return _tilde_search(fn, v)


def _tilde_reference(omega, v):
    on, fn, poly = prepare(omega)
    _, z0 = tilde(omega, v)
    f = sp.lambdify(Z, on, "mpmath")

    def one(vv, zz):
        with mpmath.workdps(40):
            vv = mpmath.mpf(float(vv))
            F = lambda x: f(x) + vv**2 / x**2  # noqa: E731
            if poly is not None:
                dp = sp.Poly(sp.diff(poly.as_expr(), Z) * Z**3, Z)
                cs = [mpmath.mpf(float(c)) if c.is_Float else mpmath.mpf(sp.Rational(c).p) / sp.Rational(c).q
                      for c in dp.all_coeffs()]
                cs[-1] -= 2 * vv**2
                roots = mpmath.polyroots(cs, maxsteps=200, extraprec=200) if len(cs) > 1 else []
                cands = [mpmath.mpf(1)] + [mpmath.re(r) for r in roots
                                           if abs(mpmath.im(r)) < mpmath.mpf(10) ** -20 and mpmath.re(r) >= 1]
                return float(min(F(c) for c in cands))
            lo, hi = max(mpmath.mpf(1), mpmath.mpf(float(zz)) * (1 - mpmath.mpf(10) ** -3)), mpmath.mpf(float(zz)) * (1 + mpmath.mpf(10) ** -3) + mpmath.mpf(10) ** -6
            return float(min(F(_golden_mp(F, lo, hi, 150)), F(mpmath.mpf(1))))

    vs, zs = np.broadcast_arrays(np.asarray(v, float), np.asarray(z0, float))
    out = np.array([one(a, b) for a, b in zip(vs.ravel(), zs.ravel())]).reshape(vs.shape)
    return float(out) if out.ndim == 0 else out


# -- the joint penalty (11) and its effective penalty -------------------------------------------------------
def oplus(omega1, omega2, v, n: int = 200):
    """(omega1 (+) omega2)(v) = min_{1 <= z <= v} omega1(z) + omega2(v/z) (eq 11), v >= 1, vectorized.

    A log grid in z on [1, v] locates the minimum and golden-section search refines it; the endpoints z = 1
    and z = v are candidates too."""
    _, f1, _ = prepare(omega1, "omega1")
    _, f2, _ = prepare(omega2, "omega2")
    v = np.asarray(v, dtype=float)
    F = lambda zz, vv: np.asarray(f1(zz), float) + np.asarray(f2(vv / zz), float)  # noqa: E731
    # omega_i overflows float64 beyond some z_i (exp(z-1) - z beyond z ~ 711): the objective is finite only on
    # [v/z_2, z_1], so the grid covers that interval; a grid over [1, v] can miss it entirely (v = 4.7e5)
    lo_z = np.clip(v / _finite_limit(f2), 1.0, v)
    hi_z = np.clip(np.minimum(v, _finite_limit(f1)), lo_z, None)
    lv0, lv = np.log(lo_z), np.log(hi_z) - np.log(lo_z)
    t = np.linspace(0, 1, n)
    grid = np.exp(lv0[..., None] + lv[..., None] * t)
    vals = F(grid, v[..., None])
    k = np.argmin(vals, axis=-1)
    lo = np.log(np.take_along_axis(grid, np.maximum(k - 1, 0)[..., None], -1)[..., 0])
    hi = np.log(np.take_along_axis(grid, np.minimum(k + 1, n - 1)[..., None], -1)[..., 0])
    g = (math.sqrt(5) - 1) / 2
    for _ in range(90):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        left = F(np.exp(a), v) <= F(np.exp(b), v)
        hi, lo = np.where(left, b, hi), np.where(left, lo, a)
    best = F(np.exp((lo + hi) / 2), v)
    return np.minimum(np.minimum(best, F(lo_z, v)), F(hi_z, v))


def _finite_limit(fn) -> float:
    """The largest z (to 1e-12 relative) where the increasing omega is still finite in float64, or inf."""
    with np.errstate(all="ignore"):
        if np.isfinite(fn(1e300)):
            return math.inf
        lo, hi = 0.0, math.log(1e300)  # log z
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.isfinite(fn(math.exp(mid))) else (lo, mid)
        return math.exp(lo)


def _golden_mp(F, lo, hi, iters: int = 170):
    """Golden-section minimization of F on [lo, hi] in the current mpmath precision (bracket from a grid)."""
    g = (mpmath.sqrt(5) - 1) / 2
    for _ in range(iters):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if F(a) <= F(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def _oplus_reference(omega1, omega2, v):
    """Independent of `oplus`: a 401-point log grid evaluated in mpmath brackets the minimum, which golden-section
    search refines at 40 digits; the endpoints z = 1 and z = v are candidates."""
    f1 = sp.lambdify(Z, prepare(omega1, "omega1")[0], "mpmath")
    f2 = sp.lambdify(Z, prepare(omega2, "omega2")[0], "mpmath")

    def one(vv):
        with mpmath.workdps(40):
            vv = mpmath.mpf(float(vv))
            F = lambda x: f1(x) + f2(vv / x)  # noqa: E731
            grid = [vv ** (mpmath.mpf(k) / 400) for k in range(401)]
            vals = [F(x) for x in grid]
            k = min(range(401), key=vals.__getitem__)
            zs = _golden_mp(F, grid[max(k - 1, 0)], grid[min(k + 1, 400)])
            return float(min(F(zs), F(mpmath.mpf(1)), F(vv)))

    vs = np.asarray(v, float)
    out = np.array([one(a) for a in vs.ravel()]).reshape(vs.shape)
    return float(out) if out.ndim == 0 else out


def _spectral_reference(B, omega):
    """Singular values in 40-digit arithmetic (mpmath), each omega~ by the 40-digit reference of omega.tilde."""
    with mpmath.workdps(40):
        svals = mpmath.svd_r(mpmath.matrix(np.asarray(B, float).tolist()), compute_uv=False)
        sv = np.array([float(x) for x in svals])
    return float(mpmath.fsum(np.atleast_1d(_tilde_reference(omega, sv))))


@functools.lru_cache(maxsize=64)
def _joint_objective(omega1, omega2):
    """G(s1, s2; v) = omega1(s1) + omega2(s2) + v^2/(s1 s2)^2 and its gradient, as mpmath functions."""
    a, b, w = sp.symbols("a b w", positive=True)
    G = prepare(omega1, "omega1")[0].subs(Z, a) + prepare(omega2, "omega2")[0].subs(Z, b) + w**2 / (a * b) ** 2
    return (sp.lambdify((a, b, w), [sp.diff(G, a), sp.diff(G, b)], "mpmath"), sp.lambdify((a, b, w), G, "mpmath"))


def _tilde_oplus_reference(omega1, omega2, v):
    """Independent of `tilde_oplus`: min over s1, s2 >= 1 of omega1(s1) + omega2(s2) + v^2/(s1 s2)^2 as the least of
    the edge problems (s1 = 1: omega2~(v); s2 = 1: omega1~(v); both 40-digit references of omega.tilde) and the
    interior stationary point, found by 40-digit Newton (mpmath.findroot) on the gradient from the best point of a
    float 80 x 80 log grid."""
    _, f1n, _ = prepare(omega1, "omega1")
    _, f2n, _ = prepare(omega2, "omega2")
    grad, Gm = _joint_objective(omega1, omega2)

    def one(vv):
        edges = [float(np.atleast_1d(_tilde_reference(omega2, vv))[0]), float(np.atleast_1d(_tilde_reference(omega1, vv))[0])]
        if vv == 0:
            return 0.0
        tops = []
        for fn in (f1n, f2n):  # the minimizer has omega_i(s_i) <= v^2 (the objective at s = (1, 1))
            top = 2.0
            while fn(top) < vv * vv and top < 1e300:
                top *= 2
            tops.append(top)
        g1 = np.exp(np.linspace(0, np.log(tops[0]), 80))[:, None]
        g2 = np.exp(np.linspace(0, np.log(tops[1]), 80))[None, :]
        with np.errstate(all="ignore"):
            vals = f1n(g1) + f2n(g2) + vv * vv / (g1 * g2) ** 2
        i, j = np.unravel_index(np.argmin(vals), vals.shape)
        cands = list(edges)
        with mpmath.workdps(40):
            try:
                s1, s2 = mpmath.findroot(lambda x, y: grad(x, y, mpmath.mpf(vv)),
                                         (mpmath.mpf(float(g1[i, 0])), mpmath.mpf(float(g2[0, j]))))
                if s1 >= 1 and s2 >= 1:
                    cands.append(float(Gm(s1, s2, mpmath.mpf(vv))))
            except (ValueError, ZeroDivisionError):
                pass  # no interior stationary point near the grid's best: the minimum is on an edge
        return min(cands)

    vs = np.abs(np.asarray(v, float))
    out = np.array([one(float(x)) for x in vs.ravel()]).reshape(vs.shape)
    return float(out) if out.ndim == 0 else out


def tilde_oplus(omega1, omega2, v):
    """Effective penalty of omega1 (+) omega2: min_{s1, s2 >= 1} omega1(s1) + omega2(s2) + v^2/(s1 s2)^2
    (eqs 12, 15, 28 with sigma = v/(s1 s2)) = min_{u >= 1} (omega1 (+) omega2)(u) + v^2/u^2."""
    v = np.abs(np.asarray(v, dtype=float))
    prepare(omega1, "omega1"), prepare(omega2, "omega2")

    def joint(u):
        return oplus(omega1, omega2, np.maximum(np.asarray(u, float), 1.0), n=64)

    # the nested search holds (values x 257 x 64) floats at once: chunks keep that near 70 MB
    flat = v.ravel()
    out = np.concatenate([_tilde_search(joint, flat[i:i + 512])[0] for i in range(0, flat.size, 512)]
                         or [np.zeros(0)])
    return out.reshape(v.shape)


def spectral_penalty(B, omega):
    return float(np.sum(tilde(omega, np.linalg.svd(B, compute_uv=False))[0]))


def theorem1(beta, omega):
    """Theorem 1 (8): s = argmin_{z >= 1} omega(z) + ||beta||^2/z^2 (smallest), theta - theta0 = beta/s,
    M = I + (s - 1) beta beta^T/||beta||^2 (beta = 0: s = 1, M = I)."""
    b = float(np.linalg.norm(beta))
    P = beta.shape[0]
    if b == 0:
        return {"s": 1.0, "theta_delta": np.zeros(P), "M": np.eye(P)}
    _, s = tilde(omega, b)
    s = float(s)
    _, fn, _ = prepare(omega)
    F = lambda zz: float(fn(zz)) + b * b / (zz * zz)  # noqa: E731
    if F(10 * s) <= F(s):  # not increasing beyond s: a bounded omega, whose infimum is approached as z -> oo: a bounded omega, whose infimum is approached as z -> oo
        raise DomainError(f"omega must grow without bound for a minimizer to exist at ||beta|| = {b:.6g} (omega(z) + "
                          f"||beta||^2/z^2 decreases to its infimum as z -> oo); got omega={omega}")
    return {"s": s, "theta_delta": beta / s, "M": np.eye(P) + (s - 1) * np.outer(beta, beta) / b**2}


v_p = scalar("v", "the argument (a singular value / coefficient magnitude); enters as |v|", low=-1e6, high=1e6)
v1_p = scalar("v", "the argument, v >= 1", low=1, high=1e6)
omega_p = _omega_param("omega", "SymPy expression in z: strictly increasing on z >= 1 with omega(1) = 0")
o1_p = _omega_param("omega1", "first-factor penalty (as omega)")
o2_p = _omega_param("omega2", "second-factor penalty (as omega)")

ENTRIES = (
    Entry(id="omega.tilde", title="Scalar effective penalty omega-tilde", source=Source(SEED, "eq (12)"),
          doc=("min over z >= 1 of omega(z) + v^2/z^2: exact through the polynomial stationarity condition when "
               "omega is polynomial on z >= 1 (including |z-1|^p, p integer), else a bounded vectorized search."),
          params=(v_p, omega_p), lhs=r"\tilde\omega(v)", display=r"\min_{z\ge 1}\ \omega(z) + \frac{v^2}{z^2}",
          compute=lambda v, omega: tilde(omega, v)[0], reference=_tilde_reference,
          constraints=(_check_omega("omega"),), examples=({"v": 0.5, "omega": "Abs(z-1)"},
                                                          {"v": 1e3, "omega": "(z-1)**2"}, {"v": 0.0, "omega": "exp(z-1)-z"}),
          rtol=1e-10),
    Entry(id="omega.oplus", title="Joint penalty omega1 (+) omega2", source=Source(SEED, "eq (11)"),
          doc="min over 1 <= z <= v of omega1(z) + omega2(v/z), v >= 1 (Proposition 4: strictly increasing, 0 at 1).",
          params=(v1_p, o1_p, o2_p), lhs=r"(\omega_1\oplus\omega_2)(v)",
          display=r"\min_{1\le z\le v}\ \omega_1(z) + \omega_2(v/z)",
          compute=lambda v, omega1, omega2: oplus(omega1, omega2, v), reference=_oplus_reference,
          constraints=(_check_omega("omega1", "omega2"),)),
    Entry(id="omega.tilde_oplus", title="Effective penalty of the joint penalty", source=Source(SEED, "eqs (12), (15), (28)"),
          doc="min over s1, s2 >= 1 of omega1(s1) + omega2(s2) + v^2/(s1 s2)^2: the per-singular-value problem (15)/(28).",
          params=(v_p, o1_p, o2_p), lhs=r"\widetilde{\omega_1\oplus\omega_2}(v)",
          display=r"\min_{s_1,s_2\ge 1}\ \omega_1(s_1) + \omega_2(s_2) + \frac{v^2}{s_1^2 s_2^2}",
          compute=lambda v, omega1, omega2: tilde_oplus(omega1, omega2, v), reference=_tilde_oplus_reference,
          constraints=(_check_omega("omega1", "omega2"),)),
    Entry(id="omega.spectral_penalty", title="Spectral effective penalty sum_j omega-tilde(sigma_j(B))",
          source=Source(SEED, "eq (12), Theorem 2"), doc="The induced penalty on matrices through the singular values.",
          params=(matrix("B", "P", "Q", "the matrix (a layer's effective coefficients)", low=-1e6, high=1e6), omega_p),
          lhs=r"\widetilde\Omega_\omega(B)", display=r"\sum_j \tilde\omega(\sigma_j(B))",
          compute=lambda B, omega: spectral_penalty(B, omega), reference=_spectral_reference,
          reference_rtol_note="the sum of per-singular-value values, each within 1e-10 of its reference",
          constraints=(_check_omega("omega"),)),
    Entry(id="omega.theorem1", title="Theorem 1: the structureless solution (s, theta - theta0, M)",
          source=Source(SEED, "Theorem 1, eq (8)"),
          doc=("s = argmin_{z >= 1} omega(z) + ||beta||^2/z^2 (smallest element of the argmin), theta_delta = beta/s, "
               "M = I + (s-1) beta beta^T/||beta||^2; beta = 0 gives s = 1, M = I."),
          params=(vector("beta", "P", "the interpolating coefficients beta-hat (eq 5)", low=-1e6, high=1e6), omega_p),
          lhs=r"(s, \hat\theta - \theta_0, \hat M)",
          display=r"\hat M = I_P + (s-1)\frac{\hat\beta\hat\beta^T}{\|\hat\beta\|^2},\ \hat\theta = \theta_0 + s^{-1}\hat\beta",
          compute=lambda beta, omega: theorem1(beta, omega), constraints=(_check_omega("omega"),),
          value_doc='{"s": float, "theta_delta": vector, "M": matrix}'),
    Entry(id="omega.diag_l1", title="Diagonal M with omega(m) = m^2: 2||beta||_1", source=Source(SEED, "App. A.1, eq (22)"),
          doc="min over m_j > 0 of m_j^2 + beta_j^2/m_j^2 = 2|beta_j| at m_j^2 = |beta_j|, summed: 2||beta||_1.",
          params=(vector("beta", "P", "coefficients", low=-1e300, high=1e300),), lhs=r"\widetilde\Omega(\beta)",
          display=r"2\|\beta\|_1", compute=lambda beta: 2 * float(np.sum(np.abs(beta))),
          reference=lambda beta: float(2 * mpmath.fsum(abs(mpmath.mpf(float(b))) for b in beta))),
)


# -- derivations ---------------------------------------------------------------------------------------
z = Z
vv = sp.Symbol("v", positive=True)
ss = sp.Symbol("s", positive=True)
bb = sp.Symbol("b", positive=True)  # ||beta||
P3 = 3
b_vec = sp.Matrix(sp.symbols("b_1:4", real=True))
M8 = sp.eye(P3) + (ss - 1) * b_vec * b_vec.T / (b_vec.T * b_vec)[0]


def _eval(omega: str, v):
    return tilde(sp.sympify(omega, locals={"z": Z}), np.asarray(v, float))[0]


def _prop3_concave():
    worst = np.inf
    for om in EXAMPLES:
        u = np.linspace(0.0, 50.0, 2001)  # u = v^2
        w = _eval(om, np.sqrt(u))
        second = w[2:] - 2 * w[1:-1] + w[:-2]
        worst = min(worst, float(np.min(-second)), float(np.min(np.diff(w))))
    return worst >= -1e-11, f"min over {len(EXAMPLES)} omegas of -(second difference) and of the first difference of u -> omega~(sqrt u) on [0, 50]: {worst:.2e}"


def _prop3_small_v():
    # o(v^2): the deviation |omega~(v)/v^2 - 1| must shrink as v -> 0 (and be small at v = 1e-5)
    vs = np.array([1e-1, 1e-2, 1e-3, 1e-4, 1e-5])
    ok, worst = True, 0.0
    for om in EXAMPLES:
        dev = np.abs(_eval(om, vs) / vs**2 - 1)
        ok &= bool(np.all(np.diff(dev) <= 1e-15)) and dev[-1] < 1e-4  # |z-1|^3: deviation ~ v (omega~ = v^2 - O(v^3))
        worst = max(worst, float(dev[-1]))
    return ok, f"|omega~(v)/v^2 - 1| decreases along v = 1e-1 .. 1e-5 for {len(EXAMPLES)} omegas; at 1e-5 at most {worst:.1e}"


def _prop4():
    worst = np.inf
    for o1 in EXAMPLES[:3]:
        for o2 in EXAMPLES[:3]:
            vals = oplus(sp.sympify(o1, locals={"z": Z}), sp.sympify(o2, locals={"z": Z}), np.linspace(1, 20, 400))
            worst = min(worst, float(np.min(np.diff(vals))), -abs(float(vals[0])) if vals[0] != 0 else np.inf)
    return worst > 0, f"min over 9 pairs of the increments of (omega1 (+) omega2) on [1, 20] (and 0 at v = 1): {worst:.2e}"


def _s_increasing():
    s_small = float(tilde(sp.Abs(Z - 1), 0.5)[1])
    return s_small > 1, (f"omega = |z - 1|, ||beta|| = 0.5: s = {s_small} = s(0); s stays 1 for ||beta|| <= 1/sqrt(2) "
                         "(2 v^2 <= 1 = omega'(1+)), so it is non-decreasing, not increasing")


def _bounded_omega():
    # omega = (z-1)^2/(1+(z-1)^2) is strictly quasi-convex with omega(1) = 0 but bounded by 1: with ||beta|| = 2,
    # omega(z) + 4/z^2 -> 1 as z -> oo and stays above 1, so eq (4) has no minimizer
    F = lambda zz: (zz - 1) ** 2 / (1 + (zz - 1) ** 2) + 4 / zz**2  # noqa: E731
    vals = [F(10.0**k) for k in range(1, 8)]
    decreasing = all(a > b for a, b in zip(vals, vals[1:]))
    return not (decreasing and min(vals) > 1), (f"omega = (z-1)^2/(1+(z-1)^2), ||beta|| = 2: F(10^k) = "
                                                f"{', '.join(f'{x:.9f}' for x in vals[:4])}, ... decreases to 1, never attained")


def _lemma5_reduction():
    """(28) -> (29): min over s1, s2 >= 1 of omega1(s1) + omega2(s2) + d^2/(s1 s2)^2, minimized directly (2-D, scipy
    from a grid's best point), equals omega~ of omega1 (+) omega2 as the entry computes it (nested 1-D minima)."""
    from scipy.optimize import minimize

    worst = 0.0
    pairs = (("(z-1)**2", "Abs(z-1)"), ("Abs(z-1)**3", "(z-1)**2"), ("exp(z-1)-z", "Abs(z-1)"))
    for o1, o2 in pairs:
        e1, e2 = (sp.sympify(o, locals={"z": Z}) for o in (o1, o2))
        f1, f2 = prepare(e1)[1], prepare(e2)[1]
        for dval in (0.5, 2.0, 6.0):
            G = lambda w: float(f1(1 + w[0] ** 2)) + float(f2(1 + w[1] ** 2)) + dval**2 / ((1 + w[0] ** 2) * (1 + w[1] ** 2)) ** 2  # noqa: E731
            grid = [(a, b) for a in np.linspace(0, 4, 21) for b in np.linspace(0, 4, 21)]
            start = min(grid, key=G)
            direct = minimize(G, start, method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-14, "maxiter": 4000}).fun
            entry = float(tilde_oplus(e1, e2, dval))
            worst = max(worst, abs(direct - entry) / max(entry, 1e-300))
    return worst < 1e-7, f"max relative difference between (28) minimized in 2-D and the nested form over 3 pairs x 3 d: {worst:.1e}"


def _asymptote():
    # omega = (z-1)^2: stationarity z^4 - z^3 = v^2 parametrizes v by z; omega~ = (z-1)(2z-1)
    zz = sp.Symbol("zeta", positive=True)
    v_of = zz**2 * sp.sqrt(1 - 1 / zz)
    w_of = (zz - 1) * (2 * zz - 1)
    lead = sp.limit(w_of / v_of, zz, sp.oo)
    nxt = sp.limit((w_of - 2 * v_of) / sp.sqrt(v_of), zz, sp.oo)
    const = sp.limit(w_of - 2 * v_of + 2 * sp.sqrt(v_of), zz, sp.oo)
    ok = lead == 2 and nxt == -2 and const == sp.Rational(3, 4)
    num = float(_eval("(z-1)**2", 1e6)) - (2e6 - 2e3 + 0.75)
    return ok and abs(num) < 1e-2, (f"omega~(v) = {lead} v - {-nxt} sqrt(v) + {const} + o(1) (SymPy limits); numerically "
                                    f"omega~(1e6) - (2v - 2 sqrt v + 3/4) = {num:.2e}")


def _seed_like_abs():
    # the text says omega~ "behaves like |v|" for large v: the ratio omega~(v)/|v| tends to 2, not 1
    r = float(_eval("(z-1)**2", 1e8)) / 1e8
    return abs(r - 1) < 0.1, f"omega = (z-1)^2: omega~(1e8)/1e8 = {r:.6f} -> 2 (like 2|v|)"


def _theorem1_value():
    worst = 0.0
    for om in EXAMPLES:
        for b in (0.3, 1.0, 4.0):
            e = sp.sympify(om, locals={"z": Z})
            s = float(tilde(e, b)[1])
            on, fn, _ = prepare(e)
            obj = float(fn(s)) + (b / s) ** 2  # Omega(M) + ||theta - theta0||^2 at (8)
            worst = max(worst, abs(obj - float(tilde(e, b)[0])))
    return worst < 1e-12, f"max |Omega_omega(M) + ||beta/s||^2 - omega~(||beta||)| over omegas and ||beta||: {worst:.1e}"


DERIVATIONS = (
    Derivation("omega.theorem1", "Theorem 1: the structureless solution (8) and the adapted kernel (9)", SEED,
               "Theorem 1, eqs (8)-(9), A.3.1", ("omega.theorem1", "omega.tilde"), (
        Step("(8) interpolates: M (theta - theta0) = beta with theta - theta0 = beta/s", M8 * b_vec / ss, b_vec),
        Step("(8): M has the eigenvalue s along beta and 1 on its complement", M8 * b_vec, ss * b_vec),
        Step("(9): M^2 = I + (s^2 - 1) beta beta^T/||beta||^2", M8 * M8,
             sp.eye(P3) + (ss**2 - 1) * b_vec * b_vec.T / (b_vec.T * b_vec)[0]),
        Step("(8) attains omega~(||beta||): Omega(M) + ||theta - theta0||^2 = omega(s) + ||beta||^2/s^2",
             check_fn=claim(_theorem1_value, "evaluation over omegas and ||beta||")),
        Step("'there is a solution to eq. 4' for every strictly quasi-convex omega with omega(1) = 0", erratum=Erratum(
            "003-thm1-existence", SEED, "Theorem 1", "there is a solution to eq. 4 with Omega = Omega_omega",
            "needs omega(z) -> oo: for a bounded omega the infimum omega~(||beta||) is approached as z -> oo but not "
            "attained (the entry omega.tilde returns the infimum; omega.theorem1 rejects such inputs).", ""),
             check_fn=claim(_bounded_omega, "evaluation along z = 10^k")),
        Step("'s takes its minimum value at ||beta|| = 0 and is increasing otherwise'", erratum=Erratum(
            "003-thm1-s", SEED, "text after Theorem 1", "s takes minimum value at ||beta||_2 = 0 and is increasing otherwise",
            "s is non-decreasing; for omega non-differentiable at 1 it stays 1 on a neighbourhood of 0 (|z - 1|: for "
            "||beta|| <= 1/sqrt(2)), so there the kernel does not align at all.", ""),
             check_fn=claim(_s_increasing, "evaluation at omega = |z - 1|, ||beta|| = 0.5")),
    )),
    Derivation("omega.propositions", "Propositions 3 and 4, App. A.1, and the large-v behaviour", SEED,
               "Props. 3-4, eqs (11)-(12), (22)-(26)", ("omega.tilde", "omega.oplus", "omega.tilde_oplus",
                                                        "omega.spectral_penalty", "omega.diag_l1"), (
        Step("Prop. 3: u = v^2 -> omega~ is a minimum of functions affine in u (hence concave, non-decreasing)",
             sp.diff(sp.Symbol("w") + sp.Symbol("u") / z**2, sp.Symbol("u"), 2), 0),
        Step("Prop. 3: concave and increasing in v^2 (numerically, six omegas)", check_fn=claim(_prop3_concave,
                                                                                              "second differences")),
        Step("Prop. 3: omega~(v) = v^2 + o(v^2) (numerically, six omegas)", check_fn=claim(_prop3_small_v, "ratios at small v")),
        Step("(24): stationarity omega'(z) - 2 v^2/z^3 = 0 and the envelope d omega~/dv = 2v/z^2",
             sp.diff(sp.Function("omega")(z) + vv**2 / z**2, vv), 2 * vv / z**2),
        Step("(26): p(p-1)|z-1|^(p-2) z' = 4v gives v z' = C v^(2/(p-1))",
             vv * vv ** (1 - 2 * (sp.Symbol("p", positive=True) - 2) / (sp.Symbol("p", positive=True) - 1)),
             vv ** (2 / (sp.Symbol("p", positive=True) - 1)), domain={sp.Symbol("p", positive=True): (1.5, 5.0)}),
        Step("Lemma 5, (28)-(31): the per-singular-value problem equals omega~ of omega1 (+) omega2",
             check_fn=claim(_lemma5_reduction, "2-D minimization of (28) vs the nested 1-D form")),
        Step("Prop. 4: omega1 (+) omega2 is strictly increasing on [1, oo) with value 0 at 1",
             check_fn=claim(_prop4, "increments on a grid, 9 pairs")),
        Step("A.1, (22): min_m m^2 + beta^2/m^2 = 2|beta| at m^2 = |beta|", (ss**2 + bb**2 / ss**2).subs(ss, sp.sqrt(bb)), 2 * bb),
        Step("omega = (z-1)^2: omega~(v) = 2v - 2 sqrt(v) + 3/4 + o(1)", check_fn=claim(_asymptote, "SymPy limits along z")),
        Step("'omega~ behaves like |v| for large v' (omega = (v-1)^2)", erratum=Erratum(
            "003-prop3-abs", SEED, "text after Proposition 3", "when omega(v) = (v-1)^2, omega~(v) behaves like |v| for large v",
            "omega~(v) = 2|v| - 2 sqrt|v| + 3/4 + o(1): linear with slope 2 (nuclear-norm-like up to the factor 2).", ""),
             check_fn=claim(_seed_like_abs, "ratio at v = 1e8")),
    )),
)

# the errata of the seed's text and proofs (eq (7), Props. 3-4, Lemma 5, Theorems 1-2), beside their corrections
from .omega_proofs import DERIVATIONS as PROOF_DERIVATIONS  # noqa: E402

DERIVATIONS = DERIVATIONS + PROOF_DERIVATIONS
